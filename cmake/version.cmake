# SPDX-License-Identifier: BSD-3-Clause
# Writes the version source at every build, so that `sonde --version` names the commit the binary
# was built from (configure_file at configure time froze the commit of the first cmake run):
#   cmake -DSOURCE_DIR=... -DTEMPLATE=... -DOUT=... -DPROJECT_VERSION=... -P version.cmake
# OUT is rewritten only when its text changes, so an unchanged checkout relinks nothing.
execute_process(COMMAND git describe --always --dirty --tags
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE SONDE_GIT_DESCRIBE OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET)
if(NOT SONDE_GIT_DESCRIBE)
  set(SONDE_GIT_DESCRIBE "unknown")
endif()
configure_file(${TEMPLATE} ${OUT} @ONLY)

# SPDX-License-Identifier: BSD-3-Clause
# The layers hold (docs/architecture.md, "Layers"): run by ctest as
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DMUST_FAIL="target|header,..." -DMUST_BUILD=target
#         -P check_layers.cmake
# 1. Each MUST_FAIL probe is a source file of one layer's library that includes a header of a
#    layer it must not see; building it must fail because that header is not found (and not for
#    another reason). MUST_BUILD includes what its layer may see: it must build, so the failures
#    above are the include directories' doing.
# 2. A quoted include is looked up first beside the file that includes it, which the include
#    directories cannot stop: so no source under src/ names a header by a relative path ("..")
#    or by a directory other than its own workload's ("workloads/<w>/..." in src/workloads/<w>.c
#    and src/workloads/<w>/ only).
set(failures "")
string(REPLACE "," ";" MUST_FAIL "${MUST_FAIL}")

foreach(entry ${MUST_FAIL})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 target)
  list(GET parts 1 header)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
                  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  string(REPLACE "." "\\." header_re "${header}")
  if(rc EQUAL 0)
    list(APPEND failures "${target} built: ${header} is visible to its layer")
  elseif(NOT out MATCHES "${header_re}: No such file")
    list(APPEND failures "${target} failed, but not for want of ${header}:\n${out}")
  else()
    message(STATUS "${target}: ${header} not found, as it must be")
  endif()
endforeach()

execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${MUST_BUILD}
                OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  list(APPEND failures "${MUST_BUILD} (legal includes) did not build:\n${out}")
endif()

file(GLOB_RECURSE sources ${SOURCE_DIR}/src/*.c ${SOURCE_DIR}/src/*.h)
foreach(f ${sources})
  file(RELATIVE_PATH rel ${SOURCE_DIR}/src ${f})
  set(own "")
  if(rel MATCHES "^workloads/([^/.]+)[/.]")
    set(own "workloads/${CMAKE_MATCH_1}/")
  endif()
  file(STRINGS ${f} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${includes})
    string(REGEX REPLACE "^[^\"]*\"([^\"]*)\".*" "\\1" name "${line}")
    if(name MATCHES "\\.\\.")
      list(APPEND failures "src/${rel}: #include \"${name}\" climbs out of its directory")
    elseif(name MATCHES "/")
      string(LENGTH "${own}" own_len)
      string(SUBSTRING "${name}" 0 ${own_len} prefix)
      if(NOT own OR NOT prefix STREQUAL own)
        list(APPEND failures "src/${rel}: #include \"${name}\" is not its own layer's header")
      endif()
    endif()
  endforeach()
endforeach()

if(failures)
  string(REPLACE ";" "\n" text "${failures}")
  message(FATAL_ERROR "the layers do not hold:\n${text}")
endif()
message(STATUS "the layers hold")

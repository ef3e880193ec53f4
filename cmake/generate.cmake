# SPDX-License-Identifier: BSD-3-Clause
# Writes what the built sonde prints in one of its generator modes (the manual pages, the shell
# completion) to OUT:  cmake -DSONDE=... -DARGS="--help-man" -DOUT=... -P generate.cmake
# OUT is replaced only by a complete page: a failing run stops the build with sonde's message.
execute_process(COMMAND ${SONDE} ${ARGS}
                OUTPUT_FILE ${OUT}.part
                ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.part)
  message(FATAL_ERROR "sonde ${ARGS}: ${err}")
endif()
file(RENAME ${OUT}.part ${OUT})

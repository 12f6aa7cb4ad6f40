# Runs a generator and compares what it writes with the committed file (cmake -P).
#   -DTOOL=<generator> -DOUTPUT=<file it writes> -DCOMMITTED=<the file in the repository>
# Fails when the generator fails or the two differ: the committed file is stale (regenerate it with the tool and
# commit it), or the generator no longer gives the same bytes on this machine.
foreach(_var TOOL OUTPUT COMMITTED)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "usage: cmake -DTOOL=... -DOUTPUT=... -DCOMMITTED=... -P check_generated_header.cmake")
  endif()
endforeach()
execute_process(COMMAND "${TOOL}" "${OUTPUT}" RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${TOOL} failed (${_rc}): ${_err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUTPUT}" "${COMMITTED}" RESULT_VARIABLE _differ)
if(NOT _differ EQUAL 0)
  message(FATAL_ERROR "${COMMITTED} is not what ${TOOL} writes now (${OUTPUT}); regenerate it with\n"
                      "  ${TOOL} ${COMMITTED}\nand commit it, or find why the tool's output changed")
endif()

# cmake -DMULTI=<program> -DSINGLE=<program> -P compare_outputs.cmake
# Runs same_results.cpp built against the multi-header library and against the single header, and fails unless
# both exit 0 and print the same bytes.
cmake_minimum_required(VERSION 3.24)
foreach(_build IN ITEMS MULTI SINGLE)
  execute_process(COMMAND "${${_build}}" OUTPUT_VARIABLE _output_${_build} RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "${${_build}} failed: ${_result}")
  endif()
endforeach()
if(NOT _output_MULTI STREQUAL _output_SINGLE)
  # Name the first line that differs (the outputs hold numbers and words only, no ';').
  string(REPLACE "\n" ";" _lines_single "${_output_SINGLE}")
  string(REPLACE "\n" ";" _lines_multi "${_output_MULTI}")
  set(_line_number 0)
  foreach(_line IN LISTS _lines_multi)
    math(EXPR _line_number "${_line_number} + 1")
    list(POP_FRONT _lines_single _line_single)
    if(NOT _line STREQUAL _line_single)
      set(_line_multi "${_line}")   # the loop variable does not outlive the loop
      break()
    endif()
  endforeach()
  message(FATAL_ERROR "The single header gives different results from the multi-header library. First "
                      "difference, line ${_line_number} of the output:\n"
                      "  multi-header (${MULTI}):\n    ${_line_multi}\n"
                      "  single header (${SINGLE}):\n    ${_line_single}\n")
endif()
string(LENGTH "${_output_MULTI}" _length)
message(STATUS "The single header and the multi-header library print the same ${_length} bytes")

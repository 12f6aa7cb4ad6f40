# cmake -DBASH=<bash> -DSCRIPT=<scripts/make-single-header> -DCOMMITTED=<single_include/ctattn.hpp>
#       -DREGENERATED=<scratch path> -P check_committed_copy.cmake
# Regenerates the single header from the headers as they are now and fails if the committed copy differs.
cmake_minimum_required(VERSION 3.24)
execute_process(COMMAND "${BASH}" "${SCRIPT}" "${REGENERATED}" RESULT_VARIABLE _result)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "scripts/make-single-header failed: ${_result}")
endif()
if(NOT EXISTS "${COMMITTED}")
  message(FATAL_ERROR "${COMMITTED} is missing: run scripts/make-single-header single_include/ctattn.hpp")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${COMMITTED}" "${REGENERATED}" RESULT_VARIABLE _differ)
if(NOT _differ EQUAL 0)
  message(FATAL_ERROR "single_include/ctattn.hpp is stale (the headers changed since it was generated): run "
                      "scripts/make-single-header single_include/ctattn.hpp and commit the result")
endif()
message(STATUS "single_include/ctattn.hpp is current")

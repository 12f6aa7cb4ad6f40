# Runs the compiler on one compile-fail test file (cmake -P).
#   -DCOMPILER=... -DFLAGS=a;b;c -DSOURCE=file.cpp -DEXPECT_FAILURE=ON|OFF
# With EXPECT_FAILURE the file is compiled with CTATTN_COMPILE_FAIL defined: the compile must fail and its
# first line containing "error" must match the file's "// expected-error: <regex>" line.
# Without it, the sanity twin (the same file, macro undefined) must compile cleanly.
file(STRINGS "${SOURCE}" _expect_lines REGEX "^// expected-error: ")
if(NOT _expect_lines)
  message(FATAL_ERROR "${SOURCE}: no '// expected-error: <regex>' line")
endif()

if(EXPECT_FAILURE)
  execute_process(COMMAND ${COMPILER} ${FLAGS} -DCTATTN_COMPILE_FAIL=1 "${SOURCE}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(_rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE}: compiled, but it must not")
  endif()
  string(REPLACE "\n" ";" _lines "${_out}")
  set(_first "")
  foreach(_line IN LISTS _lines)
    if(_line MATCHES ": (fatal )?error: ")
      set(_first "${_line}")
      break()
    endif()
  endforeach()
  foreach(_expect IN LISTS _expect_lines)
    string(REGEX REPLACE "^// expected-error: " "" _regex "${_expect}")
    if(NOT _first MATCHES "${_regex}")
      message(FATAL_ERROR "${SOURCE}: the first error line\n  ${_first}\ndoes not match\n  ${_regex}\n"
                          "Full compiler output:\n${_out}")
    endif()
  endforeach()
  message(STATUS "rejected as expected: ${_first}")
else()
  execute_process(COMMAND ${COMPILER} ${FLAGS} "${SOURCE}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE}: the sanity twin must compile, but:\n${_out}")
  endif()
endif()

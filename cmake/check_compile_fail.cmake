# Runs the compiler on one compile-fail test file (cmake -P).
#   -DCOMPILER=... -DFLAGS=a;b;c -DSOURCE=file.cpp -DEXPECT_FAILURE=ON|OFF [-DHEAD_LINES=N] [-DMAX_ERRORS=N]
#   [-DSAVE_OUTPUT=file]
#
# A compile-fail test holds a mistake guarded by CTATTN_COMPILE_FAIL and three annotations:
#   // expected-error: <regex>   the first error line the user reads: the rule's sentence (what is wrong, what to do)
#   // expected-rule: <regex>    the rule with its operation and both dimensions, within the first HEAD_LINES lines
#   ... the line of the mistake ...   // <- mistake
# The user's own file and line (the line marked "// <- mistake") must also appear within the first HEAD_LINES lines,
# and the mistake may produce at most MAX_ERRORS error lines (no cascade).
# Without the macro, the same file is the sanity twin and must compile cleanly.
# SAVE_OUTPUT: the compiler's output for the mistake is also written there, whatever the checks find (the error
# gallery's test reads it: tests/gallery/CMakeLists.txt).
# The sanity twin (EXPECT_FAILURE=OFF; SOURCE may be tests/CMakeLists.txt's unit of every twin): it compiles, or the
# test fails with the compiler's output.
if(NOT EXPECT_FAILURE)
  execute_process(COMMAND ${COMPILER} ${FLAGS} "${SOURCE}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE}: the sanity twin must compile, but:\n${_out}")
  endif()
  return()
endif()

if(NOT DEFINED HEAD_LINES)
  set(HEAD_LINES 16)
endif()
if(NOT DEFINED MAX_ERRORS)
  set(MAX_ERRORS 3)
endif()

file(STRINGS "${SOURCE}" _expect_error REGEX "^// expected-error: ")
file(STRINGS "${SOURCE}" _expect_rule REGEX "^// expected-rule: ")
if(NOT _expect_error OR NOT _expect_rule)
  message(FATAL_ERROR "${SOURCE}: needs a '// expected-error: <regex>' and a '// expected-rule: <regex>' line")
endif()
string(REGEX REPLACE "^// expected-error: " "" _error_regex "${_expect_error}")
string(REGEX REPLACE "^// expected-rule: " "" _rule_regex "${_expect_rule}")

# The line of the mistake, as the compilers print it: "<file name>:<line>:".
file(READ "${SOURCE}" _text)
string(REPLACE ";" "\\;" _text "${_text}")
string(REPLACE "\n" ";" _source_lines "${_text}")
set(_number 0)
set(_mistake_line "")
foreach(_line IN LISTS _source_lines)
  math(EXPR _number "${_number} + 1")
  if(_line MATCHES "// <- mistake$")
    set(_mistake_line ${_number})
  endif()
endforeach()
if(NOT _mistake_line)
  message(FATAL_ERROR "${SOURCE}: no line ends with '// <- mistake'")
endif()
get_filename_component(_name "${SOURCE}" NAME)
set(_location "${_name}:${_mistake_line}:")

execute_process(COMMAND ${COMPILER} ${FLAGS} -DCTATTN_COMPILE_FAIL=1 "${SOURCE}"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(DEFINED SAVE_OUTPUT)
  file(WRITE "${SAVE_OUTPUT}" "${_out}")
endif()
if(_rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: compiled, but it must not")
endif()
string(REPLACE ";" "\\;" _escaped "${_out}")
string(REPLACE "\n" ";" _lines "${_escaped}")
set(_first "")
set(_errors 0)
set(_rule_seen OFF)
set(_location_seen OFF)
set(_number 0)
foreach(_line IN LISTS _lines)
  math(EXPR _number "${_number} + 1")
  if(_line MATCHES ": (fatal )?error: ")
    math(EXPR _errors "${_errors} + 1")
    if(_first STREQUAL "")
      set(_first "${_line}")
    endif()
  endif()
  if(_number LESS_EQUAL HEAD_LINES)
    if(_line MATCHES "${_rule_regex}")
      set(_rule_seen ON)
    endif()
    string(FIND "${_line}" "${_location}" _at)
    if(NOT _at EQUAL -1)
      set(_location_seen ON)
    endif()
  endif()
endforeach()
set(_problems "")
if(NOT _first MATCHES "${_error_regex}")
  string(APPEND _problems "  the first error line\n    ${_first}\n  does not match the sentence\n    ${_error_regex}\n")
endif()
if(NOT _rule_seen)
  string(APPEND _problems "  no line among the first ${HEAD_LINES} names the rule\n    ${_rule_regex}\n")
endif()
if(NOT _location_seen)
  string(APPEND _problems "  no line among the first ${HEAD_LINES} points at the mistake, ${_location}\n")
endif()
if(_errors GREATER MAX_ERRORS)
  string(APPEND _problems "  ${_errors} error lines, more than ${MAX_ERRORS} for one mistake\n")
endif()
if(_problems)
  message(FATAL_ERROR "${SOURCE}:\n${_problems}Full compiler output:\n${_out}")
endif()
message(STATUS "rejected as expected (${_errors} error line(s)): ${_first}")

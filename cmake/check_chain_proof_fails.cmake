# A chain of proofs can fail (cmake -P): copies one link's output header (<name>_after_<k>.hpp, from DIR) with its
# first exact literal changed in the last hexadecimal digit before the exponent, and the link's unit
# on input 0 (<name>_link_<k>_input_0.cpp) beside it (a quoted include looks in the unit's own folder first), compiles the copy, and
# requires the compile to fail with the link's own message.
#   -DCOMPILER=... -DFLAGS=a;b;c -DDIR=<chain dir> -DNAME=<name> -DLINK=<k> -DWORK=<scratch dir>
set(_after "${DIR}/${NAME}_after_${LINK}.hpp")
file(READ "${_after}" _text)
string(REGEX MATCH "0x1\\.[0-9a-f]+p[-+][0-9]+f" _literal "${_text}")
if(NOT _literal)
  message(FATAL_ERROR "${_after}: no exact float literal to change")
endif()
string(REGEX REPLACE "^(0x1\\.[0-9a-f]*)([0-9a-f])(p.*)$" "\\1" _head "${_literal}")
string(REGEX REPLACE "^(0x1\\.[0-9a-f]*)([0-9a-f])(p.*)$" "\\2" _digit "${_literal}")
string(REGEX REPLACE "^(0x1\\.[0-9a-f]*)([0-9a-f])(p.*)$" "\\3" _tail "${_literal}")
if(_digit STREQUAL "2")
  set(_other "4")
else()
  set(_other "2")
endif()
string(FIND "${_text}" "${_literal}" _at)
string(LENGTH "${_literal}" _length)
string(SUBSTRING "${_text}" 0 ${_at} _before)
math(EXPR _after_at "${_at} + ${_length}")
string(SUBSTRING "${_text}" ${_after_at} -1 _rest)
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/${NAME}_after_${LINK}.hpp" "${_before}${_head}${_other}${_tail}${_rest}")
file(COPY "${DIR}/${NAME}_link_${LINK}_input_0.cpp" DESTINATION "${WORK}")
execute_process(COMMAND ${COMPILER} ${FLAGS} "-I${DIR}" -fsyntax-only "${WORK}/${NAME}_link_${LINK}_input_0.cpp"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(_rc EQUAL 0)
  message(FATAL_ERROR "link ${LINK} compiled against a changed output (${_literal} -> ${_head}${_other}${_tail}): "
                      "the chain of proofs cannot fail")
endif()
if(NOT _out MATCHES "link ${LINK} \\([^)]*\\), golden input 0: the compiler's result differs")
  message(FATAL_ERROR "link ${LINK} failed without its message:\n${_out}")
endif()
message(STATUS "link ${LINK} refused a changed output (${_literal} -> ${_head}${_other}${_tail}), with its message")

# Writes the doc examples of one header as a C++ file for the compiler (cmake -P, run by the build).
#   cmake -DHEADER=<absolute path> -DHEADER_NAME=ctattn/<...>.hpp [-DCONTEXT=doc_examples/<...>.hpp]
#         -DOUTPUT=<file.cpp> -P extract_doc_examples.cmake
#
# Each `/// \code ... /// \endcode` block of HEADER becomes one block of OUTPUT, in its own namespace
# doc_example_<line of \code>. OUTPUT includes HEADER first (so every block also checks that its header is
# self-sufficient), then CONTEXT, the hand-written header under tests/doc_examples/ that defines the names the
# examples use without defining them (x, head, weights ...), then the #include lines of the blocks themselves.
#
# Where a block goes: by default into the body of a function, `inline void example() { <block> }`, where a
# statement or a static local (the firmware's .bss) compiles as the reader sees it.
# A block whose first line of code starts with `template`, `struct`, `class`, `union`, `enum`, `namespace` or
# `using` goes at namespace scope instead, since it declares things a reader writes there (a template cannot be
# declared in a function).
# A block's #include lines move to the top of OUTPUT (blank lines keep the block's line numbers), and a
# `#line <n> "<header>"` before the block makes the compiler report an error at the header's own line.
if(NOT DEFINED HEADER OR NOT DEFINED HEADER_NAME OR NOT DEFINED OUTPUT)
  message(FATAL_ERROR
          "usage: cmake -DHEADER=... -DHEADER_NAME=... [-DCONTEXT=...] -DOUTPUT=... -P ${CMAKE_CURRENT_LIST_FILE}")
endif()

# Rationale: a header's lines hold ';', '[' and ']', which CMake's lists treat as separators and brackets; they
# are swapped for control characters while the text is a list of lines, and swapped back on the way out.
string(ASCII 1 _semicolon)
string(ASCII 2 _open_bracket)
string(ASCII 3 _close_bracket)
string(ASCII 4 _resume)   # where a #line returns to OUTPUT's own numbering, filled in at the end
file(READ "${HEADER}" _text)
string(REPLACE ";" "${_semicolon}" _text "${_text}")
string(REPLACE "[" "${_open_bracket}" _text "${_text}")
string(REPLACE "]" "${_close_bracket}" _text "${_text}")
string(REPLACE "\n" ";" _lines "${_text}")

set(_includes "")   # the blocks' #include lines, in order, each once
set(_blocks "")     # OUTPUT's block section, as text
set(_count 0)
set(_number 0)      # the line number in HEADER
set(_in_block OFF)
foreach(_line IN LISTS _lines)
  math(EXPR _number "${_number} + 1")
  if(NOT _in_block)
    if(_line MATCHES "^[ \t]*///[ \t]*\\\\code")
      set(_in_block ON)
      set(_start ${_number})
      set(_body "")
      set(_first_code "")
    endif()
    continue()
  endif()
  if(_line MATCHES "\\\\endcode")
    set(_in_block OFF)
    math(EXPR _count "${_count} + 1")
    math(EXPR _first_line "${_start} + 1")
    if(_first_code MATCHES "^(template|struct|class|union|enum|namespace|using)([ \t<{]|$)")
      set(_open "")
      set(_close "")
    else()
      set(_open "[[maybe_unused]] inline void example() {\n")
      set(_close "}\n")
    endif()
    string(APPEND _blocks "\nnamespace doc_example_${_start} {\n${_open}#line ${_first_line} \"${HEADER}\"\n"
                          "${_body}#line ${_resume}\n${_close}}  // namespace doc_example_${_start}\n")
    continue()
  endif()
  # Rationale: `///` becomes three spaces, so that a diagnostic's column is the header's column too.
  string(REGEX REPLACE "^([ \t]*)///" "\\1   " _code "${_line}")
  if(_code MATCHES "^[ \t]*#[ \t]*include")
    string(STRIP "${_code}" _code)
    list(FIND _includes "${_code}" _known)
    if(_known EQUAL -1)
      list(APPEND _includes "${_code}")
    endif()
    set(_code "")
  endif()
  string(STRIP "${_code}" _stripped)
  if(_first_code STREQUAL "" AND NOT _stripped STREQUAL "" AND NOT _stripped MATCHES "^//")
    set(_first_code "${_stripped}")
  endif()
  string(APPEND _body "${_code}\n")
endforeach()
if(_in_block)
  message(FATAL_ERROR "${HEADER}:${_start}: a \\code block without its \\endcode")
endif()

set(_out "// Generated from include/${HEADER_NAME} by cmake/extract_doc_examples.cmake: do not edit.
//
// Every `/// \\code ... /// \\endcode` block of the header, compiled by the build (tests/doc_examples/), so that a
// doc example cannot rot. Each block is in its own namespace doc_example_<line of its \\code>, in the body of a
// function unless its first line of code starts with template, struct, class, union, enum, namespace or using;
// #line makes an error point at the header's own line. The names an example uses without defining them (x, head,
// weights ...) come from its context, tests/doc_examples/<the header's path under ctattn/>.
// ${_count} blocks.
#include <${HEADER_NAME}>
")
if(DEFINED CONTEXT AND NOT CONTEXT STREQUAL "")
  string(APPEND _out "#include \"${CONTEXT}\"\n")
endif()
foreach(_include IN LISTS _includes)
  string(APPEND _out "${_include}\n")
endforeach()
string(APPEND _out "${_blocks}")

# Each `#line <_resume>` returns the compiler to OUTPUT's own numbering: the number of the line that follows it.
string(REPLACE "${_semicolon}" ";" _out "${_out}")
string(REPLACE "${_open_bracket}" "[" _out "${_out}")
string(REPLACE "${_close_bracket}" "]" _out "${_out}")
set(_result "")
set(_lines_done 0)   # the lines of OUTPUT before the text still in _out
string(FIND "${_out}" "${_resume}" _at)
while(NOT _at EQUAL -1)
  string(SUBSTRING "${_out}" 0 ${_at} _before)
  math(EXPR _after_at "${_at} + 1")
  string(SUBSTRING "${_out}" ${_after_at} -1 _out)
  string(REGEX MATCHALL "\n" _newlines "${_before}")
  list(LENGTH _newlines _n)
  math(EXPR _lines_done "${_lines_done} + ${_n}")
  math(EXPR _next "${_lines_done} + 2")
  string(APPEND _result "${_before}${_next} \"${OUTPUT}\"")
  string(FIND "${_out}" "${_resume}" _at)
endwhile()
string(APPEND _result "${_out}")

# Rationale: written only when it changed, so that a header edit outside its examples rebuilds nothing more.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" _old)
  if(_old STREQUAL _result)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${_result}")

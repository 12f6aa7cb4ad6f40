# cmake -DSOURCE_DIR=<ctattn's source tree> -DEXTRACTED_DIR=<build>/tests/doc_examples -P check_doc_examples.cmake
# Fails unless every `\code` marker in include/ctattn/**.hpp is a block of the file that
# cmake/extract_doc_examples.cmake wrote for its header (one `namespace doc_example_<line> {` per block): no doc
# example goes uncompiled, whatever spelling of \code the extractor might miss. Run after the build, which writes
# the files.
set(_problems "")
set(_markers_total 0)
set(_blocks_total 0)
file(GLOB_RECURSE _headers RELATIVE "${SOURCE_DIR}/include" "${SOURCE_DIR}/include/ctattn/*.hpp")
foreach(_header IN LISTS _headers)
  file(READ "${SOURCE_DIR}/include/${_header}" _text)
  string(REGEX MATCHALL "\\\\code" _markers "${_text}")
  list(LENGTH _markers _marker_count)
  if(_marker_count EQUAL 0)
    continue()
  endif()
  math(EXPR _markers_total "${_markers_total} + ${_marker_count}")
  string(MAKE_C_IDENTIFIER "${_header}" _unit)
  set(_extracted "${EXTRACTED_DIR}/${_unit}.cpp")
  if(NOT EXISTS "${_extracted}")
    string(APPEND _problems "  ${_header}: ${_marker_count} \\code markers, but no ${_unit}.cpp in ${EXTRACTED_DIR} "
                            "(a header's first example needs cmake to run again, then the build)\n")
    continue()
  endif()
  file(STRINGS "${_extracted}" _blocks REGEX "^namespace doc_example_[0-9]+ {$")
  list(LENGTH _blocks _block_count)
  math(EXPR _blocks_total "${_blocks_total} + ${_block_count}")
  if(NOT _block_count EQUAL _marker_count)
    string(APPEND _problems "  ${_header}: ${_marker_count} \\code markers, ${_block_count} blocks in ${_extracted} "
                            "(is the build current? is every block written /// \\code ... /// \\endcode?)\n")
  endif()
endforeach()

if(_problems)
  message(FATAL_ERROR "Doc examples not all compiled:\n${_problems}")
endif()
message(STATUS "${_blocks_total} doc examples extracted, one for each of the ${_markers_total} \\code markers")

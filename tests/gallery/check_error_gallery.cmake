# Writes the error gallery into the build tree and compares it, byte for byte, with the committed page (cmake -P).
#   -DBASH=... -DGXX=... -DCLANGXX=... -DSCRIPT=scripts/make-error-gallery -DCOMMITTED=docs/error_gallery.md
#   -DGENERATED=<build>/error_gallery.md [-DOUTPUTS=<the compile-fail tests' saved output>]
set(ENV{CTATTN_GXX} "${GXX}")
set(ENV{CTATTN_CLANGXX} "${CLANGXX}")
if(DEFINED OUTPUTS)
  set(ENV{CTATTN_GALLERY_OUTPUTS} "${OUTPUTS}")
endif()
file(REMOVE "${GENERATED}")
execute_process(COMMAND "${BASH}" "${SCRIPT}" "${GENERATED}"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "scripts/make-error-gallery failed:\n${_out}")
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${COMMITTED}" "${GENERATED}" RESULT_VARIABLE _differ)
if(NOT _differ EQUAL 0)
  set(_diff "")
  find_program(_diff_program diff)
  if(_diff_program AND EXISTS "${COMMITTED}")
    execute_process(COMMAND "${_diff_program}" -u "${COMMITTED}" "${GENERATED}" OUTPUT_VARIABLE _diff)
    string(LENGTH "${_diff}" _length)
    if(_length GREATER 6000)
      string(SUBSTRING "${_diff}" 0 6000 _diff)
      string(APPEND _diff "\n[... the rest of the difference left out]\n")
    endif()
  endif()
  message(FATAL_ERROR
    "docs/error_gallery.md is out of date: the compilers' messages, a rule or a compile-fail test changed.\n"
    "Run scripts/make-error-gallery from the repository root (with GCC 12 and Clang 14) and commit "
    "docs/error_gallery.md.\nThe page written now is ${GENERATED}.\n${_diff}")
endif()
message(STATUS "docs/error_gallery.md matches the compilers' output")

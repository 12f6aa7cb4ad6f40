# ctattn_chain_proof(<target> WRITER <writer target> NAME <name> LINKS <count> INPUTS <count> [INT8]
#                    [INCLUDE_DIRECTORIES <dir>...])
#
# A model proved one link at a time (ctattn/host/proof.hpp). WRITER is a program of yours whose main returns
# ctattn::host::chain_proof_main(argc, argv, model, golden_inputs, options): at build time it runs the model's links
# on the golden inputs with exact arithmetic and writes, into <build dir>/<target>, one translation unit per link
# and golden input (<name>_link_<k>_input_<g>.cpp) beside headers of the link's weights and exact activations.
# <target> is an OBJECT library of those units: building it is proving the model, each link on each input in a unit
# of its own, built in parallel and rebuilt when its link changes. LINKS is the model's ctattn::link_count and
# INPUTS the number of golden inputs; the writer refuses other counts, so no link goes unproved.
# INCLUDE_DIRECTORIES: where the units find the model's header (the writer's own are not inherited).
# INT8: the writer returns chain_proof_main<ranges>(...) and writes the int8 chain of ctattn::quantize<ranges>(model)
# too: a unit per float link and golden input (<name>_int8_link_<k>_input_<g>.cpp), each making its int8 link from
# the float link's weights and the ranges and checking it on the exact int8 input it gets; the units find the ranges
# header in INCLUDE_DIRECTORIES.
#
# The units evaluate whole layers in constant expressions: GCC and Clang get the raised limits ctattn's proofs use
# (-fconstexpr-ops-limit, -fconstexpr-steps). Defined by ctattn's CMakeLists.txt and by the installed package
# config, beside ctattn_import_weights.
function(ctattn_chain_proof target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "INT8" "WRITER;NAME;LINKS;INPUTS" "INCLUDE_DIRECTORIES")
  foreach(_required IN ITEMS WRITER NAME LINKS INPUTS)
    if(NOT ARG_${_required})
      message(FATAL_ERROR "ctattn_chain_proof(${target} ...): ${_required} is required")
    endif()
  endforeach()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ctattn_chain_proof(${target} ...): unknown arguments ${ARG_UNPARSED_ARGUMENTS} (it takes "
                        "WRITER, NAME, LINKS, INPUTS, INT8 and INCLUDE_DIRECTORIES)")
  endif()
  foreach(_count IN ITEMS LINKS INPUTS)
    if(NOT ARG_${_count} MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "ctattn_chain_proof(${target} ...): ${_count} ${ARG_${_count}} is not a positive count")
    endif()
  endforeach()
  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  math(EXPR _last "${ARG_LINKS} - 1")
  math(EXPR _last_input "${ARG_INPUTS} - 1")
  set(_units "")
  set(_headers "${_dir}/${ARG_NAME}_inputs.hpp")
  set(_int8_word "")
  if(ARG_INT8)
    set(_int8_word int8)
  endif()
  foreach(_k RANGE ${_last})
    foreach(_g RANGE ${_last_input})
      list(APPEND _units "${_dir}/${ARG_NAME}_link_${_k}_input_${_g}.cpp")
      if(ARG_INT8)
        list(APPEND _units "${_dir}/${ARG_NAME}_int8_link_${_k}_input_${_g}.cpp")
      endif()
    endforeach()
    list(APPEND _headers "${_dir}/${ARG_NAME}_after_${_k}.hpp" "${_dir}/${ARG_NAME}_link_${_k}_weights.hpp")
    if(ARG_INT8)
      list(APPEND _headers "${_dir}/${ARG_NAME}_int8_after_${_k}.hpp")
    endif()
  endforeach()
  add_custom_command(
    OUTPUT ${_units} ${_headers}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${_dir}"
    COMMAND ${ARG_WRITER} "${_dir}" ${ARG_LINKS} ${ARG_INPUTS} ${_int8_word}
    DEPENDS ${ARG_WRITER}
    COMMENT "ctattn: writing the chain of proofs ${ARG_NAME} (${ARG_LINKS} links)"
    VERBATIM)
  add_library(${target} OBJECT ${_units})
  target_link_libraries(${target} PRIVATE ctattn::layers)
  target_include_directories(${target} PRIVATE "${_dir}" ${ARG_INCLUDE_DIRECTORIES})
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-fconstexpr-ops-limit=4000000000>
                                           $<$<CXX_COMPILER_ID:Clang,AppleClang>:-fconstexpr-steps=2000000000>)
endfunction()

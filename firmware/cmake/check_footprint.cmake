# Checks a firmware image's compile-time footprint query against the linker's figures.
#   cmake -DNM=arm-none-eabi-nm -DELF=image.elf
#         [-DOBJDUMP=arm-none-eabi-objdump "-DOBJDUMP_FLAGS=-m|armv8.1-m.main" (the board's, '|'-separated)
#          -DAWK=awk -DSTACK_AWK=benchmarks/firmware_stack.awk
#          "-DCI_DIRS=dir1|dir2" -DSTACK_BUDGET=1024] [-DPERTURB=<figure>] -P check_footprint.cmake
#
# The image publishes `Model::footprint` as absolute symbols ctattn_footprint_<figure> (see
# firmware/runtime/footprint_symbols.hpp) and defines its storage under fixed names. From `nm -S`:
#   ctattn_weights    size == weight_bytes,    in read-only data (flash)
#   ctattn_input      size == input_bytes,     in read-only data (flash)
#   ctattn_output     size == output_bytes,    in .bss
#   ctattn_workspace  size == workspace_bytes, in .bss
# With STACK_AWK: the worst-case stack of one inference (GCC's call graph, or for Clang's images the
# disassembly, as benchmarks/firmware_size.sh computes it) holds the kernel's stack scratch (>= stack_bytes) and
# stays within STACK_BUDGET bytes.
# OBJECTS ('|'-separated symbol:figure:types) replaces the four objects above: a model whose layers return their
# activations by value (the verified model) has only its weights in a symbol, e.g. "sorter_weights:weight_bytes:rRuV".
# STACK_MODE=bound (with STACK_AWK) checks the other way round: the footprint's stack_bytes, which counts a layer
# model's activations on the stack, bounds the call graph's worst case (>=), instead of the kernel's scratch being
# part of it.
# FRAME_ALLOWANCE (bytes, with STACK_MODE=bound): what the call frames (saved registers, spills, alignment), which a
# footprint does not count, may add to stack_bytes before the bound fails.
# PERTURB adds 4 to one published figure before comparing: the self-test that a mismatch fails.
cmake_minimum_required(VERSION 3.24)
string(REPLACE "|" ";" _objdump_flags "${OBJDUMP_FLAGS}")
if(NOT NM OR NOT ELF)
  message(FATAL_ERROR "usage: cmake -DNM=<nm> -DELF=<image> [...] -P check_footprint.cmake")
endif()

execute_process(COMMAND "${NM}" -S --defined-only "${ELF}"
                OUTPUT_VARIABLE _symbols RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "check_footprint: ${NM} failed on ${ELF}: ${_err}")
endif()

string(REPLACE "\n" ";" _lines "${_symbols}")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^([0-9a-fA-F]+) ([0-9a-fA-F]+) ([A-Za-z]) ([A-Za-z_][A-Za-z0-9_]*)$")
    math(EXPR _size "0x${CMAKE_MATCH_2}")
    set(_size_${CMAKE_MATCH_4} ${_size})
    set(_type_${CMAKE_MATCH_4} "${CMAKE_MATCH_3}")
  elseif(_line MATCHES "^([0-9a-fA-F]+) A (ctattn_footprint_[a-z_]+)$")
    math(EXPR _value "0x${CMAKE_MATCH_1}")
    set(_figure_${CMAKE_MATCH_2} ${_value})
  endif()
endforeach()

set(_failures "")
set(_report "")
if(OBJECTS)
  string(REPLACE "|" ";" _objects "${OBJECTS}")
else()
  set(_objects "ctattn_weights:weight_bytes:rR" "ctattn_input:input_bytes:rR" "ctattn_output:output_bytes:bB"
               "ctattn_workspace:workspace_bytes:bB")
endif()
foreach(_pair IN LISTS _objects)
  string(REPLACE ":" ";" _pair "${_pair}")
  list(GET _pair 0 _symbol)
  list(GET _pair 1 _figure)
  list(GET _pair 2 _types)
  if(NOT DEFINED _figure_ctattn_footprint_${_figure})
    list(APPEND _failures "the image publishes no ctattn_footprint_${_figure} (publish_footprint<Model>() in main?)")
    continue()
  endif()
  set(_expected ${_figure_ctattn_footprint_${_figure}})
  if(PERTURB STREQUAL _figure)
    math(EXPR _expected "${_expected} + 4")
  endif()
  if(NOT DEFINED _size_${_symbol})
    list(APPEND _failures "the image defines no ${_symbol} with a size")
    continue()
  endif()
  set(_size ${_size_${_symbol}})
  string(APPEND _report "  ${_symbol}: ${_size} bytes (${_type_${_symbol}}), footprint ${_figure} = ${_expected}\n")
  if(NOT _size EQUAL _expected)
    list(APPEND _failures "${_symbol} is ${_size} bytes, the footprint query says ${_figure} = ${_expected}")
  endif()
  string(FIND "${_types}" "${_type_${_symbol}}" _at)
  if(_at EQUAL -1)
    if(_types MATCHES "r")
      set(_where "read-only data (flash)")
    else()
      set(_where ".bss")
    endif()
    list(APPEND _failures "${_symbol} has symbol type '${_type_${_symbol}}', expected ${_where}")
  endif()
endforeach()

if(STACK_AWK)
  if(NOT OBJDUMP OR NOT AWK)
    message(FATAL_ERROR "check_footprint: STACK_AWK needs OBJDUMP and AWK")
  endif()
  # Rationale: names of this run's own (its arguments' digest, and a random part). The check and its perturbed twins
  # read the same image in parallel (ctest -j2); with one shared name one of them could read a file another was
  # writing or had removed.
  string(MD5 _run "${PERTURB}|${STACK_MODE}|${FRAME_ALLOWANCE}|${OBJECTS}")
  string(RANDOM LENGTH 8 _random)
  string(APPEND _run "-${_random}")
  set(_dis "${ELF}.footprint-${_run}-dis.txt")
  set(_syms "${ELF}.footprint-${_run}-syms.txt")
  execute_process(COMMAND "${OBJDUMP}" ${_objdump_flags} -d --no-show-raw-insn "${ELF}" OUTPUT_FILE "${_dis}"
                  RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "check_footprint: ${OBJDUMP} failed on ${ELF}")
  endif()
  file(WRITE "${_syms}" "${_symbols}")
  set(_cis "")
  string(REPLACE "|" ";" _ci_dirs "${CI_DIRS}")
  foreach(_dir IN LISTS _ci_dirs)
    file(GLOB_RECURSE _found "${_dir}/*.ci")
    list(APPEND _cis ${_found})
  endforeach()
  execute_process(COMMAND "${AWK}" -v dis=${_dis} -v syms=${_syms} -v roots=evaluate_at_run_time -f "${STACK_AWK}"
                          "${_dis}" "${_syms}" ${_cis}
                  OUTPUT_VARIABLE _stack RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  file(REMOVE "${_dis}" "${_syms}")
  if(NOT _rc EQUAL 0 OR NOT _stack MATCHES "^evaluate_at_run_time ([0-9]+) ")
    message(FATAL_ERROR "check_footprint: no call-graph stack figure for evaluate_at_run_time: ${_stack}${_err}")
  endif()
  set(_inference_stack ${CMAKE_MATCH_1})
  set(_scratch ${_figure_ctattn_footprint_stack_bytes})
  if(STACK_MODE STREQUAL "bound")
    if(NOT FRAME_ALLOWANCE)
      set(FRAME_ALLOWANCE 0)
    endif()
    if(PERTURB STREQUAL "stack_bytes")
      math(EXPR _scratch "${_inference_stack} - ${FRAME_ALLOWANCE} - 4")
    endif()
    math(EXPR _bound "${_scratch} + ${FRAME_ALLOWANCE}")
    string(APPEND _report "  worst-case stack of one inference (call graph): ${_inference_stack} bytes, footprint "
                          "stack_bytes = ${_scratch}, frame allowance ${FRAME_ALLOWANCE}, budget ${STACK_BUDGET}\n")
    if(_inference_stack GREATER _bound)
      if(FRAME_ALLOWANCE EQUAL 0)
        list(APPEND _failures "one inference's worst-case stack (${_inference_stack} bytes) is more than the footprint's "
                              "stack_bytes = ${_scratch}, which must bound it")
      else()
        list(APPEND _failures "one inference's worst-case stack (${_inference_stack} bytes) is more than the footprint's "
                              "stack_bytes = ${_scratch} plus the call frames' allowance of ${FRAME_ALLOWANCE}, which must bound it")
      endif()
    endif()
  elseif(PERTURB STREQUAL "stack_bytes")
    math(EXPR _scratch "${_inference_stack} + 4")
  endif()
  if(NOT STACK_MODE STREQUAL "bound")
    string(APPEND _report "  worst-case stack of one inference (call graph): ${_inference_stack} bytes, kernel "
                          "scratch stack_bytes = ${_scratch}, budget ${STACK_BUDGET}\n")
  endif()
  if(NOT STACK_MODE STREQUAL "bound" AND _inference_stack LESS _scratch)
    list(APPEND _failures "one inference's worst-case stack (${_inference_stack} bytes) is less than the kernel's "
                          "stack scratch stack_bytes = ${_scratch}: the query or the call graph is wrong")
  endif()
  if(STACK_BUDGET AND _inference_stack GREATER STACK_BUDGET)
    list(APPEND _failures "one inference's worst-case stack is ${_inference_stack} bytes, over the budget of "
                          "${STACK_BUDGET}")
  endif()
endif()

if(_failures)
  list(JOIN _failures "\n  " _text)
  message(FATAL_ERROR "footprint check FAILED for ${ELF}:\n  ${_text}\n${_report}")
endif()
message(STATUS "footprint check of ${ELF}: the query equals the linker's figures\n${_report}")

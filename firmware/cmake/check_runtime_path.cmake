# Checks in the disassembly that a firmware image really computes at run time: a floating-point multiply
# must be reachable (through calls and tail calls) from the function that runs one inference, so the
# compiler did not fold the run-time evaluation into constants.
#   cmake -DOBJDUMP=arm-none-eabi-objdump ["-DOBJDUMP_FLAGS=-m|armv8.1-m.main"] -DELF=image.elf
#         -DENTRY=evaluate_at_run_time -P check_runtime_path.cmake
# (OBJDUMP_FLAGS: the board's, '|'-separated, so that MVE's vfma.f32 q<n> is decoded as such.)
cmake_minimum_required(VERSION 3.24)
string(REPLACE "|" ";" _objdump_flags "${OBJDUMP_FLAGS}")
if(NOT OBJDUMP OR NOT ELF OR NOT ENTRY)
  message(FATAL_ERROR "usage: cmake -DOBJDUMP=<objdump> -DELF=<image> -DENTRY=<name part> -P check_runtime_path.cmake")
endif()
execute_process(COMMAND "${OBJDUMP}" ${_objdump_flags} -d --no-show-raw-insn "${ELF}"
                OUTPUT_VARIABLE _asm RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "check_runtime_path: ${OBJDUMP} failed on ${ELF}: ${_err}")
endif()

# Per function (by its symbol, with '<' '>' kept out of CMake list syntax): FP multiplies and callees.
string(REPLACE ";" "," _asm "${_asm}")
# Brackets would group lines in a CMake list: "ldr r0, [pc, #8]" becomes "ldr r0, (pc, #8)".
string(REPLACE "[" "(" _asm "${_asm}")
string(REPLACE "]" ")" _asm "${_asm}")
string(REPLACE "\n" ";" _lines "${_asm}")
set(_functions "")
set(_current "")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^[0-9a-f]+ <([^>]+)>:$")
    string(MAKE_C_IDENTIFIER "${CMAKE_MATCH_1}" _current)
    list(APPEND _functions "${_current}")
    set(_fp_${_current} 0)
    set(_calls_${_current} "")
    set(_name_${_current} "${CMAKE_MATCH_1}")
  elseif(_current)
    if(_line MATCHES "\tv(mul|mla|mls|nmul|nmla|nmls|fma|fms|fnma|fnms)\\.f(32|64)")
      math(EXPR _fp_${_current} "${_fp_${_current}} + 1")
    endif()
    if(_line MATCHES "\t(bl|b|b\\.w|b\\.n)\t[0-9a-f]+ <([^>+]+)>")
      string(MAKE_C_IDENTIFIER "${CMAKE_MATCH_2}" _callee)
      list(APPEND _calls_${_current} "${_callee}")
    endif()
  endif()
endforeach()

set(_roots "")
foreach(_f IN LISTS _functions)
  if(_name_${_f} MATCHES "${ENTRY}")
    list(APPEND _roots "${_f}")
  endif()
endforeach()
if(NOT _roots)
  message(FATAL_ERROR "check_runtime_path: no function matching '${ENTRY}' in ${ELF}: the run-time path is gone")
endif()

set(_seen "")
set(_queue ${_roots})
set(_multiplies 0)
while(_queue)
  list(POP_FRONT _queue _f)
  if(_f IN_LIST _seen OR NOT DEFINED _fp_${_f})
    continue()
  endif()
  list(APPEND _seen "${_f}")
  math(EXPR _multiplies "${_multiplies} + ${_fp_${_f}}")
  list(APPEND _queue ${_calls_${_f}})
endwhile()

list(LENGTH _seen _count)
if(_multiplies EQUAL 0)
  message(FATAL_ERROR "check_runtime_path: no floating-point multiply is reachable from '${ENTRY}' in ${ELF} "
                      "(${_count} functions searched): the compiler folded the run-time evaluation")
endif()
message(STATUS "run-time path of ${ELF}: ${_multiplies} floating-point multiply instructions in ${_count} functions "
               "reachable from '${ENTRY}'")

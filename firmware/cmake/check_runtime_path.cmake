# Checks in the disassembly that a firmware image really computes at run time: a multiply must be reachable
# (through calls and tail calls) from the function that runs one inference, so the compiler did not fold the
# run-time evaluation into constants.
#   cmake -DOBJDUMP=arm-none-eabi-objdump ["-DOBJDUMP_FLAGS=-m|armv8.1-m.main"] -DELF=image.elf
#         -DENTRY=evaluate_at_run_time [-DMODE=integer] -P check_runtime_path.cmake
# (OBJDUMP_FLAGS: the board's, '|'-separated, so that MVE's vfma.f32 q<n> is decoded as such.)
#
# MODE float (the default): a floating-point multiply must be reachable from ENTRY.
# MODE integer: an integer multiply must be reachable (mul, mla, smull, smlad, MVE's vmul.i8, vmla.s32, ...), and no
#   floating point at all: no instruction with a .f16/.f32/.f64 type, no call to a soft-float routine of libgcc
#   (__aeabi_fmul, __aeabi_i2d, __addsf3, ...).
#
# The integer mode is the int8 images' check: their inference runs in integers only, so it costs the same on a
# core without an FPU (the Cortex-M3), where floats would be libgcc's soft-float calls.
cmake_minimum_required(VERSION 3.24)
string(REPLACE "|" ";" _objdump_flags "${OBJDUMP_FLAGS}")
if(NOT OBJDUMP OR NOT ELF OR NOT ENTRY)
  message(FATAL_ERROR "usage: cmake -DOBJDUMP=<objdump> -DELF=<image> -DENTRY=<name part> [-DMODE=float|integer] "
                      "-P check_runtime_path.cmake")
endif()
if(NOT MODE)
  set(MODE float)
endif()
if(NOT MODE MATCHES "^(float|integer)$")
  message(FATAL_ERROR "check_runtime_path: MODE is '${MODE}'; choose float or integer")
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
# libgcc's soft-float routines, by their __aeabi_ names (__aeabi_fmul, __aeabi_dcmplt, __aeabi_cfcmple,
# __aeabi_i2f, __aeabi_f2iz, ...) or their GCC names (__mulsf3, __ltdf2, __floatsisf, __fixsfsi, ...).
set(_soft_float "^__aeabi_(c?[fd][a-z0-9]+|[a-z0-9]+2[fd])$|^__([a-z]+[sdt]f[23]|float[a-z]+|fix[a-z]+)$")
# Integer multiplies: Armv7-M's and the DSP extension's (mul, mla, mls, smull, umlal, smlabb, smlad, smuad, smmul,
# ...) and MVE's integer forms (vmul.i8, vmla.s32, vmladav.s8, ...).
# RV32's M extension: mul, mulh, mulhu, mulhsu.
set(_integer_multiply
    "\t(mul|mla|mls|[su]mull|[su]mlal|smla[a-z]*|smls[a-z]*|smu[a-z]*|smm[a-z]*|mulh|mulhu|mulhsu)(s|\\.w|\\.n)?\t")
string(CONCAT _mve_integer_multiply "\tv(mul|mla|mlas|mlav|mlava|mladav[a-z]*|mlsdav[a-z]*|mlaldav[a-z]*"
                                    "|mulh|rmulh|qdmulh|qrdmulh|mull[bt])\\.[isu](8|16|32)")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^[0-9a-f]+ <([^>]+)>:$")
    string(MAKE_C_IDENTIFIER "${CMAKE_MATCH_1}" _current)
    list(APPEND _functions "${_current}")
    set(_fp_${_current} 0)
    set(_int_${_current} 0)
    set(_float_${_current} "")
    set(_calls_${_current} "")
    set(_name_${_current} "${CMAKE_MATCH_1}")
    # A soft-float routine of libgcc (its __aeabi_ name or its GCC name) is floating point by its very name.
    if(_name_${_current} MATCHES "${_soft_float}")
      set(_float_${_current} "soft-float routine")
    endif()
  elseif(_current)
    # Arm's VFP and MVE, RV32's F and D (fmul.s, fmadd.d, ...).
    if(_line MATCHES "\tv(mul|mla|mls|nmul|nmla|nmls|fma|fms|fnma|fnms)\\.f(32|64)" OR
       _line MATCHES "\tf(mul|madd|msub|nmadd|nmsub)\\.[sd]\t")
      math(EXPR _fp_${_current} "${_fp_${_current}} + 1")
    endif()
    if(_line MATCHES "${_integer_multiply}" OR _line MATCHES "${_mve_integer_multiply}")
      math(EXPR _int_${_current} "${_int_${_current}} + 1")
    endif()
    # Any floating-point data-processing or conversion instruction (a .f16/.f32/.f64 type among its suffixes).
    if(_float_${_current} STREQUAL "" AND _line MATCHES "\t(v[a-z]+(\\.[a-z0-9]+)*\\.f(16|32|64)(\\.[a-z0-9]+)*)[ \t]")
      set(_float_${_current} "${CMAKE_MATCH_1}")
    endif()
    # RV32's F and D: an instruction on .s, .d or .h values, or a load or store of a float register.
    if(_float_${_current} STREQUAL "" AND _line MATCHES "\t(f[a-z]+(\\.[a-z]+)*\\.[sdh](\\.[a-z]+)*|fl[whd]|fs[whd])\t")
      set(_float_${_current} "${CMAKE_MATCH_1}")
    endif()
    # Calls and tail calls: Arm's bl and b, RV32's jal and j, and its auipc + jalr/jr pairs (unrelaxed), whose
    # target objdump names in a comment. (Two ifs: a MATCHES that fails clears the other's CMAKE_MATCH_<n>.)
    set(_callee_name "")
    if(_line MATCHES "\t(bl|b|b\\.w|b\\.n|jal|j)\t[0-9a-f]+ <([^>+]+)>")
      set(_callee_name "${CMAKE_MATCH_2}")
    elseif(_line MATCHES "\t(jalr|jr)\t[^#]*# [0-9a-f]+ <([^>+]+)>")
      set(_callee_name "${CMAKE_MATCH_2}")
    endif()
    if(NOT _callee_name STREQUAL "")
      string(MAKE_C_IDENTIFIER "${_callee_name}" _callee)
      list(APPEND _calls_${_current} "${_callee}")
      # The same routine may carry two names (__aeabi_fmul and __mulsf3): the call's own name counts too.
      if(_float_${_current} STREQUAL "" AND _callee_name MATCHES "${_soft_float}")
        set(_float_${_current} "calls ${_callee_name}")
      endif()
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
set(_integer_multiplies 0)
set(_floating_point "")
while(_queue)
  list(POP_FRONT _queue _f)
  if(_f IN_LIST _seen OR NOT DEFINED _fp_${_f})
    continue()
  endif()
  list(APPEND _seen "${_f}")
  math(EXPR _multiplies "${_multiplies} + ${_fp_${_f}}")
  math(EXPR _integer_multiplies "${_integer_multiplies} + ${_int_${_f}}")
  if(NOT _float_${_f} STREQUAL "")
    list(APPEND _floating_point "${_name_${_f}} (${_float_${_f}})")
  endif()
  list(APPEND _queue ${_calls_${_f}})
endwhile()

list(LENGTH _seen _count)
if(MODE STREQUAL "float")
  if(_multiplies EQUAL 0)
    message(FATAL_ERROR "check_runtime_path: no floating-point multiply is reachable from '${ENTRY}' in ${ELF} "
                        "(${_count} functions searched): the compiler folded the run-time evaluation")
  endif()
  message(STATUS "run-time path of ${ELF}: ${_multiplies} floating-point multiply instructions in ${_count} "
                 "functions reachable from '${ENTRY}'")
else()
  if(_floating_point)
    list(JOIN _floating_point ", " _floating_point)
    message(FATAL_ERROR "check_runtime_path: floating point is reachable from '${ENTRY}' in ${ELF}, whose "
                        "inference must run in integers only: ${_floating_point}")
  endif()
  if(_integer_multiplies EQUAL 0)
    message(FATAL_ERROR "check_runtime_path: no integer multiply is reachable from '${ENTRY}' in ${ELF} "
                        "(${_count} functions searched): the compiler folded the run-time evaluation")
  endif()
  message(STATUS "run-time path of ${ELF}: ${_integer_multiplies} integer multiply instructions and no floating "
                 "point in ${_count} functions reachable from '${ENTRY}'")
endif()

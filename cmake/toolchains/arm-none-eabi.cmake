# Cross toolchain for bare-metal Arm Cortex-M with Debian's arm-none-eabi-gcc (GCC 12, newlib), and Debian's
# Clang for the Helium board.
#
#   cmake -S . -B build-m4f --toolchain cmake/toolchains/arm-none-eabi.cmake -DCTATTN_BOARD=m4f
#   cmake --build build-m4f -j2 && ctest --test-dir build-m4f --output-on-failure
#
# CTATTN_BOARD picks the core, and with it the compiler, the CPU flags (hence newlib's multilib), the QEMU
# machine that runs the tests, and the two addresses a firmware image needs without a linker script:
#
# | CTATTN_BOARD | core              | compiler | SIMD backend | QEMU machine | vector table | stack top  |
# |--------------|-------------------|----------|--------------|--------------|--------------|------------|
# | m0           | Cortex-M0 (no FPU)| GCC      | scalar       | microbit     | 0x00000000   | 0x20004000 |
# | m3           | Cortex-M3 (no FPU)| GCC      | scalar       | mps2-an385   | 0x00000000   | 0x20400000 |
# | m4f          | Cortex-M4F        | GCC      | scalar       | mps2-an386   | 0x00000000   | 0x20400000 |
# | m7           | Cortex-M7 (DP FPU)| GCC      | scalar       | mps2-an500   | 0x00000000   | 0x20400000 |
# | m33          | Cortex-M33        | GCC      | scalar       | mps2-an505   | 0x10000000   | 0x38200000 |
# | m55          | Cortex-M55 (MVE)  | GCC      | scalar       | mps3-an547   | 0x00000000   | 0x30080000 |
# | m55-helium   | Cortex-M55 (MVE)  | Clang    | helium       | mps3-an547   | 0x00000000   | 0x30080000 |
#
# Code and data stay at the linker's default address (0x8000), which is RAM on the MPS2 and MPS3 machines: QEMU
# loads the whole image there. The micro:bit (nRF51, a Cortex-M0 with 256 KB of flash at 0 and 16 KB of RAM at
# 0x20000000) keeps code and constants at 0x8000 in flash and its data and .bss in RAM (CTATTN_BOARD_DATA_START),
# which QEMU loads directly: no copy at start-up. The an505 and an547 boot in the Secure state and read their reset vector at
# INITSVTOR, hence 0x10000000 on the an505 (a table at 0x0 locks up there).
#
# The two M55 boards are the same core: GCC 12 builds it scalar (kernels/backend.hpp selects no Helium backend
# with GCC before 13, which has internal compiler errors on MVE intrinsics), Clang builds ctattn's Helium backend.
# The Clang board compiles with `clang++ --target=arm-none-eabi` against the headers of the arm-none-eabi GCC
# packages (libstdc++, newlib; their directories asked from arm-none-eabi-g++ for the same CPU flags) and links
# with arm-none-eabi-g++, so that its images have the libraries, linker and layout of the GCC boards.
#
# Variables this file sets for firmware/CMakeLists.txt:
#   CTATTN_BOARD_CPU_FLAGS        the -mcpu/-mfpu/-mfloat-abi/-mthumb flags (also in CMAKE_<LANG>_FLAGS_INIT)
#   CTATTN_BOARD_COMPILE_FLAGS    flags only the compiler takes (Clang: target and include directories)
#   CTATTN_BOARD_CORE             human-readable core name
#   CTATTN_BOARD_HAS_FPU          ON when the core computes floats in hardware; OFF on m3 (soft-float ABI), whose
#                                 images firmware/CMakeLists.txt limits to the int8 tier
#   CTATTN_BOARD_SIMD_BACKEND     ctattn::simd_backend_name this board's build must select
#   CTATTN_BOARD_INT8_BACKEND     ctattn::int8_backend_name this board's build must select
#   CTATTN_BOARD_OBJDUMP_FLAGS    arm-none-eabi-objdump flags that decode every instruction of the core (MVE)
#   CTATTN_QEMU_MACHINE           the qemu-system-arm -machine value
#   CTATTN_BOARD_VECTOR_TABLE     address of the vector table (reset SP, reset PC, ...)
#   CTATTN_BOARD_STACK_TOP        initial stack pointer
#   CTATTN_BOARD_LARGE_MODEL_START      where a LARGE image's constants and data go (KWT-1's megabytes), when the
#                                       code's memory cannot hold them; unset: after the code, as usual
#   CTATTN_BOARD_LARGE_MODEL_STACK_TOP  a LARGE image's stack top; unset: CTATTN_BOARD_STACK_TOP
#   CMAKE_CROSSCOMPILING_EMULATOR qemu-system-arm with semihosting on stdout, ending in -kernel, so that
#                                 add_test(NAME t COMMAND <firmware target>) runs the image under QEMU

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CTATTN_BOARD "m4f" CACHE STRING "Cortex-M board for firmware builds: m0, m3, m4f, m7, m33, m55 or m55-helium")
set_property(CACHE CTATTN_BOARD PROPERTY STRINGS m0 m3 m4f m7 m33 m55 m55-helium)
# try_compile projects re-read this file: hand them the board so that they test the same flags.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CTATTN_BOARD)

set(CTATTN_BOARD_HAS_FPU ON)
if(CTATTN_BOARD STREQUAL "m0")
  # Armv6-M: no FPU, no DSP extension, no 32 x 32 -> 64 multiply; 16 KB of RAM (the RP2040's M0+ class).
  set(CTATTN_BOARD_CORE "Cortex-M0")
  # -masm-syntax-unified: inline assembly in the syntax of the other boards (GCC reads Thumb-1 asm as divided).
  set(CTATTN_BOARD_CPU_FLAGS "-mcpu=cortex-m0 -mthumb -mfloat-abi=soft -masm-syntax-unified")
  set(CTATTN_BOARD_HAS_FPU OFF)
  set(CTATTN_QEMU_MACHINE "microbit")
  set(CTATTN_BOARD_VECTOR_TABLE "0x00000000")
  set(CTATTN_BOARD_STACK_TOP "0x20004000")
  set(CTATTN_BOARD_DATA_START "0x20000000")
  set(CTATTN_BOARD_RAM_BYTES 16384)
  set(CTATTN_BOARD_INT8_BACKEND armv6m)
elseif(CTATTN_BOARD STREQUAL "m3")
  # No FPU: floats would be libgcc's soft-float routines (-mfloat-abi=soft selects newlib's thumb/v7-m/nofp).
  set(CTATTN_BOARD_CORE "Cortex-M3")
  set(CTATTN_BOARD_CPU_FLAGS "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft")
  set(CTATTN_BOARD_HAS_FPU OFF)
  set(CTATTN_BOARD_INT8_BACKEND scalar)
  set(CTATTN_QEMU_MACHINE "mps2-an385")
  set(CTATTN_BOARD_VECTOR_TABLE "0x00000000")
  set(CTATTN_BOARD_STACK_TOP "0x20400000")
elseif(CTATTN_BOARD STREQUAL "m4f")
  set(CTATTN_BOARD_CORE "Cortex-M4F")
  set(CTATTN_BOARD_CPU_FLAGS "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb")
  set(CTATTN_QEMU_MACHINE "mps2-an386")
  set(CTATTN_BOARD_VECTOR_TABLE "0x00000000")
  set(CTATTN_BOARD_STACK_TOP "0x20400000")
  # Large models (KWT-1): code and constants in the 4 MB at 0 as always; the stack in the 4 MB below the top.
elseif(CTATTN_BOARD STREQUAL "m7")
  set(CTATTN_BOARD_CORE "Cortex-M7")
  set(CTATTN_BOARD_CPU_FLAGS "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard -mthumb")
  set(CTATTN_QEMU_MACHINE "mps2-an500")
  set(CTATTN_BOARD_VECTOR_TABLE "0x00000000")
  set(CTATTN_BOARD_STACK_TOP "0x20400000")
elseif(CTATTN_BOARD STREQUAL "m33")
  set(CTATTN_BOARD_CORE "Cortex-M33")
  set(CTATTN_BOARD_CPU_FLAGS "-mcpu=cortex-m33 -mfpu=fpv5-sp-d16 -mfloat-abi=hard -mthumb")
  set(CTATTN_QEMU_MACHINE "mps2-an505")
  set(CTATTN_BOARD_VECTOR_TABLE "0x10000000")
  set(CTATTN_BOARD_STACK_TOP "0x38200000")
elseif(CTATTN_BOARD STREQUAL "m55" OR CTATTN_BOARD STREQUAL "m55-helium")
  # The M55's FPU and MVE (Helium) come with -mcpu alone.
  set(CTATTN_BOARD_CPU_FLAGS "-mcpu=cortex-m55 -mfloat-abi=hard -mthumb")
  set(CTATTN_QEMU_MACHINE "mps3-an547")
  set(CTATTN_BOARD_VECTOR_TABLE "0x00000000")
  set(CTATTN_BOARD_STACK_TOP "0x30080000")
  # Large models (KWT-1): the code runs from the 512 KB ITCM at 0 and the stack from the 512 KB DTCM, too small for
  # megabytes of weights and a float inference by value: their constants, data and stack go to the 4 MB SRAM at
  # 0x21000000 (QEMU's "sram 2"; `info mtree` in its monitor).
  set(CTATTN_BOARD_LARGE_MODEL_START "0x21000000")
  set(CTATTN_BOARD_LARGE_MODEL_STACK_TOP "0x21400000")
  # Without a machine, objdump shows MVE instructions as coprocessor operations.
  set(CTATTN_BOARD_OBJDUMP_FLAGS "-m;armv8.1-m.main")
  if(CTATTN_BOARD STREQUAL "m55")
    set(CTATTN_BOARD_CORE "Cortex-M55")
  else()
    set(CTATTN_BOARD_CORE "Cortex-M55 Helium")
    set(CTATTN_BOARD_COMPILER clang)
    set(CTATTN_BOARD_SIMD_BACKEND helium)
    set(CTATTN_BOARD_INT8_BACKEND helium)
  endif()
else()
  message(FATAL_ERROR "CTATTN_BOARD is '${CTATTN_BOARD}'; choose one of m0, m3, m4f, m7, m33, m55, m55-helium")
endif()
if(NOT DEFINED CTATTN_BOARD_SIMD_BACKEND)
  set(CTATTN_BOARD_SIMD_BACKEND scalar)
endif()
if(NOT DEFINED CTATTN_BOARD_INT8_BACKEND)
  set(CTATTN_BOARD_INT8_BACKEND arm_dsp)  # the DSP extension of the M4, M7, M33 and M55 (GCC 12: no MVE code)
endif()

if(CTATTN_BOARD_COMPILER STREQUAL "clang")
  find_program(CTATTN_ARM_GXX arm-none-eabi-g++ REQUIRED)
  # libstdc++'s and newlib's include directories for these CPU flags: arm-none-eabi-g++'s search list, without
  # GCC's own directory (include, include-fixed: Clang brings its own stddef.h, arm_mve.h, ...).
  separate_arguments(_ctattn_cpu_list UNIX_COMMAND "${CTATTN_BOARD_CPU_FLAGS}")
  execute_process(COMMAND "${CTATTN_ARM_GXX}" ${_ctattn_cpu_list} -x c++ -E -v /dev/null
                  OUTPUT_QUIET ERROR_VARIABLE _ctattn_gxx_search RESULT_VARIABLE _ctattn_rc)
  if(NOT _ctattn_rc EQUAL 0 OR
     NOT _ctattn_gxx_search MATCHES "#include <...> search starts here:\n(.*)\nEnd of search list")
    message(FATAL_ERROR "arm-none-eabi-g++ did not list its include directories: ${_ctattn_gxx_search}")
  endif()
  string(REPLACE "\n" ";" _ctattn_gxx_dirs "${CMAKE_MATCH_1}")
  # -fshort-enums: the enum size of arm-none-eabi-gcc's ABI, which newlib and libgcc are built with (Clang's
  # default for this target is int, and GNU ld warns about every library object then).
  # Rationale: -fno-vectorize -fno-slp-vectorize: ctattn's Helium code is written with intrinsics, which these
  # flags leave alone; Clang 14's auto-vectorizer turns a NaN test (x != x) in a loop into an MVE compare pair
  # (vpt ge; vcmpt lt; vpnot) that calls every number NaN (seen in this board's images), and vectorized exact
  # loops would compute with MVE, which under QEMU flushes subnormals, not with the FPU static_assert's bits need.
  set(CTATTN_BOARD_COMPILE_FLAGS "-fshort-enums -fno-vectorize -fno-slp-vectorize -nostdlibinc")
  foreach(_dir IN LISTS _ctattn_gxx_dirs)
    string(STRIP "${_dir}" _dir)
    cmake_path(NORMAL_PATH _dir)
    if(_dir MATCHES "/c\\+\\+/")
      string(APPEND CTATTN_BOARD_COMPILE_FLAGS " -isystem ${_dir}")
    elseif(NOT _dir MATCHES "/lib/gcc/")
      # The C library after Clang's own headers, as GCC orders it.
      string(APPEND CTATTN_BOARD_COMPILE_FLAGS " -idirafter ${_dir}")
    endif()
  endforeach()
  include("${CMAKE_CURRENT_LIST_DIR}/clang_with_gcc_link.cmake")
  ctattn_clang_with_gcc_link(TARGET arm-none-eabi GXX "${CTATTN_ARM_GXX}" PREFIX arm-none-eabi)
else()
  set(CMAKE_C_COMPILER arm-none-eabi-gcc)
  set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
  set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
  # CMake finds arm-none-eabi-ar, -nm, -objdump from the compiler's prefix.
endif()

# Nothing can be linked before the firmware's startup code exists: test the compiler with a static library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_EXECUTABLE_SUFFIX ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_CXX ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_C ".elf")

foreach(_lang C CXX ASM)
  set(CMAKE_${_lang}_FLAGS_INIT "${CTATTN_BOARD_CPU_FLAGS} ${CTATTN_BOARD_COMPILE_FLAGS}")
endforeach()
# The linker driver needs the CPU flags too: they select newlib's and libgcc's multilib.
set(CMAKE_EXE_LINKER_FLAGS_INIT "${CTATTN_BOARD_CPU_FLAGS}")
if(CTATTN_BOARD_COMPILER STREQUAL "clang")
  # Clang marks its objects' stack non-executable (.note.GNU-stack), newlib's objects have no mark, and GNU ld
  # then warns that the stack becomes executable: say that it does not (a Cortex-M has no such notion).
  string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -Wl,-z,noexecstack")
endif()

# Programs (QEMU, size, nm) come from the host; libraries and headers only from the cross sysroot.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Semihosting goes to stdout (so that CTest shows it); the serial port and the monitor are switched off.
# SYS_EXIT_EXTENDED hands the image's exit code to QEMU's, hence to CTest.
# -icount shift=0: the virtual clock advances exactly 1 ns per guest instruction, so the SysTick counter
# that the images read counts instructions, not host time (see docs/firmware.md).
find_program(CTATTN_QEMU_SYSTEM_ARM qemu-system-arm DOC "qemu-system-arm, runs the firmware tests")
if(CTATTN_QEMU_SYSTEM_ARM)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      "${CTATTN_QEMU_SYSTEM_ARM};-machine;${CTATTN_QEMU_MACHINE};-display;none;-serial;null;-monitor;none"
      "-icount;shift=0"
      "-chardev;stdio,id=ctattn_semihosting;-semihosting-config;enable=on,target=native,chardev=ctattn_semihosting"
      "-kernel")
  string(JOIN ";" CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CROSSCOMPILING_EMULATOR})
endif()

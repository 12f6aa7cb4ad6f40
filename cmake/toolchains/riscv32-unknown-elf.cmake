# Cross toolchain for bare-metal RV32 with Debian's riscv64-unknown-elf-gcc (GCC 12) and picolibc, the images run
# under qemu-system-riscv32 (package qemu-system-misc).
#
#   cmake -S . -B build-firmware-rv32e --toolchain cmake/toolchains/riscv32-unknown-elf.cmake -DCTATTN_BOARD=rv32e
#   cmake --build build-firmware-rv32e -j2 && ctest --test-dir build-firmware-rv32e --output-on-failure
#
# | CTATTN_BOARD | core                        | QEMU machine | reset (code)  | RAM                    | stack top  |
# |--------------|-----------------------------|--------------|---------------|------------------------|------------|
# | rv32e        | RV32IMAC (SiFive E31 class) | sifive_e     | 0x20400000    | 16 KB at 0x80000000    | 0x80004000 |
# | rv32gc       | RV32IMAFDC                  | virt         | 0x80000000    | 128 MB at 0x80000000   | 0x84000000 |
# | rv32gcv      | RV32IMAFDCV (Clang 14)      | virt, -cpu rv32,v=true,vlen=128 | 0x80000000 | 128 MB  | 0x84000000 |
#
# `rv32gcv` compiles with Clang 14 (`--target=riscv32-unknown-elf -march=rv32gcv`: the vector extension 1.0, which
# GCC 12 cannot compile) and links with riscv64-unknown-elf-g++ and picolibc's rv32imafdc/ilp32d libraries (the
# vector extension changes no calling convention those libraries use); its int8 backend is `rvv`
# (kernels/rvv_int8.hpp).
#
# The reset code (firmware/runtime/riscv_runtime.cpp, section .vectors) sits at the address the machine jumps to
# with -bios none; on `sifive_e` code and constants stay in its flash (XIP) and data and .bss go to its RAM
# (CTATTN_BOARD_DATA_START, the small-data section first: GCC puts small objects in .sdata, and -Tdata does not move
# it when .data is empty); QEMU loads every section at its address, so nothing is copied at start-up.
#
# Rationale: Debian 12 packages no C++ library for riscv64-unknown-elf. The images need only libstdc++'s headers
# (templates: <array>, <type_traits>, <bit>, ...), and link nothing of libstdc++ (-fno-exceptions -fno-rtti, no
# iostream): they take the headers of libstdc++-arm-none-eabi-dev, whose bits/c++config.h describes a 32-bit
# bare-metal newlib target as ILP32 RV32 is, before picolibc's C headers (--specs=picolibc.specs).
#
# Variables for firmware/CMakeLists.txt, as cmake/toolchains/arm-none-eabi.cmake sets them; and
#   CTATTN_BOARD_ARCH             riscv (arm in the other file): the runtime's sources
#   CTATTN_BOARD_TEXT_START       where .text goes after the reset code
#   CTATTN_BOARD_LINK_CPU_FLAGS   the CPU flags of the link: the multilib's own name (rv32imac/ilp32), without the
#                                 _zicsr the assembler needs for csrr/csrw, or libgcc falls back to rv64's

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CTATTN_BOARD_ARCH riscv)

set(CTATTN_BOARD "rv32e" CACHE STRING "RV32 board for firmware builds: rv32e or rv32gc")
set_property(CACHE CTATTN_BOARD PROPERTY STRINGS rv32e rv32gc)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CTATTN_BOARD)

if(CTATTN_BOARD STREQUAL "rv32e")
  set(CTATTN_BOARD_CORE "RV32IMAC")
  set(_ctattn_march rv32imac)
  set(_ctattn_mabi ilp32)
  set(CTATTN_BOARD_HAS_FPU OFF)
  set(CTATTN_QEMU_MACHINE "sifive_e")
  set(CTATTN_BOARD_VECTOR_TABLE "0x20400000")
  set(CTATTN_BOARD_TEXT_START "0x20401000")
  set(CTATTN_BOARD_DATA_START "0x80000000")
  set(CTATTN_BOARD_STACK_TOP "0x80004000")
  set(CTATTN_BOARD_RAM_BYTES 16384)
elseif(CTATTN_BOARD STREQUAL "rv32gc")
  set(CTATTN_BOARD_CORE "RV32IMAFDC")
  set(_ctattn_march rv32imafdc)
  set(_ctattn_mabi ilp32d)
  set(CTATTN_BOARD_HAS_FPU ON)
  set(CTATTN_QEMU_MACHINE "virt")
  set(CTATTN_BOARD_VECTOR_TABLE "0x80000000")
  set(CTATTN_BOARD_TEXT_START "0x80001000")
  set(CTATTN_BOARD_STACK_TOP "0x84000000")
elseif(CTATTN_BOARD STREQUAL "rv32gcv")
  set(CTATTN_BOARD_CORE "RV32IMAFDCV")
  set(_ctattn_march rv32imafdc)
  set(_ctattn_mabi ilp32d)
  set(CTATTN_BOARD_HAS_FPU ON)
  set(CTATTN_BOARD_COMPILER clang)
  set(CTATTN_QEMU_MACHINE "virt")
  # RVV 1.0 with 128-bit vectors (QEMU 7.2's rv32 CPU has I, M, A, F, D and C by default).
  set(CTATTN_QEMU_CPU "rv32,v=true,vlen=128,elen=64,vext_spec=v1.0")
  set(CTATTN_BOARD_VECTOR_TABLE "0x80000000")
  set(CTATTN_BOARD_TEXT_START "0x80001000")
  set(CTATTN_BOARD_STACK_TOP "0x84000000")
  set(CTATTN_BOARD_INT8_BACKEND rvv)
else()
  message(FATAL_ERROR "CTATTN_BOARD is '${CTATTN_BOARD}'; choose rv32e, rv32gc or rv32gcv")
endif()
set(CTATTN_BOARD_SIMD_BACKEND scalar)
if(NOT DEFINED CTATTN_BOARD_INT8_BACKEND)
  set(CTATTN_BOARD_INT8_BACKEND rv32im)  # kernels/rv32im_int8.hpp: these boards have the M extension
endif()
if(CTATTN_BOARD_COMPILER STREQUAL "clang")
  set(CTATTN_BOARD_CPU_FLAGS "-march=rv32gcv -mabi=${_ctattn_mabi}")
else()
  set(CTATTN_BOARD_CPU_FLAGS "-march=${_ctattn_march}_zicsr -mabi=${_ctattn_mabi}")
endif()
set(CTATTN_BOARD_LINK_CPU_FLAGS "-march=${_ctattn_march} -mabi=${_ctattn_mabi}")

set(_ctattn_libstdcxx /usr/include/newlib/c++/12.2.1)
if(NOT EXISTS "${_ctattn_libstdcxx}/array")
  message(FATAL_ERROR "libstdc++'s headers for bare-metal targets are missing: apt-get install libstdc++-arm-none-eabi-dev")
endif()
set(_ctattn_cxx_headers "-nostdinc++ -isystem ${_ctattn_libstdcxx} -isystem ${_ctattn_libstdcxx}/arm-none-eabi")
set(_ctattn_picolibc_include /usr/lib/picolibc/riscv64-unknown-elf/include)
if(CTATTN_BOARD_COMPILER STREQUAL "clang")
  # Clang's own headers (stddef.h, riscv_vector.h), then libstdc++'s and picolibc's, as GCC's spec orders them.
  # Rationale: -fno-vectorize -fno-slp-vectorize, as on the Helium board: ctattn's vector code is written with
  # intrinsics; vectorized exact loops would reorder their sums.
  set(_ctattn_cxx_headers "-nostdlibinc -isystem ${_ctattn_libstdcxx} -isystem ${_ctattn_libstdcxx}/arm-none-eabi")
  set(CTATTN_BOARD_COMPILE_FLAGS
      "-fno-vectorize -fno-slp-vectorize ${_ctattn_cxx_headers} -idirafter ${_ctattn_picolibc_include}")
else()
  # picolibc's spec once per command (GCC refuses it twice): in the firmware targets' flags, not the INIT flags.
  set(CTATTN_BOARD_COMPILE_FLAGS "--specs=picolibc.specs ${_ctattn_cxx_headers}")
endif()

find_program(CTATTN_RISCV_GXX riscv64-unknown-elf-g++)
if(NOT CTATTN_RISCV_GXX)
  message(FATAL_ERROR "riscv64-unknown-elf-g++ not found: apt-get install gcc-riscv64-unknown-elf "
                      "picolibc-riscv64-unknown-elf libstdc++-arm-none-eabi-dev qemu-system-misc")
endif()
if(CTATTN_BOARD_COMPILER STREQUAL "clang")
  include("${CMAKE_CURRENT_LIST_DIR}/clang_with_gcc_link.cmake")
  ctattn_clang_with_gcc_link(TARGET riscv32-unknown-elf GXX "${CTATTN_RISCV_GXX}" PREFIX riscv64-unknown-elf)
else()
  find_program(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
  set(CMAKE_CXX_COMPILER ${CTATTN_RISCV_GXX})
  set(CMAKE_ASM_COMPILER ${CMAKE_C_COMPILER})
endif()
# picolibc's libraries of this multilib (its spec would also add its linker script, which these images replace by
# the default one and their section addresses).
set(_ctattn_picolibc_lib /usr/lib/picolibc/riscv64-unknown-elf/lib/${_ctattn_march}/${_ctattn_mabi})

set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_EXECUTABLE_SUFFIX ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_CXX ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_C ".elf")
foreach(_lang C CXX ASM)
  set(CMAKE_${_lang}_FLAGS_INIT "${CTATTN_BOARD_CPU_FLAGS} ${_ctattn_cxx_headers}")
endforeach()
# Rationale: --no-relax: GNU ld 2.40's relaxation against the global pointer deleted the `lui` of a %hi/%lo pair
# while leaving one of its two `lw ...%lo(...)` users unrelaxed, which then loaded through whatever the register
# held (firmware_int16_cases on rv32e faulted on address 0x6c, a double constant at .LC48 and .LC48 + 4, with
# .sdata moved to the RAM); without relaxation every %hi/%lo pair stays whole.
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "${CTATTN_BOARD_LINK_CPU_FLAGS} -L${_ctattn_picolibc_lib} -Wl,--no-warn-rwx-segments -Wl,--no-relax")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# As on the Arm boards: semihosting to stdout and the exit code to QEMU's; -icount shift=0 makes minstret (the
# images' counter) and the virtual clock advance one per instruction.
find_program(CTATTN_QEMU_SYSTEM_RISCV32 qemu-system-riscv32 DOC "qemu-system-riscv32, runs the firmware tests")
if(CTATTN_QEMU_SYSTEM_RISCV32)
  set(_ctattn_qemu_cpu "")
  if(DEFINED CTATTN_QEMU_CPU)
    set(_ctattn_qemu_cpu "-cpu;${CTATTN_QEMU_CPU};")
  endif()
  set(CMAKE_CROSSCOMPILING_EMULATOR
      "${CTATTN_QEMU_SYSTEM_RISCV32};-machine;${CTATTN_QEMU_MACHINE};${_ctattn_qemu_cpu}-bios;none;-display;none;-serial;null"
      "-monitor;none;-icount;shift=0"
      "-chardev;stdio,id=ctattn_semihosting;-semihosting-config;enable=on,target=native,chardev=ctattn_semihosting"
      "-kernel")
  string(JOIN ";" CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CROSSCOMPILING_EMULATOR})
endif()

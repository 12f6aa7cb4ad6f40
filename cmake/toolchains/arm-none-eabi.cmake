# Cross toolchain for bare-metal Arm Cortex-M with Debian's arm-none-eabi-gcc (GCC 12, newlib).
#
#   cmake -S . -B build-m4f --toolchain cmake/toolchains/arm-none-eabi.cmake -DCTATTN_BOARD=m4f
#   cmake --build build-m4f -j2 && ctest --test-dir build-m4f --output-on-failure
#
# CTATTN_BOARD picks the core, and with it the CPU flags (hence newlib's multilib), the QEMU machine that
# runs the tests, and the two addresses a firmware image needs without a linker script:
#
# | CTATTN_BOARD | core              | QEMU machine | vector table | stack top  |
# |--------------|-------------------|--------------|--------------|------------|
# | m4f          | Cortex-M4F        | mps2-an386   | 0x00000000   | 0x20400000 |
# | m7           | Cortex-M7 (DP FPU)| mps2-an500   | 0x00000000   | 0x20400000 |
# | m33          | Cortex-M33        | mps2-an505   | 0x10000000   | 0x38200000 |
# | m55          | Cortex-M55 (MVE)  | mps3-an547   | 0x00000000   | 0x30080000 |
#
# Code and data stay at the linker's default address (0x8000), which is RAM on all four machines: QEMU
# loads the whole image there. The an505 and an547 boot in the Secure state and read their reset vector at
# INITSVTOR, hence 0x10000000 on the an505 (a table at 0x0 locks up there).
#
# Variables this file sets for firmware/CMakeLists.txt:
#   CTATTN_BOARD_CPU_FLAGS        the -mcpu/-mfpu/-mfloat-abi/-mthumb flags (also in CMAKE_<LANG>_FLAGS_INIT)
#   CTATTN_BOARD_CORE             human-readable core name
#   CTATTN_QEMU_MACHINE           the qemu-system-arm -machine value
#   CTATTN_BOARD_VECTOR_TABLE     address of the vector table (reset SP, reset PC, ...)
#   CTATTN_BOARD_STACK_TOP        initial stack pointer
#   CMAKE_CROSSCOMPILING_EMULATOR qemu-system-arm with semihosting on stdout, ending in -kernel, so that
#                                 add_test(NAME t COMMAND <firmware target>) runs the image under QEMU

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CTATTN_BOARD "m4f" CACHE STRING "Cortex-M board for firmware builds: m4f, m7, m33 or m55")
set_property(CACHE CTATTN_BOARD PROPERTY STRINGS m4f m7 m33 m55)
# try_compile projects re-read this file: hand them the board so that they test the same flags.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CTATTN_BOARD)

if(CTATTN_BOARD STREQUAL "m4f")
  set(CTATTN_BOARD_CORE "Cortex-M4F")
  set(CTATTN_BOARD_CPU_FLAGS "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb")
  set(CTATTN_QEMU_MACHINE "mps2-an386")
  set(CTATTN_BOARD_VECTOR_TABLE "0x00000000")
  set(CTATTN_BOARD_STACK_TOP "0x20400000")
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
elseif(CTATTN_BOARD STREQUAL "m55")
  set(CTATTN_BOARD_CORE "Cortex-M55")
  # The M55's FPU and MVE (Helium) come with -mcpu alone; the scalar path is what runs today.
  set(CTATTN_BOARD_CPU_FLAGS "-mcpu=cortex-m55 -mfloat-abi=hard -mthumb")
  set(CTATTN_QEMU_MACHINE "mps3-an547")
  set(CTATTN_BOARD_VECTOR_TABLE "0x00000000")
  set(CTATTN_BOARD_STACK_TOP "0x30080000")
else()
  message(FATAL_ERROR "CTATTN_BOARD is '${CTATTN_BOARD}'; choose one of m4f, m7, m33, m55")
endif()

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# CMake finds arm-none-eabi-ar, -nm, -objdump from the compiler's prefix.

# Nothing can be linked before the firmware's startup code exists: test the compiler with a static library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_EXECUTABLE_SUFFIX ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_CXX ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_C ".elf")

foreach(_lang C CXX ASM)
  set(CMAKE_${_lang}_FLAGS_INIT "${CTATTN_BOARD_CPU_FLAGS}")
endforeach()
# The linker driver needs the CPU flags too: they select newlib's and libgcc's multilib.
set(CMAKE_EXE_LINKER_FLAGS_INIT "${CTATTN_BOARD_CPU_FLAGS}")

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

# Cross toolchain for AArch64 Linux with Debian's aarch64-linux-gnu-g++ (GCC 12), whose programs CTest runs under
# qemu-aarch64 (user-mode emulation). AArch64 always has NEON, so this build tests the NEON backend.
#
#   cmake -S . -B build-cross-aarch64 -G Ninja --toolchain cmake/toolchains/aarch64-linux-gnu.cmake \
#     -DCTATTN_BUILD_TESTS=ON -DCTATTN_BUILD_EXAMPLES=OFF
#   cmake --build build-cross-aarch64 -j2 && ctest --test-dir build-cross-aarch64 --output-on-failure
#
# Debian packages: g++-aarch64-linux-gnu (compiler, and the target's libc and libstdc++ under /usr/aarch64-linux-gnu)
# and qemu-user (qemu-aarch64). scripts/run-tests installs both and runs this build, without the examples (they
# compare run-time results with static_assert's bit for bit, which the NEON default, fast arithmetic, does not give).
#
# Which tests the cross build leaves out: tests/CMakeLists.txt. Where its Catch2 comes from:
# cmake/ctattn_find_catch2.cmake.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# The target's headers and libraries live under this prefix (the compiler finds them there by itself).
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
# Programs (qemu-aarch64, bash) come from the host; libraries, headers and CMake packages only from the target's
# prefix, so that nothing built for x86-64 is picked up.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# add_test(NAME t COMMAND <target>) then runs the program under QEMU; its exit code decides the test.
# Rationale: the emulator is named rather than left to binfmt_misc, which is not registered on every machine (nor
# in containers); -L points the emulated dynamic loader at the target's libc and libstdc++.
set(CMAKE_CROSSCOMPILING_EMULATOR "qemu-aarch64;-L;/usr/aarch64-linux-gnu")

#ifndef CTATTN_FIRMWARE_RUNTIME_SEMIHOSTING_HPP
#define CTATTN_FIRMWARE_RUNTIME_SEMIHOSTING_HPP

/// \file
/// Semihosting, the two calls the firmware images need: print a C string and exit with a code. On Arm a call is
/// `bkpt 0xAB` with the operation in r0 and its argument in r1; on RISC-V `ebreak` between two marker instructions,
/// the operation in a0 and its argument in a1. QEMU serves it when started with `-semihosting-config enable=on`.
/// No C library, no stdio.

#include <cstdint>

namespace ctattn_firmware::semihosting {

/// SYS_WRITE0: print a NUL-terminated string on the host.
void write0(const char* text) noexcept;

/// SYS_EXIT_EXTENDED: stop the simulation; QEMU exits with `code` (so CTest sees it).
[[noreturn]] void exit(int code) noexcept;

}  // namespace ctattn_firmware::semihosting

#endif  // CTATTN_FIRMWARE_RUNTIME_SEMIHOSTING_HPP

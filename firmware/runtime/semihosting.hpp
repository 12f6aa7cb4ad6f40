#ifndef CTATTN_FIRMWARE_RUNTIME_SEMIHOSTING_HPP
#define CTATTN_FIRMWARE_RUNTIME_SEMIHOSTING_HPP

/// \file
/// Arm semihosting, the two calls the firmware images need: print a C string and exit with a code.
/// A semihosting call is `bkpt 0xAB` with the operation in r0 and its argument in r1; QEMU serves it when
/// started with `-semihosting-config enable=on`. No newlib, no stdio.

#include <cstdint>

namespace ctattn_firmware::semihosting {

/// SYS_WRITE0: print a NUL-terminated string on the host.
void write0(const char* text) noexcept;

/// SYS_EXIT_EXTENDED: stop the simulation; QEMU exits with `code` (so CTest sees it).
[[noreturn]] void exit(int code) noexcept;

}  // namespace ctattn_firmware::semihosting

#endif  // CTATTN_FIRMWARE_RUNTIME_SEMIHOSTING_HPP

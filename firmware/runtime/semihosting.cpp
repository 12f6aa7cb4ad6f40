#include "semihosting.hpp"

namespace ctattn_firmware::semihosting {
namespace {

constexpr std::uint32_t sys_write0 = 0x04;
constexpr std::uint32_t sys_exit_extended = 0x20;
// ADP_Stopped_ApplicationExit: the reason code that makes SYS_EXIT_EXTENDED report a normal exit with a code.
constexpr std::uint32_t adp_stopped_application_exit = 0x20026;

std::uint32_t call(std::uint32_t operation, const void* argument) noexcept {
  std::uint32_t result;
  asm volatile(
      "mov r0, %1\n\t"
      "mov r1, %2\n\t"
      "bkpt 0xAB\n\t"
      "mov %0, r0"
      : "=r"(result)
      : "r"(operation), "r"(argument)
      : "r0", "r1", "memory");
  return result;
}

}  // namespace

void write0(const char* text) noexcept { call(sys_write0, text); }

void exit(int code) noexcept {
  const std::uint32_t block[2] = {adp_stopped_application_exit, static_cast<std::uint32_t>(code)};
  call(sys_exit_extended, block);
  // Not reached under a semihosting host; without one, stop here rather than run off.
  for (;;) {
    asm volatile("" ::: "memory");
  }
}

}  // namespace ctattn_firmware::semihosting

#include "semihosting.hpp"

namespace ctattn_firmware::semihosting {
namespace {

constexpr std::uint32_t sys_write0 = 0x04;
constexpr std::uint32_t sys_exit_extended = 0x20;
// ADP_Stopped_ApplicationExit: the reason code that makes SYS_EXIT_EXTENDED report a normal exit with a code.
constexpr std::uint32_t adp_stopped_application_exit = 0x20026;

#if defined(__riscv)
// RISC-V semihosting: the operation in a0, its argument in a1, and `ebreak` between two marker instructions,
// uncompressed and in one page (hence the alignment).
[[gnu::noinline]] std::uint32_t call(std::uint32_t operation, const void* argument) noexcept {
  register std::uint32_t a0 asm("a0") = operation;
  register const void* a1 asm("a1") = argument;
  asm volatile(
      ".option push\n\t"
      ".option norvc\n\t"
      ".balign 16\n\t"
      "slli zero, zero, 0x1f\n\t"
      "ebreak\n\t"
      "srai zero, zero, 7\n\t"
      ".option pop"
      : "+r"(a0)
      : "r"(a1)
      : "memory");
  return a0;
}
#else
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
#endif

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

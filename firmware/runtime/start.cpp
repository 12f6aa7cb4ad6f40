// What every board's start-up shares once its reset code has set the stack and the floating-point (and vector)
// unit: .bss zeroed, static constructors, the stack painted, main(), the stack's high-water mark reported, the exit
// code handed to QEMU; and the paint's read-back. The reset code, the paint itself (assembly) and the counter are
// each architecture's (startup.cpp for Cortex-M, riscv_runtime.cpp for RV32).
#include <cstdint>

#include "board.hpp"
#include "report.hpp"
#include "semihosting.hpp"

extern "C" {
extern std::uint32_t ctattn_stack_limit[];
extern void (*__init_array_start[])();
extern void (*__init_array_end[])();
}

// The image's main(), called by its symbol name (C++ does not let a program call ::main itself).
int ctattn_image_main() __asm__("main");

namespace {
// The stack paint; each architecture's paint() spells it out in its assembly.
constexpr std::uint32_t pattern = 0xC7A7'7E57u;
}  // namespace

namespace ctattn_firmware {

[[noreturn]] void run_image(std::uintptr_t bss_begin, std::uintptr_t bss_end) noexcept {
  for (std::uintptr_t p = bss_begin; p < bss_end; p += sizeof(std::uint32_t)) {
    *reinterpret_cast<volatile std::uint32_t*>(p) = 0;
  }
  for (auto f = __init_array_start; f != __init_array_end; ++f) (*f)();
  const std::uintptr_t top = stack::pointer();
  stack::paint();
  const int code = ctattn_image_main();
  const std::uint32_t used = stack::used_below(top);
  (report_line{} << "stack high-water mark of main(): " << used << " bytes; exit code "
                 << static_cast<std::uint32_t>(code))
      .end();
  semihosting::exit(code);
}

namespace stack {

std::uint32_t used_below(std::uintptr_t top) noexcept {
  auto p = reinterpret_cast<std::uintptr_t>(ctattn_stack_limit);
  while (p < top && *reinterpret_cast<const volatile std::uint32_t*>(p) == pattern) p += sizeof(std::uint32_t);
  return static_cast<std::uint32_t>(top - p);
}

}  // namespace stack
}  // namespace ctattn_firmware

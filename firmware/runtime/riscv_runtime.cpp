// Minimal RV32 startup for the ctattn firmware images (QEMU's sifive_e and virt machines, -bios none): the reset
// code at the board's reset address (.vectors) -> start() -> run_image() (start.cpp: .bss zeroed, static
// constructors, main(), exit by semihosting). The counter the images time with is `minstret` (instructions
// retired; exact under QEMU's -icount), read through the same interface as the Cortex-M boards' SysTick (board.hpp).
#include <cstdint>

#include "board.hpp"
#include "report.hpp"
#include "semihosting.hpp"

extern "C" {
extern std::uint32_t ctattn_stack_top[];
extern std::uint32_t __bss_start[];
extern std::uint32_t _end[];  // the default linker script's end of .bss

[[noreturn]] void ctattn_reset_handler();
[[noreturn]] void ctattn_start();
[[noreturn]] void ctattn_trap_handler();
}

// The reset address's code: the stack pointer, the global pointer (for gp-relative addressing), a trap vector,
// the FPU on where the core has one (mstatus.FS), the vector unit likewise (mstatus.VS), then C++.
extern "C" [[gnu::naked, gnu::section(".vectors"), gnu::used, noreturn]] void ctattn_reset_handler() {
  asm volatile(
      ".option push\n\t"
      ".option norelax\n\t"
      "la gp, __global_pointer$\n\t"
      ".option pop\n\t"
      "la sp, ctattn_stack_top\n\t"
      "la t0, ctattn_trap_handler\n\t"
      "csrw mtvec, t0\n\t"
#if defined(__riscv_flen)
      "li t0, 0x2000\n\t"  // mstatus.FS = Initial
      "csrs mstatus, t0\n\t"
      "csrw fcsr, zero\n\t"
#endif
#if defined(__riscv_vector)
      "li t0, 0x200\n\t"  // mstatus.VS = Initial: the vector unit on
      "csrs mstatus, t0\n\t"
#endif
      "j ctattn_start");
}

// The name the link keeps (-Wl,--undefined=ctattn_vector_table) on every board: on RV32 the reset code itself.
asm(".global ctattn_vector_table\n\t.set ctattn_vector_table, ctattn_reset_handler");

extern "C" void ctattn_start() {
  ctattn_firmware::run_image(reinterpret_cast<std::uintptr_t>(__bss_start), reinterpret_cast<std::uintptr_t>(_end));
}

// Every trap ends the run with exit code 3, its cause, the address or value it concerns and where it happened.
extern "C" [[gnu::aligned(4)]] void ctattn_trap_handler() {
  std::uint32_t cause, value, pc;
  asm volatile("csrr %0, mcause" : "=r"(cause));
  asm volatile("csrr %0, mtval" : "=r"(value));
  asm volatile("csrr %0, mepc" : "=r"(pc));
  (ctattn_firmware::report_line{} << "FAULT: mcause " << cause << ", mtval " << value << ", mepc " << pc).end();
  ctattn_firmware::semihosting::exit(3);
}

namespace ctattn_firmware {
namespace stack {

// Rationale: assembly, so that no compiled code saves registers below the stack pointer it has just read.
[[gnu::naked]] void paint() noexcept {
  asm volatile(
      "la t0, ctattn_stack_limit\n\t"
      "li t1, 0xC7A77E57\n\t"  // start.cpp's pattern
      "1:\n\t"
      "bgeu t0, sp, 2f\n\t"
      "sw t1, 0(t0)\n\t"
      "addi t0, t0, 4\n\t"
      "j 1b\n"
      "2:\n\t"
      "ret");
}

}  // namespace stack

namespace systick {

// Rationale: minstret counts instructions retired, 64 bits in two halves; the high half is read again to catch a
// carry between the two reads. The clock source does not apply: one tick is one instruction.
void start(clock_source) noexcept {}

std::uint64_t ticks() noexcept {
  for (;;) {
    std::uint32_t high, low, again;
    asm volatile("csrr %0, minstreth" : "=r"(high));
    asm volatile("csrr %0, minstret" : "=r"(low));
    asm volatile("csrr %0, minstreth" : "=r"(again));
    if (high == again) return (std::uint64_t{high} << 32) | low;
  }
}

[[gnu::noinline]] void spin(std::uint32_t iterations) noexcept {
  asm volatile(
      "1:\n\t"
      "addi %0, %0, -1\n\t"
      "bnez %0, 1b"
      : "+r"(iterations));
}

}  // namespace systick
}  // namespace ctattn_firmware

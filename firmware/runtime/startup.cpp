// Minimal Cortex-M startup for the ctattn firmware images, without newlib's crt0 or stdio:
//   vector table -> reset handler (FPU/MVE on, where the core has them) -> start() -> run_image() (start.cpp:
//   .bss zeroed, static constructors, main(), exit).
// Code and data are loaded into RAM by QEMU at their link addresses (no .data copy from flash).
#include <cstdint>

#include "board.hpp"
#include "report.hpp"
#include "semihosting.hpp"

// Symbols from the linker: the stack (-Wl,--defsym, see firmware/CMakeLists.txt) and the default linker
// script's section bounds.
extern "C" {
extern std::uint32_t ctattn_stack_top[];
extern std::uint32_t ctattn_stack_limit[];
extern std::uint32_t __bss_start__[];
extern std::uint32_t __bss_end__[];

[[noreturn]] void ctattn_reset_handler();
[[noreturn]] void ctattn_start();
[[noreturn]] void ctattn_fault_handler();
void ctattn_systick_handler();
}

namespace {

using handler = void (*)();

// The first 16 entries of the Armv7-M / Armv8-M vector table: initial SP, reset, and the system exceptions (the
// last, SysTick, counts the timer's wraps). No external interrupt is enabled, so no external vectors are needed.
struct vector_table {
  void* initial_stack_pointer;
  handler reset;
  handler system[14];
};

}  // namespace

// Placed at the board's reset vector address (-Wl,--section-start=.vectors=...) and kept by
// -Wl,--undefined=ctattn_vector_table.
extern "C" [[gnu::section(".vectors"), gnu::used]] const vector_table ctattn_vector_table{
    ctattn_stack_top,
    ctattn_reset_handler,
    {ctattn_fault_handler, ctattn_fault_handler, ctattn_fault_handler, ctattn_fault_handler, ctattn_fault_handler,
     ctattn_fault_handler, ctattn_fault_handler, ctattn_fault_handler, ctattn_fault_handler, ctattn_fault_handler,
     ctattn_fault_handler, ctattn_fault_handler, ctattn_fault_handler, ctattn_systick_handler}};

// Rationale: CPACR is 0 at reset, so the first floating-point (or MVE) instruction would fault. The handler
// is naked assembly so that the compiler cannot schedule any FP code (a register save, a memcpy through
// d-registers) before CP10/CP11 are on; dsb/isb make the change visible before the next instruction.
// Rationale: a core built without an FPU (the Cortex-M3, -mfloat-abi=soft: no __ARM_FP) has no CP10/CP11 to
// enable, and its images contain no FP instruction, so its reset handler leaves CPACR alone.
extern "C" [[gnu::naked, noreturn]] void ctattn_reset_handler() {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  asm volatile(
      "ldr r0, =0xE000ED88\n\t"  // CPACR
      "ldr r1, [r0]\n\t"
      "orr r1, r1, #(0xF << 20)\n\t"  // CP10 and CP11: full access (FPU; MVE on the M55)
      "str r1, [r0]\n\t"
      "dsb\n\t"
      "isb\n\t"
      "b ctattn_start\n\t"
      ".ltorg");
#else
  asm volatile("b ctattn_start");
#endif
}

extern "C" void ctattn_start() {
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  // Armv8-M checks the stack limit in hardware: an overflow faults instead of overwriting memory.
  asm volatile("msr msplim, %0" ::"r"(ctattn_stack_limit));
#endif
  ctattn_firmware::run_image(reinterpret_cast<std::uintptr_t>(__bss_start__),
                             reinterpret_cast<std::uintptr_t>(__bss_end__));
}

// Every fault ends the run with exit code 3 and the exception number, instead of a lockup that only a
// timeout would end.
extern "C" void ctattn_fault_handler() {
  std::uint32_t ipsr;
  asm volatile("mrs %0, ipsr" : "=r"(ipsr));
  (ctattn_firmware::report_line{} << "FAULT: exception " << (ipsr & 0x1FFu)).end();
  ctattn_firmware::semihosting::exit(3);
}

namespace ctattn_firmware {

namespace stack {

// Rationale: assembly, because compiled code may save registers below the stack pointer it has just read
// (shrink-wrapping does so at -O3), and the paint would overwrite them. This uses only r1-r3 and no stack.
[[gnu::naked]] void paint() noexcept {
  asm volatile(
      "ldr r1, =ctattn_stack_limit\n\t"
      "ldr r2, =0xC7A77E57\n\t"  // start.cpp's pattern
      "mov r3, sp\n"
      "1:\n\t"
      "cmp r1, r3\n\t"
      "bhs 2f\n\t"
      "stmia r1!, {r2}\n\t"  // one word, r1 advanced (Armv6-M has no post-indexed str)
      "b 1b\n"
      "2:\n\t"
      "bx lr\n\t"
      ".ltorg");
}

}  // namespace stack

namespace systick {
namespace {
// SysTick registers (Armv7-M and Armv8-M system control space).
volatile std::uint32_t& csr() noexcept { return *reinterpret_cast<volatile std::uint32_t*>(0xE000'E010u); }
volatile std::uint32_t& rvr() noexcept { return *reinterpret_cast<volatile std::uint32_t*>(0xE000'E014u); }
volatile std::uint32_t& cvr() noexcept { return *reinterpret_cast<volatile std::uint32_t*>(0xE000'E018u); }

// Passes of the counter through zero since start(), counted by the SysTick exception.
volatile std::uint32_t wraps = 0;

inline void instruction_barrier() noexcept { asm volatile("isb" ::: "memory"); }
}  // namespace

// SysTick's exception: one more pass of the counter through zero (an extern "C" name: the vector table's entry).
extern "C" void ctattn_systick_handler() { wraps = wraps + 1; }

void start(clock_source source) noexcept {
  csr() = 0;
  rvr() = 0x00FF'FFFFu;
  cvr() = 0;  // any write clears the counter
  // CLKSOURCE (bit 2): 1 the processor clock, 0 the reference clock; TICKINT (bit 1): the wrap exception; ENABLE.
  csr() = (source == clock_source::processor ? (1u << 2) : 0u) | (1u << 1) | (1u << 0);
  // The cleared counter reloads from 0 at its first tick, which may count as a wrap: wait for the reload and take
  // that exception before counting from zero.
  while (cvr() == 0) {
  }
  instruction_barrier();
  wraps = 0;
}

// Rationale: the wrap count and the counter must come from the same moment. A wrap between the two reads leaves
// the exception pending; the `isb` after each read makes the core (and QEMU, which ends its translation block
// there) take it at once, so the second read of the count differs and the pair is read again.
std::uint64_t ticks() noexcept {
  for (;;) {
    const std::uint32_t before = wraps;
    instruction_barrier();
    const std::uint32_t counter = cvr();
    instruction_barrier();
    if (wraps == before) return (std::uint64_t{before} << 24) + (0x00FF'FFFFu - counter);
  }
}

[[gnu::noinline]] void spin(std::uint32_t iterations) noexcept {
  asm volatile(
      "1:\n\t"
      "subs %0, %0, #1\n\t"
      "bne 1b"
      : "+r"(iterations)
      :
      : "cc");
}

}  // namespace systick

}  // namespace ctattn_firmware

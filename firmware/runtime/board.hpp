#ifndef CTATTN_FIRMWARE_RUNTIME_BOARD_HPP
#define CTATTN_FIRMWARE_RUNTIME_BOARD_HPP

/// \file
/// What the firmware images measure on the target: the stack they use (by painting it) and the SysTick
/// counter (CPU cycles on hardware; guest instructions under `qemu-system-arm -icount shift=0`, once
/// calibrated). The board's name and memory layout come from the toolchain file through the build.

#include <cstdint>

#ifndef CTATTN_FIRMWARE_BOARD_NAME
#define CTATTN_FIRMWARE_BOARD_NAME "unknown board"
#endif

namespace ctattn_firmware {

/// The core and QEMU machine the image was built for, e.g. "Cortex-M4F (mps2-an386)".
inline constexpr const char* board_name = CTATTN_FIRMWARE_BOARD_NAME;

/// The start-up every board shares (runtime/start.cpp), called by its reset path once the stack and the FPU are
/// set: zeroes .bss (bss_begin to bss_end), runs the static constructors, paints the stack, runs main(), reports
/// main()'s stack high-water mark and hands main()'s exit code to QEMU.
[[noreturn]] void run_image(std::uintptr_t bss_begin, std::uintptr_t bss_end) noexcept;

namespace stack {

/// The current stack pointer.
inline std::uintptr_t pointer() noexcept {
  std::uintptr_t sp;
#if defined(__riscv)
  asm volatile("mv %0, sp" : "=r"(sp));
#else
  asm volatile("mov %0, sp" : "=r"(sp));
#endif
  return sp;
}

/// Fills the stack region below the caller's frame with a pattern.
void paint() noexcept;

/// Bytes from `top` down to the lowest stack word changed since the last `paint()`.
[[nodiscard]] std::uint32_t used_below(std::uintptr_t top) noexcept;

/// The stack that `f()` uses, measured by painting: a lower bound of the worst case (a frame that is
/// reserved but never written does not show); the static call-graph figure is the upper bound.
template <typename F>
[[nodiscard]] std::uint32_t peak_of(F&& f) noexcept {
  const std::uintptr_t top = pointer();
  paint();
  f();
  return used_below(top);
}

}  // namespace stack

namespace systick {

/// SysTick's clock: the processor's, or the board's reference clock (1 MHz on QEMU's MPS2 machines; on the MPS3
/// AN547 the processor's 32 MHz).
enum class clock_source { processor, reference };

/// Starts SysTick as a free-running 24-bit down-counter on `source`, its wrap interrupt counting the passes through
/// zero, so that `ticks()` can time runs longer than the counter holds (about 500 M instructions under QEMU on the
/// processor clock).
void start(clock_source source = clock_source::processor) noexcept;

/// Ticks since `start`, wraps included.
[[nodiscard]] std::uint64_t ticks() noexcept;

/// Runs a loop of exactly `2 * iterations` instructions (subs, bne), for calibration.
void spin(std::uint32_t iterations) noexcept;

}  // namespace systick

}  // namespace ctattn_firmware

#endif  // CTATTN_FIRMWARE_RUNTIME_BOARD_HPP

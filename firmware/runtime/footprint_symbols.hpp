#ifndef CTATTN_FIRMWARE_RUNTIME_FOOTPRINT_SYMBOLS_HPP
#define CTATTN_FIRMWARE_RUNTIME_FOOTPRINT_SYMBOLS_HPP

/// \file
/// Publishes a model's `ctattn::footprint` in the image's symbol table, as absolute symbols whose values are
/// the figures (`arm-none-eabi-nm` lists them as `A`):
///
///   ctattn_footprint_weight_bytes  ctattn_footprint_input_bytes  ctattn_footprint_output_bytes
///   ctattn_footprint_workspace_bytes  ctattn_footprint_stack_bytes
///
/// so that firmware/cmake/check_footprint.cmake can compare the compile-time query with the linker's sizes of
/// the objects the image defines (ctattn_weights, ctattn_input, ctattn_output, ctattn_workspace). The symbols
/// take no memory and the call emits no instruction.

namespace ctattn_firmware {

// Rationale: an immediate operand printed bare: `%c` on Arm, where `%` alone prints `#`; RISC-V's GCC has no `%c`
// and prints an immediate bare.
#if defined(__riscv)
#define CTATTN_FIRMWARE_BARE(n) "%" #n
#else
#define CTATTN_FIRMWARE_BARE(n) "%c" #n
#endif

/// Call once per image (from main); `Model::footprint` is a constant expression.
template <typename Model>
inline void publish_footprint() noexcept {
  constexpr auto fp = Model::footprint;
  asm volatile(
      ".global ctattn_footprint_weight_bytes\n\t.set ctattn_footprint_weight_bytes, " CTATTN_FIRMWARE_BARE(0) "\n\t"
      ".global ctattn_footprint_input_bytes\n\t.set ctattn_footprint_input_bytes, " CTATTN_FIRMWARE_BARE(1) "\n\t"
      ".global ctattn_footprint_output_bytes\n\t.set ctattn_footprint_output_bytes, " CTATTN_FIRMWARE_BARE(2) "\n\t"
      ".global ctattn_footprint_workspace_bytes\n\t.set ctattn_footprint_workspace_bytes, " CTATTN_FIRMWARE_BARE(3) "\n\t"
      ".global ctattn_footprint_stack_bytes\n\t.set ctattn_footprint_stack_bytes, " CTATTN_FIRMWARE_BARE(4)
      :
      : "i"(fp.weight_bytes), "i"(fp.input_bytes), "i"(fp.output_bytes), "i"(fp.workspace_bytes), "i"(fp.stack_bytes));
}

}  // namespace ctattn_firmware

#endif  // CTATTN_FIRMWARE_RUNTIME_FOOTPRINT_SYMBOLS_HPP

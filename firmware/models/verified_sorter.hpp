#ifndef CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_HPP
#define CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_HPP

/// \file
/// The verified model of examples/verified_model/ on the target: the two-layer transformer trained in PyTorch to
/// sort six digits, its weights imported from the committed sorter.safetensors at configure time (the host import
/// tool writes sorter_weights.hpp; firmware/CMakeLists.txt), in flash as a constexpr `toy::sorter`. The image
/// runs one inference per golden input and compares the logits bit for bit with the compiler's (exact
/// arithmetic), which examples/verified_model/verified_model.cpp proved to match PyTorch and sort the digits.
///
/// | value    | shape                   |
/// |----------|-------------------------|
/// | input    | four sequences of six digits |
/// | output   | four 6 x 10 logit matrices   |

#include <array>

#include "golden.hpp"
#include "sorter.hpp"
#include "sorter_weights.hpp"

namespace ctattn_firmware::models {

struct verified_sorter {
  static constexpr const char* name = "verified model: 2 encoder layers trained to sort 6 digits (d_model 32)";

  using logits = ctattn::matrix<float, toy::length, toy::digits>;

  /// One inference's memory: the weights (the model object `sorter_weights`, in flash) and, on the stack, the
  /// activations the layers return by value; the test firmware_verified_sorter_footprint holds the weights to the
  /// linker's symbol size and the stack figure to GCC's call graph (it must bound it).
  static constexpr ctattn::footprint footprint = toy::sorter_footprint;
  // The budgets of a small Cortex-M part, checked before anything is flashed: 80 KiB of flash for the weights,
  // 16 KiB of RAM for one inference (input, logits, stack).
  static_assert(footprint.weight_bytes <= 80 * 1024, "the verified model's weights must fit 80 KiB of flash");
  static_assert(footprint.ram_bytes() <= 16 * 1024, "one inference of the verified model must fit 16 KiB of RAM");

  struct inputs {
    std::array<std::array<int, toy::length>, golden::count> digits;
  };

  struct outputs {
    logits first, second, third, fourth;
  };

  static constexpr inputs example() noexcept { return {golden::inputs}; }

  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {sorter_weights.forward(in.digits[0]), sorter_weights.forward(in.digits[1]),
            sorter_weights.forward(in.digits[2]), sorter_weights.forward(in.digits[3])};
  }

  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("logits of golden input 0", &outputs::first);
    f("logits of golden input 1", &outputs::second);
    f("logits of golden input 2", &outputs::third);
    f("logits of golden input 3", &outputs::fourth);
  }
};

// The compiler's answers are the sorted digits (verified_model.cpp also holds them to PyTorch's logits).
static_assert(toy::answer(verified_sorter::evaluate(verified_sorter::example()).first) ==
              toy::sorted(golden::inputs[0]));

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_HPP

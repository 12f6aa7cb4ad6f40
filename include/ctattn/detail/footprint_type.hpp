// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_DETAIL_FOOTPRINT_TYPE_HPP
#define CTATTN_DETAIL_FOOTPRINT_TYPE_HPP

/// \file
/// `ctattn::footprint` and `ctattn::composed`, documented with the attention footprints in
/// ctattn/attention/footprint.hpp, which includes this header.
// Rationale: a header of their own, with nothing but the standard library, so that the int8 layers can give their
// footprints without including the float attention tier: a shape error in an int8 call then shows the includes of
// the int8 headers only, and its first lines stay the rule's sentence.

#include <concepts>
#include <cstddef>

namespace ctattn {

/// Memory of an attention configuration, in bytes.
///
/// | member            | what                                                             | usually in |
/// |-------------------|------------------------------------------------------------------|------------|
/// | `weight_bytes`    | the parameters: weights and biases of every projection           | flash      |
/// | `input_bytes`     | the activations read: x (x_q and x_kv for cross-attention)       | RAM or flash |
/// | `output_bytes`    | the activations written: the output matrix                       | RAM (.bss) |
/// | `workspace_bytes` | the intermediates: the workspace's Q, K and V                    | RAM (.bss) |
/// | `stack_bytes`     | the kernel's stack scratch: two row buffers of n_kv elements (exact arithmetic), or the fused SIMD kernel's state (fast) | stack |
///
/// `stack_bytes` is what the attention kernel itself puts on the stack with the build's default arithmetic
/// (ctattn/kernels/backend.hpp): exact, two rows of n_kv elements; fast, the fused kernel's packed key chunk, block
/// of scores and three numbers per query (on Helium up to 4 KiB of keys). The call frames around it (saved
/// registers, a few locals) come on top and depend on the compiler (docs/firmware.md measures them).
///
/// Example:
/// \code
///   constexpr auto fp = ctattn::self_attention_footprint<decltype(x), head_type>;   // the worked example:
///   static_assert(fp.weight_bytes == 4864 && fp.workspace_bytes == 1824 && fp.stack_bytes == 48);
/// \endcode
struct footprint {
  std::size_t weight_bytes = 0;
  std::size_t input_bytes = 0;
  std::size_t output_bytes = 0;
  std::size_t workspace_bytes = 0;
  std::size_t stack_bytes = 0;

  /// Input and output activations: `input_bytes + output_bytes`.
  [[nodiscard]] constexpr std::size_t activation_bytes() const noexcept { return input_bytes + output_bytes; }

  /// Everything but the weights (which firmware keeps in flash): activations, workspace and kernel stack.
  [[nodiscard]] constexpr std::size_t ram_bytes() const noexcept {
    return input_bytes + output_bytes + workspace_bytes + stack_bytes;
  }

  /// Everything: `weight_bytes + ram_bytes()`.
  [[nodiscard]] constexpr std::size_t total_bytes() const noexcept { return weight_bytes + ram_bytes(); }

  /// Two configurations in one program, each with its own weights, activations and workspace, run one after
  /// the other: storage adds up, the stack scratch is the larger of the two (never live at once).
  /// Example: `constexpr auto model = encoder_fp + decoder_fp;`
  [[nodiscard]] friend constexpr footprint operator+(const footprint& a, const footprint& b) noexcept {
    return {a.weight_bytes + b.weight_bytes, a.input_bytes + b.input_bytes, a.output_bytes + b.output_bytes,
            a.workspace_bytes + b.workspace_bytes, a.stack_bytes > b.stack_bytes ? a.stack_bytes : b.stack_bytes};
  }

  /// Adds `other` in place (see `operator+`).
  constexpr footprint& operator+=(const footprint& other) noexcept { return *this = *this + other; }

  friend constexpr bool operator==(const footprint&, const footprint&) = default;
};

/// Calls nested in one expression, `c(b(a(x)))`, as a model's forward and the layers pass activations: each
/// call's result is a temporary on the caller's stack, live until the expression ends, and feeds the next call.
///
/// | field             | value                                                        |
/// |-------------------|--------------------------------------------------------------|
/// | `weight_bytes`    | the sum of the calls'                                        |
/// | `input_bytes`     | the first call's                                             |
/// | `output_bytes`    | the last call's                                              |
/// | `workspace_bytes` | the sum of the calls'                                        |
/// | `stack_bytes`     | every result but the last (the intermediates), plus the largest stack of the calls |
///
/// Example (a model's forward `head(norm(layers(x)))`, x of type X, each layer keeping its input's shape):
/// \code
///   constexpr auto fp = ctattn::composed(ctattn::layer_footprint<decltype(model.layers), X>,
///                                        ctattn::layer_footprint<decltype(model.norm), X>,
///                                        ctattn::layer_footprint<decltype(model.head), X>);
/// \endcode
template <std::same_as<footprint>... More>
[[nodiscard]] constexpr footprint composed(const footprint& first, const More&... more) noexcept {
  footprint f = first;
  std::size_t intermediates = 0;
  std::size_t deepest = first.stack_bytes;
  [[maybe_unused]] const auto feed = [&](const footprint& next) {
    intermediates += f.output_bytes;
    deepest = deepest > next.stack_bytes ? deepest : next.stack_bytes;
    f.weight_bytes += next.weight_bytes;
    f.workspace_bytes += next.workspace_bytes;
    f.output_bytes = next.output_bytes;
  };
  (feed(more), ...);
  f.stack_bytes = intermediates + deepest;
  return f;
}

}  // namespace ctattn

#endif  // CTATTN_DETAIL_FOOTPRINT_TYPE_HPP

// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_FEED_FORWARD_HPP
#define CTATTN_QUANTIZED_FEED_FORWARD_HPP

/// \file
/// The int8 forms of ctattn/layers/feed_forward.hpp's residual connection and gated feed-forward block, as
/// `ctattn::quantize` makes them (a plain `feed_forward` becomes a `qchain` of its linears and activation).
///
/// | entity                                              | what                                               |
/// |-----------------------------------------------------|----------------------------------------------------|
/// | `qresidual<Inner, QSum>`                            | x + inner(x) by the int8 ADD (int16 ADD in 16x8)   |
/// | `qgated_feed_forward<W1, W3, Activation, W2, QProduct>` | w2(activation(w1(x)) * w3(x)), the product by the int8 MUL (int16 MUL in 16x8) |

#include <type_traits>

#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/quantized/activation.hpp"
#include "ctattn/quantized/add.hpp"
#include "ctattn/quantized/hadamard.hpp"
#include "ctattn/quantized/int16.hpp"
#include "ctattn/quantized/layer.hpp"
#include "ctattn/quantized/linear.hpp"
#include "ctattn/quantized/q16linear.hpp"
#include "ctattn/quantized/q16matrix.hpp"
#include "ctattn/quantized/qmatrix.hpp"

namespace ctattn {

/// A residual connection in int8: x + inner(x) by the int8 ADD, the sum quantized with QSum; the int8 form of
/// `ctattn::residual` that `ctattn::quantize` makes (the inner layer's own int8 form inside).
///
/// | operand / member | shape / meaning                                           |
/// |------------------|-----------------------------------------------------------|
/// | `inner`          | the int8 layer (a `qchain` for a feed-forward block), width kept |
/// | `forward(x)`     | `qmatrix<n, d, Q(x)>` -> `qmatrix<n, d, QSum>`            |
///
/// Example: `const auto y = residual_q.forward(x_q);   // x_q + its inner layer on x_q, in QSum`
template <typename Inner, quantization QSum>
struct qresidual : detail::input_quantization_of<Inner> {
  static constexpr quantization output_quantization = QSum;
  /// Whether it is the 16x8 form (int16 in and out, the sum by TFLite's int16 ADD): its inner layer's output is int16.
  static constexpr bool int16 = [] {
    if constexpr (requires { Inner::int16; }) {
      return bool{Inner::int16};
    } else {
      return false;
    }
  }();
  static constexpr bool needs_memory = detail::needs_memory<Inner>;
  static constexpr quantization memory_quantization = [] {
    if constexpr (needs_memory) {
      return Inner::memory_quantization;
    } else {
      return quantization{1.0};
    }
  }();
  Inner inner{};

  template <detail::AnyQuantizedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    if constexpr (requires { inner.forward(x, options...); }) {
      return add<QSum>(x, inner.forward(x, options...));
    } else {
      return add<QSum>(x, inner.forward(x));
    }
  }

  /// The memory of `forward(x)` on an X: the inner layer's call, and its result held for the sum.
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    const footprint f = Inner::template footprint_of<X>();
    using sum = std::conditional_t<int16, basic_q16matrix<X::row_extent, X::column_extent, QSum>,
                                   basic_qmatrix<X::row_extent, X::column_extent, QSum>>;
    return {sizeof(qresidual), sizeof(X), sizeof(sum), 0, f.output_bytes + f.stack_bytes};
  }

  friend constexpr bool operator==(const qresidual&, const qresidual&) = default;
};

/// The gated feed-forward block in int8 (SwiGLU, GEGLU: `ctattn::gated_feed_forward`'s int8 form that
/// `ctattn::quantize` makes): w2(activation(w1(x)) * w3(x)), the product by the int8 MUL (`hadamard<QProduct>`).
///
/// | operand / member      | shape / meaning                                             |
/// |-----------------------|-------------------------------------------------------------|
/// | `w1`, `w3`            | `qlinear<D, Hidden, Q(x), ...>`, per channel                |
/// | `activation`          | `qactivation` on w1's output (the gate)                     |
/// | `w2`                  | `qlinear<Hidden, D, QProduct, ...>`                          |
/// | `forward(x)`          | `qmatrix<n, D, Q(x)>` -> `qmatrix<n, D, w2's output quantization>` |
///
/// Example: `const auto y = gated_q.forward(x_q);`
template <typename W1, typename W3, typename Activation, typename W2, quantization QProduct>
struct qgated_feed_forward {
  static constexpr quantization input_quantization = W1::input_quantization;
  static constexpr quantization output_quantization = W2::output_quantization;
  /// Whether it is the 16x8 form (`q16linear`s, the int16 MUL).
  static constexpr bool int16 = W1::int16;
  W1 w1{};
  W2 w2{};
  W3 w3{};
  Activation activation{};

  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return project(hadamard<QProduct>(activate(project(x, w1), activation), project(x, w3)), w2);
  }

  /// The memory of `forward(x)` on an X: the four n x Hidden rows of X's width (w1's output, the gate, w3's output
  /// and the product) with the deepest projection's scratch.
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    // Rationale: the two types spelled out, as GCC 12 crashes on W2's quantization through an alias template.
    using hidden = std::conditional_t<int16, basic_q16matrix<X::row_extent, W1::output_extent, QProduct>,
                                      basic_qmatrix<X::row_extent, W1::output_extent, QProduct>>;
    using output = std::conditional_t<int16, basic_q16matrix<X::row_extent, W2::output_extent, output_quantization>,
                                      basic_qmatrix<X::row_extent, W2::output_extent, output_quantization>>;
    const footprint in = W1::template footprint_of<X>();
    const footprint out = W2::template footprint_of<hidden>();
    return {sizeof(qgated_feed_forward), sizeof(X), sizeof(output), 0,
            4 * sizeof(hidden) + (in.stack_bytes > out.stack_bytes ? in.stack_bytes : out.stack_bytes)};
  }

  friend constexpr bool operator==(const qgated_feed_forward&, const qgated_feed_forward&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_FEED_FORWARD_HPP

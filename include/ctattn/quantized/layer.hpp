// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_LAYER_HPP
#define CTATTN_QUANTIZED_LAYER_HPP

/// \file
/// What an int8 layer is (the int8 twin of ctattn/layers/layer.hpp): the int8 form `ctattn::quantize` makes of a
/// float layer, every quantization a template argument chosen by the compiler.
///
/// | member / function                 | meaning                                                              |
/// |-----------------------------------|----------------------------------------------------------------------|
/// | `input_quantization`, `output_quantization` | the quantizations of its input and its result (a layer made of others: its first layer's input) |
/// | `forward(x)`                      | `qmatrix<n, in, input_quantization>` -> `qmatrix<n, out, output_quantization>`: constexpr, noexcept, integers only |
/// | `footprint_of<X>()` (static)      | the memory one `forward` on an X holds (`ctattn::footprint`)          |
/// | `needs_memory`, `memory_quantization` | a decoder layer, or a layer holding one: `forward(x, ctattn::with_memory(m))` with m in `memory_quantization` |
///
/// Example:
/// \code
///   constexpr auto layer_q = ctattn::quantize_encoder_layer<q0>(boost::hana::at_c<0>(model.layers.layers));
///   static_assert(decltype(layer_q)::input_quantization == q0.input);
///   const auto y = layer_q.forward(x_q);   // qmatrix<6, 32, q0.output>
/// \endcode

#include "ctattn/layers/rules.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/quantization.hpp"

namespace ctattn {

/// The memory a `qchain` of decoder layers attends to: `ctattn::with_memory` for an int8 memory (a `qmatrix` in
/// the layers' memory quantization). It refers to `memory`, which must outlive the call.
///
/// Example: `const auto y = int8_decoder.forward(tgt_q, ctattn::with_memory(memory_q));`
template <QuantizedMatrix Memory>
[[nodiscard]] constexpr memory_option<Memory> with_memory(const Memory& memory) noexcept {
  return {&memory};
}

namespace detail {
// Whether an int8 layer reads a decoder's memory (`needs_memory`: a decoder layer, or a layer made of others that
// holds one).
template <typename L>
inline constexpr bool needs_memory = [] {
  if constexpr (requires { L::needs_memory; }) {
    return L::needs_memory;
  } else {
    return false;
  }
}();

// `input_quantization` of a layer made of others (a qchain, a qresidual): its first layer's, where that has one.
// Rationale: `==` of its own (it holds nothing), so that the defaulted `==` of a layer deriving from it is not
// deleted (a qchain of a matrix model, whose first layer has an input quantization).
template <typename First>
struct input_quantization_of {
  friend constexpr bool operator==(const input_quantization_of&, const input_quantization_of&) = default;
};
template <typename First>
  requires requires { First::input_quantization; }
struct input_quantization_of<First> {
  static constexpr quantization input_quantization = First::input_quantization;
  friend constexpr bool operator==(const input_quantization_of&, const input_quantization_of&) = default;
};
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_LAYER_HPP

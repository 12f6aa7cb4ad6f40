// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_WEIGHTS_HPP
#define CTATTN_QUANTIZED_WEIGHTS_HPP

/// \file
/// How a quantized layer stores its weights: `ctattn::weight_format` (int8, or int4 two a byte), and
/// `ctattn::int4_weights`, an out x in matrix of int4 values in TFLite's dense packing.
///
/// | entity                         | what                                                                 |
/// |--------------------------------|----------------------------------------------------------------------|
/// | `weight_format::int8`          | one int8 a weight (the default)                                      |
/// | `weight_format::int4`          | two int4 weights a byte, [-7, 7] from `quantize_linear` (TFLite's range), half the flash |
/// | `int4_weights<Out, In>`        | the packed bytes, `(r, c)` reads one value                           |
/// | `int4_weights<Out, In>::from_values(v)` | packs int8 values in [-8, 7], at compile time              |
/// | `weight_granularity::per_channel`, `::per_tensor` | one scale per output channel (the default), or one for all |
/// | `activation_format::int8`, `::int16` | the activations' width: int8 (the default), or 16x8's int16        |
///
/// Example:
/// \code
///   constexpr auto w = ctattn::int4_weights<2, 3>::from_values({{1, -2, 3}, {-8, 7, 0}});
///   static_assert(w.packed[0] == 0xE1 && w(1, 0) == -8);
/// \endcode

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/int4.hpp"

namespace ctattn {

/// How a quantized linear layer (`ctattn::qlinear`) stores its weights. Both give TFLite's int8 fully-connected
/// arithmetic (TFLite unpacks int4 weights to int8 before its int8 kernel); int4 halves the weights' flash and
/// rounds each weight to one of 15 steps instead of 255.
///
/// | value   | storage                          | TFLite tensor type |
/// |---------|----------------------------------|--------------------|
/// | `int8`  | `std::int8_t weight[Out][In]`    | INT8               |
/// | `int4`  | `int4_weights<Out, In>`          | INT4               |
///
/// Example: `ctattn::qlinear<64, 32, q_in, q_out, ctattn::weight_format::int4> layer;`
enum class weight_format : unsigned char { int8, int4 };

/// Whether a quantized linear layer's weights have one scale per output channel or one for the whole matrix.
/// TFLite takes both for int8 weights; TFLite Micro's int4 FULLY_CONNECTED and CMSIS-NN's `arm_fully_connected_s4`
/// take int4 weights per tensor only. Per tensor, a layer keeps one fixed-point multiplier, derived as TFLite's
/// per-tensor FULLY_CONNECTED derives it (the input and weight scales multiplied in float32, then divided by the
/// output's scale in double), rather than one per channel: 8 bytes of flash per channel less.
///
/// | value         | scales | multipliers kept |
/// |---------------|--------|------------------|
/// | `per_channel` | Out    | Out              |
/// | `per_tensor`  | 1      | 1                |
///
/// Example: `ctattn::qlinear<64, 32, q_in, q_out, ctattn::weight_format::int4, ctattn::weight_granularity::per_tensor> layer;`
enum class weight_granularity : unsigned char { per_channel, per_tensor };

/// The width of a quantized layer's activations: TFLite's int8 mode, or its 16x8 mode (int16 activations, int8
/// weights, int64 biases). `ctattn::quantize` takes it for a whole model (`quantize_options::activations`) and for a
/// layer (`layer_weights::activations`); `encoder_layer_quantizations::activations` for one encoder layer.
///
/// | value   | activations                                  | weights     | TFLite mode         |
/// |---------|----------------------------------------------|-------------|---------------------|
/// | `int8`  | `qmatrix`, asymmetric (a zero point)         | int8 or int4 | int8               |
/// | `int16` | `q16matrix`, symmetric (zero point 0)        | int8        | 16x8                |
///
/// Example: `constexpr auto q16 = ctattn::quantize<ranges, ctattn::quantize_options{.activations = ctattn::activation_format::int16}>(model);`
enum class activation_format : unsigned char { int8, int16 };

namespace detail {
// Reached in constant evaluation by a value outside [-8, 7] given to `int4_weights::from_values`: the build stops
// here, this function's name in the compiler's message.
inline void int4_weight_must_be_between_minus_8_and_7() noexcept {}
}  // namespace detail

template <std::size_t Out, std::size_t In>
struct int4_weights;

namespace detail {
// The packing of values already in [-8, 7] (`quantize_linear`'s, clamped to [-7, 7]): each value's low four bits.
template <std::size_t Out, std::size_t In>
constexpr int4_weights<Out, In> int4_packing_of(const std::int8_t (&values)[Out][In]) noexcept;
}  // namespace detail

/// An Out x In matrix of int4 weights (PyTorch's out x in layout) in TFLite's dense packing: the values in
/// row-major order, value 2i in the low nibble of `packed[i]` and value 2i + 1 in its high nibble, each a two's
/// complement 4-bit number; with an odd Out x In the last byte's high nibble is 0. Any byte is a valid pair, so
/// bytes read from a file need no check.
///
/// | member            | meaning                                                  |
/// |-------------------|----------------------------------------------------------|
/// | `rows`, `cols`    | Out, In                                                  |
/// | `packed`          | (Out In + 1) / 2 bytes                                   |
/// | `(r, c)`          | the value at row r, column c, in [-8, 7]                 |
/// | `from_values(v)`  | the packing of int8 values (compile time; a value outside [-8, 7] stops the build) |
///
/// Example:
/// \code
///   constexpr ctattn::int4_weights<1, 2> w{{0xF3}};   // {3, -1}
///   static_assert(w(0, 0) == 3 && w(0, 1) == -1);
/// \endcode
template <std::size_t Out, std::size_t In>
struct int4_weights {
  static constexpr std::size_t rows = Out;
  static constexpr std::size_t cols = In;
  static constexpr std::size_t bytes = detail::kernels::int4_packed_bytes<Out, In>;

  std::uint8_t packed[bytes]{};

  [[nodiscard]] constexpr std::int8_t operator()(std::size_t r, std::size_t c) const noexcept {
    return detail::kernels::int4_value(packed, r * In + c);
  }

  /// The packing of Out x In values, each in [-8, 7]; a value outside stops the build
  /// (`int4_weight_must_be_between_minus_8_and_7` in the compiler's message).
  // Rationale: consteval, so that no value is silently wrapped or saturated: weights computed at run time come from
  // a file's packed bytes, where every byte is valid.
  [[nodiscard]] static consteval int4_weights from_values(const std::int8_t (&values)[Out][In]) noexcept {
    for (std::size_t r = 0; r < Out; ++r) {
      for (std::size_t c = 0; c < In; ++c) {
        if (values[r][c] < -8 || values[r][c] > 7) detail::int4_weight_must_be_between_minus_8_and_7();
      }
    }
    return detail::int4_packing_of(values);
  }

  friend constexpr bool operator==(const int4_weights&, const int4_weights&) = default;
};

namespace detail {
template <std::size_t Out, std::size_t In>
constexpr int4_weights<Out, In> int4_packing_of(const std::int8_t (&values)[Out][In]) noexcept {
  int4_weights<Out, In> w{};
  for (std::size_t r = 0; r < Out; ++r) {
    for (std::size_t c = 0; c < In; ++c) {
      const std::size_t i = r * In + c;
      const auto nibble = static_cast<unsigned>(values[r][c]) & 0xFu;
      w.packed[i / 2] = static_cast<std::uint8_t>(w.packed[i / 2] | (i % 2 == 0 ? nibble : nibble << 4));
    }
  }
  return w;
}
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_WEIGHTS_HPP

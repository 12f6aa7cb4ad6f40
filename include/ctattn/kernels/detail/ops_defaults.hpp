// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_OPS_DEFAULTS_HPP
#define CTATTN_KERNELS_DETAIL_OPS_DEFAULTS_HPP

/// \file
/// The optional operations of a backend, each declared here with its default. A backend's operations struct derives
/// from the defaults of its kind and sets `true` the flag of each optional operation it defines; the kernels read
/// the flag (through `declared_ops`, which gives the defaults for a row's `void`), never whether a name happens to
/// exist.
// Rationale: when the kernels asked `requires { Ops::softmax_row(...); }`, an operation misspelled, or with a
// parameter of another type, left the kernel on its loop without a word: slower, and untested where the backend's
// test expected its own code. Now a flag set for an operation that does not compile is an error at the kernel's call,
// and tests/static/backend_table_test.cpp checks (with tests/support/backend_ops_check.hpp), for every row of the
// build, that each flag is set exactly when the struct defines the operation.
///
/// | defaults                   | member (default)                  | the operation, where the flag is set           | read by |
/// |----------------------------|-----------------------------------|------------------------------------------------|---------|
/// | `float_ops_defaults`       | `has_transpose_sum` (false)       | `transpose_sum(x)`: lanes of 4 (or 8) registers summed across | kernels/detail/simd.hpp |
/// |                            | `has_transpose` (false)           | `transpose(registers)`: a square of registers transposed in place | kernels/detail/simd.hpp |
/// |                            | `panel_registers` (0)             | registers for a panel of fewer rows than a tile (sums and loaded vectors); 0: the tile's sums | kernels/detail/simd.hpp |
/// | `int8_ops_defaults`        | `rows_per_pass` (4)               | rows of b per pass of the dot-product kernel   | kernels/detail/int8_simd.hpp |
/// |                            | `tail_ops` (void)                 | a narrower backend for the terms past the last whole step | kernels/detail/int8_simd.hpp |
/// |                            | `has_dot_rows` (false)            | `dot_rows(a, a_zero, b, b_stride, b_zero, k, n, out)`: the whole kernel | kernels/detail/int8_simd.hpp |
/// |                            | `has_totals` (false)              | `totals(sums, out)`: a pass's accumulators totalled at once | kernels/detail/int8_simd.hpp |
/// |                            | `has_requantize_row` (false)      | `requantize_row(epilogue, r, sums, y, n)`      | kernels/int8.hpp |
/// |                            | `has_product_requantized` (false) | `product_requantized<M, K, N, XS, WS, YS>(x, w, epilogue, y)` | kernels/int8.hpp |
/// |                            | `has_row_sum` (false)             | `row_sum<K>(p)`                                | kernels/int8.hpp |
/// |                            | `has_softmax_row` (false)         | `softmax_row(x, w, begin, end, table)` with `softmax_row_limit`, `softmax_row_shortest` | kernels/int8.hpp |
/// |                            | `has_add` (false)                 | `add<A, B, LeftShift, Out>(a, a_zero, b, b_zero, out_zero, out, n)`, for the multipliers where `add_takes(A, B, Out)` | kernels/int8.hpp |
/// |                            | `has_requantize_values` (false)   | `requantize_values<M>(sums, zero, out, n)`: `requantize` of n sums, where `requantize_values_take(M)` | kernels/int8.hpp |
/// |                            | `has_multiply` (false)            | `multiply<M>(a, a_zero, b, b_zero, out_zero, out, n)`: TFLite's int8 MUL over n elements, where `multiply_takes(M)` | kernels/int8.hpp |
/// |                            | `has_rotate_heads` (false)        | `rotate_heads<HeadDim, Interleaved>(row, heads, cos, sin, zero)`: RoPE of one int8 row, for the heads where `rotate_heads_take<HeadDim, Interleaved>` | kernels/int8.hpp |
/// |                            | `has_lookup` (false)              | `lookup(x, y, n, table)`                       | kernels/int8.hpp |
/// |                            | `has_first_largest` (false)       | `first_largest(x, n)`: the index of the largest of n int8 values, the first of equal ones | kernels/int8.hpp |
/// |                            | `has_sum_and_squares` (false)     | `sum_and_squares<C>(x, sum, squares)`          | kernels/int8.hpp |
/// |                            | `has_layer_norm_row` (false)      | `layer_norm_row<C>(x, y, sum, inverse, ...)` for the layers whose `layer_norm_smallest_shift<C>(shift)` is 32 or more: true where it computed the row | kernels/int8.hpp |
/// |                            | `has_weighted_rows` (false)       | `weighted_rows<D, G>(w, w_stride, w_zero, v, v_stride, v_zero, n, sums, sums_stride)` for the D and G where `weighted_rows_take<D, G>` | kernels/int8.hpp |
/// |                            | `reads_short_multipliers` (false) | no operation: `product_requantized` reads the epilogue's `short_multipliers` (a layer keeps it) | kernels/int8.hpp |
/// | `int8_packed_ops_defaults` | `has_pack_block` (false)          | `pack_block<K, WS>(block, w, sums)`: a block's rows transposed | kernels/detail/int8_packed.hpp |
/// | `int4_ops_defaults`        | `has_fully_connected` (false)     | `fully_connected<M, K, N>(x, packed, epilogue, y)` for the K where `takes<K>` | kernels/int4.hpp |
/// |                            | `has_unpack` (false)              | `unpack(packed, values, count)`: count values (even) from a byte | kernels/int4.hpp |
/// | `int16_ops_defaults`       | `has_fully_connected` (false)     | `fully_connected<M, K, N, MC>(x, w, bias, multipliers, y)` for the K where `takes<K>` | kernels/int16.hpp |
/// |                            | `has_product_transposed` (false)  | `product_transposed<M, K, N>(a, b, multiplier, out)`: int16 a b^T | kernels/int16.hpp |
/// |                            | `has_add` (false)                 | `add<A, B, Out>(a, b, out, n)`: TFLite's int16 ADD over n elements, for the multipliers where `add_takes(A, B, Out)` | kernels/int16.hpp |
/// |                            | `has_multiply` (false)            | `multiply<M>(a, b, out, n)`: TFLite's int16 MUL over n elements, where `multiply_takes(M)` | kernels/int16.hpp |
///
/// Example:
/// \code
///   struct my_int8_ops : ctattn::detail::int8_ops_defaults {
///     static constexpr std::size_t rows_per_pass = 2;  // a default replaced
///     // ... the required operations of kernels/detail/int8_simd.hpp, and each optional one defined with its flag
///     // set: static constexpr bool has_lookup = true; static void lookup(...) noexcept;
///   };
///   static_assert(my_int8_ops::rows_per_pass == 2 && !my_int8_ops::has_lookup);
///   static_assert(ctattn::detail::declared_ops<void, ctattn::detail::int8_ops_defaults>::rows_per_pass == 4);
/// \endcode

#include <cstddef>
#include <type_traits>

namespace ctattn::detail {

/// The optional operations of a float backend (kernels/detail/simd.hpp's `V`), none defined.
struct float_ops_defaults {
  static constexpr bool has_transpose_sum = false;
  static constexpr bool has_transpose = false;
  /// Registers a product panel of fewer rows than a tile may fill with its sums and loaded vectors
  /// (`panel_vectors`); 0: as many sums as the tile's.
  static constexpr std::size_t panel_registers = 0;
};

/// The optional operations of an int8 backend (a row's `ops` and `product_ops`), none defined.
struct int8_ops_defaults {
  // Rationale: the rows of a pass share each widened step of a (one load and widening for all of them). Four rows'
  // accumulators, pointers and widened operands fit the 16 or 32 vector registers of x86 and NEON; on the Cortex-M
  // DSP extension's 13 general registers they spill, so that backend passes over two rows.
  static constexpr std::size_t rows_per_pass = 4;
  using tail_ops = void;
  static constexpr bool has_dot_rows = false;
  static constexpr bool has_totals = false;
  static constexpr bool has_requantize_row = false;
  static constexpr bool has_product_requantized = false;
  static constexpr bool has_row_sum = false;
  static constexpr bool has_softmax_row = false;
  static constexpr bool has_add = false;
  static constexpr bool has_multiply = false;
  static constexpr bool has_requantize_values = false;
  static constexpr bool has_rotate_heads = false;
  static constexpr bool has_lookup = false;
  static constexpr bool has_first_largest = false;
  static constexpr bool has_sum_and_squares = false;
  static constexpr bool has_layer_norm_row = false;
  static constexpr bool has_weighted_rows = false;
  /// Not an operation: whether `product_requantized` reads the epilogue's `short_multipliers`, so that a layer
  /// keeps that fact where the build has no packed kernel (kernels/int8.hpp's `int8_packed_weights`).
  static constexpr bool reads_short_multipliers = false;
};

/// The optional operations of a packed int8 kernel (a row's `packed_ops`), none defined.
struct int8_packed_ops_defaults {
  static constexpr bool has_pack_block = false;
};

/// The optional operations of an int4-weight kernel (a row's `int4_ops`), none defined.
struct int4_ops_defaults {
  static constexpr bool has_fully_connected = false;
  static constexpr bool has_unpack = false;
  /// Whether `fully_connected` takes rows of K terms.
  template <std::size_t K>
  static constexpr bool takes = false;
};

/// The optional operations of a 16x8 kernel (a row's `int16_ops`), none defined.
struct int16_ops_defaults {
  static constexpr bool has_fully_connected = false;
  static constexpr bool has_product_transposed = false;
  static constexpr bool has_add = false;
  static constexpr bool has_multiply = false;
  /// Whether it has `row_max(x, n)`: the largest of n int16 values (the int16 softmax's first pass).
  static constexpr bool has_row_max = false;
  /// Whether `fully_connected` takes rows of K terms.
  template <std::size_t K>
  static constexpr bool takes = false;
  /// The stack bytes `fully_connected` takes for M rows of K terms.
  template <std::size_t M, std::size_t K>
  static constexpr std::size_t stack_bytes = 0;
};

/// The declared operations of a row's `Ops`: Ops itself, or `Defaults` where the row has none (`void`).
template <typename Ops, typename Defaults>
using declared_ops = std::conditional_t<std::is_void_v<Ops>, Defaults, Ops>;

}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_DETAIL_OPS_DEFAULTS_HPP

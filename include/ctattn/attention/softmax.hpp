#ifndef CTATTN_ATTENTION_SOFTMAX_HPP
#define CTATTN_ATTENTION_SOFTMAX_HPP

#include <cstddef>

#include "ctattn/attention/detail/softmax_row.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// The softmax of every row: w(i, j) = exp(x(i, j) - max_k x(i, k)) / sum_k exp(x(i, k) - max_k x(i, k)).
///
/// | operand | shape |
/// |---------|-------|
/// | `x`     | M x N |
/// | result  | M x N, each row summing to 1 (or all zeros) |
///
/// Numerically stable: rows like [1000, 1001, 999] or [88, 89, 90, 100] in float give the exact softmax
/// rounded, not inf or NaN. Edges: -inf entries (masked) get weight 0; a row whose entries are all -inf gets
/// zeros (ctattn's documented value for a fully masked row; PyTorch gives NaN there); +inf entries share the
/// weight equally; a NaN makes the whole row NaN.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 1, 3> x{{{1000, 1001, 999}}};
///   constexpr auto w = ctattn::softmax_rows(x);   // {0.2447, 0.6652, 0.0900}
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> softmax_rows(const basic_matrix<T, M, N>& x) noexcept {
  basic_matrix<T, M, N> weights{};
  for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
    detail::softmax_row(x.elements[i], weights.elements[i], 0, basic_matrix<T, M, N>::cols);
  }
  return weights;
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_SOFTMAX_HPP

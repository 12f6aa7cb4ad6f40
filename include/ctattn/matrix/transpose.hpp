// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_TRANSPOSE_HPP
#define CTATTN_MATRIX_TRANSPOSE_HPP

#include <cstddef>

#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// The transpose: rows become columns, and the extents (with their names) swap places.
///
/// | operand | shape  |
/// |---------|--------|
/// | `a`     | M x N  |
/// | result  | N x M  |
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 2, 3> a{{{1, 2, 3}, {4, 5, 6}}};
///   static_assert(ctattn::transpose(a)(2, 1) == 6.0f);
///   // keys: seq_kv x d_k  ->  transpose(keys): d_k x seq_kv, so queries * transpose(keys) is seq_q x seq_kv
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, N, M> transpose(const basic_matrix<T, M, N>& a) noexcept {
  basic_matrix<T, N, M> result{};
  for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
    for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) {
      result.elements[j][i] = a.elements[i][j];
    }
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_TRANSPOSE_HPP

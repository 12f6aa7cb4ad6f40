// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_HOST_PRINT_HPP
#define CTATTN_HOST_PRINT_HPP

/// \file
/// Host-only: printing matrices to a `std::ostream`. Not part of the core (firmware builds need no iostream).

#include <cstddef>
#include <ios>
#include <ostream>
#include <string_view>

#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// Prints a matrix row by row with its shape: `[3 x 4] seq x d_model` then one line per row.
///
/// | operand | shape |
/// |---------|-------|
/// | `m`     | M x N |
///
/// Example:
/// \code
///   std::cout << ctattn::matrix<float, 2, 2>{{{1, 2}, {3, 4}}};
/// \endcode
template <typename T, auto M, auto N>
std::ostream& operator<<(std::ostream& out, const basic_matrix<T, M, N>& m) {
  using matrix_type = basic_matrix<T, M, N>;
  out << '[' << matrix_type::rows << " x " << matrix_type::cols << ']';
  const std::string_view row_name = extent_name(M);
  const std::string_view column_name = extent_name(N);
  if (!row_name.empty() || !column_name.empty()) {
    out << ' ' << (row_name.empty() ? std::string_view{"_"} : row_name) << " x "
        << (column_name.empty() ? std::string_view{"_"} : column_name);
  }
  out << '\n';
  const auto flags = out.flags();
  const auto precision = out.precision();
  out.setf(std::ios::fixed, std::ios::floatfield);
  out.precision(4);
  for (std::size_t i = 0; i < matrix_type::rows; ++i) {
    for (std::size_t j = 0; j < matrix_type::cols; ++j) {
      out << (j == 0 ? "  " : " ") << m.elements[i][j];
    }
    out << '\n';
  }
  out.flags(flags);
  out.precision(precision);
  return out;
}

}  // namespace ctattn

#endif  // CTATTN_HOST_PRINT_HPP

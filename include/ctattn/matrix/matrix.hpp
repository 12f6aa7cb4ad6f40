// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_MATRIX_HPP
#define CTATTN_MATRIX_MATRIX_HPP

#include <concepts>
#include <cstddef>
#include <type_traits>

#include "ctattn/detail/config.hpp"
#include "ctattn/shape/dimension.hpp"
#include "ctattn/shape/rule.hpp"

namespace ctattn {

/// A fixed-size, row-major, contiguous matrix whose dimensions are part of its type.
///
/// Write it as `ctattn::matrix<T, Rows, Cols>`; `basic_matrix` is the normalized form that functions deduce.
/// Each dimension is a plain size or a named extent (see `ctattn::dimension`). It is an aggregate: brace-
/// initialize it row by row or flat, use it as a `constexpr` variable, and inside `static_assert`. Every
/// element starts at zero when no initializer is given.
///
/// | member            | meaning                                                  |
/// |-------------------|----------------------------------------------------------|
/// | `value_type`      | `T`                                                      |
/// | `row_extent`      | the row dimension (`6` or `seq{6}`)                      |
/// | `column_extent`   | the column dimension                                     |
/// | `rows`, `cols`    | sizes as `std::size_t`                                   |
/// | `size`            | `rows * cols`                                            |
/// | `elements[r][c]`  | the storage, public so that the type is an aggregate     |
/// | `(r, c)`          | element access                                           |
/// | `[r]`             | row `r` as a `T[cols]` array                             |
/// | `data()`          | pointer to `rows * cols` contiguous elements (run time)  |
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 2, 3> a{{{1, 2, 3}, {4, 5, 6}}};
///   static_assert(a(1, 2) == 6.0f);
///   struct seq : ctattn::dimension<"seq"> {};
///   ctattn::matrix<float, seq{6}, 16> x{};   // rows named seq, 16 plain columns
/// \endcode
template <typename T, auto Rows, auto Cols>
struct basic_matrix {
  // Rationale: T is checked here rather than constrained, so that `matrix<long double, 2, 2>` is reported with
  // the rule's sentence instead of a bare "constraints not satisfied".
  static_assert((shape_error::element_type_must_be_float_or_double<op::matrix, T>::check(), true));
  using value_type = T;
  static constexpr auto row_extent = Rows;
  static constexpr auto column_extent = Cols;
  static constexpr std::size_t rows = extent_size(Rows);
  static constexpr std::size_t cols = extent_size(Cols);
  static constexpr std::size_t size = rows * cols;

  T elements[rows][cols]{};

  [[nodiscard]] constexpr T& operator()(std::size_t r, std::size_t c) noexcept { return elements[r][c]; }
  [[nodiscard]] constexpr const T& operator()(std::size_t r, std::size_t c) const noexcept { return elements[r][c]; }
  [[nodiscard]] constexpr T (&operator[](std::size_t r) noexcept)[cols] { return elements[r]; }
  [[nodiscard]] constexpr const T (&operator[](std::size_t r) const noexcept)[cols] { return elements[r]; }

  /// Run-time view of the contiguous storage, for SIMD kernels and I/O.
  // Rationale: reading past one row through this pointer is what every BLAS-like library does with a
  // contiguous 2-D array; constant-evaluated code indexes `elements[r][c]` instead.
  [[nodiscard]] T* data() noexcept { return &elements[0][0]; }
  [[nodiscard]] const T* data() const noexcept { return &elements[0][0]; }

  friend constexpr bool operator==(const basic_matrix&, const basic_matrix&) = default;
};

/// `matrix<T, Rows, Cols>`: the type users write. Dimensions are normalized (`6` and `6u` name the same type).
///
/// | parameter | meaning                                        |
/// |-----------|------------------------------------------------|
/// | `T`       | `float` or `double`                            |
/// | `Rows`    | plain size (`6`) or named extent (`seq{6}`)    |
/// | `Cols`    | plain size (`16`) or named extent (`d_model{16}`) |
///
/// Example:
/// \code
///   ctattn::matrix<float, 6, 16> x{};
/// \endcode
template <typename T, auto Rows, auto Cols>
using matrix = basic_matrix<T, normalize_extent<Rows>, normalize_extent<Cols>>;

/// A row vector: `row_vector<T, N>` is `matrix<T, 1, N>`.
template <typename T, auto N>
using row_vector = matrix<T, 1, N>;

/// A column vector: `column_vector<T, N>` is `matrix<T, N, 1>`.
template <typename T, auto N>
using column_vector = matrix<T, N, 1>;

namespace detail {
template <typename T>
struct is_basic_matrix : std::false_type {};
template <typename T, auto R, auto C>
struct is_basic_matrix<basic_matrix<T, R, C>> : std::true_type {};
}  // namespace detail

/// Any `ctattn::matrix` (cv-qualifiers and references ignored).
template <typename M>
concept FixedMatrix = detail::is_basic_matrix<std::remove_cvref_t<M>>::value;

/// The same shape as `M` with another element type or other extents.
template <FixedMatrix M, Scalar T = typename std::remove_cvref_t<M>::value_type,
          auto Rows = std::remove_cvref_t<M>::row_extent, auto Cols = std::remove_cvref_t<M>::column_extent>
using rebind_matrix = basic_matrix<T, Rows, Cols>;

}  // namespace ctattn

#endif  // CTATTN_MATRIX_MATRIX_HPP

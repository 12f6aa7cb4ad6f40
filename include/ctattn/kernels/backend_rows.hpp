// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_BACKEND_ROWS_HPP
#define CTATTN_KERNELS_BACKEND_ROWS_HPP

/// \file
/// The rows of the backend tables: one table per data type, each a list of backends fastest first. A backend's file
/// (kernels/avx512.hpp, ...) defines its row under the condition that makes its instructions available, the same
/// condition its operations are defined under; kernels/backend.hpp (float) and kernels/int8.hpp (int8) each choose
/// the first row the build defines, once, and every name and operation of that data type comes from the row.
///
/// | table | row members | rows, fastest first |
/// |-------|-------------|---------------------|
/// | `float_backend<float_backend_id>` | `name`, `ops` | avx512, avx2, neon, helium, scalar |
/// | `int8_backend<int8_backend_id>` | `name`, `ops` (dot products), `product_ops` (the layers' products), `packed_ops` (packed weights), `int4_ops` (int4 weights' products: kernels/int4.hpp), `int16_ops` (16x8 products: kernels/int16.hpp) | avx512_vnni, avx512, avx2_vnni, avx2, neon_i8mm, neon_dotprod, neon, helium, arm_dsp, armv6m, rvv, rv32im, scalar |
///
/// `void` stands for "none": the scalar row's operations are all void, and so are the packed operations of a
/// backend without a packed kernel.
///
/// Example:
/// \code
///   static_assert(ctattn::detail::chosen_row<ctattn::detail::float_backend_id, ctattn::detail::float_backend>() !=
///                 ctattn::detail::float_backend_id::count);
/// \endcode

#include <cstddef>
#include <utility>

namespace ctattn::detail {

/// The float backends, fastest first; `count` ends the list.
enum class float_backend_id : unsigned char { avx512, avx2, neon, helium, scalar, count };

/// The int8 backends, fastest first; `count` ends the list.
enum class int8_backend_id : unsigned char {
  avx512_vnni,
  avx512,
  avx2_vnni,
  avx2,
  neon_i8mm,
  neon_dotprod,
  neon,
  helium,
  arm_dsp,
  armv6m,
  rvv,
  rv32im,
  scalar,
  count
};

/// A row of the float table: defined by the backend's file where the target has its instructions.
template <float_backend_id Id>
struct float_backend;

/// A row of the int8 table: defined by the backend's file where the target has its instructions.
template <int8_backend_id Id>
struct int8_backend;

/// The scalar rows, defined everywhere: the exact loops of kernels/scalar.hpp and kernels/int8.hpp.
template <>
struct float_backend<float_backend_id::scalar> {
  static constexpr const char* name = "scalar";
  using ops = void;
};
template <>
struct int8_backend<int8_backend_id::scalar> {
  static constexpr const char* name = "scalar";
  using ops = void;
  using product_ops = void;
  using packed_ops = void;
  using int4_ops = void;
  using int16_ops = void;
};

/// The first row of a table, in the order of its ids, that the build defines.
template <typename Id, template <Id> class Row>
[[nodiscard]] consteval Id chosen_row() noexcept {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    Id chosen = Id::count;
    ((chosen == Id::count && requires { Row<static_cast<Id>(I)>::name; } ? chosen = static_cast<Id>(I) : chosen), ...);
    return chosen;
  }(std::make_index_sequence<static_cast<std::size_t>(Id::count)>{});
}

}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_BACKEND_ROWS_HPP

// SPDX-License-Identifier: BSL-1.0
// The backend tables (kernels/backend_rows.hpp): each row is defined exactly where the target has its instructions,
// the chosen row is the first defined, and every name and operation of a data type comes from that row. The static
// tests are compiled for the host and for the AArch64 cross build, so each checks its own rows. Each row's optional
// operations are declared truthfully (tests/support/backend_ops_check.hpp).
#include <ctattn/ctattn.hpp>

#include "support/backend_ops_check.hpp"

#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace {
using ctattn::detail::float_backend;
using ctattn::detail::float_backend_id;
using ctattn::detail::int8_backend;
using ctattn::detail::int8_backend_id;

template <float_backend_id Id>
constexpr bool has_float = requires { float_backend<Id>::name; };
template <int8_backend_id Id>
constexpr bool has_int8 = requires { int8_backend<Id>::name; };

// What the target macros say, written out once here, against the rows the backends' files define.
#if defined(__AVX512F__)
constexpr bool avx512f = true;
#else
constexpr bool avx512f = false;
#endif
#if defined(__AVX2__) && defined(__FMA__)
constexpr bool avx2_fma = true;
#else
constexpr bool avx2_fma = false;
#endif
#if defined(__AVX2__)
constexpr bool avx2 = true;
#else
constexpr bool avx2 = false;
#endif
#if defined(__AVX512BW__)
constexpr bool avx512bw = true;
#else
constexpr bool avx512bw = false;
#endif
#if defined(__AVX512BW__) && defined(__AVX512VNNI__)
constexpr bool avx512_vnni = true;
#else
constexpr bool avx512_vnni = false;
#endif
#if defined(__AVX2__) && defined(__AVXVNNI__)
constexpr bool avx_vnni = true;
#else
constexpr bool avx_vnni = false;
#endif
#if defined(__aarch64__) && defined(__ARM_NEON)
constexpr bool neon = true;
#else
constexpr bool neon = false;
#endif
#if defined(__aarch64__) && defined(__ARM_NEON) && defined(__ARM_FEATURE_DOTPROD)
constexpr bool dotprod = true;
#else
constexpr bool dotprod = false;
#endif
#if defined(__aarch64__) && defined(__ARM_NEON) && defined(__ARM_FEATURE_DOTPROD) && defined(__ARM_FEATURE_MATMUL_INT8)
constexpr bool i8mm = true;
#else
constexpr bool i8mm = false;
#endif
#if defined(__riscv_vector)
constexpr bool rvv = true;
#else
constexpr bool rvv = false;
#endif
#if defined(__riscv) && __riscv_xlen == 32 && defined(__riscv_mul)
constexpr bool rv32im = true;
#else
constexpr bool rv32im = false;
#endif

static_assert(has_float<float_backend_id::avx512> == avx512f);
static_assert(has_float<float_backend_id::avx2> == avx2_fma);
static_assert(has_float<float_backend_id::neon> == neon);
static_assert(has_float<float_backend_id::scalar>);
static_assert(has_int8<int8_backend_id::avx512_vnni> == avx512_vnni);
static_assert(has_int8<int8_backend_id::avx512> == avx512bw);
static_assert(has_int8<int8_backend_id::avx2_vnni> == avx_vnni);
static_assert(has_int8<int8_backend_id::avx2> == avx2);
static_assert(has_int8<int8_backend_id::neon_i8mm> == i8mm);
static_assert(has_int8<int8_backend_id::neon_dotprod> == dotprod);
static_assert(has_int8<int8_backend_id::neon> == neon);
static_assert(has_int8<int8_backend_id::rvv> == rvv);
static_assert(has_int8<int8_backend_id::rv32im> == rv32im);
static_assert(has_int8<int8_backend_id::scalar>);

// The chosen row is the first defined, in the table's order, and the names and operations are its.
template <typename Id, template <Id> class Row, Id I>
constexpr bool row_defined = requires { Row<I>::name; };
template <typename Id, template <Id> class Row>
constexpr Id first_defined() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    Id first = Id::count;
    const bool defined[] = {row_defined<Id, Row, static_cast<Id>(I)>...};
    for (std::size_t i = sizeof...(I); i-- > 0;) {
      if (defined[i]) first = static_cast<Id>(i);
    }
    return first;
  }(std::make_index_sequence<static_cast<std::size_t>(Id::count)>{});
}
using float_row = float_backend<first_defined<float_backend_id, float_backend>()>;
using int8_row = int8_backend<first_defined<int8_backend_id, int8_backend>()>;
static_assert(std::is_same_v<ctattn::detail::float_row, float_row>);
static_assert(std::is_same_v<ctattn::detail::int8_row, int8_row>);
static_assert(std::string_view(ctattn::simd_backend_name) == float_row::name);
static_assert(std::string_view(ctattn::int8_backend_name) == int8_row::name);
static_assert(std::is_same_v<ctattn::detail::simd_ops, float_row::ops>);
static_assert(std::is_same_v<ctattn::detail::int8_ops, int8_row::ops>);
static_assert(std::is_same_v<ctattn::detail::int8_product_ops, int8_row::product_ops>);
static_assert(std::is_same_v<ctattn::detail::int8_packed_ops, int8_row::packed_ops>);
static_assert(std::is_same_v<ctattn::detail::int4_product_ops, int8_row::int4_ops>);

// The scalar rows have no operations; a row's name is its id's.
static_assert(std::is_void_v<float_backend<float_backend_id::scalar>::ops>);
static_assert(std::is_void_v<int8_backend<int8_backend_id::scalar>::ops> &&
              std::is_void_v<int8_backend<int8_backend_id::scalar>::product_ops> &&
              std::is_void_v<int8_backend<int8_backend_id::scalar>::packed_ops> &&
              std::is_void_v<int8_backend<int8_backend_id::scalar>::int4_ops>);
static_assert(std::string_view(float_backend<float_backend_id::scalar>::name) == "scalar");

static_assert(ctattn_test::backend_ops::every_row_declares_its_operations());
// A product of fewer rows than a tile takes panels as wide as the backend's panel registers allow: on AVX-512, M NV
// sums and NV loaded vectors within 31 of its 32 registers (7 rows: 3 vectors; 3 rows: 7); a whole tile keeps the
// tile's vectors; never more than half the tile's sums in vectors. Elsewhere the tile's sums decide.
namespace panels = ctattn::detail::simd;
#if defined(__AVX512F__)
using avx512 = ctattn::detail::avx512_ops;
static_assert(panels::panel_vectors<avx512, 7> == 3 && panels::panel_vectors<avx512, 6> == 4 &&
              panels::panel_vectors<avx512, 5> == 5 && panels::panel_vectors<avx512, 4> == 6 &&
              panels::panel_vectors<avx512, 3> == 7 && panels::panel_vectors<avx512, 2> == 8 &&
              panels::panel_vectors<avx512, 1> == 8);
static_assert(panels::panel_vectors<avx512, 8> == avx512::tile_vectors);
template <std::size_t M>
constexpr bool panel_fits_registers = M * panels::panel_vectors<avx512, M> + panels::panel_vectors<avx512, M> + 1 <= 32;
static_assert(panel_fits_registers<1> && panel_fits_registers<2> && panel_fits_registers<3> &&
              panel_fits_registers<4> && panel_fits_registers<5> && panel_fits_registers<6> && panel_fits_registers<7>);
#elif defined(__AVX2__)
// AVX2's 16 registers: the tile's 12 sums.
static_assert(panels::panel_vectors<ctattn::detail::avx2_ops, 5> == 2);
static_assert(panels::panel_vectors<ctattn::detail::avx2_ops, 2> == 6);
#elif defined(__ARM_NEON)
static_assert(ctattn::detail::neon_ops::panel_registers == 0);
#endif

}  // namespace

// SPDX-License-Identifier: BSL-1.0
// Every row of the backend tables that the build defines declares its optional operations truthfully
// (kernels/detail/ops_defaults.hpp): each operations struct derives from the defaults of its kind, and each flag
// `has_<name>` is set exactly when the struct (or a base) has a member `<name>`. A flag set without the operation is
// also an error where the kernels call it; this check finds the other mistake, an operation defined (or misspelled in
// its flag) that no kernel would call. Included by tests/static/backend_table_test.cpp (host, x86 backends, AArch64)
// and by the firmware image int8_kernel_cases (every board), so each target checks its own rows.
#ifndef CTATTN_TESTS_SUPPORT_BACKEND_OPS_CHECK_HPP
#define CTATTN_TESTS_SUPPORT_BACKEND_OPS_CHECK_HPP

#include <ctattn/ctattn.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace ctattn_test::backend_ops {

// Whether Ops has a member of this name, of any kind (a function, a template, overloads, a constant): the name is
// looked up in a struct deriving from Ops and from a probe that has it too, which is ambiguous exactly when Ops has it.
#define CTATTN_TEST_MEMBER_PROBE(member)         \
  struct probe_##member {                        \
    int member;                                  \
  };                                             \
  template <typename Ops>                        \
  struct with_##member : Ops, probe_##member {}; \
  template <typename Ops>                        \
  inline constexpr bool defines_##member = !requires { &with_##member<Ops>::member; };

CTATTN_TEST_MEMBER_PROBE(transpose_sum)
CTATTN_TEST_MEMBER_PROBE(transpose)
CTATTN_TEST_MEMBER_PROBE(dot_rows)
CTATTN_TEST_MEMBER_PROBE(totals)
CTATTN_TEST_MEMBER_PROBE(requantize_row)
CTATTN_TEST_MEMBER_PROBE(product_requantized)
CTATTN_TEST_MEMBER_PROBE(row_sum)
CTATTN_TEST_MEMBER_PROBE(softmax_row)
CTATTN_TEST_MEMBER_PROBE(add)
CTATTN_TEST_MEMBER_PROBE(add_takes)
CTATTN_TEST_MEMBER_PROBE(lookup)
CTATTN_TEST_MEMBER_PROBE(first_largest)
CTATTN_TEST_MEMBER_PROBE(product_transposed)
CTATTN_TEST_MEMBER_PROBE(sum_and_squares)
CTATTN_TEST_MEMBER_PROBE(layer_norm_row)
CTATTN_TEST_MEMBER_PROBE(pack_block)
CTATTN_TEST_MEMBER_PROBE(fully_connected)
CTATTN_TEST_MEMBER_PROBE(unpack)
CTATTN_TEST_MEMBER_PROBE(multiply)
#undef CTATTN_TEST_MEMBER_PROBE

// Each check is a static_assert of its own inside a template instantiated for the struct, so that a failure names the
// flag and, in the instantiation note, the struct.
// Each takes a row's operations, `void` where the row has none of that kind.
template <typename V>
constexpr bool float_ops_declared() {
  if constexpr (std::is_void_v<V>) {
    return true;
  } else {
    static_assert(std::is_base_of_v<ctattn::detail::float_ops_defaults, V>,
                  "a float backend's operations derive from float_ops_defaults (kernels/detail/ops_defaults.hpp)");
    static_assert(V::has_transpose_sum == defines_transpose_sum<V>, "has_transpose_sum is set exactly where defined");
    static_assert(V::has_transpose == defines_transpose<V>, "has_transpose is set exactly where defined");
    return true;
  }
}

template <typename Ops>
constexpr bool int8_ops_declared() {
  if constexpr (std::is_void_v<Ops>) {
    return true;
  } else {
    static_assert(std::is_base_of_v<ctattn::detail::int8_ops_defaults, Ops>,
                  "an int8 backend's operations derive from int8_ops_defaults (kernels/detail/ops_defaults.hpp)");
    static_assert(Ops::has_dot_rows == defines_dot_rows<Ops>, "has_dot_rows is set exactly where defined");
    static_assert(Ops::has_totals == defines_totals<Ops>, "has_totals is set exactly where defined");
    static_assert(Ops::has_requantize_row == defines_requantize_row<Ops>,
                  "has_requantize_row is set exactly where defined");
    static_assert(Ops::has_product_requantized == defines_product_requantized<Ops>,
                  "has_product_requantized is set exactly where defined");
    static_assert(!Ops::reads_short_multipliers || Ops::has_product_requantized,
                  "reads_short_multipliers is set only where product_requantized, which reads it, is defined");
    static_assert(Ops::has_row_sum == defines_row_sum<Ops>, "has_row_sum is set exactly where defined");
    static_assert(Ops::has_softmax_row == defines_softmax_row<Ops>, "has_softmax_row is set exactly where defined");
    static_assert(Ops::has_add == defines_add<Ops> && Ops::has_add == defines_add_takes<Ops>,
                  "has_add is set exactly where add and add_takes are defined");
    static_assert(Ops::has_lookup == defines_lookup<Ops>, "has_lookup is set exactly where defined");
    static_assert(Ops::has_first_largest == defines_first_largest<Ops>,
                  "has_first_largest is set exactly where defined");
    static_assert(Ops::has_sum_and_squares == defines_sum_and_squares<Ops>,
                  "has_sum_and_squares is set exactly where defined");
    static_assert(Ops::has_layer_norm_row == defines_layer_norm_row<Ops>,
                  "has_layer_norm_row is set exactly where defined");
    static_assert(Ops::rows_per_pass >= 1, "a pass holds at least one row");
    return int8_ops_declared<typename Ops::tail_ops>();  // the narrower backend the tails go to, if any
  }
}

template <typename Ops>
constexpr bool packed_ops_declared() {
  if constexpr (std::is_void_v<Ops>) {
    return true;
  } else {
    static_assert(std::is_base_of_v<ctattn::detail::int8_packed_ops_defaults, Ops>,
                  "a packed int8 kernel's operations derive from int8_packed_ops_defaults "
                  "(kernels/detail/ops_defaults.hpp)");
    static_assert(Ops::has_pack_block == defines_pack_block<Ops>, "has_pack_block is set exactly where defined");
    return true;
  }
}

template <typename Ops>
constexpr bool int4_ops_declared() {
  if constexpr (std::is_void_v<Ops>) {
    return true;
  } else {
    static_assert(std::is_base_of_v<ctattn::detail::int4_ops_defaults, Ops>,
                  "an int4 kernel's operations derive from int4_ops_defaults (kernels/detail/ops_defaults.hpp)");
    static_assert(Ops::has_fully_connected == defines_fully_connected<Ops>,
                  "has_fully_connected is set exactly where defined");
    static_assert(Ops::has_unpack == defines_unpack<Ops>, "has_unpack is set exactly where defined");
    return true;
  }
}

template <typename Ops>
constexpr bool int16_ops_declared() {
  if constexpr (std::is_void_v<Ops>) {
    return true;
  } else {
    static_assert(std::is_base_of_v<ctattn::detail::int16_ops_defaults, Ops>,
                  "a 16x8 kernel's operations derive from int16_ops_defaults (kernels/detail/ops_defaults.hpp)");
    static_assert(Ops::has_fully_connected == defines_fully_connected<Ops>,
                  "has_fully_connected is set exactly where defined");
    static_assert(Ops::has_product_transposed == defines_product_transposed<Ops>,
                  "has_product_transposed is set exactly where defined");
    static_assert(Ops::has_add == defines_add<Ops>, "has_add is set exactly where defined");
    static_assert(Ops::has_multiply == defines_multiply<Ops>, "has_multiply is set exactly where defined");
    return true;
  }
}

template <ctattn::detail::float_backend_id Id>
constexpr bool float_row_declared() {
  using row = ctattn::detail::float_backend<Id>;
  if constexpr (!requires { row::name; }) {
    return true;  // a row this target does not define
  } else {
    return float_ops_declared<typename row::ops>();
  }
}

template <ctattn::detail::int8_backend_id Id>
constexpr bool int8_row_declared() {
  using row = ctattn::detail::int8_backend<Id>;
  if constexpr (!requires { row::name; }) {
    return true;
  } else {
    return int8_ops_declared<typename row::ops>() && int8_ops_declared<typename row::product_ops>() &&
           packed_ops_declared<typename row::packed_ops>() && int4_ops_declared<typename row::int4_ops>() &&
           int16_ops_declared<typename row::int16_ops>();
  }
}

/// Every row this build defines, float and int8, declares its optional operations truthfully.
constexpr bool every_row_declares_its_operations() {
  using ctattn::detail::float_backend_id;
  using ctattn::detail::int8_backend_id;
  return []<std::size_t... F, std::size_t... I>(std::index_sequence<F...>, std::index_sequence<I...>) {
    return (float_row_declared<static_cast<float_backend_id>(F)>() && ...) &&
           (int8_row_declared<static_cast<int8_backend_id>(I)>() && ...);
  }(std::make_index_sequence<static_cast<std::size_t>(float_backend_id::count)>{},
         std::make_index_sequence<static_cast<std::size_t>(int8_backend_id::count)>{});
}

}  // namespace ctattn_test::backend_ops

#endif  // CTATTN_TESTS_SUPPORT_BACKEND_OPS_CHECK_HPP

#ifndef CTATTN_ATTENTION_DETAIL_MASK_RULES_HPP
#define CTATTN_ATTENTION_DETAIL_MASK_RULES_HPP

#include <type_traits>

#include "ctattn/attention/mask.hpp"
#include "ctattn/shape/dimension.hpp"
#include "ctattn/shape/shape_error.hpp"

namespace ctattn::detail {

// The shape rules between a mask and the score matrix (NQ queries x NKV keys), as variable templates so that a
// failure names the rule type in the first error line. A combined mask checks both parts.

template <typename Op, auto NQ, typename Mask>
inline constexpr bool mask_rows_fit = true;
template <typename Op, auto NQ, typename Mask>
  requires requires { Mask::row_extent; }
inline constexpr bool mask_rows_fit<Op, NQ, Mask> =
    shape_rule<extents_match(Mask::row_extent, NQ),
               shape_error::mask_rows_must_match_queries<Op, dim_of<Mask::row_extent>, dim_of<NQ>>>;

template <typename Op, auto NKV, typename Mask>
inline constexpr bool mask_columns_fit = true;
template <typename Op, auto NKV, typename Mask>
  requires requires { Mask::column_extent; }
inline constexpr bool mask_columns_fit<Op, NKV, Mask> =
    shape_rule<extents_match(Mask::column_extent, NKV),
               shape_error::mask_columns_must_match_keys<Op, dim_of<Mask::column_extent>, dim_of<NKV>>>;

template <typename Op, auto NQ, auto NKV, typename Mask>
inline constexpr bool mask_square_fits = true;
template <typename Op, auto NQ, auto NKV, typename Mask>
  requires requires { Mask::needs_square_scores; }
inline constexpr bool mask_square_fits<Op, NQ, NKV, Mask> =
    shape_rule<extents_match(NQ, NKV),
               shape_error::sliding_window_needs_as_many_queries_as_keys<Op, dim_of<NQ>, dim_of<NKV>>>;

template <typename Op, typename T, typename Mask>
inline constexpr bool mask_element_fits = true;
template <typename Op, typename T, typename Mask>
  requires requires { typename Mask::value_type; }
inline constexpr bool mask_element_fits<Op, T, Mask> =
    shape_rule<std::is_same_v<T, typename Mask::value_type>,
               shape_error::element_types_must_match<Op, T, typename Mask::value_type>>;

template <typename Op, typename T, auto NQ, auto NKV, typename Mask>
inline constexpr bool mask_fits = mask_rows_fit<Op, NQ, Mask> && mask_columns_fit<Op, NKV, Mask> &&
                                  mask_square_fits<Op, NQ, NKV, Mask> && mask_element_fits<Op, T, Mask>;
template <typename Op, typename T, auto NQ, auto NKV, typename A, typename B>
inline constexpr bool mask_fits<Op, T, NQ, NKV, combined_mask<A, B>> =
    mask_fits<Op, T, NQ, NKV, A> && mask_fits<Op, T, NQ, NKV, B>;

}  // namespace ctattn::detail

#endif  // CTATTN_ATTENTION_DETAIL_MASK_RULES_HPP

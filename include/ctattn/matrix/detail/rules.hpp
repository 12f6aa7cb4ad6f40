#ifndef CTATTN_MATRIX_DETAIL_RULES_HPP
#define CTATTN_MATRIX_DETAIL_RULES_HPP

#include <type_traits>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/shape/shape_error.hpp"

namespace ctattn::detail {

// Each rule is a variable template, so that the check happens where the operation is instantiated and the
// first error line names the rule type (see ctattn/shape/shape_error.hpp).

template <typename Op, typename A, typename B>
inline constexpr bool same_element_rule =
    shape_rule<std::is_same_v<typename A::value_type, typename B::value_type>,
               shape_error::element_types_must_match<Op, typename A::value_type, typename B::value_type>>;

template <typename Op, typename A, typename B>
inline constexpr bool rows_rule =
    shape_rule<extents_match(A::row_extent, B::row_extent),
               shape_error::rows_must_match<Op, dim_of<A::row_extent>, dim_of<B::row_extent>>>;

template <typename Op, typename A, typename B>
inline constexpr bool columns_rule =
    shape_rule<extents_match(A::column_extent, B::column_extent),
               shape_error::columns_must_match<Op, dim_of<A::column_extent>, dim_of<B::column_extent>>>;

template <typename Op, typename A, typename B>
inline constexpr bool inner_rule =
    shape_rule<extents_match(A::column_extent, B::row_extent),
               shape_error::inner_dimensions_must_match<Op, dim_of<A::column_extent>, dim_of<B::row_extent>>>;

/// Both operands of an element-wise operation: equal shapes and equal element types.
template <typename A, typename B>
inline constexpr bool same_shape =
    extents_match(A::row_extent, B::row_extent) && extents_match(A::column_extent, B::column_extent);

/// The shape that two matching operands stand for together (named extents win over plain sizes).
template <typename A, typename B>
using unified_matrix = basic_matrix<typename A::value_type, unify_extents(A::row_extent, B::row_extent),
                                    unify_extents(A::column_extent, B::column_extent)>;

}  // namespace ctattn::detail

#endif  // CTATTN_MATRIX_DETAIL_RULES_HPP

// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_RULES_HPP
#define CTATTN_MATRIX_RULES_HPP

/// \file
/// The matrix tier's shape rules and operation tags. Each rule is defined once (see ctattn/shape/rule.hpp): its
/// predicate, and the sentence the user reads first when it is broken.
///
/// | rule                                      | arguments after the operation     |
/// |-------------------------------------------|-----------------------------------|
/// | `inner_dimensions_must_match`             | a's columns, b's rows             |
/// | `rows_must_match`, `columns_must_match`   | a's, b's                          |
/// | `parts_must_divide_dimension`             | `count<parts>`, the dimension     |
/// | `parts_times_block_must_equal_dimension`  | `count<parts>`, block, dimension  |
/// | `block_must_fit_dimension`                | `count<block end>`, dimension     |
/// | `index_must_be_inside_dimension`          | `count<index>`, dimension         |
/// | `relabelled_dimension_must_keep_its_size` | from, to                          |
/// | `count_must_be_positive`                  | `count<n>`                        |

#include <cstddef>
#include <type_traits>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/shape/dimension.hpp"
#include "ctattn/shape/rule.hpp"

namespace ctattn {

namespace op {
struct multiply {};
struct add {};
struct subtract {};
struct hadamard {};
struct zip_map {};
struct map {};
struct approx_equal {};
struct split_columns {};
struct concat_columns {};
struct column_block {};
struct row {};
struct with_extents {};
struct from_array {};
}  // namespace op

namespace shape_error {

/// A product A B contracts A's columns with B's rows: they must match (equal sizes; equal names when both are
/// named, so `d_k{64}` never meets `d_v{64}`).
template <typename Operation, typename LhsColumns, typename RhsRows>
struct inner_dimensions_must_match {
  static constexpr bool holds = detail::dims_match<LhsColumns, RhsRows>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: in a product a * b the columns of a must match the rows of b (equal sizes, and equal "
                  "names when both are named); transpose an operand, or relabel an axis with ctattn::with_extents "
                  "if the two really are one axis");
    return holds;
  }
};

/// Operands combined element by element (or stacked side by side) have matching rows.
template <typename Operation, typename LhsRows, typename RhsRows>
struct rows_must_match {
  static constexpr bool holds = detail::dims_match<LhsRows, RhsRows>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the operands must have matching rows (equal sizes, and equal names when both are "
                  "named); pass matrices of the same shape, or relabel an axis with ctattn::with_extents");
    return holds;
  }
};

/// Operands combined element by element have matching columns.
template <typename Operation, typename LhsColumns, typename RhsColumns>
struct columns_must_match {
  static constexpr bool holds = detail::dims_match<LhsColumns, RhsColumns>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the operands must have matching columns (equal sizes, and equal names when both are "
                  "named); pass matrices of the same width, or relabel an axis with ctattn::with_extents");
    return holds;
  }
};

/// A split into `Parts` equal blocks needs `Parts` to divide the dimension.
template <typename Operation, typename Parts, typename Dimension>
struct parts_must_divide_dimension {
  static constexpr bool holds = Parts::value != 0 && Dimension::size % Parts::value == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the number of parts must divide the dimension being split into equal blocks; choose a "
                  "divisor of its size");
    return holds;
  }
};

/// `Parts` blocks of the given width exactly cover the dimension they split or form.
template <typename Operation, typename Parts, typename Block, typename Dimension>
struct parts_times_block_must_equal_dimension {
  static constexpr bool holds = Parts::value * Block::size == Dimension::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the blocks together must be exactly as wide as the dimension they split or form (parts "
                  "times block width); fix the block's or the result's extent");
    return holds;
  }
};

/// A block taken from a dimension lies inside it: its end is at most the dimension's size.
template <typename Operation, typename BlockEnd, typename Dimension>
struct block_must_fit_dimension {
  static constexpr bool holds = BlockEnd::value <= Dimension::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the block reaches past the end of the dimension it is taken from; lower its start or "
                  "its width");
    return holds;
  }
};

/// A compile-time index is smaller than the size of the dimension it indexes.
template <typename Operation, typename Index, typename Dimension>
struct index_must_be_inside_dimension {
  static constexpr bool holds = Index::value < Dimension::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the index is past the end of the dimension (indices count from 0 to size - 1); use a "
                  "smaller index");
    return holds;
  }
};

/// Relabelling (or importing) a dimension keeps its size: only the name may change.
template <typename Operation, typename From, typename To>
struct relabelled_dimension_must_keep_its_size {
  static constexpr bool holds = From::size == To::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a new extent for existing data must have the data's size (only the name may change); "
                  "give the extent the size the data has");
    return holds;
  }
};

/// A count of parts, heads or tokens is at least 1.
template <typename Operation, typename Count>
struct count_must_be_positive {
  static constexpr bool holds = Count::value > 0;
  static constexpr bool check() noexcept {
    static_assert(holds, "ctattn: the count (parts, heads, tokens) must be at least 1; pass a positive count");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

template <typename Op, typename A, typename B>
using same_element_rule = shape_error::element_types_must_match<Op, typename A::value_type, typename B::value_type>;

template <typename Op, typename A, typename B>
using rows_rule = shape_error::rows_must_match<Op, dim_of<A::row_extent>, dim_of<B::row_extent>>;

template <typename Op, typename A, typename B>
using columns_rule = shape_error::columns_must_match<Op, dim_of<A::column_extent>, dim_of<B::column_extent>>;

/// The rules of a product a b: one element type, a's columns match b's rows.
template <typename A, typename B>
using multiply_rules =
    rule_list<same_element_rule<op::multiply, A, B>,
              shape_error::inner_dimensions_must_match<op::multiply, dim_of<A::column_extent>, dim_of<B::row_extent>>>;

/// The rules of an element-wise operation: one element type, matching rows and columns.
template <typename Op, typename A, typename B>
using same_shape_rules = rule_list<same_element_rule<Op, A, B>, rows_rule<Op, A, B>, columns_rule<Op, A, B>>;

/// The shape that two matching operands stand for together (named extents win over plain sizes).
template <typename A, typename B>
using unified_matrix = basic_matrix<typename A::value_type, unify_extents(A::row_extent, B::row_extent),
                                    unify_extents(A::column_extent, B::column_extent)>;

}  // namespace detail
}  // namespace ctattn

#endif  // CTATTN_MATRIX_RULES_HPP

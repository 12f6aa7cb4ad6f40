#ifndef CTATTN_SHAPE_SHAPE_ERROR_HPP
#define CTATTN_SHAPE_SHAPE_ERROR_HPP

#include <cstddef>

/// \file
/// How ctattn reports a shape mistake.
///
/// Rationale: C++20 cannot format numbers into a `static_assert` message, and an unsatisfied `requires` clause
/// starts with "no matching function", which names neither the rule nor the dimensions. So every shape check
/// names an incomplete type whose name is the rule and whose template arguments are the operation and both
/// dimensions; the compiler's first error line then reads, for example,
///
///     invalid application of 'sizeof' to incomplete type
///     'ctattn::shape_error::inner_dimensions_must_match<ctattn::op::multiply,
///      ctattn::dim<d_k, 64>, ctattn::dim<d_v, 64>>'                         (GCC)
///     implicit instantiation of undefined template
///     'ctattn::shape_error::inner_dimensions_must_match<...same...>'          (Clang)
///
/// followed by a `static_assert` whose message says how to fix the call. Each rule is also exposed as a
/// concept (`Multipliable`, `SameShape`, ...), so that generic code and the static tests can ask about it
/// in the language.

namespace ctattn {

/// Operation tags: the first template argument of every shape error names the operation that was called.
namespace op {
struct multiply {};
struct add {};
struct subtract {};
struct hadamard {};
struct zip_map {};
struct approx_equal {};
struct split_columns {};
struct concat_columns {};
struct column_block {};
struct row {};
struct with_extents {};
struct scaled_dot_product_attention {};
struct softmax {};
struct mask {};
struct projection {};
struct multi_head_attention {};
}  // namespace op

/// The rules. These types are never defined: naming one in a failed check is what prints the rule.
namespace shape_error {

/// A product A B needs A's columns to match B's rows (equal sizes; equal names when both are named).
template <typename Operation, typename LhsColumns, typename RhsRows>
struct inner_dimensions_must_match;

/// An element-wise operation needs both operands to have matching rows.
template <typename Operation, typename LhsRows, typename RhsRows>
struct rows_must_match;

/// An element-wise operation needs both operands to have matching columns.
template <typename Operation, typename LhsColumns, typename RhsColumns>
struct columns_must_match;

/// Both operands must hold the same element type (no silent float/double mixing).
template <typename Operation, typename LhsElement, typename RhsElement>
struct element_types_must_match;

/// A split into `Parts` equal blocks needs `Parts` to divide the dimension.
template <typename Operation, typename Parts, typename Dimension>
struct parts_must_divide_dimension;

/// Parts blocks of the given width must exactly cover the dimension they split or form.
template <typename Operation, typename Parts, typename Block, typename Dimension>
struct parts_times_block_must_equal_dimension;

/// A block taken from a dimension must lie inside it.
template <typename Operation, typename BlockEnd, typename Dimension>
struct block_must_fit_dimension;

/// A compile-time index must be smaller than the dimension it indexes.
template <typename Operation, typename Index, typename Dimension>
struct index_must_be_inside_dimension;

/// Relabelling a dimension must keep its size.
template <typename Operation, typename From, typename To>
struct relabelled_dimension_must_keep_its_size;

// Attention (ctattn/attention/).

/// Queries and keys are compared by a dot product: their widths (d_q and d_k) must match.
template <typename Operation, typename QueryWidth, typename KeyWidth>
struct query_and_key_widths_must_match;

/// Every key has a value: the number of keys and the number of values (n_kv) must match.
template <typename Operation, typename KeyCount, typename ValueCount>
struct key_and_value_counts_must_match;

/// A mask or bias has one row per query: its rows must match the number of queries.
template <typename Operation, typename MaskRows, typename QueryCount>
struct mask_rows_must_match_queries;

/// A mask or bias has one column per key: its columns must match the number of keys.
template <typename Operation, typename MaskColumns, typename KeyCount>
struct mask_columns_must_match_keys;

/// A window centred on each query (restricted attention) needs as many queries as keys.
template <typename Operation, typename QueryCount, typename KeyCount>
struct sliding_window_needs_as_many_queries_as_keys;

/// A projection maps the input's width: the input's columns must match the weight's input side.
template <typename Operation, typename InputWidth, typename WeightInput>
struct input_width_must_match_weight;

/// A bias adds one value per output feature: its width must match the weight's output side.
template <typename Operation, typename BiasWidth, typename WeightOutput>
struct bias_width_must_match_weight;

/// Heads share d_model equally: the number of heads must divide it.
template <typename Operation, typename Heads, typename ModelWidth>
struct heads_must_divide_model_width;

/// Grouped-query attention: each key/value head serves the same number of query heads.
template <typename Operation, typename KeyValueHeads, typename QueryHeads>
struct key_value_heads_must_divide_query_heads;

}  // namespace shape_error

// Position information (ctattn/position/) and gradients (ctattn/attention/gradient.hpp).
namespace op {
struct sinusoidal_encoding {};
struct token_embedding {};
struct position_embedding {};
struct rotary_embedding {};
struct softmax_jacobian {};
struct softmax_backward {};
struct attention_backward {};
}  // namespace op

namespace shape_error {

/// Sines and cosines fill the columns in pairs (sinusoidal encoding, rotary embedding): the width must be even.
template <typename Operation, typename Dimension>
struct dimension_must_be_even;

/// A position table has one row per position: the sequence must not be longer than the table.
template <typename Operation, typename SequenceLength, typename TableLength>
struct sequence_must_fit_position_table;

}  // namespace shape_error

/// A count or an index in a diagnostic: `ctattn::count<3>`.
template <std::size_t N>
struct count {
  static constexpr std::size_t value = N;
};

namespace detail {

/// `shape_rule<true, E>` is true; `shape_rule<false, E>` names the incomplete rule type E, so the first error
/// line shows the rule, the operation and both dimensions.
template <bool Holds, typename Error>
inline constexpr bool shape_rule = true;

template <typename Error>
inline constexpr bool shape_rule<false, Error> = sizeof(Error) != 0;

}  // namespace detail
}  // namespace ctattn

#endif  // CTATTN_SHAPE_SHAPE_ERROR_HPP

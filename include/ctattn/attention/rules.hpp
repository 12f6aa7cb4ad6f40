// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_RULES_HPP
#define CTATTN_ATTENTION_RULES_HPP

/// \file
/// The attention tier's shape rules and operation tags (see ctattn/shape/rule.hpp for how a rule is defined once
/// and reported). The matrix tier's rules (ctattn/matrix/rules.hpp) apply here too.
///
/// | rule                                           | arguments after the operation                  |
/// |------------------------------------------------|------------------------------------------------|
/// | `query_and_key_widths_must_match`              | d_q, d_k                                       |
/// | `key_and_value_counts_must_match`              | n_kv of the keys, of the values                |
/// | `mask_rows_must_match_queries`                 | the mask's rows, n_q                           |
/// | `mask_columns_must_match_keys`                 | the mask's columns, n_kv                       |
/// | `sliding_window_needs_as_many_queries_as_keys` | n_q, n_kv                                      |
/// | `input_width_must_match_weight`                | the input's columns, the weight's input side   |
/// | `heads_must_divide_model_width`                | `count<h>`, d_model                            |
/// | `key_value_heads_must_divide_query_heads`      | `count<h_kv>`, `count<h_q>`                    |
/// | `output_rows_must_match_queries`               | the output's rows, n_q                         |
/// | `output_columns_must_match_values`             | the output's columns, d_v (h * d_v)            |
/// | `workspace_must_match_attention`               | the given workspace's shape, the required one  |
/// | `must_be_a_single_row`                         | the rows given                                 |
/// | `position_must_fit_cache`                      | `count<position>`, `count<capacity>`           |
/// | `memory_must_fit_cache`                        | `count<memory rows>`, `count<capacity>`        |
/// | `argument_must_be_one_attention_head`          | the type given (in workspace.hpp, beside what a head is) |

#include <cstddef>
#include <type_traits>

#include "ctattn/matrix/rules.hpp"
#include "ctattn/shape/dimension.hpp"
#include "ctattn/shape/rule.hpp"

namespace ctattn {

namespace op {
struct scaled_dot_product_attention {};
struct softmax {};
struct mask {};
struct projection {};
struct multi_head_attention {};
struct grouped_query_attention {};
struct wide_multi_head_attention {};
struct softmax_jacobian {};
struct softmax_backward {};
struct attention_backward {};
struct self_attention {};
struct cross_attention {};
struct kv_cache {};
}  // namespace op

/// How an attention workspace's shape reads in a diagnostic: element type, then n_q, n_kv, d_k and d_v as
/// `ctattn::dim<name, size>`. Never defined.
///
/// | argument     | shape part |
/// |--------------|------------|
/// | `QueryCount` | n_q        |
/// | `KeyCount`   | n_kv       |
/// | `KeyWidth`   | d_k        |
/// | `ValueWidth` | d_v        |
///
/// Example (a workspace declared for 7 tokens, used with 6: the rule the diagnostic names):
/// \code
///   using declared = ctattn::workspace_shape<float, ctattn::dim<seq, 7>, ctattn::dim<seq, 7>, ctattn::dim<d_k, 24>,
///                                            ctattn::dim<d_v, 28>>;
///   using required = ctattn::workspace_shape<float, ctattn::dim<seq, 6>, ctattn::dim<seq, 6>, ctattn::dim<d_k, 24>,
///                                            ctattn::dim<d_v, 28>>;
///   static_assert(!ctattn::shape_error::workspace_must_match_attention<ctattn::op::self_attention, declared,
///                                                                      required>::holds);
/// \endcode
template <typename T, typename QueryCount, typename KeyCount, typename KeyWidth, typename ValueWidth>
struct workspace_shape;

namespace shape_error {

/// Queries and keys are compared by dot products: their widths d_q and d_k must match.
template <typename Operation, typename QueryWidth, typename KeyWidth>
struct query_and_key_widths_must_match {
  static constexpr bool holds = detail::dims_match<QueryWidth, KeyWidth>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: queries and keys are compared by dot products, so their widths must match (d_q = d_k); "
                  "project both with weights of the same output width, or check that the keys are not the values");
    return holds;
  }
};

/// Every key has a value: the keys and the values have the same number of rows (n_kv).
template <typename Operation, typename KeyCount, typename ValueCount>
struct key_and_value_counts_must_match {
  static constexpr bool holds = detail::dims_match<KeyCount, ValueCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: every key needs its value, so keys and values must have the same number of rows (n_kv); "
                  "take both from the same sequence");
    return holds;
  }
};

/// A mask or bias has one row per query.
template <typename Operation, typename MaskRows, typename QueryCount>
struct mask_rows_must_match_queries {
  static constexpr bool holds = detail::dims_match<MaskRows, QueryCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a mask or bias has one row per query, so its rows must match the number of queries "
                  "(n_q); build it for the scores' shape n_q x n_kv");
    return holds;
  }
};

/// A mask or bias has one column per key.
template <typename Operation, typename MaskColumns, typename KeyCount>
struct mask_columns_must_match_keys {
  static constexpr bool holds = detail::dims_match<MaskColumns, KeyCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a mask or bias has one column per key, so its columns must match the number of keys "
                  "(n_kv); build it for the scores' shape n_q x n_kv");
    return holds;
  }
};

/// A window centred on each query (restricted attention) needs as many queries as keys.
template <typename Operation, typename QueryCount, typename KeyCount>
struct sliding_window_needs_as_many_queries_as_keys {
  static constexpr bool holds = detail::dims_match<QueryCount, KeyCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a sliding window is centred on each query's own position, so it needs as many queries "
                  "as keys (self-attention); for cross-attention use a boolean_mask or an additive_bias");
    return holds;
  }
};

/// A projection maps the input's features: the input's columns match the weight's input side.
template <typename Operation, typename InputWidth, typename WeightInput>
struct input_width_must_match_weight {
  static constexpr bool holds = detail::dims_match<InputWidth, WeightInput>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a projection's input must have as many columns as the weight has input features; pass "
                  "the input the weight was made for (x, not its transpose), and check the weight's layout "
                  "(ctattn::in_by_out or ctattn::out_by_in)");
    return holds;
  }
};

/// Heads share d_model equally: the number of heads divides it.
template <typename Operation, typename Heads, typename ModelWidth>
struct heads_must_divide_model_width {
  static constexpr bool holds = Heads::value != 0 && ModelWidth::size % Heads::value == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the heads split d_model into equal parts, so the number of heads must divide d_model; "
                  "choose a divisor (for d_model = 512: 1, 2, 4, 8, 16, ...)");
    return holds;
  }
};

/// Grouped-query attention: each key/value head serves the same number of query heads.
template <typename Operation, typename KeyValueHeads, typename QueryHeads>
struct key_value_heads_must_divide_query_heads {
  static constexpr bool holds = KeyValueHeads::value != 0 && QueryHeads::value % KeyValueHeads::value == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: in grouped-query attention each key/value head serves the same number of query heads, "
                  "so the key/value heads must divide the query heads; choose a divisor");
    return holds;
  }
};

/// An output written in place has one row per query.
template <typename Operation, typename OutputRows, typename QueryCount>
struct output_rows_must_match_queries {
  static constexpr bool holds = detail::dims_match<OutputRows, QueryCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the output has one row per query, so its rows must match the number of queries (n_q); "
                  "declare it with the queries' row extent");
    return holds;
  }
};

/// An output written in place has the values' width (d_v; h * d_v for wide multi-head attention).
template <typename Operation, typename OutputColumns, typename ValueWidth>
struct output_columns_must_match_values {
  static constexpr bool holds = detail::dims_match<OutputColumns, ValueWidth>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the output holds the weighted values, so its columns must match the values' width (d_v, "
                  "or h * d_v for concatenated heads); declare it with that width");
    return holds;
  }
};

/// A workspace is declared for one attention configuration (element type, n_q, n_kv, d_k, d_v).
template <typename Operation, typename GivenWorkspace, typename RequiredWorkspace>
struct workspace_must_match_attention {
  static constexpr bool holds = std::is_same_v<GivenWorkspace, RequiredWorkspace>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the workspace was declared for another attention configuration; declare it as "
                  "ctattn::self_attention_workspace<X, Head> or ctattn::cross_attention_workspace<XQ, XKV, Head> "
                  "for this call's operands");
    return holds;
  }
};

/// A key/value cache holds `Capacity` tokens: positions 0 to Capacity - 1.
template <typename Operation, typename Position, typename Capacity>
struct position_must_fit_cache {
  static constexpr bool holds = Position::value < Capacity::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a key/value cache holds Capacity tokens, at positions 0 to Capacity - 1; append at a "
                  "position below the capacity, or declare the cache with a larger capacity");
    return holds;
  }
};

/// The keys and values of an encoder's output (the memory of cross-attention) fit the cache they are projected into.
template <typename Operation, typename Rows, typename Capacity>
struct memory_must_fit_cache {
  static constexpr bool holds = Rows::value <= Capacity::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the memory (the encoder's output) has more rows than the key/value cache holds; declare "
                  "the cache with a capacity of at least the memory's rows");
    return holds;
  }
};

/// The softmax Jacobian is taken of one row of probabilities.
template <typename Operation, typename Rows>
struct must_be_a_single_row {
  static constexpr bool holds = Rows::size == 1;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the operand must be a single row (1 x N); take one row of a matrix with ctattn::row<i>(m)");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

// What a mask declares about itself: its rows, its columns, its element type (each `void` when it has none), and
// whether it needs square scores.
template <typename Mask>
struct mask_rows {
  using type = void;
};
template <typename Mask>
  requires requires { Mask::row_extent; }
struct mask_rows<Mask> {
  using type = dim_of<Mask::row_extent>;
};
template <typename Mask>
struct mask_columns {
  using type = void;
};
template <typename Mask>
  requires requires { Mask::column_extent; }
struct mask_columns<Mask> {
  using type = dim_of<Mask::column_extent>;
};
template <typename Mask>
struct mask_element {
  using type = void;
};
template <typename Mask>
  requires requires { typename Mask::value_type; }
struct mask_element<Mask> {
  using type = typename Mask::value_type;
};

// A rule that applies only when the mask declares what it checks; an empty list otherwise.
template <typename Declared, typename Rule>
using if_declared = std::conditional_t<std::is_void_v<Declared>, rule_list<>, Rule>;

template <typename Op, typename T, auto NQ, auto NKV, typename Mask>
struct mask_rules_of {
  using rows = typename mask_rows<Mask>::type;
  using columns = typename mask_columns<Mask>::type;
  using element = typename mask_element<Mask>::type;
  static constexpr bool square_scores = requires { Mask::needs_square_scores; };
  using type = rule_list<
      if_declared<element, shape_error::element_types_must_match<Op, T, element>>,
      if_declared<rows, shape_error::mask_rows_must_match_queries<Op, rows, dim_of<NQ>>>,
      if_declared<columns, shape_error::mask_columns_must_match_keys<Op, columns, dim_of<NKV>>>,
      std::conditional_t<square_scores,
                         shape_error::sliding_window_needs_as_many_queries_as_keys<Op, dim_of<NQ>, dim_of<NKV>>,
                         rule_list<>>>;
};

template <typename Op, typename T, auto NQ, auto NKV, typename Mask>
  requires requires {
    typename Mask::first_mask;
    typename Mask::second_mask;
  }
struct mask_rules_of<Op, T, NQ, NKV, Mask> {
  using type = rule_list<typename mask_rules_of<Op, T, NQ, NKV, typename Mask::first_mask>::type,
                         typename mask_rules_of<Op, T, NQ, NKV, typename Mask::second_mask>::type>;
};

/// The rules between a mask and scores of NQ queries x NKV keys in element type T (a combined mask: both parts').
template <typename Op, typename T, auto NQ, auto NKV, typename Mask>
using mask_rules = typename mask_rules_of<Op, T, NQ, NKV, Mask>::type;

/// The rules of scaled dot-product attention over Q, K, V with a mask.
template <typename Op, typename Q, typename K, typename V, typename Mask>
using attention_rules =
    rule_list<same_element_rule<Op, Q, K>, same_element_rule<Op, K, V>,
              shape_error::query_and_key_widths_must_match<Op, dim_of<Q::column_extent>, dim_of<K::column_extent>>,
              shape_error::key_and_value_counts_must_match<Op, dim_of<K::row_extent>, dim_of<V::row_extent>>,
              mask_rules<Op, typename Q::value_type, Q::row_extent, K::row_extent, Mask>>;

// The output of attention over Q and V: n_q x d_v (h * d_v when `Heads` heads are concatenated).
template <typename Op, typename Out, typename Q, typename V, std::size_t Heads = 1>
using output_rules =
    rule_list<same_element_rule<Op, Out, Q>,
              shape_error::output_rows_must_match_queries<Op, dim_of<Out::row_extent>, dim_of<Q::row_extent>>,
              shape_error::output_columns_must_match_values<
                  Op, dim_of<Out::column_extent>,
                  std::conditional_t<Heads == 1, dim_of<V::column_extent>, dim<unnamed, Heads * V::cols>>>>;

}  // namespace detail
}  // namespace ctattn

#endif  // CTATTN_ATTENTION_RULES_HPP

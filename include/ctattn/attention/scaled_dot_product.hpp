// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_SCALED_DOT_PRODUCT_HPP
#define CTATTN_ATTENTION_SCALED_DOT_PRODUCT_HPP

#include <cstddef>
#include <limits>
#include <type_traits>

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/options.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/kernels/dispatch.hpp"
#include "ctattn/math/sqrt.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// Whether queries Q, keys K and values V can meet in scaled dot-product attention: the same element type,
/// Q's width (d_q) matches K's width (d_k), and K and V have matching rows (n_kv). n_q, n_kv and d_v are free.
/// The rules are `detail::attention_rules` (ctattn/attention/rules.hpp).
///
/// Example:
/// \code
///   static_assert(ctattn::AttentionCompatible<ctattn::matrix<float, 6, 24>, ctattn::matrix<float, 9, 24>,
///                                             ctattn::matrix<float, 9, 28>>);
/// \endcode
template <typename Q, typename K, typename V, typename Mask = no_mask_type>
concept AttentionCompatible =
    FixedMatrix<Q> && FixedMatrix<K> && FixedMatrix<V> && AttentionMask<Mask> &&
    rules_hold<detail::attention_rules<op::scaled_dot_product_attention, std::remove_cvref_t<Q>, std::remove_cvref_t<K>,
                                       std::remove_cvref_t<V>, Mask>>;

/// The output of attention together with its attention weights (for study and pictures).
///
/// | member    | shape       |
/// |-----------|-------------|
/// | `output`  | n_q x d_v   |
/// | `weights` | n_q x n_kv  (rows sum to 1, or are zero for a query that sees no key) |
template <typename Output, typename Weights>
struct attention_result {
  Output output;
  Weights weights;
};

namespace detail {

/// The divisor of the scores: sqrt(d_k), correctly rounded. The reference text divides by sqrt(d_k); so do
/// we (a true division), rather than multiplying by a rounded reciprocal.
template <typename T, std::size_t DK>
inline constexpr T score_divisor = math::sqrt(static_cast<T>(DK));

}  // namespace detail

namespace detail {

template <typename Out>
constexpr void zero(Out& output) noexcept {
  for (std::size_t i = 0; i < Out::rows; ++i) {
    for (std::size_t j = 0; j < Out::cols; ++j) output.elements[i][j] = typename Out::value_type{0};
  }
}

// Whether `a` and `b` are one object (only possible when their types are the same).
template <typename A, typename B>
constexpr bool same_object(const A& a, const B& b) noexcept {
  if constexpr (std::is_same_v<A, B>) {
    return &a == &b;
  } else {
    (void)a;
    (void)b;
    return false;
  }
}

// The rules of an `into` form: the output against the result (n_q rows; d_v columns, h * d_v when `Heads`
// outputs are concatenated; one element type), and the workspace against the one the operation needs. No rule
// when the call returns its result.
template <typename Op, typename Form, typename Q, typename V, typename RequiredWorkspace, std::size_t Heads = 1>
struct into_rules_of {
  using type = rule_list<>;
};
template <typename Op, typename Output, typename Workspace, typename Q, typename V, typename RequiredWorkspace,
          std::size_t Heads>
struct into_rules_of<Op, into_storage<Output, Workspace>, Q, V, RequiredWorkspace, Heads> {
  using type = rule_list<output_rules<Op, Output, Q, V, Heads>,
                         shape_error::workspace_must_match_attention<Op, Workspace, RequiredWorkspace>>;
};
template <typename Op, typename Form, typename Q, typename V, typename RequiredWorkspace, std::size_t Heads = 1>
using into_rules = typename into_rules_of<Op, Form, Q, V, RequiredWorkspace, Heads>::type;

/// The rules of `scaled_dot_product_attention(q, k, v, options...)`.
template <typename Q, typename K, typename V, typename... Options>
using scaled_dot_product_rules = rule_list<
    shape_error::options_must_be_one_of_each_kind<op::scaled_dot_product_attention, Options...>,
    attention_rules<op::scaled_dot_product_attention, Q, K, V, typename call_options<Options...>::mask_type>,
    into_rules<op::scaled_dot_product_attention, typename call_options<Options...>::form_type, Q, V, no_workspace>>;

template <typename Q, typename K, typename V, typename... Options>
constexpr auto scaled_dot_product(const Q& q, const K& k, const V& v, const Options&... options) noexcept {
  using form = call_options<Options...>;
  using T = typename Q::value_type;
  using output_type = basic_matrix<T, Q::row_extent, V::column_extent>;
  using weights_type = basic_matrix<T, Q::row_extent, K::row_extent>;
  constexpr bool rules_hold = first_broken<scaled_dot_product_rules<Q, K, V, Options...>>::check();
  constexpr head_columns whole{0, 0, 0, 0};
  if constexpr (form::writes_into) {
    if constexpr (rules_hold) {
      auto& output = *find_option<typename form::form_type>(options...).output;
      expects(!same_object(output, v) && !same_object(output, q));
      zero(output);
      weights_type* no_weights = nullptr;
      kernels::attend<form::arithmetic_kind, false, Q::cols, V::cols>(q, k, v, mask_of(options...), output, no_weights,
                                                                      whole, score_divisor<T, Q::cols>);
    }
  } else if constexpr (form::returns_weights) {
    attention_result<output_type, weights_type> result{};
    if constexpr (rules_hold) {
      kernels::attend<form::arithmetic_kind, true, Q::cols, V::cols>(q, k, v, mask_of(options...), result.output,
                                                                     &result.weights, whole, score_divisor<T, Q::cols>);
    }
    return result;
  } else {
    output_type output{};
    if constexpr (rules_hold) {
      weights_type* no_weights = nullptr;
      kernels::attend<form::arithmetic_kind, false, Q::cols, V::cols>(q, k, v, mask_of(options...), output, no_weights,
                                                                      whole, score_divisor<T, Q::cols>);
    }
    return output;
  }
}

}  // namespace detail

/// Scaled dot-product attention softmax(Q K^T / sqrt(d_k)) V. After the operands, in any order: a mask, the
/// result's form and the arithmetic (see ctattn/attention/options.hpp).
///
/// | operand / option        | shape                                                        |
/// |-------------------------|--------------------------------------------------------------|
/// | `q`                     | n_q x d_k                                                    |
/// | `k`                     | n_kv x d_k                                                   |
/// | `v`                     | n_kv x d_v                                                   |
/// | a mask                  | see ctattn/attention/mask.hpp; checked against n_q x n_kv    |
/// | result                  | n_q x d_v                                                    |
/// | `ctattn::with_weights`  | result `{.output = n_q x d_v, .weights = n_q x n_kv}` (rows sum to 1, or are zero for a query that sees no key) |
/// | `ctattn::into(output)`  | writes n_q x d_v into `output` (not `q` or `v`), returns nothing; nothing of matrix size on the stack |
///
/// Rules (compile errors naming both dimensions): d_q = d_k (sizes, and names when both are named); K and V
/// have matching rows; one element type; the mask fits the scores; an `into` output has the result's shape.
/// n_q may differ from n_kv (cross-attention); d_v is free. The softmax is numerically stable, and a query that
/// sees no key gets a zero row.
///
/// Exact arithmetic (constant evaluation; at run time `ctattn::exact_arithmetic` or `CTATTN_EXACT_ARITHMETIC=1`):
/// each score is the dot product summed over d_k in order, divided by sqrt(d_k); each output row is the sum over
/// keys in order of weight times value row; every form computes the same bits. Fast arithmetic (the default at run
/// time where a SIMD backend exists, float): one fused pass per block of queries with an online softmax, never the
/// n_q x n_kv scores (except into the weights `with_weights` returns), within docs/kernels.md's bound of exact.
///
/// Example:
/// \code
///   auto context = ctattn::scaled_dot_product_attention(q, k, v);               // self- or cross-attention
///   auto causal  = ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal);
///   auto [out, weights] = ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal, ctattn::with_weights);
///   ctattn::scaled_dot_product_attention(q, k, v, ctattn::into(context_in_bss));
/// \endcode
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto scaled_dot_product_attention(const Q& q, const K& k, const V& v,
                                                          const Options&... options) noexcept {
  return detail::scaled_dot_product(q, k, v, options...);
}

/// \copydoc scaled_dot_product_attention
// Rationale: the `into` form returns nothing, and [[nodiscard]] cannot depend on an argument; this overload is
// the same call without it.
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void scaled_dot_product_attention(const Q& q, const K& k, const V& v, const Options&... options) noexcept {
  detail::scaled_dot_product(q, k, v, options...);
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_SCALED_DOT_PRODUCT_HPP

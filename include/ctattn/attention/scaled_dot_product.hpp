#ifndef CTATTN_ATTENTION_SCALED_DOT_PRODUCT_HPP
#define CTATTN_ATTENTION_SCALED_DOT_PRODUCT_HPP

#include <cstddef>
#include <limits>
#include <type_traits>

#include "ctattn/attention/detail/softmax_row.hpp"
#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/options.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/detail/unrolled.hpp"
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
    rules_hold<detail::attention_rules<op::scaled_dot_product_attention, std::remove_cvref_t<Q>,
                                       std::remove_cvref_t<K>, std::remove_cvref_t<V>, Mask>>;

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

/// Where one head's columns sit inside the projected Q, K and V, and where its output goes. The head's widths
/// (d_k, d_v) are template arguments of the kernel.
struct head_columns {
  std::size_t query_offset;   // first column of this head in Q
  std::size_t key_offset;     // first column of its key/value head in K
  std::size_t value_offset;   // first column of its key/value head in V
  std::size_t output_offset;  // first column of its output
};

// The scores of query i against the keys of its range: dot(j) / scale, plus the mask's bias, or -inf for a key
// the mask hides. Both forms of the kernel score through here, so they apply a mask identically.
template <typename T, typename Mask, typename Dot>
constexpr void score_row(const Mask& mask, std::size_t i, const key_range& range, T scale, T* scores,
                         const Dot& dot) noexcept {
  for (std::size_t j = range.begin; j < range.end; ++j) {
    if constexpr (Mask::checks_each_key) {
      if (!mask.allowed(i, j)) {
        scores[j] = -std::numeric_limits<T>::infinity();
        continue;
      }
    }
    T score = dot(j) / scale;
    if constexpr (Mask::adds_bias) score += mask.template bias<T>(i, j);
    scores[j] = score;
  }
}

// The constant-evaluated form of `attend`: the same arithmetic in the same order, so the same bits.
// Rationale: the constant evaluators read an element of an array local to the evaluation faster than one of a
// constexpr variable, and fold expressions with literal indices faster than loops (see detail/unrolled.hpp). So
// this head's keys and values, and each query row, are first copied into exact-size local arrays (O(n d) copies
// against O(n^2 d) multiply-adds), and every score and every context row is one unrolled expression. Each
// context row is summed from +0 into a local row and then added to the output's +0, which changes no bit.
template <bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Out,
          typename Weights, typename Mask>
constexpr void attend_unrolled(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                               const head_columns& columns, typename Q::value_type scale) noexcept {
  using T = typename Q::value_type;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  T keys[n_kv][DK]{};
  T values[n_kv][DV]{};
  for (std::size_t j = 0; j < n_kv; ++j) {
    for (std::size_t c = 0; c < DK; ++c) keys[j][c] = k.elements[j][columns.key_offset + c];
    for (std::size_t c = 0; c < DV; ++c) values[j][c] = v.elements[j][columns.value_offset + c];
  }
  T query[DK]{};
  T context[DV]{};
  T scores[n_kv]{};
  T probabilities[n_kv]{};
  for (std::size_t i = 0; i < n_q; ++i) {
    for (std::size_t c = 0; c < DK; ++c) query[c] = q.elements[i][columns.query_offset + c];
    const key_range range = mask.keys(i, n_q, n_kv);
    score_row(mask, i, range, scale, scores, [&](std::size_t key) { return unrolled_dot(query, keys[key]); });
    softmax_row(scores, probabilities, range.begin, range.end);
    for (std::size_t c = 0; c < DV; ++c) context[c] = T{0};
    for (std::size_t j = range.begin; j < range.end; ++j) {
      const T p = probabilities[j];
      if (p == T{0}) continue;
      unrolled_axpy(context, p, values[j]);
    }
    for (std::size_t c = 0; c < DV; ++c) out.elements[i][columns.output_offset + c] += context[c];
    if constexpr (KeepWeights) {
      for (std::size_t j = range.begin; j < range.end; ++j) weights->elements[i][j] = probabilities[j];
    }
  }
}

// Rationale: the kernel works one query row at a time, visits only the keys the mask's range allows (sliding
// windows cost O(r N)), and never reads the value row of a key whose weight is 0. Heads are column windows of the
// projected matrices, so multi-head attention runs the same code with no copies. The output's columns
// [output_offset, output_offset + DV) must hold +0: the kernel accumulates. At run time it is plain loops with
// row references; constant-evaluated, `attend_unrolled` does the same arithmetic in the evaluators' fast form.
template <bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Out,
          typename Weights, typename Mask>
constexpr void attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                      const head_columns& columns, typename Q::value_type scale) noexcept {
  if (std::is_constant_evaluated()) {
    attend_unrolled<KeepWeights, DK, DV>(q, k, v, mask, out, weights, columns, scale);
    return;
  }
  using T = typename Q::value_type;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  const std::size_t q_begin = columns.query_offset;
  const std::size_t k_begin = columns.key_offset;
  const std::size_t v_begin = columns.value_offset;
  const std::size_t o_begin = columns.output_offset;
  T scores[n_kv]{};
  T probabilities[n_kv]{};
  for (std::size_t i = 0; i < n_q; ++i) {
    const T(&q_row)[Q::cols] = q.elements[i];
    T(&out_row)[Out::cols] = out.elements[i];
    const key_range range = mask.keys(i, n_q, n_kv);
    // Rationale: the lambda's names are not the short ones users pick for globals (GCC's -Wshadow reports
    // those); see tests/static/user_names_test.cpp.
    score_row(mask, i, range, scale, scores, [&](std::size_t key) {
      const T(&k_row)[K::cols] = k.elements[key];
      T key_dot{0};
      for (std::size_t column = 0; column < DK; ++column) key_dot += q_row[q_begin + column] * k_row[k_begin + column];
      return key_dot;
    });
    softmax_row(scores, probabilities, range.begin, range.end);
    for (std::size_t j = range.begin; j < range.end; ++j) {
      const T p = probabilities[j];
      if (p == T{0}) continue;
      const T(&v_row)[V::cols] = v.elements[j];
      for (std::size_t c = 0; c < DV; ++c) out_row[o_begin + c] += p * v_row[v_begin + c];
    }
    if constexpr (KeepWeights) {
      for (std::size_t j = range.begin; j < range.end; ++j) weights->elements[i][j] = probabilities[j];
    }
  }
}

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
using scaled_dot_product_rules =
    rule_list<shape_error::options_must_be_one_mask_and_one_result_form<op::scaled_dot_product_attention, Options...>,
              attention_rules<op::scaled_dot_product_attention, Q, K, V, typename call_options<Options...>::mask_type>,
              into_rules<op::scaled_dot_product_attention, typename call_options<Options...>::form_type, Q, V,
                         no_workspace>>;

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
      attend<false, Q::cols, V::cols>(q, k, v, mask_of(options...), output, no_weights, whole,
                                      score_divisor<T, Q::cols>);
    }
  } else if constexpr (form::returns_weights) {
    attention_result<output_type, weights_type> result{};
    if constexpr (rules_hold) {
      attend<true, Q::cols, V::cols>(q, k, v, mask_of(options...), result.output, &result.weights, whole,
                                     score_divisor<T, Q::cols>);
    }
    return result;
  } else {
    output_type output{};
    if constexpr (rules_hold) {
      weights_type* no_weights = nullptr;
      attend<false, Q::cols, V::cols>(q, k, v, mask_of(options...), output, no_weights, whole,
                                      score_divisor<T, Q::cols>);
    }
    return output;
  }
}

}  // namespace detail

/// Scaled dot-product attention softmax(Q K^T / sqrt(d_k)) V. After the operands, in any order: a mask, and the
/// result's form (see ctattn/attention/options.hpp).
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
/// sees no key gets a zero row. Every form computes the same bits.
///
/// Each score is the dot product summed over d_k in order, divided by sqrt(d_k); each output row is the sum over
/// keys in order of weight times value row.
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

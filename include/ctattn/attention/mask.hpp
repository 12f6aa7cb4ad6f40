// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_MASK_HPP
#define CTATTN_ATTENTION_MASK_HPP

/// \file
/// Masks: values, each of its own mask type (so the kernel is compiled for the mask it gets). A mask tells the
/// attention kernel, for each query i, which keys it may see:
///   - `keys(i, n_q, n_kv)` gives the range [begin, end) of keys to visit at all (the kernel never touches the
///     others, which is what makes a sliding window O(r N) instead of O(N^2));
///   - when `checks_each_key` is true, `allowed(i, j)` filters keys inside that range;
///   - when `adds_bias` is true, `bias(i, j)` is added to the scaled score (an additive mask, ALiBi, ...).
/// A mask with a shape (`row_extent`, `column_extent`) is checked against the score matrix at compile time.
/// A query that sees no key gets a zero output row and zero weights (never NaN).
///
/// | mask                              | query i sees key j when                    | shape checked      |
/// |-----------------------------------|--------------------------------------------|--------------------|
/// | `no_mask`                         | always                                     | -                  |
/// | `causal`                          | j <= i (top-left aligned, PyTorch's is_causal) | -              |
/// | `causal_bottom_right`             | j <= i + n_kv - n_q (the last query sees every key) | -         |
/// | `key_padding_length{len}`         | j < len (len known at run time)            | len <= n_kv at run time |
/// | `key_padding_flags<N>{...}`       | valid[j]                                   | N matches n_kv     |
/// | `sliding_window<r>`               | abs(i - j) <= r                            | n_q matches n_kv   |
/// | `causal_sliding_window<r>`        | i - r <= j <= i                            | n_q matches n_kv   |
/// | `boolean_mask<NQ, NKV>{...}`      | allowed[i][j]                              | NQ x NKV matches   |
/// | `additive_bias(b)`                | always; b(i, j) added to the scaled score  | b's shape matches  |
/// | `combine_masks(a, b)`             | both a and b allow it; biases add          | both               |

#include <cstddef>
#include <limits>
#include <type_traits>

#include "ctattn/attention/rules.hpp"
#include "ctattn/detail/config.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/shape/dimension.hpp"

namespace ctattn {

/// The keys a query visits: [begin, end).
struct key_range {
  std::size_t begin;
  std::size_t end;
};

/// What the attention kernels accept as a mask (see the table in this header).
template <typename M>
concept AttentionMask = requires(const M& mask, std::size_t i) {
  { mask.keys(i, i, i) } -> std::same_as<key_range>;
  { M::checks_each_key } -> std::convertible_to<bool>;
  { M::adds_bias } -> std::convertible_to<bool>;
};

/// Every query sees every key.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::no_mask)`.
struct no_mask_type {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    return {0, n_kv};
  }
  friend constexpr bool operator==(const no_mask_type&, const no_mask_type&) = default;
};
inline constexpr no_mask_type no_mask{};

/// The causal mask M of the reference text (-inf above the diagonal): query i sees keys j <= i. For n_q != n_kv
/// it stays aligned to the top left, as PyTorch's `is_causal=True`: query i sees the first i + 1 keys.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal)`.
struct causal_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t, std::size_t n_kv) const noexcept {
    return {0, i + 1 < n_kv ? i + 1 : n_kv};
  }
  friend constexpr bool operator==(const causal_mask&, const causal_mask&) = default;
};
inline constexpr causal_mask causal{};

/// The causal mask aligned to the bottom right: query i sees keys j <= i + n_kv - n_q, so the last query sees
/// every key (decoding n_q new tokens after n_kv - n_q cached ones). Equal to `causal` when n_q = n_kv.
/// Queries with i + n_kv < n_q see no key and get zeros.
/// Example: `ctattn::scaled_dot_product_attention(new_q, cached_k, cached_v, ctattn::causal_bottom_right)`.
struct causal_bottom_right_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t n_q, std::size_t n_kv) const noexcept {
    const std::size_t end = i + 1 + n_kv;  // i + 1 + n_kv - n_q, kept unsigned
    return {0, end <= n_q ? 0 : (end - n_q < n_kv ? end - n_q : n_kv)};
  }
  friend constexpr bool operator==(const causal_bottom_right_mask&, const causal_bottom_right_mask&) = default;
};
inline constexpr causal_bottom_right_mask causal_bottom_right{};

/// Key padding by length, known at run time: every query sees keys j < valid_keys. Precondition:
/// valid_keys <= n_kv. A length of 0 gives zero outputs.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::key_padding_length{received})`.
struct key_padding_length {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  std::size_t valid_keys;
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    detail::expects(valid_keys <= n_kv);
    return {0, valid_keys < n_kv ? valid_keys : n_kv};
  }
};

/// Key padding by flags, one per key: every query sees the keys whose flag is true. `N` is the number of keys
/// (a plain size or a named extent), checked against the keys at compile time; the flags may change at run
/// time.
/// Example: `ctattn::key_padding_flags<7> pad{{true, true, true, true, true, false, false}};`
template <auto N>
struct basic_key_padding_flags {
  static constexpr bool checks_each_key = true;
  static constexpr bool adds_bias = false;
  static constexpr auto column_extent = normalize_extent<N>;
  bool valid[extent_size(column_extent)];
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    return {0, n_kv};
  }
  [[nodiscard]] constexpr bool allowed(std::size_t, std::size_t j) const noexcept { return valid[j]; }
};

/// `key_padding_flags<N>`: N normalized (one shape, one type).
template <auto N>
using key_padding_flags = basic_key_padding_flags<normalize_extent<N>>;

/// Restricted attention (the reference text's window of radius r): query i sees keys with |i - j| <= r. The
/// kernel visits only those 2r + 1 keys, so the work is O(r N), not O(N^2). Needs n_q = n_kv.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::sliding_window<2>)`.
template <std::size_t Radius>
struct sliding_window_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  static constexpr bool needs_square_scores = true;
  static constexpr std::size_t radius = Radius;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t, std::size_t n_kv) const noexcept {
    const std::size_t end = i + Radius + 1;
    return {i > Radius ? i - Radius : 0, end < n_kv ? end : n_kv};
  }
};
template <std::size_t Radius>
inline constexpr sliding_window_mask<Radius> sliding_window{};

/// A causal window: query i sees keys i - r <= j <= i (local attention for streaming). O(r N) work;
/// needs n_q = n_kv.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal_sliding_window<16>)`.
template <std::size_t Radius>
struct causal_sliding_window_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  static constexpr bool needs_square_scores = true;
  static constexpr std::size_t radius = Radius;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t, std::size_t n_kv) const noexcept {
    return {i > Radius ? i - Radius : 0, i + 1 < n_kv ? i + 1 : n_kv};
  }
};
template <std::size_t Radius>
inline constexpr causal_sliding_window_mask<Radius> causal_sliding_window{};

/// An arbitrary boolean mask, n_q x n_kv: query i sees key j when `allowed[i][j]`. Usable as a constexpr
/// table; its shape (sizes and names) is checked against the scores.
/// Example: `constexpr ctattn::boolean_mask<2, 3> m{{{true, false, true}, {false, true, true}}};`
template <auto NQ, auto NKV>
struct basic_boolean_mask {
  static constexpr bool checks_each_key = true;
  static constexpr bool adds_bias = false;
  static constexpr auto row_extent = normalize_extent<NQ>;
  static constexpr auto column_extent = normalize_extent<NKV>;
  bool allowed_keys[extent_size(row_extent)][extent_size(column_extent)];
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    return {0, n_kv};
  }
  [[nodiscard]] constexpr bool allowed(std::size_t i, std::size_t j) const noexcept { return allowed_keys[i][j]; }
};

/// `boolean_mask<NQ, NKV>`: extents normalized (one shape, one type).
template <auto NQ, auto NKV>
using boolean_mask = basic_boolean_mask<normalize_extent<NQ>, normalize_extent<NKV>>;

/// An additive mask: `bias(i, j)` is added to the scaled score of query i and key j before the softmax
/// (ALiBi, relative-position biases, or -inf entries as a float mask). Its shape is checked against the scores,
/// and its element type must be the attention's.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::additive_bias(alibi))`.
template <typename T, auto NQ, auto NKV>
struct additive_bias_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = true;
  static constexpr auto row_extent = NQ;
  static constexpr auto column_extent = NKV;
  using value_type = T;
  basic_matrix<T, NQ, NKV> values;
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    return {0, n_kv};
  }
  template <typename U = T>
  [[nodiscard]] constexpr U bias(std::size_t i, std::size_t j) const noexcept {
    return values.elements[i][j];
  }
};

/// Wraps a bias matrix (n_q x n_kv) as a mask. Example: `ctattn::additive_bias(bias_matrix)`.
template <typename T, auto NQ, auto NKV>
[[nodiscard]] constexpr additive_bias_mask<T, NQ, NKV> additive_bias(const basic_matrix<T, NQ, NKV>& b) noexcept {
  return {b};
}

/// Two masks at once: a key is visible when both allow it, and their biases add.
/// Example: `ctattn::combine_masks(ctattn::causal, ctattn::key_padding_length{5})`.
template <AttentionMask A, AttentionMask B>
struct combined_mask {
  using first_mask = A;
  using second_mask = B;
  static constexpr bool checks_each_key = A::checks_each_key || B::checks_each_key;
  static constexpr bool adds_bias = A::adds_bias || B::adds_bias;
  A first;
  B second;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t n_q, std::size_t n_kv) const noexcept {
    const key_range a = first.keys(i, n_q, n_kv);
    const key_range b = second.keys(i, n_q, n_kv);
    const std::size_t begin = a.begin > b.begin ? a.begin : b.begin;
    const std::size_t end = a.end < b.end ? a.end : b.end;
    return {begin, end > begin ? end : begin};
  }
  [[nodiscard]] constexpr bool allowed(std::size_t i, std::size_t j) const noexcept {
    bool result = true;
    if constexpr (A::checks_each_key) result = result && first.allowed(i, j);
    if constexpr (B::checks_each_key) result = result && second.allowed(i, j);
    return result;
  }
  template <typename T>
  [[nodiscard]] constexpr T bias(std::size_t i, std::size_t j) const noexcept {
    T result{0};
    if constexpr (A::adds_bias) result += first.bias(i, j);
    if constexpr (B::adds_bias) result += second.bias(i, j);
    return result;
  }
};

/// Combines two masks (see `combined_mask`).
template <AttentionMask A, AttentionMask B>
[[nodiscard]] constexpr combined_mask<A, B> combine_masks(const A& a, const B& b) noexcept {
  return {a, b};
}

/// A mask as the reference text writes it: the n_q x n_kv matrix M added to the scaled scores, 0 where query i
/// sees key j and -inf where it does not, plus the mask's bias where it has one. Attention with `mask` equals
/// softmax(Q K^T / sqrt(d_k) + M) V; the kernels never build M (a sliding window visits only its keys).
///
/// | operand | shape        |
/// |---------|--------------|
/// | `mask`  | any mask     |
/// | result  | NQ x NKV     |
///
/// Rule: a mask with a shape must fit NQ x NKV (as in attention).
///
/// Example:
/// \code
///   constexpr auto m = ctattn::mask_matrix<float, 4, 4>(ctattn::causal);   // -inf above the diagonal
/// \endcode
template <typename T, auto NQ, auto NKV, AttentionMask Mask>
[[nodiscard]] constexpr auto mask_matrix(const Mask& mask) noexcept {
  using result_type = basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>>;
  constexpr std::size_t n_q = result_type::rows;
  constexpr std::size_t n_kv = result_type::cols;
  result_type m{};
  if constexpr (!detail::first_broken<
                    detail::mask_rules<op::mask, T, normalize_extent<NQ>, normalize_extent<NKV>, Mask>>::check()) {
    return m;
  }
  for (std::size_t i = 0; i < n_q; ++i) {
    const key_range range = mask.keys(i, n_q, n_kv);
    for (std::size_t j = 0; j < n_kv; ++j) {
      bool visible = j >= range.begin && j < range.end;
      if constexpr (Mask::checks_each_key) {
        if (visible) visible = mask.allowed(i, j);
      }
      if (!visible) {
        m.elements[i][j] = -std::numeric_limits<T>::infinity();
      } else if constexpr (Mask::adds_bias) {
        m.elements[i][j] = mask.template bias<T>(i, j);
      }
    }
  }
  return m;
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_MASK_HPP

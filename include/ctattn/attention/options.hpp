// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_OPTIONS_HPP
#define CTATTN_ATTENTION_OPTIONS_HPP

/// \file
/// The options of an attention call, after its operands and in any order: at most one mask, at most one result
/// form and at most one arithmetic. One function per operation; the form of its result, and how it computes,
/// are arguments, not other functions.
///
/// | option                              | the call                                                          |
/// |-------------------------------------|-------------------------------------------------------------------|
/// | (none)                              | returns the output                                                |
/// | `ctattn::causal`, any mask          | applies the mask (default: none)                                  |
/// | `ctattn::with_weights`              | returns the output with the attention weights (`.output`, `.weights`) |
/// | `ctattn::into(output)`              | writes the output into `output` and returns nothing               |
/// | `ctattn::into(output, workspace)`   | the same, with the intermediates (Q, K, V, ...) in `workspace`    |
/// | `ctattn::exact_arithmetic`          | at run time, static_assert's bits (the scalar kernels)            |
/// | `ctattn::fast_arithmetic`           | at run time, the SIMD backend where there is one (float)          |
///
/// Without an arithmetic option a call computes with `ctattn::default_arithmetic` (ctattn/kernels/backend.hpp):
/// fast, unless the build defines `CTATTN_EXACT_ARITHMETIC=1`. Constant evaluation is always exact.
///
/// Example:
/// \code
///   auto context = ctattn::self_attention(x, head, ctattn::causal);
///   auto [context_again, weights] = ctattn::self_attention(x, head, ctattn::causal, ctattn::with_weights);
///   ctattn::self_attention(x, head, ctattn::causal, ctattn::into(context_storage, workspace));   // firmware
/// \endcode

#include <cstddef>
#include <type_traits>

#include "ctattn/attention/mask.hpp"
#include "ctattn/kernels/backend.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/shape/rule.hpp"

namespace ctattn {

/// The result form that also returns the attention weights.
struct with_weights_t {};
/// `ctattn::with_weights`: see ctattn/attention/options.hpp.
inline constexpr with_weights_t with_weights{};

/// No workspace given to `into`.
struct no_workspace {};

/// The result form that writes into caller storage: made by `ctattn::into(output[, workspace])`.
template <typename Output, typename Workspace = no_workspace>
struct into_storage {
  Output* output;
  Workspace* workspace;
};

/// Writes the call's output into `output` (n_q x d_v, checked at compile time) instead of returning it.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::into(context));`
template <FixedMatrix Output>
[[nodiscard]] constexpr into_storage<Output> into(Output& output) noexcept {
  return {&output, nullptr};
}

/// Writes the call's output into `output` and its intermediates into `workspace` (for firmware: both in .bss).
/// Example: `ctattn::self_attention(x, head, ctattn::into(context, workspace));`
template <FixedMatrix Output, typename Workspace>
[[nodiscard]] constexpr into_storage<Output, Workspace> into(Output& output, Workspace& workspace) noexcept {
  return {&output, &workspace};
}

/// How a call computes at run time: `ctattn::exact_arithmetic` or `ctattn::fast_arithmetic`.
template <arithmetic A>
struct arithmetic_option {
  static constexpr arithmetic value = A;
};
/// Run-time results with static_assert's bits: the scalar kernels, every sum in order (the firmware guarantee).
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::exact_arithmetic)`.
inline constexpr arithmetic_option<arithmetic::exact> exact_arithmetic{};
/// The SIMD backend (float), within the bounds of docs/kernels.md of the exact result.
/// Example: `ctattn::multi_head_attention(x, x, x, w, ctattn::fast_arithmetic)`.
inline constexpr arithmetic_option<arithmetic::fast> fast_arithmetic{};

namespace detail {

template <typename T>
inline constexpr bool is_result_form = false;
template <>
inline constexpr bool is_result_form<with_weights_t> = true;
template <typename Output, typename Workspace>
inline constexpr bool is_result_form<into_storage<Output, Workspace>> = true;

template <typename T>
inline constexpr bool is_into = false;
template <typename Output, typename Workspace>
inline constexpr bool is_into<into_storage<Output, Workspace>> = true;

// The first option that satisfies Pick, or Default.
template <template <typename> class Pick, typename Default, typename... Options>
struct first_option {
  using type = Default;
};
template <template <typename> class Pick, typename Default, typename Option, typename... Options>
struct first_option<Pick, Default, Option, Options...>
    : std::conditional_t<Pick<Option>::value, std::type_identity<Option>, first_option<Pick, Default, Options...>> {};

template <typename T>
struct is_mask_option : std::bool_constant<AttentionMask<T>> {};
template <typename T>
struct is_result_option : std::bool_constant<is_result_form<T>> {};
template <typename T>
inline constexpr bool is_arithmetic_option = false;
template <arithmetic A>
inline constexpr bool is_arithmetic_option<arithmetic_option<A>> = true;
template <typename T>
struct is_arithmetic_choice : std::bool_constant<is_arithmetic_option<T>> {};

}  // namespace detail

namespace shape_error {

/// After its operands an attention call takes at most one mask, at most one result form and at most one
/// arithmetic, and nothing else.
template <typename Operation, typename... Options>
struct options_must_be_one_of_each_kind {
  static constexpr std::size_t masks = (std::size_t{0} + ... + (AttentionMask<Options> ? 1 : 0));
  static constexpr std::size_t forms = (std::size_t{0} + ... + (detail::is_result_form<Options> ? 1 : 0));
  static constexpr std::size_t arithmetics = (std::size_t{0} + ... + (detail::is_arithmetic_option<Options> ? 1 : 0));
  static constexpr bool holds =
      masks <= 1 && forms <= 1 && arithmetics <= 1 && masks + forms + arithmetics == sizeof...(Options);
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: after its operands an attention call takes at most one mask (ctattn::causal, ...), at most "
                  "one result form (ctattn::with_weights, or ctattn::into(output[, workspace])) and at most one "
                  "arithmetic (ctattn::exact_arithmetic or ctattn::fast_arithmetic), in any order");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

/// What the options of a call say: its mask type, its result form and its arithmetic.
template <typename... Options>
struct call_options {
  using mask_type = typename first_option<is_mask_option, no_mask_type, Options...>::type;
  using form_type = typename first_option<is_result_option, void, Options...>::type;
  static constexpr arithmetic arithmetic_kind =
      first_option<is_arithmetic_choice, arithmetic_option<default_arithmetic>, Options...>::type::value;
  static constexpr bool returns_weights = std::is_same_v<form_type, with_weights_t>;
  static constexpr bool writes_into = is_into<form_type>;
};

/// The first option whose type satisfies Pick (`Pick<T>::value`; one must be there).
template <template <typename> class Pick, typename First, typename... Rest>
constexpr const auto& find_first(const First& first, const Rest&... rest) noexcept {
  if constexpr (Pick<First>::value) {
    return first;
  } else {
    return find_first<Pick>(rest...);
  }
}

template <typename T>
struct is_option_of_type {
  template <typename U>
  using pick = std::is_same<U, T>;
};

/// The first option of type T (one must be there).
template <typename T, typename... Options>
constexpr const T& find_option(const Options&... options) noexcept {
  return find_first<is_option_of_type<T>::template pick>(options...);
}

/// The mask among the options (`no_mask` when none is given).
template <typename... Options>
constexpr const auto& mask_of(const Options&... options) noexcept {
  if constexpr ((AttentionMask<Options> || ...)) {
    return find_option<typename call_options<Options...>::mask_type>(options...);
  } else {
    return no_mask;
  }
}

}  // namespace detail
}  // namespace ctattn

#endif  // CTATTN_ATTENTION_OPTIONS_HPP

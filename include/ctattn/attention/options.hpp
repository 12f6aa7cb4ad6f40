#ifndef CTATTN_ATTENTION_OPTIONS_HPP
#define CTATTN_ATTENTION_OPTIONS_HPP

/// \file
/// The options of an attention call, after its operands and in any order: at most one mask, and at most one
/// result form. One function per operation; the form of its result is an argument, not another function.
///
/// | option                              | the call                                                          |
/// |-------------------------------------|-------------------------------------------------------------------|
/// | (none)                              | returns the output                                                |
/// | `ctattn::causal`, any mask          | applies the mask (default: none)                                  |
/// | `ctattn::with_weights`              | returns the output with the attention weights (`.output`, `.weights`) |
/// | `ctattn::into(output)`              | writes the output into `output` and returns nothing               |
/// | `ctattn::into(output, workspace)`   | the same, with the intermediates (Q, K, V, ...) in `workspace`    |
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

}  // namespace detail

namespace shape_error {

/// After its operands an attention call takes at most one mask and at most one result form, and nothing else.
template <typename Operation, typename... Options>
struct options_must_be_one_mask_and_one_result_form {
  static constexpr std::size_t masks = (std::size_t{0} + ... + (AttentionMask<Options> ? 1 : 0));
  static constexpr std::size_t forms = (std::size_t{0} + ... + (detail::is_result_form<Options> ? 1 : 0));
  static constexpr bool holds = masks <= 1 && forms <= 1 && masks + forms == sizeof...(Options);
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: after its operands an attention call takes at most one mask (ctattn::causal, ...) and at "
                  "most one result form (ctattn::with_weights, or ctattn::into(output[, workspace])), in any order");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

/// What the options of a call say: its mask type and its result form.
template <typename... Options>
struct call_options {
  using mask_type = typename first_option<is_mask_option, no_mask_type, Options...>::type;
  using form_type = typename first_option<is_result_option, void, Options...>::type;
  static constexpr bool returns_weights = std::is_same_v<form_type, with_weights_t>;
  static constexpr bool writes_into = is_into<form_type>;
};

/// The first option of type T (one must be there).
template <typename T, typename First, typename... Rest>
constexpr const T& find_option(const First& first, const Rest&... rest) noexcept {
  if constexpr (std::is_same_v<First, T>) {
    return first;
  } else {
    return find_option<T>(rest...);
  }
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

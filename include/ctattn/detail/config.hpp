// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_DETAIL_CONFIG_HPP
#define CTATTN_DETAIL_CONFIG_HPP

/// \file
/// Preconditions that cannot be checked from types alone (run-time indices, lengths).
///
/// In constant evaluation a broken precondition is a compile error that names `precondition_failed`. At run
/// time it traps when `CTATTN_CHECK_PRECONDITIONS` is 1 (the default unless `NDEBUG` is defined) and is not
/// checked otherwise. No exception, no message, no iostream: fit for firmware.

#ifndef CTATTN_CHECK_PRECONDITIONS
#ifdef NDEBUG
#define CTATTN_CHECK_PRECONDITIONS 0
#else
#define CTATTN_CHECK_PRECONDITIONS 1
#endif
#endif

/// Marks the few small functions that run once per element in the int8 kernels (the fixed-point requantization):
/// inlined even where the compiler optimizes for size (-Os outlines them, and the call then costs as much as the
/// function). Empty for a compiler without the attribute.
#if defined(__GNUC__) || defined(__clang__)
#define CTATTN_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define CTATTN_ALWAYS_INLINE inline
#endif

namespace ctattn::detail {

// Not constexpr on purpose: reaching it during constant evaluation makes the expression non-constant, and the
// compiler's note names this function.
inline void precondition_failed() noexcept {
#if CTATTN_CHECK_PRECONDITIONS
  __builtin_trap();
#endif
}

constexpr void expects(bool condition) noexcept {
  if (!condition) precondition_failed();
}

}  // namespace ctattn::detail

#endif  // CTATTN_DETAIL_CONFIG_HPP

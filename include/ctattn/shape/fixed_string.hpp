// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_SHAPE_FIXED_STRING_HPP
#define CTATTN_SHAPE_FIXED_STRING_HPP

#include <cstddef>
#include <string_view>

namespace ctattn {

/// A string literal usable as a template argument: the name of a dimension.
///
/// | member   | meaning                                 |
/// |----------|-----------------------------------------|
/// | `length` | characters, without the terminating NUL |
/// | `view()` | the characters as a `std::string_view`  |
///
/// Example:
/// \code
///   static_assert(ctattn::fixed_string{"d_model"}.view() == "d_model");
/// \endcode
template <std::size_t N>
struct fixed_string {
  static_assert(N >= 1, "ctattn::fixed_string holds a NUL-terminated literal");
  static constexpr std::size_t length = N - 1;

  char chars[N]{};

  // Rationale: implicit, so that `dimension<"seq">` accepts a plain literal.
  constexpr fixed_string(const char (&literal)[N]) noexcept {  // NOLINT(google-explicit-constructor)
    for (std::size_t i = 0; i < N; ++i) chars[i] = literal[i];
  }

  /// An empty string of N - 1 characters to fill in (building derived names at compile time).
  constexpr fixed_string() noexcept = default;

  [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars, length}; }

  template <std::size_t M>
  [[nodiscard]] constexpr bool operator==(const fixed_string<M>& other) const noexcept {
    return view() == other.view();
  }
};

}  // namespace ctattn

#endif  // CTATTN_SHAPE_FIXED_STRING_HPP

// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_DETAIL_CACHE_ROWS_HPP
#define CTATTN_DETAIL_CACHE_ROWS_HPP

/// \file
/// What the float and the int8 key/value caches share (`ctattn::kv_cache`, ctattn/attention/kv_cache.hpp;
/// `ctattn::qkv_cache`, ctattn/quantized/kv_cache.hpp): their rows, how many are held, and appending one token.
// Rationale: a header of its own, with nothing but the standard library, so that the int8 cache does not include
// the float attention tier (the reason of detail/footprint_type.hpp too).

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace ctattn::detail {

// Keys and Values: Capacity-row matrices (basic_matrix or basic_qmatrix); KeyRow and ValueRow: one row of each.
template <typename Keys, typename Values, typename KeyRow, typename ValueRow>
struct cache_rows {
  Keys keys{};
  Values values{};
  std::size_t length = 0;

  /// Whether another token fits.
  [[nodiscard]] constexpr bool full() const noexcept { return length >= Keys::rows; }

  /// Appends one token's key and value at position `length`; false, with nothing changed, when the cache is full.
  [[nodiscard]] constexpr bool append(const KeyRow& key, const ValueRow& value) noexcept {
    if (full()) return false;
    copy_row(keys.elements[length], key.elements[0]);
    copy_row(values.elements[length], value.elements[0]);
    ++length;
    return true;
  }

  /// to = from, one row of N elements.
  // Rationale: at run time one memcpy of the row (word by word), not a loop over its elements, which reloaded
  // `length` after every int8 store (a char store may change any object): 6 instructions a byte, 2,000 a token of
  // the stories260K-shaped model in int8 on the M55, against about 30 a row.
  template <typename E, std::size_t N>
  static constexpr void copy_row(E (&to)[N], const E (&from)[N]) noexcept {
    if constexpr (std::is_trivially_copyable_v<E>) {
      if (!std::is_constant_evaluated()) {
        std::memcpy(to, from, sizeof(from));
        return;
      }
    }
    for (std::size_t j = 0; j < N; ++j) to[j] = from[j];
  }

  /// Forgets every token (the next one is at position 0).
  constexpr void clear() noexcept { length = 0; }

  friend constexpr bool operator==(const cache_rows&, const cache_rows&) = default;
};

}  // namespace ctattn::detail

#endif  // CTATTN_DETAIL_CACHE_ROWS_HPP

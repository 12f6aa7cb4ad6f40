// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_DETAIL_CACHE_ROWS_HPP
#define CTATTN_DETAIL_CACHE_ROWS_HPP

/// \file
/// What the float and the int8 key/value caches share (`ctattn::kv_cache`, ctattn/attention/kv_cache.hpp;
/// `ctattn::qkv_cache`, ctattn/quantized/kv_cache.hpp): their rows, how many are held, and appending one token.
// Rationale: a header of its own, with nothing but the standard library, so that the int8 cache does not include
// the float attention tier (the reason of detail/footprint_type.hpp too).

#include <cstddef>

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
    for (std::size_t j = 0; j < KeyRow::cols; ++j) keys.elements[length][j] = key.elements[0][j];
    for (std::size_t j = 0; j < ValueRow::cols; ++j) values.elements[length][j] = value.elements[0][j];
    ++length;
    return true;
  }

  /// Forgets every token (the next one is at position 0).
  constexpr void clear() noexcept { length = 0; }

  friend constexpr bool operator==(const cache_rows&, const cache_rows&) = default;
};

}  // namespace ctattn::detail

#endif  // CTATTN_DETAIL_CACHE_ROWS_HPP

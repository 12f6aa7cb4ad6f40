// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_POSITION_RULES_HPP
#define CTATTN_POSITION_RULES_HPP

/// \file
/// The position tier's shape rules and operation tags (see ctattn/shape/rule.hpp). The matrix tier's rules
/// (ctattn/matrix/rules.hpp) apply here too.
///
/// | rule                              | arguments after the operation          |
/// |-----------------------------------|----------------------------------------|
/// | `dimension_must_be_even`          | the width                              |
/// | `sequence_must_fit_position_table`| the sequence's length, the table's     |
/// | `base_must_be_larger_than_one`    | `count<base>`                          |
/// | `token_ids_must_be_integers`      | the id type                            |

#include <cstddef>
#include <type_traits>

#include "ctattn/matrix/rules.hpp"
#include "ctattn/shape/rule.hpp"

namespace ctattn {

namespace op {
struct sinusoidal_encoding {};
struct token_embedding {};
struct position_embedding {};
struct rotary_embedding {};
struct alibi {};
}  // namespace op

namespace shape_error {

/// Sines and cosines fill the columns in pairs (sinusoidal encoding, rotary embedding): the width is even.
template <typename Operation, typename Dimension>
struct dimension_must_be_even {
  static constexpr bool holds = Dimension::size % 2 == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: sines and cosines fill the columns in pairs, so the width must be even; use an even "
                  "model (or head) width");
    return holds;
  }
};

/// A position table has one row per position: the sequence is not longer than the table.
template <typename Operation, typename SequenceLength, typename TableLength>
struct sequence_must_fit_position_table {
  static constexpr bool holds = SequenceLength::size <= TableLength::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the sequence has more positions than the position table; build the table with at least "
                  "as many positions (learned embeddings cannot go past the longest sequence they were trained for)");
    return holds;
  }
};

/// The frequencies of sinusoidal and rotary encodings are powers of the base: it must be larger than 1.
template <typename Operation, typename Base>
struct base_must_be_larger_than_one {
  static constexpr bool holds = Base::value > 1;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the base of the frequencies must be larger than 1 (10000 in the reference text); pass a "
                  "larger base");
    return holds;
  }
};

/// Token ids index the rows of an embedding table: they are integers (not `bool`).
template <typename Operation, typename Id>
struct token_ids_must_be_integers {
  static constexpr bool holds = std::is_integral_v<Id> && !std::is_same_v<Id, bool>;
  static constexpr bool check() noexcept {
    static_assert(holds, "ctattn: token ids index the embedding table's rows, so they must be integers");
    return holds;
  }
};

}  // namespace shape_error
}  // namespace ctattn

#endif  // CTATTN_POSITION_RULES_HPP

// The names the doc examples of ctattn/position/embedding.hpp use without defining them: the worked example's
// embedding table (its 6 words, width d_model{16}); GPT-2's token and position tables (50257 and 1024 rows of
// width 768) and the ids of 6 tokens.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <array>
#include <cstddef>

inline constexpr auto embedding_table =
    ctattn::from_array<6, d_model{16}>(ctattn_fixtures::worked_example::embedding_table);

// Rationale: const, not constexpr: 150 MB of zeros are storage for the examples to name, not values for the
// compiler to hold.
inline const ctattn::matrix<float, 50257, 768> wte{};
inline const ctattn::matrix<float, 1024, 768> wpe{};
inline constexpr std::array<std::size_t, 6> ids{0, 4, 5, 2, 1, 3};

// The reference text's 7-token, d_model = 512, 8-head example with W_O, its inputs and weights regenerated from
// the fixture's documented generator (tests/fixtures/attention/mha_7x512x8.hpp): one LCG stream, X (scale 2),
// then W_Q, W_K, W_V, W_O (scale 1/4), each row-major, used as Q = X W_Q (in x out).
#ifndef CTATTN_TESTS_SUPPORT_MHA_7X512X8_HPP
#define CTATTN_TESTS_SUPPORT_MHA_7X512X8_HPP

#include "fixtures/attention/mha_7x512x8.hpp"
#include "support/test_data.hpp"

#include <ctattn/attention/multi_head.hpp>

#include <cstddef>
#include <cstdint>

namespace ctattn_test::mha_7x512x8 {

namespace fx = ctattn_fixtures::mha_7x512x8;

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};

using input_type = ctattn::matrix<float, seq{7}, d_model{512}>;
using weights_type = ctattn::multi_head_attention_weights<float, 8, d_model{512}>;

// Rationale: the LCG step is written out here rather than calling lcg::next(): this runs a million times inside
// the constant evaluator, where a call per value costs more than the arithmetic.
template <typename M>
constexpr void fill(M& m, lcg& g, float scale) {
  std::uint32_t state = g.state;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      state = state * 1664525u + 1013904223u;
      m.elements[i][j] = (static_cast<float>(state >> 8) * 0x1p-24f - 0.5f) * scale;
    }
  }
  g.state = state;
}

/// X and the four weight matrices, drawn from one stream in the fixture's order.
struct model {
  input_type x;
  weights_type weights;
};

constexpr void generate(model& m) {
  lcg g{fx::seed};
  fill(m.x, g, fx::scale_x);
  fill(m.weights.query.weight, g, fx::scale_w);
  fill(m.weights.key.weight, g, fx::scale_w);
  fill(m.weights.value.weight, g, fx::scale_w);
  fill(m.weights.output.weight, g, fx::scale_w);
}

}  // namespace ctattn_test::mha_7x512x8

#endif  // CTATTN_TESTS_SUPPORT_MHA_7X512X8_HPP

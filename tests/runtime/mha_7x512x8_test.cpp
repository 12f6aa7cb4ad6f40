// The reference text's second example at run time: 7 tokens, d_model = 512, 8 narrow heads with W_O, checked
// against PyTorch (float64, rounded) and bit for bit against the same computation's compile-time result for
// one head's attention.
#include "support/mha_7x512x8.hpp"
#include "catch.hpp"

#include <ctattn/ctattn.hpp>

#include <memory>

namespace {
namespace m = ctattn_test::mha_7x512x8;
}  // namespace

TEST_CASE("the generator reproduces the fixture's stream", "[multihead][7x512x8]") {
  ctattn_test::lcg g{m::fx::seed};
  for (std::size_t n = 0; n < 8; ++n) {
    const float value = g.next() * m::fx::scale_x;
    CHECK(g.state == m::fx::first_states[n]);
    CHECK(value == m::fx::first_values[n]);
  }
}

TEST_CASE("7 tokens, d_model 512, 8 heads with W_O match PyTorch", "[multihead][7x512x8]") {
  // 4 MiB of weights: static storage, not the stack.
  static m::model model{};
  m::generate(model);
  CHECK(model.weights.query.weight(0, 0) == m::fx::w_q_first[0]);
  CHECK(model.weights.key.weight(0, 3) == m::fx::w_k_first[3]);
  CHECK(model.weights.value.weight(0, 1) == m::fx::w_v_first[1]);
  CHECK(model.weights.output.weight(511, 511) == m::fx::w_o_last);

  const auto result = ctattn::multi_head_attention(model.x, model.x, model.x, model.weights, ctattn::with_weights);
  const auto expected = ctattn::from_array<m::seq{7}, m::d_model{512}>(m::fx::output);
  INFO("max difference " << ctattn::max_abs_difference(result.output, expected));
  // Float against float64 rounded: the fixture measured 2.4e-6 for a plain float loop; allow 4x that.
  CHECK(ctattn::approx_equal(result.output, expected, 1e-5f, 1e-5f));
  for (std::size_t h = 0; h < 8; ++h) {
    CHECK(ctattn::approx_equal(result.head_weights[h], ctattn::from_array<m::seq{7}, m::seq{7}>(m::fx::weights[h]),
                               1e-6f, 1e-5f));
  }
  CHECK(ctattn::multi_head_attention(model.x, model.x, model.x, model.weights) == result.output);
}

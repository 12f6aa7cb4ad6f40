// The reference text's worked example, evaluated entirely by the compiler: the published figures and the full
// PyTorch results hold in static_assert.
#include "support/worked_example.hpp"

#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/multiply.hpp>
#include <ctattn/matrix/transpose.hpp>

#include <type_traits>

namespace {

using namespace ctattn_test::worked;

constexpr auto q = ctattn::project(x, head.query);
constexpr auto k = ctattn::project(x, head.key);
constexpr auto v = ctattn::project(x, head.value);
constexpr auto scores = q * ctattn::transpose(k);
constexpr auto result = ctattn::self_attention(x, head, ctattn::with_weights);

// Named dimensions flow through: Q is seq x d_k, the scores seq x seq, the context seq x d_v.
static_assert(std::is_same_v<std::remove_cv_t<decltype(q)>, ctattn::matrix<float, seq{6}, d_k{24}>>);
static_assert(std::is_same_v<std::remove_cv_t<decltype(scores)>, ctattn::matrix<float, seq{6}, seq{6}>>);
static_assert(std::is_same_v<std::remove_cv_t<decltype(result.output)>, ctattn::matrix<float, seq{6}, d_v{28}>>);

constexpr float distance(float a, float b) { return a > b ? a - b : b - a; }

// The published figures (4 decimals): query 2 is row 1, key 5 is column 4.
constexpr std::size_t query = fx::published_query_index;
static_assert(query == 1 && fx::published_key_index == 4);
static_assert(distance(scores(query, fx::published_key_index), fx::published_score) < fx::published_tolerance);
constexpr bool published_rows_hold() {
  for (std::size_t j = 0; j < 6; ++j) {
    if (distance(scores(query, j), fx::published_scores_row[j]) >= fx::published_tolerance) return false;
    if (distance(result.weights(query, j), fx::published_weights_row[j]) >= fx::published_tolerance) return false;
  }
  for (std::size_t c = 0; c < 28; ++c) {
    if (distance(result.output(query, c), fx::published_context_row[c]) >= fx::published_tolerance) return false;
  }
  return true;
}
static_assert(published_rows_hold());

// The whole of PyTorch's results, within float32 summation-order differences.
static_assert(ctattn::approx_equal(q, ctattn::from_array<seq{6}, d_k{24}>(fx::q), 1e-5f, 2e-6f));
static_assert(ctattn::approx_equal(k, ctattn::from_array<seq{6}, d_k{24}>(fx::k), 1e-5f, 2e-6f));
static_assert(ctattn::approx_equal(v, ctattn::from_array<seq{6}, d_v{28}>(fx::v), 1e-5f, 2e-6f));
static_assert(ctattn::approx_equal(scores, ctattn::from_array<seq{6}, seq{6}>(fx::scores), 1e-4f, 2e-6f));
static_assert(ctattn::approx_equal(result.weights, ctattn::from_array<seq{6}, seq{6}>(fx::weights), 1e-6f, 1e-5f));
static_assert(ctattn::approx_equal(result.output, ctattn::from_array<seq{6}, d_v{28}>(fx::context), 1e-5f, 1e-5f));

}  // namespace

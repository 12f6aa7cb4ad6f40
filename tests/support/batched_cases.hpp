// The reference text's attention over a batch with heads (B x h x n x d), as ctattn batches built from the PyTorch
// fixture, and one checker usable in static_assert and at run time.
#ifndef CTATTN_TESTS_SUPPORT_BATCHED_CASES_HPP
#define CTATTN_TESTS_SUPPORT_BATCHED_CASES_HPP

#include "fixtures/attention/batched.hpp"
#include "support/attention_check.hpp"

#include <ctattn/attention/mask.hpp>
#include <ctattn/attention/scaled_dot_product.hpp>
#include <ctattn/matrix/batch.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/elementwise.hpp>
#include <ctattn/matrix/from_array.hpp>

#include <cstddef>

namespace ctattn_test::batched {

namespace fx = ctattn_fixtures::batched;

struct batch_axis : ctattn::dimension<"batch"> {};
struct heads : ctattn::dimension<"heads"> {};
struct seq : ctattn::dimension<"seq"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

// B x h x n x d: a batch (axis batch) of batches (axis heads) of n x d matrices.
template <typename T, auto Width>
using tensor =
    ctattn::batch<ctattn::batch<ctattn::matrix<T, seq{fx::n}, Width>, heads{fx::heads}>, batch_axis{fx::batch}>;

template <typename T, auto Width, std::size_t D, typename U>
constexpr tensor<T, Width> to_tensor(const U (&data)[fx::batch][fx::heads][fx::n][D]) {
  tensor<T, Width> result{};
  for (std::size_t b = 0; b < fx::batch; ++b) {
    for (std::size_t h = 0; h < fx::heads; ++h) {
      result[b][h] = ctattn::cast<T>(ctattn::from_array<seq{fx::n}, Width>(data[b][h]));
    }
  }
  return result;
}

// Attention with a mask, as a function object for batch_map.
template <typename Mask>
struct attend_with {
  Mask mask;
  template <typename Q, typename K, typename V>
  constexpr auto operator()(const Q& queries, const K& keys, const V& values) const {
    return ctattn::scaled_dot_product_attention(queries, keys, values, mask);
  }
};

// Whether every (batch, head) item of `computed` matches `expected` within the tolerances.
template <typename Computed, typename T>
constexpr bool all_match(const Computed& computed, const T (&expected)[fx::batch][fx::heads][fx::n][fx::d_v],
                         T absolute, T relative) {
  const auto reference = to_tensor<T, d_v{fx::d_v}>(expected);
  for (std::size_t b = 0; b < fx::batch; ++b) {
    for (std::size_t h = 0; h < fx::heads; ++h) {
      if (!ctattn::approx_equal(computed[b][h], reference[b][h], absolute, relative)) return false;
    }
  }
  return true;
}

struct batched_check {
  bool float_output;
  bool double_output;
  bool float_causal;
  bool double_causal;
  bool items_are_two_dimensional_attention;  // batch_map gives each pair's own 2-D attention, bit for bit
  [[nodiscard]] constexpr bool all() const {
    return float_output && double_output && float_causal && double_causal && items_are_two_dimensional_attention;
  }
};

template <typename T>
constexpr auto run(attend_with<ctattn::no_mask_type> f) {
  return ctattn::batch_map(f, to_tensor<T, d_k{fx::d_k}>(fx::q), to_tensor<T, d_k{fx::d_k}>(fx::k),
                           to_tensor<T, d_v{fx::d_v}>(fx::v));
}
template <typename T>
constexpr auto run(attend_with<ctattn::causal_mask> f) {
  return ctattn::batch_map(f, to_tensor<T, d_k{fx::d_k}>(fx::q), to_tensor<T, d_k{fx::d_k}>(fx::k),
                           to_tensor<T, d_v{fx::d_v}>(fx::v));
}

constexpr batched_check check() {
  batched_check c{};
  const auto out = run<float>(attend_with<ctattn::no_mask_type>{});
  const auto out_double = run<double>(attend_with<ctattn::no_mask_type>{});
  const auto causal = run<float>(attend_with<ctattn::causal_mask>{});
  const auto causal_double = run<double>(attend_with<ctattn::causal_mask>{});
  c.float_output = all_match(out, fx::output, float_absolute, float_relative);
  c.double_output = all_match(out_double, fx::output_f64, double_absolute, double_relative);
  c.float_causal = all_match(causal, fx::output_causal, float_absolute, float_relative);
  c.double_causal = all_match(causal_double, fx::output_causal_f64, double_absolute, double_relative);
  const auto q = to_tensor<float, d_k{fx::d_k}>(fx::q);
  const auto k = to_tensor<float, d_k{fx::d_k}>(fx::k);
  const auto v = to_tensor<float, d_v{fx::d_v}>(fx::v);
  c.items_are_two_dimensional_attention = true;
  for (std::size_t b = 0; b < fx::batch; ++b) {
    for (std::size_t h = 0; h < fx::heads; ++h) {
      c.items_are_two_dimensional_attention =
          c.items_are_two_dimensional_attention &&
          causal[b][h] == ctattn::scaled_dot_product_attention(q[b][h], k[b][h], v[b][h], ctattn::causal);
    }
  }
  return c;
}

}  // namespace ctattn_test::batched

#endif  // CTATTN_TESTS_SUPPORT_BATCHED_CASES_HPP

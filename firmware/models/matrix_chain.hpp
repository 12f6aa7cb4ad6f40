#ifndef CTATTN_FIRMWARE_MODELS_MATRIX_CHAIN_HPP
#define CTATTN_FIRMWARE_MODELS_MATRIX_CHAIN_HPP

/// \file
/// The firmware check's model until the attention worked example lands: the first half of one attention
/// head on the worked example's shapes (6 tokens of width 16, d_k = 24), built from ctattn::multiply and
/// ctattn::transpose only:
///
/// | value               | shape         |
/// |---------------------|---------------|
/// | `x`                 | seq x d_model |
/// | `w_q`, `w_k`        | d_model x d_k |
/// | `queries = x w_q`   | seq x d_k     |
/// | `scores = (x w_q)(x w_k)^T` | seq x seq |
///
/// A firmware model is a type with:
///   `name`                         a C string for the report
///   `inputs`, `outputs`            aggregates of ctattn matrices (the inputs become a constexpr table in flash)
///   `example()`                    constexpr, the inputs the image runs on
///   `evaluate(const inputs&)`      constexpr, the computation (run at compile time and on the target)
///   `for_each_output(f)`           calls `f(name, &outputs::member)` for every output to compare
/// See firmware/runtime/check_model.hpp for what the image does with it.

#include <cstdint>

#include <ctattn/matrix/matrix.hpp>
#include <ctattn/matrix/multiply.hpp>
#include <ctattn/matrix/transpose.hpp>

namespace ctattn_firmware::models {

namespace dims {
struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
}  // namespace dims

namespace detail {

/// A deterministic source of floats in [-1, 1) with 24 significant bits at most (xorshift32), so that the
/// example's products and sums round, as real weights do.
class example_values {
 public:
  constexpr explicit example_values(std::uint32_t seed) noexcept : state_{seed} {}

  constexpr float next() noexcept {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    const auto mantissa = static_cast<std::int32_t>(state_ >> 8) - (std::int32_t{1} << 23);
    return static_cast<float>(mantissa) / static_cast<float>(std::int32_t{1} << 23);
  }

  template <typename M>
  constexpr M matrix() noexcept {
    M m{};
    for (std::size_t i = 0; i < M::rows; ++i) {
      for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = next();
    }
    return m;
  }

 private:
  std::uint32_t state_;
};

}  // namespace detail

struct matrix_chain {
  static constexpr const char* name = "matrix chain x w_q, (x w_q)(x w_k)^T (6 x 16, d_k = 24)";

  using seq = dims::seq;
  using d_model = dims::d_model;
  using d_k = dims::d_k;

  struct inputs {
    ctattn::matrix<float, seq{6}, d_model{16}> x;
    ctattn::matrix<float, d_model{16}, d_k{24}> w_q;
    ctattn::matrix<float, d_model{16}, d_k{24}> w_k;
  };

  struct outputs {
    ctattn::matrix<float, seq{6}, d_k{24}> queries;
    ctattn::matrix<float, seq{6}, seq{6}> scores;
  };

  static constexpr inputs example() noexcept {
    detail::example_values values{0x2545'F491u};
    inputs in{};
    in.x = values.matrix<decltype(in.x)>();
    // The last token is tiny (scaled by 2^-128): its entries, products and sums are subnormal, so a unit
    // that flushes subnormals to zero (a fast-math mode, some SIMD paths) fails the bit-for-bit check.
    for (std::size_t j = 0; j < decltype(in.x)::cols; ++j) in.x(5, j) *= 0x1p-128f;
    in.w_q = values.matrix<decltype(in.w_q)>();
    in.w_k = values.matrix<decltype(in.w_k)>();
    return in;
  }

  static constexpr outputs evaluate(const inputs& in) noexcept {
    const auto queries = ctattn::multiply(in.x, in.w_q);
    const auto keys = ctattn::multiply(in.x, in.w_k);
    return {queries, ctattn::multiply(queries, ctattn::transpose(keys))};
  }

  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("queries x w_q", &outputs::queries);
    f("scores (x w_q)(x w_k)^T", &outputs::scores);
  }
};

namespace detail {

// The textbook i-j-k product, summed over k in ascending order from +0 as ctattn::multiply documents.
template <typename A, typename B>
constexpr float textbook_element(const A& a, const B& b, std::size_t i, std::size_t j) noexcept {
  float sum = 0;
  for (std::size_t k = 0; k < A::cols; ++k) sum += a(i, k) * b(k, j);
  return sum;
}

// The model's result equals the textbook computation bit for bit: checked by the compiler.
constexpr bool matrix_chain_matches_textbook() noexcept {
  constexpr auto in = matrix_chain::example();
  constexpr auto out = matrix_chain::evaluate(in);
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 24; ++j) {
      if (out.queries(i, j) != textbook_element(in.x, in.w_q, i, j)) return false;
    }
  }
  decltype(out.queries) keys{};
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 24; ++j) keys(i, j) = textbook_element(in.x, in.w_k, i, j);
  }
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 6; ++j) {
      float sum = 0;
      for (std::size_t k = 0; k < 24; ++k) sum += out.queries(i, k) * keys(j, k);
      if (out.scores(i, j) != sum) return false;
    }
  }
  return true;
}

static_assert(matrix_chain_matches_textbook(),
              "the firmware model's compile-time result must equal the textbook product bit for bit");

}  // namespace detail

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_MATRIX_CHAIN_HPP

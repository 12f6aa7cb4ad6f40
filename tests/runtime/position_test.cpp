// Run-time tests of the position encodings: the PyTorch fixtures at run time, the same bits as constant
// evaluation, accuracy against a long double reference beyond the fixtures, and the run-time preconditions.
#include "catch.hpp"
#include "support/test_data.hpp"

#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/multiply.hpp>
#include <ctattn/matrix/row.hpp>
#include <ctattn/matrix/transpose.hpp>
#include <ctattn/position/alibi.hpp>
#include <ctattn/position/embedding.hpp>
#include <ctattn/position/rotary.hpp>
#include <ctattn/position/sinusoidal.hpp>

#include "fixtures/attention/position.hpp"
#include "fixtures/attention/worked_example.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fx = ctattn_fixtures::position;
namespace we = ctattn_fixtures::worked_example;
using ctattn::alibi_form;
using ctattn::rotary_layout;
using ctattn_test::bit_identical;
using ctattn_test::opaque;

template <typename T, std::size_t R, std::size_t C, typename U>
ctattn::matrix<T, R, C> to_matrix(const U (&a)[R][C]) {
  ctattn::matrix<T, R, C> m{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) m(i, j) = static_cast<T>(a[i][j]);
  }
  return m;
}

// Units in the last place between two finite values (monotonic integer line of the bit patterns).
template <typename T>
std::uint64_t ulp_distance(T a, T b) {
  using bits = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  auto line = [](T x) {
    const auto i = std::bit_cast<bits>(x);
    return i < 0 ? static_cast<std::int64_t>(std::numeric_limits<bits>::min()) - static_cast<std::int64_t>(i)
                 : static_cast<std::int64_t>(i);
  };
  const std::int64_t d = line(a) - line(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

template <typename M, typename U>
std::uint64_t max_ulp(const M& m, const U& reference) {
  std::uint64_t worst = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const auto d = ulp_distance(m(i, j), static_cast<typename M::value_type>(reference[i][j]));
      worst = d > worst ? d : worst;
    }
  }
  return worst;
}

// Rationale: a comparison, not std::fmax (the same result; both skip a NaN difference): GCC 12.2 for
// AArch64 crashes at -O2 (internal compiler error in vect_transform_reduction) vectorizing an fmax reduction over
// floats widened to double.
template <typename M, typename U>
double max_abs(const M& m, const U& reference) {
  double worst = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const double d = std::fabs(static_cast<double>(m(i, j)) - static_cast<double>(reference[i][j]));
      worst = d > worst ? d : worst;
    }
  }
  return worst;
}

// Whether calling f() ends the process abnormally (a broken precondition traps), checked in a child process.
template <typename F>
bool dies(F f) {
  const pid_t child = fork();
  if (child == 0) {
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // the trap is expected: no core file
    for (const int signal_number : {SIGILL, SIGTRAP, SIGABRT, SIGSEGV}) std::signal(signal_number, SIG_DFL);
    f();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFSIGNALED(status);
}

}  // namespace

TEST_CASE("sinusoidal tables match PyTorch's at run time, with the bits of the constant tables", "[position]") {
  const auto t6 = ctattn::sinusoidal_position_encoding<float, 6, 16>();
  const auto t7 = ctattn::sinusoidal_position_encoding<float, 7, 512>();
  const auto t50 = ctattn::sinusoidal_position_encoding<float, 50, 8>();
  const auto t6_double = ctattn::sinusoidal_position_encoding<double, 6, 16>();
  const auto t50_double = ctattn::sinusoidal_position_encoding<double, 50, 8>();
  CHECK(bit_identical(t6, ctattn::sinusoidal_table<float, 6, 16>));
  CHECK(bit_identical(t7, ctattn::sinusoidal_table<float, 7, 512>));
  CHECK(bit_identical(t50, ctattn::sinusoidal_table<float, 50, 8>));
  CHECK(bit_identical(t6_double, ctattn::sinusoidal_table<double, 6, 16>));
  CHECK(bit_identical(t50_double, ctattn::sinusoidal_table<double, 50, 8>));
  // Measured on GCC 12 and Clang 14: float tables 0 ulp from the float64 reference rounded; double tables
  // 1.1e-16 (T = 6) and 8.9e-16 (T = 50) from the float64 reference.
  CHECK(max_ulp(t6, fx::sinusoidal::t6_d16::table) <= 1);
  CHECK(max_ulp(t7, fx::sinusoidal::t7_d512::table) <= 1);
  CHECK(max_ulp(t50, fx::sinusoidal::t50_d8::table) <= 1);
  CHECK(max_abs(t6_double, fx::sinusoidal::t6_d16::table_f64) <= 1e-15);
  CHECK(max_abs(t50_double, fx::sinusoidal::t50_d8::table_f64) <= 1e-15);
}

TEST_CASE("a long sinusoidal table stays within one float rounding of a long double reference", "[position]") {
  constexpr std::size_t positions = 2048;
  constexpr std::size_t width = 128;
  // Rationale: called through pointers the compiler cannot see through, so that the tables are computed at run time
  // (the test's point); a direct call in a static's initializer is constant-evaluated by GCC, 26 s of compilation.
  static auto* volatile make_float = &ctattn::sinusoidal_position_encoding<float, positions, width>;
  static auto* volatile make_double = &ctattn::sinusoidal_position_encoding<double, positions, width>;
  static const auto table = make_float();
  static const auto table_double = make_double();
  std::uint64_t worst_float = 0;
  long double worst_double = 0;
  for (std::size_t i = 0; i < width / 2; ++i) {
    const long double power = std::pow(10000.0L, static_cast<long double>(2 * i) / static_cast<long double>(width));
    for (std::size_t t = 0; t < positions; ++t) {
      const long double angle = static_cast<long double>(t) / power;
      const long double s = std::sin(angle);
      const long double c = std::cos(angle);
      worst_float = std::max({worst_float, ulp_distance(table(t, 2 * i), static_cast<float>(s)),
                              ulp_distance(table(t, 2 * i + 1), static_cast<float>(c))});
      worst_double = std::max({worst_double, std::fabs(static_cast<long double>(table_double(t, 2 * i)) - s),
                               std::fabs(static_cast<long double>(table_double(t, 2 * i + 1)) - c)});
    }
  }
  // Measured (GCC 12, Clang 14): float 1 ulp for one element of 262144 (its value lies next to a rounding
  // boundary), 0 for all others; double 2.2e-13 absolute at t = 2042. That is inherent in a double angle: the
  // angle t / 10000^(2i/D) rounded to double is already off by up to t * 2^-53, and the power adds about as much.
  CHECK(worst_float <= 1);
  CHECK(worst_double <= 2047 * 2e-16L);
}

TEST_CASE("RoPE at run time matches PyTorch and the constant-evaluated rotation", "[position][rope]") {
  namespace rf = fx::rope;
  static constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
  const auto rope_run_time = ctattn::make_rotary_table<float, 6, 8>();
  CHECK(bit_identical(rope_run_time.cos_table, rope.cos_table));
  CHECK(bit_identical(rope_run_time.sin_table, rope.sin_table));
  CHECK(max_ulp(rope_run_time.cos_table, rf::cos_table) <= 1);  // measured: 0
  CHECK(max_ulp(rope_run_time.sin_table, rf::sin_table) <= 1);  // measured: 0

  static constexpr auto q = [] {
    ctattn::matrix<float, 6, 8> m{};
    for (std::size_t i = 0; i < 6; ++i) {
      for (std::size_t j = 0; j < 8; ++j) m(i, j) = rf::q[i][j];
    }
    return m;
  }();
  const auto k = to_matrix<float>(rf::k);
  static constexpr auto q_interleaved_constant = ctattn::apply_rotary<rotary_layout::interleaved>(q, rope);
  static constexpr auto q_half_constant = ctattn::apply_rotary<rotary_layout::rotate_half>(q, rope);
  const auto q_interleaved = ctattn::apply_rotary<rotary_layout::interleaved>(opaque(q), opaque(rope_run_time));
  const auto q_half = ctattn::apply_rotary<rotary_layout::rotate_half>(opaque(q), opaque(rope_run_time));
  const auto k_interleaved = ctattn::apply_rotary<rotary_layout::interleaved>(opaque(k), rope);
  const auto k_half = ctattn::apply_rotary<rotary_layout::rotate_half>(opaque(k), rope);
  CHECK(bit_identical(q_interleaved, q_interleaved_constant));
  CHECK(bit_identical(q_half, q_half_constant));
  // Measured: 1.8e-7 (interleaved) and 1.1e-7 (rotate-half) from the float64 reference.
  CHECK(max_abs(q_interleaved, rf::q_interleaved_f64) <= 4e-7);
  CHECK(max_abs(k_interleaved, rf::k_interleaved_f64) <= 4e-7);
  CHECK(max_abs(q_half, rf::q_half_f64) <= 4e-7);
  CHECK(max_abs(k_half, rf::k_half_f64) <= 4e-7);
  CHECK(max_abs(q_interleaved * ctattn::transpose(k_interleaved), rf::scores_interleaved) <= 2e-6);
  CHECK(max_abs(q_half * ctattn::transpose(k_half), rf::scores_half) <= 2e-6);
}

TEST_CASE("RoPE keeps norms and makes scores depend on the position offset only", "[position][rope]") {
  using m16x64 = ctattn::matrix<double, 16, 64>;
  const auto q = ctattn_test::random_matrix<m16x64>(11);
  const auto k = ctattn_test::random_matrix<m16x64>(12);
  static constexpr auto rope = ctattn::make_rotary_table<double, 64, 64>();
  for (const auto layout_is_interleaved : {true, false}) {
    const auto rotate = [&](const m16x64& x, std::size_t first) {
      return layout_is_interleaved ? ctattn::apply_rotary<rotary_layout::interleaved>(x, rope, first)
                                   : ctattn::apply_rotary<rotary_layout::rotate_half>(x, rope, first);
    };
    const auto scores = rotate(q, 0) * ctattn::transpose(rotate(k, 0));
    const auto shifted = rotate(q, 48) * ctattn::transpose(rotate(k, 48));
    CHECK(ctattn::max_abs_difference(scores, shifted) <= 1e-13);
    const auto rotated = rotate(q, 5);
    for (std::size_t r = 0; r < 16; ++r) {
      double norm = 0;
      double norm_rotated = 0;
      for (std::size_t c = 0; c < 64; ++c) {
        norm += q(r, c) * q(r, c);
        norm_rotated += rotated(r, c) * rotated(r, c);
      }
      CHECK(std::fabs(norm - norm_rotated) <= 1e-14 * norm);
    }
  }
}

TEST_CASE("ALiBi slopes and biases at run time equal the fixtures and the constants", "[position][alibi]") {
  const auto slopes8 = opaque(ctattn::alibi_slopes<float, 8>());
  const auto slopes6 = opaque(ctattn::alibi_slopes<float, 6>());
  for (std::size_t h = 0; h < 8; ++h) CHECK(slopes8[h] == fx::alibi::h8::slopes[h]);
  for (std::size_t h = 0; h < 6; ++h) CHECK(slopes6[h] == fx::alibi::h6::slopes[h]);
  static constexpr auto slopes12_constant = ctattn::alibi_slopes<double, 12>();
  CHECK(opaque(ctattn::alibi_slopes<double, 12>()) == slopes12_constant);
  // 12 heads: the 8 slopes of 8 heads, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
  for (std::size_t h = 0; h < 4; ++h) {
    CHECK(ulp_distance(slopes12_constant[8 + h], std::pow(2.0, -0.5 - static_cast<double>(h))) <= 1);
  }
  for (std::size_t h = 0; h < 6; ++h) {
    const auto linear = ctattn::alibi_bias<alibi_form::linear_bias, 5, 5>(opaque(slopes6[h]));
    const auto symmetric = ctattn::alibi_bias<alibi_form::symmetric_bias, 5, 5>(opaque(slopes6[h]));
    const auto causal = ctattn::alibi_bias<alibi_form::causal_bias, 5, 5>(opaque(slopes6[h]));
    CHECK(linear == to_matrix<float>(fx::alibi::h6::bias_linear[h]));
    CHECK(symmetric == to_matrix<float>(fx::alibi::h6::bias_symmetric[h]));
    CHECK(bit_identical(causal, ctattn::alibi_biases<float, 6, 5, 5>()[h]));
    for (std::size_t i = 0; i < 5; ++i) {
      for (std::size_t j = 0; j < 5; ++j) {
        CHECK(causal(i, j) == (j <= i ? linear(i, j) : -std::numeric_limits<float>::infinity()));
      }
    }
  }
}

TEST_CASE("token embeddings with run-time ids copy the table's rows", "[position][embedding]") {
  const auto table = to_matrix<float>(we::embedding_table);
  std::array<long, 6> ids{};
  for (std::size_t i = 0; i < 6; ++i) ids[i] = static_cast<long>(we::token_ids[i]);
  const auto x = ctattn::embed_tokens(opaque(table), opaque(ids));
  CHECK(bit_identical(x, to_matrix<float>(we::x)));
  const auto repeated = ctattn::embed_tokens(table, opaque(std::array<unsigned, 3>{5u, 5u, 0u}));
  CHECK(ctattn::row<1>(repeated) == ctattn::row<5>(table));
  CHECK(ctattn::row<2>(repeated) == ctattn::row<0>(table));
}

TEST_CASE("learned position embeddings add the table's rows from a run-time start", "[position][embedding]") {
  using x_type = ctattn::matrix<double, 4, 8>;
  using table_type = ctattn::matrix<double, 10, 8>;
  const auto x = ctattn_test::random_matrix<x_type>(21);
  const auto table = ctattn_test::random_matrix<table_type>(22);
  for (std::size_t first = 0; first <= 6; ++first) {
    const auto y = ctattn::add_position_embeddings(opaque(x), opaque(table), opaque(first));
    for (std::size_t r = 0; r < 4; ++r) {
      for (std::size_t c = 0; c < 8; ++c) CHECK(y(r, c) == x(r, c) + table(first + r, c));
    }
  }
}

#if CTATTN_CHECK_PRECONDITIONS
TEST_CASE("run-time positions and ids outside their tables break a precondition", "[position][preconditions]") {
  const auto table = to_matrix<float>(we::embedding_table);
  // In range: the child process ends normally.
  CHECK_FALSE(dies([&] { (void)opaque(ctattn::embed_tokens(table, opaque(std::array<int, 2>{0, 5}))); }));
  CHECK(dies([&] { (void)opaque(ctattn::embed_tokens(table, opaque(std::array<int, 2>{0, 6}))); }));
  CHECK(dies([&] { (void)opaque(ctattn::embed_tokens(table, opaque(std::array<int, 2>{-1, 0}))); }));
  CHECK(dies([&] { (void)opaque(ctattn::embed_tokens(table, opaque(std::array<std::size_t, 1>{7}))); }));

  const ctattn::matrix<float, 4, 16> x{};
  CHECK_FALSE(dies([&] { (void)opaque(ctattn::add_position_embeddings(x, table, opaque(std::size_t{2}))); }));
  CHECK(dies([&] { (void)opaque(ctattn::add_position_embeddings(x, table, opaque(std::size_t{3}))); }));

  static constexpr auto rope = ctattn::make_rotary_table<float, 6, 16>();
  CHECK_FALSE(
      dies([&] { (void)opaque(ctattn::apply_rotary<rotary_layout::interleaved>(x, rope, opaque(std::size_t{2}))); }));
  CHECK(dies([&] { (void)opaque(ctattn::apply_rotary<rotary_layout::rotate_half>(x, rope, opaque(std::size_t{3}))); }));
}
#endif

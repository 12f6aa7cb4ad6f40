// Firmware image, on a board with a SIMD backend (m55-helium): the backend's vector operations on the target,
// with the contracts of kernels/avx512.hpp that tests/backend/backend_test.cpp checks on the host backends:
//   - exp within 2 ulp of e^x over [-87, 0] (against ctattn::math::exp in double), 0 below -87.33 and for -inf,
//     NaN stays NaN;
//   - partial loads fill the lanes past n, partial stores leave them alone;
//   - max and reduce_max let a NaN win, so that the fast softmax hands a row of NaN (and -inf) to the exact
//     kernel instead of reading it as fully masked;
//   - the fast softmax keeps the exact softmax's meaning of the hard rows, and is within 2^-20 max(w, 2^-126) of it;
//   - fused attention, with and without a causal mask and with a NaN and a +inf query, is within 2^-17 (1 + |exact|)
//     of exact attention, with NaN where exact has NaN;
//   - the fast activations and row norms of the layers tier are within their bounds of exact and keep the exact
//     meaning of +inf, -inf and NaN entries (tests/support/fast_layer_cases.hpp, as tests/backend on the host).
// Prints one line per check; exit code 0 when all hold.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <ctattn/attention/mask.hpp>
#include <ctattn/attention/scaled_dot_product.hpp>
#include <ctattn/kernels/dispatch.hpp>
#include <ctattn/math/exp.hpp>
#include <ctattn/matrix/matrix.hpp>

#include "support/fast_layer_cases.hpp"

#include "../runtime/check_model.hpp"
#include "../runtime/report.hpp"

namespace {

using ops = ctattn::detail::simd_ops;
using ctattn_firmware::report_line;

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float nan = std::numeric_limits<float>::quiet_NaN();

bool is_nan(float x) noexcept { return x != x; }

// Prints "  <what>: ok" or "  <what>: FAILED"; returns 1 on failure.
std::uint32_t report(const char* what, bool holds) noexcept {
  (report_line{} << "  " << what << (holds ? ": ok" : ": FAILED")).end();
  return holds ? 0u : 1u;
}

// The distance between a positive normal float and the next float up.
double ulp(float x) noexcept {
  const float next = std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) + 1u);
  return static_cast<double>(next) - static_cast<double>(x);
}

constexpr std::size_t sweep = 4096;
float sweep_x[sweep];
float sweep_y[sweep];

std::uint32_t check_exp() noexcept {
  for (std::size_t i = 0; i < sweep; ++i) {
    sweep_x[i] = -87.0f * static_cast<float>(i) / static_cast<float>(sweep - 1);
  }
  // exp_shifted takes whole vectors and a partial tail: sweep - 3 leaves one.
  const std::size_t n = sweep - 3;
  ctattn::detail::simd::exp_shifted<ops>(ctattn_firmware::opaque(sweep_x), sweep_y, n, 0.0f);
  double worst = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double exact = ctattn::math::exp(static_cast<double>(sweep_x[i]));
    const double error = (static_cast<double>(sweep_y[i]) - exact) / ulp(static_cast<float>(exact));
    const double size = error < 0.0 ? -error : error;
    if (!(size <= worst)) worst = size;
  }
  (report_line{} << "  exp over " << static_cast<std::uint32_t>(n) << " points in [-87, 0]: worst error "
                 << static_cast<std::uint32_t>(worst * 1000.0) << "/1000 ulp (bound 2 ulp)")
      .end();
  std::uint32_t failures = report("exp within 2 ulp of e^x", worst <= 2.0);
  // The special inputs from memory the compiler cannot see, each in every lane position.
  static constexpr float special[5] = {0.0f, -inf, -87.5f, -100.0f, nan};
  static constexpr float want[5] = {1.0f, 0.0f, 0.0f, 0.0f, nan};
  static float lanes_in[5 * ops::lanes];
  static float lanes_out[5 * ops::lanes];
  for (std::size_t i = 0; i < 5 * ops::lanes; ++i) lanes_in[i] = special[(i + i / 5) % 5];
  const float* in = ctattn_firmware::opaque(lanes_in);
  for (std::size_t i = 0; i < 5 * ops::lanes; i += ops::lanes) ops::store(lanes_out + i, ops::exp(ops::load(in + i)));
  bool holds = true;
  for (std::size_t i = 0; i < 5 * ops::lanes; ++i) {
    const float w = want[(i + i / 5) % 5];
    holds = holds && (is_nan(w) ? is_nan(lanes_out[i]) : lanes_out[i] == w);
  }
  failures += report("exp(0) == 1; exp(-inf), exp(-87.5), exp(-100) == 0; exp(NaN) is NaN", holds);
  return failures;
}

std::uint32_t check_lanes() noexcept {
  static float memory[8];
  for (std::size_t l = 0; l < 8; ++l) memory[l] = static_cast<float>(l + 1);
  const float* in = ctattn_firmware::opaque(memory);
  static float loaded[ops::lanes];
  ops::store(loaded, ops::load_partial(in, 1, -5.0f));
  bool holds = loaded[0] == 1.0f;
  for (std::size_t l = 1; l < ops::lanes; ++l) holds = holds && loaded[l] == -5.0f;
  std::uint32_t failures = report("load_partial(p, 1, fill): lane 0 from p, the others fill", holds);

  ops::store_partial(memory + 1, ops::broadcast(9.0f), ops::lanes - 1);
  holds = memory[0] == 1.0f && memory[ops::lanes] == static_cast<float>(ops::lanes + 1);
  for (std::size_t l = 1; l < ops::lanes; ++l) holds = holds && memory[l] == 9.0f;
  failures += report("store_partial(p, x, lanes - 1): writes lanes - 1 floats, not one more", holds);

  failures += report("reduce_add(broadcast(1)) == lanes",
                     ops::reduce_add(ops::broadcast(1.0f)) == static_cast<float>(ops::lanes));
  const ops::reg one_nan = ops::load_partial(in, 0, nan);  // every lane NaN
  const ops::reg mixed = ops::load_partial(in, 1, nan);    // lane 0 a number, the others NaN
  failures += report("max and reduce_max: a NaN lane wins",
                     is_nan(ops::reduce_max(ops::max(ops::broadcast(-inf), one_nan))) &&
                         is_nan(ops::reduce_max(ops::max(mixed, ops::broadcast(2.0f)))) &&
                         is_nan(ops::reduce_max(mixed)) && ops::reduce_max(ops::broadcast(3.0f)) == 3.0f);
  return failures;
}

template <std::size_t N>
bool fast_softmax_is(const float (&x)[N], const float (&want)[N]) noexcept {
  static float w[N];
  ctattn::detail::simd::softmax_row<ops>(ctattn_firmware::opaque(x), w, 0, N);
  for (std::size_t j = 0; j < N; ++j) {
    if (is_nan(want[j]) ? !is_nan(w[j]) : w[j] != want[j]) return false;
  }
  return true;
}

std::uint32_t check_softmax() noexcept {
  static constexpr float masked[5] = {-inf, -inf, -inf, -inf, -inf};
  static constexpr float zeros[5] = {0, 0, 0, 0, 0};
  static constexpr float one_nan[5] = {1, nan, 3, 4, 5};
  static constexpr float nans[5] = {nan, nan, nan, nan, nan};
  static constexpr float nan_and_masked[6] = {-inf, nan, -inf, nan, -inf, -inf};
  static constexpr float nans6[6] = {nan, nan, nan, nan, nan, nan};
  static constexpr float infinite[5] = {inf, 1, inf, -inf, 2};
  static constexpr float shared[5] = {0.5f, 0, 0.5f, 0, 0};
  std::uint32_t failures = report("softmax of a fully masked row: zeros", fast_softmax_is(masked, zeros));
  failures += report("softmax of a row with a NaN: NaN", fast_softmax_is(one_nan, nans));
  failures += report("softmax of a row of NaN and -inf: NaN", fast_softmax_is(nan_and_masked, nans6));
  failures += report("softmax of a row with +inf: they share the weight", fast_softmax_is(infinite, shared));

  // A row of 37 (whole vectors and a tail) spread over [-30, 30), against the exact softmax.
  constexpr std::size_t n = 37;
  static float x[n];
  static float fast[n];
  static float exact[n];
  std::uint32_t state = 12345;
  for (std::size_t j = 0; j < n; ++j) {
    state = state * 1664525u + 1013904223u;
    x[j] = static_cast<float>(state >> 8) * 0x1p-24f * 60.0f - 30.0f;
  }
  ctattn::detail::simd::softmax_row<ops>(ctattn_firmware::opaque(x), fast, 0, n);
  ctattn::detail::softmax_row(ctattn_firmware::opaque(x), exact, 0, n);
  bool holds = true;
  for (std::size_t j = 0; j < n; ++j) {
    const float allowed = 0x1p-20f * (exact[j] > 0x1p-126f ? exact[j] : 0x1p-126f);
    const float d = fast[j] > exact[j] ? fast[j] - exact[j] : exact[j] - fast[j];
    holds = holds && d <= allowed;
  }
  failures += report("softmax of 37 scores in [-30, 30): within 2^-20 max(w, 2^-126) of exact", holds);
  return failures;
}

// Queries 5 x 6, keys 7 x 6, values 7 x 5 from a fixed sequence in [-1, 1); query 1 holds a NaN, query 3 a +inf.
template <typename Mask>
std::uint32_t check_attention(const char* what, const Mask& mask) noexcept {
  static ctattn::matrix<float, 5, 6> q{};
  static ctattn::matrix<float, 7, 6> k{};
  static ctattn::matrix<float, 7, 5> v{};
  std::uint32_t state = 2024;
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) * 0x1p-23f - 1.0f;
  };
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t c = 0; c < 6; ++c) q(i, c) = next();
  }
  for (std::size_t j = 0; j < 7; ++j) {
    for (std::size_t c = 0; c < 6; ++c) k(j, c) = next();
    for (std::size_t c = 0; c < 5; ++c) v(j, c) = next();
  }
  q(1, 2) = nan;
  q(3, 0) = inf;
  const auto& qr = *ctattn_firmware::opaque(&q);
  const auto& kr = *ctattn_firmware::opaque(&k);
  const auto& vr = *ctattn_firmware::opaque(&v);
  const auto fast = ctattn::scaled_dot_product_attention(qr, kr, vr, mask, ctattn::fast_arithmetic);
  const auto exact = ctattn::scaled_dot_product_attention(qr, kr, vr, mask, ctattn::exact_arithmetic);
  bool holds = true;
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t c = 0; c < 5; ++c) {
      const float e = exact(i, c);
      const float d = fast(i, c) > e ? fast(i, c) - e : e - fast(i, c);
      holds = holds && (is_nan(e) ? is_nan(fast(i, c)) : d <= ctattn_firmware::fast_bound * (1.0f + (e < 0 ? -e : e)));
    }
  }
  return report(what, holds);
}

// The layers tier's fast kernels: one line per activation and norm, with its largest difference in 2^-24 units.
std::uint32_t check_layer_kernels() noexcept {
  std::uint32_t failures = 0;
  for (const auto& r : ctattn_test::fast_layer_cases::results()) {
    const bool holds = r.worst <= r.bound && r.meaning_kept && r.fast_ran;
    (report_line{} << "  fast " << r.name << ": largest difference "
                   << static_cast<std::uint32_t>(r.worst * 0x1p24 + 0.999) << " x 2^-24 (1 + |exact|), bound "
                   << static_cast<std::uint32_t>(r.bound * 0x1p24)
                   << "; +inf, -inf, NaN as exact: " << (r.meaning_kept ? "yes" : "NO")
                   << (r.fast_ran ? "" : "; the fast path did not run") << (holds ? ": ok" : ": FAILED"))
        .end();
    failures += holds ? 0u : 1u;
  }
  return failures;
}

}  // namespace

int main() {
  (report_line{} << "ctattn firmware check on " << ctattn_firmware::board_name).end();
  (report_line{} << "SIMD backend " << ctattn::simd_backend_name << ": vector operations against their contracts")
      .end();
  const std::uint32_t failures =
      check_exp() + check_lanes() + check_softmax() +
      check_attention("attention, a NaN and a +inf query: within 2^-17 (1 + |exact|), NaN as exact", ctattn::no_mask) +
      check_attention("causal attention, the same queries: within 2^-17 (1 + |exact|), NaN as exact", ctattn::causal) +
      check_layer_kernels();
  (report_line{} << (failures == 0 ? "PASS: every contract holds" : "FAIL: a contract does not hold")).end();
  return failures == 0 ? 0 : 1;
}

// The fast activations and row norms of the kernel tier (kernels/detail/simd.hpp) against the exact ones
// (kernels/activation.hpp) on the build's SIMD backend: on inputs across [-12, 12] (and a LayerNorm row far from
// zero), in blocks whose length leaves a partial vector on every backend (7 x 37: 259 = 16 k + 3 = 8 k + 3 = 4 k + 3),
// each within its bound of exact; and on blocks holding +inf, -inf, NaN and a value whose square overflows, which
// must keep the exact meaning (NaN where exact gives NaN, the same infinities, the finite results within the bound). Run by tests/backend/backend_test.cpp on the host backends and by the
// firmware image simd_backend_check on Helium; no allocation, no I/O.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <ctattn/kernels/dispatch.hpp>

namespace ctattn_test::fast_layer_cases {

struct outcome {
  const char* name;
  double worst;           // the largest |fast - exact| / (1 + |exact|) on finite inputs
  double bound;           // what it must stay within
  bool meaning_kept;      // with +inf, -inf and NaN entries: NaN and infinities where exact has them, the rest in bound
  std::size_t differing;  // finite inputs whose fast result is not the exact one
  bool fast_ran;          // differing > 0 where fast arithmetic must change some last bits (not relu, LayerNorm)
};

// Bounds relative to 1 + |exact|, in units of 2^-24: the activations measure at most 2 (the vector exp, the
// division and the fitted erfc, docs/kernels.md), the norms at most 4 (sums across lanes).
inline constexpr double activation_bound = 0x1p-21;
inline constexpr double norm_bound = 0x1p-20;

inline constexpr std::size_t rows = 7;
inline constexpr std::size_t cols = 37;
using block = float[rows][cols];

struct storage {
  block input, fast, exact, special;
  float weight[cols], bias[cols];
};
inline storage data;

// A deterministic sequence in [lo, hi) (a 32-bit linear congruential generator: the same numbers on every target).
struct sequence {
  std::uint32_t state;
  float next(float lo, float hi) noexcept {
    state = state * 1664525u + 1013904223u;
    return lo + (hi - lo) * static_cast<float>(state >> 8) * 0x1p-24f;
  }
};

inline double magnitude(double x) noexcept { return x < 0 ? -x : x; }
inline bool is_nan(float x) noexcept { return x != x; }

inline double worst_difference(const block& fast, const block& exact) noexcept {
  double worst = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const double d =
          magnitude(double(fast[i][j]) - double(exact[i][j])) / (1 + magnitude(static_cast<double>(exact[i][j])));
      if (!(d <= worst)) worst = d;  // a NaN makes it NaN, which fails the bound
    }
  }
  return worst;
}

inline std::size_t count_differing(const block& fast, const block& exact) noexcept {
  std::size_t count = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) count += fast[i][j] == exact[i][j] ? 0 : 1;
  }
  return count;
}

// Non-finite results exactly as exact (NaN where exact has NaN, the same infinity), finite ones within the bound.
inline bool same_meaning(const block& fast, const block& exact, double bound) noexcept {
  constexpr float inf = std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const float f = fast[i][j];
      const float e = exact[i][j];
      if (is_nan(e) || is_nan(f)) {
        if (!(is_nan(e) && is_nan(f))) return false;
      } else if (e == inf || e == -inf || f == inf || f == -inf) {
        if (!(f == e)) return false;
      } else if (!(magnitude(double(f) - double(e)) <= bound * (1 + magnitude(static_cast<double>(e))))) {
        return false;
      }
    }
  }
  return true;
}

template <ctattn::detail::kernels::activation F>
outcome activation_case(const char* name) noexcept {
  namespace k = ctattn::detail::kernels;
  k::activate<ctattn::arithmetic::fast, F>(data.input, data.fast);
  k::activate<ctattn::arithmetic::exact, F>(data.input, data.exact);
  const double worst = worst_difference(data.fast, data.exact);
  const std::size_t differing = count_differing(data.fast, data.exact);
  k::activate<ctattn::arithmetic::fast, F>(data.special, data.fast);
  k::activate<ctattn::arithmetic::exact, F>(data.special, data.exact);
  const bool changes_bits = F != k::activation::relu;
  return {name,
          worst,
          activation_bound,
          same_meaning(data.fast, data.exact, activation_bound),
          differing,
          !changes_bits || differing > 0};
}

template <bool Rms>
outcome norm_case(const char* name) noexcept {
  namespace k = ctattn::detail::kernels;
  const auto run = [](const block& x, block& y, ctattn::arithmetic a) {
    if (Rms) {
      if (a == ctattn::arithmetic::fast) {
        k::rms_norm_rows<ctattn::arithmetic::fast, true>(x, y, data.weight, 1e-6f);
      } else {
        k::rms_norm_rows<ctattn::arithmetic::exact, true>(x, y, data.weight, 1e-6f);
      }
    } else if (a == ctattn::arithmetic::fast) {
      k::layer_norm_rows<ctattn::arithmetic::fast, true, true>(x, y, data.weight, data.bias, 1e-5f);
    } else {
      k::layer_norm_rows<ctattn::arithmetic::exact, true, true>(x, y, data.weight, data.bias, 1e-5f);
    }
  };
  run(data.input, data.fast, ctattn::arithmetic::fast);
  run(data.input, data.exact, ctattn::arithmetic::exact);
  const double worst = worst_difference(data.fast, data.exact);
  const std::size_t differing = count_differing(data.fast, data.exact);
  run(data.special, data.fast, ctattn::arithmetic::fast);
  run(data.special, data.exact, ctattn::arithmetic::exact);
  return {name, worst, norm_bound, same_meaning(data.fast, data.exact, norm_bound), differing, !Rms || differing > 0};
}

/// Every case, in order: relu, gelu, gelu_tanh, silu, layer_norm, rms_norm. The fast GELU, tanh GELU, SiLU and
/// RMSNorm differ from exact in some last bits (`fast_ran`): the proof that the backend's path ran. (LayerNorm's
/// fast sums give exact's bits on these rows: its mean's rounding is below the offsets' last bit.)
inline std::array<outcome, 6> results() noexcept {
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  sequence s{2024u};
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) data.input[i][j] = s.next(-12.0f, 12.0f);
  }
  // A row far from zero: LayerNorm's offsets from the first entry keep its digits, fast as exact.
  for (std::size_t j = 0; j < cols; ++j) data.input[rows - 1][j] = 1000.0f + s.next(-0.01f, 0.01f);
  for (std::size_t j = 0; j < cols; ++j) {
    data.weight[j] = s.next(-2.0f, 2.0f);
    data.bias[j] = s.next(-1.0f, 1.0f);
  }
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) data.special[i][j] = data.input[i][j];
  }
  data.special[0][5] = inf;
  data.special[2][36] = -inf;
  data.special[4][0] = nan;
  data.special[5][17] = 3e38f;  // squares overflow: the exact row's meaning (zeros and infinities) must stay
  namespace k = ctattn::detail::kernels;
  return {activation_case<k::activation::relu>("relu"),
          activation_case<k::activation::gelu>("gelu"),
          activation_case<k::activation::gelu_tanh>("gelu_tanh"),
          activation_case<k::activation::silu>("silu"),
          norm_case<false>("layer_norm"),
          norm_case<true>("rms_norm")};
}

}  // namespace ctattn_test::fast_layer_cases

// Loading a layer's parameters from a PyTorch fixture (tests/fixtures/layers/layers.hpp) through ctattn's
// parameter walk, and comparing outputs. The walk must meet the fixture's state_dict names in order, with the
// same element counts and ranks: a layer whose names, order or shapes differ from PyTorch's fails to load.
#pragma once

#include <cstddef>
#include <string_view>

#include "ctattn/ctattn.hpp"
#include "ctattn/layers.hpp"

namespace ctattn_test {

// Copies `params` (every tensor flattened in state_dict order) into `layer`; false when a name, a count or a
// rank differs from the fixture's, or the fixture has more or fewer tensors.
template <typename Layer, typename T, std::size_t P, std::size_t N>
constexpr bool load_in_order(Layer& layer, const T (&params)[P], const char* const (&names)[N],
                             const std::size_t (&sizes)[N], const std::size_t (&ranks)[N]) noexcept {
  bool ok = true;
  std::size_t tensor = 0;
  std::size_t offset = 0;
  ctattn::for_each_parameter(layer, [&](std::string_view name, const auto& view) {
    if (tensor >= N || name != std::string_view(names[tensor]) || view.size != sizes[tensor] ||
        view.rank != ranks[tensor] || offset + view.size > P) {
      ok = false;
    } else {
      for (std::size_t i = 0; i < view.size; ++i) view[i] = params[offset + i];
      offset += view.size;
    }
    ++tensor;
  });
  return ok && tensor == N && offset == P;
}

// A model of type M with every parameter set to a small distinct-looking value, (k * 37 mod 19 - 9) / 16 for the
// k-th in walk order: weights that exercise every term without a fixture.
template <typename M>
constexpr M numbered() noexcept {
  M m{};
  int k = 0;
  ctattn::for_each_parameter(m, [&](std::string_view, const auto& view) {
    for (std::size_t i = 0; i < view.size; ++i, ++k) view[i] = static_cast<float>((k * 37) % 19 - 9) / 16.0f;
  });
  return m;
}

// The largest |a - b| / (1 + |b|) over two same-sized matrices, b given as a C array.
template <typename M, typename T, std::size_t R, std::size_t C>
constexpr double largest_error(const M& a, const T (&b)[R][C]) noexcept {
  static_assert(M::rows == R && M::cols == C);
  double worst = 0;
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) {
      const double d = static_cast<double>(a.elements[i][j]) - static_cast<double>(b[i][j]);
      const double m = static_cast<double>(b[i][j]);
      const double e = (d < 0 ? -d : d) / (1 + (m < 0 ? -m : m));
      if (!(e <= worst)) worst = e;
    }
  }
  return worst;
}

// The largest error of `Layer`, loaded from a fixture's parameters, on the fixture's input against its output;
// infinite when the parameters do not load (names, order, counts or ranks differ from PyTorch's).
// The output may be given in another precision (float results against PyTorch's float64 output).
template <typename Layer, typename T, typename U, std::size_t P, std::size_t N, std::size_t R, std::size_t C,
          std::size_t RO, std::size_t CO>
constexpr double layer_error(const T (&params)[P], const char* const (&names)[N], const std::size_t (&sizes)[N],
                             const std::size_t (&ranks)[N], const T (&input)[R][C],
                             const U (&output)[RO][CO]) noexcept {
  Layer layer{};
  if (!load_in_order(layer, params, names, sizes, ranks)) return 1e300;
  return largest_error(ctattn::forward(layer, ctattn::from_array(input)), output);
}

// A layer without parameters: its walk must list none.
template <typename Layer, typename T, typename U, std::size_t R, std::size_t C, std::size_t RO, std::size_t CO>
constexpr double layer_error(const T (&input)[R][C], const U (&output)[RO][CO]) noexcept {
  const Layer layer{};
  if (ctattn::parameter_tensor_count(layer) != 0) return 1e300;
  return largest_error(ctattn::forward(layer, ctattn::from_array(input)), output);
}

// The same for a decoder layer, whose forward pass also reads the encoder's output `memory`, with the call's
// options (its masks).
template <typename Layer, typename T, std::size_t P, std::size_t N, std::size_t R, std::size_t C, std::size_t RM,
          std::size_t CM, std::size_t RO, std::size_t CO, typename... Options>
constexpr double decoder_error(const T (&params)[P], const char* const (&names)[N], const std::size_t (&sizes)[N],
                               const std::size_t (&ranks)[N], const T (&input)[R][C], const T (&memory)[RM][CM],
                               const T (&output)[RO][CO], const Options&... options) noexcept {
  Layer layer{};
  if (!load_in_order(layer, params, names, sizes, ranks)) return 1e300;
  return largest_error(
      ctattn::forward(layer, ctattn::from_array(input), ctattn::with_memory(ctattn::from_array(memory)), options...),
      output);
}

}  // namespace ctattn_test

// A fixture namespace's arguments for layer_error / decoder_error, in one precision (f32 or f64).
#define CTATTN_LAYER_FIXTURE(NS, K) NS::params_##K, NS::names, NS::sizes, NS::ranks, NS::input_##K, NS::output_##K
#define CTATTN_DECODER_FIXTURE(NS, K) \
  NS::params_##K, NS::names, NS::sizes, NS::ranks, NS::input0_##K, NS::input1_##K, NS::output_##K

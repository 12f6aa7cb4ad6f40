// The names the doc examples of ctattn/layers/parameters.hpp use without defining them: views of W_Q, W_K and W_V
// (8 x 8) and their types, a model (a feed-forward block 64 -> 64 -> 64) in two copies, and an encoder layer.
#pragma once

#include <ctattn/layers.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string_view>

inline constexpr ctattn::matrix<float, 8, 8> w_q{}, w_k{}, w_v{};
using Q = ctattn::matrix_tensor<const ctattn::matrix<float, 8, 8>, false>;
using K = Q;
using V = Q;
inline constexpr Q q{&w_q};
inline constexpr K k{&w_k};
inline constexpr V v{&w_v};

inline constexpr ctattn::feed_forward<float, 64, 64> model{};
inline ctattn::feed_forward<float, 64, 64> loaded{};
inline constexpr ctattn::feed_forward<float, 64, 64> reference{};

inline constexpr ctattn::transformer_encoder_layer<float, 32, 4, 64> layer{};

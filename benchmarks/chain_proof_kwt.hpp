// A KWT-1-shaped model for the chain-of-proofs benchmark (benchmarks/chain_proof.sh): 98 MFCC frames of 40, each
// embedded by a Linear(40, 64), a class token, learned positions over 99 rows, 12 post-norm encoder layers
// (d_model 64, 1 head, MLP 256, GELU, eps 1e-6), the class token's row and a Linear head to 35 classes: 607K
// parameters, about 70 M multiply-adds. Its weights are small numbers fixed by their place (no training: the
// benchmarks measure what the compilers and the kernels charge, which the values do not change).
// chain_proof_kwt.cpp writes its chain of proofs; bench_kwt_speed.cpp times it.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include <ctattn/layers.hpp>

namespace kws {

using block = ctattn::transformer_encoder_layer<float, 64, 1, 256, ctattn::gelu, /*norm_first=*/false>;
using frames = ctattn::matrix<float, 98, 40>;

struct kwt : ctattn::model<kwt> {
  BOOST_HANA_DEFINE_STRUCT(
      kwt, (ctattn::linear<float, 40, 64, ctattn::out_by_in, true>, to_patch_embedding),
      (ctattn::class_token<float, 64>, cls_token), (ctattn::position_parameter<float, 99, 64>, pos_embedding),
      (ctattn::sequential<block, block, block, block, block, block, block, block, block, block, block, block>, layers),
      (ctattn::class_token_pool, pool), (ctattn::linear<float, 64, 35, ctattn::out_by_in, true>, head));
};

/// Sets the model's weights: small numbers fixed by their place, and eps 1e-6 (ARM's KWT).
inline void fill_weights(kwt& model) {
  std::size_t k = 0;
  ctattn::for_each_parameter(model, [&](std::string_view, const auto& view) {
    for (std::size_t i = 0; i < view.size; ++i, ++k) {
      view[i] = static_cast<float>(static_cast<int>(k * 37 % 19) - 9) / 64;
    }
  });
  (void)ctattn::set_every_setting(model, "eps", 1e-6);
}

/// Input g: 98 frames of 40 features, values in [-11/8, 11/8] fixed by their place.
inline frames example_frames(std::size_t g) {
  frames x{};
  for (std::size_t t = 0; t < 98; ++t) {
    for (std::size_t f = 0; f < 40; ++f)
      x(t, f) = static_cast<float>(static_cast<int>((t * 7 + f * 3 + g) % 23) - 11) / 8;
  }
  return x;
}

}  // namespace kws

// A KWT-1-shaped model for the chain-of-proofs benchmark (benchmarks/chain_proof.sh): 98 MFCC frames of 40, each
// embedded by a Linear(40, 64), a class token, learned positions over 99 rows, 12 post-norm encoder layers
// (d_model 64, 1 head, MLP 256, GELU, eps 1e-6), the class token's row and a Linear head to 35 classes: 607K
// parameters, about 70 M multiply-adds. Its weights are small numbers fixed by their place (no training: the
// benchmark measures what the compilers charge, which the values do not change). chain_proof_kwt.cpp writes its
// chain of proofs.
#pragma once

#include <array>
#include <cstddef>

#include <ctattn/layers.hpp>

namespace kws {

using block = ctattn::transformer_encoder_layer<float, 64, 1, 256, ctattn::gelu, /*norm_first=*/false>;
using frames = ctattn::matrix<float, 98, 40>;

struct kwt : ctattn::model<kwt> {
  BOOST_HANA_DEFINE_STRUCT(kwt, (ctattn::linear<float, 40, 64, ctattn::out_by_in, true>, to_patch_embedding),
                           (ctattn::class_token<float, 64>, cls_token),
                           (ctattn::position_parameter<float, 99, 64>, pos_embedding),
                           (ctattn::sequential<block, block, block, block, block, block, block, block, block, block,
                                               block, block>,
                            layers),
                           (ctattn::class_token_pool, pool),
                           (ctattn::linear<float, 64, 35, ctattn::out_by_in, true>, head));
};

}  // namespace kws

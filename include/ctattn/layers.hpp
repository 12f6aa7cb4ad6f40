// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_HPP
#define CTATTN_LAYERS_HPP

/// \file
/// The layers tier, on top of attention: layers with PyTorch's semantics and parameter names, composed with
/// Boost.Hana (`ctattn::sequential`). It needs Boost.Hana's headers (Debian: libboost-dev); ctattn/ctattn.hpp
/// does not include it, so users of attention alone need no Boost.
///
/// | header                           | what                                                              |
/// |----------------------------------|-------------------------------------------------------------------|
/// | ctattn/layers/layer.hpp          | what a layer is; `ctattn::forward`; `ctattn::layer_footprint`      |
/// | ctattn/layers/linear.hpp         | `linear` as a layer (nn.Linear's parameter names)                 |
/// | ctattn/layers/parameters.hpp     | parameters by PyTorch name: `for_each_parameter`, counts, views    |
/// | ctattn/layers/activation.hpp     | `relu`, `gelu`, `gelu_tanh`, `silu`                                |
/// | ctattn/layers/embedding.hpp      | `token_embedding`, `position_embedding`, `position_parameter`, `class_token` |
/// | ctattn/layers/patch.hpp          | `patch_embedding_1d`, `patch_embedding_2d` (nn.Conv1d, nn.Conv2d with stride = kernel) |
/// | ctattn/layers/pool.hpp           | `class_token_pool`, `mean_pool`                                   |
/// | ctattn/layers/norm.hpp           | `layer_norm`, `rms_norm`                                          |
/// | ctattn/layers/feed_forward.hpp   | `feed_forward`, `gated_feed_forward`, `residual`                  |
/// | ctattn/layers/attention.hpp      | `multi_head_attention_layer`; multi-head weights' PyTorch names   |
/// | ctattn/layers/transformer.hpp    | `transformer_encoder_layer`, `transformer_decoder_layer`          |
/// | ctattn/layers/llama.hpp          | `llama_attention` (grouped-query, rotary, causal), `llama_block`  |
/// | ctattn/layers/sequential.hpp     | `sequential`                                                      |

#include "ctattn/layers/activation.hpp"
#include "ctattn/layers/attention.hpp"
#include "ctattn/layers/embedding.hpp"
#include "ctattn/layers/feed_forward.hpp"
#include "ctattn/layers/layer.hpp"
#include "ctattn/layers/linear.hpp"
#include "ctattn/layers/llama.hpp"
#include "ctattn/layers/model.hpp"
#include "ctattn/layers/norm.hpp"
#include "ctattn/layers/parameters.hpp"
#include "ctattn/layers/patch.hpp"
#include "ctattn/layers/pool.hpp"
#include "ctattn/layers/rules.hpp"
#include "ctattn/layers/sequential.hpp"
#include "ctattn/layers/transformer.hpp"

#endif  // CTATTN_LAYERS_HPP

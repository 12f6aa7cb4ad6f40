// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_CTATTN_HPP
#define CTATTN_CTATTN_HPP

/// \file
/// The whole of ctattn's core: include this, or the one header you need.
/// Host-only helpers (printing) are not included here; see ctattn/host/.

#include "ctattn/version.hpp"

// Shapes: dimensions, named extents, and how shape mistakes are reported.
#include "ctattn/shape/dimension.hpp"
#include "ctattn/shape/fixed_string.hpp"
#include "ctattn/shape/rule.hpp"

// Matrices and their operations.
#include "ctattn/matrix/batch.hpp"
#include "ctattn/matrix/blocks.hpp"
#include "ctattn/matrix/compare.hpp"
#include "ctattn/matrix/elementwise.hpp"
#include "ctattn/matrix/from_array.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/multiply.hpp"
#include "ctattn/matrix/reduce.hpp"
#include "ctattn/matrix/row.hpp"
#include "ctattn/matrix/rules.hpp"
#include "ctattn/matrix/transpose.hpp"
#include "ctattn/matrix/with_extents.hpp"

// Constexpr math: the same bits in constant evaluation and at run time.
#include "ctattn/math/erf.hpp"
#include "ctattn/math/exp.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/math/isqrt.hpp"
#include "ctattn/math/log.hpp"
#include "ctattn/math/sin_cos.hpp"
#include "ctattn/math/sqrt.hpp"
#include "ctattn/math/tanh.hpp"

// Kernels: how every operation computes (constant-evaluated, exact scalar loops, or the build's SIMD backend).
#include "ctattn/kernels/backend.hpp"
#include "ctattn/kernels/dispatch.hpp"
#include "ctattn/kernels/int16.hpp"
#include "ctattn/kernels/int4.hpp"
#include "ctattn/kernels/int8.hpp"

// Attention: softmax, masks, projections, scaled dot-product attention, heads, gradients.
#include "ctattn/attention/attention_head.hpp"
#include "ctattn/attention/footprint.hpp"
#include "ctattn/attention/gradient.hpp"
#include "ctattn/attention/kv_cache.hpp"
#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/multi_head.hpp"
#include "ctattn/attention/options.hpp"
#include "ctattn/attention/projection.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/attention/scaled_dot_product.hpp"
#include "ctattn/attention/softmax.hpp"
#include "ctattn/attention/workspace.hpp"

// Position information: sinusoidal tables, embeddings, rotary embeddings, ALiBi.
#include "ctattn/position/alibi.hpp"
#include "ctattn/position/embedding.hpp"
#include "ctattn/position/rotary.hpp"
#include "ctattn/position/rules.hpp"
#include "ctattn/position/sinusoidal.hpp"

// Int8: matrices quantized with their scale and zero point in the type, integer products (the same bits everywhere).
#include "ctattn/quantized/activation.hpp"
#include "ctattn/quantized/add.hpp"
#include "ctattn/quantized/attention.hpp"
#include "ctattn/quantized/calibrate.hpp"
#include "ctattn/quantized/embedding.hpp"
#include "ctattn/quantized/feed_forward.hpp"
#include "ctattn/quantized/hadamard.hpp"
#include "ctattn/quantized/int16.hpp"
#include "ctattn/quantized/kv_cache.hpp"
#include "ctattn/quantized/layer.hpp"
#include "ctattn/quantized/linear.hpp"
#include "ctattn/quantized/multiply.hpp"
#include "ctattn/quantized/norm.hpp"
#include "ctattn/quantized/patch.hpp"
#include "ctattn/quantized/points.hpp"
#include "ctattn/quantized/pool.hpp"
#include "ctattn/quantized/q16attention.hpp"
#include "ctattn/quantized/q16linear.hpp"
#include "ctattn/quantized/q16matrix.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/quantization.hpp"
#include "ctattn/quantized/rules.hpp"
#include "ctattn/quantized/softmax.hpp"
#include "ctattn/quantized/transformer.hpp"
#include "ctattn/quantized/weights.hpp"

#endif  // CTATTN_CTATTN_HPP

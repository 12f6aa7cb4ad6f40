// The verified sorter (examples/verified_model/sorter.hpp; the PyTorch module in train_sorter.py) written by hand
// with Eigen 3 fixed-size row-major matrices, the way an Eigen user would write it: the implementation that
// benchmarks/bench_model_speed.cpp times beside ctattn's (and model_speed.sh beside PyTorch's). Its weights are
// copied from a toy::sorter in PyTorch's layouts; the benchmark checks its logits against ctattn's exact
// arithmetic before timing anything.
#pragma once

#include <Eigen/Core>

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <type_traits>

#include <boost/hana/at.hpp>

#include "sorter.hpp"

namespace toy {

/// toy::sorter in Eigen: token embedding + learned positions -> two nn.TransformerEncoderLayer(32, 4, 64, gelu,
/// norm_first=True) in eval mode -> LayerNorm(32) -> Linear(32, 10), one row of logits per position. Parameters
/// keep PyTorch's layouts: linear weights out x in, and Q, K, V packed in one 96 x 32 `in_proj_weight`.
///
/// | operand  | shape           |
/// |----------|-----------------|
/// | `ids`    | six ids in 0..9 |
/// | result   | 6 x 10 logits   |
///
/// Example:
/// \code
///   const toy::eigen_sorter model{sorter_weights};
///   toy::eigen_sorter::logits y = model.forward({3, 1, 4, 1, 5, 9});
/// \endcode
struct eigen_sorter {
  /// Tokens per sequence.
  static constexpr int n = static_cast<int>(length);
  /// d_model.
  static constexpr int d = static_cast<int>(width);
  /// Attention heads.
  static constexpr int heads = 4;
  /// The width of each head.
  static constexpr int head_dim = d / heads;
  /// The feed-forward width (dim_feedforward).
  static constexpr int hidden = 64;
  /// Output classes: the ten digits.
  static constexpr int classes = static_cast<int>(digits);
  /// Encoder layers.
  static constexpr std::size_t depth = 2;

  /// A fixed-size row-major float matrix.
  template <int Rows, int Cols>
  using matrix = Eigen::Matrix<float, Rows, Cols, Eigen::RowMajor>;
  /// A row vector: a bias, a norm's weight.
  template <int Cols>
  using row = matrix<1, Cols>;
  /// A column of one value per token: a row's maximum, sum, mean.
  using per_token = Eigen::Matrix<float, n, 1>;
  /// The activations between layers: one row of d per token.
  using activations = matrix<n, d>;
  /// The result: one row of logits per position.
  using logits = matrix<n, classes>;

  /// nn.LayerNorm(d) over each row: (x - mean) / sqrt(var + eps) * weight + bias, with the biased variance.
  struct layer_norm {
    row<d> weight;  ///< gamma
    row<d> bias;    ///< beta
    float eps;      ///< added to the variance

    /// y = the normalized rows of x.
    void apply(const activations& x, activations& y) const {
      const per_token mean = x.rowwise().mean();
      y = x.colwise() - mean;
      const per_token scale = (y.rowwise().squaredNorm().array() / static_cast<float>(d) + eps).rsqrt();
      y.array() = (y.array().colwise() * scale.array()).rowwise() * weight.array();
      y.rowwise() += bias;
    }
  };

  /// One pre-norm encoder layer: x = x + self_attn(norm1(x)); x = x + linear2(gelu(linear1(norm2(x)))).
  struct encoder_layer {
    layer_norm norm1;                  ///< before the attention
    layer_norm norm2;                  ///< before the feed-forward block
    matrix<3 * d, d> in_proj_weight;   ///< rows: W_Q, then W_K, then W_V
    row<3 * d> in_proj_bias;           ///< b_Q, b_K, b_V
    matrix<d, d> out_proj_weight;      ///< W_O
    row<d> out_proj_bias;              ///< b_O
    matrix<hidden, d> linear1_weight;  ///< d -> hidden
    row<hidden> linear1_bias;          ///< its bias
    matrix<d, hidden> linear2_weight;  ///< hidden -> d
    row<d> linear2_bias;               ///< its bias

    /// Applies the layer to x in place.
    void apply(activations& x) const {
      activations normed;
      norm1.apply(x, normed);
      matrix<n, 3 * d> qkv;
      qkv.noalias() = normed * in_proj_weight.transpose();
      qkv.rowwise() += in_proj_bias;

      // Each head reads its columns of Q, K and V and writes its columns of `heads_out`. The softmax's row maxima
      // and sums go to a column first: a partial reduction is lazy in Eigen, and `scores` changes under it.
      const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
      activations heads_out;
      matrix<n, n> scores;
      for (int h = 0; h < heads; ++h) {
        const int column = h * head_dim;
        scores.noalias() = scale * qkv.middleCols<head_dim>(column) * qkv.middleCols<head_dim>(d + column).transpose();
        const per_token maximum = scores.rowwise().maxCoeff();
        scores.array() = (scores.colwise() - maximum).array().exp();
        const per_token sum = scores.rowwise().sum();
        scores.array().colwise() /= sum.array();
        heads_out.middleCols<head_dim>(column).noalias() = scores * qkv.middleCols<head_dim>(2 * d + column);
      }
      x.noalias() += heads_out * out_proj_weight.transpose();
      x.rowwise() += out_proj_bias;

      norm2.apply(x, normed);
      matrix<n, hidden> inner;
      inner.noalias() = normed * linear1_weight.transpose();
      inner.rowwise() += linear1_bias;
      // nn.GELU's exact form, 0.5 x (1 + erf(x / sqrt(2))), with std::erf per element: Eigen's own erf is in its
      // unsupported SpecialFunctions module.
      constexpr float inverse_sqrt2 = 1.0f / std::numbers::sqrt2_v<float>;
      inner = inner.unaryExpr([](float v) { return 0.5f * v * (1.0f + std::erf(v * inverse_sqrt2)); });
      x.noalias() += inner * linear2_weight.transpose();
      x.rowwise() += linear2_bias;
    }
  };

  matrix<classes, d> embed;                 ///< token embedding, one row per digit
  matrix<n, d> pos;                         ///< learned positions, one row per position
  std::array<encoder_layer, depth> layers;  ///< the two encoder layers
  layer_norm norm;                          ///< the final LayerNorm
  matrix<classes, d> head_weight;           ///< the output Linear(32, 10), out x in
  row<classes> head_bias;                   ///< its bias

  /// The same parameters as `model`, copied element by element.
  explicit eigen_sorter(const sorter& model) {
    copy(embed, model.embed.weight);
    copy(pos, model.pos.weight);
    load(layers[0], boost::hana::at_c<0>(model.layers.layers));
    load(layers[1], boost::hana::at_c<1>(model.layers.layers));
    load(norm, model.norm);
    copy(head_weight, model.head.weight);
    copy(head_bias, model.head.bias);
  }

  /// The 6 x 10 logits of one sequence.
  [[nodiscard]] logits forward(const std::array<int, length>& ids) const {
    activations x;
    for (int i = 0; i < n; ++i) x.row(i) = embed.row(ids[static_cast<std::size_t>(i)]) + pos.row(i);
    for (const encoder_layer& layer : layers) layer.apply(x);
    activations normed;
    norm.apply(x, normed);
    logits result;
    result.noalias() = normed * head_weight.transpose();
    result.rowwise() += head_bias;
    return result;
  }

 private:
  // to(i, j) = from(i, j) for a ctattn matrix `from` and an Eigen matrix or block `to` of the same shape.
  template <typename To, typename From>
  static void copy(To&& to, const From& from) {
    using target = std::remove_cvref_t<To>;
    static_assert(target::RowsAtCompileTime == static_cast<int>(From::rows) &&
                  target::ColsAtCompileTime == static_cast<int>(From::cols));
    for (Eigen::Index i = 0; i < to.rows(); ++i) {
      for (Eigen::Index j = 0; j < to.cols(); ++j) {
        to(i, j) = from(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
      }
    }
  }

  static void load(layer_norm& to, const decltype(sorter::norm)& from) {
    copy(to.weight, from.weight);
    copy(to.bias, from.bias);
    to.eps = from.eps;
  }

  // ctattn holds Q, K and V as three projections; PyTorch's in_proj_weight stacks them.
  static void load(encoder_layer& to, const block& from) {
    const auto& attention = from.self_attn.weights;
    copy(to.in_proj_weight.middleRows<d>(0), attention.query.weight);
    copy(to.in_proj_weight.middleRows<d>(d), attention.key.weight);
    copy(to.in_proj_weight.middleRows<d>(2 * d), attention.value.weight);
    copy(to.in_proj_bias.middleCols<d>(0), attention.query.bias);
    copy(to.in_proj_bias.middleCols<d>(d), attention.key.bias);
    copy(to.in_proj_bias.middleCols<d>(2 * d), attention.value.bias);
    copy(to.out_proj_weight, attention.output.weight);
    copy(to.out_proj_bias, attention.output.bias);
    copy(to.linear1_weight, from.ff.linear1.weight);
    copy(to.linear1_bias, from.ff.linear1.bias);
    copy(to.linear2_weight, from.ff.linear2.weight);
    copy(to.linear2_bias, from.ff.linear2.bias);
    load(to.norm1, from.norm1);
    load(to.norm2, from.norm2);
  }
};

}  // namespace toy

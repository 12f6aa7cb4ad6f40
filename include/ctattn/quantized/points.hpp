// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_POINTS_HPP
#define CTATTN_QUANTIZED_POINTS_HPP

/// \file
/// The calibration points, named once: every activation an int8 layer quantizes has a name, which
/// `ctattn::record_ranges` writes into a ranges table (under the layer's path: `layers.0.norm1`) and `ctattn::quantize`
/// reads back. Both take the names from here, so that a name cannot be spelled two ways.
///
/// | names (`ctattn::points::`)                             | the activations                                       |
/// |--------------------------------------------------------|-------------------------------------------------------|
/// | `input`, `memory`, `output`                            | a model's matrix input, a decoder's memory, a whole model's output (a layer's output is named by its path) |
/// | `weight`                                               | an embedding's table                                  |
/// | `self_attention_names`: `query`, `key`, `value`, `scores`, `context`, `attention` | a self-attention's projections, scaled scores, heads side by side and W_O's output |
/// | `cross_attention_names`: `cross_query` ... `cross_attention` | the same, for a decoder's attention over its memory   |
/// | `hidden`, `activation`, `feed_forward`                 | a feed-forward block's linear1, activation and linear2 (inside a transformer layer) |
/// | `w1`, `w3`, `product`                                  | a gated feed-forward block's two projections and their product (the gate is `activation`) |
/// | `inner`                                                | the path of a residual connection's inner layer       |
/// | `norm1` ... `norm3`, `sum1` ... `sum3`                 | a transformer layer's LayerNorms and residual sums, block by block (`norm_point(k)`, `sum_point(k)`) |
///
/// Example:
/// \code
///   static_assert(ctattn::points::norm_point(2) == ctattn::points::norm2);
///   static_assert(ctattn::points::cross_attention_names.scores == ctattn::points::cross_scores);
/// \endcode

#include <cstddef>
#include <string_view>

#include "ctattn/detail/config.hpp"
#include "ctattn/quantized/calibrate.hpp"

namespace ctattn {

namespace points {
inline constexpr std::string_view input = "input";
inline constexpr std::string_view memory = "memory";
inline constexpr std::string_view output = "output";
inline constexpr std::string_view weight = "weight";
inline constexpr std::string_view hidden = "hidden";
inline constexpr std::string_view activation = "activation";
inline constexpr std::string_view feed_forward = "feed_forward";
inline constexpr std::string_view w1 = "w1";
inline constexpr std::string_view w3 = "w3";
inline constexpr std::string_view product = "product";
inline constexpr std::string_view inner = "inner";
inline constexpr std::string_view norm1 = "norm1";
inline constexpr std::string_view norm2 = "norm2";
inline constexpr std::string_view norm3 = "norm3";
inline constexpr std::string_view sum1 = "sum1";
inline constexpr std::string_view sum2 = "sum2";
inline constexpr std::string_view sum3 = "sum3";

/// The points of one multi-head attention: its projections, scaled scores (q k^T / sqrt(d_head), over the keys the
/// mask lets each query see), the heads side by side (W_O's input) and W_O's output.
struct attention_points {
  std::string_view query, key, value, scores, context, attention;
};
/// A self-attention's (a transformer layer's, or a decoder's causal one).
inline constexpr attention_points self_attention_names{"query", "key", "value", "scores", "context", "attention"};
/// A decoder's attention over its memory.
inline constexpr attention_points cross_attention_names{"cross_query",  "cross_key",     "cross_value",
                                                        "cross_scores", "cross_context", "cross_attention"};
inline constexpr std::string_view query = self_attention_names.query;
inline constexpr std::string_view key = self_attention_names.key;
inline constexpr std::string_view value = self_attention_names.value;
inline constexpr std::string_view scores = self_attention_names.scores;
inline constexpr std::string_view context = self_attention_names.context;
inline constexpr std::string_view attention = self_attention_names.attention;
inline constexpr std::string_view cross_query = cross_attention_names.query;
inline constexpr std::string_view cross_key = cross_attention_names.key;
inline constexpr std::string_view cross_value = cross_attention_names.value;
inline constexpr std::string_view cross_scores = cross_attention_names.scores;
inline constexpr std::string_view cross_context = cross_attention_names.context;
inline constexpr std::string_view cross_attention = cross_attention_names.attention;

/// The LayerNorm and the residual sum of a transformer layer's block k (1, 2 or 3: an encoder layer has two blocks,
/// a decoder layer three).
[[nodiscard]] constexpr std::string_view norm_point(std::size_t k) noexcept {
  if (k < 1 || k > 3) detail::precondition_failed();
  return k == 1 ? norm1 : k == 2 ? norm2 : norm3;
}
/// \copydoc norm_point
[[nodiscard]] constexpr std::string_view sum_point(std::size_t k) noexcept {
  if (k < 1 || k > 3) detail::precondition_failed();
  return k == 1 ? sum1 : k == 2 ? sum2 : sum3;
}
}  // namespace points

namespace detail {
// Whether `name` is `path.point` (`point` for the empty path of a single layer), compared without building it.
[[nodiscard]] constexpr bool names_point(std::string_view name, std::string_view path, std::string_view pt) noexcept {
  return path.empty() ? name == pt
                      : name.size() == path.size() + 1 + pt.size() && name.substr(0, path.size()) == path &&
                            name[path.size()] == '.' && name.substr(path.size() + 1) == pt;
}
// Whether a generated table holds the range `path.point`.
template <typename Table>
[[nodiscard]] constexpr bool holds_point(const Table& table, std::string_view path, std::string_view point) noexcept {
  for (const named_range& entry : table) {
    if (names_point(entry.name, path, point)) return true;
  }
  return false;
}
// The range `path.point` of a generated table; a name the table lacks is a contract violation (a compile error in a
// constant expression). `range_at_output(table, path)` is the layer's output: `path`, or `output` for a single layer.
template <typename Table>
[[nodiscard]] constexpr value_range range_at_point(const Table& table, std::string_view path,
                                                   std::string_view point) noexcept {
  for (const named_range& entry : table) {
    if (names_point(entry.name, path, point)) return entry.range;
  }
  detail::ranges_table_lacks_this_point_record_it_with_record_ranges();
  return value_range{};
}
// The name of a layer's output in a table: its path, or `output` for the empty path of a single layer.
[[nodiscard]] constexpr std::string_view output_point(std::string_view path) noexcept {
  return path.empty() ? points::output : path;
}
template <typename Table>
[[nodiscard]] constexpr value_range range_at_output(const Table& table, std::string_view path) noexcept {
  return range_at(table, output_point(path));
}

// The points of the layer at `path` as `ctattn::quantize` reads them from a generated table: `point(name)` is the
// range `path.name`, `output()` the layer's output. (ctattn/quantized/model.hpp has a probe with the same members,
// which names the first point a table lacks before any is read.)
template <typename Table>
struct table_points {
  const Table& table;
  std::string_view path;
  [[nodiscard]] constexpr value_range point(std::string_view name) const noexcept {
    return range_at_point(table, path, name);
  }
  [[nodiscard]] constexpr value_range output() const noexcept { return range_at_output(table, path); }
};
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_POINTS_HPP

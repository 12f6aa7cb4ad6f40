// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_BATCH_HPP
#define CTATTN_MATRIX_BATCH_HPP

/// \file
/// Batches: a fixed number of items along a batch axis that is an extent like any other (plain or named), and
/// `batch_map`, which runs any operation item by item. Batches nest: the reference text's B x h x n x d tensors
/// are a batch (axis B) of batches (axis h) of n x d matrices.

#include <cstddef>
#include <type_traits>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/shape/dimension.hpp"
#include "ctattn/shape/rule.hpp"

namespace ctattn {

namespace op {
struct batch_map {};
}  // namespace op

namespace shape_error {

/// Batches combined item by item have matching batch axes (equal sizes; equal names when both are named).
template <typename Operation, typename LhsAxis, typename RhsAxis>
struct batch_axes_must_match {
  static constexpr bool holds = detail::dims_match<LhsAxis, RhsAxis>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: batches combined item by item must have matching batch axes (equal sizes, and equal "
                  "names when both are named); pass batches of the same axis, e.g. the same batch and head counts");
    return holds;
  }
};

}  // namespace shape_error

/// A fixed-size batch of items along the batch axis `Axis`: usually written `ctattn::batch<Item, Axis>`.
///
/// | member          | meaning                                              |
/// |-----------------|------------------------------------------------------|
/// | `item_type`     | the items' type (a matrix, or a batch for nesting)   |
/// | `batch_extent`  | the batch axis (`2` or `batch_axis{2}`)              |
/// | `size`          | the number of items                                  |
/// | `items[b]`, `[b]` | item b                                             |
///
/// It is an aggregate like `ctattn::matrix`: usable in `static_assert`, zero when not initialized.
///
/// Example (the reference text's B x h x n x d queries, B = 2 sequences, h = 3 heads):
/// \code
///   struct batch_axis : ctattn::dimension<"batch"> {};
///   struct heads : ctattn::dimension<"heads"> {};
///   using queries = ctattn::batch<ctattn::batch<ctattn::matrix<float, seq{4}, d_k{5}>, heads{3}>, batch_axis{2}>;
/// \endcode
template <typename Item, auto Axis>
struct basic_batch {
  using item_type = Item;
  static constexpr auto batch_extent = Axis;
  static constexpr std::size_t size = extent_size(Axis);

  Item items[size]{};

  [[nodiscard]] constexpr Item& operator[](std::size_t b) noexcept { return items[b]; }
  [[nodiscard]] constexpr const Item& operator[](std::size_t b) const noexcept { return items[b]; }

  friend constexpr bool operator==(const basic_batch&, const basic_batch&) = default;
};

/// `batch<Item, Axis>`: `Axis` is normalized like a matrix dimension (`2`, `2u` and `std::size_t{2}` are one type).
template <typename Item, auto Axis>
using batch = basic_batch<Item, normalize_extent<Axis>>;

namespace detail {
template <typename T>
struct is_basic_batch : std::false_type {};
template <typename Item, auto Axis>
struct is_basic_batch<basic_batch<Item, Axis>> : std::true_type {};
}  // namespace detail

/// Any `ctattn::batch` (cv-qualifiers and references ignored).
template <typename B>
concept Batch = detail::is_basic_batch<std::remove_cvref_t<B>>::value;

namespace detail {

template <typename A, typename... Rest>
using batch_map_rules = rule_list<
    shape_error::batch_axes_must_match<op::batch_map, dim_of<A::batch_extent>, dim_of<Rest::batch_extent>>...>;

// One position of `batch_map`: f on the items, or one axis deeper when every item is a batch itself.
template <typename F, typename... Items>
constexpr auto batch_item(F& f, const Items&... items) noexcept;

}  // namespace detail

/// Runs `f` over batches item by item: `result[b] = f(a[b], rest[b]...)`. When every argument's items are batches
/// too, it goes on to their items, down to the first level where an argument's items are not batches, so that
/// one call runs attention over B x h x n x d tensors. The result is a batch (of batches) along the arguments'
/// axes.
///
/// | operand   | shape                                  |
/// |-----------|----------------------------------------|
/// | `a`       | B x (h x ...) items                    |
/// | `rest...` | B' x (h' x ...) items                  |
/// | result    | B x (h x ...) items of f's result      |
///
/// Rule: at every level the batch axes match (`batch_axes_must_match`: equal sizes, and equal names when both
/// are named); f's own rules apply to the items.
///
/// Example (multi-head attention over a batch, B x h x n x d, as the reference text writes it):
/// \code
///   auto out = ctattn::batch_map([](const auto& q, const auto& k, const auto& v) {
///     return ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal);
///   }, queries, keys, values);   // batch<batch<matrix<float, seq{4}, d_v{5}>, heads{3}>, batch_axis{2}>
/// \endcode
template <typename F, Batch A, Batch... Rest>
[[nodiscard]] constexpr auto batch_map(F f, const A& a, const Rest&... rest) noexcept {
  using item = std::remove_cvref_t<decltype(detail::batch_item(f, a.items[0], rest.items[0]...))>;
  basic_batch<item, A::batch_extent> result{};
  if constexpr (detail::first_broken<detail::batch_map_rules<A, Rest...>>::check()) {
    for (std::size_t b = 0; b < A::size; ++b) result.items[b] = detail::batch_item(f, a.items[b], rest.items[b]...);
  }
  return result;
}

namespace detail {
template <typename F, typename... Items>
constexpr auto batch_item(F& f, const Items&... items) noexcept {
  if constexpr ((Batch<Items> && ...)) {
    return batch_map(f, items...);
  } else {
    return f(items...);
  }
}
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_MATRIX_BATCH_HPP

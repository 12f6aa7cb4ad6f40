// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_PROJECTION_HPP
#define CTATTN_ATTENTION_PROJECTION_HPP

#include <cstddef>
#include <type_traits>

#include "ctattn/attention/rules.hpp"
#include "ctattn/kernels/dispatch.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// Weight layout of the reference text: y = x W (+ b), W stored d_in x d_out (Q = X W_Q).
struct in_by_out {};
/// Weight layout of PyTorch's nn.Linear: y = x W^T + b, W stored d_out x d_in (`linear.weight`).
struct out_by_in {};

/// A projection's layout: `in_by_out` or `out_by_in`.
template <typename L>
concept WeightLayout = std::is_same_v<L, in_by_out> || std::is_same_v<L, out_by_in>;

/// The bias of a projection without one (takes no space).
struct no_bias {
  friend constexpr bool operator==(const no_bias&, const no_bias&) = default;
};

/// A linear projection from In features to Out features, its layout named in its type, so that weights
/// imported from PyTorch (out x in) are never silently taken for the reference text's in x out, or back.
///
/// | member   | shape (`in_by_out`) | shape (`out_by_in`, PyTorch) |
/// |----------|---------------------|------------------------------|
/// | `weight` | In x Out            | Out x In                     |
/// | `bias`   | 1 x Out (when HasBias), else `no_bias` | 1 x Out (when HasBias) |
///
/// Example:
/// \code
///   // q_i = W_query x_i with W_query as torch.rand(24, 16) stores it:
///   ctattn::linear<float, d_model{16}, d_k{24}, ctattn::out_by_in> w_query{.weight = w};
///   auto q = ctattn::project(x, w_query);    // seq x d_k
/// \endcode
template <typename T, auto In, auto Out, WeightLayout Layout = in_by_out, bool HasBias = false>
struct basic_linear {
  using value_type = T;
  using layout = Layout;
  static constexpr auto input_extent = normalize_extent<In>;
  static constexpr auto output_extent = normalize_extent<Out>;
  static constexpr bool has_bias = HasBias;
  using weight_type =
      std::conditional_t<std::is_same_v<Layout, in_by_out>, basic_matrix<T, input_extent, output_extent>,
                         basic_matrix<T, output_extent, input_extent>>;
  using bias_type = std::conditional_t<HasBias, basic_matrix<T, std::size_t{1}, output_extent>, no_bias>;

  weight_type weight{};
  [[no_unique_address]] bias_type bias{};

  friend constexpr bool operator==(const basic_linear&, const basic_linear&) = default;
};

/// `linear<T, In, Out, Layout, HasBias>`: the projection users write. Extents are normalized, so a projection
/// spelled with `16`, `16u` or `std::size_t{16}` is one type.
template <typename T, auto In, auto Out, WeightLayout Layout = in_by_out, bool HasBias = false>
using linear = basic_linear<T, normalize_extent<In>, normalize_extent<Out>, Layout, HasBias>;

namespace detail {
template <typename P>
struct is_linear : std::false_type {};
template <typename T, auto In, auto Out, typename Layout, bool HasBias>
struct is_linear<basic_linear<T, In, Out, Layout, HasBias>> : std::true_type {};
}  // namespace detail

/// Any `ctattn::linear`.
template <typename P>
concept Projection = detail::is_linear<std::remove_cvref_t<P>>::value;

namespace detail {
/// The rules of applying projection P to the rows of X: one element type, X's columns match P's input side.
template <typename X, typename P>
using projection_rules = rule_list<
    shape_error::element_types_must_match<op::projection, typename X::value_type, typename P::value_type>,
    shape_error::input_width_must_match_weight<op::projection, dim_of<X::column_extent>, dim_of<P::input_extent>>>;

/// The rules of writing that projection into Y: Y has X's rows and P's outputs, in X's element type.
template <typename Y, typename X, typename P>
using projection_into_rules =
    rule_list<projection_rules<X, P>, same_element_rule<op::projection, Y, X>, rows_rule<op::projection, Y, X>,
              shape_error::columns_must_match<op::projection, dim_of<Y::column_extent>, dim_of<P::output_extent>>>;
}  // namespace detail

/// Whether projection P applies to the rows of X: one element type, and X's columns match P's input features.
///
/// Example:
/// \code
///   static_assert(ctattn::Projectable<ctattn::matrix<float, 6, 16>, ctattn::linear<float, 16, 24>>);
/// \endcode
template <typename X, typename P>
concept Projectable = FixedMatrix<X> && Projection<P> &&
                      rules_hold<detail::projection_rules<std::remove_cvref_t<X>, std::remove_cvref_t<P>>>;

namespace detail {
// y = x W (+ b) or x W^T (+ b), with arithmetic A; the rules are the caller's.
template <arithmetic A, typename Y, typename X, typename P>
constexpr void project_rows(Y& y, const X& x, const P& p) noexcept {
  if constexpr (std::is_same_v<typename P::layout, in_by_out>) {
    kernels::product<A>(y.elements, x.elements, p.weight.elements);
  } else {
    kernels::product_transposed<A>(y.elements, x.elements, p.weight.elements);
  }
  if constexpr (P::has_bias) {
    for (std::size_t i = 0; i < Y::rows; ++i) {
      for (std::size_t o = 0; o < Y::cols; ++o) y.elements[i][o] += p.bias.elements[0][o];
    }
  }
}

// The projection of x's rows as a new matrix, with arithmetic A; the rules are the caller's.
template <arithmetic A, typename X, typename P>
constexpr auto projected(const X& x, const P& p) noexcept {
  basic_matrix<typename X::value_type, X::row_extent, P::output_extent> y{};
  project_rows<A>(y, x, p);
  return y;
}
}  // namespace detail

/// Applies a projection to every row of x, writing into `y` (no result on the stack: firmware keeps y in static
/// storage). Same rules and arithmetic as `project`.
///
/// | operand | shape       |
/// |---------|-------------|
/// | `y`     | n x Out (overwritten) |
/// | `x`     | n x In'     |
/// | `p`     | In -> Out   |
///
/// Example:
/// \code
///   static ctattn::matrix<float, seq{6}, d_k{24}> q;   // .bss, not the stack
///   ctattn::project_into(q, x, w_query);
/// \endcode
template <FixedMatrix Y, FixedMatrix X, Projection P>
constexpr void project_into(Y& y, const X& x, const P& p) noexcept {
  if constexpr (detail::first_broken<detail::projection_into_rules<Y, X, P>>::check()) {
    detail::project_rows<default_arithmetic>(y, x, p);
  }
}

/// The same projection with its weight stored in layout `L`: W transposed when L differs from the layout it has,
/// the bias as it is. Results are unchanged (each output still sums the input features in order). Evaluated at
/// compile time on a `constexpr` projection, it costs nothing at run time: import PyTorch's out x in weights and
/// let the compiler store them in x out, the layout the fast product streams row by row (docs/kernels.md says what
/// that buys).
///
/// | operand | layout            | result layout |
/// |---------|-------------------|---------------|
/// | `p`     | `in_by_out` or `out_by_in` | `L`  |
///
/// Example:
/// \code
///   constexpr auto w_query = ctattn::relayout<ctattn::in_by_out>(torch_query);   // transposed by the compiler
/// \endcode
template <WeightLayout L, typename T, auto In, auto Out, typename Layout, bool HasBias>
[[nodiscard]] constexpr basic_linear<T, In, Out, L, HasBias> relayout(
    const basic_linear<T, In, Out, Layout, HasBias>& p) noexcept {
  basic_linear<T, In, Out, L, HasBias> result{};
  if constexpr (std::is_same_v<L, Layout>) {
    result.weight = p.weight;
  } else {
    using from = typename basic_linear<T, In, Out, Layout, HasBias>::weight_type;
    for (std::size_t r = 0; r < from::rows; ++r) {
      for (std::size_t c = 0; c < from::cols; ++c) result.weight.elements[c][r] = p.weight.elements[r][c];
    }
  }
  result.bias = p.bias;
  return result;
}

/// Applies a projection to every row of x: y = x W (+ b) or y = x W^T + b, as the layout says.
///
/// | operand | shape       |
/// |---------|-------------|
/// | `x`     | n x In'     |
/// | `p`     | In -> Out   |
/// | result  | n x Out     |
///
/// Rule: In' matches In (sizes, and names when both are named); one element type. Each output is the sum over
/// the input features in order, starting from +0, then the bias is added (exact arithmetic; fast arithmetic runs
/// the SIMD backend's product, see ctattn/kernels/backend.hpp).
///
/// Example:
/// \code
///   auto k = ctattn::project(x, w_key);
/// \endcode
template <FixedMatrix X, Projection P>
[[nodiscard]] constexpr auto project(const X& x, const P& p) noexcept {
  if constexpr (detail::first_broken<detail::projection_rules<X, P>>::check()) {
    return detail::projected<default_arithmetic>(x, p);
  } else {
    return basic_matrix<typename X::value_type, X::row_extent, P::output_extent>{};
  }
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_PROJECTION_HPP

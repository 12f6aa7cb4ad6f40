#ifndef CTATTN_ATTENTION_PROJECTION_HPP
#define CTATTN_ATTENTION_PROJECTION_HPP

#include <cstddef>
#include <type_traits>

#include "ctattn/attention/rules.hpp"
#include "ctattn/detail/unrolled.hpp"
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
  using weight_type = std::conditional_t<std::is_same_v<Layout, in_by_out>, basic_matrix<T, input_extent, output_extent>,
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
using projection_rules =
    rule_list<shape_error::element_types_must_match<op::projection, typename X::value_type, typename P::value_type>,
              shape_error::input_width_must_match_weight<op::projection, dim_of<X::column_extent>,
                                                         dim_of<P::input_extent>>>;

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
  using T = typename X::value_type;
  if constexpr (detail::first_broken<detail::projection_into_rules<Y, X, P>>::check()) {
    constexpr std::size_t n = X::rows;
    constexpr std::size_t d_in = X::cols;
    constexpr std::size_t d_out = extent_size(P::output_extent);
    if constexpr (std::is_same_v<typename P::layout, in_by_out>) {
      // Row i of x times W: the same i-k-j loop as ctattn::multiply (and, constant-evaluated, its form).
      if (std::is_constant_evaluated()) {
        detail::unrolled_product(y.elements, x.elements, p.weight.elements);
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          T(&y_row)[d_out] = y.elements[i];
          for (std::size_t o = 0; o < d_out; ++o) y_row[o] = T{0};
          for (std::size_t c = 0; c < d_in; ++c) {
            const T x_ic = x.elements[i][c];
            const T(&w_row)[d_out] = p.weight.elements[c];
            for (std::size_t o = 0; o < d_out; ++o) y_row[o] += x_ic * w_row[o];
          }
        }
      }
    } else {
      // Row i of x against row o of W: a dot product over contiguous memory on both sides.
      if (std::is_constant_evaluated()) {
        detail::unrolled_product_transposed(y.elements, x.elements, p.weight.elements);
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          const T(&x_row)[d_in] = x.elements[i];
          for (std::size_t o = 0; o < d_out; ++o) {
            const T(&w_row)[d_in] = p.weight.elements[o];
            T acc{0};
            for (std::size_t c = 0; c < d_in; ++c) acc += x_row[c] * w_row[c];
            y.elements[i][o] = acc;
          }
        }
      }
    }
    if constexpr (P::has_bias) {
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t o = 0; o < d_out; ++o) y.elements[i][o] += p.bias.elements[0][o];
      }
    }
  }
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
/// the input features in order, starting from +0, then the bias is added.
///
/// Example:
/// \code
///   auto k = ctattn::project(x, w_key);
/// \endcode
template <FixedMatrix X, Projection P>
[[nodiscard]] constexpr auto project(const X& x, const P& p) noexcept {
  basic_matrix<typename X::value_type, X::row_extent, P::output_extent> y{};
  if constexpr (detail::first_broken<detail::projection_rules<X, P>>::check()) project_into(y, x, p);
  return y;
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_PROJECTION_HPP

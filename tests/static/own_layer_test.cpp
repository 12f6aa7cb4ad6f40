// A layer of one's own (docs/layers.md, "A layer of your own"): the protocol a user's layer meets to sit in a
// ctattn::model beside the library's layers: its widths and element type, `forward`, `parameters` by PyTorch's
// names, `footprint_of`. Compiling this file is the test; each piece it leaves out has a compile-fail test
// (tests/compile_fail/own_layer_*.cpp) whose first line is the rule's sentence.
#include <array>
#include <cstddef>

#include <boost/hana/tuple.hpp>
#include <ctattn/layers.hpp>

namespace {

// x * weight, column by column: PyTorch's `x * self.weight` with `self.weight = nn.Parameter(torch.ones(width))`.
template <typename T, std::size_t Width>
struct channel_scale {
  // 1. The element type and the widths in and out (or `static constexpr bool keeps_width = true;`), which the
  //    model's chain checks against its neighbours' where the model is declared.
  using value_type = T;
  static constexpr std::size_t input_extent = Width;
  static constexpr std::size_t output_extent = Width;

  // 2. The parameters, as the module holds them.
  ctattn::matrix<T, 1, Width> weight = [] {
    ctattn::matrix<T, 1, Width> ones{};
    for (std::size_t c = 0; c < Width; ++c) ones.elements[0][c] = T{1};
    return ones;
  }();

  // 3. forward: constexpr, noexcept, no allocation; the options are the call's (an arithmetic, a mask), to be
  //    passed on to the library's calls or ignored.
  template <ctattn::FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    ctattn::basic_matrix<T, X::row_extent, Width> y{};
    for (std::size_t r = 0; r < X::rows; ++r) {
      for (std::size_t c = 0; c < Width; ++c) y.elements[r][c] = x.elements[r][c] * weight.elements[0][c];
    }
    return y;
  }

  // 4. What one call keeps (ctattn::layer_footprint): the layer, its input, its output, nothing else on the stack.
  template <ctattn::FixedMatrix X>
  [[nodiscard]] static constexpr ctattn::footprint footprint_of() noexcept {
    return {sizeof(channel_scale), sizeof(X), sizeof(ctattn::basic_matrix<T, X::row_extent, Width>), 0, 0};
  }

  // 5. Its parameters by name, in state_dict order, for loading, printing and quantizing: a const and a mutable
  //    overload (or one template on the layer's type).
  friend constexpr auto parameters(channel_scale& self) noexcept {
    return boost::hana::make_tuple(ctattn::vector_parameter("weight", self.weight));
  }
  friend constexpr auto parameters(const channel_scale& self) noexcept {
    return boost::hana::make_tuple(ctattn::vector_parameter("weight", self.weight));
  }
  friend constexpr bool operator==(const channel_scale&, const channel_scale&) = default;
};

struct net : ctattn::model<net> {
  BOOST_HANA_DEFINE_STRUCT(net, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, fc),
                           (channel_scale<float, 8>, scale), (ctattn::linear<float, 8, 2, ctattn::out_by_in>, head));
};

static_assert(ctattn::Layer<channel_scale<float, 8>> && ctattn::HasParameters<channel_scale<float, 8>>);
static_assert(ctattn::parameter_tensor_count(net{}) == 4);
static_assert(ctattn::parameter_name_at(net{}, 2).view() == "scale.weight");
static_assert(ctattn::parameter_count(net{}) == 4 * 8 + 8 + 8 + 8 * 2);

// It runs in the model's forward, in constant evaluation as at run time: with fc's weights 1 and bias 0, the
// scale 2 doubles the sums of the input's row, and the head adds up the eight.
static_assert([] {
  net n{};
  ctattn::for_each_parameter(n, [](std::string_view name, const auto& tensor) {
    for (std::size_t i = 0; i < tensor.size; ++i) {
      tensor[i] = name == "scale.weight" ? 2.0f : (name == "fc.bias" ? 0.0f : 1.0f);
    }
  });
  const auto y = ctattn::forward(n, ctattn::matrix<float, 1, 4>{{{1, 2, 3, 4}}});
  return y(0, 0) == 8 * 2 * 10.0f && y(0, 1) == 8 * 2 * 10.0f;
}());

// Its footprint joins the model's.
constexpr auto fp = ctattn::layer_footprint<net, ctattn::matrix<float, 3, 4>>;
static_assert(fp.weight_bytes == sizeof(net));
static_assert(ctattn::layer_footprint<channel_scale<float, 8>, ctattn::matrix<float, 3, 8>>.output_bytes ==
              3 * 8 * sizeof(float));

}  // namespace

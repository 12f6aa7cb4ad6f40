// A layer of one's own (docs/layers.md, "A layer of your own"): the protocol a user's layer meets to sit in a
// ctattn::model beside the library's layers: its widths and element type, `forward`, `parameters` by PyTorch's
// names, `footprint_of` (the worked example, `channel_scale`, is tests/support/own_layer_cases.hpp). Compiling this
// file is the test; each piece it leaves out has a compile-fail test (tests/compile_fail/own_layer_*.cpp) whose
// first line is the rule's sentence.
#include <cstddef>
#include <string_view>

#include <ctattn/layers.hpp>

#include "support/own_layer_cases.hpp"

namespace {

// The layer and a model holding it (tests/support/own_layer_cases.hpp, where the protocol's pieces are numbered 1
// to 6; the sixth, its int8 form, is tests/static/own_layer_int8_test.cpp's).
using ctattn_test::own_layer_cases::channel_scale;
using ctattn_test::own_layer_cases::net;

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

// The layers tier at compile time: every layer loaded from PyTorch's state_dict through the parameter walk (names,
// order and shapes must be PyTorch's) and its forward pass checked against PyTorch's output, in float and double.
#include "support/layer_cases.hpp"

#include <ctattn/layers.hpp>

namespace {

namespace cases = ctattn_test::layer_cases;

// Every layer against PyTorch; a failure names the index of the first case off its bound (layer_cases.hpp).
constexpr auto results = cases::results();
static_assert(cases::first_failure(results) == results.size());

// The parameter walk: PyTorch's names, counts and views.
constexpr cases::encoder<float, ctattn::relu, false> an_encoder{};
static_assert(ctattn::parameter_tensor_count(an_encoder) == 12);
static_assert(ctattn::parameter_count(an_encoder) == 3 * 8 * 8 + 3 * 8 + 8 * 8 + 8 + 16 * 8 + 16 + 8 * 16 + 8 + 4 * 8);
static_assert(ctattn::parameter_name_at(an_encoder, 0).view() == "self_attn.in_proj_weight");
static_assert(ctattn::parameter_name_at(an_encoder, 11).view() == "norm2.bias");
static_assert(ctattn::parameter_name_at(an_encoder, 12).view().empty());
constexpr ctattn::sequential two_layers{an_encoder, an_encoder};
static_assert(ctattn::parameter_name_at(two_layers, 13).view() == "1.self_attn.in_proj_bias");
// Weights stored in x out are viewed transposed: the same names and PyTorch's shapes.
constexpr ctattn::linear<float, 3, 2, ctattn::in_by_out, true> text_linear{{{{1, 2}, {3, 4}, {5, 6}}}, {{{7, 8}}}};
static_assert([] {
  float first_row[3]{};
  ctattn::for_each_parameter(text_linear, [&](std::string_view name, const auto& view) {
    if (name == "weight" && view.shape[0] == 2 && view.shape[1] == 3) {
      for (std::size_t i = 0; i < 3; ++i) first_row[i] = view[i];
    }
  });
  return first_row[0] == 1 && first_row[1] == 3 && first_row[2] == 5;
}());

// Imported weights: from_parameters fills a model in state_dict order; parameter_names_match is the check an
// imported header makes.
constexpr float norm_values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
constexpr auto norm = ctattn::from_parameters<ctattn::layer_norm<float, 4>>(norm_values);
static_assert(norm.weight(0, 3) == 4 && norm.bias(0, 0) == 5 && norm.bias(0, 3) == 8);
constexpr const char* norm_names[] = {"weight", "bias"};
constexpr const char* swapped_names[] = {"bias", "weight"};
constexpr const char* too_few_names[] = {"weight"};
static_assert(ctattn::parameter_names_match<ctattn::layer_norm<float, 4>>(norm_names));
static_assert(!ctattn::parameter_names_match<ctattn::layer_norm<float, 4>>(swapped_names));
static_assert(!ctattn::parameter_names_match<ctattn::layer_norm<float, 4>>(too_few_names));
static_assert(!ctattn::parameter_names_match<ctattn::rms_norm<float, 4>>(norm_names));

// Decoder layers compose in ctattn::sequential (the memory given with the call's options): a stack's result, its
// footprint (the memory taken as long as the target) and its parameters' names, as nn.TransformerDecoder's.
using decoder_stack_type = decltype(cases::decoder_stack<float>{}.layers);
using target_rows = ctattn::matrix<float, 5, 8>;
static_assert(std::is_same_v<ctattn::detail::layer_result<decoder_stack_type, target_rows>, target_rows>);
static_assert(ctattn::layer_footprint<decoder_stack_type, target_rows>.weight_bytes == sizeof(decoder_stack_type));
static_assert(ctattn::layer_footprint<decoder_stack_type, target_rows>.stack_bytes >
              ctattn::layer_footprint<cases::decoder<float, ctattn::gelu, true>, target_rows>.stack_bytes);
static_assert(ctattn::parameter_name_at(cases::decoder_stack<float>{}, 18).view() ==
              "layers.1.self_attn.in_proj_weight");
// The same stack as a model (ctattn::model): its result and footprint are its one member's.
static_assert(std::is_same_v<cases::decoder_stack<float>::result_of<target_rows>, target_rows>);
static_assert(ctattn::layer_footprint<cases::decoder_stack<float>, target_rows> ==
              ctattn::layer_footprint<decoder_stack_type, target_rows>);
static_assert(ctattn::Model<cases::decoder_stack<float>> && !ctattn::Model<decoder_stack_type>);

// A model declared once (ctattn::model) against the same layers in ctattn::sequential, with the same weights:
// the same result, bit for bit; the same footprint; the member names as the parameters' names; the model holds
// nothing but its members; comparison member by member.
struct mlp_model : ctattn::model<mlp_model> {
  BOOST_HANA_DEFINE_STRUCT(mlp_model, (ctattn::linear<float, 8, 16, ctattn::out_by_in, true>, hidden),
                           (ctattn::gelu_tanh, act), (ctattn::linear<float, 16, 3, ctattn::out_by_in, true>, out));
};
template <typename M>
constexpr M numbered() noexcept {
  M m{};
  int k = 0;
  ctattn::for_each_parameter(m, [&](std::string_view, const auto& view) {
    for (std::size_t i = 0; i < view.size; ++i, ++k) view[i] = static_cast<float>((k * 37) % 19 - 9) / 16.0f;
  });
  return m;
}
constexpr float mlp_rows[2][8] = {{0.5f, -1, 2, 0, 1, -0.25f, 3, 1}, {1, 1, -1, 2, 0, 0.5f, -2, 4}};
constexpr auto mlp_input = ctattn::from_array(mlp_rows);
static_assert(numbered<mlp_model>().forward(mlp_input) == ctattn::forward(numbered<cases::mlp<float>>(), mlp_input));
static_assert(ctattn::forward(numbered<mlp_model>(), mlp_input) == numbered<mlp_model>().forward(mlp_input));
static_assert(!(numbered<mlp_model>().forward(mlp_input) == ctattn::forward(cases::mlp<float>{}, mlp_input)));
static_assert(ctattn::layer_footprint<mlp_model, decltype(mlp_input)> ==
              ctattn::layer_footprint<cases::mlp<float>, decltype(mlp_input)>);
static_assert(ctattn::parameter_name_at(mlp_model{}, 0).view() == "hidden.weight");
static_assert(ctattn::parameter_name_at(mlp_model{}, 3).view() == "out.bias");
static_assert(ctattn::parameter_tensor_count(mlp_model{}) == 4);
// The base holds nothing; the activation member takes one byte, padded to the next member's alignment (the
// sequential's Hana tuple stores it in none).
static_assert(sizeof(mlp_model) == sizeof(cases::mlp<float>) + alignof(float));
static_assert(numbered<mlp_model>() == numbered<mlp_model>() && !(numbered<mlp_model>() == mlp_model{}));
static_assert(std::is_same_v<mlp_model::result_of<decltype(mlp_input)>, ctattn::matrix<float, 2, 3>>);

}  // namespace

// The layers tier at compile time: every layer loaded from PyTorch's state_dict through the parameter walk (names,
// order and shapes must be PyTorch's) and its forward pass checked against PyTorch's output, in float and double.
#include "support/layer_cases.hpp"

#include <type_traits>

#include <ctattn/layers.hpp>
#include <ctattn/layers/links.hpp>
#include <ctattn/quantized/model.hpp>
#include <ctattn/quantized/ranges.hpp>

namespace {

namespace cases = ctattn_test::layer_cases;

// Every layer against PyTorch; a failure names the index of the first case off its bound (layer_cases.hpp).
constexpr auto layer_results = cases::layer_results();
static_assert(cases::first_failure(layer_results) == layer_results.size());
constexpr auto decoder_results = cases::decoder_results();
static_assert(cases::first_failure(decoder_results) == decoder_results.size());
constexpr auto front_end_results = cases::front_end_results();
static_assert(cases::first_failure(front_end_results) == front_end_results.size());

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

// Front ends (ctattn/layers/patch.hpp, embedding.hpp, pool.hpp). A convolution's weight is PyTorch's tensor of rank
// 3 or 4 over the projection's rows, in the same order; a class token and positions held as nn.Parameter are named
// by their member alone, and a model walks them before its other members, as PyTorch's state_dict lists a module's
// own parameters before its children's.
constexpr ctattn::patch_embedding_2d<float, 3, 32, 32, 8, 8, 16> image_patches{};
static_assert(ctattn::parameter_count(image_patches) == 16 * 3 * 8 * 8 + 16);
static_assert([] {
  std::array<std::size_t, 4> shape{};
  std::size_t rank = 0;
  ctattn::for_each_parameter(image_patches, [&](std::string_view name, const auto& view) {
    if (name == "weight") {
      rank = view.rank;
      for (std::size_t d = 0; d < view.rank && d < 4; ++d) shape[d] = view.shape[d];
    }
  });
  return rank == 4 && shape == std::array<std::size_t, 4>{16, 3, 8, 8};
}());
// Element (d, c, i, j) of PyTorch's weight is the projection's (d, c 64 + i 8 + j): the order of the gathered patch.
static_assert([] {
  auto embed = image_patches;
  std::size_t k = 0;
  ctattn::for_each_parameter(embed, [&](std::string_view name, const auto& view) {
    if (name == "weight") {
      for (std::size_t i = 0; i < view.size; ++i) view[i] = static_cast<float>(k++);
    }
  });
  return embed.projection.weight(1, 2 * 64 + 3 * 8 + 5) == static_cast<float>(1 * 192 + 2 * 64 + 3 * 8 + 5);
}());
// Patches in row-major order, each gathered channel first: pixel (row 9, column 2), channel 1 is patch 4's (its
// second row of patches, first column) entry 1 * 64 + 1 * 8 + 2.
static_assert([] {
  ctattn::matrix<float, 32 * 32, 3> image{};
  image(9 * 32 + 2, 1) = 5.0f;
  const auto p = decltype(image_patches)::patches(image);
  return decltype(p)::rows == 16 && p(4, 64 + 8 + 2) == 5.0f;
}());
// The footprint: the gathered patches on the stack, the tokens out.
static_assert(ctattn::layer_footprint<decltype(image_patches), ctattn::matrix<float, 1024, 3>>.stack_bytes ==
              16 * 192 * sizeof(float));
static_assert(ctattn::layer_footprint<decltype(image_patches), ctattn::matrix<float, 1024, 3>>.output_bytes ==
              16 * 16 * sizeof(float));
static_assert(ctattn::held_by_module<ctattn::class_token<float, 8>> &&
              ctattn::held_by_module<ctattn::position_parameter<float, 5, 8>> &&
              !ctattn::held_by_module<ctattn::position_embedding<float, 5, 8>> &&
              !ctattn::held_by_module<ctattn::patch_embedding_1d<float, 3, 4, 8>>);
static_assert(ctattn::parameter_name_at(cases::front_end_token<float>{}, 0).view() == "cls_token");
static_assert(ctattn::parameter_name_at(cases::front_end_token<float>{}, 1).view() == "pos_embed");
static_assert(ctattn::parameter_name_at(cases::front_end_token<float>{}, 2).view() == "proj.weight");
static_assert(ctattn::parameter_name_at(cases::front_end_token<float>{}, 5).view() == "norm.bias");
static_assert(ctattn::parameter_name_at(cases::front_end_token<float>{}, 6).view().empty());
// Positions held as nn.Parameter [1, 5, 8], a class token [1, 1, 8]; positions as nn.Embedding keep `weight`.
static_assert([] {
  std::size_t ranks = 0;
  const cases::front_end_token<float> front{};
  ctattn::for_each_parameter(front, [&](std::string_view name, const auto& view) {
    if ((name == "cls_token" && view.shape[0] == 1 && view.shape[1] == 1 && view.shape[2] == 8) ||
        (name == "pos_embed" && view.shape[0] == 1 && view.shape[1] == 5 && view.shape[2] == 8)) {
      ranks += view.rank;
    }
  });
  return ranks == 6;
}());
static_assert(ctattn::parameter_name_at(ctattn::position_embedding<float, 5, 8>{}, 0).view() == "weight");
// The class token goes first; the positions add to every row; the pools give one row.
static_assert([] {
  ctattn::class_token<float, 2> cls{};
  cls.token = {{{7, 8}}};
  const auto y = ctattn::forward(cls, ctattn::matrix<float, 2, 2>{{{1, 2}, {3, 4}}});
  return decltype(y)::rows == 3 && y(0, 0) == 7 && y(0, 1) == 8 && y(1, 0) == 1 && y(2, 1) == 4 &&
         ctattn::forward(ctattn::class_token_pool{}, y) == ctattn::matrix<float, 1, 2>{{{7, 8}}} &&
         ctattn::forward(ctattn::mean_pool{}, y) == ctattn::matrix<float, 1, 2>{{{11.0f / 3, 14.0f / 3}}};
}());
// Settings changed by path or by name: a norm's eps, as timm and KWT build theirs (1e-6).
static_assert([] {
  cases::encoder<float, ctattn::relu, false> block{};
  const bool one = ctattn::set_setting(block, "norm2.eps", 1e-6);
  const bool none = ctattn::set_setting(block, "norm3.eps", 1e-6) || ctattn::set_setting(block, "eps", 1e-6) ||
                    ctattn::set_setting(block, "self_attn.num_heads", 4);
  const bool first = block.norm1.eps == 1e-5f && block.norm2.eps == 1e-6f;
  const std::size_t every = ctattn::set_every_setting(block, "eps", 1e-7);
  return one && !none && first && every == 2 && block.norm1.eps == 1e-7f && block.norm2.eps == 1e-7f;
}());
static_assert([] {
  cases::front_end_token<double> front{};
  return ctattn::set_setting(front, "norm.eps", 1e-6) && front.norm.eps == 1e-6;
}());

// docs/layers.md's small ViT: its types compose, its walk starts as timm's state_dict does, and its result is one row
// of logits.
using vit_block = ctattn::transformer_encoder_layer<float, 64, 4, 256, ctattn::gelu, /*norm_first=*/true>;
struct tiny_vit : ctattn::model<tiny_vit> {
  BOOST_HANA_DEFINE_STRUCT(tiny_vit, (ctattn::patch_embedding_2d<float, 3, 32, 32, 8, 8, 64>, proj),
                           (ctattn::class_token<float, 64>, cls_token),
                           (ctattn::position_parameter<float, 17, 64>, pos_embed),
                           (ctattn::sequential<vit_block, vit_block>, blocks), (ctattn::layer_norm<float, 64>, norm),
                           (ctattn::class_token_pool, pool),
                           (ctattn::linear<float, 64, 10, ctattn::out_by_in, true>, head));
};
static_assert(std::is_same_v<tiny_vit::result_of<ctattn::matrix<float, 1024, 3>>, ctattn::matrix<float, 1, 10>>);
static_assert(ctattn::parameter_name_at(tiny_vit{}, 0).view() == "cls_token" &&
              ctattn::parameter_name_at(tiny_vit{}, 1).view() == "pos_embed" &&
              ctattn::parameter_name_at(tiny_vit{}, 2).view() == "proj.weight" &&
              ctattn::parameter_name_at(tiny_vit{}, 4).view() == "blocks.0.self_attn.in_proj_weight");

// A model's links (ctattn/layers/links.hpp): its members with nested chains spliced in, named as their parameters'
// prefixes; run in turn, they are the model's forward, bit for bit.
static_assert(ctattn::link_count<tiny_vit> == 8 && ctattn::link_count<cases::front_end_token<float>> == 5);
static_assert(ctattn::link_name<3, tiny_vit>.view() == "blocks.0" &&
              ctattn::link_name<4, tiny_vit>.view() == "blocks.1" && ctattn::link_name<7, tiny_vit>.view() == "head");
static_assert(std::is_same_v<ctattn::link_type<4, tiny_vit>, vit_block> &&
              std::is_same_v<ctattn::link_type<6, tiny_vit>, ctattn::class_token_pool>);
static_assert(
    std::is_same_v<ctattn::link_result<1, tiny_vit, ctattn::matrix<float, 1024, 3>>, ctattn::matrix<float, 17, 64>>);
static_assert([] {
  const auto front = ctattn_test::numbered<cases::front_end_token<float>>();
  const auto x = ctattn::from_array(ctattn_fixtures::layers::front_end_token::input_f32);
  const auto h = ctattn::run_links<0, 2>(front, x);
  return ctattn::run_links<0, 5>(front, x) == front.forward(x) &&
         ctattn::run_links<2, 5>(front, h) == front.forward(x) && &ctattn::link<3>(front) == &front.norm;
}());

// A model's footprint composes the front end's calls: the largest intermediate is the patches.
static_assert(ctattn::layer_footprint<cases::front_end_token<float>, ctattn::matrix<float, 16, 2>>.output_bytes ==
              8 * sizeof(float));

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
using ctattn_test::numbered;
constexpr float mlp_rows[2][8] = {{0.5f, -1, 2, 0, 1, -0.25f, 3, 1}, {1, 1, -1, 2, 0, 0.5f, -2, 4}};
constexpr auto mlp_input = ctattn::from_array(mlp_rows);
static_assert(numbered<mlp_model>().forward(mlp_input) == ctattn::forward(numbered<cases::mlp<float>>(), mlp_input));
static_assert(ctattn::forward(numbered<mlp_model>(), mlp_input) == numbered<mlp_model>().forward(mlp_input));
static_assert(!(numbered<mlp_model>().forward(mlp_input) == ctattn::forward(cases::mlp<float>{}, mlp_input)));
// The same footprint but for the weights, which are each object's size: what flash holds, padding included.
constexpr ctattn::footprint mlp_model_footprint = ctattn::layer_footprint<mlp_model, decltype(mlp_input)>;
constexpr ctattn::footprint mlp_sequential_footprint = ctattn::layer_footprint<cases::mlp<float>, decltype(mlp_input)>;
static_assert(mlp_model_footprint.weight_bytes == sizeof(mlp_model) &&
              mlp_sequential_footprint.weight_bytes == sizeof(cases::mlp<float>));
static_assert(ctattn::footprint{mlp_model_footprint.weight_bytes - alignof(float), mlp_model_footprint.input_bytes,
                                mlp_model_footprint.output_bytes, mlp_model_footprint.workspace_bytes,
                                mlp_model_footprint.stack_bytes} == mlp_sequential_footprint);
static_assert(ctattn::parameter_name_at(mlp_model{}, 0).view() == "hidden.weight");
static_assert(ctattn::parameter_name_at(mlp_model{}, 3).view() == "out.bias");
static_assert(ctattn::parameter_tensor_count(mlp_model{}) == 4);
// The base holds nothing; the activation member takes one byte, padded to the next member's alignment (the
// sequential's Hana tuple stores it in none).
static_assert(sizeof(mlp_model) == sizeof(cases::mlp<float>) + alignof(float));
static_assert(numbered<mlp_model>() == numbered<mlp_model>() && !(numbered<mlp_model>() == mlp_model{}));
static_assert(std::is_same_v<mlp_model::result_of<decltype(mlp_input)>, ctattn::matrix<float, 2, 3>>);

// Which forward a model has: the derived one (its members in turn), or one of its own, which hides it and which
// ctattn::quantize and ctattn::record_ranges refuse; and a base that names another model, which every library
// function refuses (tests/compile_fail/*naming_another*.cpp).
struct residual_mlp : ctattn::model<residual_mlp> {
  BOOST_HANA_DEFINE_STRUCT(residual_mlp, (ctattn::linear<float, 8, 8, ctattn::out_by_in, true>, inner),
                           (ctattn::gelu_tanh, act));
  template <typename X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    return ctattn::add(x, ctattn::forward(act, ctattn::forward(inner, x, options...)));
  }
};
struct fixed_input_model : ctattn::model<fixed_input_model> {
  BOOST_HANA_DEFINE_STRUCT(fixed_input_model, (ctattn::gelu_tanh, act));
  [[nodiscard]] constexpr auto forward(const ctattn::matrix<float, 2, 8>& x) const noexcept { return x; }
};
struct copied_model : ctattn::model<mlp_model> {
  BOOST_HANA_DEFINE_STRUCT(copied_model, (ctattn::gelu_tanh, act));
};
static_assert(ctattn::DerivedForward<mlp_model> && ctattn::DerivedForward<const mlp_model&>);
static_assert(!ctattn::DerivedForward<residual_mlp> && !ctattn::DerivedForward<fixed_input_model>);
static_assert(!ctattn::DerivedForward<copied_model> && !ctattn::DerivedForward<cases::mlp<float>>);
static_assert(ctattn::detail::misdeclared_model<copied_model> && !ctattn::detail::misdeclared_model<mlp_model>);
static_assert(!ctattn::detail::misdeclared_model<cases::mlp<float>> && !ctattn::Model<copied_model>);
static_assert(numbered<residual_mlp>().forward(mlp_input) ==
              ctattn::add(mlp_input, ctattn::forward(numbered<residual_mlp>().act,
                                                     ctattn::forward(numbered<residual_mlp>().inner, mlp_input))));

// Calibration by the library (ctattn::record_ranges): the model's own output, bit for bit, and the range of every
// member's output under its name, each the range of what the member's forward gives.
constexpr bool records_a_chain = [] {
  const mlp_model m = numbered<mlp_model>();
  ctattn::activation_ranges<8> ranges{};
  const auto y = ctattn::record_ranges(m, mlp_input, ranges);
  const auto hidden = ctattn::forward(m.hidden, mlp_input);
  return y == m.forward(mlp_input) && ranges.size() == 5 && ranges.name(0) == "input" && ranges.name(1) == "hidden" &&
         ranges.name(2) == "act" && ranges.name(3) == "out" && ranges.name(4) == "output" &&
         *ranges.find("input") == ctattn::observed_range(mlp_input) &&
         *ranges.find("hidden") == ctattn::observed_range(hidden) &&
         *ranges.find("act") == ctattn::observed_range(ctattn::forward(m.act, hidden)) &&
         *ranges.find("out") == ctattn::observed_range(y) && !ranges.overflowed;
}();
static_assert(records_a_chain);
// Two samples widen one range; a recorder too small says so.
static_assert([] {
  const mlp_model m = numbered<mlp_model>();
  ctattn::activation_ranges<8> both{}, first{};
  ctattn::activation_ranges<2> small{};
  const auto other = ctattn::scale(mlp_input, -2.0f);
  (void)ctattn::record_ranges(m, mlp_input, both);
  (void)ctattn::record_ranges(m, other, both);
  (void)ctattn::record_ranges(m, mlp_input, first);
  (void)ctattn::record_ranges(m, mlp_input, small);
  const auto wide = *both.find("hidden");
  const auto one = *first.find("hidden");
  const auto two = ctattn::observed_range(ctattn::forward(m.hidden, other));
  return wide.lo == (one.lo < two.lo ? one.lo : two.lo) && wide.hi == (one.hi > two.hi ? one.hi : two.hi) &&
         small.overflowed && small.size() == 2 && small.name(1) == "hidden";
}());

// An encoder layer's points under its path, each the range of the float layer's own intermediate; its output the
// layer's forward, bit for bit. A causal layer's scores cover only the keys each query sees.
template <typename Encoder>
struct encoder_model : ctattn::model<encoder_model<Encoder>> {
  BOOST_HANA_DEFINE_STRUCT(encoder_model, (Encoder, block));
};
constexpr float encoder_rows[3][8] = {
    {0.5f, -1, 2, 0, 1, -0.25f, 3, 1}, {1, 1, -1, 2, 0, 0.5f, -2, 4}, {-3, 0.75f, 1, 1, -1, 2, 0.5f, 0}};
constexpr auto encoder_input = ctattn::from_array(encoder_rows);
template <typename Encoder>
constexpr auto recorded_encoder() noexcept {
  const auto m = numbered<encoder_model<Encoder>>();
  ctattn::activation_ranges<32> ranges{};
  const auto y = ctattn::record_ranges(m, encoder_input, ranges);
  struct result {
    ctattn::activation_ranges<32> ranges;
    bool same_output;
    ctattn::value_range query;
  };
  const auto normed = ctattn::forward(m.block.norm1, encoder_input);
  return result{ranges, y == m.forward(encoder_input),
                ctattn::observed_range(ctattn::forward(m.block.self_attn.weights.query, normed))};
}
constexpr auto plain_encoder = recorded_encoder<cases::encoder<float, ctattn::gelu, true>>();
static_assert(plain_encoder.same_output && !plain_encoder.ranges.overflowed);
static_assert(*plain_encoder.ranges.find("block.query") == plain_encoder.query);
static_assert([] {
  for (const char* point :
       {"block.norm1", "block.key", "block.value", "block.scores", "block.context", "block.attention", "block.sum1",
        "block.norm2", "block.hidden", "block.activation", "block.feed_forward", "block", "output"}) {
    if (plain_encoder.ranges.find(point) == nullptr) return false;
  }
  return plain_encoder.ranges.size() == 15 && plain_encoder.ranges.find("input") != nullptr;
}());
using causal_encoder = ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, true, ctattn::causal_mask>;
constexpr auto masked_encoder = recorded_encoder<causal_encoder>();
static_assert(masked_encoder.same_output);
static_assert(*masked_encoder.ranges.find("block.query") == *plain_encoder.ranges.find("block.query"));
// The scores by another route: each head's q_h k_h^T as a float product, times 1/sqrt(4), over the keys j <= i
// (causal) or all; the recorder sums in double, so the bounds agree to float's rounding.
constexpr ctattn::value_range head_scores(bool causal) noexcept {
  const auto m = numbered<encoder_model<causal_encoder>>();
  const auto normed = ctattn::forward(m.block.norm1, encoder_input);
  const auto q = ctattn::forward(m.block.self_attn.weights.query, normed);
  const auto k = ctattn::forward(m.block.self_attn.weights.key, normed);
  const auto s0 = ctattn::multiply(ctattn::column_block<0, 4>(q), ctattn::transpose(ctattn::column_block<0, 4>(k)));
  const auto s1 = ctattn::multiply(ctattn::column_block<4, 4>(q), ctattn::transpose(ctattn::column_block<4, 4>(k)));
  ctattn::value_range r{1e300, -1e300};
  for (const auto* s : {&s0, &s1}) {
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t j = 0; j < 3; ++j) {
        if (causal && j > i) continue;
        const double v = 0.5 * static_cast<double>((*s)(i, j));
        r.lo = v < r.lo ? v : r.lo;
        r.hi = v > r.hi ? v : r.hi;
      }
    }
  }
  return r;
}
constexpr bool near(ctattn::value_range a, ctattn::value_range b) noexcept {
  const auto close = [](double x, double y) { return (x - y) * (x - y) <= 1e-10 * (1 + x * x); };
  return close(a.lo, b.lo) && close(a.hi, b.hi);
}
static_assert(near(*masked_encoder.ranges.find("block.scores"), head_scores(true)));
static_assert(near(*plain_encoder.ranges.find("block.scores"), head_scores(false)));

// A whole model quantized by ctattn::quantize: each member's int8 form with its quantization read by name, the
// same bits as the int8 layers composed by hand; the first member fed by the input's range.
constexpr ctattn::named_range mlp_ranges[] = {
    {"input", {-4.0, 4.0}}, {"hidden", {-6.0, 5.0}}, {"act", {-0.2, 5.0}}, {"out", {-3.0, 2.5}}};
constexpr ctattn::quantization q_input = ctattn::quantization_for_range(-4.0, 4.0);
constexpr ctattn::quantization q_hidden = ctattn::quantization_for_range(-6.0, 5.0);
constexpr ctattn::quantization q_act = ctattn::quantization_for_range(-0.2, 5.0);
constexpr ctattn::quantization q_out = ctattn::quantization_for_range(-3.0, 2.5);
static_assert([] {
  const mlp_model m = numbered<mlp_model>();
  const ctattn::quantized_model<mlp_model, mlp_ranges> q = ctattn::quantize<mlp_ranges>(m);
  const auto x_q = ctattn::quantize<q_input>(mlp_input);
  const auto by_hand =
      ctattn::project(ctattn::activate(ctattn::project(x_q, ctattn::quantize_linear<q_input, q_hidden>(m.hidden)),
                                       ctattn::quantize_activation<q_hidden, q_act>(m.act)),
                      ctattn::quantize_linear<q_act, q_out>(m.out));
  return q.forward(x_q) == by_hand && decltype(q)::output_quantization == q_out &&
         q.layer<0>() == ctattn::quantize_linear<q_input, q_hidden>(m.hidden) &&
         q.layer<2>() == ctattn::quantize_linear<q_act, q_out>(m.out);
}());
// The same layers as a sequential: its layers are named by index ("0", "1", "2"), and the same int8 model comes out
// (quantize checks a model's members against the table, and passes a sequential by).
constexpr ctattn::named_range mlp_sequential_ranges[] = {
    {"input", {-4.0, 4.0}}, {"0", {-6.0, 5.0}}, {"1", {-0.2, 5.0}}, {"2", {-3.0, 2.5}}};
static_assert(ctattn::quantize<mlp_sequential_ranges>(numbered<cases::mlp<float>>())
                  .forward(ctattn::quantize<q_input>(mlp_input)) ==
              ctattn::quantize<mlp_ranges>(numbered<mlp_model>()).forward(ctattn::quantize<q_input>(mlp_input)));

// Calibrated and quantized in one constant expression: ranges recorded over two samples, and the int8 model
// quantized from them, each member with the quantization of its recorded range.
constexpr auto mlp_other = ctattn::scale(mlp_input, -0.5f);
constexpr auto recorded_mlp = [] {
  ctattn::activation_ranges<8> r{};
  (void)ctattn::record_ranges(numbered<mlp_model>(), mlp_input, r);
  (void)ctattn::record_ranges(numbered<mlp_model>(), mlp_other, r);
  return r;
}();
constexpr auto recorded_table = recorded_mlp.table();
static_assert([] {
  const mlp_model m = numbered<mlp_model>();
  const auto q = ctattn::quantize<recorded_table>(m);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(recorded_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), hidden = q_of("hidden"), act = q_of("act"), out = q_of("out");
  const auto x_q = ctattn::quantize<in>(mlp_other);
  const auto by_hand =
      ctattn::project(ctattn::activate(ctattn::project(x_q, ctattn::quantize_linear<in, hidden>(m.hidden)),
                                       ctattn::quantize_activation<hidden, act>(m.act)),
                      ctattn::quantize_linear<act, out>(m.out));
  return q.forward(x_q) == by_hand && !(in == hidden);
}());
static_assert(
    ctattn::layer_footprint<ctattn::quantized_model<mlp_model, mlp_ranges>, ctattn::qmatrix<2, 8, q_input>>.weight_bytes ==
    sizeof(ctattn::quantized_model<mlp_model, mlp_ranges>));

// A post-norm encoder layer in int8: its points recorded in the float layer's order (sum1, norm1, sum2, its
// output), quantized by name, the same bits as the int8 operations composed in that order by hand, and within 4%
// of the output's range of the float layer.
using post_norm_encoder = ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::relu, false>;
constexpr auto post_norm_recorded = [] {
  ctattn::activation_ranges<32> r{};
  (void)ctattn::record_ranges(numbered<encoder_model<post_norm_encoder>>(), encoder_input, r);
  return r;
}();
constexpr auto post_norm_table = post_norm_recorded.table();
static_assert(post_norm_recorded.find("block.sum2") != nullptr && post_norm_recorded.find("block.norm2") == nullptr);
static_assert([] {
  const auto m = numbered<encoder_model<post_norm_encoder>>();
  const auto q = ctattn::quantize<post_norm_table>(m);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(post_norm_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), query = q_of("block.query"), key = q_of("block.key"),
                                 value = q_of("block.value"), scores = q_of("block.scores"),
                                 context = q_of("block.context"), attention = q_of("block.attention"),
                                 sum1 = q_of("block.sum1"), norm1 = q_of("block.norm1"), hidden = q_of("block.hidden"),
                                 act = q_of("block.activation"), ff = q_of("block.feed_forward"),
                                 sum2 = q_of("block.sum2"), out = q_of("block");
  const auto& w = m.block.self_attn.weights;
  const auto x_q = ctattn::quantize<in>(encoder_input);
  const auto weights = ctattn::make_qmulti_head_attention_weights<2>(
      ctattn::quantize_linear<in, query>(w.query), ctattn::quantize_linear<in, key>(w.key),
      ctattn::quantize_linear<in, value>(w.value), ctattn::quantize_linear<context, attention>(w.output));
  const auto h = ctattn::normalize(ctattn::add<sum1>(x_q, ctattn::multi_head_attention<scores>(x_q, weights)),
                                   ctattn::quantize_layer_norm<sum1, norm1>(m.block.norm1));
  const auto f =
      ctattn::project(ctattn::activate(ctattn::project(h, ctattn::quantize_linear<norm1, hidden>(m.block.ff.linear1)),
                                       ctattn::quantize_activation<hidden, act>(ctattn::relu{})),
                      ctattn::quantize_linear<act, ff>(m.block.ff.linear2));
  const auto by_hand =
      ctattn::normalize(ctattn::add<sum2>(h, f), ctattn::quantize_layer_norm<sum2, out>(m.block.norm2));
  const auto y = q.forward(x_q);
  // Against the float layer.
  const auto y_float = m.forward(encoder_input);
  const auto r = ctattn::range_at(post_norm_table, "block");
  double worst = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t c = 0; c < 8; ++c) {
      const double d = static_cast<double>(ctattn::dequantize(y)(i, c)) - static_cast<double>(y_float(i, c));
      worst = d < 0 ? (-d > worst ? -d : worst) : (d > worst ? d : worst);
    }
  }
  // ctattn::int8_error measures the same, the input quantized with the int8 model's input quantization.
  return y == by_hand && decltype(q)::output_quantization == out && worst <= 0.04 * (r.hi - r.lo) &&
         ctattn::int8_error(q, m, encoder_input) == worst;
}());

// nn.MultiheadAttention as a member, with the causal mask: its points under its path (W_O's output the member's own),
// quantized to qmulti_head_attention_layer, the same bits as the int8 attention composed by hand, close to float.
using causal_attention_layer =
    ctattn::multi_head_attention_layer<ctattn::multi_head_attention_weights<float, 2, 8, ctattn::out_by_in, true>,
                                       ctattn::causal_mask>;
struct attention_model : ctattn::model<attention_model> {
  BOOST_HANA_DEFINE_STRUCT(attention_model, (causal_attention_layer, attention),
                           (ctattn::linear<float, 8, 3, ctattn::out_by_in, true>, head));
};
constexpr auto attention_recorded = [] {
  ctattn::activation_ranges<16> r{};
  (void)ctattn::record_ranges(numbered<attention_model>(), encoder_input, r);
  return r;
}();
constexpr auto attention_table = attention_recorded.table();
static_assert(attention_recorded.size() == 9 && attention_recorded.find("attention.context") != nullptr);
// With `quantize_options`, the layer's attention takes the softmax they name and every linear the weight format and
// granularity they name, the head included (the same bits as by hand with them).
template <ctattn::softmax_method Softmax, ctattn::weight_format Weights = ctattn::weight_format::int8,
          ctattn::weight_granularity G = ctattn::weight_granularity::per_channel>
constexpr bool attention_model_as_by_hand() noexcept {
  const auto m = numbered<attention_model>();
  const auto q = ctattn::quantize<attention_table, ctattn::quantize_options{
                                                       .softmax = Softmax, .weights = Weights, .granularity = G}>(m);
  static_assert(std::remove_cvref_t<decltype(q.template layer<0>())>::softmax == Softmax);
  static_assert(std::remove_cvref_t<decltype(q.template layer<1>())>::format == Weights);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(attention_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), query = q_of("attention.query"), key = q_of("attention.key"),
                                 value = q_of("attention.value"), scores = q_of("attention.scores"),
                                 context = q_of("attention.context"), out = q_of("attention"), head = q_of("head");
  const auto& w = m.attention.weights;
  const auto x_q = ctattn::quantize<in>(encoder_input);
  const auto attended = ctattn::multi_head_attention<scores, Softmax>(
      x_q,
      ctattn::make_qmulti_head_attention_weights<2>(ctattn::quantize_linear<in, query, Weights, G>(w.query),
                                                    ctattn::quantize_linear<in, key, Weights, G>(w.key),
                                                    ctattn::quantize_linear<in, value, Weights, G>(w.value),
                                                    ctattn::quantize_linear<context, out, Weights, G>(w.output)),
      ctattn::causal);
  const auto by_hand = ctattn::project(attended, ctattn::quantize_linear<out, head, Weights, G>(m.head));
  const auto r = ctattn::range_at(attention_table, "head");
  // int4 weights: 15 steps a channel rather than 255, a coarser model.
  const double bound = Weights == ctattn::weight_format::int4 ? 0.25 : 0.04;
  return q.forward(x_q) == by_hand && ctattn::int8_error(q, m, encoder_input) <= bound * (r.hi - r.lo);
}
static_assert(attention_model_as_by_hand<ctattn::softmax_method::rounded>());
static_assert(attention_model_as_by_hand<ctattn::softmax_method::tflite>());
static_assert(attention_model_as_by_hand<ctattn::softmax_method::rounded, ctattn::weight_format::int4>());
static_assert(attention_model_as_by_hand<ctattn::softmax_method::rounded, ctattn::weight_format::int4,
                                         ctattn::weight_granularity::per_tensor>());
static_assert(attention_model_as_by_hand<ctattn::softmax_method::rounded, ctattn::weight_format::int8,
                                         ctattn::weight_granularity::per_tensor>());

// Per-layer overrides (`quantize_options::overrides`): the attention takes the model's int4 weights, the head the
// override's int8 per tensor; the longest path that names a layer decides (`attention` over the empty path, which
// names the whole model). The same bits as by hand with each layer's own.
inline constexpr ctattn::layer_weights head_in_int8[] = {
    {"", ctattn::weight_format::int8},
    {"attention", ctattn::weight_format::int4},
    {"head", ctattn::weight_format::int8, ctattn::weight_granularity::per_tensor}};
static_assert([] {
  const auto m = numbered<attention_model>();
  const auto q = ctattn::quantize<attention_table, ctattn::quantize_options{.weights = ctattn::weight_format::int4,
                                                                            .overrides = head_in_int8}>(m);
  using head_type = std::remove_cvref_t<decltype(q.template layer<1>())>;
  static_assert(head_type::format == ctattn::weight_format::int8 &&
                head_type::granularity == ctattn::weight_granularity::per_tensor);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(attention_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), query = q_of("attention.query"), key = q_of("attention.key"),
                                 value = q_of("attention.value"), scores = q_of("attention.scores"),
                                 context = q_of("attention.context"), out = q_of("attention"), head = q_of("head");
  constexpr auto int4 = ctattn::weight_format::int4;
  const auto& w = m.attention.weights;
  const auto x_q = ctattn::quantize<in>(encoder_input);
  const auto attended = ctattn::multi_head_attention<scores>(
      x_q,
      ctattn::make_qmulti_head_attention_weights<2>(
          ctattn::quantize_linear<in, query, int4>(w.query), ctattn::quantize_linear<in, key, int4>(w.key),
          ctattn::quantize_linear<in, value, int4>(w.value), ctattn::quantize_linear<context, out, int4>(w.output)),
      ctattn::causal);
  const auto by_hand = ctattn::project(
      attended,
      ctattn::quantize_linear<out, head, ctattn::weight_format::int8, ctattn::weight_granularity::per_tensor>(m.head));
  return q.forward(x_q) == by_hand;
}());
// The path rule and the longest match, on their own: the names of layers `quantize` maps whole (a sequential and its
// elements) that have linear weights or a 16x8 form (the norm, the positions, the class token's pooling), and not
// parts inside them (block_model's below: a residual connection's inner layer).
static_assert(ctattn::detail::names_a_layer<tiny_vit>({}, "blocks") &&
              ctattn::detail::names_a_layer<tiny_vit>({}, "blocks.1") &&
              ctattn::detail::names_a_layer<tiny_vit>({}, "head") && ctattn::detail::names_a_layer<tiny_vit>({}, "") &&
              !ctattn::detail::names_a_layer<tiny_vit>({}, "blocks.2") &&
              !ctattn::detail::names_a_layer<tiny_vit>({}, "blocks.1.mlp") &&
              !ctattn::detail::names_a_layer<tiny_vit>({}, "hea") &&
              ctattn::detail::names_a_layer<tiny_vit>({}, "proj") &&
              ctattn::detail::names_a_layer<tiny_vit>({}, "norm") &&
              ctattn::detail::names_a_layer<tiny_vit>({}, "pos_embed") &&
              ctattn::detail::names_a_layer<tiny_vit>({}, "pool") &&
              ctattn::detail::names_a_16x8_layer<tiny_vit>({}, "blocks.1") &&
              !ctattn::detail::names_a_16x8_layer<tiny_vit>({}, "proj") &&
              ctattn::detail::names_a_16x8_layer<tiny_vit>({}, "blocks") &&
              ctattn::detail::names_a_16x8_layer<tiny_vit>({}, "norm") &&
              ctattn::detail::names_a_16x8_layer<tiny_vit>({}, "pos_embed") &&
              !ctattn::detail::names_a_16x8_layer<tiny_vit>({}, "blocks.0.mlp"));
static_assert(ctattn::detail::path_is_within("layers.0", "layers") && ctattn::detail::path_is_within("layers", "") &&
              !ctattn::detail::path_is_within("layers10", "layers") &&
              !ctattn::detail::path_is_within("layer", "layers"));
static_assert(ctattn::detail::options_at(ctattn::quantize_options{.overrides = head_in_int8}, "attention").weights ==
                  ctattn::weight_format::int4 &&
              ctattn::detail::options_at(ctattn::quantize_options{.weights = ctattn::weight_format::int4,
                                                                  .overrides = head_in_int8},
                                         "norm")
                      .weights == ctattn::weight_format::int8);

// A token embedding alone (no learned positions after it): quantize looks each token's row up in the table quantized
// with its `.weight` range, so the next member reads the table's quantization; the same bits as by hand.
struct lone_tokens_model : ctattn::model<lone_tokens_model> {
  BOOST_HANA_DEFINE_STRUCT(lone_tokens_model, (ctattn::token_embedding<float, 10, 8>, embed),
                           (ctattn::layer_norm<float, 8>, norm),
                           (ctattn::linear<float, 8, 3, ctattn::out_by_in, true>, head));
};
constexpr std::array<int, 4> lone_ids{3, 9, 0, 3};
constexpr auto lone_recorded = [] {
  ctattn::activation_ranges<8> r{};
  (void)ctattn::record_ranges(numbered<lone_tokens_model>(), lone_ids, r);
  (void)ctattn::record_ranges(numbered<lone_tokens_model>(), std::array<int, 4>{1, 2, 5, 7}, r);
  return r;
}();
constexpr auto lone_table = lone_recorded.table();
static_assert([] {
  const auto m = numbered<lone_tokens_model>();
  const auto q = ctattn::quantize<lone_table>(m);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(lone_table, name));
  };
  constexpr ctattn::quantization table_q = q_of("embed.weight"), normed = q_of("norm"), head = q_of("head");
  const auto table = ctattn::quantize<table_q>(m.embed.weight);
  ctattn::qmatrix<4, 8, table_q> looked_up{};
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t c = 0; c < 8; ++c) looked_up.elements[i][c] = table.elements[lone_ids[i]][c];
  }
  const auto by_hand =
      ctattn::project(ctattn::normalize(looked_up, ctattn::quantize_layer_norm<table_q, normed>(m.norm)),
                      ctattn::quantize_linear<normed, head>(m.head));
  const auto r = ctattn::range_at(lone_table, "head");
  return q.forward(lone_ids) == by_hand && q.layer<0>() == ctattn::quantize_token_embedding<table_q>(m.embed) &&
         ctattn::int8_error(q, m, lone_ids) <= 0.05 * (r.hi - r.lo);
}());

// A feed-forward block in a residual connection, and one alone: the residual's inner points under `.inner`, the sum
// under its path; quantized to a qresidual around a qchain of the block's int8 layers and to such a qchain, the same
// bits as the int8 operations composed by hand, close to float.
struct block_model : ctattn::model<block_model> {
  BOOST_HANA_DEFINE_STRUCT(block_model, (ctattn::residual<ctattn::feed_forward<float, 8, 16, ctattn::gelu>>, block),
                           (ctattn::feed_forward<float, 8, 12>, ff));
};
// A residual connection's inner layer is a layer of its own for per-layer overrides; a feed-forward block's linears are
// not.
static_assert(ctattn::detail::names_a_layer<block_model>({}, "block.inner") &&
              !ctattn::detail::names_a_layer<block_model>({}, "ff.linear1"));
constexpr auto block_recorded = [] {
  ctattn::activation_ranges<16> r{};
  (void)ctattn::record_ranges(numbered<block_model>(), encoder_input, r);
  return r;
}();
constexpr auto block_table = block_recorded.table();
static_assert(block_recorded.size() == 9 && block_recorded.find("block.inner.hidden") != nullptr &&
              block_recorded.find("block.inner") != nullptr && block_recorded.find("ff.activation") != nullptr);
static_assert([] {
  const auto m = numbered<block_model>();
  const auto q = ctattn::quantize<block_table>(m);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(block_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), hidden = q_of("block.inner.hidden"),
                                 act = q_of("block.inner.activation"), inner = q_of("block.inner"), sum = q_of("block"),
                                 hidden2 = q_of("ff.hidden"), act2 = q_of("ff.activation"), out = q_of("ff");
  const auto x_q = ctattn::quantize<in>(encoder_input);
  const auto& f = m.block.inner;
  const auto inner_q =
      ctattn::project(ctattn::activate(ctattn::project(x_q, ctattn::quantize_linear<in, hidden>(f.linear1)),
                                       ctattn::quantize_activation<hidden, act>(ctattn::gelu{})),
                      ctattn::quantize_linear<act, inner>(f.linear2));
  const auto h = ctattn::add<sum>(x_q, inner_q);
  const auto by_hand =
      ctattn::project(ctattn::activate(ctattn::project(h, ctattn::quantize_linear<sum, hidden2>(m.ff.linear1)),
                                       ctattn::quantize_activation<hidden2, act2>(ctattn::relu{})),
                      ctattn::quantize_linear<act2, out>(m.ff.linear2));
  const auto r = ctattn::range_at(block_table, "ff");
  return q.forward(x_q) == by_hand && decltype(q)::input_quantization == in &&
         ctattn::int8_error(q, m, encoder_input) <= 0.05 * (r.hi - r.lo);
}());
static_assert(ctattn::layer_footprint<ctattn::quantized_model<block_model, block_table>,
                                      ctattn::qmatrix<3, 8, ctattn::quantization_for_range(
                                                                ctattn::range_at(block_table, "input"))>>
                  .weight_bytes == sizeof(ctattn::quantized_model<block_model, block_table>));

// A gated feed-forward block (SwiGLU, no biases): its points w1, the gate, w3 and the product, quantized to
// qgated_feed_forward, the same bits as the int8 operations (the product by the int8 MUL) composed by hand.
struct gated_model : ctattn::model<gated_model> {
  BOOST_HANA_DEFINE_STRUCT(gated_model, (ctattn::gated_feed_forward<float, 8, 12>, ff),
                           (ctattn::linear<float, 8, 3, ctattn::out_by_in, true>, head));
};
constexpr auto gated_recorded = [] {
  ctattn::activation_ranges<12> r{};
  (void)ctattn::record_ranges(numbered<gated_model>(), encoder_input, r);
  return r;
}();
constexpr auto gated_table = gated_recorded.table();
static_assert(gated_recorded.size() == 8 && gated_recorded.find("ff.product") != nullptr);
static_assert([] {
  const auto m = numbered<gated_model>();
  const auto q = ctattn::quantize<gated_table>(m);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(gated_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), first = q_of("ff.w1"), gate = q_of("ff.activation"),
                                 up = q_of("ff.w3"), product = q_of("ff.product"), out = q_of("ff"),
                                 head = q_of("head");
  const auto x_q = ctattn::quantize<in>(encoder_input);
  const auto gated =
      ctattn::hadamard<product>(ctattn::activate(ctattn::project(x_q, ctattn::quantize_linear<in, first>(m.ff.w1)),
                                                 ctattn::quantize_activation<first, gate>(ctattn::silu{})),
                                ctattn::project(x_q, ctattn::quantize_linear<in, up>(m.ff.w3)));
  const auto by_hand = ctattn::project(ctattn::project(gated, ctattn::quantize_linear<product, out>(m.ff.w2)),
                                       ctattn::quantize_linear<out, head>(m.head));
  const auto r = ctattn::range_at(gated_table, "head");
  return q.forward(x_q) == by_hand && ctattn::int8_error(q, m, encoder_input) <= 0.05 * (r.hi - r.lo);
}());

// Learned positions after a linear layer (no token embedding before them): the table quantized with its `.weight`
// range and added to the rows by the int8 ADD.
struct positions_model : ctattn::model<positions_model> {
  BOOST_HANA_DEFINE_STRUCT(positions_model, (ctattn::linear<float, 8, 8, ctattn::out_by_in, true>, up),
                           (ctattn::position_embedding<float, 5, 8>, pos),
                           (ctattn::linear<float, 8, 3, ctattn::out_by_in, true>, head));
};
constexpr auto positions_recorded = [] {
  ctattn::activation_ranges<8> r{};
  (void)ctattn::record_ranges(numbered<positions_model>(), encoder_input, r);
  return r;
}();
constexpr auto positions_table = positions_recorded.table();
static_assert([] {
  const auto m = numbered<positions_model>();
  const auto q = ctattn::quantize<positions_table>(m);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(positions_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), up = q_of("up"), table_q = q_of("pos.weight"), pos = q_of("pos"),
                                 head = q_of("head");
  const auto x_q = ctattn::quantize<in>(encoder_input);
  const auto rows = ctattn::project(x_q, ctattn::quantize_linear<in, up>(m.up));
  const auto table = ctattn::quantize<table_q>(m.pos.weight);
  ctattn::qmatrix<3, 8, table_q> first_rows{};
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t c = 0; c < 8; ++c) first_rows.elements[i][c] = table.elements[i][c];
  }
  const auto by_hand = ctattn::project(ctattn::add<pos>(rows, first_rows), ctattn::quantize_linear<pos, head>(m.head));
  const auto r = ctattn::range_at(positions_table, "head");
  return q.forward(x_q) == by_hand && ctattn::int8_error(q, m, encoder_input) <= 0.05 * (r.hi - r.lo);
}());

// A ViT's front end in int8 (the fixture's model, trained weights from PyTorch): each member's int8 form from the
// ranges recorded on the fixture's image, as composed by hand, and within 2% of the output's spread of the float
// model; the class token's form requantizes the patches to its output's quantization, the mean pool its own.
template <typename M>
constexpr M loaded_front_end(const auto& params, const auto& names, const auto& sizes, const auto& ranks) noexcept {
  M m{};
  (void)ctattn::set_every_setting(m, "eps", 1e-6);
  (void)ctattn_test::load_in_order(m, params, names, sizes, ranks);
  return m;
}
namespace fet = ctattn_fixtures::layers::front_end_token;
namespace fem = ctattn_fixtures::layers::front_end_mean;
constexpr auto front_token =
    loaded_front_end<cases::front_end_token<float>>(fet::params_f32, fet::names, fet::sizes, fet::ranks);
constexpr auto front_mean =
    loaded_front_end<cases::front_end_mean<float>>(fem::params_f32, fem::names, fem::sizes, fem::ranks);
constexpr auto front_image = ctattn::from_array(fet::input_f32);
template <const auto& Model>
constexpr auto front_ranges = [] {
  ctattn::activation_ranges<16> r{};
  (void)ctattn::record_ranges(Model, front_image, r);
  return r;
}();
constexpr auto front_token_table = front_ranges<front_token>.table();
constexpr auto front_mean_table = front_ranges<front_mean>.table();
static_assert([] {
  const auto q = ctattn::quantize<front_token_table>(front_token);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(front_token_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), proj = q_of("proj"), cls = q_of("cls_token"),
                                 table_q = q_of("pos_embed.weight"), pos = q_of("pos_embed"), norm_q = q_of("norm");
  const auto x_q = ctattn::quantize<in>(front_image);
  const auto patches = ctattn::quantize_patch_embedding<in, proj>(front_token.proj).forward(x_q);
  const auto tokens = ctattn::quantize_class_token<proj, cls>(front_token.cls_token).forward(patches);
  const auto placed = ctattn::quantize_position_embedding<table_q, pos>(front_token.pos_embed).forward(tokens);
  const auto normed = ctattn::normalize(placed, ctattn::quantize_layer_norm<pos, norm_q>(front_token.norm));
  const auto by_hand = ctattn::qclass_token_pool<norm_q>{}.forward(normed);
  const auto r = ctattn::range_at(front_token_table, "output");
  return q.forward(x_q) == by_hand && !(proj == cls) &&
         ctattn::int8_error(q, front_token, front_image) <= 0.02 * (r.hi - r.lo);
}());
static_assert([] {
  const auto q = ctattn::quantize<front_mean_table>(front_mean);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(front_mean_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), proj = q_of("proj"), table_q = q_of("pos_embed.weight"),
                                 pos = q_of("pos_embed"), norm_q = q_of("norm"), pool = q_of("pool");
  const auto x_q = ctattn::quantize<in>(front_image);
  const auto patches = ctattn::quantize_patch_embedding<in, proj>(front_mean.proj).forward(x_q);
  const auto placed = ctattn::quantize_position_embedding<table_q, pos>(front_mean.pos_embed).forward(patches);
  const auto normed = ctattn::normalize(placed, ctattn::quantize_layer_norm<pos, norm_q>(front_mean.norm));
  const auto by_hand = ctattn::qmean_pool<norm_q, pool>{}.forward(normed);
  const auto r = ctattn::range_at(front_mean_table, "output");
  return q.forward(x_q) == by_hand && ctattn::int8_error(q, front_mean, front_image) <= 0.02 * (r.hi - r.lo);
}());
// The int8 form's flash is less than the float weights' (a quarter, less the per-channel constants of so small a
// model).
static_assert(ctattn::layer_footprint<ctattn::quantized_model<cases::front_end_token<float>, front_token_table>,
                                      ctattn::qmatrix<16, 2, ctattn::quantization_for_range(
                                                                 ctattn::range_at(front_token_table, "input"))>>
                  .weight_bytes < sizeof(cases::front_end_token<float>));

// RMSNorm (LLaMA's norm) as a member: quantized to qrms_norm from its input's and its output's ranges.
struct rms_model : ctattn::model<rms_model> {
  BOOST_HANA_DEFINE_STRUCT(rms_model, (ctattn::rms_norm<float, 8>, norm),
                           (ctattn::linear<float, 8, 3, ctattn::out_by_in, true>, head));
};
constexpr auto rms_recorded = [] {
  ctattn::activation_ranges<8> r{};
  (void)ctattn::record_ranges(numbered<rms_model>(), encoder_input, r);
  return r;
}();
constexpr auto rms_table = rms_recorded.table();
static_assert([] {
  const auto m = numbered<rms_model>();
  const auto q = ctattn::quantize<rms_table>(m);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(rms_table, name));
  };
  constexpr ctattn::quantization in = q_of("input"), normed = q_of("norm"), head = q_of("head");
  const auto x_q = ctattn::quantize<in>(encoder_input);
  const auto by_hand = ctattn::project(ctattn::normalize(x_q, ctattn::quantize_rms_norm<in, normed>(m.norm)),
                                       ctattn::quantize_linear<normed, head>(m.head));
  const auto r = ctattn::range_at(rms_table, "head");
  return q.forward(x_q) == by_hand && ctattn::int8_error(q, m, encoder_input) <= 0.05 * (r.hi - r.lo);
}());

// A generated ranges table read by name.
constexpr ctattn::named_range table[] = {
    {"pos", {-1.0, 2.0}}, {"layers.0.norm1", {-3.0, 3.5}}, {"layers.0.query", {-1.5, 1.0}}, {"layers.0", {-4.0, 5.0}}};
static_assert(ctattn::range_at(table, "layers.0.query") == ctattn::value_range{-1.5, 1.0});
static_assert(ctattn::range_at(table, "pos") == ctattn::value_range{-1.0, 2.0});

// Settings beside the tensors (what an exported file's __metadata__ holds), named by path like the parameters.
struct setting_seen {
  ctattn::parameter_name name;
  std::string_view text;
  double number;
};
template <typename L>
constexpr std::array<setting_seen, 8> settings_of(const L& layer) {
  std::array<setting_seen, 8> seen{};
  std::size_t i = 0;
  ctattn::for_each_setting(layer, [&](std::string_view name, const ctattn::setting_entry& s) {
    if (i < seen.size()) {
      seen[i].name.append(name);
      seen[i].text = s.text;
      seen[i].number = s.number;
    }
    ++i;
  });
  return seen;
}
constexpr auto encoder_settings = settings_of(ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, true>{});
static_assert(encoder_settings[0].name.view() == "norm_first" && encoder_settings[0].text == "true");
static_assert(encoder_settings[1].name.view() == "self_attn.num_heads" && encoder_settings[1].number == 2);
static_assert(encoder_settings[2].name.view() == "activation" && encoder_settings[2].text == "gelu");
static_assert(encoder_settings[3].name.view() == "norm1.eps" &&
              encoder_settings[3].number == static_cast<double>(1e-5f));
static_assert(encoder_settings[4].name.view() == "norm2.eps" && encoder_settings[5].name.view().empty());
constexpr auto decoder_settings =
    settings_of(ctattn::transformer_decoder_layer<float, 8, 4, 16, ctattn::relu, false>{});
static_assert(decoder_settings[0].text == "false" && decoder_settings[2].name.view() == "multihead_attn.num_heads" &&
              decoder_settings[2].number == 4 && decoder_settings[3].text == "relu");
constexpr auto chain_settings =
    settings_of(ctattn::sequential<ctattn::linear<float, 4, 4>, ctattn::gelu_tanh, ctattn::layer_norm<float, 4>>{});
static_assert(chain_settings[0].name.view() == "1.activation" && chain_settings[0].text == "gelu_tanh");
static_assert(chain_settings[1].name.view() == "2.eps" && chain_settings[1].number == static_cast<double>(1e-5f) &&
              chain_settings[2].name.view().empty());

}  // namespace

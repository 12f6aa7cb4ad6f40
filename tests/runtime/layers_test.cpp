// Run-time tests of the layers tier: every layer against PyTorch (exact arithmetic, tests/support/layer_cases.hpp),
// and run time giving the bits of constant evaluation.
#include "catch.hpp"
#include "support/layer_cases.hpp"

#include <string>

namespace {
namespace cases = ctattn_test::layer_cases;
namespace fx = ctattn_fixtures::layers;
}  // namespace

TEST_CASE("every layer matches PyTorch at run time", "[layers]") {
  for (const cases::result& r : cases::results()) {
    INFO(std::string(r.name) << ": error " << r.error << ", bound " << r.bound);
    CHECK(r.error <= r.bound);
  }
  for (const cases::result& r : cases::front_end_results()) {
    INFO(std::string(r.name) << ": error " << r.error << ", bound " << r.bound);
    CHECK(r.error <= r.bound);
  }
}

TEST_CASE("a layer at run time has the bits of the constant-evaluated one", "[layers]") {
  using encoder = cases::encoder<float, ctattn::gelu, true>;
  using decoder = cases::decoder<float, ctattn::relu, false>;
  static constexpr auto load = [](auto layer, const auto& params, const auto& names, const auto& sizes,
                                  const auto& ranks) {
    const bool loaded = ctattn_test::load_in_order(layer, params, names, sizes, ranks);
    return std::pair{layer, loaded};
  };
  static constexpr auto enc = load(encoder{}, fx::encoder_pre_gelu::params_f32, fx::encoder_pre_gelu::names,
                                   fx::encoder_pre_gelu::sizes, fx::encoder_pre_gelu::ranks);
  static constexpr auto dec = load(decoder{}, fx::decoder_post_relu::params_f32, fx::decoder_post_relu::names,
                                   fx::decoder_post_relu::sizes, fx::decoder_post_relu::ranks);
  static_assert(enc.second && dec.second);
  static constexpr auto x = ctattn::from_array(fx::encoder_pre_gelu::input_f32);
  static constexpr auto memory = ctattn::from_array(fx::decoder_post_relu::input1_f32);
  static constexpr auto encoded = ctattn::forward(enc.first, x);
  static constexpr auto decoded = dec.first.forward(x, memory);

  // Copies, so that the compiler cannot fold the run-time calls into the constants.
  volatile float perturb = 0.0f;
  auto layer = enc.first;
  auto input = x;
  input(0, 0) += perturb;
  CHECK(ctattn::forward(layer, input) == encoded);
  auto dec_layer = dec.first;
  CHECK(dec_layer.forward(input, memory) == decoded);
}

TEST_CASE("a front end at run time has the bits of the constant-evaluated one", "[layers][front_end]") {
  namespace fe = fx::front_end_token;
  static constexpr auto front = [] {
    cases::front_end_token<float> m{};
    (void)ctattn::set_every_setting(m, "eps", 1e-6);
    const bool loaded = ctattn_test::load_in_order(m, fe::params_f32, fe::names, fe::sizes, fe::ranks);
    return std::pair{m, loaded};
  }();
  static_assert(front.second);
  static constexpr auto image = ctattn::from_array(fe::input_f32);
  static constexpr auto pooled = ctattn::forward(front.first, image);
  using frame_patches = ctattn::patch_embedding_1d<float, 2, 4, 8>;
  static constexpr frame_patches frames = ctattn_test::numbered<frame_patches>();
  static constexpr auto tokens = ctattn::forward(frames, image);

  volatile float perturb = 0.0f;
  auto model = front.first;
  auto input = image;
  input(0, 0) += perturb;
  CHECK(ctattn::forward(model, input) == pooled);
  auto frames_runtime = frames;
  CHECK(ctattn::forward(frames_runtime, input) == tokens);
}

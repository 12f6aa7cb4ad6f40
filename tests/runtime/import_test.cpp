// Run-time import of PyTorch weights (ctattn/host/import.hpp): a model's parameters loaded from .safetensors bytes
// by name, every mismatch with the model an error naming the tensor that leaves the model as it was, and the
// trained model of examples/verified_model/ loaded from its committed file and answering its golden inputs.
#include "catch.hpp"
#include "support/layer_cases.hpp"

#include <ctattn/host/import.hpp>

#include "../examples/verified_model/golden.hpp"
#include "../examples/verified_model/sorter.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>

namespace {

namespace host = ctattn::host;
namespace cases = ctattn_test::layer_cases;
namespace fx = ctattn_fixtures::layers;

using encoder = cases::encoder<float, ctattn::gelu, true>;
using decoder = cases::decoder<float, ctattn::relu, false>;

encoder trained_encoder() {
  encoder layer{};
  REQUIRE(ctattn_test::load_in_order(layer, fx::encoder_pre_gelu::params_f32, fx::encoder_pre_gelu::names,
                                     fx::encoder_pre_gelu::sizes, fx::encoder_pre_gelu::ranks));
  return layer;
}

host::read_result read(const std::vector<unsigned char>& bytes) {
  return host::read_safetensors_bytes("layer.safetensors", std::span<const unsigned char>(bytes));
}

// The trained model's directory, from this file's path (CMake passes absolute paths).
std::string example_file(std::string_view name) {
  std::string here = __FILE__;
  here.erase(here.find_last_of('/') + 1);
  return here + "../../examples/verified_model/" + std::string(name);
}

}  // namespace

TEST_CASE("a model's parameters round-trip through .safetensors by name", "[import]") {
  const encoder original = trained_encoder();
  const auto r = read(host::safetensors_bytes(original));
  REQUIRE(r);
  REQUIRE(r.file->tensors().size() == 12);
  CHECK(r.file->tensors()[0].name == "self_attn.in_proj_weight");
  CHECK(r.file->tensors()[0].shape == std::vector<std::uint64_t>{24, 8});
  encoder loaded{};
  REQUIRE_FALSE(host::load_parameters(loaded, *r.file));
  CHECK(loaded == original);
  // The double model reads the same F32 file exactly.
  cases::encoder<double, ctattn::gelu, true> wide{};
  REQUIRE_FALSE(host::load_parameters(wide, *r.file));
  CHECK(wide.norm2.bias(0, 3) == static_cast<double>(original.norm2.bias(0, 3)));
}

TEST_CASE("a file that does not fit the model is an error naming the tensor, and loses nothing", "[import]") {
  const encoder original = trained_encoder();

  SECTION("a tensor of the model is missing from the file") {
    const auto r = read(host::safetensors_bytes(original));
    decoder target{};
    const auto error = host::load_parameters(target, *r.file);
    REQUIRE(error);
    CHECK(error->reason == "no tensor named 'multihead_attn.in_proj_weight'");
    CHECK(error->file == "layer.safetensors");
    CHECK(target == decoder{});
  }
  SECTION("the file holds a tensor the model does not have") {
    const auto r = read(host::safetensors_bytes(decoder{}));
    encoder target = original;
    const auto error = host::load_parameters(target, *r.file);
    REQUIRE(error);
    CHECK(error->reason.find("tensor 'multihead_attn.in_proj_weight' is not a parameter of the model") == 0);
    // The offset of the tensor's name in the file, counted from the file's start (8 bytes of length first).
    const std::string header(reinterpret_cast<const char*>(r.file->bytes().data()) + 8, r.file->header_size());
    CHECK(error->offset == 8 + header.find("\"multihead_attn.in_proj_weight\""));
    CHECK(target == original);
  }
  SECTION("a tensor has another shape") {
    const auto r = read(host::safetensors_bytes(original));
    ctattn::transformer_encoder_layer<float, 8, 2, 32, ctattn::gelu, true> wider{};
    const auto error = host::load_parameters(wider, *r.file);
    REQUIRE(error);
    CHECK(error->reason == "tensor 'linear1.weight' has shape [16, 8], expected [32, 8]");
    CHECK(error->message().find("layer.safetensors:") == 0);
  }
  SECTION("a file that is not a safetensors file") {
    encoder target = original;
    const auto error = host::load_parameters(target, example_file("no_such_file.safetensors"));
    REQUIRE(error);
    CHECK(target == original);
  }
}

TEST_CASE("load_options map the file's names: a submodule under a prefix, tensors skipped by name", "[import]") {
  const encoder original = trained_encoder();
  ctattn::sequential<encoder> stacked{};
  boost::hana::at_c<0>(stacked.layers) = original;
  ctattn::sequential<encoder, ctattn::layer_norm<float, 8>> with_norm{};
  boost::hana::at_c<0>(with_norm.layers) = original;

  SECTION("the model is the file's submodule under a prefix") {
    const auto r = read(host::safetensors_bytes(stacked));  // 0.self_attn.in_proj_weight, ...
    encoder loaded{};
    REQUIRE_FALSE(host::load_parameters(loaded, *r.file, {.prefix = "0.", .ignore = {}}));
    CHECK(loaded == original);
    // The file's tensors outside the prefix are not the model's business: the norm's "1.weight" and "1.bias".
    const auto r2 = read(host::safetensors_bytes(with_norm));
    encoder again{};
    REQUIRE_FALSE(host::load_parameters(again, *r2.file, {.prefix = "0.", .ignore = {}}));
    CHECK(again == original);
  }
  SECTION("a missing prefix is named in the error") {
    const auto r = read(host::safetensors_bytes(stacked));
    encoder target{};
    const auto error = host::load_parameters(target, *r.file);
    REQUIRE(error);
    CHECK(error->reason ==
          "no tensor named 'self_attn.in_proj_weight'; the file has '0.self_attn.in_proj_weight': load with the "
          "prefix '0.' (load_options::prefix, the import tool's --prefix)");
    CHECK(target == encoder{});
  }
  SECTION("a prefix the file does not have is named in the error") {
    const auto r = read(host::safetensors_bytes(original));
    encoder target{};
    const auto error = host::load_parameters(target, *r.file, {.prefix = "0.", .ignore = {}});
    REQUIRE(error);
    CHECK(error->reason ==
          "no tensor named '0.self_attn.in_proj_weight'; the file has 'self_attn.in_proj_weight', without the "
          "prefix '0.': load with no prefix");
  }
  SECTION("tensors the model does not have are skipped by whole name or by a prefix ending in '.'") {
    const auto r = read(host::safetensors_bytes(with_norm));
    ctattn::sequential<encoder> target{};
    const auto error = host::load_parameters(target, *r.file);
    REQUIRE(error);
    CHECK(error->reason.find("tensor '1.weight' is not a parameter of the model") == 0);
    CHECK(error->reason.find("skip it with load_options::ignore") != std::string::npos);
    CHECK(boost::hana::at_c<0>(target.layers) == encoder{});
    const auto only_weight = host::load_parameters(target, *r.file, {.prefix = "", .ignore = {"1.weight"}});
    REQUIRE(only_weight);
    CHECK(only_weight->reason.find("tensor '1.bias' is not a parameter of the model") == 0);
    REQUIRE_FALSE(host::load_parameters(target, *r.file, {.prefix = "", .ignore = {"1.weight", "1.bias"}}));
    CHECK(boost::hana::at_c<0>(target.layers) == original);
    ctattn::sequential<encoder> by_prefix{};
    REQUIRE_FALSE(host::load_parameters(by_prefix, *r.file, {.prefix = "", .ignore = {"1."}}));
    CHECK(boost::hana::at_c<0>(by_prefix.layers) == original);
    // "1" without the dot is no prefix: only a whole name.
    CHECK(host::load_parameters(by_prefix, *r.file, {.prefix = "", .ignore = {"1"}}));
  }
}

TEST_CASE("the trained model loads from its .safetensors file at run time and sorts its golden inputs", "[import]") {
  auto model = std::make_unique<toy::sorter>();
  const auto error = host::load_parameters(*model, example_file("sorter.safetensors"));
  INFO((error ? error->message() : std::string("loaded")));
  REQUIRE_FALSE(error);
  for (std::size_t g = 0; g < golden::count; ++g) {
    const auto logits = model->forward(golden::inputs[g]);
    CHECK(toy::answer(logits) == toy::sorted(golden::inputs[g]));
    for (std::size_t i = 0; i < toy::length; ++i) {
      for (std::size_t c = 0; c < toy::digits; ++c) {
        CHECK(std::abs(logits(i, c) - golden::logits[g][i][c]) <= 1e-5f * (1 + std::abs(golden::logits[g][i][c])));
      }
    }
  }
}

TEST_CASE("the written header keeps a NaN's sign and payload bits, as the run-time loader does", "[import]") {
  using ctattn::host::detail::exact_literal;
  CHECK(exact_literal(std::bit_cast<float>(0x7fc00123u)) == "std::bit_cast<float>(0x7fc00123u)");
  CHECK(exact_literal(std::bit_cast<float>(0xff800001u)) == "std::bit_cast<float>(0xff800001u)");
  CHECK(exact_literal(std::bit_cast<double>(0x7ff0000000000abcull)) == "std::bit_cast<double>(0x7ff0000000000abcull)");
  CHECK(exact_literal(-std::numeric_limits<float>::infinity()) == "-std::numeric_limits<float>::infinity()");
  CHECK(exact_literal(0.5f) == "0x1p-1f");
  // The form is a constant expression with those bits (what the generated header's constexpr model holds).
  static_assert(std::bit_cast<std::uint32_t>(std::bit_cast<float>(0x7fc00123u)) == 0x7fc00123u);
  static_assert(std::bit_cast<std::uint64_t>(std::bit_cast<double>(0x7ff0000000000abcull)) == 0x7ff0000000000abcull);
}

TEST_CASE("a file's __metadata__ settings must be the model's (heads, activation, norm_first); eps is the file's",
          "[import]") {
  const encoder original = trained_encoder();
  const std::vector<unsigned char> bytes = host::safetensors_bytes(original);
  // The file written from the model names every setting, and loads back.
  const auto r = read(bytes);
  REQUIRE(r);
  CHECK(*r.file->find_metadata("self_attn.num_heads") == "2");
  CHECK(*r.file->find_metadata("activation") == "gelu");
  CHECK(*r.file->find_metadata("norm_first") == "true");
  CHECK(*r.file->find_metadata("norm1.eps") == "1e-05");
  encoder loaded{};
  REQUIRE_FALSE(host::load_parameters(loaded, *r.file));
  CHECK(loaded == original);

  // The same tensors with one setting changed in the header (same length, so every offset stays).
  const auto changed = [&](std::string_view from, std::string_view to) {
    std::vector<unsigned char> edited = bytes;
    std::string text(reinterpret_cast<const char*>(edited.data()), edited.size());
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    REQUIRE(from.size() == to.size());
    std::copy(to.begin(), to.end(), edited.begin() + static_cast<std::ptrdiff_t>(at));
    return std::pair{edited, at};
  };
  struct mistake {
    std::string_view from, to, key, value, model;
  };
  const mistake mistakes[] = {
      {"\"self_attn.num_heads\":\"2\"", "\"self_attn.num_heads\":\"8\"", "self_attn.num_heads", "8", "2"},
      {"\"activation\":\"gelu\"", "\"activation\":\"relu\"", "activation", "relu", "gelu"},
      {"\"norm_first\":\"true\"", "\"norm_first\":\"fals\"", "norm_first", "fals", "true"},
      {"\"norm2.eps\":\"1e-05\"", "\"norm2.eps\":\"1e-5x\"", "norm2.eps", "1e-5x", "1e-05"},
  };
  for (const mistake& m : mistakes) {
    INFO(m.key << " = " << m.value);
    const auto [edited, at] = changed(m.from, m.to);
    const auto bad = read(edited);
    REQUIRE(bad);
    encoder target = original;
    target.norm1.eps = 1e-5f;
    const auto error = host::load_parameters(target, *bad.file);
    REQUIRE(error);
    CHECK(error->reason.find("__metadata__ says '" + std::string(m.key) + "' is '" + std::string(m.value) +
                             "', the model's is '" + std::string(m.model) + "'") == 0);
    // The offset of the value's string in the file (its opening quote).
    CHECK(error->offset == at + m.from.size() - m.value.size() - 2);
    CHECK(target == original);
  }

  // A norm's eps is the file's: the module was trained with it (timm and KWT use 1e-6), and a model's type does
  // not say it. (A file without ctattn's settings, as PyTorch's own save writes it, is checked by its tensors only:
  // the sorter's, below.)
  {
    const auto [edited, at] = changed("\"norm2.eps\":\"1e-05\"", "\"norm2.eps\":\"1e-06\"");
    const auto other_eps = read(edited);
    REQUIRE(other_eps);
    encoder target{};
    REQUIRE_FALSE(host::load_parameters(target, *other_eps.file));
    CHECK(target.norm2.eps == 1e-6f);
    target.norm2.eps = original.norm2.eps;
    CHECK(target == original);
  }
  const auto norm_file = read(host::safetensors_bytes(ctattn::layer_norm<float, 8>{}));
  REQUIRE(norm_file);
  ctattn::layer_norm<float, 8> norm{};
  norm.eps = 1e-6f;
  REQUIRE_FALSE(host::load_parameters(norm, *norm_file.file));
  CHECK(norm.eps == 1e-5f);
  CHECK(host::detail::setting_matches(ctattn::setting("eps", 1e-5f), "1e-05"));
  CHECK(host::detail::setting_matches(ctattn::setting("eps", 1e-5), "0.00001"));
  CHECK_FALSE(host::detail::setting_matches(ctattn::setting("eps", 1e-5), "1e-05 "));
  CHECK(host::detail::setting_matches(ctattn::setting("num_heads", std::size_t{4}), "4"));
  CHECK_FALSE(host::detail::setting_matches(ctattn::setting("num_heads", std::size_t{4}), "4.5"));
}

namespace {
// A layer of one's own whose setting holds characters JSON escapes.
struct quoted_layer {
  ctattn::matrix<float, 1, 2> weight{};
  template <ctattn::detail::SameLayer<quoted_layer> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(ctattn::vector_parameter("weight", self.weight));
  }
  friend constexpr auto settings(const quoted_layer&) noexcept {
    return std::array{ctattn::setting("note", "say \"hi\" \\ back\n")};
  }
};
}  // namespace

TEST_CASE("settings are written as JSON strings, escaped, and read back the same", "[import]") {
  const auto r = read(host::safetensors_bytes(quoted_layer{}));
  REQUIRE(r);
  REQUIRE(r.file->find_metadata("note") != nullptr);
  CHECK(*r.file->find_metadata("note") == "say \"hi\" \\ back\n");
  quoted_layer target{};
  CHECK_FALSE(host::load_parameters(target, *r.file));
}

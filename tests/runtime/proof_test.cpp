// A chain of proofs written at run time (ctattn/host/proof.hpp): the files of each link, the refusal of a model whose
// own forward is not its links, and the writer's check of the counts the build expects. The units themselves are
// compiled by the build (examples/CMakeLists.txt: sorter_chain_proof, and example.sorter_chain_can_fail).
#include "catch.hpp"
#include "support/layer_cases.hpp"

#include <ctattn/host/proof.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace host = ctattn::host;
namespace cases = ctattn_test::layer_cases;

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A model whose forward of its own adds a residual around its members: its links are not its forward.
struct residual_model : ctattn::model<residual_model> {
  BOOST_HANA_DEFINE_STRUCT(residual_model, (ctattn::linear<float, 4, 4, ctattn::out_by_in, true>, inner),
                           (ctattn::relu, act));
  template <typename X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    return ctattn::add(x, ctattn::forward(act, ctattn::forward(inner, x)));
  }
};

const host::proof_options front_options{.name = "front",
                                        .model_include = "front.hpp",
                                        .model_type = "front_model",
                                        .input_type = "ctattn::matrix<float, 16, 2>"};

}  // namespace

TEST_CASE("a chain of proofs has a unit per link and input, its weights and its exact outputs", "[proof]") {
  const auto model = ctattn_test::numbered<cases::front_end_token<float>>();
  static_assert(ctattn::link_count<cases::front_end_token<float>> == 5);
  const std::array inputs{ctattn::from_array(ctattn_fixtures::layers::front_end_token::input_f32),
                          ctattn::matrix<float, 16, 2>{}};
  const auto dir = std::filesystem::temp_directory_path() / "ctattn_proof_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  REQUIRE_FALSE(host::write_chain_proof(model, inputs, dir.string(), front_options));
  for (int k = 0; k < 5; ++k) {
    const std::string link = "front_link_" + std::to_string(k);
    for (int g = 0; g < 2; ++g) {
      const std::string unit = contents(dir / (link + "_input_" + std::to_string(g) + ".cpp"));
      CHECK(unit.find("static_assert(ctattn::run_link(" + link + ", " +
                      (k == 0 ? std::string("front_inputs") : "front_after_" + std::to_string(k - 1)) + "[" +
                      std::to_string(g) + "]) == front_after_" + std::to_string(k) + "[" + std::to_string(g) + "]") !=
            std::string::npos);
    }
    CHECK(std::filesystem::exists(dir / (link + "_weights.hpp")));
  }
  // The class token (link 1) holds its parameter; the pool (link 4) none; the norm (link 3) its eps.
  CHECK(contents(dir / "front_link_1_weights.hpp").find("front_link_1_parameters[8]") != std::string::npos);
  CHECK(contents(dir / "front_link_4_weights.hpp").find("front_link_4{};") != std::string::npos);
  CHECK(contents(dir / "front_link_3_weights.hpp").find("set_setting(l, \"eps\", ") != std::string::npos);
  // The last link's outputs are the model's, as exact literals.
  const auto y = model.forward(inputs[0], ctattn::exact_arithmetic);
  CHECK(contents(dir / "front_after_4.hpp").find(host::detail::exact_literal(y(0, 3))) != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a model whose own forward is not its links is refused, and the writer checks the counts", "[proof]") {
  const auto model = ctattn_test::numbered<residual_model>();
  const std::array inputs{ctattn::matrix<float, 2, 4>{{{1, -2, 3, 0.5f}, {0, 1, 0, -1}}}};
  const auto error =
      host::write_chain_proof(model, inputs, std::filesystem::temp_directory_path().string(), front_options);
  REQUIRE(error);
  CHECK(error->reason.find("the model's forward is not its links run in turn") == 0);

  const auto front = ctattn_test::numbered<cases::front_end_token<float>>();
  const std::array images{ctattn::matrix<float, 16, 2>{}};
  std::string dir = std::filesystem::temp_directory_path().string();
  std::string name = "writer", links = "4", one = "1", five = "5";
  char* wrong_links[] = {name.data(), dir.data(), links.data(), one.data()};
  char* wrong_inputs[] = {name.data(), dir.data(), five.data(), five.data()};
  char* too_few[] = {name.data(), dir.data()};
  CHECK(host::chain_proof_main(4, wrong_links, front, images, front_options) == 1);
  CHECK(host::chain_proof_main(4, wrong_inputs, front, images, front_options) == 1);
  CHECK(host::chain_proof_main(2, too_few, front, images, front_options) == 2);
}

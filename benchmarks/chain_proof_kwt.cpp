// The writer of the KWT-1-shaped model's chain of proofs (benchmarks/chain_proof.sh, chain_proof_kwt.hpp): small
// weights fixed by their place, eps 1e-6, two inputs of 98 frames.
#include <array>
#include <cstddef>
#include <string_view>

#include <ctattn/host/proof.hpp>

#include "chain_proof_kwt.hpp"

int main(int argc, char** argv) {
  static kws::kwt model{};
  std::size_t k = 0;
  ctattn::for_each_parameter(model, [&](std::string_view, const auto& view) {
    for (std::size_t i = 0; i < view.size; ++i, ++k) {
      view[i] = static_cast<float>(static_cast<int>(k * 37 % 19) - 9) / 64;
    }
  });
  (void)ctattn::set_every_setting(model, "eps", 1e-6);
  static std::array<kws::frames, 2> inputs{};
  for (std::size_t g = 0; g < 2; ++g) {
    for (std::size_t t = 0; t < 98; ++t) {
      for (std::size_t f = 0; f < 40; ++f) {
        inputs[g](t, f) = static_cast<float>(static_cast<int>((t * 7 + f * 3 + g) % 23) - 11) / 8;
      }
    }
  }
  const ctattn::host::proof_options options{.name = "kwt", .model_include = "chain_proof_kwt.hpp",
                                            .model_type = "kws::kwt", .input_type = "kws::frames"};
  return ctattn::host::chain_proof_main(argc, argv, model, inputs, options);
}

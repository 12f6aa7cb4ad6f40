// The writer of the KWT-1-shaped model's chain of proofs (benchmarks/chain_proof.sh, chain_proof_kwt.hpp): small
// weights fixed by their place, eps 1e-6, two inputs of 98 frames.
#include <array>

#include <ctattn/host/proof.hpp>

#include "chain_proof_kwt.hpp"

int main(int argc, char** argv) {
  static kws::kwt model{};
  kws::fill_weights(model);
  static std::array<kws::frames, 2> inputs{kws::example_frames(0), kws::example_frames(1)};
  const ctattn::host::proof_options options{.name = "kwt", .model_include = "chain_proof_kwt.hpp",
                                            .model_type = "kws::kwt", .input_type = "kws::frames"};
  return ctattn::host::chain_proof_main(argc, argv, model, inputs, options);
}

// The writer of the KWT-1-shaped model's chains of proofs, float and int8 (benchmarks/chain_proof.sh,
// chain_proof_kwt.hpp): small weights fixed by their place, eps 1e-6, two inputs of 98 frames; the int8 chain with the
// ranges kwt_record_ranges.cpp wrote (kwt_ranges.hpp, found on the include path).
#include <array>

#include <ctattn/host/proof.hpp>

#include "chain_proof_kwt.hpp"
#include "kwt_ranges.hpp"

int main(int argc, char** argv) {
  static kws::kwt model{};
  kws::fill_weights(model);
  static std::array<kws::frames, 2> inputs{kws::example_frames(0), kws::example_frames(1)};
  const ctattn::host::proof_options options{.name = "kwt",
                                            .model_include = "chain_proof_kwt.hpp",
                                            .model_type = "kws::kwt",
                                            .input_type = "kws::frames",
                                            .ranges_include = "kwt_ranges.hpp",
                                            .ranges_name = "kws::kwt_ranges"};
  return ctattn::host::chain_proof_main<kws::kwt_ranges>(argc, argv, model, inputs, options);
}

// The verified sorter proved one link at a time: this program runs the model's six links (embed, pos, layers.0,
// layers.1, norm, head: ctattn/layers/links.hpp) on the golden inputs with exact arithmetic and writes one
// translation unit per link, whose static_asserts check the link, evaluated by the compiler, on the exact input it
// gets (ctattn/host/proof.hpp); then the int8 chain of the same model quantized with sorter_ranges.hpp, one int8
// link per unit (the token embedding and its positions are one). examples/CMakeLists.txt compiles them
// (ctattn_chain_proof ... INT8), and sorter_chain_end.cpp closes the float chain at PyTorch's logits and the int8
// chain at the int8 logits quantize_sorter.py computes with exact integers.
#include <array>

#include <ctattn/host/proof.hpp>

#include "golden.hpp"
#include "sorter.hpp"
#include "sorter_ranges.hpp"
#include "sorter_weights.hpp"  // generated: inline constexpr toy::sorter sorter_weights

int main(int argc, char** argv) {
  static_assert(ctattn::link_count<toy::sorter> == 6 && ctattn::int8_link_count<toy::sorter> == 5);
  const ctattn::host::proof_options options{.name = "sorter",
                                            .model_include = "sorter.hpp",
                                            .model_type = "toy::sorter",
                                            .input_type = "toy::digit_ids",
                                            .ranges_include = "sorter_ranges.hpp",
                                            .ranges_name = "toy::sorter_ranges"};
  return ctattn::host::chain_proof_main<toy::sorter_ranges>(argc, argv, sorter_weights, golden::inputs, options);
}

// A consumer of ctattn_import_weights, built by both packaging tests of it: its build imported the verified model's
// trained weights (examples/verified_model/sorter.safetensors) as sorter_weights.hpp, and the model sorts digits
// with them (a file that did not reach the model, zeros for instance, sorts nothing).
#include <array>
#include <cstdio>

#include "first_layer.hpp"  // generated with PREFIX layers.0.: inline constexpr toy::block first_layer
#include "sorter.hpp"
#include "sorter_weights.hpp"  // generated: inline constexpr toy::sorter sorter_weights

int main() {
  // Rationale: static, as in examples/verified_model/verified_model.cpp (a local copy of the 72 KB model is 18,000
  // stores in main()).
  static const toy::sorter model = sorter_weights;
  constexpr std::array<int, toy::length> digits{3, 1, 4, 1, 5, 9};
  const auto answer = toy::answer(model.forward(digits));
  for (int d : answer) std::printf("%d", d);
  std::printf("\n");
  // The layer imported under the prefix is the sorter's first layer.
  const bool same_layer = boost::hana::at_c<0>(model.layers.layers) == first_layer;
  if (!same_layer) std::printf("the layer imported with PREFIX layers.0. is not the sorter's first layer\n");
  return answer == toy::sorted(digits) && same_layer ? 0 : 1;
}

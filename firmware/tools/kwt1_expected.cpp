// Build-machine tool of the KWT-1 images (firmware/models/kwt1.hpp), step 2 of 2: the logits the images must
// reproduce bit for bit, for the two example inputs: in float with exact arithmetic (this tool is built with
// CTATTN_EXACT_ARITHMETIC=1 and -ffp-contract=off: static_assert's bits, which the target's exact arithmetic
// gives too), and in int8 from the model quantized with the ranges of step 1 (integers: the same on every
// backend). Writes them as a header.
//   kwt1_expected <kwt1_expected.hpp>
#include <cstddef>
#include <cstdio>
#include <fstream>

#include <ctattn/quantized/model.hpp>

#include "../models/kwt1.hpp"
#include "kwt1_ranges.hpp"  // step 1's output

#if !defined(CTATTN_EXACT_ARITHMETIC) || CTATTN_EXACT_ARITHMETIC != 1
#error "kwt1_expected must be built with CTATTN_EXACT_ARITHMETIC=1: its float logits are static_assert's bits"
#endif

namespace kwt1 = ctattn_firmware::models::kwt1;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kwt1_expected <kwt1_expected.hpp>\n");
    return 2;
  }
  static kwt1::model model{};
  kwt1::make_weights(model);
  using int8_model = ctattn::quantized_model<kwt1::model, kwt1::ranges>;
  static const int8_model int8 = ctattn::quantize<kwt1::ranges>(model);
  constexpr auto input_quantization = int8_model::first_layer::input_quantization;

  std::ofstream out(argv[1], std::ios::binary);
  out << "// The logits the KWT-1 images must reproduce bit for bit, computed on the build machine by\n"
      << "// firmware/tools/kwt1_expected.cpp (float: exact arithmetic; int8: the model quantized with kwt1_ranges.hpp).\n"
      << "// GENERATED: do not edit, regenerate.\n#pragma once\n\n#include <cstdint>\n\n"
      << "namespace ctattn_firmware::models::kwt1 {\n\n";
  out << "inline constexpr float expected_float_logits[2][" << kwt1::classes << "] = {\n";
  for (const auto seed : kwt1::example_seeds) {
    const auto logits = model.forward(kwt1::frames_of(seed));
    out << "    {";
    for (std::size_t j = 0; j < kwt1::classes; ++j) {
      char text[64];
      std::snprintf(text, sizeof text, "%a", static_cast<double>(logits(0, j)));
      out << (j == 0 ? "" : ", ") << text;
    }
    out << "},\n";
  }
  out << "};\n\ninline constexpr std::int8_t expected_int8_logits[2][" << kwt1::classes << "] = {\n";
  for (const auto seed : kwt1::example_seeds) {
    const auto logits = int8.forward(ctattn::quantize<input_quantization>(kwt1::frames_of(seed)));
    out << "    {";
    for (std::size_t j = 0; j < kwt1::classes; ++j) {
      out << (j == 0 ? "" : ", ") << static_cast<int>(logits(0, j));
    }
    out << "},\n";
  }
  out << "};\n\n}  // namespace ctattn_firmware::models::kwt1\n";
  out.close();
  if (!out) {
    std::fprintf(stderr, "kwt1_expected: could not write %s\n", argv[1]);
    return 1;
  }
  return 0;
}

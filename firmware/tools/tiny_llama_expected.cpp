// Build-machine tool of the tiny llama images (firmware/models/tiny_llama.hpp), step 2 of 2: the ids a greedy
// generation gives and every step's logits, in float with exact arithmetic (this tool is built with
// CTATTN_EXACT_ARITHMETIC=1 and -ffp-contract=off: static_assert's bits, which the target's exact arithmetic gives
// too) and in int8 from the model quantized with the ranges of step 1 (tiny_llama_ranges.cpp; integers: the same on
// every backend). Writes them as a header.
//   tiny_llama_expected <tiny_llama_expected.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>

#include "../models/tiny_llama_int8.hpp"  // and step 1's tiny_llama_ranges.hpp

#if !defined(CTATTN_EXACT_ARITHMETIC) || CTATTN_EXACT_ARITHMETIC != 1
#error "tiny_llama_expected must be built with CTATTN_EXACT_ARITHMETIC=1: its logits are static_assert's bits"
#endif

namespace tiny_llama = ctattn_firmware::models::tiny_llama;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tiny_llama_expected <tiny_llama_expected.hpp>\n");
    return 2;
  }
  static tiny_llama::model model{};
  tiny_llama::make_weights(model);
  static tiny_llama::state state{};
  static tiny_llama::logits_row logits{};
  static tiny_llama::generation out{};
  const std::size_t made = tiny_llama::generate(model, state, logits, out.tokens.data(),
                                                [](std::size_t step, const tiny_llama::logits_row& row) {
                                                  for (std::size_t j = 0; j < tiny_llama::vocabulary; ++j)
                                                    out.logits[step][j] = row(0, j);
                                                });
  if (made != tiny_llama::generated) {
    std::fprintf(stderr, "tiny_llama_expected: the generation stopped after %zu ids\n", made);
    return 1;
  }

  using int8_model = tiny_llama::int8_model;
  static const int8_model int8 = ctattn::quantize<tiny_llama::ranges>(model);
  static tiny_llama::int8_state int8_state{};
  static tiny_llama::int8_logits int8_logits{};
  static std::uint16_t int8_tokens[tiny_llama::generated]{};
  static std::int8_t int8_rows[tiny_llama::steps][tiny_llama::vocabulary]{};
  const std::size_t int8_made =
      tiny_llama::generate(int8, int8_state, int8_logits, int8_tokens, [](std::size_t step, const auto& row) {
        for (std::size_t j = 0; j < tiny_llama::vocabulary; ++j) int8_rows[step][j] = row(0, j);
      });
  if (int8_made != tiny_llama::generated) {
    std::fprintf(stderr, "tiny_llama_expected: the int8 generation stopped after %zu ids\n", int8_made);
    return 1;
  }

  std::ofstream file(argv[1], std::ios::binary);
  file
      << "// The ids and logits the tiny llama images must reproduce bit for bit, computed on the build machine by\n"
      << "// firmware/tools/tiny_llama_expected.cpp (float, exact arithmetic; int8, quantized with tiny_llama_ranges.hpp).\n"
      << "// GENERATED: do not edit, regenerate.\n#pragma once\n\n#include <cstdint>\n\n"
      << "namespace ctattn_firmware::models::tiny_llama {\n\n";
  file << "inline constexpr std::uint16_t expected_tokens[" << tiny_llama::generated << "] = {";
  for (std::size_t t = 0; t < tiny_llama::generated; ++t) file << (t == 0 ? "" : ", ") << out.tokens[t];
  file << "};\n\ninline constexpr float expected_logits[" << tiny_llama::steps << "][" << tiny_llama::vocabulary
       << "] = {\n";
  for (const auto& row : out.logits) {
    file << "    {";
    for (std::size_t j = 0; j < tiny_llama::vocabulary; ++j) {
      char text[64];
      std::snprintf(text, sizeof text, "%a", static_cast<double>(row[j]));
      file << (j == 0 ? "" : ", ") << text;
    }
    file << "},\n";
  }
  file << "};\n\ninline constexpr std::uint16_t expected_int8_tokens[" << tiny_llama::generated << "] = {";
  for (std::size_t t = 0; t < tiny_llama::generated; ++t) file << (t == 0 ? "" : ", ") << int8_tokens[t];
  file << "};\n\ninline constexpr std::int8_t expected_int8_logits[" << tiny_llama::steps << "]["
       << tiny_llama::vocabulary << "] = {\n";
  for (const auto& row : int8_rows) {
    file << "    {";
    for (std::size_t j = 0; j < tiny_llama::vocabulary; ++j) file << (j == 0 ? "" : ", ") << static_cast<int>(row[j]);
    file << "},\n";
  }
  file << "};\n\n}  // namespace ctattn_firmware::models::tiny_llama\n";
  file.close();
  if (!file) {
    std::fprintf(stderr, "tiny_llama_expected: could not write %s\n", argv[1]);
    return 1;
  }
  std::printf("tiny_llama_expected: generated");
  for (const auto t : out.tokens) std::printf(" %u", static_cast<unsigned>(t));
  std::printf("; in int8");
  for (const auto t : int8_tokens) std::printf(" %u", static_cast<unsigned>(t));
  std::printf("\n");
  return 0;
}

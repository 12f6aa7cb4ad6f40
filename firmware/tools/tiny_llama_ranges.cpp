// Build-machine tool of the tiny llama's int8 images (firmware/models/tiny_llama.hpp), step 1 of 2: records the
// range of every activation the int8 model quantizes over four calibration sequences of 23 ids (the prompt and the
// float model's greedy continuation, three sequences of ids fixed by a seed), and writes them as a header, from which
// the images quantize the model in a constant expression (ctattn::quantize<ranges>).
//   tiny_llama_ranges <tiny_llama_ranges.hpp>
#include <array>
#include <cstdio>

#include <ctattn/host/ranges.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "../models/tiny_llama.hpp"

int main(int argc, char** argv) {
  namespace tiny_llama = ctattn_firmware::models::tiny_llama;
  if (argc != 2) {
    std::fprintf(stderr, "usage: tiny_llama_ranges <tiny_llama_ranges.hpp>\n");
    return 2;
  }
  static tiny_llama::model model{};
  tiny_llama::make_weights(model);
  static ctattn::activation_ranges<256> ranges{};
  // The prompt and the float model's continuation: the sequence the images decode.
  static tiny_llama::state state{};
  static tiny_llama::logits_row logits{};
  std::uint16_t continuation[tiny_llama::generated]{};
  (void)tiny_llama::generate(model, state, logits, continuation, [](std::size_t, const auto&) {});
  std::array<int, tiny_llama::steps> decoded{};
  for (std::size_t t = 0; t < tiny_llama::steps; ++t) {
    decoded[t] = t < tiny_llama::prompt_length ? tiny_llama::prompt[t] : continuation[t - tiny_llama::prompt_length];
  }
  (void)ctattn::record_ranges(model, decoded, ranges);
  for (const auto seed : tiny_llama::calibration_seeds) {
    (void)ctattn::record_ranges(model, tiny_llama::calibration_ids(seed), ranges);
  }
  if (ranges.overflowed) {
    std::fprintf(stderr, "tiny_llama_ranges: more points than the recorder holds\n");
    return 1;
  }
  const ctattn::host::ranges_header_options options{"ctattn_firmware::models::tiny_llama::ranges",
                                                    "the 4 calibration sequences of firmware/models/tiny_llama.hpp"};
  if (auto error = ctattn::host::write_ranges_header(ranges, argv[1], options)) {
    std::fprintf(stderr, "%s\n", error->message().c_str());
    return 1;
  }
  return 0;
}

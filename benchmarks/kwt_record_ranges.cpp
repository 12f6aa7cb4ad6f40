// Records the activation ranges of the KWT-1-shaped model (chain_proof_kwt.hpp) over four inputs and writes them
// as a header, with which bench_kwt_speed.cpp quantizes the model (benchmarks/CMakeLists.txt runs it at build time).
//   kwt_record_ranges <out.hpp>
#include <cstddef>
#include <cstdio>

#include <ctattn/host/ranges.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "chain_proof_kwt.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kwt_record_ranges <out.hpp>\n");
    return 2;
  }
  static kws::kwt model{};
  kws::fill_weights(model);
  static ctattn::activation_ranges<256> ranges{};
  for (std::size_t g = 0; g < 4; ++g) (void)ctattn::record_ranges(model, kws::example_frames(g), ranges);
  const ctattn::host::ranges_header_options options{"kws::kwt_ranges", "4 inputs (kws::example_frames)"};
  if (auto error = ctattn::host::write_ranges_header(ranges, argv[1], options)) {
    std::fprintf(stderr, "%s\n", error->message().c_str());
    return 1;
  }
  return 0;
}

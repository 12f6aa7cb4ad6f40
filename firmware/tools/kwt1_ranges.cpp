// Build-machine tool of the KWT-1 images (firmware/models/kwt1.hpp), step 1 of 2: records the range of every
// activation over the four calibration inputs (70 M multiply-adds each, too many for the compiler) and writes them
// as a header, from which the images quantize the model in a constant expression.
//   kwt1_ranges <kwt1_ranges.hpp>
#include <cstdio>

#include <ctattn/host/ranges.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "../models/kwt1.hpp"

int main(int argc, char** argv) {
  namespace kwt1 = ctattn_firmware::models::kwt1;
  if (argc != 2) {
    std::fprintf(stderr, "usage: kwt1_ranges <kwt1_ranges.hpp>\n");
    return 2;
  }
  static kwt1::model model{};
  kwt1::make_weights(model);
  static ctattn::activation_ranges<256> ranges{};
  for (const auto seed : kwt1::calibration_seeds) (void)ctattn::record_ranges(model, kwt1::frames_of(seed), ranges);
  const ctattn::host::ranges_header_options options{"ctattn_firmware::models::kwt1::ranges",
                                                    "the 4 calibration inputs of firmware/models/kwt1.hpp"};
  if (auto error = ctattn::host::write_ranges_header(ranges, argv[1], options)) {
    std::fprintf(stderr, "%s\n", error->message().c_str());
    return 1;
  }
  return 0;
}

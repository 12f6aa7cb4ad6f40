// Calibrates the verified sorter for int8: the float model (its weights imported from sorter.safetensors) runs over
// 512 sequences of six digits and ctattn::record_ranges records the range of every activation the int8 model
// quantizes; the ranges go to a header, sorter_ranges.hpp, that int8_sorter.hpp reads by name.
//
//   record_sorter_ranges <output.hpp>
//
// The sequences come from a fixed linear congruential generator, and the arithmetic is exact (the scalar kernels,
// every sum in order), so the header is the same on every machine: a test regenerates it and compares it with the
// committed one.
#include <array>
#include <cstdint>
#include <cstdio>

#include <ctattn/host/ranges.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "sorter_weights.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: record_sorter_ranges <output.hpp>\n");
    return 2;
  }
  static ctattn::activation_ranges<64> ranges{};
  std::uint32_t state = 123;
  for (int sequence = 0; sequence < 512; ++sequence) {
    std::array<int, toy::length> ids{};
    for (int& digit : ids) {
      state = state * 1664525u + 1013904223u;
      digit = static_cast<int>((state >> 16) % toy::digits);
    }
    (void)ctattn::record_ranges(sorter_weights, ids, ranges);
  }
  if (auto error = ctattn::host::write_ranges_header(
          ranges, argv[1], {"toy::sorter_ranges", "512 sequences of six digits (record_sorter_ranges.cpp)"})) {
    std::fprintf(stderr, "%s\n", error->message().c_str());
    return 1;
  }
  return 0;
}

#!/usr/bin/env bash
# Compile time and compiler peak memory of the layers tier, for GCC and Clang. Prints markdown tables:
#   1. the verified model (examples/verified_model/): its weights imported from sorter.safetensors, then four whole
#      forward passes checked inside static_assert (-fsyntax-only: evaluation is the whole cost), and the example's
#      whole build at -O2 (the run-time code as well); the same model quantized to int8 by the compiler and its four
#      int8 forward passes checked (int8_model.cpp);
#   2. what the layers tier and Boost.Hana cost a translation unit that only includes them.
# Run on an idle machine; the calibration (GCC's time for a file that uses nothing of ctattn) is printed before and
# after, so that runs on a busy or slower machine can be compared.
#   benchmarks/compile_time_model.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
example="$root/examples/verified_model"
source "$here/compile_time_common.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The import tool, as cmake/ctattn_import.cmake makes it, and the header it writes.
cat > "$work/import.cpp" <<CPP
#include <ctattn/host/import.hpp>
#include "$example/sorter.hpp"
int main(int argc, char** argv) {
  return ctattn::host::import_main<toy::sorter>(argc, argv, "toy::sorter", "$example/sorter.hpp");
}
CPP
g++ -std=c++20 -O1 -I"$root/include" "$work/import.cpp" -o "$work/import"
"$work/import" "$example/sorter.safetensors" "$work/sorter_weights.hpp" sorter_weights

flags=(-std=c++20 -ffp-contract=off -DCTATTN_EXACT_ARITHMETIC=1 -I"$root/include" -I"$example" -I"$work")
calibrate before
echo
echo "The verified model (2 encoder layers, d_model 32, 4 heads, 6 tokens; 4 golden inputs checked in static_assert):"
echo
echo "| translation unit | GCC s | GCC peak MB | GCC G instr. | Clang s | Clang peak MB | Clang G instr. |"
echo "|---|---:|---:|---:|---:|---:|---:|"
echo "| weights only (the imported header, $(wc -c < "$work/sorter_weights.hpp") bytes) | $(
  echo '#include "sorter_weights.hpp"' > "$work/weights_only.cpp"
  measure g++ "${flags[@]}" -fsyntax-only "$work/weights_only.cpp") | $(
  measure clang++ "${flags[@]}" -fsyntax-only "$work/weights_only.cpp") |"
echo "| verified_model.cpp, -fsyntax-only (the static_asserts) | $(
  measure g++ "${flags[@]}" -fsyntax-only "$example/verified_model.cpp") | $(
  measure clang++ "${flags[@]}" -fsyntax-only "$example/verified_model.cpp") |"
echo "| verified_model.cpp, -O2 -c (with the run-time code) | $(
  measure g++ "${flags[@]}" -O2 -c -o "$work/g.o" "$example/verified_model.cpp") | $(
  measure clang++ "${flags[@]}" -O2 -c -o "$work/c.o" "$example/verified_model.cpp") |"
echo "| int8_model.cpp, -fsyntax-only (quantizing the 17,994 weights, four int8 forward passes) | $(
  measure g++ "${flags[@]}" -fsyntax-only "$example/int8_model.cpp") | $(
  measure clang++ "${flags[@]}" -fsyntax-only "$example/int8_model.cpp") |"
echo
echo "What including a tier costs (-fsyntax-only of a file that includes only the header):"
echo
echo "| header | GCC s | GCC peak MB | GCC G instr. | Clang s | Clang peak MB | Clang G instr. |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for header in ctattn/ctattn.hpp boost/hana/tuple.hpp ctattn/layers.hpp; do
  echo "#include <$header>" > "$work/include_only.cpp"
  echo "| <$header> | $(measure g++ "${flags[@]}" -fsyntax-only "$work/include_only.cpp") | $(
    measure clang++ "${flags[@]}" -fsyntax-only "$work/include_only.cpp") |"
done
echo
calibrate after

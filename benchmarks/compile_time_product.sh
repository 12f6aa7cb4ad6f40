#!/usr/bin/env bash
# Compile time and compiler peak memory of a translation unit that evaluates an N x N by N x N product inside
# static_assert (benchmarks/compile_time_product.cpp), for GCC and Clang. Prints a markdown table.
# Usage: benchmarks/compile_time_product.sh [N...]   (default: 32 64 96)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
sizes=("${@:-32 64 96}")
[[ $# -eq 0 ]] && sizes=(32 64 96)
# Clang's default budget is 1,048,576 constexpr steps; GCC's is 2^25 operations.
clang_flags="-fconstexpr-steps=100000000"
gcc_flags="-fconstexpr-ops-limit=1000000000"
calibrate() {
  local log
  log=$(mktemp)
  /usr/bin/time -f "%e" -o "$log" g++ -std=c++20 -fsyntax-only "$here/compile_time_calibration.cpp"
  echo "calibration ($1): $(cat "$log") s (benchmarks/compile_time_calibration.cpp with GCC)"
  rm -f "$log"
}
calibrate before
trap 'calibrate after' EXIT
echo "| N | multiply-adds | GCC 12 s | GCC peak MB | Clang 14 s | Clang peak MB |"
echo "|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  row="| $n | $((n * n * n))"
  for compiler in g++ clang++; do
    extra=$gcc_flags
    [[ $compiler == clang++ ]] && extra=$clang_flags
    log=$(mktemp)
    /usr/bin/time -f "%e %M" -o "$log" "$compiler" -std=c++20 -fsyntax-only $extra -I"$root/include" \
      -DCTATTN_N="$n" "$here/compile_time_product.cpp"
    read -r seconds kilobytes < "$log"
    rm -f "$log"
    row="$row | $seconds | $((kilobytes / 1024))"
  done
  echo "$row |"
done

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
source "$here/compile_time_common.sh"
calibrate before
trap 'calibrate after' EXIT
echo "| N | multiply-adds | GCC 12 s | GCC peak MB | GCC G instr | Clang 14 s | Clang peak MB | Clang G instr |"
echo "|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  row="| $n | $((n * n * n))"
  for compiler in g++ clang++; do
    extra=$gcc_flags
    [[ $compiler == clang++ ]] && extra=$clang_flags
    row="$row | $(measure "$compiler" -std=c++20 -fsyntax-only $extra -I"$root/include" -DCTATTN_N="$n" \
                          "$here/compile_time_product.cpp")"
  done
  echo "$row |"
done

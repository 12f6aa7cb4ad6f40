#!/usr/bin/env bash
# Compile time and compiler peak memory of the int8 kernels in constant evaluation: benchmarks/compile_time_int8.cpp
# evaluates, inside static_assert, a KWT-1-sized int8 projection (99 x 64 by 64 x 256), one-head attention over 99
# tokens of 64, and a post-norm encoder layer (d_model 64, MLP 256), each in a unit of its own, with GCC and Clang.
# Each unit is compiled RUNS times (default 3) and the least user time is kept (this machine's times vary by a
# third between runs); the baseline unit (the same inputs and quantized weights, nothing evaluated) is subtracted,
# and the rest is divided by the multiply-adds: microseconds per constant-evaluated multiply-add.
#   benchmarks/compile_time_int8.sh [include dir]   (default: this tree's include/; give another tree's to compare)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
include="${1:-$root/include}"
runs="${RUNS:-3}"
source "$here/compile_time_common.sh"
least() {  # compiler flags... -> "least user seconds, peak MB"
  local best="" peak=0 log
  log=$(mktemp)
  for ((i = 0; i < runs; ++i)); do
    /usr/bin/time -f "%U %M" -o "$log" "$@" >/dev/null 2>&1 || { echo "fails -"; rm -f "$log"; return; }
    read -r seconds kilobytes < "$log"
    if [[ -z $best ]] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$seconds; fi
    (( kilobytes / 1024 > peak )) && peak=$((kilobytes / 1024))
  done
  rm -f "$log"
  echo "$best $peak"
}
calibrate before
names=("baseline" "projection 99 x 64 x 256" "attention, 1 head, 99 x 64" "encoder layer, 64 / 256")
macs=(0 1622016 2876544 6120576)
echo "| form | multiply-adds | GCC 12 s | GCC peak MB | GCC us / MAC | Clang 14 s | Clang peak MB | Clang us / MAC |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
declare -A base
for form in 0 1 2 3; do
  row="| ${names[$form]} | ${macs[$form]}"
  for compiler in g++ clang++; do
    extra=-fconstexpr-ops-limit=4000000000
    [[ $compiler == clang++ ]] && extra=-fconstexpr-steps=2000000000
    read -r seconds peak < <(least "$compiler" -std=c++20 -fsyntax-only $extra -I"$include" -I"$here" \
                                   -DCTATTN_INT8_FORM=$form "$here/compile_time_int8.cpp")
    if [[ $form == 0 ]]; then
      base[$compiler]=$seconds
      row="$row | $seconds | $peak | -"
    else
      per=$(awk -v s="$seconds" -v b="${base[$compiler]}" -v m="${macs[$form]}" 'BEGIN { printf "%.2f", (s - b) * 1e6 / m }')
      row="$row | $seconds | $peak | $per"
    fi
  done
  echo "$row |"
done
calibrate after

#!/usr/bin/env bash
# Instructions the constant evaluators of GCC and Clang execute per constant-evaluated multiply-add, for the
# product, attention and int8 kernels, counted by valgrind (cachegrind, no cache simulation): exact and the same on
# every run and every machine, virtual ones included (perf's counters are missing there). Each figure is the
# difference between two units that differ only in the work evaluated inside static_assert, divided by the
# difference in multiply-adds, so parsing and instantiation cancel out:
#   product          benchmarks/compile_time_product.cpp, N = 64 less N = 32
#   attention        benchmarks/compile_time_attention_nd.cpp, one head of d = 64, n = 64 less n = 32 (with softmax)
#   int8 projection  benchmarks/compile_time_int8.cpp, 16 tokens, 16 x 64 by 64 x 256, less its baseline unit
#   int8 attention   the same file, one head over 16 tokens of 64 with W_Q, W_K, W_V, W_O, less the baseline
# Usage: benchmarks/compile_time_instructions.sh [include dir ...]   (default: this tree's include/; give another
# tree's include/ first to print before and after side by side). Needs valgrind; about 10 minutes per include dir.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
includes=("$@")
[[ ${#includes[@]} -eq 0 ]] && includes=("$root/include")
command -v valgrind >/dev/null || { echo "compile_time_instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }

count() {  # compiler include flags... -> instructions of the compiler and every process it starts
  local compiler=$1 include=$2 limit=-fconstexpr-ops-limit=4000000000 log
  shift 2
  [[ $compiler == clang++ ]] && limit=-fconstexpr-steps=2000000000
  log=$(mktemp)
  if ! valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=/dev/null \
         --log-file="$log" "$compiler" -std=c++20 -fsyntax-only "$limit" -I"$include" -I"$here" "$@" >/dev/null 2>&1; then
    rm -f "$log"
    echo "compile_time_instructions.sh: $compiler fails on $*" >&2
    exit 1
  fi
  awk '/I *refs/ { gsub(",", "", $4); total += $4 } END { printf "%.0f\n", total }' "$log"
  rm -f "$log"
}

per_mac() {  # instructions-with instructions-without multiply-adds -> instructions per multiply-add
  awk -v a="$1" -v b="$2" -v m="$3" 'BEGIN { printf "%.0f", (a - b) / m }'
}

kernels=("product" "attention, one head, d = 64" "int8 projection" "int8 attention, one head")
header="| kernel (multiply-adds counted) |"
rule="|---|"
declare -A figure
for include in "${includes[@]}"; do
  for compiler in g++ clang++; do
    label="$compiler $(basename "$(dirname "$include")")/include"
    header="$header $label |"
    rule="$rule---:|"
    figure[$include,$compiler,0]=$(per_mac "$(count "$compiler" "$include" -DCTATTN_N=64 "$here/compile_time_product.cpp")" \
                                           "$(count "$compiler" "$include" -DCTATTN_N=32 "$here/compile_time_product.cpp")" \
                                           $((64 * 64 * 64 - 32 * 32 * 32)))
    figure[$include,$compiler,1]=$(per_mac \
      "$(count "$compiler" "$include" -DCTATTN_N=64 "$here/compile_time_attention_nd.cpp")" \
      "$(count "$compiler" "$include" -DCTATTN_N=32 "$here/compile_time_attention_nd.cpp")" \
      $((2 * 64 * 64 * 64 - 2 * 32 * 32 * 64)))
    base=$(count "$compiler" "$include" -DCTATTN_INT8_TOKENS=16 -DCTATTN_INT8_FORM=0 "$here/compile_time_int8.cpp")
    figure[$include,$compiler,2]=$(per_mac \
      "$(count "$compiler" "$include" -DCTATTN_INT8_TOKENS=16 -DCTATTN_INT8_FORM=1 "$here/compile_time_int8.cpp")" \
      "$base" $((16 * 64 * 256)))
    figure[$include,$compiler,3]=$(per_mac \
      "$(count "$compiler" "$include" -DCTATTN_INT8_TOKENS=16 -DCTATTN_INT8_FORM=2 "$here/compile_time_int8.cpp")" \
      "$base" $((4 * 16 * 64 * 64 + 2 * 16 * 16 * 64)))
  done
done
echo "Instructions per constant-evaluated multiply-add (valgrind --tool=cachegrind; $(g++ --version | head -1);"
echo "$(clang++ --version | head -1))"
echo
echo "$header"
echo "$rule"
for k in 0 1 2 3; do
  row="| ${kernels[$k]} |"
  for include in "${includes[@]}"; do
    for compiler in g++ clang++; do row="$row ${figure[$include,$compiler,$k]} |"; done
  done
  echo "$row"
done

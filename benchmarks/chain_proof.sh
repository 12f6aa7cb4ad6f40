#!/usr/bin/env bash
# The chain of proofs of a KWT-1-shaped model (benchmarks/chain_proof_kwt.hpp: 12 post-norm encoder layers of
# d_model 64 over 99 tokens, about 70 M multiply-adds), float and int8: records the int8 ranges
# (kwt_record_ranges.cpp), writes both chains (ctattn/host/proof.hpp) on two inputs, then compiles every unit (one
# link on one input, float then int8) with GCC and with Clang, one at a time, and prints each unit's time, peak
# memory and instructions, and the totals. Slow: about 30 minutes of CPU per compiler on a 2-core machine.
#   benchmarks/chain_proof.sh [g++|clang++ ...]   (default both)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
compilers=("$@")
[[ ${#compilers[@]} -eq 0 ]] && compilers=(g++ clang++)
source "$here/compile_time_common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++20 -O2 -I"$root/include" "$here/kwt_record_ranges.cpp" -o "$work/recorder"
"$work/recorder" "$work/kwt_ranges.hpp"
g++ -std=c++20 -O2 -ffp-contract=off -DCTATTN_EXACT_ARITHMETIC=1 -I"$root/include" -I"$work" \
  "$here/chain_proof_kwt.cpp" -o "$work/writer"
links=17
"$work/writer" "$work" $links 2 int8
calibrate before
for compiler in "${compilers[@]}"; do
  extra=-fconstexpr-ops-limit=4000000000
  [[ $compiler == clang++ ]] && extra=-fconstexpr-steps=2000000000
  for chain in "" int8_; do
    echo
    echo "$compiler, ${chain:-float }chain: | link | input | s | peak MB | G instr |"
    total=0
    for ((k = 0; k < links; ++k)); do
      for g in 0 1; do
        row=$(measure "$compiler" -std=c++20 -fsyntax-only $extra -I"$root/include" -I"$here" -I"$work" \
                "$work/kwt_${chain}link_${k}_input_${g}.cpp")
        echo "| $k | $g | $row |"
        total=$(awk -v t="$total" -v s="${row%% *}" 'BEGIN { print t + s }')
      done
    done
    echo "$compiler, ${chain:-float }chain: every unit, one after another: $total s"
  done
done

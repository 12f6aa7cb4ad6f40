#!/usr/bin/env bash
# A tiny language model on Cortex-M boards, ctattn against llama2.c: the image tiny_llama_llama2c
# (benchmarks/firmware/tiny_llama_llama2c.cpp), the stories260K-shaped model of firmware/models/tiny_llama.hpp
# generating 16 tokens after an 8-token prompt (23 steps) by ctattn (exact arithmetic, and fast where the board has a
# SIMD backend) and by llama2.c's run.c, same weights, same tokens, under qemu-system-arm -icount shift=0, each side
# built with the same flags at -Os and at -O2. Prints one markdown table: per board and level, each side's
# instructions per step (per generated token), ctattn's best over run.c's, and ctattn's instructions per
# multiply-accumulate. The image fails when ctattn's logits are not the build machine's or run.c's ids differ.
# Usage: CTATTN_LLAMA2C_DIR=<llama2.c checkout> benchmarks/firmware_tiny_llama.sh [--write FILE] [board...]
#        (default boards: m7 m55-helium, the boards with the tiny llama's images)
#   --write FILE: the table, with the toolchain and llama2.c's commit, replaces FILE's block
#   `firmware_tiny_llama.sh` (docs/firmware.md); nothing is written when a board fails.
# Build directories: build-bench-<board>-<Os|O2> in the repository root, shared with the other firmware benchmarks;
# only the image is built (-j2).
# Exits non-zero if a board fails to configure, build or pass the image's checks.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/firmware_common.sh"
take_write_option "$@"
shift "$write_shift"
llama2c_dir="${CTATTN_LLAMA2C_DIR:-}"
if [[ -z $llama2c_dir ]]; then
  echo "set CTATTN_LLAMA2C_DIR to a checkout of llama2.c (e.g. a clone of github.com/karpathy/llama2.c)" >&2
  exit 2
fi
boards=("$@")
[[ ${#boards[@]} -eq 0 ]] && boards=(m7 m55-helium)
image=tiny_llama_llama2c
status=0
rows=()
ratios=()
macs=""
commas() { sed -E ':a; s/^([0-9]+)([0-9]{3})/\1,\2/; ta' <<< "$1"; }
for board in "${boards[@]}"; do
  for opt in Os O2; do
    build="$root/build-bench-$board-$opt"
    case $opt in
      Os) type_args=(-DCMAKE_BUILD_TYPE=MinSizeRel) ;;
      O2) type_args=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"
                     "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG") ;;
    esac
    echo "=== $board -$opt" >&2
    log=$(mktemp)
    if ! cmake -S "$root" -B "$build" -G Ninja --toolchain "$root/cmake/toolchains/$(board_toolchain "$board")" \
           -DCTATTN_BOARD="$board" "${type_args[@]}" -DCTATTN_LLAMA2C_DIR="$llama2c_dir" >"$log" 2>&1 ||
       ! cmake --build "$build" --target "$image" -j2 >>"$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      status=1
      continue
    fi
    if ! ctest --test-dir "$build" -R "^firmware_${image}\$" -V --no-tests=error >"$log" 2>&1; then
      grep -E "FAIL|NOT|error" "$log" >&2 || cat "$log" >&2
      status=1
    fi
    # result: steps=<n> macs=<n> ctattn_exact=<n> ctattn_fast=<n>  /  result: run_c=<n> runq_c=<n> pass=yes|no
    # (instructions of whole generations)
    fields=$(grep -o 'result: .*' "$log" | sed 's/^result: //' | tr '\n' ' ' || true)
    rm -f "$log"
    declare -A kv=()
    for field in $fields; do kv[${field%%=*}]="${field#*=}"; done
    steps=${kv[steps]:-0}
    macs=${kv[macs]:-?}
    per_step() { [[ ${1:-} =~ ^[0-9]+$ && $steps -gt 0 ]] && echo $(( ($1 + steps / 2) / steps )) || echo "-"; }
    exact=$(per_step "${kv[ctattn_exact]:-}")
    fast=$(per_step "${kv[ctattn_fast]:-}")
    run_c=$(per_step "${kv[run_c]:-}")
    best=$exact
    [[ $fast =~ ^[0-9]+$ && $fast -lt $best ]] && best=$fast
    ratio=-
    per_mac=-
    if [[ $best =~ ^[0-9]+$ && $run_c =~ ^[0-9]+$ ]]; then
      ratio=$(awk -v n="$best" -v d="$run_c" 'BEGIN { printf "%.2f", n / d }')
      per_mac=$(awk -v n="$best" -v d="$macs" 'BEGIN { printf "%.2f", n / d }')
      ratios+=("$ratio")
    fi
    [[ ${kv[pass]:-no} == yes ]] || { ratio="$ratio (FAILED)"; status=1; }
    fast_cell=$(commas "$fast")
    [[ $fast == "$exact" ]] && fast_cell="(scalar board)"
    rows+=("| \`$board\` | -$opt | $(commas "$exact") | $fast_cell | $(commas "$run_c") | $ratio | $per_mac |")
  done
done
table=$(echo "| board | level | ctattn exact | ctattn fast | llama2.c run.c | ctattn / run.c | ctattn per MAC |"
        echo "|---|---|---:|---:|---:|---:|---:|"
        printf '%s\n' "${rows[@]}")
echo "$table"
if [[ -n $write_to ]]; then
  [[ $status == 0 ]] || { echo "firmware_tiny_llama.sh: a board failed; nothing written to $write_to" >&2; exit 1; }
  read -r gcc clang qemu <<< "$(toolchain)"
  llama2c_commit=$(git -C "$llama2c_dir" rev-parse --short=7 HEAD 2>/dev/null || echo "of unknown commit")
  span() { printf '%s\n' "$@" | sort -n | sed -n '1p;$p' | paste -sd' ' | awk '{ print ($1 == $2 ? $1 : $1 " to " $2) }'; }
  {
    echo "Measured by \`CTATTN_LLAMA2C_DIR=<checkout> benchmarks/firmware_tiny_llama.sh --write $write_to" \
         "${boards[*]}\`: llama2.c $llama2c_commit, instructions per step (per generated token) under QEMU" \
         "$qemu, averaged over the 23 steps; arm-none-eabi-gcc $gcc, Clang $clang (m55-helium); $(commas "$macs")" \
         "multiply-accumulates per step besides attention over the cache."
    echo
    echo "$table"
    echo
    echo "ctattn (its best arithmetic on the board) takes $(span "${ratios[@]}") of run.c's instructions."
  } | write_doc_block "$write_to" "firmware_tiny_llama.sh" || exit 1
fi
exit $status

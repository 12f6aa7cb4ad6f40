#!/usr/bin/env bash
# A tiny language model on Cortex-M boards, ctattn against llama2.c: the image tiny_llama_llama2c
# (benchmarks/firmware/tiny_llama_llama2c.cpp), the stories260K-shaped model of firmware/models/tiny_llama.hpp
# generating 16 tokens after an 8-token prompt (23 steps) by ctattn (exact arithmetic, and fast where the board has a
# SIMD backend; int8) and by llama2.c's run.c (float) and runq.c (int8 weights in groups), same weights, same prompt,
# under qemu-system-arm -icount shift=0, each side built with the same flags at -Os and at -O2. Prints one markdown
# table: per board and level, each side's instructions per step (per token), ctattn's float (its best) over run.c's,
# its int8 over runq.c's and over its float, and instructions per multiply-accumulate. The image fails when ctattn's
# logits are not the build machine's, run.c's ids differ, or an int8 side strays (tiny_llama_llama2c.cpp says how far).
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
float_ratios=()
int8_ratios=()
int8_float_ratios=()
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
    int8=$(per_step "${kv[ctattn_int8]:-}")
    run_c=$(per_step "${kv[run_c]:-}")
    runq_c=$(per_step "${kv[runq_c]:-}")
    best=$exact
    [[ $fast =~ ^[0-9]+$ && $fast -lt $best ]] && best=$fast
    ratio() { [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && awk -v n="$1" -v d="$2" 'BEGIN { printf "%.2f", n / d }' || echo "-"; }
    float_ratio=$(ratio "$best" "$run_c")
    int8_ratio=$(ratio "$int8" "$runq_c")
    int8_float=$(ratio "$int8" "$best")
    [[ $float_ratio != - ]] && float_ratios+=("$float_ratio")
    [[ $int8_ratio != - ]] && int8_ratios+=("$int8_ratio")
    [[ $int8_float != - ]] && int8_float_ratios+=("$int8_float")
    [[ ${kv[pass]:-no} == yes ]] || { float_ratio="$float_ratio (FAILED)"; status=1; }
    fast_cell=$(commas "$fast")
    [[ $fast == "$exact" ]] && fast_cell="(scalar board)"
    rows+=("| \`$board\` | -$opt | $(commas "$exact") | $fast_cell | $(commas "$int8") | $(commas "$run_c") | $(commas "$runq_c") | $float_ratio | $int8_ratio | $int8_float | $(ratio "$best" "$macs") | $(ratio "$int8" "$macs") |")
  done
done
table=$(echo "| board | level | ctattn exact | ctattn fast | ctattn int8 | run.c | runq.c | float / run.c | int8 / runq.c | int8 / float | float per MAC | int8 per MAC |"
        echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
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
    echo "ctattn's float (its best arithmetic on the board) takes $(span "${float_ratios[@]}") of run.c's instructions," \
         "its int8 $(span "${int8_ratios[@]}") of runq.c's (groups of 4: runq.c's group must divide 64, 172 and 32)" \
         "and $(span "${int8_float_ratios[@]}") of its own float's."
  } | write_doc_block "$write_to" "firmware_tiny_llama.sh" || exit 1
fi
exit $status

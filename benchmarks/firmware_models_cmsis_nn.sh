#!/usr/bin/env bash
# Whole models on Cortex-M boards, ctattn against the same model composed of Arm's CMSIS-NN kernels: the image
# kwt_tiny_cmsis_nn (benchmarks/firmware/kwt_cmsis_nn.cpp), the KWT-Tiny-size int8 keyword transformer, or with
# --kwt1 the image kwt1_cmsis_nn, KWT-1 (12 layers; boards m4f and m55-helium), run by ctattn and by CMSIS-NN's
# fully-connected, batch matmul, softmax and add kernels (with LayerNorm and GELU in plain C), on the same input and
# weights, under qemu-system-arm -icount shift=0. Prints one markdown table: per board,
# instructions per inference of each side, their ratio and each side's instructions per multiply-accumulate, and RAM
# per inference of each side. The image itself
# fails when ctattn's logits are not the compiler's or the composition's are not within a few steps of them.
# Usage: CTATTN_CMSIS_NN_DIR=<CMSIS-NN source tree> benchmarks/firmware_models_cmsis_nn.sh [--write FILE] [--kwt1]
#        [board...]
#        (default boards: m0 m3 m4f m55-helium; also m7 m33 m55. The m0's 16 KB of RAM holds one side at a time:
#        its image runs the composition, and ctattn's figures come from the kwt_tiny_int8 image, halved for its
#        two inferences.)
#   --write FILE: the table, with the toolchain, CMSIS-NN's commit and the ranges of its ratios, replaces FILE's
#   block `firmware_models_cmsis_nn.sh kwt_tiny` (with --kwt1: `... kwt1`) in docs/firmware.md; nothing is written
#   when a board fails. QEMU's instruction counts and the painted stack are the same for the same code, toolchain
#   and CMSIS-NN commit.
# Build directories: build-bench-<board>-Os in the repository root (MinSizeRel, the firmware tests' build type),
# shared with benchmarks/firmware_int8_kernels.sh; only the image is built (-j2).
# Exits non-zero if a board fails to configure, build or pass the image's checks.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/firmware_common.sh"
take_write_option "$@"
shift "$write_shift"
cmsis_nn_dir="${CTATTN_CMSIS_NN_DIR:-}"
if [[ -z $cmsis_nn_dir ]]; then
  echo "set CTATTN_CMSIS_NN_DIR to a CMSIS-NN source tree (e.g. a clone of github.com/ARM-software/CMSIS-NN)" >&2
  exit 2
fi
image=kwt_tiny_cmsis_nn
block=kwt_tiny
kwt1_flag=""
default_boards=(m0 m3 m4f m55-helium)
if [[ ${1:-} == --kwt1 ]]; then
  shift
  image=kwt1_cmsis_nn
  block=kwt1
  kwt1_flag=" --kwt1"
  default_boards=(m4f m55-helium)
fi
boards=("$@")
[[ ${#boards[@]} -eq 0 ]] && boards=("${default_boards[@]}")
status=0
rows=()
instruction_ratios=()
ram_ratios=()
macs=""
# commas 1234567 -> 1,234,567 (anything else as it is; a note after the number kept)
commas() {
  if [[ ${1%% *} =~ ^[0-9]+$ ]]; then sed -E ':a; s/^([0-9]+)([0-9]{3})/\1,\2/; ta' <<< "$1"; else echo "$1"; fi
}
for board in "${boards[@]}"; do
  build="$root/build-bench-$board-Os"
  echo "=== $board" >&2
  log=$(mktemp)
  if ! cmake -S "$root" -B "$build" -G Ninja --toolchain "$root/cmake/toolchains/arm-none-eabi.cmake" \
         -DCTATTN_BOARD="$board" -DCMAKE_BUILD_TYPE=MinSizeRel -DCTATTN_CMSIS_NN_DIR="$cmsis_nn_dir" >"$log" 2>&1 ||
     ! cmake --build "$build" --target "$image" -j2 >>"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    status=1
    continue
  fi
  if ! ctest --test-dir "$build" -R "^firmware_${image}\$" -V --no-tests=error >"$log" 2>&1; then
    grep -E "FAIL|differ|error" "$log" >&2 || cat "$log" >&2
    status=1
  fi
  # result: model=<name> ctattn=<n> cmsis_nn=<n> ctattn_ram=<n> cmsis_nn_ram=<n> ... pass=yes|no
  line=$(grep -o 'result: .*' "$log" | head -1 || true)
  declare -A kv=()
  for field in ${line#result: }; do kv[${field%%=*}]="${field#*=}"; done
  # A board that runs the composition alone (the micro:bit): ctattn's figures from the kwt_tiny_int8 image of the
  # same build, whose check runs two inferences (its instructions halved; its painted stack, plus the logits).
  if [[ ${kv[ctattn]:-} == - ]]; then
    if cmake --build "$build" --target kwt_tiny_int8 -j2 >"$log" 2>&1 &&
       ctest --test-dir "$build" -R "^firmware_kwt_tiny_int8\$" -V --no-tests=error >"$log" 2>&1; then
      two=$(grep -o 'instructions per inference: [0-9]*' "$log" | grep -o '[0-9]*$' || true)
      stack=$(grep -o 'stack of one inference: [0-9]*' "$log" | grep -o '[0-9]*$' || true)
      [[ $two =~ ^[0-9]+$ ]] && kv[ctattn]=$(( (two + 1) / 2 ))
      [[ $stack =~ ^[0-9]+$ ]] && kv[ctattn_ram]="$((stack + 2)) (kwt_tiny_int8)"
    else
      grep -E "FAIL|MISMATCH|error" "$log" >&2 || cat "$log" >&2
      status=1
    fi
  fi
  rm -f "$log"
  a=${kv[ctattn]:-} b=${kv[cmsis_nn]:-}
  if [[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ && $b -ne 0 ]]; then
    ratio=$(awk -v n="$a" -v d="$b" 'BEGIN { printf "%.2f", n / d }')
  else
    ratio=-
  fi
  [[ ${kv[pass]:-no} == yes ]] || { ratio="$ratio (FAILED)"; status=1; }
  per_mac() {  # per_mac <instructions>: instructions per multiply-accumulate, two decimals
    if [[ $1 =~ ^[0-9]+$ && ${kv[macs]:-0} -ne 0 ]]; then awk -v n="$1" -v d="${kv[macs]}" 'BEGIN { printf "%.2f", n / d }'
    else echo "-"; fi
  }
  rows+=("| \`$board\` | $(commas "${a:-n/a}") | $(commas "${b:-n/a}") | $ratio | $(per_mac "$a") | $(per_mac "$b") | $(commas "${kv[ctattn_ram]:-n/a}") | $(commas "${kv[cmsis_nn_ram]:-n/a}") | ${kv[encoded_differ]:-?}/${kv[encoded]:-?}, at most ${kv[encoded_largest_difference]:-?} |")
  instruction_ratios+=("$ratio")
  ram_ratios+=("$(awk -v n="${kv[ctattn_ram]%% *}" -v d="${kv[cmsis_nn_ram]%% *}" 'BEGIN { if (n + 0 > 0 && d + 0 > 0) printf "%.2f", n / d; else print "-" }')")
  macs="${kv[macs]:-?}"
done
table=$(echo "| board | ctattn instructions | CMSIS-NN composition | ratio | ctattn per MAC | composition per MAC | ctattn RAM (B) | composition RAM (B) | encoder outputs that differ |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
        printf '%s\n' "${rows[@]}")
echo "$table"
if [[ -n $write_to ]]; then
  [[ $status == 0 ]] || { echo "firmware_models_cmsis_nn.sh: a board failed; nothing written to $write_to" >&2; exit 1; }
  read -r gcc clang qemu <<< "$(toolchain)"
  span() { printf '%s\n' "$@" | sort -n | sed -n '1p;$p' | paste -sd' ' | awk '{ print ($1 == $2 ? $1 : $1 " to " $2) }'; }
  {
    echo "Measured by \`CTATTN_CMSIS_NN_DIR=<checkout> benchmarks/firmware_models_cmsis_nn.sh --write $write_to$kwt1_flag" \
         "${boards[*]}\`: CMSIS-NN $(cmsis_nn_commit "$cmsis_nn_dir"), \`-Os\` (MinSizeRel) for both, arm-none-eabi-gcc" \
         "$gcc, Clang $clang (m55-helium), QEMU $qemu; $(commas "$macs") multiply-accumulates per inference."
    echo
    echo "$table"
    echo
    echo "ctattn takes $(span "${instruction_ratios[@]}") of the composition's instructions and $(span "${ram_ratios[@]}")" \
         "of its RAM on these boards."
  } | write_doc_block "$write_to" "firmware_models_cmsis_nn.sh $block" || exit 1
fi
exit $status

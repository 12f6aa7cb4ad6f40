#!/usr/bin/env bash
# What each quantization mode of ctattn::quantize costs and buys (int8 and int4 weights, per channel and per tensor,
# a per-layer override, 16x8's int16 activations): benchmarks/tool_quantize_modes.cpp measures the model bytes and the error or accuracy of the
# verified sorter, the keyword spotter and a model of KWT-1's size on the build machine; with --firmware BOARD, the
# sorter's instructions per inference on that Cortex-M board under QEMU too, from the firmware images
# verified_sorter_int8, verified_sorter_modes (label `heavy`) and verified_sorter_16x8 in build-firmware-BOARD, built
# and run here.
#   benchmarks/quantize_modes.sh [--write docs/quantized.md] [--firmware BOARD] [build dir]
#   (default build dir /tmp/ctattn-bench; BOARD as scripts/run-firmware-tests names it, m4f for docs/quantized.md)
# With --write, the tables go into FILE's block `quantize_modes.sh modes` and nothing else in FILE changes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/speed_common.sh"
source "$here/firmware_common.sh"
take_write_option "$@"
shift "$write_shift"
board=""
if [[ "${1:-}" == --firmware ]]; then
  [[ $# -ge 2 ]] || { echo "quantize_modes.sh: --firmware needs a board (m4f, m55-helium, ...)" >&2; exit 2; }
  board=$2
  shift 2
fi
build="${1:-${CTATTN_BENCH_BUILD_DIR:-/tmp/ctattn-bench}}"

"$root/scripts/install-debian-packages" g++ cmake libboost-dev nlohmann-json3-dev
build_benchmark "$build" tool_quantize_modes

# instructions_of <test>: the "instructions per inference" of each model the test's image checks, in order.
instructions_of() {
  local log
  log=$(ctest --test-dir "$root/build-firmware-$board" -R "^$1\$" -V 2>&1) || {
    echo "$log" >&2
    echo "quantize_modes.sh: $1 failed on $board" >&2
    exit 1
  }
  sed -nE 's/.*instructions per inference: ([0-9]+).*/\1/p' <<<"$log"
}

args=()
if [[ -n $board ]]; then
  [[ -d "$root/build-firmware-$board" ]] || {
    echo "quantize_modes.sh: no build-firmware-$board; run scripts/run-firmware-tests $board first" >&2
    exit 1
  }
  mapfile -t counts < <(instructions_of firmware_verified_sorter_int8; instructions_of firmware_verified_sorter_modes
    instructions_of firmware_verified_sorter_16x8)
  [[ ${#counts[@]} -eq 6 ]] || {
    echo "quantize_modes.sh: expected 6 instruction counts from the images, got ${#counts[@]}" >&2
    exit 1
  }
  args=(--instructions "$board" "${counts[@]}")
fi

tables=$("$build/benchmarks/tool_quantize_modes" "${args[@]}")
echo "$tables"
if [[ -n $write_to ]]; then
  command_text=$(command_text_of quantize_modes.sh ${board:+--firmware "$board"} "$@")
  printf '%s\n\nMeasured by `%s`, toolchain %s.\n' "$tables" "$command_text" "$(toolchain)" |
    write_doc_block "$write_to" "quantize_modes.sh modes"
fi

#!/usr/bin/env bash
# Cost of ctattn's firmware images per Cortex-M board, as a markdown table:
#   - text / data / bss of each image (arm-none-eabi-size, Berkeley format: text includes read-only data and
#     the vector table), and what a model image adds beyond the startup-only image, split into code (.text)
#     and read-only data (the rest of text: weights, inputs, expected outputs, strings), with the weights
#     (the image's ctattn_weights symbol, where it has one) named separately;
#   - worst-case stack from GCC's call graph (-fcallgraph-info=su; library routines from the disassembly; for
#     the Clang board m55-helium every function from the disassembly), for the whole image (from the startup's
#     C entry) and for one inference;
#   - stack measured on the target by painting (main, one inference) and instructions per inference, both
#     printed by the image when CTest runs it under qemu-system-arm -icount shift=0.
# Usage: benchmarks/firmware_size.sh [board...]   (default: m0 m3 m4f m7 m33 m55 m55-helium)
# Reuses build-firmware-<board> (made by scripts/run-firmware-tests), configuring and building it if needed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
boards=("$@")
[[ ${#boards[@]} -eq 0 ]] && boards=(m0 m3 m4f m7 m33 m55 m55-helium)

section_size() {  # section_size <elf> <section>
  arm-none-eabi-size -A "$1" | awk -v s="$2" '$1 == s { print $2; found = 1 } END { if (!found) print 0 }'
}

# stack_figures <build dir> <image>:
#   "<image worst-case stack> <inference worst-case stack> <inference code bytes> <notes>"
stack_figures() {
  local fw="$1/firmware" image="$2" dis syms
  dis=$(mktemp)
  syms=$(mktemp)
  # shellcheck disable=SC2086  # the board's flags, word-split on purpose
  arm-none-eabi-objdump $objdump_flags -d --no-show-raw-insn "$fw/$image.elf" > "$dis"
  arm-none-eabi-nm -S --defined-only "$fw/$image.elf" > "$syms"
  mapfile -t cis < <(find "$fw/CMakeFiles/$image.dir" "$fw/CMakeFiles/ctattn_firmware_runtime.dir" -name '*.ci')
  awk -v dis="$dis" -v syms="$syms" -v roots="ctattn_start evaluate_at_run_time" -f "$here/firmware_stack.awk" \
      "$dis" "$syms" "${cis[@]}" |
    awk '{ bytes[$1] = $2; code[$1] = $4; flags[$1] = $5 }
         END { i = bytes["evaluate_at_run_time"]; c = code["evaluate_at_run_time"]
               if (i == "-" || i == "") { i = "n/a"; c = "n/a" }
               print bytes["ctattn_start"], i, c, flags["evaluate_at_run_time"] }'
  rm -f "$dis" "$syms"
}

run_figures() {  # run_figures <build dir> <image>: "<main stack> <inference stack> <instructions>"
  local log
  log=$(ctest --test-dir "$1" -R "^firmware_$2\$" -V 2>&1) || { echo "FAILED FAILED FAILED"; return; }
  awk '/stack high-water mark of main\(\):/ { for (i = 1; i <= NF; i++) if ($i == "bytes;") main = $(i - 1) }
       /stack of one inference:/ { for (i = 1; i <= NF; i++) if ($i == "bytes") inf = $(i - 1) }
       /instructions per inference:/ { for (i = 1; i <= NF; i++) if ($i == "inference:") n = $(i + 1) }
       END { print (main == "" ? "n/a" : main), (inf == "" ? "n/a" : inf), (n == "" ? "n/a" : n) }' <<< "$log"
}

symbol_size() {  # symbol_size <elf> <symbol>: its size in bytes, or "-"
  local hex
  hex=$(arm-none-eabi-nm -S --defined-only "$1" | awk -v s="$2" '$4 == s { print $2 }')
  if [[ -n $hex ]]; then echo $((16#$hex)); else echo "-"; fi
}

echo "| Core | Image | text | data | bss | code beyond startup | read-only data beyond startup (of which weights) | code of one inference | worst-case stack, call graph: image / one inference | measured stack: main / one inference | instructions per inference |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
status=0
for board in "${boards[@]}"; do
  build="$root/build-firmware-$board"
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    cmake -S "$root" -B "$build" -G Ninja --toolchain "$root/cmake/toolchains/arm-none-eabi.cmake" \
      -DCTATTN_BOARD="$board" -DCMAKE_BUILD_TYPE=MinSizeRel >/dev/null 2>&1
  fi
  if ! build_log=$(cmake --build "$build" -j2 2>&1); then
    echo "$build_log" >&2
    exit 1
  fi
  case $board in
    m0) core="Cortex-M0" ;; m3) core="Cortex-M3" ;; m4f) core="Cortex-M4F" ;; m7) core="Cortex-M7" ;; m33) core="Cortex-M33" ;;
    m55) core="Cortex-M55" ;;
    m55-helium) core="Cortex-M55 Helium (Clang)" ;;
    *) core="$board" ;;
  esac
  read -r -a models < "$build/firmware/model_images.txt"
  objdump_flags=""
  [[ -f $build/firmware/objdump_flags.txt ]] && objdump_flags=$(cat "$build/firmware/objdump_flags.txt")
  base="$build/firmware/startup_only.elf"
  read -r base_text _ < <(arm-none-eabi-size -B "$base" | awk 'NR == 2 { print $1 }')
  base_code=$(section_size "$base" .text)
  for image in startup_only "${models[@]}"; do
    elf="$build/firmware/$image.elf"
    # The heavy images (KWT-1's) are built on demand (ctest -L heavy): measured only once built.
    [[ -f $elf ]] || continue
    read -r text data bss < <(arm-none-eabi-size -B "$elf" | awk 'NR == 2 { print $1, $2, $3 }')
    read -r stack_image stack_inference inference_code _ < <(stack_figures "$build" "$image")
    read -r run_main run_inference instructions < <(run_figures "$build" "$image")
    [[ $run_main == FAILED ]] && status=1
    if [[ $image == startup_only ]]; then
      code="(baseline)"
      rodata="(baseline)"
      stack_inference="-"
      run_inference="-"
      instructions="-"
      inference_code="-"
    else
      code=$(($(section_size "$elf" .text) - base_code))
      rodata="$((text - base_text - code))"
      weights=$(symbol_size "$elf" ctattn_weights)
      [[ $weights != - ]] && rodata="$rodata ($weights)"
    fi
    echo "| $core | $image | $text | $data | $bss | $code | $rodata | $inference_code | $stack_image / $stack_inference | $run_main / $run_inference | $instructions |"
  done
done
exit $status

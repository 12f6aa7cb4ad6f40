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
# Usage: benchmarks/firmware_size.sh [--write FILE | --check FILE] [--build-dir DIR] [--heavy] [board...]
#   (boards by default: m0 m3 m4f m7 m33 m55 m55-helium)
# Reuses build-firmware-<board> (made by scripts/run-firmware-tests), configuring and building it if needed; with
# --build-dir (one board), that built tree.
#   --write FILE  writes the boards' rows into FILE's cost table (docs/firmware.md), between its
#                 `<!-- begin firmware_size.sh cost ... -->` and `<!-- end firmware_size.sh cost -->` lines, with
#                 the toolchain the figures belong to in the begin line, and the tables derived from it
#                 (benchmarks/firmware_tables.awk) in FILE and in the other pages of its directory and the examples'
#                 READMEs that have some
#   --check FILE  the same into a scratch copy, then fails (exit 1, the difference printed) if FILE differs; skips
#                 (exit 77) where the board's compiler or QEMU is not the one FILE's figures were measured with. Run
#                 by the firmware test firmware_cost_tables_current on every board.
#   --heavy       the images built on demand (KWT-1's, label `heavy`) instead, once built (ctest -L heavy); with
#                 --write FILE, their table in FILE (`<!-- begin firmware_size.sh kwt1 -->`), never the others
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
mode=print
doc=""
build_dir=""
heavy=0
boards=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --write | --check)
      [[ $# -ge 2 ]] || { echo "firmware_size.sh: $1 needs a file" >&2; exit 2; }
      mode=${1#--}; doc=$2; shift 2 ;;
    --build-dir)
      [[ $# -ge 2 ]] || { echo "firmware_size.sh: --build-dir needs a directory" >&2; exit 2; }
      build_dir=$2; shift 2 ;;
    --heavy) heavy=1; shift ;;
    -*) echo "firmware_size.sh: unknown option $1" >&2; exit 2 ;;
    *) boards+=("$1"); shift ;;
  esac
done
[[ ${#boards[@]} -eq 0 ]] && boards=(m0 m3 m4f m7 m33 m55 m55-helium)
if [[ -n $build_dir && ${#boards[@]} -ne 1 ]]; then
  echo "firmware_size.sh: --build-dir measures one board; name it" >&2
  exit 2
fi
if [[ $mode == check && $heavy == 1 ]]; then
  echo "firmware_size.sh: --check covers the tables of the images every build makes; not --heavy" >&2
  exit 2
fi
# KWT-1's multiply-adds per inference (firmware/models/kwt1.hpp's multiply_adds, which static_asserts this figure).
kwt1_macs=73700032

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

# The toolchain the figures belong to: "<GCC's version> <Clang's version> <QEMU's version>" (a word "-" where absent).
# toolchain: benchmarks/firmware_common.sh.
source "$here/firmware_common.sh"

header="| Core | Image | text | data | bss | code beyond startup | read-only data beyond startup (of which weights) | code of one inference | worst-case stack, call graph: image / one inference | measured stack: main / one inference | instructions per inference |"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
status=0
for board in "${boards[@]}"; do
  build="${build_dir:-$root/build-firmware-$board}"
  if [[ -z $build_dir ]]; then
    if [[ ! -f "$build/CMakeCache.txt" ]]; then
      cmake -S "$root" -B "$build" -G Ninja --toolchain "$root/cmake/toolchains/arm-none-eabi.cmake" \
        -DCTATTN_BOARD="$board" -DCMAKE_BUILD_TYPE=MinSizeRel >/dev/null 2>&1
    fi
    if ! build_log=$(cmake --build "$build" -j2 2>&1); then
      echo "$build_log" >&2
      exit 1
    fi
  fi
  case $board in
    m0) core="Cortex-M0" ;; m3) core="Cortex-M3" ;; m4f) core="Cortex-M4F" ;; m7) core="Cortex-M7" ;; m33) core="Cortex-M33" ;;
    m55) core="Cortex-M55" ;;
    m55-helium) core="Cortex-M55 Helium (Clang)" ;;
    *) core="$board" ;;
  esac
  read -r -a models < "$build/firmware/model_images.txt"
  heavy_images=" $(cat "$build/firmware/heavy_images.txt" 2>/dev/null) "
  objdump_flags=""
  [[ -f $build/firmware/objdump_flags.txt ]] && objdump_flags=$(cat "$build/firmware/objdump_flags.txt")
  base="$build/firmware/startup_only.elf"
  read -r base_text _ < <(arm-none-eabi-size -B "$base" | awk 'NR == 2 { print $1 }')
  base_code=$(section_size "$base" .text)
  for image in startup_only "${models[@]}"; do
    elf="$build/firmware/$image.elf"
    # The heavy images (KWT-1's) are built on demand (ctest -L heavy): measured with --heavy (and only they), once
    # built; the startup-only image stays, the baseline of the others.
    [[ $heavy == 0 && $heavy_images == *" $image "* ]] && continue
    [[ $heavy == 1 && $image != startup_only && $heavy_images != *" $image "* ]] && continue
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
    echo "| $core | $image | $text | $data | $bss | $code | $rodata | $inference_code | $stack_image / $stack_inference | $run_main / $run_inference | $instructions |" >> "$rows"
  done
done
if [[ $status != 0 ]]; then
  cat "$rows"
  echo "firmware_size.sh: an image failed (FAILED above); nothing written" >&2
  exit 1
fi
if [[ $mode == print ]]; then
  echo "$header"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  cat "$rows"
  exit 0
fi

[[ -f $doc ]] || { echo "firmware_size.sh: $doc: no such file" >&2; exit 2; }
now=$(toolchain)
if [[ $mode == check ]]; then
  # The figures are deterministic for one toolchain (sizes, the call graph, painted stack, QEMU's -icount), and
  # only for it: another compiler or QEMU skips the check, saying which.
  written=$(sed -nE 's/^<!-- begin firmware_size.sh cost; toolchain: (.*) -->$/\1/p' "$doc")
  read -r gcc_now clang_now qemu_now <<< "$now"
  read -r gcc_then clang_then qemu_then <<< "${written:-- - -}"
  compiler_now=$gcc_now compiler_then=$gcc_then compiler=arm-none-eabi-gcc
  if [[ " ${boards[*]} " == *" m55-helium "* ]]; then
    compiler_now=$clang_now compiler_then=$clang_then compiler=clang
  fi
  # QEMU by its minor version: a point release (Debian's security updates) does not change instruction counts.
  if [[ $compiler_now != "$compiler_then" || ${qemu_now%.*} != "${qemu_then%.*}" ]]; then
    echo "firmware_size.sh: skipped: $doc's figures are for $compiler $compiler_then and QEMU $qemu_then; this" \
         "machine has $compiler_now and QEMU $qemu_now"
    exit 77
  fi
  now=$written
fi
new=$(mktemp)
all_rows=$(mktemp)
trap 'rm -f "$rows" "$new" "$all_rows" "$new".*' EXIT
if [[ $heavy == 1 ]]; then
  grep -v '| startup_only |' "$rows" > "$all_rows" || true
  awk -v rows="$all_rows" -v heavy=1 -v kwt1_macs="$kwt1_macs" -f "$here/firmware_tables.awk" "$doc" > "$new"
  cat "$new" > "$doc"
  echo "firmware_size.sh: wrote KWT-1's table of ${boards[*]} into $doc"
  exit 0
fi
awk -v rows="$rows" -v toolchain="$now" -v header="$header" -f "$here/firmware_tables.awk" "$doc" > "$new"
# The other pages with tables derived from the cost table, written from its rows as they now stand.
sed -n '/^<!-- begin firmware_size.sh cost/,/^<!-- end firmware_size.sh cost -->/p' "$new" |
  grep '^| ' | grep -v '^| Core |' > "$all_rows" || true
pages=("$doc")
news=("$new")
for page in "$(dirname "$doc")"/*.md "$root"/examples/*/README.md; do
  [[ $page -ef $doc ]] && continue
  grep -q '^<!-- begin firmware_size.sh ' "$page" || continue
  pages+=("$page")
  news+=("$new.${#news[@]}")
  awk -v rows="$all_rows" -v derived_only=1 -v header="$header" -f "$here/firmware_tables.awk" "$page" > "${news[-1]}"
done
if [[ $mode == write ]]; then
  for i in "${!pages[@]}"; do cat "${news[$i]}" > "${pages[$i]}"; done
  echo "firmware_size.sh: wrote the rows of ${boards[*]} into $doc, and the tables derived from them into" \
       "${pages[*]}"
  exit 0
fi
drift=0
for i in "${!pages[@]}"; do diff -u "${pages[$i]}" "${news[$i]}" || drift=1; done
if [[ $drift == 1 ]]; then
  echo "firmware_size.sh: the tables of ${pages[*]} differ from what the code measures on ${boards[*]} (lines" \
       "above: - the page, + the measurement); run benchmarks/firmware_size.sh --write $doc ${boards[*]} after" \
       "scripts/run-firmware-tests ${boards[*]}, and check the prose around them" >&2
  exit 1
fi
echo "firmware_size.sh: the tables of ${pages[*]} hold the figures measured on ${boards[*]}"

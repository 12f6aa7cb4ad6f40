#!/usr/bin/env bash
# Cost of ctattn's firmware images per board (Cortex-M and RV32), as a markdown table:
#   - text / data / bss of each image (arm-none-eabi-size, riscv64-unknown-elf-size for the RV32 boards; Berkeley
#     format: text includes read-only data and the vector table or reset code), and what a model image adds beyond
#     the startup-only image, split into code (.text)
#     and read-only data (the rest of text: weights, inputs, expected outputs, strings), with the weights
#     (the image's ctattn_weights symbol, where it has one) named separately;
#   - worst-case stack from GCC's call graph (-fcallgraph-info=su; library routines from the disassembly; for
#     the Clang board m55-helium every function from the disassembly), for the whole image (from the startup's
#     C entry) and for one inference;
#   - stack measured on the target by painting (main, one inference) and instructions per inference, both
#     printed by the image when CTest runs it under qemu-system-arm (qemu-system-riscv32) -icount shift=0.
# Usage: benchmarks/firmware_size.sh [--write FILE | --check FILE] [--build-dir DIR] [--heavy] [board...]
#   (boards by default: m0 m3 m4f m7 m33 m55 m55-helium rv32e rv32gc rv32gcv)
# Reuses build-firmware-<board> (made by scripts/run-firmware-tests), configuring and building it if needed; with
# --build-dir (one board), that built tree.
#   --write FILE  writes the boards' rows into FILE's cost table (docs/firmware.md), between its
#                 `<!-- begin firmware_size.sh cost ... -->` and `<!-- end firmware_size.sh cost -->` lines, with
#                 the toolchain the figures belong to in the begin line (the tools of boards not measured as
#                 the begin line had them), and the tables derived from it
#                 (benchmarks/firmware_tables.awk) in FILE and in the other pages of its directory and the examples'
#                 READMEs that have some
#   --check FILE  the same into a scratch copy, then fails (exit 1, the difference printed) if FILE differs; skips
#                 (exit 77) where the board's compiler or QEMU is not the one FILE's figures were measured with
#                 (arm-none-eabi-gcc or, on m55-helium, clang and qemu-system-arm; on the RV32 boards
#                 riscv64-unknown-elf-gcc and qemu-system-riscv32). Run by the firmware test
#                 firmware_cost_tables_current on every board.
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
[[ ${#boards[@]} -eq 0 ]] && boards=(m0 m3 m4f m7 m33 m55 m55-helium rv32e rv32gc rv32gcv)
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

# The binutils of the board being measured ($(board_binutils <board>), set in the loop below): arm-none-eabi or
# riscv64-unknown-elf.
binutils=arm-none-eabi

section_size() {  # section_size <elf> <section>
  "$binutils-size" -A "$1" | awk -v s="$2" '$1 == s { print $2; found = 1 } END { if (!found) print 0 }'
}

# stack_figures <build dir> <image>:
#   "<image worst-case stack> <inference worst-case stack> <inference code bytes> <notes>"
stack_figures() {
  local fw="$1/firmware" image="$2" dis syms
  dis=$(mktemp)
  syms=$(mktemp)
  # shellcheck disable=SC2086  # the board's flags, word-split on purpose
  "$binutils-objdump" $objdump_flags -d --no-show-raw-insn "$fw/$image.elf" > "$dis"
  "$binutils-nm" -S --defined-only "$fw/$image.elf" > "$syms"
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
       /stack of one (inference|generation):/ { for (i = 1; i <= NF; i++) if ($i == "bytes") { inf = $(i - 1); break } }
       /instructions per (inference|generation):/ {
         for (i = 1; i <= NF; i++) if ($i == "inference:" || $i == "generation:") n = $(i + 1) }
       END { print (main == "" ? "n/a" : main), (inf == "" ? "n/a" : inf), (n == "" ? "n/a" : n) }' <<< "$log"
}

symbol_size() {  # symbol_size <elf> <symbol>: its size in bytes, or "-"
  local hex
  hex=$("$binutils-nm" -S --defined-only "$1" | awk -v s="$2" '$4 == s { print $2 }')
  if [[ -n $hex ]]; then echo $((16#$hex)); else echo "-"; fi
}

# toolchain, riscv_toolchain, board_toolchain, board_binutils: benchmarks/firmware_common.sh.
source "$here/firmware_common.sh"

# The toolchain the figures belong to, the cost table's begin line: five words, "-" for a tool absent.
tool_names=(arm-none-eabi-gcc clang qemu-system-arm riscv64-unknown-elf-gcc qemu-system-riscv32)
all_toolchains() {
  echo "$(toolchain) $(riscv_toolchain)"
}
# board_tools <board>: the indexes in tool_names of the compiler and the QEMU its figures depend on (m55-helium's
# and rv32gcv's compiler is Clang; arm-none-eabi-g++ and riscv64-unknown-elf-g++ only link their images).
board_tools() {
  case $1 in
    rv32gcv) echo 1 4 ;;
    rv32*) echo 3 4 ;;
    m55-helium) echo 1 2 ;;
    *) echo 0 2 ;;
  esac
}

# Rationale: before measuring, so that --check on another toolchain skips without running the images.
if [[ $mode != print ]]; then
  [[ -f $doc ]] || { echo "firmware_size.sh: $doc: no such file" >&2; exit 2; }
  read -r -a now_tools <<< "$(all_toolchains)"
  written=$(sed -nE 's/^<!-- begin firmware_size.sh cost; toolchain: (.*) -->$/\1/p' "$doc")
  read -r -a then_tools <<< "$written"
  # Rationale: a begin line of three words (before the RV32 boards) names the Arm tools; the RV32 ones count as absent.
  for i in "${!tool_names[@]}"; do then_tools[i]=${then_tools[i]:--}; done
  # The tools the measured boards depend on.
  used=()
  for board in "${boards[@]}"; do
    for i in $(board_tools "$board"); do used[i]=1; done
  done
  if [[ $mode == check ]]; then
    # The figures are deterministic for one toolchain (sizes, the call graph, painted stack, QEMU's -icount), and
    # only for it: another compiler or QEMU than the board's in the begin line skips the check, saying which.
    differ=()
    for i in "${!used[@]}"; do
      t_now=${now_tools[i]} t_then=${then_tools[i]}
      # QEMU by its minor version: a point release (Debian's security updates) does not change instruction counts.
      if [[ ${tool_names[i]} == qemu-* ]]; then t_now=${t_now%.*} t_then=${t_then%.*}; fi
      [[ $t_now == "$t_then" ]] || differ+=("${tool_names[i]} ${then_tools[i]}, this machine has ${now_tools[i]};")
    done
    if [[ ${#differ[@]} -gt 0 ]]; then
      differ_text="${differ[*]}"
      echo "firmware_size.sh: skipped: $doc's figures of ${boards[*]} are for ${differ_text%;}"
      exit 77
    fi
    now=$written
  else
    # The begin line keeps the page's version of a tool no measured board depends on: the rows it kept were measured
    # with that one.
    words=()
    for i in "${!tool_names[@]}"; do
      if [[ -n ${used[i]:-} || ${then_tools[i]} == - ]]; then
        words+=("${now_tools[i]}")
      else
        words+=("${then_tools[i]}")
      fi
    done
    now="${words[*]}"
  fi
fi

header="| Core | Image | text | data | bss | code beyond startup | read-only data beyond startup (of which weights) | code of one inference | worst-case stack, call graph: image / one inference | measured stack: main / one inference | instructions per inference |"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
status=0
for board in "${boards[@]}"; do
  build="${build_dir:-$root/build-firmware-$board}"
  if [[ -z $build_dir ]]; then
    if [[ ! -f "$build/CMakeCache.txt" ]]; then
      cmake -S "$root" -B "$build" -G Ninja --toolchain "$root/cmake/toolchains/$(board_toolchain "$board")" \
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
    # The ISA (cmake/toolchains/riscv32-unknown-elf.cmake's CTATTN_BOARD_CORE) and the board, which names the QEMU
    # machine: sifive_e, virt.
    rv32e) core="RV32IMAC (rv32e)" ;;
    rv32gc) core="RV32IMAFDC (rv32gc)" ;;
    rv32gcv) core="RV32IMAFDCV (rv32gcv, Clang)" ;;
    *) core="$board" ;;
  esac
  binutils=$(board_binutils "$board")
  read -r -a models < "$build/firmware/model_images.txt"
  heavy_images=" $(cat "$build/firmware/heavy_images.txt" 2>/dev/null) "
  objdump_flags=""
  [[ -f $build/firmware/objdump_flags.txt ]] && objdump_flags=$(cat "$build/firmware/objdump_flags.txt")
  base="$build/firmware/startup_only.elf"
  read -r base_text _ < <("$binutils-size" -B "$base" | awk 'NR == 2 { print $1 }')
  base_code=$(section_size "$base" .text)
  for image in startup_only "${models[@]}"; do
    elf="$build/firmware/$image.elf"
    # The heavy images (KWT-1's) are built on demand (ctest -L heavy): measured with --heavy (and only they), once
    # built; the startup-only image stays, the baseline of the others.
    [[ $heavy == 0 && $heavy_images == *" $image "* ]] && continue
    [[ $heavy == 1 && $image != startup_only && $heavy_images != *" $image "* ]] && continue
    [[ -f $elf ]] || continue
    read -r text data bss < <("$binutils-size" -B "$elf" | awk 'NR == 2 { print $1, $2, $3 }')
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

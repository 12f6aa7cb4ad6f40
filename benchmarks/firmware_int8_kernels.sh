#!/usr/bin/env bash
# Instructions per call of ctattn's int8 and int16 kernels on Cortex-M boards under qemu-system-arm -icount shift=0,
# beside Arm's CMSIS-NN when CTATTN_CMSIS_NN_DIR names a CMSIS-NN source tree: the images int8_kernels_benchmark
# (benchmarks/firmware/int8_kernels.cpp; FC, Q K^T, P V, softmax, ADD) and int16_kernels_benchmark (int16_kernels.cpp;
# the s16 kernels of TFLite's 16x8 mode), which also check every output bit for bit,
# built at -Os (MinSizeRel) and -O2 (Release with -O2) for each board, as one markdown table: per workload its
# MACs, and per board and optimization ctattn's instructions, CMSIS-NN's, the ratio ctattn / CMSIS-NN and ctattn's
# instructions per MAC (per element for the softmax). Then one sequence of the int8 sorter: the image
# verified_sorter_int8 built and run in the same build directory, against the sorter composed of CMSIS-NN's kernels
# at its shapes (ctattn's LayerNorm and GELU on both sides). See docs/firmware.md, "Int8 kernel benchmark".
# Usage: [CTATTN_CMSIS_NN_DIR=<CMSIS-NN source tree>] benchmarks/firmware_int8_kernels.sh [--write FILE [--block B]]
#        [board...]   (default boards: m0 m3 m4f m55-helium; also m7 m33 m55, and the RV32 boards rv32e rv32gc, where
#        CMSIS-NN's portable C kernels run: `--write docs/firmware.md --block rv32 rv32e rv32gc rv32gcv`)
#   --write FILE: the tables, with the toolchain and CMSIS-NN's commit, replace FILE's blocks
#   `firmware_int8_kernels.sh kernels` and `firmware_int8_kernels.sh sorter` (docs/firmware.md; with --block B,
#   `firmware_int8_kernels.sh B kernels` and `firmware_int8_kernels.sh B sorter`; nothing is written
#   when a board fails). The figures are QEMU's instruction counts: the same for the same code, toolchain and
#   CMSIS-NN commit.
# Build directories: build-bench-<board>-<Os|O2> in the repository root; only the benchmark images are built (-j1).
# Exits non-zero if a board fails to configure, build or pass its checks.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/firmware_common.sh"
take_write_option "$@"
shift "$write_shift"
boards=("$@")
[[ ${#boards[@]} -eq 0 ]] && boards=(m0 m3 m4f m55-helium)
opts=(Os O2)
cmsis_nn_dir="${CTATTN_CMSIS_NN_DIR:-}"
images=(int8_kernels_benchmark int16_kernels_benchmark)

declare -A ctattn cmsis_nn work unit softmax_note sorter
workloads=()
status=0
for board in "${boards[@]}"; do
  for opt in "${opts[@]}"; do
    build="$root/build-bench-$board-$opt"
    # Rationale: -O2 through Release with its flags replaced (CMake's Release is -O3), for C (CMSIS-NN) as for C++.
    case $opt in
      Os) type_args=(-DCMAKE_BUILD_TYPE=MinSizeRel) ;;
      O2) type_args=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"
                     "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG") ;;
    esac
    echo "=== $board -$opt" >&2
    log=$(mktemp)
    if ! cmake -S "$root" -B "$build" -G Ninja --toolchain "$root/cmake/toolchains/$(board_toolchain "$board")" \
           -DCTATTN_BOARD="$board" "${type_args[@]}" -DCTATTN_CMSIS_NN_DIR="$cmsis_nn_dir" >"$log" 2>&1 ||
       ! cmake --build "$build" --target "${images[@]}" -j1 >>"$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      status=1
      continue
    fi
    # The int8 sorter itself (firmware/images/verified_sorter_int8.cpp), built with the same flags: instructions per
    # inference of its four sequences.
    if cmake --build "$build" --target verified_sorter_int8 -j1 >"$log" 2>&1 &&
       ctest --test-dir "$build" -R "^firmware_verified_sorter_int8\$" -V --no-tests=error >"$log" 2>&1; then
      sorter[$board|$opt]=$(grep -o 'instructions per inference: [0-9]*' "$log" | grep -o '[0-9]*$' || true)
    else
      grep -E "MISMATCH|FAIL|error" "$log" >&2 || cat "$log" >&2
      status=1
    fi
    images_pattern=$(IFS='|'; echo "${images[*]}")
    if ! ctest --test-dir "$build" -R "^firmware_($images_pattern)\$" -V --no-tests=error >"$log" 2>&1; then
      grep -E "MISMATCH|FAIL|more than one step|error" "$log" >&2 || cat "$log" >&2
      status=1
    fi
    # result: workload=<name> macs=<n>|elements=<n> ctattn=<n> cmsis_nn=<n or -> pass=yes|no
    # result: workload=<name> softmax_differ=<n> softmax_largest=<n>
    while read -r -a fields; do
      declare -A kv=()
      for field in "${fields[@]:1}"; do kv[${field%%=*}]="${field#*=}"; done
      name="${kv[workload]}"
      key="$name|$board|$opt"
      if [[ -n ${kv[softmax_differ]:-} ]]; then
        if [[ ${kv[softmax_differ]} != 0 ]]; then
          softmax_note[$key]="${kv[softmax_differ]}/256 weights differ, by at most ${kv[softmax_largest]}"
        fi
        continue
      fi
      [[ " ${workloads[*]} " == *" $name "* ]] || workloads+=("$name")
      if [[ -n ${kv[macs]:-} ]]; then work[$name]="${kv[macs]}"; unit[$name]=MAC; else work[$name]="${kv[elements]}"; unit[$name]=element; fi
      ctattn[$key]="${kv[ctattn]}"
      cmsis_nn[$key]="${kv[cmsis_nn]}"
      [[ ${kv[pass]} == yes ]] || { ctattn[$key]="${kv[ctattn]} (FAILED)"; status=1; }
    done < <(grep -o 'result: .*' "$log")
    rm -f "$log"
  done
done

ratio() {  # ratio <n> <d>: n / d with two decimals, or "-"
  if [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ && $2 -ne 0 ]]; then awk -v n="$1" -v d="$2" 'BEGIN { printf "%.2f", n / d }'
  else echo "-"; fi
}

kernels_table() {
  local header="| workload | MACs |" rule="|---|---:|" board opt name key a b per row
  for board in "${boards[@]}"; do
    for opt in "${opts[@]}"; do
      header+=" $board -$opt ctattn | CMSIS-NN | ratio | ctattn per MAC |"
      rule+="---:|---:|---:|---:|"
    done
  done
  echo "$header"
  echo "$rule"
  for name in "${workloads[@]}"; do
    if [[ ${unit[$name]} == MAC ]]; then row="| $name | ${work[$name]} |"; else row="| $name | (${work[$name]} elements) |"; fi
    for board in "${boards[@]}"; do
      for opt in "${opts[@]}"; do
        key="$name|$board|$opt"
        a="${ctattn[$key]:-n/a}"
        b="${cmsis_nn[$key]:--}"
        per="$(ratio "$a" "${work[$name]}")"
        [[ ${unit[$name]} == element && $per != - ]] && per="$per per element"
        row+=" $a | $b | $(ratio "$a" "$b") | $per |"
      done
    done
    echo "$row"
  done
  # The floor of each core: the fewest instructions a multiply-accumulate can take, one multiply instruction doing as
  # many as the core allows (loads, widening and requantization come on top).
  echo
  echo "Floors, instructions per MAC: m0, m3: 1 (muls/mla, one product); m4f, m7, m33, m55: 0.5 (smlad, two"
  echo "products); m55-helium: 0.0625 (vmladava.s8, sixteen products); rv32e, rv32gc: 2 (mul, then add: RV32IM has"
  echo "no multiply-accumulate); rv32gcv: 0.125 (vwmacc.vx on 8 int32 lanes, LMUL 2 at VLEN 128)."
}

# range_of <board> <opt> <workload prefix...>: the least and the largest ratio ctattn / CMSIS-NN among the workloads
# whose names start with a prefix ("0.28 to 0.33", one figure when they are equal, - when none was measured).
range_of() {
  local board="$1" opt="$2" name prefix a b
  shift 2
  for name in "${workloads[@]}"; do
    for prefix in "$@"; do
      [[ $name == "$prefix"* ]] || continue
      a="${ctattn[$name|$board|$opt]:-}" b="${cmsis_nn[$name|$board|$opt]:-}"
      if [[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ && $b -ne 0 ]]; then echo "$a $b"; fi
    done
  done | awk 'NF == 2 { r = $1 / $2; if (n == 0 || r < lo) lo = r; if (n == 0 || r > hi) hi = r; ++n }
              END { if (n == 0) print "-"; else if (sprintf("%.2f", lo) == sprintf("%.2f", hi)) printf "%.2f\n", lo
                    else printf "%.2f to %.2f\n", lo, hi }'
}

# Per board and optimization, the ratios of each kind of workload, from the table above.
summary_table() {
  local header="| ctattn / CMSIS-NN instructions |" rule="|---|" board opt kind
  for board in "${boards[@]}"; do
    for opt in "${opts[@]}"; do header+=" $board -$opt |" rule+="---:|"; done
  done
  echo "$header"
  echo "$rule"
  for kind in "fully connected (fc_):fc_" "fully connected, int4 weights (fc4_):fc4_" "Q K^T and P V (qk_, pv_):qk_ pv_" \
              "softmax:softmax_" "ADD:add_" "16x8 fully connected (fc16_):fc16_" "int16 batch matmul (bmm16_):bmm16_" \
              "int16 softmax (softmax16_):softmax16_" "int16 ADD and MUL (add16_, mul16_):add16_ mul16_"; do
    local row="| ${kind%%:*} |"
    for board in "${boards[@]}"; do
      for opt in "${opts[@]}"; do
        # shellcheck disable=SC2086  # the prefixes, word-split on purpose
        row+=" $(range_of "$board" "$opt" ${kind#*:}) |"
      done
    done
    echo "$row"
  done
}

# The int8 sorter (examples/verified_model/int8_sorter.hpp), one sequence, against the same model composed of
# CMSIS-NN's kernels at its shapes: per sequence, 8 FC 6x32x32 (Q, K, V, W_O in two layers), 2 FC 6x32x64, 2 FC
# 6x64x32, the head's FC 6x32x10, 8 heads' Q K^T 6x8x6, softmax 6x6 and P V 6x6x8, 5 ADDs of 6x32 (positions and
# two residuals a layer), and, where CMSIS-NN has no kernel, ctattn's 5 LayerNorms 6x32 and 2 GELU tables 6x64.
sorter_ops=(fc_6x32x32:8 fc_6x32x64:2 fc_6x64x32:2 fc_6x32x10:1 qk_6x8x6:8 softmax_6x6_s0.2:8 pv_6x6x8:8 add_6x32:5
            layer_norm_6x32:5 gelu_6x64:2)
sorter_table() {
  local header="| one sequence of the int8 sorter |" rule="|---|" board opt op name count a b whole one parts composed complete
  local measured_row parts_row cmsis_row ratio_row
  measured_row="| ctattn's int8 sorter (a quarter of verified_sorter_int8's four) |"
  parts_row="| ctattn's kernels at its shapes, one call each, summed |"
  cmsis_row="| CMSIS-NN's kernels at its shapes (+ ctattn's LayerNorm and GELU) |"
  ratio_row="| ctattn's sorter / CMSIS-NN's |"
  for board in "${boards[@]}"; do
    for opt in "${opts[@]}"; do
      header+=" $board -$opt |"
      rule+="---:|"
      parts=0 composed=0 complete=yes
      for op in "${sorter_ops[@]}"; do
        name=${op%%:*} count=${op##*:}
        a="${ctattn[$name|$board|$opt]:-}" b="${cmsis_nn[$name|$board|$opt]:--}"
        [[ $a =~ ^[0-9]+$ ]] || { complete=no; break; }
        [[ $b =~ ^[0-9]+$ ]] || b=$a   # no CMSIS-NN kernel: ctattn's on both sides
        parts=$((parts + count * a)) composed=$((composed + count * b))
      done
      whole="${sorter[$board|$opt]:-}"
      if [[ $complete == yes && $whole =~ ^[0-9]+$ ]]; then
        one=$(( (whole + 2) / 4 ))
        measured_row+=" $one |" parts_row+=" $parts |" cmsis_row+=" $composed |"
        ratio_row+=" $(ratio "$one" "$composed") |"
      else
        measured_row+=" n/a |" parts_row+=" n/a |" cmsis_row+=" n/a |" ratio_row+=" - |"
      fi
    done
  done
  echo "$header"
  echo "$rule"
  echo "$measured_row"
  echo "$parts_row"
  echo "$cmsis_row"
  echo "$ratio_row"
}

kernels_text=$(kernels_table)
summary_text=$(summary_table)
sorter_text=$(sorter_table)
echo "$kernels_text"
echo
echo "$summary_text"
echo
echo "$sorter_text"
for key in "${!softmax_note[@]}"; do
  IFS='|' read -r name board opt <<< "$key"
  echo "Softmax $name on $board -$opt: CMSIS-NN and ctattn differ: ${softmax_note[$key]} step(s) of 1/256."
done
if [[ -n $write_to ]]; then
  if [[ $status != 0 || -z $cmsis_nn_dir ]]; then
    echo "firmware_int8_kernels.sh: ${cmsis_nn_dir:+a board failed; }${cmsis_nn_dir:-no CTATTN_CMSIS_NN_DIR}; nothing" \
         "written to $write_to" >&2
    exit 1
  fi
  read -r gcc clang qemu <<< "$(toolchain)"
  read -r riscv_gcc riscv_qemu <<< "$(riscv_toolchain)"
  prefix=""
  [[ -n $write_block ]] && prefix="$write_block "
  measured="Measured by \`CTATTN_CMSIS_NN_DIR=<checkout> benchmarks/firmware_int8_kernels.sh --write $write_to"
  [[ -n $write_block ]] && measured+=" --block $write_block"
  measured+=" ${boards[*]}\`: CMSIS-NN $(cmsis_nn_commit "$cmsis_nn_dir")"
  if [[ " ${boards[*]}" == *" m"* ]]; then
    measured+=", arm-none-eabi-gcc $gcc, Clang $clang (m55-helium), qemu-system-arm $qemu"
  fi
  if [[ " ${boards[*]}" == *" rv32"* ]]; then
    measured+=", riscv64-unknown-elf-gcc $riscv_gcc, qemu-system-riscv32 $riscv_qemu"
  fi
  measured+="; ratio = ctattn / CMSIS-NN instructions (below 1: ctattn needs fewer)."
  printf '%s\n\n%s\n\n%s\n' "$measured" "$kernels_text" "$summary_text" |
    write_doc_block "$write_to" "firmware_int8_kernels.sh ${prefix}kernels" || exit 1
  printf '%s\n\n%s\n' "$sorter_text" "Measured with the table above (the same command)." |
    write_doc_block "$write_to" "firmware_int8_kernels.sh ${prefix}sorter" || exit 1
fi
exit $status

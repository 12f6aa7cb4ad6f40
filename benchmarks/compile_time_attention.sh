#!/usr/bin/env bash
# Compile time and compiler peak memory of translation units that evaluate attention inside static_assert, for
# GCC and Clang. Prints markdown tables.
#   benchmarks/compile_time_attention.sh examples      the worked example, its 3 wide heads, the 7 x 512 x 8 MHA
#   benchmarks/compile_time_attention.sh sweep N...    single-head self-attention, n = N..., d = 64
#   benchmarks/compile_time_attention.sh limits        the largest n (step 8) each compiler evaluates at d = 64,
#                                                      and the largest N x N product, with its default limits
# Each measurement is one compiler run (-fsyntax-only: evaluation is the whole cost); run on an idle machine.
# The machine's speed is printed before and after (the calibration: GCC's time for
# benchmarks/compile_time_calibration.cpp, which uses nothing of ctattn), so that runs on a busy or slower machine
# can be compared.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
include=(-I"$root/include" -I"$root/tests")
# Raised limits for the sizes past the defaults (GCC: 2^25 operations, Clang: 1,048,576 steps).
gcc_raised="-fconstexpr-ops-limit=4000000000"
clang_raised="-fconstexpr-steps=2000000000"

source "$here/compile_time_common.sh"

run_pair() {  # label, source, extra defines..., then both compilers with default and raised limits
  local label=$1 source=$2
  shift 2
  local gcc_default clang_default
  gcc_default=$(measure g++ -std=c++20 -fsyntax-only "${include[@]}" "$@" "$source")
  clang_default=$(measure clang++ -std=c++20 -fsyntax-only "${include[@]}" "$@" "$source")
  # A size past the default limits is measured again with the raised ones, marked "(raised)" after its seconds.
  if [[ $gcc_default == fails* ]]; then
    gcc_default=$(measure g++ -std=c++20 -fsyntax-only $gcc_raised "${include[@]}" "$@" "$source")
    gcc_default="${gcc_default/ |/ (raised) |}"
  fi
  if [[ $clang_default == fails* ]]; then
    clang_default=$(measure clang++ -std=c++20 -fsyntax-only $clang_raised "${include[@]}" "$@" "$source")
    clang_default="${clang_default/ |/ (raised) |}"
  fi
  echo "| $label | $gcc_default | $clang_default |"
}

calibrate before
trap 'calibrate after' EXIT

case "${1:-examples}" in
  examples)
    echo "| translation unit | GCC 12 s | GCC peak MB | GCC G instr | Clang 14 s | Clang peak MB | Clang G instr |"
    echo "|---|---|---|---|---|---|---|"
    run_pair "worked example (6 x 16, d_k 24, d_v 28)" "$here/compile_time_worked_example.cpp"
    run_pair "worked example, 3 wide heads" "$here/compile_time_three_heads.cpp"
    run_pair "7 x 512 x 8 MHA with W_O (7.3 M multiply-adds)" "$root/tests/static_large/mha_7x512x8_test.cpp"
    ;;
  sweep)
    shift
    echo "| n (d = 64) | GCC 12 s | GCC peak MB | GCC G instr | Clang 14 s | Clang peak MB | Clang G instr |"
    echo "|---|---|---|---|---|---|---|"
    for n in "$@"; do run_pair "$n" "$here/compile_time_attention_nd.cpp" -DCTATTN_N="$n" -DCTATTN_D=64; done
    ;;
  limits)
    for compiler in g++ clang++; do
      n=8
      while "$compiler" -std=c++20 -fsyntax-only "${include[@]}" -DCTATTN_N=$((n + 8)) -DCTATTN_D=64 \
              "$here/compile_time_attention_nd.cpp" >/dev/null 2>&1; do
        n=$((n + 8))
      done
      echo "$compiler: largest single-head attention with default limits (d = 64, n in steps of 8): n = $n"
      n=8
      while "$compiler" -std=c++20 -fsyntax-only "${include[@]}" -DCTATTN_N=$((n + 8)) \
              "$here/compile_time_product.cpp" >/dev/null 2>&1; do
        n=$((n + 8))
      done
      echo "$compiler: largest N x N by N x N product with default limits (N in steps of 8): N = $n"
    done
    ;;
  *) echo "usage: $0 examples | sweep N... | limits" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Instructions the constant evaluators of GCC and Clang execute per multiply-add, for each form of
# benchmarks/compile_time_forms.cpp (perf stat; instructions do not change with the machine's load). Prints a
# markdown table. Needs a machine whose perf counts instructions (`perf stat -e instructions true`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
multiply_adds=262144
labels=("" "loop, one multiply-add per iteration, pointers" "loop, eight multiply-adds per statement, pointers"
        "one fold per dot product, rows of constexpr variables" "one fold per dot product, local copies"
        "one fold per row update y += s x, local copies")
count() {  # compiler form -> instructions
  local flags=-fconstexpr-steps=2000000000
  [[ $1 == g++ ]] && flags=-fconstexpr-ops-limit=4000000000
  perf stat -x, -e instructions "$1" -std=c++20 -fsyntax-only $flags -I"$root/include" -DCTATTN_FORM="$2" \
    "$here/compile_time_forms.cpp" 2>&1 >/dev/null | awk -F, '/instructions/ { print $1 }'
}
gcc_base=$(count g++ 0)
clang_base=$(count clang++ 0)
echo "| form | GCC 12 instructions per multiply-add | Clang 14 instructions per multiply-add |"
echo "|---|---|---|"
for form in 1 2 3 4 5; do
  gcc=$(( ($(count g++ "$form") - gcc_base) / multiply_adds ))
  clang=$(( ($(count clang++ "$form") - clang_base) / multiply_adds ))
  echo "| ${labels[$form]} | $gcc | $clang |"
done

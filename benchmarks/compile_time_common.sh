# Shared by the compile-time benchmark scripts (sourced, not run): the machine's calibration and one measured
# compiler run. Expects $here (this folder).

# Instructions executed by the compiler (perf stat), where the machine counts them: unlike seconds, they do not
# change with the machine's load, so they compare two versions of the code exactly.
# (A machine without the counter, a virtual one, says "<not supported>" and exits 0: that counts as none.)
if perf stat -x, -e instructions true 2>&1 | grep -q '^[0-9]'; then count_instructions=1; else count_instructions=0; fi

calibrate() {  # before|after -> prints GCC's time for compile_time_calibration.cpp, which uses nothing of ctattn
  local log
  log=$(mktemp)
  /usr/bin/time -f "%e" -o "$log" g++ -std=c++20 -fsyntax-only "$here/compile_time_calibration.cpp"
  echo "calibration ($1): $(cat "$log") s (benchmarks/compile_time_calibration.cpp with GCC)"
  rm -f "$log"
}

measure() {  # compiler flags... -> "seconds | peak MB | G instructions", or "fails | - | -"
  local log counts seconds kilobytes instructions="-"
  log=$(mktemp)
  counts=$(mktemp)
  local run=(/usr/bin/time -f "%e %M" -o "$log" "$@")
  if [[ $count_instructions == 1 ]]; then run=(perf stat -x, -e instructions -o "$counts" "${run[@]}"); fi
  if "${run[@]}" >/dev/null 2>&1; then
    read -r seconds kilobytes < "$log"
    if [[ $count_instructions == 1 ]]; then
      instructions=$(awk -F, '/instructions/ { printf "%.1f", $1 / 1e9 }' "$counts")
    fi
    echo "$seconds | $((kilobytes / 1024)) | $instructions"
  else
    echo "fails | - | -"
  fi
  rm -f "$log" "$counts"
}

# What the speed scripts share (attention_speed.sh, peer_speed.sh, model_speed.sh, kwt_speed.sh), sourced after they set $root:
#   build_benchmark <build dir> <target>   configures the benchmarks (Release, no tests or examples) and builds the
#                                          target; quiet, but shows why a target is missing (benchmarks/CMakeLists.txt's
#                                          "... not found: ... skipped" line) or the whole log when configuring fails
#   pin                                    the command prefix that runs on CPU 0 (taskset), empty without taskset
#   print_cpu                              the CPU's model name, family and model, for the record of a run
#   take_write_option "$@"                 reads a leading `--write FILE [--block NAME]` (benchmarks/write_option.sh)
#   command_text_of <script> "$@"          the command as the docs show it: the script, --write and --block when
#                                          given, the other arguments quoted for a shell
#   record_run <command...>                runs the command, its output shown and kept for write_table
#   bench_out                              the flags that keep a Google Benchmark program's JSON for write_table
#   write_table <table> <command text>     with --write, benchmarks/speed_tables.py writes <table>'s block of FILE
#                                          from what record_run kept

build_benchmark() {
  local build="$1" target="$2" configure_log
  if ! configure_log=$(cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCTATTN_BUILD_BENCHMARKS=ON \
                         -DCTATTN_BUILD_TESTS=OFF -DCTATTN_BUILD_EXAMPLES=OFF 2>&1); then
    echo "$configure_log"
    exit 1
  fi
  grep -E "not found: .* skipped" <<<"$configure_log" || true
  cmake --build "$build" --target "$target" -j2
}

pin=()
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then pin=(taskset -c 0); fi

cpu_field() { grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'; }
print_cpu() { echo "CPU: $(cpu_field 'model name') (family $(cpu_field 'cpu family'), model $(cpu_field model))"; }

# take_write_option: benchmarks/write_option.sh.
source "$root/benchmarks/write_option.sh"

command_text_of() {
  local script="$1" args=""
  shift
  [[ $# -gt 0 ]] && args=" $(printf '%q ' "$@")"
  echo "benchmarks/$script${write_to:+ --write $write_to}${write_block:+ --block $write_block}${args% }"
}

run_log=$(mktemp)
bench_json=$(mktemp)
trap 'rm -f "$run_log" "$bench_json"' EXIT
bench_out=(--benchmark_out="$bench_json" --benchmark_out_format=json)
record_run() {
  "$@" 2>&1 | tee -a "$run_log"
}

write_table() {
  [[ -z "$write_to" ]] && return 0
  /usr/bin/python3 "$root/benchmarks/speed_tables.py" "$1" --bench "$bench_json" --log "$run_log" --command "$2" \
    --write "$write_to" ${write_block:+--variant "$write_block"}
}

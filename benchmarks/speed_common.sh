# What the speed scripts share (attention_speed.sh, peer_speed.sh, model_speed.sh), sourced after they set $root:
#   build_benchmark <build dir> <target>   configures the benchmarks (Release, no tests or examples) and builds the
#                                          target; quiet, but shows why a target is missing (benchmarks/CMakeLists.txt's
#                                          "... not found: ... skipped" line) or the whole log when configuring fails
#   pin                                    the command prefix that runs on CPU 0 (taskset), empty without taskset
#   print_cpu                              the CPU's model name, family and model, for the record of a run

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

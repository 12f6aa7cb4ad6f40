#!/usr/bin/env bash
# Run-time speed of a KWT-1-shaped keyword transformer on one core (benchmarks/bench_kwt_speed.cpp: float with fast
# and exact arithmetic, int8), then the same model in PyTorch, one thread (benchmarks/kwt_speed_torch.py, Debian's
# python3-torch). The ratios docs/speed.md reports are of one run of this script, which writes them with --write.
#   benchmarks/kwt_speed.sh [--write docs/speed.md] [build dir] [Google Benchmark flags...]
#   (default build dir /tmp/ctattn-bench)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/speed_common.sh"
take_write_option "$@"
shift "$write_shift"
command_text=$(command_text_of kwt_speed.sh "$@")
build="${1:-${CTATTN_BENCH_BUILD_DIR:-/tmp/ctattn-bench}}"
[[ $# -gt 0 ]] && shift

"$root/scripts/install-debian-packages" g++ cmake libbenchmark-dev libboost-dev python3-torch
build_benchmark "$build" bench_kwt_speed
record_run print_cpu
record_run "${pin[@]}" "$build/benchmarks/bench_kwt_speed" --benchmark_repetitions=11 \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.5 "${bench_out[@]}" "$@"
record_run "${pin[@]}" /usr/bin/python3 "$here/kwt_speed_torch.py"
write_table kwt "$command_text"

#!/usr/bin/env bash
# Run-time speed of the verified models (examples/verified_model/) on one core, float32: ctattn with fast and
# exact arithmetic (benchmarks/bench_model_speed.cpp: one inference of the encoder-only sorter; one decoding
# step of the decoder-only sorter with its key/value caches, against recomputing the prefix; greedy decoding of
# six digits), the sorter's inference in hand-written Eigen (benchmarks/eigen_sorter.hpp, Debian's libeigen3-dev;
# its logits checked against ctattn's exact arithmetic first), then the same models in PyTorch
# (benchmarks/model_speed_torch.py, Debian's python3-torch).
# With --write, the table of docs/speed.md is written from the run (benchmarks/speed_tables.py).
#   benchmarks/model_speed.sh [--write docs/speed.md] [build dir] [Google Benchmark flags...]
#   (default build dir /tmp/ctattn-bench)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/speed_common.sh"
take_write_option "$@"
shift "$write_shift"
command_text=$(command_text_of model_speed.sh "$@")
build="${1:-${CTATTN_BENCH_BUILD_DIR:-/tmp/ctattn-bench}}"
[[ $# -gt 0 ]] && shift

"$root/scripts/install-debian-packages" g++ cmake libbenchmark-dev libboost-dev libeigen3-dev nlohmann-json3-dev \
  python3-torch
build_benchmark "$build" bench_model_speed
record_run print_cpu
record_run "${pin[@]}" "$build/benchmarks/bench_model_speed" --benchmark_repetitions=11 \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 "${bench_out[@]}" "$@"
record_run "${pin[@]}" /usr/bin/python3 "$here/model_speed_torch.py"
write_table models "$command_text"

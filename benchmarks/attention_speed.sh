#!/usr/bin/env bash
# Run-time speed of attention on one core, float32 (benchmarks/bench_attention_speed.cpp): ctattn's public API
# against a naive triple loop and Eigen 3.4 fixed-size matrices, for single-head attention at (n, d) = (6, 16),
# (16, 64), (64, 64), (128, 128), (256, 64) and multi-head self-attention with biases at (16 tokens, d_model 64,
# 4 heads) and (7 tokens, d_model 512, 8 heads); in the same run the core's FP32 FMA peak and its read bandwidth.
#
# How to read the table it prints last (medians of 11 repetitions, real time per call):
#   - ctattn / naive / Eigen: time of one call; the three compute the same outputs (checked before timing).
#   - ctattn vs Eigen: Eigen's time over ctattn's; above 1x ctattn is faster.
#   - ctattn GFLOP/s and % of FMA peak: nominal flops of the matrix products (attention 4 n^2 d; multi-head
#     8 n d_model^2 + 4 n^2 d_model) per second, against the measured FMA peak of the same core.
#   - the 7 x 512 multi-head case reads 4 MiB of weights per call: its memory-bound floor is that read at the
#     measured bandwidth, and the last line says what fraction of the floor ctattn reaches (100% = memory bound).
#
# Usage: benchmarks/attention_speed.sh [--write docs/speed.md] [build dir] [Google Benchmark flags...]
#   build dir: default $CTATTN_BENCH_BUILD_DIR, else /tmp/ctattn-bench
#   --write: the program's report becomes the attention_speed.sh block of the document (benchmarks/speed_tables.py)
#   e.g. benchmarks/attention_speed.sh /tmp/ctattn-bench --benchmark_repetitions=5 --benchmark_filter='mha|fma|read'
# Built with -O3 -march=native (cmake -DCTATTN_BENCH_ARCH_FLAGS=... to change) and ctattn's -ffp-contract=off;
# pinned to CPU 0 with taskset when it is there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/speed_common.sh"
take_write_option "$@"
shift "$write_shift"
command_text=$(command_text_of attention_speed.sh "$@")
build="${1:-${CTATTN_BENCH_BUILD_DIR:-/tmp/ctattn-bench}}"
[[ $# -gt 0 ]] && shift

"$root/scripts/install-debian-packages" g++ cmake libbenchmark-dev libeigen3-dev
build_benchmark "$build" bench_attention_speed
record_run print_cpu
record_run "${pin[@]}" "$build/benchmarks/bench_attention_speed" "${bench_out[@]}" "$@"
write_table attention "$command_text"

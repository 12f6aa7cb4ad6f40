#!/usr/bin/env bash
# Run-time speed of ctattn against its peers on one core (benchmarks/bench_peer_speed.cpp): fp32 and int8 fully
# connected layers (y = x W^T + b at rows x in x out = 16x64x64, 64x64x64, 16x64x256, 7x512x512, 3x512x512,
# 5x512x512, 1x512x512) and single-head attention at (n, d) = (6, 16), (16, 64), (64, 64), (128, 128), (256, 64),
# each against oneDNN 2.6, XNNPACK (2022-02) and Eigen 3.4 where they have the operation; in the same run the
# core's FP32 FMA peak.
#
# How to read the tables it prints last (medians of 11 repetitions, real time per call, one thread):
#   - ctattn / best peer: ctattn's time over the fastest peer's; below 1 ctattn is faster.
#   - % of FMA peak: nominal flops (2 rows in out; attention 4 n^2 d) per second over the measured FMA peak; for
#     int8 the same figure is int8 multiply-adds per second over the fp32 peak's.
#   - int8 / fp32: ctattn's int8 layer's time over its fastest fp32 layout's, same shape.
# Every peer's output is checked against ctattn's before timing (int8 within one step); the run stops if one differs.
#
# Usage: benchmarks/peer_speed.sh [--write docs/speed.md] [build dir] [Google Benchmark flags...]
#   build dir: default $CTATTN_BENCH_BUILD_DIR, else /tmp/ctattn-peer-bench
#   --write: the program's report becomes the peer_speed.sh block of the document (benchmarks/speed_tables.py)
#   e.g. benchmarks/peer_speed.sh /tmp/ctattn-peer-bench --benchmark_repetitions=3 --benchmark_filter='fc_int8|fma'
# Built with -O3 -march=native (cmake -DCTATTN_BENCH_ARCH_FLAGS=... to change) and ctattn's -ffp-contract=off;
# pinned to CPU 0 with taskset when it is there. oneDNN's OpenMP runtime is limited to one thread by the program
# itself; OMP_NUM_THREADS=1 is set here too, so that the runtime starts no pool it would not use.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/speed_common.sh"
take_write_option "$@"
shift "$write_shift"
command_text="${ONEDNN_MAX_CPU_ISA:+ONEDNN_MAX_CPU_ISA=$ONEDNN_MAX_CPU_ISA }$(command_text_of peer_speed.sh "$@")"
build="${1:-${CTATTN_BENCH_BUILD_DIR:-/tmp/ctattn-peer-bench}}"
[[ $# -gt 0 ]] && shift

# libpthreadpool-dev: xnnpack.h includes pthreadpool.h, and Debian's libxnnpack-dev does not pull it in.
"$root/scripts/install-debian-packages" g++ cmake libbenchmark-dev libeigen3-dev libdnnl-dev libxnnpack-dev \
  libpthreadpool-dev
build_benchmark "$build" bench_peer_speed
record_run print_cpu
record_run env OMP_NUM_THREADS=1 "${pin[@]}" "$build/benchmarks/bench_peer_speed" "${bench_out[@]}" "$@"
write_table peer "$command_text"

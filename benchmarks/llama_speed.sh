#!/usr/bin/env bash
# Run-time speed of a tiny language model of stories260K's shape on one core, tokens (decoding steps) per second:
# ctattn with fast and exact arithmetic and, with CTATTN_LLAMA2C_DIR set to a llama2.c checkout, llama2.c's run.c
# built with -O3 and the same target flags (benchmarks/bench_llama_speed.cpp); then the same model in PyTorch, one
# thread (benchmarks/llama_speed_torch.py, Debian's python3-torch). The ratios are of one run of this script, which
# writes its table into docs/speed.md's block `llama_speed.sh` with --write.
#   [CTATTN_LLAMA2C_DIR=<checkout>] benchmarks/llama_speed.sh [--write docs/speed.md] [build dir]
#   (default build dir /tmp/ctattn-bench)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/speed_common.sh"
take_write_option "$@"
shift "$write_shift"
build="${1:-${CTATTN_BENCH_BUILD_DIR:-/tmp/ctattn-bench}}"
llama2c_dir="${CTATTN_LLAMA2C_DIR:-}"

"$root/scripts/install-debian-packages" g++ cmake libbenchmark-dev libboost-dev python3-torch
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCTATTN_BUILD_BENCHMARKS=ON -DCTATTN_BUILD_TESTS=OFF \
  -DCTATTN_BUILD_EXAMPLES=OFF -DCTATTN_LLAMA2C_DIR="$llama2c_dir" >/dev/null
cmake --build "$build" --target bench_llama_speed -j2
json=$(mktemp)
log=$(mktemp)
trap 'rm -f "$json" "$log"' EXIT
{
  print_cpu
  "${pin[@]}" "$build/benchmarks/bench_llama_speed" --benchmark_repetitions=11 --benchmark_report_aggregates_only=true \
    --benchmark_min_time=0.5 --benchmark_out="$json" --benchmark_out_format=json
  "${pin[@]}" /usr/bin/python3 "$here/llama_speed_torch.py"
} 2>&1 | tee "$log"
table=$(/usr/bin/python3 - "$json" "$log" "${llama2c_dir:+llama2.c $(git -C "$llama2c_dir" rev-parse --short=7 HEAD 2>/dev/null || echo checkout)}" <<'PY'
import json, re, sys
bench = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
rates = {}
for b in bench["benchmarks"]:
    if b.get("aggregate_name") == "median":
        rates[b["run_name"]] = b["tokens/s"]
torch = re.search(r"PyTorch (\S+),.*?\n.*?([0-9.]+) tokens/s", log, re.S)
cpu = re.search(r"CPU: (.*)", log).group(1)
rows = [("ctattn, fast arithmetic (" + bench["benchmarks"][0].get("label", "") + ")", rates.get("llama_ctattn/fast")),
        ("ctattn, exact arithmetic", rates.get("llama_ctattn/exact"))]
if "llama_llama2c_run" in rates:
    rows.append((sys.argv[3] + " run.c, -O3", rates["llama_llama2c_run"]))
if torch:
    rows.append(("PyTorch " + torch.group(1) + " (model.py's way: no cache)", float(torch.group(2))))
fast = rates.get("llama_ctattn/fast")
print("CPU: " + cpu + "; one thread; tokens (decoding steps) per second, median of 11.\n")
print("| side | tokens/s | ctattn fast / side (speed-up) |")
print("|---|---:|---:|")
for name, rate in rows:
    print("| %s | %s | %s |" % (name, "{:,.0f}".format(rate) if rate else "-",
                               "%.1fx" % (fast / rate) if rate and fast else "-"))
PY
)
echo
echo "$table"
if [[ -n $write_to ]]; then
  { echo "Measured by \`${llama2c_dir:+CTATTN_LLAMA2C_DIR=<checkout> }benchmarks/llama_speed.sh --write $write_to\`:"
    echo "$table"; } |
    /usr/bin/python3 "$root/benchmarks/doc_blocks.py" --write "$write_to" --block llama_speed.sh --script llama_speed.sh
fi

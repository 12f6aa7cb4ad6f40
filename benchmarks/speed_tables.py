#!/usr/bin/env python3
"""Writes a table of docs/speed.md from one run of the speed script that measures it.

    benchmarks/speed_tables.py TABLE --bench BENCH.json --log LOG [--command CMD] [--write FILE]

TABLE is `kwt` (benchmarks/kwt_speed.sh), `models` (benchmarks/model_speed.sh), `attention`
(benchmarks/attention_speed.sh) or `peer` (benchmarks/peer_speed.sh). BENCH.json is Google Benchmark's
JSON output of the run (`--benchmark_out`, the medians of its repetitions); LOG is everything else the script printed:
the CPU line (`print_cpu`), the benchmark program's checks and the PyTorch script's times. Without --write the table
is printed; with it, the block of FILE between `<!-- begin NAME -->` and `<!-- end NAME -->` (NAME the script's
file name, or with --variant V "NAME V") is replaced, and nothing else in FILE changes (benchmarks/doc_blocks.py).

Speed differs between machines and runs, so no test compares these tables with a new run (docs/firmware.md's
figures, which are deterministic, have that test); what this writer guarantees is that every figure of the block
comes from one run, with the CPU, the date and the command beside it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import textwrap
from typing import Callable

import doc_blocks  # benchmarks/doc_blocks.py, beside this script

SCRIPTS = {"kwt": "kwt_speed.sh", "models": "model_speed.sh", "attention": "attention_speed.sh",
           "peer": "peer_speed.sh"}


class RunError(Exception):
    """A figure the table needs is missing from the run's output."""


def medians(path: str) -> dict[str, dict]:
    """Google Benchmark's median entries, by run name (`kwt_float/fast`)."""
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    found = {}
    for entry in report.get("benchmarks", []):
        if entry.get("aggregate_name") == "median":
            found[entry["run_name"]] = entry
    return found


UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def seconds(entry: dict) -> float:
    return entry["real_time"] * UNIT_SECONDS[entry["time_unit"]]


def three_digits(value: float) -> str:
    """3 significant digits, thousands separated: 2.80, 51.7, 141, 1,330."""
    if value >= 100:
        return f"{round(value):,}"
    return f"{value:.{2 if value < 10 else 1}f}"


def time_text(s: float) -> str:
    return f"{three_digits(s * 1e6)} µs" if s < 1e-3 else f"{three_digits(s * 1e3)} ms"


def match(log: str, pattern: str, what: str) -> re.Match:
    found = re.search(pattern, log, re.MULTILINE)
    if not found:
        raise RunError(f"the run's output has no {what} (looked for /{pattern}/)")
    return found


def torch_seconds(log: str, label: str) -> float:
    """A time the PyTorch script printed after `label`, in ms or us."""
    found = match(log, r"^\s+" + re.escape(label) + r"\s+([0-9.]+) (ms|us)$", f"PyTorch time for '{label}'")
    return float(found.group(1)) * (1e-3 if found.group(2) == "ms" else 1e-6)


def cpu_of(log: str) -> str:
    found = match(log, r"^CPU: (.*) \(family (\d+), model (\d+)\)$", "CPU line (print_cpu)")
    return f"{found.group(1).strip()}, family {found.group(2)}, model {found.group(3)}"


def torch_version(log: str) -> str:
    return match(log, r"^PyTorch (\S+), one thread", "PyTorch version line").group(1)


def backend(entry: dict) -> str:
    """The backend a case ran on: its label (`ctattn::simd_backend_name`, `ctattn::int8_backend_name`)."""
    return f"`{entry['label']}`" if entry.get("label") else "unnamed"


def paragraph(text: str, first: str = "", rest: str = "") -> str:
    """Prose wrapped at the docs' 120 columns, never inside a `code span`; `first` and `rest` indent its lines (a
    list item: "- " and "  ")."""
    # A number and its unit stay on one line (121.65 µs, 93.9 GB/s).
    text = re.sub(r"(\d) (?=(?:ns|µs|ms|s|GB/s|GFLOP/s|MiB|KiB|bytes)\b)", "\\1\0", text)
    words = re.findall(r"(?:[^\s`]*`[^`]*`)+\S*|\S+", text)
    return textwrap.fill(" ".join(w.replace(" ", "\0") for w in words), width=120, initial_indent=first,
                         subsequent_indent=rest, break_on_hyphens=False,
                         break_long_words=False).replace("\0", " ")


def need(runs: dict[str, dict], name: str) -> dict:
    if name not in runs:
        raise RunError(f"the benchmark output has no median of {name}")
    return runs[name]


def kwt_table(runs: dict[str, dict], log: str, command: str, day: str) -> str:
    fast, exact, int8 = need(runs, "kwt_float/fast"), need(runs, "kwt_float/exact"), need(runs, "kwt_int8")
    peak = need(runs, "ctattn_bench::fma_peak")["GFLOPs"] * 1e9
    flops = fast["GFLOPs"] * 1e9 * seconds(fast)  # per inference, as the program counts them
    torch = torch_seconds(log, "KWT-1-shaped model, one inference (98 frames)")
    checks = match(log, r"largest \|fast - exact\| (\S+); largest \|int8 - exact\| (\S+)", "accuracy check line")

    def row(label: str, s: float, of_peak: bool) -> str:
        rate = flops / s
        share = rate / peak * 100
        peak_text = (f"{share:.2g}%" if share < 10 else f"{share:.0f}%") if of_peak else ""
        return f"| {label} | {time_text(s)} | {three_digits(rate * 1e-9)} | {peak_text} | {torch / s:.3g} |"

    lines = [
        "| KWT-1-shaped model, one inference | time | GFLOP/s | of the FMA peak | PyTorch's time / this |",
        "|---|---:|---:|---:|---:|",
        row(f"ctattn, float, fast arithmetic (backend {backend(fast)})", seconds(fast), True),
        row(f"ctattn, int8 (backend {backend(int8)}, the input's quantization included)", seconds(int8), False),
        row("ctattn, float, exact arithmetic (static_assert's bits)", seconds(exact), True),
        row(f"PyTorch {torch_version(log)} (Debian), float", torch, True),
        "",
        paragraph(
            f"Measured in one run on one core ({cpu_of(log)}; its FP32 FMA peak, measured in the same run, "
            f"{three_digits(peak * 1e-9)} GFLOP/s) with `{command}` ({day}). Int8 takes "
            f"{seconds(int8) / seconds(fast):.2f}x the fast float time. Before timing, the program checks the model: "
            f"fast float within {checks.group(1)} of exact, int8 within {checks.group(2)} (`ctattn::int8_error`)."),
    ]
    return "\n".join(lines)


def models_table(runs: dict[str, dict], log: str, command: str, day: str) -> str:
    def cell(name: str) -> str:
        return time_text(seconds(runs[name])) if name in runs else ""

    def torch_cell(label: str, note: str = "") -> str:
        return time_text(torch_seconds(log, label)) + note

    need(runs, "sorter_inference/fast")
    lines = [
        "| model, call | ctattn fast | ctattn exact | ctattn int8 | Eigen 3.4 | PyTorch |",
        "|---|---:|---:|---:|---:|---:|",
        f"| sorter (2 layers, d_model 32), one inference of 6 tokens | {cell('sorter_inference/fast')} | "
        f"{cell('sorter_inference/exact')} | {cell('sorter_inference_int8')} | {cell('sorter_inference_eigen')} | "
        f"{torch_cell('sorter, one inference (6 tokens)')} |",
        f"| causal sorter, one decoding step with the key/value caches (13th token) | {cell('causal_step/fast')} | "
        f"{cell('causal_step/exact')} | | | |",
        f"| causal sorter, the same token without a cache (the 13-token pass) | {cell('causal_recompute/fast')} | "
        f"{cell('causal_recompute/exact')} | | | {torch_cell('causal sorter, 13-token forward pass')} |",
        f"| causal sorter, greedy decoding of six digits (13 steps) | {cell('causal_sort/fast')} | "
        f"{cell('causal_sort/exact')} | | | "
        f"{torch_cell('causal sorter, greedy decoding of 6 digits', ' (recomputing)')} |",
        "",
    ]
    fast = seconds(runs["sorter_inference/fast"])
    said = [f"Measured in one run on one core ({cpu_of(log)}) with `{command}` ({day})."]
    if "sorter_inference_eigen" in runs:
        eigen = seconds(runs["sorter_inference_eigen"])
        said.append(f"ctattn's fast inference takes {fast / eigen:.2f}x the hand-written Eigen model's time.")
    if "sorter_inference_int8" in runs:
        said.append(f"Int8 takes {seconds(runs['sorter_inference_int8']) / fast:.2f}x the fast float time.")
    if "causal_step/fast" in runs and "causal_recompute/fast" in runs:
        step, recompute = seconds(runs["causal_step/fast"]), seconds(runs["causal_recompute/fast"])
        said.append(f"The caches make a step {recompute / step:.1f}x cheaper than recomputing the prefix.")
    lines.append(paragraph(" ".join(said)))
    return "\n".join(lines)


def report_of(log: str, start: str, what: str) -> list[str]:
    """The lines a benchmark program printed from the line matching `start` to the end of the run: the tables and
    sentences it computed from the same medians (bench_attention_speed.cpp, bench_peer_speed.cpp)."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if re.match(start, line):
            return lines[i:]
    raise RunError(f"the run's output has no {what} (looked for /{start}/)")


def markdown_of_report(lines: list[str]) -> str:
    """A program's report as the docs show it: its first line a paragraph, its `###` headings as bold lines (the
    document keeps its own headings), its tables as they are, and every other line (a sentence, or an entry of an
    indented list) an item of a list."""
    out: list[str] = [paragraph(lines[0].strip())]
    for k, line in enumerate(lines[1:], start=1):
        if line.startswith("### "):
            out.append(f"**{line[4:].strip()}**")
        elif line.startswith("|") or not line.strip():
            out.append(line.rstrip())
        else:
            if out and out[-1].startswith("|"):
                out.append("")
            heading = line.endswith(":") and not line.startswith(" ") and k + 1 < len(lines) and \
                lines[k + 1].startswith("  ")
            out.append(paragraph(line.strip()) if heading else paragraph(line.strip(), "- ", "  "))
    text = "\n".join(out).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


def some_medians(runs: dict[str, dict]) -> None:
    """The program ran its benchmarks (a run stopped by a failed check has no medians, and no report)."""
    if not runs:
        raise RunError("the benchmark output has no medians")


def attention_table(runs: dict[str, dict], log: str, command: str, day: str) -> str:
    some_medians(runs)
    report = report_of(log, r"^(Medians of \d+ repetitions|One run each), real time per call, one thread, float32\.",
                       "table of bench_attention_speed")
    checks = [line for line in log.splitlines() if line.startswith("check ")]
    lines = [
        paragraph(f"Measured in one run on one core ({cpu_of(log)}) with `{command}` ({day}); every implementation's "
                  f"output was checked against the others before timing ({len(checks)} checks). The program's report:"),
        "",
        markdown_of_report(report),
    ]
    return "\n".join(lines)


def peer_table(runs: dict[str, dict], log: str, command: str, day: str) -> str:
    some_medians(runs)
    versions = match(log, r"^oneDNN (\S+), CPU runtime (.*) \(its implementations", "oneDNN version line")
    report = report_of(log, r"^(Medians of \d+ repetitions|One run each), real time per call, one thread\. FP32",
                       "tables of bench_peer_speed")
    lines = [
        paragraph(f"Measured in one run on one core ({cpu_of(log)}) with `{command}` ({day}), oneDNN "
                  f"{versions.group(1)} ({versions.group(2)}); every peer's output was checked against ctattn's "
                  f"before timing. The program's report:"),
        "",
        markdown_of_report(report),
    ]
    return "\n".join(lines)


TABLES: dict[str, Callable[[dict[str, dict], str, str, str], str]] = {
    "kwt": kwt_table, "models": models_table, "attention": attention_table, "peer": peer_table}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", choices=sorted(TABLES))
    parser.add_argument("--bench", required=True, help="Google Benchmark's JSON output of the run")
    parser.add_argument("--log", required=True, help="the rest of the run's output")
    parser.add_argument("--command", default=None, help="the command, as the docs show it")
    parser.add_argument("--write", default=None, help="the document whose block is replaced")
    parser.add_argument("--variant", default=None,
                        help="a second table of the same script: the block `<script> VARIANT` (peer_speed.sh avx2)")
    args = parser.parse_args(argv)
    name = SCRIPTS[args.table]
    command = args.command or f"benchmarks/{name}"
    with open(args.log, encoding="utf-8") as f:
        log = f.read()
    try:
        text = TABLES[args.table](medians(args.bench), log, command, datetime.date.today().isoformat())
    except (RunError, KeyError, OSError, ValueError) as e:
        print(f"speed_tables.py {args.table}: {e}; nothing written", file=sys.stderr)
        return 1
    if args.write is None:
        print(text)
        return 0
    return doc_blocks.write_block(args.write, f"{name} {args.variant}" if args.variant else name, text)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

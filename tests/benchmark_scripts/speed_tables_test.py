#!/usr/bin/env python3
"""benchmarks/speed_tables.py on a made-up run: the table it writes, the block it replaces, and its refusals; and
benchmarks/doc_blocks.py, which the firmware scripts write docs/firmware.md's CMSIS-NN tables with.

The run is written here in Google Benchmark's JSON layout (medians and other aggregates) with the lines the speed
scripts print around it; the figures are chosen so that every ratio of the table is a round number.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WRITER = os.path.join(ROOT, "benchmarks", "speed_tables.py")
BLOCKS = os.path.join(ROOT, "benchmarks", "doc_blocks.py")


def entry(run, aggregate, time, unit, **extra):
    return dict(name=f"{run}_{aggregate}", run_name=run, run_type="aggregate", aggregate_name=aggregate,
                real_time=time, cpu_time=time, time_unit=unit, **extra)


def kwt_run(leave_out=None):
    rows = [
        ("kwt_float/fast", 2.0, "ms", dict(GFLOPs=75.0, label="avx512")),
        ("kwt_float/exact", 20.0, "ms", dict(GFLOPs=7.5, label="avx512")),
        ("kwt_int8", 1.5, "ms", dict(GFLOPs=100.0, label="avx512_vnni")),
        ("ctattn_bench::fma_peak", 3.6, "us", dict(GFLOPs=150.0)),
    ]
    benchmarks = []
    for run, time, unit, extra in rows:
        if run == leave_out:
            continue
        benchmarks.append(entry(run, "mean", time * 1.01, unit, **extra))
        benchmarks.append(entry(run, "median", time, unit, **extra))
    log = ("CPU: Some CPU 9000 (family 25, model 17)\n"
           "KWT-1-shaped model: largest |fast - exact| 1e-07; largest |int8 - exact| 0.005 (ctattn::int8_error)\n"
           "PyTorch 1.13.0a0, one thread, float32, median of 11:\n"
           "  KWT-1-shaped model, one inference (98 frames)      30.000 ms\n")
    return {"context": {}, "benchmarks": benchmarks}, log


DOCUMENT = """# Speed

Before.

<!-- begin kwt_speed.sh: written by benchmarks/kwt_speed.sh --write docs/speed.md; do not edit -->
| an old table |
<!-- end kwt_speed.sh -->

After.
"""


class SpeedTables(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def run_table(self, table, bench, log, *extra, command=None):
        """The writer on a made-up run: `bench` as Google Benchmark's JSON, `log` as the rest of its output."""
        with open(self.path("bench.json"), "w", encoding="utf-8") as f:
            json.dump(bench, f)
        with open(self.path("run.log"), "w", encoding="utf-8") as f:
            f.write(log)
        return subprocess.run([sys.executable, WRITER, table, "--bench", self.path("bench.json"), "--log",
                               self.path("run.log"), "--command", command or f"benchmarks/{table}.sh", *extra],
                              capture_output=True, text=True, check=False)

    def run_writer(self, bench, log, *extra):
        return self.run_table("kwt", bench, log, *extra, command="benchmarks/kwt_speed.sh")

    def test_table_from_the_medians(self):
        result = self.run_writer(*kwt_run())
        self.assertEqual(result.returncode, 0, result.stderr)
        # 2 ms at 75 GFLOP/s: 150 MFLOP an inference; PyTorch's 30 ms is 15x; the peak 150 GFLOP/s, so 50%.
        self.assertIn("| ctattn, float, fast arithmetic (backend `avx512`) | 2.00 ms | 75.0 | 50% | 15 |",
                      result.stdout)
        self.assertIn("| ctattn, int8 (backend `avx512_vnni`, the input's quantization included) | 1.50 ms | 100 |  "
                      "| 20 |", result.stdout)
        self.assertIn("| ctattn, float, exact arithmetic (static_assert's bits) | 20.0 ms | 7.50 | 5% | 1.5 |",
                      result.stdout)
        self.assertIn("| PyTorch 1.13.0a0 (Debian), float | 30.0 ms | 5.00 | 3.3% | 1 |", result.stdout)
        text = " ".join(result.stdout.split())
        self.assertIn("(Some CPU 9000, family 25, model 17; its FP32 FMA peak, measured in the same run, 150 GFLOP/s)",
                      text)
        self.assertIn("Int8 takes 0.75x the fast float time.", text)
        self.assertIn("fast float within 1e-07 of exact, int8 within 0.005", text)
        self.assertTrue(all(len(line) <= 120 for line in result.stdout.splitlines() if not line.startswith("|")))

    def test_write_replaces_the_block_only(self):
        with open(self.path("speed.md"), "w", encoding="utf-8") as f:
            f.write(DOCUMENT)
        result = self.run_writer(*kwt_run(), "--write", self.path("speed.md"))
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.path("speed.md"), encoding="utf-8") as f:
            written = f.read()
        self.assertNotIn("an old table", written)
        self.assertTrue(written.startswith("# Speed\n\nBefore.\n\n<!-- begin kwt_speed.sh: written by"))
        self.assertTrue(written.endswith("<!-- end kwt_speed.sh -->\n\nAfter.\n"))
        self.assertIn("| ctattn, float, fast arithmetic (backend `avx512`) | 2.00 ms |", written)

    def test_missing_figure_writes_nothing(self):
        with open(self.path("speed.md"), "w", encoding="utf-8") as f:
            f.write(DOCUMENT)
        result = self.run_writer(*kwt_run(leave_out="kwt_int8"), "--write", self.path("speed.md"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("has no median of kwt_int8; nothing written", result.stderr)
        with open(self.path("speed.md"), encoding="utf-8") as f:
            self.assertEqual(f.read(), DOCUMENT)

    def test_missing_torch_time_writes_nothing(self):
        bench, log = kwt_run()
        result = self.run_writer(bench, log.replace("30.000 ms", "n/a"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("no PyTorch time for 'KWT-1-shaped model, one inference (98 frames)'", result.stderr)

    def test_document_without_the_block_is_left_alone(self):
        with open(self.path("speed.md"), "w", encoding="utf-8") as f:
            f.write("# Speed\n")
        result = self.run_writer(*kwt_run(), "--write", self.path("speed.md"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("has no '<!-- begin kwt_speed.sh ... -->'", result.stderr)
        with open(self.path("speed.md"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "# Speed\n")

    def test_unreadable_document(self):
        result = self.run_writer(*kwt_run(), "--write", self.path("missing.md"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("missing.md", result.stderr)

    def test_models_table_leaves_unmeasured_cells_empty(self):
        # A build without Eigen: its column stays empty and the sentence about it is left out.
        measured = [("sorter_inference/fast", 5.0), ("sorter_inference_int8", 10.0), ("causal_step/fast", 2.0),
                    ("causal_recompute/fast", 12.0)]
        bench = {"benchmarks": [entry(run, "median", time, "us") for run, time in measured]}
        log = ("CPU: Some CPU 9000 (family 25, model 17)\n"
               "PyTorch 1.13.0a0, one thread, float32, medians of 11:\n"
               "  sorter, one inference (6 tokens)                 250.00 us\n"
               "  causal sorter, 13-token forward pass             450.00 us\n"
               "  causal sorter, greedy decoding of 6 digits      2500.00 us\n")
        result = self.run_table("models", bench, log)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("| sorter (2 layers, d_model 32), one inference of 6 tokens | 5.00 µs |  | 10.0 µs |  | 250 µs |",
                      result.stdout)
        self.assertIn("| causal sorter, greedy decoding of six digits (13 steps) |  |  | | | 2.50 ms (recomputing) |",
                      result.stdout)
        text = " ".join(result.stdout.split())
        self.assertNotIn("Eigen model's time", text)
        self.assertIn("Int8 takes 2.00x the fast float time. The caches make a step 6.0x cheaper", text)

    def test_attention_report_as_printed(self):
        # The program's report is kept as it printed it: its table whole, each sentence after it a list item.
        bench = {"benchmarks": [entry("fma_peak", "median", 2.0, "us")]}
        log = ("CPU: Some CPU 9000 (family 25, model 17)\n"
               "check attention n=6, d=16: max |ctattn - naive| 1.0e-07, max |ctattn - Eigen| 1.0e-07\n"
               "check attention n=16, d=64: max |ctattn - naive| 1.0e-07, max |ctattn - Eigen| 1.0e-07\n"
               "------------------------------------------------------\n"
               "attention/n6_d16/ctattn_median   200 ns   200 ns   11\n"
               "\n"
               "Medians of 11 repetitions, real time per call, one thread, float32.\n"
               "\n"
               "| case | ctattn | naive |\n"
               "|---|---:|---:|\n"
               "| attention n=6, d=16 | 200 ns | 400 ns |\n"
               "\n"
               "MHA 16 tokens, weights relaid out in x out (ctattn::relayout): 4.00 µs, 2.00x Eigen's speed.\n"
               "attention n=6, d=16 in int8 (ctattn::int8_backend_name \"avx512_vnni\"): 600 ns, against float "
               "200 ns fast (float / int8 0.33x) and 500 ns exact (0.83x).\n"
               "\n"
               "FP32 FMA peak of one core (512-bit vectors, 8 independent chains): 150.0 GFLOP/s.\n")
        result = self.run_table("attention", bench, log)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("attention/n6_d16/ctattn_median", result.stdout)  # Google Benchmark's own lines left out
        self.assertIn("Medians of 11 repetitions, real time per call, one thread, float32.\n\n"
                      "| case | ctattn | naive |\n|---|---:|---:|\n| attention n=6, d=16 | 200 ns | 400 ns |\n\n"
                      "- MHA 16 tokens, weights relaid", result.stdout)
        self.assertIn("\n- attention n=6, d=16 in int8 (ctattn::int8_backend_name \"avx512_vnni\"): 600 ns,",
                      result.stdout)
        self.assertIn("\n- FP32 FMA peak of one core", result.stdout)
        text = " ".join(result.stdout.split())
        self.assertIn("(Some CPU 9000, family 25, model 17) with `benchmarks/attention.sh`", text)
        self.assertIn("before timing (2 checks)", text)
        self.assertTrue(all(len(line) <= 120 for line in result.stdout.splitlines() if not line.startswith("|")))
        # A run that stopped before its report (the implementations disagreed) writes nothing.
        result = self.run_table("attention", bench, log.split("Medians of")[0])
        self.assertEqual(result.returncode, 1)
        self.assertIn("no table of bench_attention_speed", result.stderr)

    def test_peer_report_headings_and_list(self):
        bench = {"benchmarks": [entry("fma_peak", "median", 2.0, "us")]}
        log = ("CPU: Some CPU 9000 (family 25, model 17)\n"
               "oneDNN 2.6.0, CPU runtime OpenMP, one thread (its implementations, which name the ISA, are listed "
               "after the tables); XNNPACK without a thread pool\n"
               "\n"
               "Medians of 11 repetitions, real time per call, one thread. FP32 FMA peak of this core (512-bit, 8 "
               "chains): 150.0 GFLOP/s.\n"
               "\n"
               "### fp32 fully connected, y = x W^T + b (rows x in x out)\n"
               "\n"
               "| case | ctattn |\n"
               "|---|---:|\n"
               "| 16x64x64 | 1.00 µs |\n"
               "\n"
               "oneDNN implementations chosen:\n"
               "  fc/16x64x64: brg:avx512_core\n")
        result = self.run_table("peer", bench, log)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("\n**fp32 fully connected, y = x W^T + b (rows x in x out)**\n\n| case | ctattn |", result.stdout)
        self.assertIn("\noneDNN implementations chosen:\n- fc/16x64x64: brg:avx512_core", result.stdout)
        self.assertIn("oneDNN 2.6.0 (OpenMP, one thread)", " ".join(result.stdout.split()))

    def test_variant_writes_its_own_block(self):
        # Two tables of one script (peer_speed.sh, and its AVX2 run): --variant writes the second block only.
        document = ("<!-- begin peer_speed.sh: written by benchmarks/peer_speed.sh --write d.md; do not edit -->\n"
                    "| the first table |\n<!-- end peer_speed.sh -->\n\n"
                    "<!-- begin peer_speed.sh avx2 -->\n| the second table |\n<!-- end peer_speed.sh avx2 -->\n")
        with open(self.path("speed.md"), "w", encoding="utf-8") as f:
            f.write(document)
        bench = {"benchmarks": [entry("fma_peak", "median", 2.0, "us")]}
        log = ("CPU: Some CPU 9000 (family 25, model 17)\n"
               "oneDNN 2.6.0, CPU runtime OpenMP, one thread (its implementations, ...); XNNPACK without a pool\n"
               "Medians of 3 repetitions, real time per call, one thread. FP32 FMA peak of this core: 1.0 GFLOP/s.\n"
               "\n| case | ctattn |\n|---|---:|\n| 16x64x64 | 1.00 µs |\n")
        result = self.run_table("peer", bench, log, "--write", self.path("speed.md"), "--variant", "avx2")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.path("speed.md"), encoding="utf-8") as f:
            written = f.read()
        self.assertIn("| the first table |", written)
        self.assertNotIn("| the second table |", written)
        self.assertIn("<!-- begin peer_speed.sh avx2: written by benchmarks/peer_speed.sh --write", written)
        self.assertIn("| 16x64x64 | 1.00 µs |\n<!-- end peer_speed.sh avx2 -->", written)

class DocBlocks(unittest.TestCase):
    def test_block_from_standard_input(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "firmware.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write("A.\n<!-- begin firmware_int8_kernels.sh sorter -->\nold\n"
                        "<!-- end firmware_int8_kernels.sh sorter -->\nB.\n")
            command = [sys.executable, BLOCKS, "--write", path, "--block", "firmware_int8_kernels.sh sorter"]
            result = subprocess.run(command, input="| new |\n\n", capture_output=True, text=True, check=False)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), "A.\n<!-- begin firmware_int8_kernels.sh sorter: written by benchmarks/"
                                           f"firmware_int8_kernels.sh --write {path}; do not edit -->\n| new |\n"
                                           "<!-- end firmware_int8_kernels.sh sorter -->\nB.\n")
            # No text (a script that measured nothing) and a block the document lacks: nothing written.
            before = open(path, encoding="utf-8").read()
            result = subprocess.run(command, input="", capture_output=True, text=True, check=False)
            self.assertEqual(result.returncode, 1)
            self.assertIn("no text for the firmware_int8_kernels.sh sorter block", result.stderr)
            result = subprocess.run(command[:-1] + ["firmware_int8_kernels.sh kernels"], input="x\n",
                                    capture_output=True, text=True, check=False)
            self.assertEqual(result.returncode, 1)
            self.assertIn("has no '<!-- begin firmware_int8_kernels.sh kernels ... -->'", result.stderr)
            self.assertEqual(open(path, encoding="utf-8").read(), before)

if __name__ == "__main__":
    unittest.main()

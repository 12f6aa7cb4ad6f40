#!/usr/bin/python3
"""Time a tiny language model of stories260K's shape in PyTorch, one thread, float32, for comparison with
benchmarks/bench_llama_speed.cpp (benchmarks/llama_speed.sh runs both): the export test's TinyLlama
(tests/export/fresh_models.py, llama2.c's model.py layout) at vocabulary 512, dim 64, 5 layers, 8 heads over 4,
SwiGLU hidden 172, the head tied.

One generation is the same 23 steps as ctattn's (an 8-token prompt, then 16 greedy tokens, each fed back), computed
as llama2.c's model.py generates: every step runs the whole sequence so far (that module keeps no key/value cache)
and takes the last position's logits. Prints the median time of a generation over 11 repetitions, and tokens (steps)
per second.
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "export"))
from fresh_models import TinyLlama  # noqa: E402
from torch_timing import median_seconds  # noqa: E402

torch.set_num_threads(1)

PROMPT = [1, 72, 105, 33, 200, 17, 400, 5]  # firmware/models/tiny_llama.hpp's
GENERATED = 16


def generation(model):
    ids = torch.tensor([PROMPT])
    for _ in range(GENERATED):
        logits = model(ids)[:, -1, :]
        ids = torch.cat((ids, logits.argmax(dim=-1, keepdim=True)), dim=1)
    return ids


def main():
    model = TinyLlama(seed=260, dim=64, layers=5, heads=8, kv_heads=4, hidden=172, vocab=512, positions=32).eval()
    steps = len(PROMPT) + GENERATED - 1
    with torch.inference_mode():
        seconds = median_seconds(lambda: generation(model), minimum=0.5)
    print("PyTorch %s, one thread, float32, median of 11:" % torch.__version__)
    print("  tiny llama (stories260K's shape), one generation (%d steps, no cache)  %10.3f ms  %10.0f tokens/s"
          % (steps, 1e3 * seconds, steps / seconds))


if __name__ == "__main__":
    main()

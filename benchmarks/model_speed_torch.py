#!/usr/bin/python3
"""Time the verified models of examples/verified_model/ in PyTorch, one thread, float32, for comparison with
benchmarks/bench_model_speed.cpp (benchmarks/model_speed.sh runs both).

Prints median times per call over 11 repetitions: the encoder-only sorter's forward pass on one sequence (batch 1,
torch.inference_mode), the decoder-only sorter's whole 13-token forward pass (what a step costs without a cache;
nn.TransformerEncoderLayer has none) and its greedy decoding of six digits.
"""

import json
import os
import struct
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.path.dirname(HERE), "examples", "verified_model")
sys.path.insert(0, MODELS)
import train_sorter  # noqa: E402  (the model definitions)
from torch_timing import median_seconds  # noqa: E402

torch.set_num_threads(1)


def load(module, name):
    """The state_dict from one of the committed F32 .safetensors files."""
    with open(os.path.join(MODELS, name), "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    state = {}
    for key, entry in header.items():
        if key == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        values = struct.unpack("<%df" % ((end - begin) // 4), data[8 + n + begin:8 + n + end])
        state[key] = torch.tensor(values, dtype=torch.float32).reshape(entry["shape"])
    module.load_state_dict(state)
    return module.eval()


def main():
    sorter = load(train_sorter.Sorter(), "sorter.safetensors")
    causal = load(train_sorter.CausalSorter(), "causal_sorter.safetensors")
    digits = torch.tensor([[3, 1, 4, 1, 5, 9]])
    prefix = torch.ones(1, train_sorter.CAUSAL_LENGTH, dtype=torch.long)
    with torch.inference_mode():
        rows = [
            ("sorter, one inference (6 tokens)", lambda: sorter(digits)),
            ("causal sorter, 13-token forward pass", lambda: causal(prefix)),
            ("causal sorter, greedy decoding of 6 digits", lambda: train_sorter.greedy(causal, digits)),
        ]
        print("PyTorch %s, one thread, float32, medians of 11:" % torch.__version__)
        for label, f in rows:
            print("  %-44s %10.2f us" % (label, 1e6 * median_seconds(f)))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Time a KWT-1-shaped keyword transformer in PyTorch, one thread, float32, for comparison with
benchmarks/bench_kwt_speed.cpp (benchmarks/kwt_speed.sh runs both): 98 MFCC frames of 40, a Linear(40, 64) per
frame, a class token, learned positions over 99 rows, 12 post-norm nn.TransformerEncoderLayer (d_model 64, 1 head,
MLP 256, GELU, eps 1e-6, batch_first), the class token's row, a Linear head to 35 classes.

Prints the median time per forward pass (batch 1, torch.inference_mode, which lets nn.TransformerEncoderLayer take
its fused fast path) over 11 repetitions, of the export test's KeywordTransformer1 (tests/export/fresh_models.py).
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "export"))
from fresh_models import KeywordTransformer1  # noqa: E402  (the export test's KWT-1, the same shapes)
from torch_timing import median_seconds  # noqa: E402

torch.set_num_threads(1)


def main():
    torch.manual_seed(0)
    model = KeywordTransformer1().eval()
    frames = torch.randn(1, 98, 40)
    with torch.inference_mode():
        print("PyTorch %s, one thread, float32, median of 11:" % torch.__version__)
        print("  KWT-1-shaped model, one inference (98 frames)  %10.3f ms" % (1e3 * median_seconds(lambda: model(frames), minimum=0.5)))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Time a KWT-1-shaped keyword transformer in PyTorch, one thread, float32, for comparison with
benchmarks/bench_kwt_speed.cpp (benchmarks/kwt_speed.sh runs both): 98 MFCC frames of 40, a Linear(40, 64) per
frame, a class token, learned positions over 99 rows, 12 post-norm nn.TransformerEncoderLayer (d_model 64, 1 head,
MLP 256, GELU, eps 1e-6, batch_first), the class token's row, a Linear head to 35 classes.

Prints the median time per forward pass (batch 1, torch.inference_mode, which lets nn.TransformerEncoderLayer take
its fused fast path) over 11 repetitions. The weights are PyTorch's initial ones: the time does not depend on them.
"""

import statistics
import time

import torch
from torch import nn

torch.set_num_threads(1)


class KeywordTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.to_patch_embedding = nn.Linear(40, 64)
        self.cls_token = nn.Parameter(torch.randn(1, 1, 64))
        self.pos_embedding = nn.Parameter(torch.randn(1, 99, 64))
        layer = nn.TransformerEncoderLayer(64, 1, 256, dropout=0.0, activation="gelu", batch_first=True,
                                           layer_norm_eps=1e-6)
        self.layers = nn.TransformerEncoder(layer, 12, enable_nested_tensor=False)
        self.head = nn.Linear(64, 35)

    def forward(self, x):
        x = self.to_patch_embedding(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embedding
        return self.head(self.layers(x)[:, 0])


def median_seconds(f, repetitions=11, minimum=0.5):
    times = []
    for _ in range(repetitions):
        calls, start = 0, time.perf_counter()
        while True:
            f()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= minimum:
                break
        times.append(elapsed / calls)
    return statistics.median(times)


def main():
    torch.manual_seed(0)
    model = KeywordTransformer().eval()
    frames = torch.randn(1, 98, 40)
    with torch.inference_mode():
        print("PyTorch %s, one thread, float32, median of 11:" % torch.__version__)
        print("  KWT-1-shaped model, one inference (98 frames)  %10.3f ms" % (1e3 * median_seconds(lambda: model(frames))))


if __name__ == "__main__":
    main()

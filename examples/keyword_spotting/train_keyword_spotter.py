#!/usr/bin/python3
"""Train the keyword-spotting example's KWT-style model on its synthetic keyword task, export it, and write what the
C++ side checks.

Run from the repository root with Debian 12's interpreter (apt-get install -y python3-torch g++ libboost-dev
nlohmann-json3-dev):

    /usr/bin/python3 examples/keyword_spotting/train_keyword_spotter.py

The task (keyword_data.hpp has the same generator in C++, integers only, so both give the same bits): one second of
"audio" as 49 frames of 10 MFCC-like features; four "phonemes" (spectral shapes) make four keywords of three phonemes
each, in orders of their own (keywords 1 and 2 are the same phonemes reversed), each held 4 to 7 frames, anywhere in
the second, at a random loudness, in noise; class 0 is background (noise and one phoneme).

The model is KWT's (ARM's reference layout, at KWT-Tiny's size): each frame embedded by a Linear(10, 16), a learned
class token put first, learned positions over 50 rows, 2 post-norm nn.TransformerEncoderLayer(16, 2 heads, MLP 32,
GELU, eps 1e-6), the class token's row, a Linear head to 5 classes.

It trains on 8,000 samples (about a minute on one core), reports the accuracy on 1,000 held-out samples, then runs
ctattn-export on the trained model (float and int8, golden inputs from the held-out set, int8 ranges over 64
calibration samples): the export proves the C++ model against PyTorch at compile time and at run time, or fails.
It writes, beside this script:

  keyword_spotter.safetensors  the trained parameters (F32), under the module's state_dict names, and its settings
                               (eps) in __metadata__, as ctattn-export wrote them
  keyword_spotter.hpp          the C++ model, as ctattn-export wrote it
  keyword_spotter_ranges.hpp   the int8 ranges ctattn recorded over the calibration samples (ctattn-export --int8)
  keyword_golden.hpp           PyTorch's logits for the first 4 held-out samples, and its held-out accuracy

Deterministic: one thread, fixed seeds.
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn as nn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tools"))
import ctattn_export  # noqa: E402  (the repository's export tool)

FRAMES, FEATURES, CLASSES = 49, 10, 5
TRAIN_SEED, TEST_SEED, CALIBRATION_SEED = 0x7261696E, 0x74657374, 0x63616C69
TRAIN, TEST, CALIBRATION, GOLDEN = 8000, 1000, 64, 4
SHAPES = [[8, 6, 3, 0, -3, -5, -6, -4, -2, 0],
          [-4, -2, 2, 6, 8, 6, 2, -2, -4, -6],
          [0, -3, -6, -4, 0, 3, 6, 8, 6, 3],
          [5, -5, 5, -5, 5, -5, 5, -5, 5, -5]]
KEYWORDS = [[0, 1, 2], [2, 1, 0], [0, 2, 3], [3, 1, 2]]
MASK = 0xFFFFFFFF

torch.set_num_threads(1)


class Xorshift32:
    def __init__(self, state):
        self.state = state & MASK

    def next(self):
        s = self.state
        s ^= (s << 13) & MASK
        s ^= s >> 17
        s ^= (s << 5) & MASK
        self.state = s
        return s


def draw(g):
    """One sample (label, 49 x 10 integers): keyword_data::draw, step for step."""
    label = g.next() % CLASSES
    grid = [[(g.next() % 49) - 24 for _ in range(FEATURES)] for _ in range(FRAMES)]
    gain = 2 + g.next() % 3
    if label == 0:
        phonemes = [g.next() % 4]
    else:
        phonemes = KEYWORDS[label - 1]
    durations = [4 + g.next() % 4 for _ in phonemes]
    t = g.next() % (FRAMES - sum(durations) + 1)
    for p, d in zip(phonemes, durations):
        for _ in range(d):
            for f in range(FEATURES):
                grid[t][f] += gain * SHAPES[p][f]
            t += 1
    return label, grid


def sample_at(seed, index):
    g = Xorshift32(seed ^ ((index * 0x9E3779B9 + 1) & MASK))
    if g.state == 0:
        g.state = 1
    for _ in range(4):
        g.next()
    return draw(g)


def dataset(seed, count):
    labels, grids = zip(*(sample_at(seed, i) for i in range(count)))
    x = torch.tensor(grids, dtype=torch.float32) / 32.0
    return x, torch.tensor(labels)


class KeywordSpotter(nn.Module):
    """KWT at KWT-Tiny's size, in ARM's layout."""

    def __init__(self, frames=FRAMES, features=FEATURES, d=16, heads=2, hidden=32, depth=2, classes=CLASSES):
        super().__init__()
        self.to_patch_embedding = nn.Linear(features, d)
        self.cls_token = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos_embedding = nn.Parameter(torch.randn(1, frames + 1, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, hidden, dropout=0.0, activation="gelu", batch_first=True,
                                           layer_norm_eps=1e-6)
        self.transformer = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.mlp_head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.to_patch_embedding(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
        x = x + self.pos_embedding[:, :x.shape[1]]
        x = self.transformer(x)
        return self.mlp_head(x[:, 0])


def accuracy(model, x, y):
    with torch.no_grad():
        return int((model(x).argmax(dim=1) == y).sum())


def float_literal(v):
    return ctattn_export.float_literal(float(v))


def main():
    torch.manual_seed(0)
    x_train, y_train = dataset(TRAIN_SEED, TRAIN)
    x_test, y_test = dataset(TEST_SEED, TEST)
    x_calibration, _ = dataset(CALIBRATION_SEED, CALIBRATION)

    model = KeywordSpotter()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    epochs, batch = 40, 64
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, total_steps=epochs * (TRAIN // batch))
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(TRAIN)
        for i in range(TRAIN // batch):
            idx = order[i * batch:(i + 1) * batch]
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
            schedule.step()
        if epoch % 10 == 9:
            model.eval()
            print(f"epoch {epoch + 1}: loss {loss.item():.4f}, held-out accuracy "
                  f"{accuracy(model, x_test, y_test) / TEST:.4f}")
    model.eval()
    correct = accuracy(model, x_test, y_test)
    print(f"held-out accuracy (float32, PyTorch): {correct} of {TEST}")

    # The export: the C++ model, proved against PyTorch on 4 held-out samples, and its int8 ranges.
    with tempfile.TemporaryDirectory() as out:
        ctattn_export.export(model, out, "keyword_spotter", "1x49x10", namespace="kws", int8=True,
                             calibration=x_calibration, golden_inputs=x_test[:GOLDEN],
                             command="examples/keyword_spotting/train_keyword_spotter.py")
        # The export's weights file: the state_dict, and the settings (eps 1e-6) in its __metadata__, which the
        # C++ import applies.
        for name in ("keyword_spotter.safetensors", "keyword_spotter.hpp", "keyword_spotter_ranges.hpp"):
            shutil.copy(Path(out) / name, HERE / name)

    with torch.no_grad():
        logits = model(x_test[:GOLDEN])
    lines = ["// PyTorch's logits for the keyword-spotting example's first 4 held-out samples, and its held-out accuracy.",
             "// GENERATED by examples/keyword_spotting/train_keyword_spotter.py; do not edit, train again.",
             "#pragma once", "", "#include <cstddef>", "", "namespace kws_golden {", "",
             f"inline constexpr std::size_t count = {GOLDEN};",
             f"inline constexpr std::size_t held_out = {TEST};",
             f"inline constexpr std::size_t torch_correct = {correct};",
             f"inline constexpr float logits[{GOLDEN}][{CLASSES}] = {{"]
    for row in logits:
        lines.append("    {" + ", ".join(float_literal(v) for v in row) + "},")
    lines += ["};", "", "}  // namespace kws_golden", ""]
    (HERE / "keyword_golden.hpp").write_text("\n".join(lines))
    print(f"wrote keyword_spotter.safetensors, keyword_spotter.hpp, keyword_spotter_ranges.hpp, keyword_golden.hpp "
          f"in {HERE}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Train the verified model's tiny transformers to sort six digits, and write what the C++ side checks.

Run from the repository root with Debian 12's interpreter (apt-get install -y python3-torch python3-numpy):

    /usr/bin/python3 examples/verified_model/train_sorter.py [sorter|causal|all]    (default: all)

Two models, each written by its own part of this script (and reproduced by it alone):

sorter: encoder-only, all six answers at once (below).
causal: decoder-only (GPT-style), the answer one token at a time: the sequence is the six digits, a separator
  (token 10), then the six sorted digits; causal self-attention; trained to predict each sorted digit from what
  precedes it. Greedy decoding with a key/value cache runs it token by token (examples/verified_model/decode.cpp).
  It writes causal_sorter.safetensors and causal_golden.hpp.

The task: given six digits (0-9), output them in ascending order, one class per position. The model is
embed + learned positions -> 2 x nn.TransformerEncoderLayer(32, 4, 64, gelu, norm_first=True) -> LayerNorm ->
Linear(32, 10), encoder-only: every output position sees the whole input. It writes, beside this script:

  sorter.safetensors  the trained parameters (F32), under the module's state_dict names
  golden.hpp          golden inputs, PyTorch's float32 logits for them, and the test-set accuracy

Deterministic: one thread, fixed seeds. Training takes about a minute on one core.
"""

import os
import sys

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from ctattn_export import safetensors_bytes, safetensors_layout  # noqa: E402
LENGTH, DIGITS, WIDTH, HEADS, HIDDEN, LAYERS = 6, 10, 32, 4, 64, 2

torch.set_num_threads(1)


class Sorter(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(DIGITS, WIDTH)
        self.pos = nn.Embedding(LENGTH, WIDTH)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(WIDTH, HEADS, HIDDEN, dropout=0.0, activation="gelu", batch_first=True,
                                       norm_first=True)
            for _ in range(LAYERS))
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, DIGITS)

    def forward(self, ids):
        x = self.embed(ids) + self.pos(torch.arange(ids.shape[1]))
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


SEPARATOR = DIGITS  # token 10
CAUSAL_LENGTH = 2 * LENGTH + 1


class CausalSorter(nn.Module):
    """Decoder-only: embed + positions -> 2 causal pre-norm encoder layers -> LayerNorm -> Linear(32, 11)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(DIGITS + 1, WIDTH)
        self.pos = nn.Embedding(CAUSAL_LENGTH, WIDTH)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(WIDTH, HEADS, HIDDEN, dropout=0.0, activation="gelu", batch_first=True,
                                       norm_first=True)
            for _ in range(LAYERS))
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, DIGITS + 1)

    def forward(self, ids):
        n = ids.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(n)
        x = self.embed(ids) + self.pos(torch.arange(n))
        for layer in self.layers:
            x = layer(x, src_mask=mask)
        return self.head(self.norm(x))


def causal_batch(gen, size):
    ids, target = batch(gen, size)
    sequence = torch.cat([ids, torch.full((size, 1), SEPARATOR), target], dim=1)
    return sequence, target


def greedy(model, prompt):
    """The sorted digits by greedy decoding (full recomputation at each step)."""
    sequence = torch.cat([prompt, torch.full((prompt.shape[0], 1), SEPARATOR)], dim=1)
    with torch.no_grad():
        for _ in range(LENGTH):
            next_token = model(sequence)[:, -1, :DIGITS].argmax(-1, keepdim=True)
            sequence = torch.cat([sequence, next_token], dim=1)
    return sequence[:, LENGTH + 1:]


def batch(gen, size):
    ids = torch.randint(0, DIGITS, (size, LENGTH), generator=gen)
    return ids, torch.sort(ids, dim=1).values


def accuracy(model, gen, size):
    ids, target = batch(gen, size)
    with torch.no_grad():
        predicted = model(ids).argmax(-1)
    return (predicted == target).all(dim=1).float().mean().item(), (predicted == target).float().mean().item()


def write_safetensors(path, state):
    """The state_dict as F32, by the repository's one safetensors writer (tools/ctattn_export.py)."""
    tensors = [(name, "F32", t.shape, t.detach().contiguous().numpy().astype("<f4").tobytes())
               for name, t in state.items()]
    header, data = safetensors_layout(tensors, {"format": "pt", "source": "examples/verified_model/train_sorter.py"})
    with open(path, "wb") as f:
        f.write(safetensors_bytes(header, data))


def literal(x):
    v = np.float32(x)
    text = "%.9g" % float(v)
    if "." not in text and "e" not in text:
        text += ".0"
    assert np.float32(float(text)) == v
    return text + "f"


def write_golden(name, head, inputs_name, golden, logits, split):
    """<name>.hpp: the `head` lines, then the golden inputs and PyTorch's logits for them (each row of logits
    over two lines, `split` values on the first), in namespace `name`."""
    lines = list(head)
    lines.append("inline constexpr std::array<std::array<int, %d>, %d> %s{{" % (LENGTH, len(golden), inputs_name))
    for row in golden.tolist():
        lines.append("    {%s}," % ", ".join(str(v) for v in row))
    lines.append("}};")
    lines.append("inline constexpr float logits[%d][%d][%d] = {" % tuple(logits.shape))
    for sample in logits:
        lines.append("    {")
        for row in sample:
            values = [literal(v) for v in row]
            lines.append("        {%s," % ", ".join(values[:split]))
            lines.append("         %s}," % ", ".join(values[split:]))
        lines.append("    },")
    lines.append("};")
    lines += ["", "}  // namespace %s" % name, ""]
    with open(os.path.join(HERE, name + ".hpp"), "w") as f:
        f.write("\n".join(lines))


def train_sorter():
    torch.manual_seed(2026)
    model = Sorter()
    gen = torch.Generator().manual_seed(7)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    steps = 4000
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, total_steps=steps)
    for step in range(steps):
        ids, target = batch(gen, 256)
        loss = nn.functional.cross_entropy(model(ids).reshape(-1, DIGITS), target.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 500 == 0 or step == steps - 1:
            print("step %4d  loss %.4f" % (step, loss.item()))
    model.eval()
    sequences, positions = accuracy(model, torch.Generator().manual_seed(99), 10000)
    print("test: %.2f%% of 10000 sequences sorted exactly, %.3f%% of positions" % (100 * sequences, 100 * positions))

    write_safetensors(os.path.join(HERE, "sorter.safetensors"), model.state_dict())

    golden = torch.tensor([[3, 1, 4, 1, 5, 9], [9, 8, 7, 6, 5, 4], [0, 0, 7, 0, 0, 2], [2, 6, 5, 3, 5, 8]])
    with torch.no_grad():
        logits = model(golden)
    assert (logits.argmax(-1) == torch.sort(golden, dim=1).values).all(), "a golden input is not sorted"
    lines = ["// golden.hpp: golden inputs of the verified model and PyTorch's float32 logits for them.",
             "// GENERATED by examples/verified_model/train_sorter.py (torch %s); do not edit." % torch.__version__,
             "#pragma once", "", "#include <array>", "#include <cstddef>", "", "namespace golden {", "",
             "inline constexpr std::size_t count = %d;" % len(golden),
             "// Test set: 10000 random sequences, sorted exactly by the float32 model in PyTorch.",
             "inline constexpr double test_sequences_sorted = %.6f;" % sequences,
             "inline constexpr double test_positions_right = %.6f;" % positions]
    write_golden("golden", lines, "inputs", golden, logits, 5)


def train_causal():
    torch.manual_seed(2027)
    model = CausalSorter()
    gen = torch.Generator().manual_seed(8)
    steps = 6000
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, total_steps=steps)
    for step in range(steps):
        sequence, target = causal_batch(gen, 256)
        logits = model(sequence[:, :-1])[:, LENGTH:]  # the predictions after the separator
        loss = nn.functional.cross_entropy(logits.reshape(-1, DIGITS + 1), target.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 500 == 0 or step == steps - 1:
            print("causal step %4d  loss %.4f" % (step, loss.item()))
    model.eval()
    test_ids, test_target = batch(torch.Generator().manual_seed(99), 2000)
    decoded = greedy(model, test_ids)
    sequences = (decoded == test_target).all(dim=1).float().mean().item()
    print("causal test: %.2f%% of 2000 sequences sorted exactly by greedy decoding" % (100 * sequences))
    write_safetensors(os.path.join(HERE, "causal_sorter.safetensors"), model.state_dict())

    golden = torch.tensor([[3, 1, 4, 1, 5, 9], [9, 8, 7, 6, 5, 4]])
    decoded = greedy(model, golden)
    assert (decoded == torch.sort(golden, dim=1).values).all(), "a golden input is not sorted"
    full = torch.cat([golden, torch.full((len(golden), 1), SEPARATOR), decoded], dim=1)
    with torch.no_grad():
        logits = model(full[:, :-1])
    lines = ["// causal_golden.hpp: golden prompts of the causal sorter and PyTorch's float32 logits over each whole",
             "// sequence (prompt, separator, the sorted digits but the last), one row per position.",
             "// GENERATED by examples/verified_model/train_sorter.py (torch %s); do not edit." % torch.__version__,
             "#pragma once", "", "#include <array>", "#include <cstddef>", "", "namespace causal_golden {", "",
             "inline constexpr std::size_t count = %d;" % len(golden),
             "// Test set: 2000 random sequences, sorted exactly by greedy decoding of the float32 model in PyTorch.",
             "inline constexpr double test_sequences_sorted = %.6f;" % sequences]
    write_golden("causal_golden", lines, "prompts", golden, logits, 6)


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if which in ("sorter", "all"):
        train_sorter()
    if which in ("causal", "all"):
        train_causal()

#!/usr/bin/python3
"""The verified sorter (train_sorter.py) in int8: calibrate it, compute its int8 outputs from the definitions of
ctattn's int8 tier with exact integers, measure what quantizing costs, and write int8_golden.hpp for the C++ side.

Run from the repository root with Debian 12's interpreter (apt-get install -y python3-torch python3-numpy):

    /usr/bin/python3 examples/verified_model/quantize_sorter.py

1. Calibration is ctattn's: record_sorter_ranges.cpp runs the float model over 512 sequences and
   ctattn::record_ranges writes the range of every activation, by name, into sorter_ranges.hpp. This script reads
   that header; each range gives its quantization (range_quantization: the range widened to contain 0, scale
   (hi - lo) / 255), the token and position tables theirs (`embed.weight`, `pos.weight`).
2. The int8 model, as ctattn computes it (include/ctattn/quantized/): embedding rows looked up in int8 tables and
   summed by the int8 ADD; per layer (pre-norm): the integer LayerNorm, the per-channel Q, K, V projections, four
   heads of int8 attention (scores, the table softmax, weights times V) requantized into W_O's input, W_O, the int8
   ADD of the residual, the integer LayerNorm, the first linear, GELU by a 256-entry table, the second linear, the
   residual ADD; the final integer LayerNorm and the per-channel head. The definitions are those of
   tests/fixtures/quantized/generate_quantized_fixtures.py's docstring; here they are vectorized with numpy over a
   batch (int64 arithmetic throughout, every intermediate asserted within its bound), and checked against that
   script's element-by-element functions on the golden inputs before anything is written.
3. The cost of quantizing, on train_sorter.py's test set (10,000 sequences, seed 99): the share sorted exactly by the
   float32 model (PyTorch) and by the int8 model, the share of answers that agree, and the largest difference between
   the dequantized int8 logits and the float logits.

It writes int8_golden.hpp beside this script: the int8 logits of the golden inputs and of 64 more test sequences,
and the figures. Deterministic. Regenerate it whenever sorter_ranges.hpp changes.
"""

import json
import math
import os
import re
import struct
import sys
from fractions import Fraction

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "quantized"))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "math"))
import train_sorter as ts  # noqa: E402
import generate_quantized_fixtures as ref  # noqa: E402
import generate_fixed_point_reference as fp  # noqa: E402

torch.set_num_threads(1)
LENGTH, DIGITS, WIDTH, HEADS, HIDDEN, LAYERS = ts.LENGTH, ts.DIGITS, ts.WIDTH, ts.HEADS, ts.HIDDEN, ts.LAYERS
HEAD = WIDTH // HEADS
GOLDEN = [[3, 1, 4, 1, 5, 9], [9, 8, 7, 6, 5, 4], [0, 0, 7, 0, 0, 2], [2, 6, 5, 3, 5, 8]]
CHECKED = 64  # test sequences whose int8 logits the C++ run-time check compares


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + size])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = data[8 + size + begin:8 + size + end]
        tensors[name] = np.frombuffer(raw, dtype="<f4").reshape(entry["shape"]).astype(np.float32)
    return tensors


# ------------------------------------------------------------------------------------------------------------------
# The float model in float64 (from the float32 weights), keeping every activation for calibration

def float_forward(p, ids):
    """ids: (B, 6) ints. Returns the logits and a dict of every activation (float64 arrays)."""
    acts = {}
    x = p["embed.weight"].astype(np.float64)[ids] + p["pos.weight"].astype(np.float64)[None, :ids.shape[1]]
    acts["embedded"] = x
    for l in range(LAYERS):
        g = lambda name: p["layers.%d.%s" % (l, name)].astype(np.float64)  # noqa: E731
        n1 = layer_norm(x, g("norm1.weight"), g("norm1.bias"))
        w, b = g("self_attn.in_proj_weight"), g("self_attn.in_proj_bias")
        q, k, v = (n1 @ w[i * WIDTH:(i + 1) * WIDTH].T + b[i * WIDTH:(i + 1) * WIDTH] for i in range(3))
        heads, scores = [], []
        for h in range(HEADS):
            cols = slice(h * HEAD, (h + 1) * HEAD)
            s = q[:, :, cols] @ k[:, :, cols].transpose(0, 2, 1) / math.sqrt(HEAD)
            scores.append(s)
            e = np.exp(s - s.max(axis=-1, keepdims=True))
            heads.append((e / e.sum(axis=-1, keepdims=True)) @ v[:, :, cols])
        context = np.concatenate(heads, axis=-1)
        attention = context @ g("self_attn.out_proj.weight").T + g("self_attn.out_proj.bias")
        h1 = x + attention
        n2 = layer_norm(h1, g("norm2.weight"), g("norm2.bias"))
        hidden = n2 @ g("linear1.weight").T + g("linear1.bias")
        activated = 0.5 * hidden * (1.0 + np.vectorize(math.erf)(hidden / math.sqrt(2.0)))
        ff = activated @ g("linear2.weight").T + g("linear2.bias")
        y = h1 + ff
        for name, value in (("norm1", n1), ("query", q), ("key", k), ("value", v), ("scores", np.stack(scores)),
                            ("context", context), ("attention", attention), ("sum1", h1), ("norm2", n2),
                            ("hidden", hidden), ("activation", activated), ("feed_forward", ff), ("output", y)):
            acts["layers.%d.%s" % (l, name)] = value
        x = y
    normed = layer_norm(x, p["norm.weight"].astype(np.float64), p["norm.bias"].astype(np.float64))
    logits = normed @ p["head.weight"].astype(np.float64).T + p["head.bias"].astype(np.float64)
    acts["norm"], acts["logits"] = normed, logits
    return logits, acts


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


# ------------------------------------------------------------------------------------------------------------------
# The int8 arithmetic, vectorized (int64 numpy arrays); each function matches the element-by-element definition of
# generate_quantized_fixtures.py (checked in main())

def mbqm(x, multiplier, shift):
    """multiply_by_quantized_multiplier of int64 array x by (multiplier, shift), each scalar or per last axis."""
    x = np.asarray(x, dtype=np.int64)
    multiplier = np.asarray(multiplier, dtype=np.int64)
    shift = np.asarray(shift, dtype=np.int64)
    assert np.all(np.abs(x) < 2 ** 31)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    scaled = x << left
    assert np.all(np.abs(scaled) < 2 ** 31)
    high = (scaled * multiplier + (1 << 30)) >> 31  # floor((a b + 2^30) / 2^31): TFLite's nudge and truncation
    mask = (np.int64(1) << right) - 1
    remainder = high & mask
    threshold = (mask >> 1) + (high < 0)
    return (high >> right) + (remainder > threshold)


def requantize(acc, multiplier, shift, zero):
    v = mbqm(acc, multiplier, shift)
    return np.clip(np.clip(v, -256, 256) + zero, -128, 127)


def quantize(x, q):
    return ref.quantize(np.asarray(x, dtype=np.float32), *q)


def linear(x_q, q_in, layer, q_out):
    """TFLite's per-channel fully-connected (ref.int8_linear), vectorized."""
    scales, w_q, bias_q = layer
    acc = (x_q.astype(np.int64) - q_in[1]) @ np.asarray(w_q, dtype=np.int64).T + np.asarray(bias_q, dtype=np.int64)
    m = [fp.quantize_multiplier(q_in[0] * s / q_out[0]) for s in scales]
    return requantize(acc, [a for a, _ in m], [b for _, b in m], q_out[1])


def add(a_q, qa, b_q, qb, qo):
    """TFLite's int8 ADD (the fixture script's `sum` case), vectorized."""
    twice = 2.0 * max(qa[0], qb[0])
    ma = fp.quantize_multiplier(qa[0] / twice)
    mb = fp.quantize_multiplier(qb[0] / twice)
    mo = fp.quantize_multiplier(twice / (float(1 << 20) * qo[0]))
    total = (mbqm((a_q.astype(np.int64) - qa[1]) << 20, *ma) + mbqm((b_q.astype(np.int64) - qb[1]) << 20, *mb))
    return requantize(total, *mo, qo[1])


def attention(q_q, qq, k_q, qk, v_q, qv, q_scores, q_out):
    """One head of int8 attention (ref.int8_attention) over a batch, every key visible."""
    d_k = q_q.shape[-1]
    m_scores = fp.quantize_multiplier((qq[0] * qk[0]) / (math.sqrt(float(d_k)) * q_scores[0]))
    m_out = fp.quantize_multiplier(((1.0 / 256.0) * qv[0]) / q_out[0])
    table = np.array([fp.round_away(Fraction(math.exp(-q_scores[0] * d)) * 2 ** 20) for d in range(256)],
                     dtype=np.int64)
    acc = (q_q.astype(np.int64) - qq[1]) @ (k_q.astype(np.int64) - qk[1]).transpose(0, 2, 1)
    scores = requantize(acc, *m_scores, q_scores[1])
    terms = table[scores.max(axis=-1, keepdims=True) - scores]
    total = terms.sum(axis=-1, keepdims=True)
    weights = np.minimum(127, (512 * terms + total) // (2 * total) - 128)
    acc = (weights + 128) @ (v_q.astype(np.int64) - qv[1])
    return requantize(acc, *m_out, q_out[1])


def layer_norm_q(x_q, constants, q_out):
    """The integer LayerNorm (ref.normalize), vectorized over rows; the square root per row with math.isqrt."""
    multipliers, shifts, biases, epsilon, f = constants
    shape = x_q.shape
    rows = x_q.reshape(-1, shape[-1]).astype(np.int64)
    width = rows.shape[1]
    s1 = rows.sum(axis=1)
    s2 = (rows * rows).sum(axis=1)
    d = width * s2 - s1 * s1
    inverse = np.zeros(len(rows), dtype=np.int64)
    down = np.full(len(rows), 37, dtype=np.int64)
    for r in range(len(rows)):
        if d[r] != 0:
            v = (int(d[r]) << f) + epsilon
            k = (62 - v.bit_length()) // 2
            root = math.isqrt(v << (2 * k))
            inverse[r] = (2 ** 61 + root // 2) // root
            down[r] = 37 - k - f // 2
    deviation = width * rows - s1[:, None]
    product = deviation * inverse[:, None]
    assert np.all(np.abs(product) < 2 ** 53)
    n = shift_round(product, down[:, None])
    t = n * np.asarray(multipliers, dtype=np.int64)
    a = shift_round(t, np.asarray(shifts, dtype=np.int64)) + np.asarray(biases, dtype=np.int64)
    out = np.clip(shift_round(a, 16) + q_out[1], -128, 127)
    return out.reshape(shape)


def shift_round(x, s):
    """round(x / 2^s), ties away from zero."""
    half = np.int64(1) << (s - 1)
    return np.where(x >= 0, (x + half) >> s, -((-x + half) >> s))


# ------------------------------------------------------------------------------------------------------------------
# The int8 model

class Int8Sorter:
    def __init__(self, p, ranges):
        self.q = {name: ref.range_quantization(lo, hi) for name, (lo, hi) in ranges.items()}
        q = self.q
        self.token = quantize(p["embed.weight"], q["token_table"])
        self.position = quantize(p["pos.weight"], q["position_table"])
        self.layers = []
        for l in range(LAYERS):
            g = lambda name: p["layers.%d.%s" % (l, name)]  # noqa: E731
            name = lambda n: "layers.%d.%s" % (l, n)  # noqa: E731
            inp = q["embedded"] if l == 0 else q["layers.%d.output" % (l - 1)]
            w, b = g("self_attn.in_proj_weight"), g("self_attn.in_proj_bias")
            layer = {
                "input": inp,
                "norm1": ref.quantize_layer_norm(g("norm1.weight"), g("norm1.bias"), 1e-5, WIDTH, inp,
                                                 q[name("norm1")]),
                "proj": [ref.per_channel(w[i * WIDTH:(i + 1) * WIDTH], b[i * WIDTH:(i + 1) * WIDTH], q[name("norm1")])
                         for i in range(3)],
                "out": ref.per_channel(g("self_attn.out_proj.weight"), g("self_attn.out_proj.bias"),
                                       q[name("context")]),
                "norm2": ref.quantize_layer_norm(g("norm2.weight"), g("norm2.bias"), 1e-5, WIDTH, q[name("sum1")],
                                                 q[name("norm2")]),
                "linear1": ref.per_channel(g("linear1.weight"), g("linear1.bias"), q[name("norm2")]),
                "gelu": np.array(ref.activation_table(ref.ACTIVATIONS["gelu"][0], q[name("hidden")],
                                                      q[name("activation")], False), dtype=np.int64),
                "linear2": ref.per_channel(g("linear2.weight"), g("linear2.bias"), q[name("activation")]),
            }
            layer.update({k: q[name(k)] for k in ("norm1", "query", "key", "value", "scores", "context", "attention",
                                                   "sum1", "norm2", "hidden", "activation", "feed_forward",
                                                   "output")} | {"norm1_c": layer["norm1"], "norm2_c": layer["norm2"]})
            self.layers.append(layer)
        last = q["layers.%d.output" % (LAYERS - 1)]
        self.norm = ref.quantize_layer_norm(p["norm.weight"], p["norm.bias"], 1e-5, WIDTH, last, q["norm"])
        self.head = ref.per_channel(p["head.weight"], p["head.bias"], q["norm"])

    def forward(self, ids, keep=None):
        q = self.q
        ids = np.asarray(ids)
        x = add(self.token[ids], q["token_table"], np.broadcast_to(self.position[None], ids.shape + (WIDTH,)),
                q["position_table"], q["embedded"])
        if keep is not None:
            keep["embedded"] = x
        for l, L in enumerate(self.layers):
            n1 = layer_norm_q(x, L["norm1_c"], L["norm1"])
            qkv = [linear(n1, L["norm1"], L["proj"][i], L[("query", "key", "value")[i]]) for i in range(3)]
            context = np.zeros(x.shape, dtype=np.int64)
            for h in range(HEADS):
                cols = slice(h * HEAD, (h + 1) * HEAD)
                context[..., cols] = attention(qkv[0][..., cols], L["query"], qkv[1][..., cols], L["key"],
                                               qkv[2][..., cols], L["value"], L["scores"], L["context"])
            a = linear(context, L["context"], L["out"], L["attention"])
            h1 = add(x, L["input"], a, L["attention"], L["sum1"])
            n2 = layer_norm_q(h1, L["norm2_c"], L["norm2"])
            hidden = linear(n2, L["norm2"], L["linear1"], L["hidden"])
            activated = L["gelu"][hidden + 128]
            ff = linear(activated, L["activation"], L["linear2"], L["feed_forward"])
            x = add(h1, L["sum1"], ff, L["feed_forward"], L["output"])
            if keep is not None:
                keep.update({"layers.%d.%s" % (l, k): v for k, v in (("norm1", n1), ("query", qkv[0]),
                                                                     ("context", context), ("attention", a),
                                                                     ("sum1", h1), ("norm2", n2),
                                                                     ("hidden", hidden), ("activation", activated),
                                                                     ("output", x))})
        normed = layer_norm_q(x, self.norm, q["norm"])
        return linear(normed, q["norm"], self.head, q["logits"])


def check_against_reference(model, ids):
    """The vectorized functions against generate_quantized_fixtures.py's element-by-element ones, on one sequence."""
    keep = {}
    model.forward(np.array([ids]), keep)
    q = model.q
    x = keep["embedded"][0]
    L = model.layers[0]
    assert (ref.normalize(x, L["norm1_c"], L["norm1"]) == keep["layers.0.norm1"][0]).all()
    n1 = keep["layers.0.norm1"][0]
    assert (ref.int8_linear(n1, L["norm1"], *L["proj"][0], L["query"]) == keep["layers.0.query"][0]).all()
    h1 = keep["layers.0.sum1"][0]
    n2 = keep["layers.0.norm2"][0]
    assert (ref.normalize(h1, L["norm2_c"], L["norm2"]) == n2).all()
    assert (ref.int8_linear(n2, L["norm2"], *L["linear1"], L["hidden"]) == keep["layers.0.hidden"][0]).all()
    # One head's attention with the fixture script's function (every key visible).
    cols = slice(0, HEAD)
    qkv = [linear(n1[None], L["norm1"], L["proj"][i], L[("query", "key", "value")[i]])[0] for i in range(3)]
    one = ref.int8_attention(qkv[0][:, cols], L["query"], qkv[1][:, cols], L["key"], qkv[2][:, cols], L["value"],
                             L["scores"], L["context"], np.ones((LENGTH, LENGTH), dtype=bool))
    assert (one == keep["layers.0.context"][0][:, cols]).all()
    del q


def read_ranges(path):
    """The named ranges of a header written by ctattn::host::write_ranges_header (hexadecimal bounds, exact)."""
    entry = re.compile(r'^\s*\{"([^"]+)", \{(\S+), (\S+)\}\},$')
    ranges = {}
    with open(path) as f:
        for line in f:
            m = entry.match(line)
            if m:
                ranges[m.group(1)] = (float.fromhex(m.group(2)), float.fromhex(m.group(3)))
    assert ranges, "no ranges in " + path
    return ranges


def calibrated_ranges():
    """sorter_ranges.hpp under the names the int8 model below uses."""
    r = read_ranges(os.path.join(HERE, "sorter_ranges.hpp"))
    ranges = {"token_table": r["embed.weight"], "position_table": r["pos.weight"], "embedded": r["pos"],
              "norm": r["norm"], "logits": r["head"]}
    for l in range(LAYERS):
        for point in ("norm1", "query", "key", "value", "scores", "context", "attention", "sum1", "norm2", "hidden",
                      "activation", "feed_forward"):
            ranges["layers.%d.%s" % (l, point)] = r["layers.%d.%s" % (l, point)]
        ranges["layers.%d.output" % l] = r["layers.%d" % l]
    return ranges


def calibration_sequences():
    """record_sorter_ranges.cpp's 512 sequences: its linear congruential generator, seed 123."""
    state, rows = 123, []
    for _ in range(512):
        row = []
        for _ in range(LENGTH):
            state = (state * 1664525 + 1013904223) % 2 ** 32
            row.append((state >> 16) % DIGITS)
        rows.append(row)
    return np.array(rows)


def check_recorded_ranges(p, ranges):
    """ctattn's recorded ranges against the float model evaluated here in float64 over the same sequences: every
    bound within float32's error of the computation."""
    _, acts = float_forward(p, calibration_sequences())
    acts["token_table"], acts["position_table"] = p["embed.weight"], p["pos.weight"]
    for name, value in acts.items():
        lo, hi = ranges[name]
        for mine, theirs in ((lo, float(value.min())), (hi, float(value.max()))):
            assert abs(mine - theirs) <= 2e-5 * (1 + abs(theirs)), "range %s: %r against %r" % (name, mine, theirs)


def main():
    p = read_safetensors(os.path.join(HERE, "sorter.safetensors"))
    ranges = calibrated_ranges()
    check_recorded_ranges(p, ranges)
    model = Int8Sorter(p, ranges)
    check_against_reference(model, GOLDEN[0])

    # The test set of train_sorter.py, and the float32 model in PyTorch for the float figures.
    test_ids, target = ts.batch(torch.Generator().manual_seed(99), 10000)
    float_model = ts.Sorter()
    float_model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in p.items()})
    float_model.eval()
    with torch.no_grad():
        float_logits = float_model(test_ids).double().numpy()
    float_answers = float_logits.argmax(-1)
    int8_logits = np.concatenate([model.forward(test_ids[i:i + 1000].numpy()) for i in range(0, 10000, 1000)])
    int8_answers = int8_logits.argmax(-1)  # the first of equal int8 logits, as ctattn's answer takes it
    target = target.numpy()
    q_logits = model.q["logits"]
    dequantized = q_logits[0] * (int8_logits - q_logits[1])
    figures = {
        "float_sequences_sorted": float((float_answers == target).all(axis=1).mean()),
        "int8_sequences_sorted": float((int8_answers == target).all(axis=1).mean()),
        "int8_positions_right": float((int8_answers == target).mean()),
        "answers_agree": float((int8_answers == float_answers).all(axis=1).mean()),
        "largest_logit_difference": float(np.abs(dequantized - float_logits).max()),
        "logit_step": q_logits[0],
    }
    golden = model.forward(np.array(GOLDEN))
    for g, ids in enumerate(GOLDEN):
        assert (golden[g].argmax(-1) == sorted(ids)).all(), "the int8 model does not sort golden input %d" % g
    for name, value in figures.items():
        print("%-26s %.6f" % (name, value))
    write_header(golden, test_ids[:CHECKED].numpy(), int8_logits[:CHECKED], figures)


def write_header(golden, checked_ids, checked_logits, figures):
    lines = ["// int8_golden.hpp: the verified sorter in int8, quantized with the ranges of sorter_ranges.hpp. The int8",
             "// logits of the golden inputs and of the first %d sequences of the test set, computed from the" % CHECKED,
             "// definitions with exact integers, and the cost of quantizing on the test set.",
             "// GENERATED by examples/verified_model/quantize_sorter.py (torch %s); do not edit." % torch.__version__,
             "#pragma once", "", "#include <array>", "#include <cstddef>", "#include <cstdint>", "",
             "namespace int8_golden {"]
    lines += ["", "// Test set: 10000 sequences (train_sorter.py's), sorted exactly by the float32 model in PyTorch and",
              "// by the int8 model; answers of both that agree; the largest |dequantized int8 logit - float logit|."]
    for name, value in figures.items():
        lines.append("inline constexpr double %s = %s;" % (name, repr(value)))
    lines += ["", "inline constexpr std::size_t checked = %d;" % CHECKED,
              "inline constexpr std::array<std::array<int, 6>, %d> checked_inputs{{" % CHECKED]
    for row in checked_ids.tolist():
        lines.append("    {%s}," % ", ".join(str(v) for v in row))
    lines.append("}};")
    for name, values in (("golden_logits", golden), ("checked_logits", checked_logits)):
        lines.append("inline constexpr std::int8_t %s[%d][6][10] = {" % (name, len(values)))
        for sample in values.tolist():
            lines.append("    {")
            lines += ["        {%s}," % ", ".join(str(v) for v in row) for row in sample]
            lines.append("    },")
        lines.append("};")
    lines += ["", "}  // namespace int8_golden", ""]
    with open(os.path.join(HERE, "int8_golden.hpp"), "w") as f:
        f.write("\n".join(lines))
    print("wrote examples/verified_model/int8_golden.hpp")


if __name__ == "__main__":
    main()

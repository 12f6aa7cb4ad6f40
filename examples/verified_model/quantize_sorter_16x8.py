#!/usr/bin/python3
"""The verified sorter (train_sorter.py) in 16x8: int16 activations, int8 weights, as ctattn::quantize makes it with
`quantize_options{.activations = activation_format::int16}`, computed from the definitions of ctattn's int16 tier
with Python's exact integers; and what it gains over the int8 sorter. Writes int16_golden.hpp for the C++ side.

Run from the repository root with Debian 12's interpreter (apt-get install -y python3-torch python3-numpy):

    /usr/bin/python3 examples/verified_model/quantize_sorter_16x8.py

1. The ranges are ctattn's (sorter_ranges.hpp, as quantize_sorter.py reads them); in 16x8 each gives the symmetric
   int16 quantization of TFLite's 16x8 mode, scale max(|lo|, |hi|) / 32767 (in double), zero point 0.
2. The 16x8 model, as ctattn computes it: the token and position tables in int16 and their sum by TFLite's int16
   ADD; per layer (pre-norm): the int16 LayerNorm, the 16x8 Q, K, V projections (int8 weights per channel, int64
   biases), four heads of 16x8 attention (the scores' BATCH_MATMUL with 1/sqrt(d_k) in its multiplier, TFLite's int16
   softmax, the context's BATCH_MATMUL), W_O, the int16 ADD, the int16 LayerNorm, the first linear, GELU by the
   513-entry int16 table, the second linear, the int16 ADD; the final int16 LayerNorm and the 16x8 head. Each
   operation is the element-by-element definition of tests/fixtures/quantized/generate_int16_fixtures.py (and, for
   LayerNorm, generate_quantized_fixtures.py's with the int16 limits).
3. The error of each model on the golden inputs: the largest |dequantized logit - float64 logit|, the float64 model
   quantize_sorter.py's, and the int8 model quantize_sorter.py's, on the same inputs.

It writes int16_golden.hpp beside this script: the int16 logits of the golden inputs and the errors. Deterministic.
Regenerate it whenever sorter_ranges.hpp changes.
"""

import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "quantized"))
import quantize_sorter as qs  # noqa: E402  (the weights, the ranges, the float64 and int8 models)
import generate_int16_fixtures as g16  # noqa: E402  (the int16 tier's definitions)
import generate_quantized_fixtures as gq  # noqa: E402  (the LayerNorm's steps and limits, GELU)

WIDTH, HEADS, HEAD, LAYERS, HIDDEN = qs.WIDTH, qs.HEADS, qs.HEAD, qs.LAYERS, qs.HIDDEN


def scale(range_):
    lo, hi = range_
    largest = max(-lo, hi)
    return largest / 32767.0 if largest > 0 else 1.0


class Int16Sorter:
    def __init__(self, p, ranges):
        self.p = p
        self.s = {name: scale(r) for name, r in ranges.items()}
        self.token = g16.quantize16(p["embed.weight"], self.s["token_table"])
        self.position = g16.quantize16(p["pos.weight"], self.s["position_table"])
        self.gelu = {}
        for l in range(LAYERS):
            n = "layers.%d." % l
            self.gelu[l] = g16.activation16_table(gq.ACTIVATIONS["gelu"][0], self.s[n + "hidden"],
                                                  self.s[n + "activation"], False)

    def norm(self, x_q, s_in, name, s_out):
        constants = gq.quantize_layer_norm(self.p[name + ".weight"], self.p[name + ".bias"], np.float32(1e-5), WIDTH,
                                           (s_in, 0), (s_out, 0), **gq.INT16_NORM)
        return gq.normalize(x_q, constants, (s_out, 0), form=gq.INT16_NORM)

    def linear(self, x_q, s_in, weight, bias, s_out):
        return g16.linear16(x_q, s_in, weight, bias, s_out)[0]

    def forward(self, ids):
        s, p = self.s, self.p
        x = g16.add16(self.token[ids], s["token_table"], self.position[:len(ids)], s["position_table"],
                      s["embedded"])
        s_x = s["embedded"]
        for l in range(LAYERS):
            n = "layers.%d." % l
            n1 = self.norm(x, s_x, n + "norm1", s[n + "norm1"])
            w, b = p[n + "self_attn.in_proj_weight"], p[n + "self_attn.in_proj_bias"]
            qkv = [self.linear(n1, s[n + "norm1"], w[i * WIDTH:(i + 1) * WIDTH], b[i * WIDTH:(i + 1) * WIDTH],
                               s[n + ("query", "key", "value")[i]]) for i in range(3)]
            context = np.zeros(x.shape, dtype=np.int64)
            for h in range(HEADS):
                cols = slice(h * HEAD, (h + 1) * HEAD)
                context[:, cols] = g16.attention16(qkv[0][:, cols], s[n + "query"], qkv[1][:, cols], s[n + "key"],
                                                   qkv[2][:, cols], s[n + "value"], s[n + "scores"],
                                                   s[n + "context"], lambda i, j: True)
            a = self.linear(context, s[n + "context"], p[n + "self_attn.out_proj.weight"],
                            p[n + "self_attn.out_proj.bias"], s[n + "attention"])
            h1 = g16.add16(x, s_x, a, s[n + "attention"], s[n + "sum1"])
            n2 = self.norm(h1, s[n + "sum1"], n + "norm2", s[n + "norm2"])
            hidden = self.linear(n2, s[n + "norm2"], p[n + "linear1.weight"], p[n + "linear1.bias"], s[n + "hidden"])
            act = np.array([[g16.lookup_wide(int(v), self.gelu[l]) for v in row] for row in hidden], dtype=np.int64)
            ff = self.linear(act, s[n + "activation"], p[n + "linear2.weight"], p[n + "linear2.bias"],
                             s[n + "feed_forward"])
            x = g16.add16(h1, s[n + "sum1"], ff, s[n + "feed_forward"], s[n + "output"])
            s_x = s[n + "output"]
        normed = self.norm(x, s_x, "norm", s["norm"])
        return self.linear(normed, s["norm"], p["head.weight"], p["head.bias"], s["logits"])


def main():
    p = qs.read_safetensors(os.path.join(HERE, "sorter.safetensors"))
    ranges = qs.calibrated_ranges()
    qs.check_recorded_ranges(p, ranges)
    model16 = Int16Sorter(p, ranges)
    model8 = qs.Int8Sorter(p, ranges)
    golden_ids = np.array(qs.GOLDEN)
    float_logits, _ = qs.float_forward(p, golden_ids)
    logits8 = model8.forward(golden_ids)
    q8 = model8.q["logits"]
    logits16 = np.stack([model16.forward(list(ids)) for ids in qs.GOLDEN])
    s16 = model16.s["logits"]
    error8 = [float(np.abs(q8[0] * (logits8[g] - q8[1]) - float_logits[g]).max()) for g in range(len(qs.GOLDEN))]
    error16 = [float(np.abs(s16 * logits16[g] - float_logits[g]).max()) for g in range(len(qs.GOLDEN))]
    for g, ids in enumerate(qs.GOLDEN):
        assert (logits16[g].argmax(-1) == sorted(ids)).all(), "the 16x8 model does not sort golden input %d" % g
        print("golden %d: int8 error %.6f, 16x8 error %.6f (%.2f of int8's)" % (g, error8[g], error16[g],
                                                                             error16[g] / error8[g]))
    write_header(logits16, error8, error16)


def write_header(logits16, error8, error16):
    lines = ["// int16_golden.hpp: the verified sorter in 16x8 (int16 activations, int8 weights).",
             "// GENERATED by examples/verified_model/quantize_sorter_16x8.py (torch %s); do not edit." %
             torch.__version__,
             "// Quantized with the ranges of sorter_ranges.hpp: the int16 logits of the golden inputs, computed from",
             "// the definitions with exact integers, and each model's largest |dequantized logit - float64 logit|.",
             "#pragma once", "", "#include <cstdint>", "", "namespace int16_golden {", "",
             "// The largest |dequantized logit - float64 logit| of the int8 and of the 16x8 sorter, per golden input."]
    lines.append("inline constexpr double int8_error[%d] = {%s};" % (len(error8), ", ".join(repr(e) for e in error8)))
    lines.append("inline constexpr double int16_error[%d] = {%s};" % (len(error16),
                                                                      ", ".join(repr(e) for e in error16)))
    lines.append("inline constexpr std::int16_t golden_logits[%d][6][10] = {" % len(logits16))
    for sample in logits16.tolist():
        lines.append("    {")
        lines += ["        {%s}," % ", ".join(str(v) for v in row) for row in sample]
        lines.append("    },")
    lines += ["};", "", "}  // namespace int16_golden", ""]
    with open(os.path.join(HERE, "int16_golden.hpp"), "w") as f:
        f.write("\n".join(lines))
    print("wrote examples/verified_model/int16_golden.hpp")


if __name__ == "__main__":
    main()

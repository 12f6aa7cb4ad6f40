#!/usr/bin/python3
"""Writes the fuzzer's seed corpus, fuzz/corpus/safetensors/: small safetensors files, valid and not, laid out by the
repository's one writer (tools/ctattn_export.py's `safetensors_bytes`, the standard library alone) so that the fuzzer
starts from the format's shapes instead of random bytes.

    python3 fuzz/make_corpus.py        # rewrites fuzz/corpus/safetensors/seed_*

Each seed is written twice: as the file, and as "JSON header, 0 byte, data" (seed_*_split), the second form the
fuzz target reads (fuzz/safetensors_fuzz.cpp).

The fixtures of the C++ tests come from tests/fixtures/safetensors/make_fixtures.py; inputs that once crashed the
fuzzer are kept in the corpus as crash_* files and are never rewritten here.
"""
import pathlib
import struct
import sys

OUT = pathlib.Path(__file__).resolve().parent / "corpus" / "safetensors"
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
from ctattn_export import safetensors_bytes as safetensors  # noqa: E402


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    seeds = {}
    f32 = struct.pack("<4f", 1.0, -2.5, 0.0, 3.0e38)
    f64 = struct.pack("<2d", 1.0e300, -0.0)
    f16 = struct.pack("<4H", 0x3C00, 0x0001, 0x7C00, 0xFE00)
    bf16 = struct.pack("<2H", 0x3F80, 0x8001)
    data = f32 + f64 + f16 + bf16
    seeds["seed_valid_all_dtypes"] = safetensors(
        {
            "__metadata__": {"format": "pt", "note": "seed"},
            "w32": entry("F32", [2, 2], 0, 16),
            "w64": entry("F64", [2], 16, 32),
            "w16": entry("F16", [4], 32, 40),
            "wbf": entry("BF16", [1, 2], 40, 44),
        },
        data,
    )
    seeds["seed_valid_scalar_empty"] = safetensors(
        {"empty": entry("F32", [0, 3], 0, 0), "scalar": entry("F64", [], 0, 8), "ids": entry("I64", [1], 8, 16)},
        struct.pack("<d", 0.5) + struct.pack("<q", -7),
    )
    seeds["seed_valid_mx_dtypes"] = safetensors(
        {
            "scale": entry("F8_E8M0", [2], 0, 2),
            "f6": entry("F6_E2M3", [4], 2, 5),
            "f6b": entry("F6_E3M2", [4], 5, 8),
            "f4": entry("F4", [2, 3], 8, 11),
            "c": entry("C64", [1], 11, 19),
        },
        bytes(range(11)) + struct.pack("<2f", 1.0, -1.0),
    )
    seeds["seed_bad_packed_bits"] = safetensors({"f4": entry("F4", [3], 0, 2)}, b"\x12\x34")
    seeds["seed_valid_no_tensors"] = safetensors({}, b"")
    seeds["seed_valid_unpadded"] = safetensors({"x": entry("BF16", [1], 0, 2)}, b"\x80\x3f", pad=False)
    seeds["seed_bad_short"] = b"\x05\x00\x00"
    seeds["seed_bad_header_length"] = struct.pack("<Q", 1 << 40) + b"{}"
    seeds["seed_bad_json"] = safetensors('{"a": {"dtype": "F32",', b"")
    seeds["seed_bad_duplicate_key"] = safetensors(
        '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
        f32[:4],
    )
    seeds["seed_bad_overlap"] = safetensors({"a": entry("F32", [2], 0, 8), "b": entry("F32", [1], 4, 8)}, f32[:8])
    seeds["seed_bad_hole"] = safetensors({"a": entry("F32", [1], 0, 4), "b": entry("F32", [1], 8, 12)}, f32[:12])
    seeds["seed_bad_overflow"] = safetensors({"a": entry("F64", [2**62, 2**3], 0, 8)}, f64[:8])
    seeds["seed_bad_f64_beyond_float"] = safetensors({"a": entry("F64", [1], 0, 8)}, struct.pack("<d", 1e300))
    for name, content in seeds.items():
        (OUT / name).write_bytes(content)
        # The same as "header, 0 byte, data" (see fuzz/safetensors_fuzz.cpp), where the header can be mutated
        # without breaking the length in front of it.
        if len(content) >= 8:
            length = struct.unpack("<Q", content[:8])[0]
            if 8 + length <= len(content):
                (OUT / (name + "_split")).write_bytes(content[8 : 8 + length] + b"\0" + content[8 + length :])


if __name__ == "__main__":
    main()

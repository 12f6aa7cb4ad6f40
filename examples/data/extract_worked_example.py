#!/usr/bin/env python3
"""Writes examples/data/worked_example_weights.hpp: the inputs of the reference text's worked example.

The examples must build without tests/, so this script copies the few inputs they need (the sentence, its
vocabulary and token ids, the embedding table, W_query, W_key and W_value) out of the PyTorch fixture
tests/fixtures/attention/worked_example.hpp. The literals are copied character for character, so the example
sees exactly the float32 values torch produced. Nothing is computed here; the results (Q, K, V, scores,
weights, context) are left for ctattn to compute.

Run from the repository root, with any Python 3:
    python3 examples/data/extract_worked_example.py
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests/fixtures/attention/worked_example.hpp"
OUTPUT = ROOT / "examples/data/worked_example_weights.hpp"

# The definitions to copy, in order, with the comment to put above each one.
WANTED = [
    ("words", "The sentence's words in order (the comma dropped)."),
    ("vocabulary", "The vocabulary: the words sorted; a token id is a position in it."),
    ("token_ids", "The sentence as token ids: words[i] == vocabulary[token_ids[i]]."),
    ("embedding_table", "torch.nn.Embedding(6, 16).weight after torch.manual_seed(123): row t embeds token id t."),
    ("w_query", "W_query = torch.rand(24, 16), the first draw after torch.manual_seed(123); stored out x in."),
    ("w_key", "W_key = torch.rand(24, 16), the second draw; stored out x in."),
    ("w_value", "W_value = torch.rand(28, 16), the third draw; stored out x in."),
]


def definition(text: str, name: str) -> str:
    """The whole `inline constexpr ... name[...] = ...;` statement of the fixture."""
    match = re.search(r"^inline constexpr [^\n]*?\b" + re.escape(name) + r"\[[^\n]*?= .*?;\n", text,
                      re.MULTILINE | re.DOTALL)
    if match is None:
        sys.exit(f"extract_worked_example.py: {name} not found in {FIXTURE}")
    return match.group(0)


def main() -> None:
    text = FIXTURE.read_text(encoding="utf-8")
    parts = [
        "// worked_example_weights.hpp: the inputs of the reference text's worked example,\n",
        '// "Life is short, eat dessert first" (6 tokens embedded in 16 dimensions, d_q = d_k = 24, d_v = 28).\n',
        "//\n",
        "// GENERATED FILE, do not edit. Made by examples/data/extract_worked_example.py, which copies these\n",
        "// definitions verbatim from tests/fixtures/attention/worked_example.hpp (itself generated with Debian 12's\n",
        "// python3-torch by tests/fixtures/attention/generate_attention_fixtures.py), so that the examples build\n",
        "// without tests/. Every float literal converts back to exactly the float32 value torch produced.\n",
        "// Weights are in PyTorch's layout (out x in): q_i = W_query x_i, as in the reference text.\n",
        "\n",
        "#ifndef CTATTN_EXAMPLES_DATA_WORKED_EXAMPLE_WEIGHTS_HPP\n",
        "#define CTATTN_EXAMPLES_DATA_WORKED_EXAMPLE_WEIGHTS_HPP\n",
        "\n",
        "#include <cstddef>\n",
        "\n",
        "namespace worked_example_data {\n",
        "\n",
    ]
    for name, comment in WANTED:
        parts.append(f"// {comment}\n")
        parts.append(definition(text, name))
    parts += [
        "\n",
        "}  // namespace worked_example_data\n",
        "\n",
        "#endif  // CTATTN_EXAMPLES_DATA_WORKED_EXAMPLE_WEIGHTS_HPP\n",
    ]
    OUTPUT.write_text("".join(parts), encoding="utf-8")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Replaces a block of a document that a benchmark script writes, and nothing else in it.

    benchmarks/doc_blocks.py --write FILE --block NAME [--script SCRIPT] < TEXT

The block is everything between the lines `<!-- begin NAME ... -->` and `<!-- end NAME -->`; the begin line is
written again as `<!-- begin NAME: written by benchmarks/SCRIPT --write FILE; do not edit -->` (SCRIPT defaults to
NAME's first word). A document without the block, or one that cannot be read, is left as it was, and the command
says which (exit 1). benchmarks/speed_tables.py (docs/speed.md) and the firmware scripts that measure against
CMSIS-NN (docs/firmware.md) write their tables through it.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Optional


def replace_block(path: str, name: str, text: str, script: Optional[str] = None) -> Optional[str]:
    """FILE with the block `name` replaced by `text`, or None when its markers are missing."""
    with open(path, encoding="utf-8") as f:
        document = f.read()
    script = script or name.split()[0]
    begin = f"<!-- begin {name}: written by benchmarks/{script} --write {path}; do not edit -->"
    end = f"<!-- end {name} -->"
    pattern = re.compile(r"<!-- begin " + re.escape(name) + r"(:[^\n]*)? ?-->\n.*?" + re.escape(end), re.DOTALL)
    if not pattern.search(document):
        return None
    return pattern.sub(lambda _: f"{begin}\n{text.rstrip()}\n{end}", document, count=1)


def write_block(path: str, name: str, text: str, script: Optional[str] = None) -> int:
    """Writes the block into FILE; 0 when written, else 1 with the reason on stderr and FILE unchanged."""
    try:
        document = replace_block(path, name, text, script)
    except (OSError, UnicodeDecodeError) as e:
        print(f"cannot read {path}: {e}; nothing written", file=sys.stderr)
        return 1
    if document is None:
        print(f"{path} has no '<!-- begin {name} ... -->' ... '<!-- end {name} -->' block; nothing written",
              file=sys.stderr)
        return 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(document)
    print(f"{path}: the {name} block written")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", required=True, help="the document")
    parser.add_argument("--block", required=True, help="the block's name (`firmware_int8_kernels.sh kernels`)")
    parser.add_argument("--script", default=None, help="the script that writes it, as its begin line names it")
    args = parser.parse_args(argv)
    text = sys.stdin.read()
    if not text.strip():
        print(f"doc_blocks.py: no text for the {args.block} block; nothing written", file=sys.stderr)
        return 1
    return write_block(args.write, args.block, text, args.script)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

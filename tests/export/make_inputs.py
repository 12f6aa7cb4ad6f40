# SPDX-License-Identifier: BSL-1.0
"""Writes the inputs the export test of the verified sorter gives the tool (torch.save files, as a user's own
data would come): sorter_golden.pt, the four golden sequences of examples/verified_model/golden.hpp, and
sorter_calibration.pt, 512 random sequences of six digits.  Usage: make_inputs.py <directory>"""

import sys
from pathlib import Path

import torch

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
torch.save(torch.tensor([[3, 1, 4, 1, 5, 9], [9, 8, 7, 6, 5, 4], [0, 0, 7, 0, 0, 2], [2, 6, 5, 3, 5, 8]]),
           out / "sorter_golden.pt")
torch.save(torch.randint(0, 10, (512, 6), generator=torch.Generator().manual_seed(2026)),
           out / "sorter_calibration.pt")

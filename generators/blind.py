"""The generate-and-test baseline: a random solution, a random subset of k clues, verify, and
start over on any reject. It reads nothing from the report but its verdict.
"""

from __future__ import annotations

import numpy as np

from generators.base import FreshStart, Step
from puzzlekit.report import VerifierReport


class Blind(FreshStart):
    """``Blind(k)``: every attempt is a fresh puzzle with exactly ``k`` clues."""

    name = "blind"

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        return self.restart(step, rng)

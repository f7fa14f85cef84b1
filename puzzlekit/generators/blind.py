"""The generate-and-test baseline: a random solution, a random subset of k clues, verify, and
start over on any reject. It reads nothing from the report but its verdict.
"""

from __future__ import annotations

import numpy as np

from puzzlekit.core.protocols import Step
from puzzlekit.core.report import VerifierReport
from puzzlekit.generators.base import FreshStart


class Blind(FreshStart):
    """``Blind(k)``: every attempt is a fresh puzzle with exactly ``k`` clues."""

    name = "blind"

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        return self.restart(step, rng)

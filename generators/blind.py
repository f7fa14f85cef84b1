"""The generate-and-test baseline: a random solution, a random subset of k clues, verify, and
start over on any reject. It reads nothing from the report but its verdict.
"""

from __future__ import annotations

import numpy as np

from generators.base import Step, fresh_puzzle
from puzzlekit.model import Schema
from puzzlekit.report import VerifierReport


class Blind:
    """``Blind(k)``: every attempt is a fresh puzzle with exactly ``k`` clues."""

    name = "blind"

    def __init__(self, k: int) -> None:
        self.k = k

    def start(self, schema: Schema, rng: np.random.Generator) -> Step:
        inst, solution, _ = fresh_puzzle(schema, self.k, rng)
        return Step(inst, "start", None, solution)

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        schema_ = _schema_of(step)
        inst, solution, _ = fresh_puzzle(schema_, self.k, rng)
        return Step(inst, "restart", None, solution)


def _schema_of(step: Step) -> Schema:
    from puzzlekit.families import get_family

    return get_family(step.instance.family).schema(step.instance.params_dict())

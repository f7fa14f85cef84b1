"""The strategy protocol: how a generator starts a puzzle and what it does after a reject.

A strategy sees only the filter's reports. It never receives the holdout verifier or its
reports (``puzzlekit.loop`` keeps them apart), so whatever it learns comes from the filter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from generators.solutions import random_solution
from puzzlekit.families import get_family
from puzzlekit.model import Clue, Coord, Instance, Schema, Solution
from puzzlekit.report import VerifierReport


@dataclass(frozen=True)
class Step:
    """What a strategy did: the next instance, the action's name and the coordinate it touched."""

    instance: Instance
    action: str  # "start", "restart", "reveal", "drop", "repair", "give-up"
    coord: Coord | None = None
    solution: Mapping[str, int] | None = None


class Strategy(Protocol):
    name: str

    def start(self, schema: Schema, rng: np.random.Generator) -> Step: ...

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        """The next step after the filter rejected ``step.instance`` with ``report``."""
        ...


def fresh_puzzle(
    schema: Schema, k: int, rng: np.random.Generator
) -> tuple[Instance, dict[str, int], list[Clue]]:
    """A random solution and a random subset of ``k`` of its clues (in schema order).

    Returns the instance, the solution and all the solution's clues (those not revealed are the
    ones a strategy may reveal later).
    """
    fam = get_family(schema.family)
    solution = random_solution(schema, rng)
    clues = fam.clues_from_solution(schema, solution)
    k = max(0, min(k, len(clues)))
    picked = sorted(int(i) for i in rng.choice(len(clues), size=k, replace=False))
    inst = Instance.make(schema.family, schema.params_dict(), [clues[i] for i in picked])
    return inst, solution, clues


def clue_at(clues: Sequence[Clue], coord: Coord) -> Clue | None:
    """The first clue touching ``coord``."""
    coord = tuple(coord)
    for c in clues:
        if coord in c.coords:
            return c
    return None


def instance_with(instance: Instance, clues: Sequence[Clue], schema: Schema) -> Instance:
    """``instance`` with ``clues``, kept in the order of the schema's variables then id."""
    order = {v.coord: i for i, v in enumerate(schema.variables)}

    def key(c: Clue) -> tuple[Any, ...]:
        first = c.coords[0] if c.coords else None
        return (order.get(first, len(order)), c.id)

    return instance.with_clues(sorted(clues, key=key))


def solution_of(step: Step) -> Solution:
    if step.solution is None:
        raise ValueError("this step carries no solution")
    return step.solution

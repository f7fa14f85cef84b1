"""The pattern strategy: the adaptive strategy with a memory of where its puzzles needed repairs.

``Pattern(k, sampler=None, temperature=0.05, prior=8.0)`` repairs as ``adaptive`` does, and
keeps, across the loops of its driver (``across_loops``: one learner per schema and filter), a
table of counts per coordinate (a clue's first coordinate, or its id when it has none):

- ``hidden``: attempts (a start or a restart) that left the clue there hidden;
- ``repaired``: those of them in which a repair then revealed or changed a clue there;
- ``rejected``: attempts in which a filter reject named it (discriminative gap, culprit or
  conflict);

and per loop its outcome (``loops``, ``accepted``, ``filterCalls``). The learned map is
``score = (repaired + p m) / (hidden + p)``, ``m`` the mean repair rate over every place (the
prior, worth ``p = prior`` attempts, 8 by default): how often a clue hidden there had to be
revealed. Both knobs are settings (``temperature``, ``prior`` in an experiment's strategy
table); :func:`learned_map` reads the map back from a recorded state.

It uses the map twice. The initial ``k`` clues (families that draw their clues from
``clues_from_solution``; a layout family's own ``initial_clues`` are kept) are the ``k`` with the
largest ``score / temperature + Gumbel noise`` (the noise from the loop's rng): while the map is
flat that is a uniform random subset, as ``adaptive`` takes; where repairs keep happening loop
after loop (a systematic defect of the base generator) the start puts a clue there. Among the
equally ranked repair coordinates ``adaptive`` would choose from by the rng, it takes those
with the highest score (the rng breaks what ties remain), so the repairs of one defect gather on
one coordinate and the map sharpens there.

The state after each loop (:meth:`state`) goes into the rows' ``strategyState`` column
(docs/data.md). It depends on the seeds of the loops run before, in order, and nothing else:
one experiment task (a batch of trials) is one learner, started afresh, so rows are the same
serially and under any executor. Only filter reports reach it; the holdout never does.

Not for: a policy trained in the generator environment (``policy``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Clue, Instance, Schema
from puzzlekit.core.protocols import Repair, Step
from puzzlekit.core.report import VerifierReport
from puzzlekit.families import get_family
from puzzlekit.families.grid import GivensGrid
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.generators.base import draw_solution

#: the default temperature of the initial-clue choice (score units per unit of Gumbel noise)
TEMPERATURE = 0.05
#: the weight, in attempts, of the prior (the table's mean repair rate) in each place's score
PRIOR = 8.0


def place_key(coord: Any) -> str:
    """The table's key of a coordinate (``"0,3"``) or of a clue id without one."""
    if isinstance(coord, tuple | list):
        return ",".join(str(x) for x in coord)
    return str(coord)


def clue_key(clue: Clue) -> str:
    return place_key(tuple(clue.coords[0])) if clue.coords else place_key(clue.id)


@dataclass
class Table:
    """The counts of one schema: ``cells[key] = [hidden, repaired, rejected]`` and the loops."""

    label: str
    #: the prior's weight, in attempts (:data:`PRIOR` by default)
    prior: float = PRIOR
    loops: int = 0
    accepted: int = 0
    filter_calls: int = 0
    cells: dict[str, list[int]] = field(default_factory=dict)

    def mean(self) -> float:
        """The repair rate over every place: the prior each place's score starts from."""
        hidden = sum(v[0] for v in self.cells.values())
        repaired = sum(v[1] for v in self.cells.values())
        return (repaired + 1) / (hidden + 2)

    def score(self, key: str, mean: float) -> float:
        hidden, repaired, _ = self.cells.get(key, (0, 0, 0))
        return (repaired + self.prior * mean) / (hidden + self.prior)

    def to_json(self) -> dict[str, Any]:
        """The counts as JSON (``prior`` only when it is not :data:`PRIOR`, so states recorded
        with the default read as before)."""
        out: dict[str, Any] = {
            "schema": self.label,
            "loops": self.loops,
            "accepted": self.accepted,
            "filterCalls": self.filter_calls,
            "cells": {k: list(v) for k, v in sorted(self.cells.items())},
        }
        if self.prior != PRIOR:
            out["prior"] = self.prior
        return out


#: the initial clues the pattern's learned choice replaces: the protocol's default, and a grid
#: of givens' (the default's draws and clues, built faster)
_DEFAULT_LAYOUTS = (protocols.Family.initial_clues, GivensGrid.initial_clues)


class Pattern(Adaptive):
    """``Pattern(k)``: ``adaptive`` repairs, initial clues and repair ties chosen by a map
    learned across loops (see the module docstring)."""

    name = "pattern"
    across_loops = True

    def __init__(
        self,
        k: int,
        sampler: str | None = None,
        temperature: float = TEMPERATURE,
        prior: float = PRIOR,
    ) -> None:
        super().__init__(k, sampler)
        for key, value in (("temperature", temperature), ("prior", prior)):
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not (ok and 0 < value < 1e9):
                raise ValueError(f"pattern: {key} must be a positive number, got {value!r}")
        self.temperature = float(temperature)
        self.prior = float(prior)
        self._tables: dict[str, Table] = {}
        self._table: Table | None = None
        self._hidden: list[str] = []
        self._repaired: set[str] = set()
        self._rejected: set[str] = set()

    # -- the loop's steps ---------------------------------------------------------------------
    def start(self, schema: Schema, rng: np.random.Generator) -> Step:
        label = f"{schema.family}:{sorted(schema.params_dict().items())}"
        self._table = self._tables.setdefault(label, Table(label, self.prior))
        self._hidden, self._repaired, self._rejected = [], set(), set()
        return self._fresh(schema, rng, "start")

    def restart(self, step: Step, rng: np.random.Generator) -> Step:
        self._fold()
        schema = step.schema or get_family(step.instance.family).schema(step.instance.params_dict())
        return self._fresh(schema, rng, "restart")

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        self._rejected |= _named(report)
        nxt = super().propose(step, report, rng)
        if nxt.action != "restart" and nxt.coord is not None:
            self._repaired.add(place_key(tuple(nxt.coord)))
        return nxt

    def pick(
        self, options: list[tuple[tuple, list[Repair]]], rng: np.random.Generator
    ) -> tuple[tuple, list[Repair]]:
        if self._table is not None and len(options) > 1:
            mean = self._table.mean()
            scores = [self._table.score(place_key(tuple(c)), mean) for c, _ in options]
            best = max(scores)
            options = [o for o, s in zip(options, scores, strict=True) if s == best]
        return super().pick(options, rng)

    def end_loop(self, status: str, report: VerifierReport | None, calls: int) -> None:
        """Fold the loop's last attempt and its outcome into the table."""
        self._fold()
        if self._table is not None:
            self._table.loops += 1
            self._table.accepted += status == "accepted"
            self._table.filter_calls += int(calls)

    def state(self) -> dict[str, Any] | None:
        """The table of the schema last run, as JSON (None before the first loop)."""
        return self._table.to_json() if self._table is not None else None

    # -- the memory ---------------------------------------------------------------------------
    def _fresh(self, schema: Schema, rng: np.random.Generator, action: str) -> Step:
        fam = get_family(schema.family)
        solution = draw_solution(schema, rng, self.sampler)
        pool = fam.clues_from_solution(schema, solution)
        if type(fam).initial_clues not in _DEFAULT_LAYOUTS:  # a layout: the family's own
            clues = fam.initial_clues(schema, solution, self.k, rng)
        else:
            clues = self.choose(pool, rng)
        shown = {clue_key(c) for c in clues}
        self._hidden = [key for key in dict.fromkeys(clue_key(c) for c in pool) if key not in shown]
        inst = Instance.make(schema.family, schema.params_dict(), clues)
        return Step(inst, action, None, solution, schema)

    def choose(self, pool: Sequence[Clue], rng: np.random.Generator) -> list[Clue]:
        """``k`` clues of ``pool`` (kept in pool order): the largest learned score over the
        temperature plus Gumbel noise drawn from ``rng``."""
        k = max(0, min(self.k, len(pool)))
        noise = rng.gumbel(size=len(pool))
        table = self._table
        mean = table.mean() if table else 0.0
        scores = np.array([table.score(clue_key(c), mean) if table else 0.0 for c in pool])
        keys = scores / self.temperature + noise
        picked = sorted(int(i) for i in np.argsort(-keys, kind="stable")[:k])
        return [pool[i] for i in picked]

    def _fold(self) -> None:
        """Count the attempt just ended: its hidden places, the repaired ones, the rejected."""
        table = self._table
        if table is not None:
            for key in self._hidden:
                cell = table.cells.setdefault(key, [0, 0, 0])
                cell[0] += 1
                cell[1] += key in self._repaired
            for key in self._rejected:
                table.cells.setdefault(key, [0, 0, 0])[2] += 1
        self._hidden, self._repaired, self._rejected = [], set(), set()


def learned_map(state: Mapping[str, Any]) -> dict[str, float]:
    """A learner's map, place -> score, from its recorded ``strategyState``: ``pattern``'s table
    (the score of every counted place, its prior included) or a ``map`` a strategy records itself
    (``policy``: its per-slot weights); {} for a state with neither."""
    if isinstance(state.get("map"), Mapping):
        return {str(k): float(v) for k, v in state["map"].items()}
    cells = state.get("cells")
    if not isinstance(cells, Mapping):
        return {}
    table = Table(str(state.get("schema", "")), float(state.get("prior", PRIOR)))
    table.cells = {str(k): [int(x) for x in v] for k, v in cells.items()}
    mean = table.mean()
    return {key: table.score(key, mean) for key in table.cells}


def _named(report: VerifierReport) -> set[str]:
    """The places a reject's detail names: its gap, its culprits and its conflict's clues."""
    rd = report.reject_detail
    if rd is None:
        return set()
    out = {place_key(tuple(g.coord)) for g in rd.discriminative_gap}
    out |= {place_key(tuple(f.coord)) for f in rd.culprits}
    if rd.conflict is not None:
        out |= {place_key(tuple(c.coord)) for c in rd.conflict.clues if c.coord is not None}
    return out

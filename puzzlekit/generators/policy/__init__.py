"""The ``policy`` strategy: a policy trained in the generator environment
(``puzzlekit train``, :mod:`puzzlekit.envs.train`) runs as the closed loop's strategy.

A loop is an episode of the environment, played on the loop's side: :meth:`Policy.start`
samples a solution, reveals the policy's trained number of start clues and lets the policy
toggle slots until it submits; each filter report (:meth:`Policy.propose`) becomes the
observation the environment would have shown (:func:`~puzzlekit.generators.slots.fill_detail`,
the same slots and channels), and the policy acts again until it submits. Actions are drawn
with the loop's seeded generator, so one seed gives one loop. The strategy reads only the
filter's reports; the holdout stays where the loop driver keeps it.

``Policy(k, policy=PATH, policy_digest=None, sampler=None)``: ``sampler`` names the solution sampler
(:mod:`puzzlekit.generators.samplers`; None: the family's), as for ``adaptive``; train the policy
with the same (``puzzlekit train --sampler``). The clue count ``k`` of the other strategies is not
used (the policy starts as it was trained, from ``env.start_clues`` of its file). The file is read
once per path, size and modification time in a process (:func:`load_policy`); a file for another
schema, not a policy file, or one whose digest is not ``policy_digest`` (an experiment's config
records it when it is read) is :class:`~puzzlekit.generators.policy.file.PolicyFileError`.

Its learned map is its per-slot weights (``w_slot``, the tabular part: where it prefers to
reveal), recorded after every loop as ``{"map": {place: weight}}`` in the rows'
``strategyState`` (:meth:`Policy.state`; the place is a slot's first coordinate, as
``pattern`` keys its table), so a hypothesis can ask whether it points at a planted defect.

The package's modules: :mod:`~puzzlekit.generators.policy.model` (the linear softmax policy
and its features) and :mod:`~puzzlekit.generators.policy.file` (the policy file: provenance,
digest, the size-bounded reader).

Not for: training (:mod:`puzzlekit.envs.train`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from puzzlekit.core.model import Instance, Schema
from puzzlekit.core.protocols import Step
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.families import get_family
from puzzlekit.generators.base import FreshStart, draw_solution
from puzzlekit.generators.pattern import place_key
from puzzlekit.generators.policy.file import (
    PolicyFile,
    PolicyFileError,
    check_schema,
    check_slots,
    read_policy,
)
from puzzlekit.generators.policy.model import Geometry
from puzzlekit.generators.slots import DETAIL_KEYS, SlotLayout, fill_detail

#: the ``verdict`` values of the environment's observation (``NONE`` first, then every verdict)
_VERDICTS: tuple[str, ...] = ("NONE", *(v.value for v in Verdict))
_CACHE: dict[tuple[str, int, int], PolicyFile] = {}


def load_policy(path: str | os.PathLike[str]) -> PolicyFile:
    """The policy file at ``path``, read once per path, size and modification time."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    except OSError:
        return read_policy(path)  # its error names the file
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = read_policy(path)
    return found


class Policy(FreshStart):
    """``Policy(k, policy=PATH)``: run the policy in the file at ``PATH`` (see the module)."""

    name = "policy"

    def __init__(
        self,
        k: int,
        policy: str | os.PathLike[str] | None = None,
        policy_digest: str | None = None,
        sampler: str | None = None,
    ) -> None:
        super().__init__(k, sampler)
        if policy is None:
            raise ValueError("strategy policy needs a policy file (--policy FILE)")
        self.path = os.fspath(policy)
        self.file = load_policy(self.path)
        if policy_digest is not None and policy_digest != self.file.digest:
            raise PolicyFileError(f"policy {self.path}: changed since the run was set up")
        self._episode: Episode | None = None

    def start(self, schema: Schema, rng: np.random.Generator) -> Step:
        check_schema(self.file, schema.family, schema.params_dict(), self.path)
        solution = draw_solution(schema, rng, self.sampler)
        self._episode = ep = Episode(self.file, schema, solution, rng, self.path)
        return Step(ep.act(rng), "start", None, ep.solution, schema)

    def restart(self, step: Step, rng: np.random.Generator) -> Step:
        schema = step.schema or get_family(step.instance.family).schema(step.instance.params_dict())
        out = self.start(schema, rng)
        return Step(out.instance, "restart", None, out.solution, schema)

    def state(self) -> dict[str, Any] | None:
        """The learned map: the per-slot weights by place (None before the first loop)."""
        ep = self._episode
        if ep is None:
            return None
        weights = self.file.policy.w_slot
        out: dict[str, float] = {}
        for coords, ident, w in zip(ep.layout.coords, ep.layout.ids, weights, strict=True):
            out[place_key(tuple(coords[0])) if coords else str(ident)] = round(float(w), 6)
        return {"map": out}

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        ep = self._episode
        if ep is None or step.solution is None:
            return self.restart(step, rng)
        ep.observe(report)
        instance = ep.act(rng)
        return step.then(instance, "policy", ep.last_coord)


class Episode:
    """One loop as an environment episode: the solution, its slots and what the policy sees
    (the start clues drawn with ``rng`` as the environment draws them; ``where`` names the file
    in errors)."""

    def __init__(
        self,
        file: PolicyFile,
        schema: Schema,
        solution: Mapping[str, Any],
        rng: np.random.Generator,
        where: str,
    ) -> None:
        fam = get_family(schema.family)
        self.file = file
        self.schema = schema
        self.params = schema.params_dict()
        self.solution = dict(solution)
        clues = fam.clues_from_solution(schema, self.solution)
        self.layout = SlotLayout.of(schema, clues)
        check_slots(file, self.layout.ids, where)
        self.clues = tuple(clues)
        self.geo = Geometry.of(self.layout, schema)
        n = self.layout.n_slots
        self.revealed = np.zeros(n, np.int8)
        self.cover = np.zeros(self.layout.n_cells, np.int16)
        self.detail = np.zeros((len(DETAIL_KEYS), self.layout.n_cells), np.float32)
        self.verdict = 0
        self.calls = 0
        self.since = 0
        self.max_calls = int(file.env.get("max_calls", 20))
        self.last_coord: Any = None
        start = int(file.env.get("start_clues", 0))
        if start:
            for slot in sorted(rng.choice(n, min(start, n), replace=False)):
                self._toggle(int(slot))

    def observation(self) -> dict[str, Any]:
        """What the environment's observation would hold now (the keys the policy reads)."""
        grid = self.layout.shape
        obs: dict[str, Any] = {
            "revealed": self.revealed,
            "clues": self.cover.reshape(grid),
            "calls": min(self.calls, self.max_calls),
        }
        if self.file.observation == "structured":
            obs["verdict"] = self.verdict
            for key, row in zip(DETAIL_KEYS, self.detail, strict=True):
                obs[key] = row.reshape(grid)
        return obs

    def observe(self, report: VerifierReport) -> None:
        """The filter's report on the last submission, as the environment shows it."""
        self.calls += 1
        self.verdict = _VERDICTS.index(report.verdict.value)
        if self.file.observation == "structured":
            fill_detail(self.detail, report, self.layout, self.solution)

    def act(self, rng: np.random.Generator) -> Instance:
        """Toggle slots as the policy chooses until it submits; the submitted instance."""
        policy, n = self.file.policy, self.layout.n_slots
        while True:
            action = policy.act(self.observation(), self.geo, self.since, self.max_calls, rng)
            if action == n:
                break
            self._toggle(action)
            self.since += 1
            coords = self.layout.coords[action]
            self.last_coord = coords[0] if coords else None
        self.since = 0
        picked = [self.clues[i] for i in np.flatnonzero(self.revealed)]
        return Instance.make(self.schema.family, self.params, picked)

    def _toggle(self, slot: int) -> None:
        cells = self.layout.slot_cells[slot]
        if self.revealed[slot]:
            self.revealed[slot] = 0
            self.cover[cells] -= 1
        else:
            self.revealed[slot] = 1
            self.cover[cells] += 1

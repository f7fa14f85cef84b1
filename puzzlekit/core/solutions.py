"""Seeded random full solutions for any schema: the raw material of every generator (for the
schemas the compiled search takes, generation draws them with its search instead,
:func:`puzzlekit.verifiers.bitmask.sample.sample_solution`; this search serves every other schema).

``random_solution(schema, rng)`` fills every variable by a randomized backtracking search over the
schema's own rules (smallest domain first, ties and values in the order of a seeded numpy
``Generator``, forward checking), restarting with fresh randomness when a search runs long. It
works for every family whose rules are in the constraint vocabulary, and one seed gives one
solution, across processes.

How uniform it is: every solution of the schema has a positive probability, but the
distribution is not uniform. A randomized depth-first search favours solutions reached by
fewer dead ends; for 9×9 Sudoku the bias is small in practice (no grid is excluded, and the
first cells are uniform over their candidates), but it is not the uniform distribution over all
6.67×10^21 grids. Latin squares would need the Jacobson–Matthews Markov chain for exact
uniformity. Experiments that depend on uniformity should say so and use their own sampler.

Not for: solving puzzles with clues (use a verifier) or counting solutions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from puzzlekit.core import deadline
from puzzlekit.core.model import AllDifferent, Constraint, Schema

#: nodes a single randomized search may visit before it restarts
RESTART_NODES = 20_000


class _Search:
    def __init__(self, schema: Schema, extra: Sequence[Constraint], rng: np.random.Generator):
        self.schema = schema
        self.rng = rng
        self.names = list(schema.names)
        self.constraints = list(schema.rules) + list(extra)
        self.of: dict[str, list[int]] = {n: [] for n in self.names}
        for i, c in enumerate(self.constraints):
            for v in c.vars:
                self.of[v].append(i)
        self.nodes = 0

    def run(self) -> dict[str, int] | None:
        doms = {v.name: list(v.domain) for v in self.schema.variables}
        for c in self.constraints:
            if len(c.vars) == 1:
                name = c.vars[0]
                doms[name] = [x for x in doms[name] if c.holds({name: x})]
        return self._dfs({}, doms)

    def _consistent(self, name: str, value: int, assign: dict[str, int], doms) -> dict | None:
        """Domains after assigning ``name = value`` with forward checking, or None."""
        new = dict(doms)
        new[name] = [value]
        assign[name] = value
        try:
            for ci in self.of[name]:
                c = self.constraints[ci]
                if isinstance(c, AllDifferent):
                    for other in c.vars:
                        if other != name and other not in assign and value in new[other]:
                            new[other] = [x for x in new[other] if x != value]
                            if not new[other]:
                                return None
                    continue
                free = [v for v in c.vars if v not in assign]
                if not free:
                    if not c.holds(assign):
                        return None
                elif len(free) == 1:
                    f = free[0]
                    keep = []
                    for x in new[f]:
                        assign[f] = x
                        if c.holds(assign):
                            keep.append(x)
                    del assign[f]
                    if not keep:
                        return None
                    new[f] = keep
            return new
        finally:
            del assign[name]

    def _dfs(self, assign: dict[str, int], doms) -> dict[str, int] | None:
        self.nodes += 1
        if self.nodes > RESTART_NODES:
            return None
        if (self.nodes & 255) == 0:
            deadline.check()
        free = [n for n in self.names if n not in assign]
        if not free:
            return dict(assign)
        smallest = min(len(doms[n]) for n in free)
        ties = [n for n in free if len(doms[n]) == smallest]
        name = ties[int(self.rng.integers(len(ties)))]
        values = list(doms[name])
        for idx in self.rng.permutation(len(values)):
            value = values[int(idx)]
            new = self._consistent(name, value, assign, doms)
            if new is None:
                continue
            assign[name] = value
            found = self._dfs(assign, new)
            if found is not None:
                return found
            del assign[name]
            if self.nodes > RESTART_NODES:
                return None
        return None


def random_solution(
    schema: Schema,
    rng: np.random.Generator,
    *,
    extra: Sequence[Constraint] = (),
    max_restarts: int = 50,
) -> dict[str, int]:
    """A random full solution of ``schema`` (variables in schema order).

    ``extra`` adds constraints (for instance clues that must hold). Raises RuntimeError when no
    solution is found within ``max_restarts`` restarts (an unsatisfiable or very hard schema),
    and :class:`~puzzlekit.core.deadline.BudgetExceeded` when the deadline of a search it runs
    under passes (:mod:`puzzlekit.core.deadline`; none by default).
    """
    for _ in range(max_restarts):
        found = _Search(schema, extra, rng).run()
        if found is not None:
            return {n: found[n] for n in schema.names}
    raise RuntimeError(
        f"no solution of {schema.family} {schema.params_dict()} after {max_restarts} restarts"
    )


def rule_out_share(
    solutions: Sequence[Mapping[str, Any]], name: str, target: Mapping[str, Any]
) -> float:
    """The share of ``solutions`` that a clue fixing ``name`` to ``target[name]`` rules out (the
    discriminative power of a gap cell: the verifiers rank their gap by it, the adaptive
    strategy its repairs)."""
    value = target[name]
    return round(sum(1 for s in solutions if s[name] != value) / len(solutions), 6)


#: the compiled sampler, named rather than imported: generators sit above no backend, and the
#: compiled search is loaded on first use only (``"module:attr"``, as the registries name
#: their entries)
COMPILED_SAMPLER = "puzzlekit.verifiers.bitmask.sample:sample_solution"


def compiled_sample(schema: Schema, rng: np.random.Generator) -> dict[str, int] | None:
    """A solution drawn by the compiled search's randomized search (:data:`COMPILED_SAMPLER`);
    ``None`` for a schema the compiled search does not take."""
    import importlib

    module, attr = COMPILED_SAMPLER.split(":")
    return getattr(importlib.import_module(module), attr)(schema, rng)

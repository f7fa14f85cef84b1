"""What strategies share: a fresh puzzle of a random solution, and starting over.

The protocol (:class:`Strategy`: ``name``, ``start``, ``propose``) and the :class:`Step` it
returns are declared in :mod:`puzzlekit.core.protocols` and importable from here. A strategy sees
only the filter's reports. It never receives the holdout verifier or its reports
(``puzzlekit.loop.driver`` keeps them apart), so whatever it learns comes from the filter.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Clue, Instance, Schema, Solution
from puzzlekit.core.protocols import Step
from puzzlekit.families import get_family
from puzzlekit.generators.samplers import REGIONS, SAMPLERS, sample_solution, sampler_region


class FreshStart(protocols.Strategy):
    """Strategies that start from ``k`` initial clues of a random solution (``blind``,
    ``adaptive``) and start over the same way. ``sampler`` names a solution sampler of
    :data:`puzzlekit.generators.samplers.SAMPLERS` to draw the solutions with (None: the
    family's own); ValueError names an unknown one.

    ``fix_region`` (``blind`` and ``adaptive``): the human's one-time fix of a generator whose
    defect has been found, the defect's location given up front. Every start and restart puts
    one of its ``k`` clues in the sampler's planted region
    (:func:`~puzzlekit.generators.samplers.sampler_region`; one clue there breaks the
    ``planted-deadly`` rectangle) and draws the other ``k - 1`` at random, as without it.
    ValueError without a sampler that names a region."""

    name = ""

    def __init__(self, k: int, sampler: str | None = None, fix_region: bool = False) -> None:
        self.k = k
        self.sampler = sampler
        self.fix_region = bool(fix_region)
        if sampler is not None:
            from puzzlekit.core.plugins import UnknownName

            try:
                SAMPLERS.get(sampler)
            except UnknownName as exc:
                raise ValueError(str(exc)) from None
        if self.fix_region:
            if sampler not in REGIONS:
                raise ValueError(
                    f"fix_region needs a sampler that names its region "
                    f"({', '.join(sorted(REGIONS))}), got {sampler!r}"
                )

    def start(self, schema: Schema, rng: np.random.Generator) -> Step:
        inst, solution, _ = fresh_puzzle(schema, self.k, rng, self.sampler, self._region(schema))
        return Step(inst, "start", None, solution, schema)

    def restart(self, step: Step, rng: np.random.Generator) -> Step:
        schema = step.schema or get_family(step.instance.family).schema(step.instance.params_dict())
        inst, solution, _ = fresh_puzzle(schema, self.k, rng, self.sampler, self._region(schema))
        return Step(inst, "restart", None, solution, schema)

    def _region(self, schema: Schema) -> tuple[tuple[int, ...], ...] | None:
        if not self.fix_region or self.sampler is None:
            return None
        return sampler_region(self.sampler, schema)


def draw_solution(
    schema: Schema, rng: np.random.Generator, sampler: str | None = None
) -> dict[str, int]:
    """A solution from the sampler named ``sampler``, or :func:`sample_solution` (None)."""
    if sampler is None:
        return sample_solution(schema, rng)
    return dict(SAMPLERS.get(sampler)(schema, rng))


def fresh_puzzle(
    schema: Schema,
    k: int,
    rng: np.random.Generator,
    sampler: str | None = None,
    region: Collection[tuple[int, ...]] | None = None,
) -> tuple[Instance, dict[str, int], list[Clue]]:
    """A random solution and the family's initial clues for it (``k`` random clues by default).
    ``sampler``: a name of :data:`~puzzlekit.generators.samplers.SAMPLERS` (None: the family's).
    ``region``: cells one of the ``k`` clues must touch (a clue of the family's
    ``clues_from_solution`` there, drawn by ``rng``; the other ``k - 1`` drawn at random from the
    rest, kept in pool order); None: the family's ``initial_clues``.

    Returns the instance, the solution and the clues of the instance.
    """
    fam = get_family(schema.family)
    solution = draw_solution(schema, rng, sampler)
    if region is None or k < 1:
        clues = fam.initial_clues(schema, solution, k, rng)
    else:
        clues = clues_touching(fam.clues_from_solution(schema, solution), k, region, rng)
    inst = Instance.make(schema.family, schema.params_dict(), clues)
    return inst, solution, clues


def clues_touching(
    pool: Sequence[Clue], k: int, region: Collection[tuple[int, ...]], rng: np.random.Generator
) -> list[Clue]:
    """``k`` clues of ``pool`` (kept in pool order), one of them touching ``region`` (chosen by
    ``rng``), the rest a random subset of the others; ValueError when none touches it."""
    cells = {tuple(c) for c in region}
    inside = [i for i, c in enumerate(pool) if any(tuple(x) in cells for x in c.coords)]
    if not inside:
        raise ValueError(f"no clue of the pool touches the region {sorted(cells)}")
    first = inside[int(rng.integers(len(inside)))]
    rest = [i for i in range(len(pool)) if i != first]
    more = max(0, min(k - 1, len(rest)))
    picked = sorted([first, *(rest[int(j)] for j in rng.choice(len(rest), more, replace=False))])
    return [pool[i] for i in picked]


def in_schema_order(instance: Instance, schema: Schema) -> Instance:
    """``instance`` with its clues ordered by the schema's variables, then by id."""
    order = {v.coord: i for i, v in enumerate(schema.variables)}

    def key(c: Clue) -> tuple[Any, ...]:
        first = c.coords[0] if c.coords else None
        return (order.get(first, len(order)), c.id)

    return instance.with_clues(sorted(instance.clues, key=key))


def solution_of(step: Step) -> Solution:
    if step.solution is None:
        raise ValueError("this step carries no solution")
    return step.solution

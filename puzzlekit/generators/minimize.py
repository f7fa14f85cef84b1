"""Minimization: drop clues in seeded order while the puzzle stays UNIQUE, until none can go.

With ``symmetric=True`` clues are dropped in rotationally symmetric pairs (the cell and its
180° rotation, as in Simon Tatham's Solo), so the result keeps the symmetry of its start.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.report import Verdict
from puzzlekit.families.grid import GridLine


@dataclass(frozen=True)
class Minimized:
    instance: Instance
    calls: int
    removed: int
    #: a shaping hook declined the puzzle (``puzzlekit.loop.driver`` then skips the holdout)
    dropped: bool = False
    #: what a shaping hook reports about its result (level, grader calls, ...)
    shaping: Mapping[str, Any] | None = None


def _partner(clue: Clue, by_coord: dict[tuple, Clue], size: int | None) -> Clue | None:
    if size is None or len(clue.coords) != 1 or len(clue.coords[0]) != 2:
        return None
    r, c = clue.coords[0]
    return by_coord.get((size - 1 - r, size - 1 - c))


def minimize(
    instance: Instance,
    verifier: protocols.Verifier,
    rng: np.random.Generator,
    *,
    symmetric: bool = False,
    solution_cap: int = 2,
    solution: Mapping[str, int] | None = None,
) -> Minimized:
    """The instance with every removable clue removed (each removal checked UNIQUE).

    ``solution`` (the instance's unique solution) enables the verifier's fast verb
    ``uniqueness_session(instance, solution)`` where it gives a session: one solver call per
    removal instead of a full report (``sat``), or the whole remove-and-check in one compiled
    call (``bitmask``, :class:`~puzzlekit.core.protocols.OrderedRemoval`). Otherwise each
    removal is a ``verify``. The groups tried and their order are drawn the same way in every
    case, so every way gives the same result.
    """
    session = verifier.uniqueness_session(instance, solution) if solution is not None else None
    try:
        return _minimize(instance, verifier, rng, symmetric, solution_cap, session)
    finally:
        if session is not None:
            session.close()


def _clues_of(instance: Instance) -> list[Clue]:
    """``list(instance.clues)``; a grid line's read from the line, row by row (the canonical
    order of their ids), leaving the instance in its compact form."""
    line = instance.clue_source
    if type(line) is GridLine and "clues" not in instance.__dict__:
        return list(line.clues())
    return list(instance.clues)


def _minimize(instance, verifier, rng, symmetric, solution_cap, session) -> Minimized:
    clues = _clues_of(instance)
    groups = removal_groups(instance, rng, symmetric, clues)
    kept = {c.id for c in clues}
    if session is not None and _ordered(type(session)):
        kept = _remove_noting(session, groups, kept, len(clues))
    else:
        for group in groups:
            if session is not None:
                unique = session.unique_with(kept - group)
            else:
                trial = instance.with_clues(c for c in clues if c.id in kept and c.id not in group)
                report = verifier.verify(trial, solution_cap=solution_cap)
                unique = report.verdict is Verdict.UNIQUE
            if unique:
                kept -= group
    final, count = _kept_instance(instance, clues, kept)
    return Minimized(final, len(groups), len(clues) - count)


def _kept_instance(instance: Instance, clues: list[Clue], kept: set[str]) -> tuple[Instance, int]:
    """``instance`` with the clues ``kept``, and how many it has: a grid line
    (:class:`GridLine`) read as one keeps that form, its other cells blank (equal, with the
    same bytes and digest, and verified from its values where a verifier reads them; its clue
    objects are built when first read)."""
    line = instance.clue_source
    if type(line) is not GridLine or len(clues) != len(line.givens()):
        final = instance.with_clues(c for c in clues if c.id in kept)
        return final, len(final.clues)
    values, size, count = bytearray(len(line.values)), line.size, 0
    for clue in clues:  # built from the line: one given a cell
        if clue.id in kept:
            r, c = clue.coords[0]
            values[r * size + c] = line.values[r * size + c]
            count += 1
    kept_line = GridLine(line.family, line.params, size, bytes(values))
    return Instance.deferred(instance.family, instance.params, kept_line), count


#: whether a session type runs a whole remove-and-check (:class:`protocols.OrderedRemoval`)
_ORDERED: dict[type, bool] = {}


def _ordered(kind: type) -> bool:
    """``issubclass(kind, OrderedRemoval)``, answered once per type (a protocol's check reads
    every member's name)."""
    found = _ORDERED.get(kind)
    if found is None:
        found = _ORDERED[kind] = issubclass(kind, protocols.OrderedRemoval)
    return found


#: a minimization still going after this many seconds says so on stderr, and again as often after
NOTE_EVERY = 10.0
#: groups one call of ``remove_in_order`` tries between two looks at the clock
CHUNK = 16


def _remove_noting(session: Any, groups: list[set[str]], kept: set[str], total: int) -> set[str]:
    """``session.remove_in_order`` over ``groups`` in chunks (the same result as one call), with
    a line on stderr every :data:`NOTE_EVERY` seconds saying how far it got."""
    t0 = noted = time.perf_counter()
    for start in range(0, len(groups), CHUNK):
        kept = set(session.remove_in_order(groups[start : start + CHUNK], kept))
        now = time.perf_counter()
        if now - noted >= NOTE_EVERY:
            noted = now
            tried = min(start + CHUNK, len(groups))
            print(
                f"puzzlekit: minimizing: {tried} of {len(groups)} removals tried, "
                f"{len(kept)} of {total} clues left ({now - t0:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    return kept


def removal_groups(
    instance: Instance,
    rng: np.random.Generator,
    symmetric: bool = False,
    clues: list[Clue] | None = None,
) -> list[set[str]]:
    """The groups of clue ids minimization tries to drop, in the order it tries them: the clues
    in an order drawn by ``rng``, each with its rotational partner when ``symmetric`` (a clue
    already in a group is not tried again). A group is tried while all its clues are still in
    the puzzle (a clue leaves only with its group), so the groups are known before any check.
    ``clues``: ``list(instance.clues)``, when the caller has it."""
    clues = list(instance.clues) if clues is None else clues
    order = [clues[i] for i in rng.permutation(len(clues)).tolist()]
    if not symmetric:  # one clue a group, each tried once
        tried: set[str] = set()
        groups: list[set[str]] = []
        for clue in order:
            if clue.id not in tried:
                tried.add(clue.id)
                groups.append({clue.id})
        return groups
    size = instance.params_dict().get("size")
    by_coord = {c.coords[0]: c for c in clues if len(c.coords) == 1}
    tried = set()
    groups = []
    for clue in order:
        if clue.id in tried:
            continue
        group = {clue.id}
        partner = _partner(clue, by_coord, size)
        if partner is not None and partner.id not in tried:
            group.add(partner.id)
        tried |= group
        groups.append(group)
    return groups

"""Minimization's remove-and-check as one compiled call: the bitmask verifier's uniqueness
session (:class:`CountingSession`).

A removal test is one search counting to two from the schema's domains narrowed by the clues
still kept (a clue mask over the instance's clues): no report, no instance, no canonical bytes.
:meth:`CountingSession.remove_in_order` runs a whole minimization (the groups of clues to try,
in the order the minimizer drew) in one call of :func:`remove_groups`. The answers are those of
:class:`puzzlekit.verifiers.bitmask.search.BitmaskSession` (the same search from the same
domains, in the schema's variable order, values smallest first), so a minimization keeps its
result for a seed.

Not for: clues that add constraints of their own (killer cages, inequalities): their sessions
build a structure per question (:class:`~puzzlekit.verifiers.bitmask.search.BitmaskSession`,
which :class:`CountingSession` hands those questions to).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import accumulate
from typing import Any

import numpy as np
from numba import njit

from puzzlekit.verifiers.bitmask.compile import MAX_ARITY, ClueEffect, CompiledSchema
from puzzlekit.verifiers.bitmask.kernel import DONE, search
from puzzlekit.verifiers.bitmask.search import BitmaskSession

#: search nodes per compiled call between two checks of its status (a count to two of a
#: Sudoku stays far below; a larger search goes on where it paused)
NODE_LIMIT = 1 << 40


@njit(cache=True)
def count_kept(
    base_dom, clue_start, un_idx, un_mask, kept, doms, dones, branch, state, sols, order, vrank,
    kargs,
):  # fmt: skip  # pragma: no cover - compiled
    """Solutions (up to ``sols``' rows) from ``base_dom`` narrowed by the unary restrictions of
    each clue ``c`` with ``kept[c]`` (``un_idx``/``un_mask`` from ``clue_start[c]`` to
    ``clue_start[c + 1]``)."""
    doms[0, :] = base_dom
    for c in range(kept.shape[0]):
        if kept[c]:
            for u in range(clue_start[c], clue_start[c + 1]):
                doms[0, un_idx[u]] &= un_mask[u]
    dones[0, :] = 0
    state[:] = 0
    status = search(doms, dones, branch, state, sols, NODE_LIMIT, order, vrank, *kargs)
    while status != DONE:
        status = search(doms, dones, branch, state, sols, NODE_LIMIT, order, vrank, *kargs)
    return state[2]


@njit(cache=True)
def remove_groups(
    base_dom, clue_start, un_idx, un_mask, kept, group_start, group_clues, doms, dones, branch,
    state, sols, order, vrank, kargs,
):  # fmt: skip  # pragma: no cover - compiled
    """Try each group ``g`` of clues (``group_clues[group_start[g]:group_start[g + 1]]``) in
    turn: drop it from ``kept`` (1 per clue still in the puzzle) and keep it dropped when the
    clues left have one solution. ``kept`` is updated in place."""
    for g in range(group_start.shape[0] - 1):
        lo, hi = group_start[g], group_start[g + 1]
        for j in range(lo, hi):
            kept[group_clues[j]] = 0
        found = count_kept(
            base_dom, clue_start, un_idx, un_mask, kept, doms, dones, branch, state, sols,
            order, vrank, kargs,
        )  # fmt: skip
        if found != 1:
            for j in range(lo, hi):
                kept[group_clues[j]] = 1


class CountingSession:
    """Is a solution the only one of a subset of an instance's clues: each question one compiled
    count to two over a clue mask (:meth:`unique_with`), or a whole minimization in one call
    (:meth:`remove_in_order`). Clues that add constraints go to the per-question session."""

    def __init__(self, cs: CompiledSchema, clues: Mapping[str, ClueEffect]) -> None:
        self._ids = list(clues)
        self._index = {cid: i for i, cid in enumerate(self._ids)}
        effects = list(clues.values())
        self._plain = all(e.only_unary for e in effects)
        self._fallback = None if self._plain else BitmaskSession(cs, clues)
        self._closed = False
        pairs = [p for e in effects for p in e.unary]
        self._clue_start = np.asarray([0, *accumulate(len(e.unary) for e in effects)], np.int64)
        self._un_idx = np.asarray([i for i, _ in pairs], np.int64)
        self._un_mask = np.asarray([m for _, m in pairs], np.int64)
        self._cs = cs
        self._base = cs.base_dom
        self._work: tuple[Any, ...] | None = None
        #: the 9×9 bitboards' removals where the schema fits them (the same answers)
        self._grid9 = _grid9_removal(cs, cs.structure(())) if self._plain else None

    def _general(self) -> tuple[Any, ...]:
        """The general search's workspace and arguments (built on first use: a 9×9
        minimization runs on the bitboards alone): ``(doms, dones, branch, state, sols, order,
        vrank, kargs)``."""
        if self._work is None:
            cs = self._cs
            nv = len(cs.names)
            structure = cs.structure(())
            support = np.zeros(max(MAX_ARITY, nv + len(structure.st[2])), np.int64)
            self._work = (
                np.empty((nv + 2, nv), np.int64),
                np.zeros((nv + 2, nv), np.uint8),
                np.zeros((nv + 2, 2), np.int64),
                np.zeros(4, np.int64),
                np.zeros((2, nv), np.int64),
                np.arange(nv, dtype=np.int64),
                np.zeros((0, 0), np.float64),
                structure.search_args(cs.values, support),
            )
        return self._work

    def _mask(self, clue_ids: Iterable[str]) -> np.ndarray:
        kept = np.zeros(len(self._ids), np.uint8)
        for cid in clue_ids:
            kept[self._index[cid]] = 1
        return kept

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the uniqueness session is closed")

    def unique_with(self, clue_ids: Iterable[str]) -> bool:
        """True when the solution is the only one of the clues ``clue_ids``."""
        self._check_open()
        if self._fallback is not None:
            return self._fallback.unique_with(clue_ids)
        doms, dones, branch, state, sols, order, vrank, kargs = self._general()
        found = count_kept(
            self._base, self._clue_start, self._un_idx, self._un_mask, self._mask(clue_ids),
            doms, dones, branch, state, sols, order, vrank, kargs,
        )  # fmt: skip
        return int(found) == 1

    def remove_in_order(
        self, groups: Sequence[Sequence[str]], kept: Iterable[str]
    ) -> tuple[str, ...]:
        """The clues of ``kept`` left after trying each group of ``groups`` in turn: a group is
        dropped when the solution stays the only one of the clues left without it (instance
        order)."""
        self._check_open()
        keep = set(kept)
        if self._fallback is not None:
            for group in groups:
                if self._fallback.unique_with(keep - set(group)):
                    keep -= set(group)
            return tuple(c for c in self._ids if c in keep)
        mask = self._mask(keep)
        starts, members = [0], []
        for group in groups:
            members.extend(self._index[c] for c in group)
            starts.append(len(members))
        group_start, group_clues = np.asarray(starts, np.int64), np.asarray(members, np.int64)
        if self._grid9 is not None:
            self._grid9.remove(
                self._base, self._clue_start, self._un_idx, self._un_mask, mask, group_start,
                group_clues,
            )  # fmt: skip
            return tuple(c for c, k in zip(self._ids, mask.tolist(), strict=True) if k)
        doms, dones, branch, state, sols, order, vrank, kargs = self._general()
        remove_groups(
            self._base, self._clue_start, self._un_idx, self._un_mask, mask,
            group_start, group_clues, doms, dones, branch, state, sols, order, vrank, kargs,
        )  # fmt: skip
        return tuple(c for c, k in zip(self._ids, mask.tolist(), strict=True) if k)

    def close(self) -> None:
        self._closed = True
        if self._fallback is not None:
            self._fallback.close()

    def __enter__(self) -> CountingSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: the bitboard workspaces of minimization, by thread and compiled schema (one search at a time
#: per thread, as the verifier's workspaces)
_GRID9: dict[tuple[int, int], tuple[CompiledSchema, Any]] = {}


def _grid9_removal(cs: CompiledSchema, structure: Any) -> Any:
    """The 9×9 removal workspace of ``cs`` (kept and reused), or None when the schema does not
    fit the bitboards (:func:`~puzzlekit.verifiers.bitmask.kernel9.grid9_arrays`)."""
    import threading

    key = (threading.get_ident(), id(cs))
    found = _GRID9.get(key)
    if found is not None and found[0] is cs:
        return found[1]
    from puzzlekit.verifiers.bitmask.kernel9 import grid9_arrays
    from puzzlekit.verifiers.bitmask.minimize9 import Grid9Removal

    arrays = grid9_arrays(structure, cs.values)
    removal = None if arrays is None else Grid9Removal(arrays, len(cs.names))
    if len(_GRID9) > 16:
        _GRID9.clear()
    _GRID9[key] = (cs, removal)
    return removal

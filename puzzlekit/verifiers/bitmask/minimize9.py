"""Minimization's remove-and-check on the 9×9 bitboards: :func:`remove_groups9`, the same
answers as :func:`puzzlekit.verifiers.bitmask.minimize.remove_groups` (whether the clues left
have one solution does not depend on the search), by the 9×9 kernel's entry points
:func:`~puzzlekit.verifiers.bitmask.kernel9.load9` and
:func:`~puzzlekit.verifiers.bitmask.kernel9.search9`.

:class:`~puzzlekit.verifiers.bitmask.minimize.CountingSession` calls it where the schema fits
the bitboards (81 variables, 9 values: :func:`~puzzlekit.verifiers.bitmask.kernel9.grid9_arrays`).
Not for: the search itself (the kernel's module).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzlekit.verifiers.bitmask.kernel import DONE
from puzzlekit.verifiers.bitmask.kernel9 import load9, search9

#: search nodes per compiled call between two checks of its status (a count to two of a
#: Sudoku stays far below; a larger search goes on where it paused)
NODE_LIMIT = 1 << 40


@njit(cache=True)
def _found(dom, boards, fixed, branch, state, sols, order, peers, units, pairs):  # pragma: no cover
    """Solutions from ``dom``, up to ``sols``' rows (the kernel's search to its end)."""
    load9(dom, boards[0], fixed[0])
    state[:] = 0
    status = search9(boards, fixed, branch, state, sols, NODE_LIMIT, order, peers, units, pairs)
    while status != DONE:
        status = search9(boards, fixed, branch, state, sols, NODE_LIMIT, order, peers, units, pairs)
    return state[2]


@njit(cache=True)
def _narrow(dom, base_dom, clue_start, un_idx, un_mask, kept) -> None:  # pragma: no cover
    """``dom``: ``base_dom`` narrowed by the unary restrictions of every kept clue."""
    dom[:] = base_dom
    for c in range(kept.shape[0]):
        if kept[c]:
            for u in range(clue_start[c], clue_start[c + 1]):
                dom[un_idx[u]] &= un_mask[u]


@njit(cache=True)
def remove_groups9(
    base_dom, clue_start, un_idx, un_mask, kept, group_start, group_clues, dom, boards, fixed,
    branch, state, sols, one, order, peers, units, pairs,
):  # fmt: skip  # pragma: no cover - compiled
    """Try each group ``g`` of clues (``group_clues[group_start[g]:group_start[g + 1]]``) in
    turn: drop it from ``kept`` (1 per clue still in the puzzle) and keep it dropped when the
    clues left have one solution (as ``remove_groups``). ``kept`` is updated in place.

    When the clues kept have one solution to begin with (one count to two), a drop is tested
    by searching for a solution that breaks a restriction of a dropped clue (one search per
    restriction, ending at the first solution, ``one`` a one-row ``sols``): the clues left have
    another solution exactly when one breaks a dropped clue, since any solution that keeps
    them all is one of the clues kept, the one there is. Otherwise each drop is a count to two."""
    _narrow(dom, base_dom, clue_start, un_idx, un_mask, kept)
    unique = _found(dom, boards, fixed, branch, state, sols, order, peers, units, pairs) == 1
    for g in range(group_start.shape[0] - 1):
        lo, hi = group_start[g], group_start[g + 1]
        for j in range(lo, hi):
            kept[group_clues[j]] = 0
        other = False
        if unique:
            for j in range(lo, hi):
                c = group_clues[j]
                for u in range(clue_start[c], clue_start[c + 1]):
                    _narrow(dom, base_dom, clue_start, un_idx, un_mask, kept)
                    dom[un_idx[u]] &= ~un_mask[u]
                    if _found(dom, boards, fixed, branch, state, one, order, peers, units, pairs):
                        other = True
                        break
                if other:
                    break
        else:
            _narrow(dom, base_dom, clue_start, un_idx, un_mask, kept)
            found = _found(dom, boards, fixed, branch, state, sols, order, peers, units, pairs)
            other = found != 1
        if other:
            for j in range(lo, hi):
                kept[group_clues[j]] = 1


class Grid9Removal:
    """The bitboard workspace of one schema's removals (arrays reused call after call)."""

    def __init__(self, grid9: tuple[np.ndarray, ...], nv: int) -> None:
        peers, units, pairs = grid9
        self.args = (peers, units, pairs[:0])  # no look-ahead: the answer is the same
        self.dom = np.empty(nv, np.int64)
        self.boards = np.zeros((nv + 2, 9, 3), np.int64)
        self.fixed = np.zeros((nv + 2, 3), np.int64)
        self.branch = np.zeros((nv + 2, 2), np.int64)
        self.state = np.zeros(4, np.int64)
        self.sols = np.zeros((2, nv), np.int64)
        self.one = np.zeros((1, nv), np.int64)
        self.order = np.arange(nv, dtype=np.int64)

    def remove(
        self,
        base_dom: np.ndarray,
        clue_start: np.ndarray,
        un_idx: np.ndarray,
        un_mask: np.ndarray,
        kept: np.ndarray,
        group_start: np.ndarray,
        group_clues: np.ndarray,
    ) -> None:
        """:func:`remove_groups9` in this workspace (``kept`` updated in place)."""
        remove_groups9(
            base_dom, clue_start, un_idx, un_mask, kept, group_start, group_clues, self.dom,
            self.boards, self.fixed, self.branch, self.state, self.sols, self.one, self.order,
            *self.args,
        )  # fmt: skip

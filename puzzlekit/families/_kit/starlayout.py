"""Star Battle's layouts and exhaustive solver: a seeded random star placement (rows of
non-touching stars), regions grown from it by random merges, and :func:`star_solutions`, which
counts the star placements a region layout allows.

Private to :mod:`puzzlekit.families.starbattle` (which re-exports :func:`star_solutions`). Not for
the family's clues, text format or drawing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from puzzlekit.core.model import (
    Clue,
)
from puzzlekit.families._kit.regions import (
    neighbours4,
)

#: the rules in plain words, for prompts (``StarBattle.rules_text``)
RULES_TEXT = (
    "Place stars in the {size}×{size} grid so that every row, every column and every region "
    "(the cells marked with one letter) holds exactly {stars} star(s), and no two stars "
    "touch, not even diagonally. `*` is a known star, `-` a cell known to be empty. In "
    "the answer write `*` for a star and `-` for an empty cell."
)


def row_choices(n: int, k: int) -> list[tuple[int, ...]]:
    """Every set of k columns of one row with no two stars side by side."""
    out: list[tuple[int, ...]] = []

    def rec(start: int, chosen: tuple[int, ...]) -> None:
        if len(chosen) == k:
            out.append(chosen)
            return
        for c in range(start, n):
            rec(c + 2, (*chosen, c))

    rec(0, ())
    return out


def place(
    n: int,
    k: int,
    choices: list[tuple[int, ...]],
    rng: np.random.Generator,
    rows: list[tuple[int, ...]],
    col_count: list[int],
    nodes: list[int],
) -> list[tuple[int, ...]] | None:
    nodes[0] += 1
    if nodes[0] > 20_000:
        return None
    r = len(rows)
    if r == n:
        return list(rows)
    left = n - r
    prev = set(rows[-1]) if rows else set()
    for i in rng.permutation(len(choices)):
        cols = choices[int(i)]
        if any(c + d in prev for c in cols for d in (-1, 0, 1)):
            continue
        if any(col_count[c] >= k for c in cols):
            continue
        for c in cols:
            col_count[c] += 1
        # every column must still be able to reach k stars (at most one per two rows)
        ok = all(k - col_count[c] <= (left - 1 + 1) // 2 for c in range(n))
        if ok:
            rows.append(cols)
            found = place(n, k, choices, rng, rows, col_count, nodes)
            if found is not None:
                return found
            rows.pop()
        for c in cols:
            col_count[c] -= 1
        if nodes[0] > 20_000:
            return None
    return None


def merge(
    pieces: list[list[tuple[int, int]]],
    label: list[list[int]],
    k: int,
    rng: np.random.Generator,
) -> list[list[tuple[int, int]]] | None:
    """Group the single-star pieces into connected regions of ``k`` pieces, or None."""
    n = len(label)
    adj: list[set[int]] = [set() for _ in pieces]
    for r in range(n):
        for c in range(n):
            for r2, c2 in neighbours4((r, c), n, n):
                a, b = label[r][c], label[r2][c2]
                if a != b:
                    adj[a].add(b)
    free = set(range(len(pieces)))
    groups: list[list[int]] = []
    while free:
        # the piece with the fewest free neighbours first, so that none is stranded
        start = min(free, key=lambda i: (len(adj[i] & free), int(rng.integers(1 << 30))))
        group = [start]
        free.discard(start)
        while len(group) < k:
            options = sorted(set().union(*(adj[g] for g in group)) & free)
            if not options:
                return None
            pick = options[int(rng.integers(len(options)))]
            group.append(pick)
            free.discard(pick)
        groups.append(group)
    return [sorted(cell for g in group for cell in pieces[g]) for group in groups]


def star_solutions(
    n: int, k: int, clues: Sequence[Clue], limit: int
) -> list[frozenset[tuple[int, int]]]:
    """Up to ``limit`` star placements (as sets of star cells) under the rules and the region and
    reveal ``clues`` (well-formed ones): row by row over the k-subsets of columns."""
    region_of: dict[tuple[int, int], int] = {}
    for i, clue in enumerate(c for c in clues if c.kind == "region"):
        for cell in clue.coords:
            region_of[tuple(cell)] = i
    n_regions = 1 + max(region_of.values(), default=-1)
    last_row = [
        max((r for (r, _), i in region_of.items() if i == j), default=-1) for j in range(n_regions)
    ]
    shown = {tuple(c.coords[0]): c.kind == "star" for c in clues if c.kind in ("star", "empty")}
    choices = row_choices(n, k)
    col_count, reg_count = [0] * n, [0] * n_regions
    rows: list[tuple[int, ...]] = []
    out: list[frozenset[tuple[int, int]]] = []

    def rec(r: int) -> None:
        if len(out) >= limit:
            return
        if r == n:
            if all(x == k for x in col_count):
                out.append(frozenset((i, c) for i, cols in enumerate(rows) for c in cols))
            return
        prev = set(rows[-1]) if rows else set()
        for cols in choices:
            if any(c + d in prev for c in cols for d in (-1, 0, 1)):
                continue
            if any(col_count[c] >= k for c in cols):
                continue
            if any(shown.get((r, c), True) is False for c in cols):
                continue
            if any(shown.get((r, c)) for c in range(n) if c not in cols):
                continue
            regs = [region_of[(r, c)] for c in cols if (r, c) in region_of]
            for c in cols:
                col_count[c] += 1
            for g in regs:
                reg_count[g] += 1
            ok = all(reg_count[g] <= k for g in regs) and all(
                reg_count[g] == k for g in range(n_regions) if last_row[g] == r
            )
            if ok:
                rows.append(cols)
                rec(r + 1)
                rows.pop()
            for c in cols:
                col_count[c] -= 1
            for g in regs:
                reg_count[g] -= 1
            if len(out) >= limit:
                return

    rec(0)
    return out

"""Pure-Python baselines for the speed benchmark: a bitmask Sudoku checker and a remove-and-check
generator built on it (benchmark code only; the verifiers never use them).

The checker is the same algorithm as the compiled ``bitmask`` verifier, written plainly in
Python: candidates as int bit masks, naked singles (a fixed cell's digit leaves its peers) and
hidden singles (a digit with one place left in a row, column or box) to a fixpoint, then the
cell with fewest candidates first, counting solutions up to a limit. The generator fills a grid
(a base pattern under random band, row, stack, column and digit moves), then drops cells in a
seeded order, each drop kept while the checker still counts one solution.

Not for: verification in the framework (no reports, no budget), or shapes other than Sudoku.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


class PySudoku:
    """The units and peers of an ``n``×``n`` Sudoku with ``br``×``bc`` boxes (cells row-major)."""

    def __init__(self, n: int, br: int, bc: int) -> None:
        self.n, self.full = n, (1 << n) - 1
        rows = [[r * n + c for c in range(n)] for r in range(n)]
        cols = [[r * n + c for r in range(n)] for c in range(n)]
        boxes = [
            [(r0 + r) * n + c0 + c for r in range(br) for c in range(bc)]
            for r0 in range(0, n, br)
            for c0 in range(0, n, bc)
        ]
        self.units = rows + cols + boxes
        peers: list[set[int]] = [set() for _ in range(n * n)]
        for unit in self.units:
            for cell in unit:
                peers[cell].update(unit)
        self.peers = [sorted(p - {i}) for i, p in enumerate(peers)]

    def count(self, grid: Sequence[int], limit: int = 2) -> int:
        """How many solutions ``grid`` (0 for a blank, else the digit) has, counting to
        ``limit``."""
        cand = [self.full] * len(grid)
        for i, v in enumerate(grid):
            if v:
                cand[i] = 1 << (v - 1)
        return self._search(cand, limit)

    def _propagate(self, cand: list[int]) -> bool:
        peers, units = self.peers, self.units
        done = [False] * len(cand)
        queue = [i for i, m in enumerate(cand) if m & (m - 1) == 0]
        while True:
            while queue:
                i = queue.pop()
                if done[i]:
                    continue
                done[i] = True
                m = cand[i]
                if m == 0:
                    return False
                for p in peers[i]:
                    d = cand[p]
                    if d & m:
                        d &= ~m
                        if d == 0:
                            return False
                        cand[p] = d
                        if d & (d - 1) == 0:
                            queue.append(p)
            for unit in units:
                once = twice = 0
                for i in unit:
                    m = cand[i]
                    twice |= once & m
                    once |= m
                if once != self.full:
                    return False
                single = once & ~twice
                if single:
                    for i in unit:
                        m = cand[i] & single
                        if m and cand[i] != m:
                            if m & (m - 1):
                                return False
                            cand[i] = m
                            queue.append(i)
            if not queue:
                return True

    def _search(self, cand: list[int], limit: int) -> int:
        if not self._propagate(cand):
            return 0
        best, best_count = -1, 99
        for i, m in enumerate(cand):
            if m & (m - 1):
                c = m.bit_count()
                if c < best_count:
                    best, best_count = i, c
                    if c == 2:
                        break
        if best < 0:
            return 1
        found = 0
        m = cand[best]
        while m and found < limit:
            bit = m & -m
            m &= ~bit
            trial = list(cand)
            trial[best] = bit
            found += self._search(trial, limit - found)
        return found


def random_grid(rng: random.Random, n: int = 9, br: int = 3, bc: int = 3) -> list[int]:
    """A full grid: the base pattern under random band, row, stack, column and digit moves."""
    base = [[(bc * (r % br) + r // br + c) % n for c in range(n)] for r in range(n)]
    bands, stacks = n // br, n // bc
    rows = [b * br + r for b in rng.sample(range(bands), bands) for r in rng.sample(range(br), br)]
    cols = [
        s * bc + c for s in rng.sample(range(stacks), stacks) for c in rng.sample(range(bc), bc)
    ]
    digits = rng.sample(range(1, n + 1), n)
    return [digits[base[r][c]] for r in rows for c in cols]


def generate_minimal(sudoku: PySudoku, rng: random.Random) -> list[int]:
    """A minimal puzzle: cells of a random grid dropped in a random order while unique."""
    grid = random_grid(rng, sudoku.n, *_box(sudoku.n))
    for i in rng.sample(range(len(grid)), len(grid)):
        old, grid[i] = grid[i], 0
        if sudoku.count(grid, 2) != 1:
            grid[i] = old
    return grid


def _box(n: int) -> tuple[int, int]:
    best = (1, n)
    for r in range(1, n + 1):
        if n % r == 0 and r <= n // r:
            best = (r, n // r)
    return best

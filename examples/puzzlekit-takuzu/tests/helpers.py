"""Small helpers shared by the tests (not fixtures)."""

from __future__ import annotations

import itertools

from puzzlekit.core.model import Instance


def parse(line: str) -> Instance:
    from puzzlekit_takuzu import TAKUZU

    return TAKUZU.parse_text(line)


def valid_line(cells: tuple[int, ...]) -> bool:
    """Balanced, and no three equal cells in a run."""
    text = "".join(map(str, cells))
    return text.count("1") * 2 == len(text) and "000" not in text and "111" not in text


def brute_force(n: int, givens: dict[tuple[int, int], int]) -> list[dict[str, int]]:
    """Every solution of an n x n takuzu with ``givens``, by trying every grid of valid rows,
    in lexicographic order: an oracle that shares no code with the plugin (n = 4 only: 6x6
    would try 14**6 grids)."""
    rows = [r for r in itertools.product((0, 1), repeat=n) if valid_line(r)]
    valid = set(rows)
    out = []
    for grid in itertools.product(rows, repeat=n):
        if len({tuple(r) for r in grid}) < n:
            continue
        if any(grid[r][c] != v for (r, c), v in givens.items()):
            continue
        cols = [tuple(grid[r][c] for r in range(n)) for c in range(n)]
        if len(set(cols)) < n or not all(col in valid for col in cols):
            continue
        out.append({f"r{r + 1}c{c + 1}": grid[r][c] for r in range(n) for c in range(n)})
    return out

"""One representative per symmetry class of a grid of givens (Sudoku, Latin squares).

The group acts on an n x n grid of givens (0: blank): rows are permuted within bands of
``band`` rows and the bands among themselves, columns within stacks of ``stack`` columns and
the stacks among themselves (a Latin square: one band of n rows, one stack of n columns), the
grid may be transposed (when bands and stacks have one shape), and the values relabelled.

:func:`canonical_grid` returns the least image of the grid in a total order of images: first
the pattern of givens (each row as a bit mask, rows compared in order), then the values
relabelled by first appearance (the least relabelling of a fixed arrangement). Only some
images are compared: column arrangements whose columns (and stacks) come in the order of an
invariant of the group (the count of givens and their spread over bands, and over the rows'
counts); the images considered for ``g`` applied to a grid are those considered for the grid,
moved by ``g``, so the least of them is the same for every member of a class (exact, not a
heuristic). Rows then take their least order by sorting (rows within bands, bands by their
sorted rows); rows and bands that tie are tried in every order for the values.

Not part of the public API: families call it from :meth:`Family.canonical_instance`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.jsondata import freeze
from puzzlekit.core.model import Instance, SpecError
from puzzlekit.families._kit.gridline import GridLine


def _tie_orders(keys: Sequence[object], blank: Sequence[bool] = ()) -> list[list[int]]:
    """Every order of ``range(len(keys))`` sorted by key, ties in every order; lines marked
    ``blank`` (no givens: interchangeable) tie in one order only."""
    groups: dict[object, list[int]] = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    classes = [groups[k] for k in sorted(groups)]  # type: ignore[type-var]
    choices = [
        [tuple(c)] if blank and all(blank[i] for i in c) else list(itertools.permutations(c))
        for c in classes
    ]
    return [[i for p in perms for i in p] for perms in itertools.product(*choices)]


def _line_keys(grid: np.ndarray, band: int, stack: int, rounds: int = 2) -> list[int]:
    """An invariant of each column under the group (rows permuted within bands and bands
    permuted, values relabelled, columns permuted within stacks and stacks permuted): its
    givens' count, their counts per band (sorted) and how often each of its values is given in
    the whole grid (sorted), refined ``rounds`` times by the keys of the rows its givens stand
    in (and those by the columns' keys)."""
    n = grid.shape[0]
    g = grid.tolist()
    freq = np.bincount(grid.ravel(), minlength=n + 1).tolist()
    in_row = [[c for c in range(n) if g[r][c]] for r in range(n)]
    in_col = [[r for r in range(n) if g[r][c]] for c in range(n)]

    def spread(cells: list[int], size: int) -> tuple[int, ...]:
        counts = [0] * (n // size)
        for x in cells:
            counts[x // size] += 1
        return tuple(sorted(counts))

    cols = _ranks(
        [
            (len(rs), spread(rs, band), tuple(sorted(freq[g[r][c]] for r in rs)))
            for c, rs in enumerate(in_col)
        ]
    )
    rows = _ranks(
        [
            (len(cs), spread(cs, stack), tuple(sorted(freq[g[r][c]] for c in cs)))
            for r, cs in enumerate(in_row)
        ]
    )
    for _ in range(rounds):
        rows = _ranks([(rows[r], tuple(sorted(cols[c] for c in in_row[r]))) for r in range(n)])
        cols = _ranks([(cols[c], tuple(sorted(rows[r] for r in in_col[c]))) for c in range(n)])
    return cols


def _ranks(keys: list) -> list[int]:
    """Each key replaced by its rank among the distinct keys (an invariant again, as small)."""
    index = {k: i for i, k in enumerate(sorted(set(keys)))}
    return [index[k] for k in keys]


def _column_orders(grid: np.ndarray, band: int, stack: int) -> np.ndarray:
    """The column arrangements compared (K x n): stacks ordered by their sorted column keys,
    columns within a stack by key, ties in every order."""
    n = grid.shape[0]
    keys = _line_keys(grid, band, stack)
    blank = (grid == 0).all(axis=0).tolist()
    stacks = [list(range(s * stack, (s + 1) * stack)) for s in range(n // stack)]
    within = [
        [
            [cols[i] for i in o]
            for o in _tie_orders([keys[c] for c in cols], [blank[c] for c in cols])
        ]
        for cols in stacks
    ]
    stack_keys = [tuple(sorted(keys[c] for c in cols)) for cols in stacks]
    stack_blank = [all(blank[c] for c in cols) for cols in stacks]
    out = []
    for order in _tie_orders(stack_keys, stack_blank):
        for choice in itertools.product(*(within[s] for s in order)):
            out.append([c for part in choice for c in part])
    return np.asarray(out, dtype=np.int64)


def _row_arrangements(codes: Sequence[int], band: int) -> Iterator[list[int]]:
    """Every row order giving the least sequence of row codes: rows sorted within bands,
    bands by their sorted codes, ties in every order."""
    n = len(codes)
    bands = [list(range(b * band, (b + 1) * band)) for b in range(n // band)]
    blank = [c == 0 for c in codes]
    inner = [_tie_orders([codes[r] for r in rows], [blank[r] for r in rows]) for rows in bands]
    band_keys = [tuple(sorted(codes[r] for r in rows)) for rows in bands]
    for order in _tie_orders(band_keys, [all(blank[r] for r in rows) for rows in bands]):
        for choice in itertools.product(*(inner[b] for b in order)):
            yield [bands[b][i] for b, pick in zip(order, choice, strict=True) for i in pick]


def _least_rows(codes: np.ndarray, band: int) -> np.ndarray:
    """(K, n) row codes -> (K, n) their least order (rows sorted in bands, bands sorted)."""
    k, n = codes.shape
    inner = np.sort(codes.reshape(k, n // band, band), axis=2)
    if n // band == 1:
        return inner.reshape(k, n)
    # bands compared as tuples: rank the band tuples, then sort bands by rank
    flat = inner.reshape(k * (n // band), band)
    _, rank = np.unique(flat, axis=0, return_inverse=True)
    rank = rank.reshape(k, n // band)
    order = np.argsort(rank, axis=1, kind="stable")
    return np.take_along_axis(inner, order[:, :, None], axis=1).reshape(k, n)


def _relabel(images: np.ndarray, n: int) -> np.ndarray:
    """Each row of ``images`` (C, cells; 0 blank, values 1..n) with values renamed 1, 2, ... in
    order of first appearance: the least relabelling of that arrangement."""
    c, cells = images.shape
    first = np.full((c, n + 1), cells, dtype=np.int64)
    rows = np.repeat(np.arange(c), cells)
    np.minimum.at(first, (rows, images.ravel()), np.tile(np.arange(cells), c))
    first[:, 0] = -1  # blank first: it stays 0
    rank = np.argsort(np.argsort(first, axis=1, kind="stable"), axis=1, kind="stable")
    return np.take_along_axis(rank, images, axis=1)


def canonical_grid(
    grid: np.ndarray, band: int, stack: int, *, transpose: bool, relabel: bool = True
) -> np.ndarray:
    """The representative of ``grid``'s class (module docstring); ``grid`` n x n, 0 blank."""
    grid = np.asarray(grid, dtype=np.int64)
    n = grid.shape[0]
    weights = 1 << np.arange(n - 1, -1, -1, dtype=np.int64)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (oriented, cols, codes)
    for oriented in (grid, grid.T) if transpose else (grid,):
        cols = _column_orders(oriented, band, stack)
        mask = (oriented != 0).astype(np.int64)
        codes = (mask[:, cols] * weights[None, None, :]).sum(axis=2).T  # (K, n)
        found.append((oriented, cols, codes))
    leasts = [_least_rows(codes, band) for _, _, codes in found]
    least = np.concatenate(leasts)
    best = least[np.lexsort(least.T[::-1])[0]]
    images = []
    for (oriented, cols, codes), mine in zip(found, leasts, strict=True):
        for k in np.flatnonzero((mine == best).all(axis=1)):
            for rows in _row_arrangements(codes[k].tolist(), band):
                images.append(oriented[np.ix_(rows, cols[k])].ravel())
    stacked = np.asarray(images)
    if relabel:
        stacked = _relabel(stacked, n)
    return stacked[np.lexsort(stacked.T[::-1])[0]].reshape(n, n)


def canonical_givens(
    family: protocols.Family,
    instance: Instance,
    band: int,
    stack: int,
    *,
    transpose: bool,
    rows: bool = True,
) -> Instance:
    """The representative of a puzzle of one-cell ``given`` clues (values 1..n): the givens of
    :func:`canonical_grid` (``rows=False``: values relabelled only, the cells stay) under the
    family's normalized params; ``instance`` itself when it holds any other clue (the group
    is not that puzzle's) or does not read."""
    try:
        schema = family.schema(instance.params_dict())
    except SpecError:
        return instance
    params = schema.params_dict()
    n = int(params["size"])
    grid = _givens_grid(instance, n)
    if grid is None:
        return instance
    if rows:
        canon = canonical_grid(grid, band, stack, transpose=transpose)
    else:
        canon = _relabel(grid.reshape(1, -1), n).reshape(n, n)
    # the representative as a grid line: its clues are built only if read, its bytes joined
    # from cached per-cell bytes (the same bytes as the instance of the clue objects)
    frozen = freeze(params)
    line = GridLine(family.info.name, frozen, n, bytes(canon.astype(np.uint8).ravel().tolist()))
    return Instance.deferred(family.info.name, frozen, line)


def _givens_grid(instance: Instance, n: int) -> np.ndarray | None:
    """The n x n grid of an instance's givens (0: blank); None when a clue is not a given of
    the grid or two givens share a cell. A grid line's values are read as they are."""
    source = instance.clue_source
    if isinstance(source, GridLine) and source.size == n and "clues" not in instance.__dict__:
        grid = np.frombuffer(source.values, dtype=np.uint8).reshape(n, n).astype(np.int64)
        return grid if int(grid.max(initial=0)) <= n else None
    grid = np.zeros((n, n), dtype=np.int64)
    for clue in instance.clues:
        value = clue.data_dict().get("value") if clue.kind == "given" else None
        if len(clue.coords) != 1 or not isinstance(value, int) or isinstance(value, bool):
            return None
        r, c = clue.coords[0]
        if not (0 <= r < n and 0 <= c < n and 1 <= value <= n) or grid[r, c]:
            return None
        grid[r, c] = value
    return grid

"""The ``logicgrid`` family's generation helpers: every clue that is true of a solution (the pool
fresh puzzles and repairs draw from) and, per coordinate, the clues that would repair a
reject there, both cached per solution.

Private to :mod:`puzzlekit.families.logicgrid.family`; the family's ``initial_clues`` and
``repair_moves`` call them. Not for the clue kinds' meaning
(:mod:`puzzlekit.families.logicgrid.clues`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from puzzlekit.core.jsondata import thaw
from puzzlekit.core.model import (
    Clue,
    freeze,
)
from puzzlekit.families.logicgrid.clues import (
    ATOM_PAIR_KINDS,
    RELATIONS,
    Category,
    Grid,
    _categories_of,
    _grid,
)

# --- the family -------------------------------------------------------------------------------


def _is(grid: Grid, cid: str, kind: str, e: int, cat: Category, v: int) -> Clue:
    data = {"entity": e, "category": cat.name, "value": cat.values[v]}
    return Clue.make(cid, kind, data, [(e, grid.index(cat.name))])


def _coords_of(grid: Grid, atoms: Sequence[Sequence[str]]) -> list[tuple[int, int]]:
    cats = sorted({grid.index(a[0]) for a in atoms if a[0] != grid.anchor_cat.name})
    return [(e, c) for c in cats for e in range(grid.size)]


def _pair(grid: Grid, cid: str, kind: str, a: list[str], b: list[str]) -> Clue:
    return Clue.make(cid, kind, {"a": a, "b": b}, _coords_of(grid, [a, b]))


@functools.lru_cache(maxsize=4096)
def _true_clues(params: Any, values: tuple[int, ...]) -> tuple[Clue, ...]:
    """The true clues of the solution whose variable values (in schema order) are ``values``."""
    grid = _grid(freeze(_categories_of({k: thaw(v) for k, v in params})))
    n, others = grid.size, grid.others
    names = [grid.var(e, c.name) for e in range(n) for c in others]
    solution = dict(zip(names, values, strict=True))

    def val(e: int, c: Category) -> int:
        return int(solution[grid.var(e, c.name)])

    def atom(e: int, c: Category) -> list[str]:
        return [c.name, c.values[val(e, c)]]

    out: list[Clue] = []
    for i, c in enumerate(others):
        nxt = others[(i + 1) % len(others)]
        for e in range(n):
            out.append(_is(grid, f"is:e{e}:{c.name}", "is", e, c, val(e, c)))
            out.append(_is(grid, f"isnot:e{e}:{c.name}", "is-not", e, c, val((e + 1) % n, c)))
            if nxt is not c:
                out.append(
                    _pair(grid, f"same:e{e}:{c.name}", "same-entity", atom(e, c), atom(e, nxt))
                )
            if e + 1 < n:
                a, b = atom(e, c), atom(e + 1, nxt)
                out.append(_pair(grid, f"imm:e{e}:{c.name}", "immediately-left", a, b))
                out.append(_pair(grid, f"next:e{e}:{c.name}", "next-to", b, a))
            if e + 2 < n:
                a, b = atom(e, c), atom(e + 2, nxt)
                out.append(_pair(grid, f"left:e{e}:{c.name}", "left-of", a, b))
                out.append(_pair(grid, f"right:e{e}:{c.name}", "right-of", b, a))
            opts = [atom(e, nxt), atom((e + 1) % n, nxt)]
            if e % 2:
                opts.reverse()
            subject = atom(e, c)
            out.append(
                Clue.make(
                    f"either:e{e}:{c.name}",
                    "either-or",
                    {"subject": subject, "either": opts[0], "or": opts[1]},
                    _coords_of(grid, [subject, *opts]),
                )
            )
            f1 = {"entity": e, "category": c.name, "value": c.values[val(e, c)]}
            e2 = (e + 1) % n
            f2 = {"entity": e2, "category": nxt.name, "value": nxt.values[val(e2, nxt)]}
            coords = sorted({(e, grid.index(c.name)), (e2, grid.index(nxt.name))})
            out.append(Clue.make(f"if:e{e}:{c.name}", "if-then", {"if": f1, "then": f2}, coords))
    if not grid.ordered:
        out = [c for c in out if c.kind not in RELATIONS]
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _candidates(
    params: Any, values: tuple[int, ...]
) -> dict[tuple[int, int], tuple[tuple[Clue, str], ...]]:
    """The repair candidates of a solution by coordinate, as (clue, action): the ``is`` clue of
    the coordinate (``reveal``), then the relational clues about the value the solution puts
    there (``relate``: an atom of a same-entity or position clue, the subject of an either-or),
    in :func:`_true_clues` order."""
    grid = _grid(freeze(_categories_of({k: thaw(v) for k, v in params})))
    at: dict[tuple[str, str], tuple[int, int]] = {}
    i = 0
    for e in range(grid.size):
        for c in grid.others:
            at[(c.name, c.values[values[i]])] = (e, grid.index(c.name))
            i += 1
    out: dict[tuple[int, int], list[tuple[Clue, str]]] = {}
    for clue in _true_clues(params, values):
        d = clue.data_dict()
        if clue.kind == "is":
            coord = (d["entity"], grid.index(d["category"]))
            out.setdefault(coord, []).insert(0, (clue, "reveal"))
            continue
        if clue.kind in ATOM_PAIR_KINDS:
            atoms = [d["a"], d["b"]]
        elif clue.kind == "either-or":
            atoms = [d["subject"]]
        else:
            continue
        for coord in dict.fromkeys(at[tuple(a)] for a in atoms if tuple(a) in at):
            out.setdefault(coord, []).append((clue, "relate"))
    return {k: tuple(v) for k, v in out.items()}

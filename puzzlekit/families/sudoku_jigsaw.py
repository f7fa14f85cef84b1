"""Jigsaw Sudoku: an N×N grid divided into N irregular regions of N cells; rows, columns and
regions hold 1..N once each.

Params: ``{"size": N, "regions": [row strings]}``. The regions are part of the schema (they are
rules, not clues): ``regions`` is N strings of N labels, one string per row, cells with the
same label forming one region (labels ``1``-``9`` then ``A``...; any characters are accepted
and relabelled in row-major order of first appearance, so one layout has one spelling). Regions
need not be connected, but each must have N cells. Instead of ``regions`` one may give
``{"size": N, "seed": s}``: a seeded random layout (regions grown from N seed cells over a random
Latin square, each taking only cells whose digit it lacks, so the layout is always solvable).
Without either the layout of seed 0 is used. Default size 9.

Clues: ``given`` with ``data = {"value": v}`` and one coordinate ``[row, col]`` (0-based), as in
Sudoku; the id is the cell name.

JSON format: ``{"family": "sudoku-jigsaw", "params": {"size": 4, "regions": ["1122", "1122",
"3344", "3344"]}, "clues": [{"id": "r1c2", "kind": "given", "data": {"value": 3},
"coords": [[0, 1]]}]}``.

Text format: Simon Tatham's ``solo`` jigsaw game ID (``4j:givens,layout``), which carries the
regions, so a line reads back alone (also by :mod:`puzzlekit.io.tatham`); a layout with a region
in several pieces, which a game ID cannot say, is written as the instance's JSON on one line.
The Sudoku line (N*N characters, ``.`` blank), with the regions from params, is read too.

Schema ids: ``sudoku-jigsaw-9x9`` for the default layout, else ``sudoku-jigsaw-9x9-`` and the
first 8 hex digits of the SHA-256 of the layout's rows joined by ``/``.

Repair moves: reveal the digit at the cell (the layout is fixed by the schema).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from puzzlekit.core.model import Instance, Solution, SpecError, Violation
from puzzlekit.core.protocols import FamilyInfo
from puzzlekit.families import register_family
from puzzlekit.families._kit.cages import grow_regions, render_groups, render_groups_mpl
from puzzlekit.families._kit.dihedral import UNMOVABLE, moved_given, moves
from puzzlekit.families._kit.regions import regions_to_rows, rows_to_regions
from puzzlekit.families._kit.symmetry import canonical_givens
from puzzlekit.families.grid import SYMBOLS, GivensGrid, cell_name, clue_cell

#: the layouts of seed 0, recorded so that no process pays for growing them (a 9×9 takes
#: seconds); tests check that :func:`grow_regions` still gives them
SEED0 = {
    4: ("1223", "1233", "1234", "1444"),
    5: ("11112", "31222", "33442", "34455", "34555"),
    6: ("112222", "312244", "311544", "315554", "335564", "366666"),
    7: ("1112222", "1314422", "3311442", "3333444", "5556777", "5666667", "5556777"),
    8: (
        "12222222", "11234445", "11334445", "11364455",
        "13365555", "77366668", "77368868", "77778888",
    ),
    9: (
        "122222222", "111233333", "133334445", "116444445", "166646655",
        "177666555", "777889955", "777889999", "788888999",
    ),
}  # fmt: skip


def grown_regions(n: int, seed: int) -> tuple[str, ...]:
    """The random layout of ``seed`` for an n×n grid, as row strings, grown afresh."""
    return tuple(regions_to_rows(n, grow_regions(n, np.random.default_rng([seed, n]))))


@functools.lru_cache(maxsize=64)
def seeded_regions(n: int, seed: int) -> tuple[str, ...]:
    """The random layout of ``seed`` for an n×n grid, as row strings (seed 0 is recorded)."""
    if seed == 0 and n in SEED0:
        return SEED0[n]
    return grown_regions(n, seed)


#: the largest grid whose regions are grown from a seed (larger grids give ``params.regions``)
MAX_GROWN = 9


class SudokuJigsaw(GivensGrid):
    info = FamilyInfo(
        name="sudoku-jigsaw",
        description="Sudoku with N irregular regions of N cells instead of boxes",
        clue_kinds=("given",),
        listed_params=({"size": 4}, {"size": 6}, {"size": 9}),
        size_limits={"size": 25, "regions": 25, "grown layout size": MAX_GROWN},
        value_clue_kind="given",
        symmetry_group=(
            "the square's rotations and reflections with the regions (params.regions) moved and "
            "renamed, and digit relabelling (not the row and column permutations that move an "
            "unconnected layout along)"
        ),
        rules_text=(
            "Fill every empty cell of the {size}×{size} grid with a number from 1 to {size} so "
            "that every row, every column and every one of the {size} irregular regions (outlined "
            "in the drawing) holds each number exactly once. The given numbers stay as they are."
        ),
    )
    param_keys = ("size", "regions", "seed")

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        n = self._check_size(params, default=9)
        regions = params.get("regions")
        seed = params.get("seed")
        if regions is not None and seed is not None:
            raise SpecError(
                [Violation("malformed", None, "params.seed", "give regions or seed, not both")]
            )
        if regions is None:
            if n > MAX_GROWN:  # growing a layout takes seconds at 10x10, minutes beyond
                raise SpecError(
                    [
                        Violation(
                            "out-of-domain",
                            None,
                            "params.size",
                            f"a grown layout is at most {MAX_GROWN}x{MAX_GROWN}: give "
                            "params.regions for a larger grid",
                        )
                    ]
                )
            if seed is None:
                seed = 0
            if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
                raise SpecError(
                    [Violation("malformed", None, "params.seed", f"not a seed: {seed!r}")]
                )
            return {"size": n, "regions": list(seeded_regions(n, seed))}
        if (
            not isinstance(regions, list | tuple)
            or len(regions) != n
            or not all(isinstance(row, str) and len(row) == n for row in regions)
        ):
            raise SpecError(
                [
                    Violation(
                        "shape-mismatch",
                        None,
                        "params.regions",
                        f"regions must be {n} strings of {n} labels",
                    )
                ]
            )
        groups = rows_to_regions(regions)
        bad = [g for g in groups if len(g) != n]
        if len(groups) != n or bad:
            where = bad[0][0] if bad else None
            raise SpecError(
                [
                    Violation(
                        "shape-mismatch",
                        where,
                        "params.regions",
                        f"a {n}x{n} jigsaw needs {n} regions of {n} cells; found sizes "
                        f"{sorted(len(g) for g in groups)}",
                    )
                ]
            )
        return {"size": n, "regions": regions_to_rows(n, groups)}

    def schema_id(self, params: Mapping[str, Any]) -> str:
        n = params["size"]
        base = f"{self.info.name}-{n}x{n}"
        if list(params["regions"]) == list(seeded_regions(n, 0)):
            return base
        digest = hashlib.sha256("/".join(params["regions"]).encode()).hexdigest()
        return f"{base}-{digest[:8]}"

    def regions(self, params: Mapping[str, Any]) -> list[tuple[str, list[tuple[int, int]]]]:
        groups = rows_to_regions(params["regions"])
        return [(f"region{i + 1}", cells) for i, cells in enumerate(groups)]

    # -- text -------------------------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        from puzzlekit.core import protocols
        from puzzlekit.families.tatham import parse_solo

        line = text.strip()
        if line.startswith("{"):
            return protocols.Family.parse_text(self, line, params)
        if ":" in line:
            inst = parse_solo(line)
            if inst.family != self.info.name:
                raise SpecError(
                    [Violation("malformed", None, "text", "not a jigsaw game ID (no 'j')")]
                )
            return inst
        return super().parse_text(line, params)

    def format_text(self, instance: Instance) -> str:
        from puzzlekit.families._kit.cages import components
        from puzzlekit.families.tatham import encode_block_structure, encode_grid

        params = instance.params_dict()
        n = params["size"]
        groups = rows_to_regions(params["regions"])
        if any(len(components(g)) != 1 for g in groups):
            return instance.to_json()  # a game ID's layout has connected regions only
        givens = [0] * (n * n)
        for clue in instance.clues:
            r, c = clue_cell(clue, n)
            givens[r * n + c] = clue.data_dict()["value"]
        return f"{n}j:{encode_grid(givens)},{encode_block_structure(groups, n)}"

    # -- rendering --------------------------------------------------------------------------
    def _layout(self, instance: Instance) -> tuple[int, dict, dict]:
        params = self.normalize_params(instance.params_dict())
        n = params["size"]
        group_of = {
            (r, c): ch for r, row in enumerate(params["regions"]) for c, ch in enumerate(row)
        }
        symbols: dict = {}
        for clue in instance.clues:
            v = clue.data_dict().get("value")
            if clue.kind == "given" and isinstance(v, int) and 1 <= v <= len(SYMBOLS):
                symbols[tuple(clue.coords[0])] = SYMBOLS[v - 1]
        return n, group_of, symbols

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """Regions as walled groups; givens upper case, solution digits lower case."""
        n, group_of, symbols = self._layout(instance)
        if solution:
            for r in range(n):
                for c in range(n):
                    v = solution.get(cell_name(r, c))
                    if v and (r, c) not in symbols:
                        symbols[(r, c)] = SYMBOLS[v - 1].lower()
        return render_groups(n, group_of, symbols, marks)

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        n, group_of, symbols = self._layout(instance)
        if solution:
            for r in range(n):
                for c in range(n):
                    symbols.setdefault((r, c), SYMBOLS[solution[cell_name(r, c)] - 1])
        return render_groups_mpl(n, group_of, symbols, None, ax)

    def canonical_instance(self, instance: Instance) -> Instance:
        """The least digest over the 8 moves of each move's least relabelling."""
        try:
            params = self.schema(instance.params_dict()).params_dict()
            n = params["size"]
            groups = rows_to_regions(params["regions"])
            images = []
            if any(c.kind != "given" for c in instance.clues):
                return instance
            for move, _, _ in moves(n, n):
                moved = {"size": n, "regions": regions_to_rows(n, [map(move, g) for g in groups])}
                clues = [moved_given(c, move, n) for c in instance.clues]
                image = Instance.make(self.info.name, moved, clues)
                images.append(canonical_givens(self, image, 1, 1, transpose=False, rows=False))
        except UNMOVABLE:
            return instance
        return min(images, key=lambda i: i.digest)


SUDOKU_JIGSAW = register_family(SudokuJigsaw())

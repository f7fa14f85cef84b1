"""Sudoku: an N×N grid with rectangular boxes; rows, columns and boxes hold 1..N once each.

Params: ``{"size": N, "box": [rows, cols]}`` with ``rows * cols == N``; the default is 9 and
[3, 3]; without ``box`` the most square factorisation of N is used (6 -> [2, 3], 12 -> [3, 4]).
Clues: ``given`` with ``data = {"value": v}`` and one coordinate ``[row, col]`` (0-based).

Text format: one puzzle per line, N*N characters row by row from the top-left cell, ``.`` or ``0``
for a blank, ``1``-``9`` then ``A``, ``B``, ... for values 10 and up (so 16×16 uses 1-9 and A-G).

JSON format: ``{"family": "sudoku", "params": {"size": 9, "box": [3, 3]},
"clues": [{"id": "r1c5", "kind": "given", "data": {"value": 7}, "coords": [[0, 4]]}, ...]}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.core.model import Instance, SpecError, Violation
from puzzlekit.core.protocols import FamilyInfo
from puzzlekit.families import register_family
from puzzlekit.families._kit.symmetry import canonical_givens
from puzzlekit.families.grid import MAX_SIZE, GivensGrid


def default_box(n: int) -> tuple[int, int] | None:
    """The most square rows × cols factorisation of n with rows <= cols, or None for primes > 3."""
    best = None
    for rows in range(1, n + 1):
        if n % rows == 0 and rows <= n // rows:
            best = (rows, n // rows)
    if best is not None and best[0] == 1 and n > 1:
        return None
    return best


class Sudoku(GivensGrid):
    info = FamilyInfo(
        name="sudoku",
        description="N×N grid with rectangular boxes; each row, column and box holds 1..N once",
        clue_kinds=("given",),
        listed_params=(
            {"size": 4, "box": [2, 2]},
            {"size": 6, "box": [2, 3]},
            {"size": 9, "box": [3, 3]},
            {"size": 12, "box": [3, 4]},
            {"size": 16, "box": [4, 4]},
        ),
        size_limits={"size": MAX_SIZE},
        value_clue_kind="given",
        symmetry_group=(
            "digit relabelling, rows within bands, columns within stacks, bands, stacks, and the "
            "transpose when boxes are square"
        ),
        rules_text=(
            "Fill every empty cell of the {size}×{size} grid with a number from 1 to {size} so "
            "that every row, every column and every box of {box[0]}×{box[1]} cells (outlined in "
            "the drawing) holds each number exactly once. The given numbers stay as they are."
        ),
    )
    param_keys = ("size", "box")

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        n = self._check_size(params, default=9)
        box = params.get("box")
        if box is None:
            box = default_box(n)
            if box is None:
                raise SpecError(
                    [
                        Violation(
                            "malformed",
                            None,
                            "params.box",
                            f"size {n} has no rectangular box; give params.box",
                        )
                    ]
                )
        if (
            not isinstance(box, list | tuple)
            or len(box) != 2
            or not all(isinstance(b, int) and not isinstance(b, bool) and b >= 1 for b in box)
        ):
            raise SpecError(
                [Violation("malformed", None, "params.box", f"must be [rows, cols]: {box!r}")]
            )
        if box[0] * box[1] != n:
            raise SpecError(
                [
                    Violation(
                        "shape-mismatch",
                        None,
                        "params.box",
                        f"box {list(box)} holds {box[0] * box[1]} cells, size is {n}",
                    )
                ]
            )
        return {"size": n, "box": [box[0], box[1]]}

    def box_shape(self, params: Mapping[str, Any]) -> tuple[int, int]:
        box = params.get("box") or default_box(params["size"])
        return (box[0], box[1])

    def regions(self, params: Mapping[str, Any]) -> list[tuple[str, list[tuple[int, int]]]]:
        n = params["size"]
        br, bc = params["box"]
        out = []
        for i, (r0, c0) in enumerate((r, c) for r in range(0, n, br) for c in range(0, n, bc)):
            out.append((f"box{i + 1}", [(r0 + r, c0 + c) for r in range(br) for c in range(bc)]))
        return out

    def canonical_instance(self, instance: Instance) -> Instance:
        br, bc = self.box_shape(self.normalize_params(instance.params_dict()))
        return canonical_givens(self, instance, br, bc, transpose=br == bc)


SUDOKU = register_family(Sudoku())

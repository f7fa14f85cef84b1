"""Latin squares: an N×N grid whose rows and columns each hold 1..N once.

Params: ``{"size": N}`` (required in JSON instances; the text format infers it from the line).
Clues: ``given`` with ``data = {"value": v}`` and one coordinate ``[row, col]``, as in Sudoku.
Text format: the Sudoku line format (N*N characters, ``.`` or ``0`` blank, ``1``-``9``, ``A``...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.core.model import Instance
from puzzlekit.families import register_family
from puzzlekit.families._grid import GivensGrid
from puzzlekit.families._symmetry import canonical_givens


class Latin(GivensGrid):
    name = "latin"
    description = "N×N Latin square with givens; each row and column holds 1..N once"
    rules_text = (
        "Fill every empty cell of the {size}×{size} grid with a number from 1 to {size} so that "
        "every row and every column holds each number exactly once. The given numbers stay."
    )
    param_keys = ("size",)
    symmetry_group = "symbol relabelling, row permutations, column permutations, transpose"
    listed_params = ({"size": 4}, {"size": 5}, {"size": 6}, {"size": 9})

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"size": self._check_size(params, default=None)}

    def canonical_instance(self, instance: Instance) -> Instance:
        n = self.normalize_params(instance.params_dict())["size"]
        return canonical_givens(self, instance, n, n, transpose=True)


LATIN = register_family(Latin())

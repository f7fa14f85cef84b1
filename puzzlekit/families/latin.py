"""Latin squares: an N×N grid whose rows and columns each hold 1..N once.

Params: ``{"size": N}`` (required in JSON instances; the text format infers it from the line).
Clues: ``given`` with ``data = {"value": v}`` and one coordinate ``[row, col]``, as in Sudoku.
Text format: the Sudoku line format (N*N characters, ``.`` or ``0`` blank, ``1``-``9``, ``A``...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import FamilyInfo
from puzzlekit.families import register_family
from puzzlekit.families._kit.dihedral import given
from puzzlekit.families._kit.symmetry import canonical_givens
from puzzlekit.families.grid import MAX_SIZE, GivensGrid


class Latin(GivensGrid):
    info = FamilyInfo(
        name="latin",
        description="N×N Latin square with givens; each row and column holds 1..N once",
        clue_kinds=("given",),
        listed_params=({"size": 4}, {"size": 5}, {"size": 6}, {"size": 9}),
        size_limits={"size": MAX_SIZE},
        value_clue_kind="given",
        symmetry_group=(
            "paratopy: symbol relabelling, row permutations, column permutations, and the six "
            "conjugates (any permutation of the roles of row, column and symbol; the transpose "
            "among them)"
        ),
        rules_text=(
            "Fill every empty cell of the {size}×{size} grid with a number from 1 to {size} so "
            "that every row and every column holds each number exactly once. The given numbers "
            "stay."
        ),
    )
    param_keys = ("size",)

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"size": self._check_size(params, default=None)}

    def canonical_instance(self, instance: Instance) -> Instance:
        """The least digest of the representatives (isotopy and transpose) of the puzzle and of
        its conjugates with rows, then columns, exchanged for symbols: the three classes a
        paratopy permutes among themselves."""
        n = self.normalize_params(instance.params_dict())["size"]
        base = canonical_givens(self, instance, n, n, transpose=True)
        if base is instance:  # a clue that is not a given in the grid
            return instance
        triples = [(*c.coords[0], c.data_dict()["value"] - 1) for c in instance.clues]
        for axes in ((0, 2), (1, 2)):  # each row and each column holds a symbol once
            if len({(t[axes[0]], t[axes[1]]) for t in triples}) < len(triples):
                return base
        reps = [base]
        for swap in ((2, 1, 0), (0, 2, 1)):  # rows <-> symbols, columns <-> symbols
            moved = [tuple(t[i] for i in swap) for t in triples]
            clues = [given((r, c), v + 1) for r, c, v in moved]
            image = Instance.make(self.info.name, instance.params_dict(), clues)
            reps.append(canonical_givens(self, image, n, n, transpose=True))
        return min(reps, key=lambda i: i.digest)


LATIN = register_family(Latin())

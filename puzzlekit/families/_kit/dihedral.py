"""The dihedral group of a grid, for families whose clues move with their cells.

An element is a map of cells: rows reversed or not, columns reversed or not, then (on a square
grid, or where a family allows a rectangle to turn into its transpose) the grid transposed.
A family's ``canonical_instance`` moves every clue of a puzzle by every element (and, where its
rules allow, by a relabelling of the values), rebuilds each image with its own clue builders (so
ids and coordinate orders are a function of the image alone) and keeps the image of least
key: :func:`least_image`. The whole orbit is compared, so the representative is exact (one
per class, never shared by two classes).

Not part of the public API: families call it from :meth:`Family.canonical_instance`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from puzzlekit.core.model import Clue, Instance, SpecError
from puzzlekit.families.grid import cell_name

Cell = tuple[int, int]
Move = Callable[[Cell], Cell]

#: what a clue that does not read as the family's raises while it is moved: the puzzle then
#: keeps its own digest (its family reports it when it is verified)
UNMOVABLE = (SpecError, KeyError, TypeError, ValueError, IndexError, AttributeError)


def moves(h: int, w: int, *, transpose: bool | None = None) -> list[tuple[Move, int, int]]:
    """Every element of the grid's dihedral group as (cell map, rows, columns) of the image:
    4 on a rectangle, 8 when ``transpose`` (default: when the grid is square)."""
    turn = (h == w) if transpose is None else transpose
    out: list[tuple[Move, int, int]] = []
    for swap in (False, True) if turn else (False,):
        for flip_r in (False, True):
            for flip_c in (False, True):

                def move(cell: Cell, fr: bool = flip_r, fc: bool = flip_c, sw: bool = swap) -> Cell:
                    r, c = int(cell[0]), int(cell[1])
                    if not (0 <= r < h and 0 <= c < w):
                        raise ValueError(f"cell {[r, c]} is outside the {h}x{w} grid")
                    r, c = (h - 1 - r if fr else r), (w - 1 - c if fc else c)
                    return (c, r) if sw else (r, c)

                out.append((move, w if swap else h, h if swap else w))
    return out


def least_image(
    instance: Instance, images: Sequence[tuple[Mapping[str, Any], Sequence[Clue]]]
) -> Instance:
    """The least of ``images`` (params, clues) in a total order of images: their params, then
    their clues (kind, cells, data) sorted (cheaper than a digest per image). ``images[0]`` is
    the identity's: when its clues are not ``instance``'s own (a clue the family's builders
    would not make, such as an edge clue whose cells are not its line), ``instance`` itself, so
    a puzzle that does not read never shares the digest of one that does."""

    def shape(clues: Sequence[Clue]) -> list[tuple]:
        return sorted((c.kind, c.coords, repr(c.data)) for c in clues)

    def key(image: tuple[Mapping[str, Any], Sequence[Clue]]) -> tuple[str, list[tuple]]:
        params, clues = image
        return repr(sorted(params.items())), shape(clues)

    if shape(images[0][1]) != shape(instance.clues):
        return instance
    params, clues = min(images, key=key)
    return Instance.make(instance.family, params, list(clues))


def value_of(clue: Clue, n: int) -> int:
    """A one-cell clue's ``value`` in 1..n (ValueError otherwise)."""
    value = clue.data_dict()["value"]
    if len(clue.coords) != 1 or not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"clue {clue.id} is not one cell with an integer value")
    if not 1 <= value <= n:
        raise ValueError(f"clue {clue.id}: value {value} outside 1..{n}")
    return value


def given(coord: Cell, value: int) -> Clue:
    """The one-cell ``given`` clue, id the cell's name."""
    return Clue.make(cell_name(*coord), "given", {"value": value}, [coord])


def moved_given(clue: Clue, move: Move, n: int, reverse: bool = False) -> Clue:
    """A ``given`` moved to its cell's image (its value v read as n + 1 - v when ``reverse``)."""
    value = value_of(clue, n)
    return given(move(clue.coords[0]), n + 1 - value if reverse else value)


def moved_cells(clue: Clue, move: Move) -> list[Cell]:
    """The images of a clue's cells, in the clue's order."""
    return [move(tuple(c)) for c in clue.coords]


def moved_labels(
    rows: Sequence[str], move: Move, h: int, w: int, alphabet: str | None
) -> list[str]:
    """A layout of label strings (``rows``: the grid's rows; ``h`` x ``w`` the image's shape)
    moved, its labels renamed from ``alphabet`` in row-major order of first appearance (one
    spelling per partition; None: labels kept)."""
    grid = [[""] * w for _ in range(h)]
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            r2, c2 = move((r, c))
            grid[r2][c2] = ch
    if alphabet is None:
        return ["".join(row) for row in grid]
    names: dict[str, str] = {}
    return ["".join(names.setdefault(ch, alphabet[len(names)]) for ch in row) for row in grid]


def moved_cage(clue: Clue, move: Move, n: int, reverse: bool = False) -> Clue:
    """A cage (its data kept, cells in row-major order, id ``cage-`` and its first cell) or a
    given moved; ``reverse`` is not read (no cage's data is kept by a value reversal)."""
    if clue.kind == "given":
        return moved_given(clue, move, n)
    if clue.kind != "cage" or not clue.coords:
        raise ValueError(f"clue {clue.id} is not a cage or a given")
    cells = sorted(moved_cells(clue, move))
    return Clue.make("cage-" + cell_name(*cells[0]), "cage", clue.data_dict(), cells)


def canonical_square(
    family: Any,
    instance: Instance,
    move_clue: Callable[[Clue, Move, int, bool], Clue],
    *,
    reverse: bool = False,
    layout: tuple[str, str] | None = None,
    finish: Callable[[list[Clue]], list[Clue]] | None = None,
    transpose: bool = True,
) -> Instance:
    """The least image of a puzzle on an n x n grid (params ``size`` = n) under the square's
    dihedral group (its reflections alone unless ``transpose``), and with every value v read
    as n + 1 - v too when ``reverse``:
    ``move_clue(clue, move, n, reversed)`` rebuilds one clue's image. ``layout`` (param name,
    label alphabet): a param of n label strings (regions) moved with the cells, its labels
    renamed by :func:`moved_labels`; ``finish``: each image's clues rebuilt as a whole (numbered
    in the image's order). ``instance`` itself when its params or a clue do not read."""
    try:
        params = family.schema(instance.params_dict()).params_dict()
        n = int(params["size"])
        images = []
        for move, _, _ in moves(n, n, transpose=transpose):
            moved = dict(params)
            if layout is not None and layout[0] in params:
                moved[layout[0]] = moved_labels(params[layout[0]], move, n, n, layout[1])
            for rev in (False, True) if reverse else (False,):
                clues = [move_clue(clue, move, n, rev) for clue in instance.clues]
                images.append((moved, finish(clues) if finish else clues))
    except UNMOVABLE:
        return instance
    return least_image(instance, images)


#: Kakuro's group, in words (``FamilyInfo.symmetry_group``)
KAKURO_GROUP = (
    "the rectangle's reflections and its transposes (8 images: a 5x7 layout turns into a "
    "7x5 one), the layout, runs and givens moved with their cells; a transpose or quarter "
    "turn makes across runs down runs and back (a sum is the same read either way); the "
    "representative gives its layout as params.layout"
)


class KakuroSymmetry:
    """Kakuro's clue builders and its group (a mixin of the family's class)."""

    def canonical_instance(self, instance: Instance) -> Instance:
        """The least image over :data:`KAKURO_GROUP` (the whole orbit)."""
        family: Any = self
        try:
            layout = family.layout_of(family.normalize_params(instance.params_dict()))
            h, w = len(layout), len(layout[0])
            images = [
                (
                    {"layout": moved_labels(layout, move, h2, w2, None)},
                    [self._moved_clue(clue, move) for clue in instance.clues],
                )
                for move, h2, w2 in moves(h, w, transpose=True)
            ]
        except UNMOVABLE:
            return instance
        return least_image(instance, images)

    @staticmethod
    def run_clue(kind: str, cells: Sequence[Cell], total: int) -> Clue:
        return Clue.make(
            f"{kind}-{cell_name(*cells[0])}", "run", {"direction": kind, "sum": total}, cells
        )

    @staticmethod
    def given(coord: Cell, value: int) -> Clue:
        return given(coord, value)

    def _moved_clue(self, clue: Clue, move: Move) -> Clue:
        if clue.kind == "given":
            return moved_given(clue, move, 9)
        total = clue.data_dict()["sum"]
        if clue.kind != "run" or len(clue.coords) < 2 or not isinstance(total, int):
            raise ValueError(f"clue {clue.id} is not a run or a given")
        cells = sorted(moved_cells(clue, move))
        kind = "across" if cells[0][0] == cells[1][0] else "down"
        return self.run_clue(kind, cells, total)


#: Star Battle's group, in words (``FamilyInfo.symmetry_group``)
STAR_BATTLE_GROUP = (
    "the square's rotations and reflections, regions (clues or the regions param), stars "
    "and empty cells moved with their cells"
)


class StarBattleSymmetry:
    """Star Battle's clue builders and its group (a mixin of
    :class:`~puzzlekit.families.starbattle.StarBattle`)."""

    @staticmethod
    def reveal(coord: tuple[int, int], value: int) -> Clue:
        return Clue.make(cell_name(*coord), "star" if value else "empty", {}, [coord])

    @staticmethod
    def region(index: int, cells: Sequence[tuple[int, int]]) -> Clue:
        return Clue.make(f"region{index + 1}", "region", {}, sorted(tuple(c) for c in cells))

    def canonical_instance(self, instance: Instance) -> Instance:
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        return canonical_square(
            self, instance, self._moved_clue, layout=("regions", letters), finish=self._numbered
        )

    def _moved_clue(self, clue: Clue, move: Move, n: int, reverse: bool) -> Clue:
        """One clue's image (a region's id is set by :meth:`_numbered`)."""
        if clue.kind == "region" and clue.coords:
            return self.region(0, moved_cells(clue, move))
        if clue.kind not in ("star", "empty") or len(clue.coords) != 1:
            raise ValueError(f"clue {clue.id} is not a region, star or empty cell")
        return self.reveal(move(clue.coords[0]), int(clue.kind == "star"))

    def _numbered(self, clues: list[Clue]) -> list[Clue]:
        """The region clues numbered in row-major order of their first cells."""
        regions = sorted(c.coords for c in clues if c.kind == "region")
        others = [c for c in clues if c.kind != "region"]
        return [*(self.region(i, cells) for i, cells in enumerate(regions)), *others]

"""The slots of a generator: slot index, clue id and coordinates, in one table, and the filter's
reject detail as per-coordinate channels on their grid (:func:`fill_detail`).

A schema's candidate clues are the family's true clues of a solution
(:meth:`~puzzlekit.core.protocols.Family.clues_from_solution`). Their ids and coordinates do not
depend on the solution (a Sudoku's ``r1c1`` is always the given at ``(0, 0)``; a Futoshiki-
adjacent edge is ``consecutive`` or ``apart`` by the solution, at the same two cells), so one
:class:`SlotLayout` per schema maps the action "toggle slot ``i``" to the clue it reveals or
hides, and each coordinate of the schema to one cell of the observation's grid.

Coordinates are integer tuples of one length (``(row, col)``, ``(entity, attribute)``,
``(field,)``); the grid's shape is one past the largest index on each axis, and a grid position
that holds no variable (a Kakuro block) stays 0 in every channel.

The generator environment (:mod:`puzzlekit.envs`) and the ``policy`` strategy
(:mod:`puzzlekit.generators.policy`) both lay a schema out here, so a policy trained in the one
reads the same slots and channels in the other.

Not for: choosing clues (the agent does) or verifying them (the filter does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from puzzlekit.core.model import Clue, Coord, Schema
from puzzlekit.core.report import VerifierReport

#: the reject-detail channels, in the order of :func:`fill_detail`'s rows
DETAIL_KEYS: tuple[str, ...] = ("gap", "power", "conflict", "culprit")


class LayoutError(ValueError):
    """A schema whose true clues cannot be laid out as fixed slots (the message says why)."""


@dataclass(frozen=True, eq=False)
class SlotLayout:
    """Slot ``i`` is the clue ``ids[i]`` touching ``coords[i]``; ``shape`` is the coordinate grid.

    Build one with :meth:`of`; :meth:`align` checks an episode's true clues against it.
    """

    family: str
    ids: tuple[str, ...]
    coords: tuple[tuple[Coord, ...], ...]
    shape: tuple[int, ...]
    #: the flat grid index of each schema variable, in the schema's order
    var_cells: np.ndarray
    #: the flat grid indices each slot touches (coordinates outside the grid are left out)
    slot_cells: tuple[np.ndarray, ...]
    _var_index: dict[Coord, int] = field(init=False, repr=False)

    @classmethod
    def of(cls, schema: Schema, clues: Sequence[Clue]) -> SlotLayout:
        """The layout of ``schema`` whose slots are ``clues`` (true clues of one solution)."""
        coords = [tuple(v.coord) for v in schema.variables]
        if not coords:
            raise LayoutError(f"{schema.family}: the schema has no variables to lay out")
        dims = {len(c) for c in coords}
        if len(dims) != 1 or not all(_plain_index(i) for c in coords for i in c):
            raise LayoutError(
                f"{schema.family}: coordinates are not non-negative integer tuples of one length"
            )
        if not clues:
            raise LayoutError(f"{schema.family}: the family gives no true clues to reveal")
        ids = tuple(c.id for c in clues)
        if len(set(ids)) != len(ids):
            raise LayoutError(f"{schema.family}: two true clues share an id")
        shape = tuple(max(c[d] for c in coords) + 1 for d in range(dims.pop()))
        index = {c: int(np.ravel_multi_index(c, shape)) for c in coords}
        slot_cells = tuple(
            np.array(sorted({index[tuple(x)] for x in c.coords if tuple(x) in index}), np.intp)
            for c in clues
        )
        return cls(
            family=schema.family,
            ids=ids,
            coords=tuple(tuple(tuple(x) for x in c.coords) for c in clues),
            shape=shape,
            var_cells=np.array([index[c] for c in coords], np.intp),
            slot_cells=slot_cells,
        )

    def __post_init__(self) -> None:
        shape = self.shape
        index = {
            tuple(int(i) for i in np.unravel_index(int(cell), shape)): int(cell)
            for cell in self.var_cells
        }
        object.__setattr__(self, "_var_index", index)

    @property
    def n_slots(self) -> int:
        return len(self.ids)

    @property
    def n_cells(self) -> int:
        return int(np.prod(self.shape))

    def slot_of(self, clue_id: str) -> int:
        """The slot of the clue ``clue_id``; KeyError when no slot holds it."""
        return self.ids.index(clue_id)

    def cell_of(self, coord: Coord) -> int | None:
        """The flat grid index of ``coord``, or None when it lies outside the grid."""
        coord = tuple(coord)
        known = self._var_index.get(coord)
        if known is not None:
            return known
        if len(coord) != len(self.shape) or not all(_plain_index(i) for i in coord):
            return None
        if any(i >= n for i, n in zip(coord, self.shape, strict=True)):
            return None
        return int(np.ravel_multi_index(coord, self.shape))

    def max_cover(self) -> int:
        """The most slots that touch one cell (the bound of the ``clues`` channel)."""
        count = np.zeros(self.n_cells, np.int64)
        for cells in self.slot_cells:
            count[cells] += 1
        return int(count.max(initial=0))

    def align(self, clues: Sequence[Clue]) -> tuple[Clue, ...]:
        """``clues`` (an episode's true clues) in slot order; LayoutError naming the first clue
        whose id or coordinates differ from the layout's."""
        if len(clues) != self.n_slots:
            raise LayoutError(
                f"{self.family}: {len(clues)} true clues for a layout of {self.n_slots} slots"
            )
        for i, clue in enumerate(clues):
            if clue.id != self.ids[i]:
                raise LayoutError(
                    f"{self.family}: true clue {clue.id!r} where slot {i} holds {self.ids[i]!r}:"
                    " the family's clues do not keep one layout across solutions"
                )
            if tuple(tuple(x) for x in clue.coords) != self.coords[i]:
                raise LayoutError(
                    f"{self.family}: true clue {clue.id!r} touches other coordinates than in"
                    f" slot {i}: the family's clues do not keep one layout across solutions"
                )
        return tuple(clues)


def _plain_index(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool) and value >= 0


def fill_detail(
    out: np.ndarray,
    report: VerifierReport,
    layout: SlotLayout,
    target: Mapping[str, Any],
) -> None:
    """Write the reject detail of ``report`` into ``out`` (shape ``(4, n_cells)``, rows in
    :data:`DETAIL_KEYS` order), zeroing it first; ``target`` is the episode's solution."""
    out.fill(0.0)
    rd = report.reject_detail
    if rd is None:
        return
    gap, power, conflict, culprit = out
    cells, names = [], []
    for item in rd.discriminative_gap:
        cell = layout.cell_of(item.coord)
        if cell is not None and item.field_name in target:
            cells.append(cell)
            names.append(item.field_name)
    found = report.solutions  # full assignments: every name is in each
    if cells:
        gap[cells] = 1.0
    if cells and found:
        # the share of the found solutions whose value differs from the target's, per cell
        values = np.array([[s[n] for n in names] for s in found])
        wanted = np.array([target[n] for n in names])
        power[cells] = (values != wanted).mean(axis=0)
    if rd.conflict is not None:
        for clue in rd.conflict.clues:
            for coord in clue.coords:
                if (cell := layout.cell_of(coord)) is not None:
                    conflict[cell] = 1.0
    for item in rd.culprits:
        if (cell := layout.cell_of(item.coord)) is not None:
            culprit[cell] = 1.0

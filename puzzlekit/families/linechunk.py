"""A chunk of text lines of one givens-grid schema read together (``pk.verify_many``): their
cell values in one byte string, one row of ``size * size`` bytes each, read with one
translation instead of a ``parse_text`` per line, and each row's instance made only when
asked (:class:`LineChunk`). :func:`read_values` reads a chunk where every line reads into the
same schema as :meth:`GivensGrid.parse_text <puzzlekit.families.grid.GivensGrid.parse_text>`
reads it, and answers None otherwise (the lines are then read one by one, each saying what is
wrong with it).

Not for: a family that reads its lines its own way; streams (``puzzlekit verify`` answers each
line before it reads the next).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core.model import Instance, SpecError
from puzzlekit.families._kit.gridline import GridLine
from puzzlekit.families.grid import _VALUE_BYTES, GivensGrid


class LineChunk:
    """Grid lines of one schema read together (:func:`read_values`): their cell values, one
    row of ``size * size`` bytes each, and the instance of each row, made when first asked
    (:meth:`instance`)."""

    def __init__(self, family: str, params: Any, size: int, key: Any, values: bytes) -> None:
        self.family, self.params, self.size, self.key = family, params, size, key
        self.values = values
        self._made: dict[int, Instance] = {}

    def __len__(self) -> int:
        return len(self.values) // (self.size * self.size)

    def instance(self, row: int) -> Instance:
        """The instance ``parse_text`` gives for row ``row`` (one object per row)."""
        found = self._made.get(row)
        if found is None:
            cells = self.size * self.size
            grid = GridLine(
                self.family, self.params, self.size, self.values[row * cells : (row + 1) * cells]
            )
            found = self._made.setdefault(
                row, Instance.deferred(self.family, self.params, grid, self.key)
            )
        return found

    def instances(self) -> list[Instance]:
        return [self.instance(row) for row in range(len(self))]


def reads_chunks(family: Any) -> bool:
    """Whether :func:`read_values` may read ``family``'s lines (a givens grid family that reads
    its lines as :class:`GivensGrid` does); False: each of its lines is read on its own."""
    return isinstance(family, GivensGrid) and type(family).parse_text is GivensGrid.parse_text


def read_values(family: Any, lines: Sequence[str], params: Mapping[str, Any] | None) -> Any:
    """The :class:`LineChunk` of ``lines`` (text in a givens grid family's one-line format)
    where they all read into one schema without a remark (a chunk of one file); None
    otherwise (read them one by one: each line then says what is wrong with it), and for a
    family that reads its lines its own way."""
    if not lines or not reads_chunks(family):
        return None
    try:
        frozen_params, n, key = family._line_params(lines[0].strip(), params)
    except SpecError:
        return None
    size = n * n
    table = _VALUE_BYTES[n]
    values = None
    if set(map(len, lines)) == {size}:  # no line to strip (whitespace reads as outside)
        values = "".join(lines).encode("latin-1", "replace").translate(table)
    if values is None or b"\xff" in values:
        stripped = [line.strip() for line in lines]
        if set(map(len, stripped)) != {size}:
            return None
        values = "".join(stripped).encode("latin-1", "replace").translate(table)
        if b"\xff" in values:  # a character outside the table
            return None
    return LineChunk(family.info.name, frozen_params, n, key, values)


def read_lines(family: Any, lines: Sequence[str], params: Mapping[str, Any] | None) -> Any:
    """The instances :func:`read_values` reads (``family.parse_text`` of each line), or None
    where it reads none."""
    chunk = read_values(family, lines, params)
    return None if chunk is None else chunk.instances()

"""A givens grid read from its one-line text form, kept as the values of its cells.

:class:`GridLine` is the :class:`~puzzlekit.core.model.ClueSource` of the instances
:meth:`GivensGrid.parse_text <puzzlekit.families.grid.GivensGrid.parse_text>` reads (Sudoku,
Latin squares): the clue objects are built only when something reads ``instance.clues``, and the
canonical bytes are joined from per-cell bytes computed once per schema, cell and value from the
clue objects themselves (so they are the bytes the clues give, by construction). A verifier that
takes arrays (the bitmask backend) reads :attr:`GridLine.values` directly.

Not part of the public API; not for grids with clues other than givens.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from itertools import compress
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.jsondata import canonical_json, thaw, typed_key
from puzzlekit.core.model import Clue


class _Bytes:
    """The canonical bytes of one schema's instances: the frame around the clues and each
    (cell, value) clue's bytes, filled in as they are first needed."""

    def __init__(self, family: str, params: Any) -> None:
        self.family = family
        self.params = params
        self.head = b'{"clues":['
        self.tail = (
            b'],"family":'
            + canonical_json(family)
            + b',"params":'
            + canonical_json(thaw(params), keys_are_strings=True)
            + b"}"
        )
        self.cells: dict[tuple[int, int], bytes] = {}
        self.clues: dict[tuple[int, int], Clue] = {}
        #: the same by ``cell * (size + 1) + value`` (None: not computed yet), per size
        self.flat: dict[int, list[bytes | None]] = {}
        self._family: Any = None
        self._schema: Any = None

    def made(self, n: int, cell: int, value: int) -> Clue:
        """A new clue object, the one the family makes for ``value`` at ``cell`` (row-major)."""
        if self._family is None:
            from puzzlekit.families import get_family

            family = get_family(self.family)
            self._schema = family.schema(thaw(self.params))
            self._family = family
        return self._family.given(self._schema, divmod(cell, n), value)  # type: ignore[no-any-return]

    def given(self, n: int, cell: int, value: int) -> Clue:
        """The clue object of ``value`` at ``cell``: :meth:`made` once, then shared by every
        instance of this schema that has it (clues are frozen; what they cache, their canonical
        bytes and order key, is computed once for all)."""
        found = self.clues.get((cell, value))
        if found is None:
            found = self.clues[(cell, value)] = self.made(n, cell, value)
        return found

    def clue_bytes(self, n: int, cell: int, value: int) -> bytes:
        found = self.cells.get((cell, value))
        if found is None:  # from a clue object of its own (no shared one's cache)
            found = self.cells[(cell, value)] = self.made(n, cell, value).canonical_json()
        return found


_TABLES: dict[tuple[str, str], _Bytes] = {}
_LOCK = threading.Lock()


#: the table of a params object (the parser hands every line of one schema the same one): its
#: id, checked by identity (the table holds the object, so its id is not reused meanwhile)
_BY_ID: dict[int, _Bytes] = {}


def _table(family: str, params: Any) -> _Bytes:
    found = _BY_ID.get(id(params))
    if found is not None and found.params is params and found.family == family:
        return found
    key = (family, typed_key(params))
    found = _TABLES.get(key)
    if found is None:
        with _LOCK:
            if len(_TABLES) > 256:
                _TABLES.clear()
                _BY_ID.clear()
            found = _TABLES.setdefault(key, _Bytes(family, params))
    if found.params is params:
        _BY_ID[id(params)] = found
    return found


@dataclass(frozen=True, eq=False)
class GridLine:
    """An ``size``×``size`` grid of givens: ``values[i]`` is the value of cell ``i`` (row by row
    from the top-left), 0 for a blank. ``family`` is the registered family name, ``params`` the
    instance's frozen params."""

    family: str
    params: Any
    size: int
    values: bytes

    def givens(self) -> tuple[tuple[int, int], ...]:
        """(cell index, value) of every given, row by row (computed once)."""
        found = self.__dict__.get("_givens")
        if found is None:
            values = self.values
            found = tuple([(i, values[i]) for i in compress(range(len(values)), values)])
            object.__setattr__(self, "_givens", found)
        return found  # type: ignore[no-any-return]

    def clues(self) -> tuple[Clue, ...]:
        """The clue objects, row by row (the family's ``given`` for each)."""
        table = _table(self.family, self.params)
        return tuple(table.given(self.size, i, v) for i, v in self.givens())

    def canonical_json(self) -> bytes:
        """The instance's RFC 8785 bytes: clues by id (row by row is that order: ``r2c1`` before
        ``r10c1``), family, params."""
        table = _table(self.family, self.params)
        n, values = self.size, self.values
        m = n + 1
        flat = table.flat.get(n)
        if flat is None:
            flat = table.flat[n] = [None] * (len(values) * m)
        at = compress(range(len(values)), values)  # the cells with a value, row by row
        parts = [flat[i * m + values[i]] for i in at]
        if None in parts:  # bytes not computed yet: from the clue objects, once
            for i in compress(range(len(values)), values):
                if flat[i * m + values[i]] is None:
                    flat[i * m + values[i]] = table.clue_bytes(n, i, values[i])
            parts = [flat[i * m + values[i]] for i in compress(range(len(values)), values)]
        return table.head + b",".join(parts) + table.tail  # type: ignore[arg-type]


def kept_givens(family: Any, own: Any, schema: Any, solution: Any, k: int, rng: Any) -> list[Clue]:
    """A grid of givens' :meth:`~puzzlekit.core.protocols.Family.initial_clues`: the default's
    draws and clues (``k`` of ``clues_from_solution``, one given a variable in schema order),
    building only the ``k`` kept, where the family's ``clues_from_solution`` is ``own`` (the
    grid's); the default itself for a family that builds its clues otherwise."""
    if type(family).clues_from_solution is not own:
        return protocols.Family.initial_clues(family, schema, solution, k, rng)
    kept = protocols.pick_in_order(schema.variables, k, rng)
    return [family.given(schema, v.coord, solution[v.name]) for v in kept]

"""Clues: the facts of one instance (:class:`Clue`), and the reading of one clue of the JSON
instance format (:func:`read_clue`, which :func:`puzzlekit.core.model.read_instance` calls for
each clue). Re-exported by :mod:`puzzlekit.core.model`, where instances and schemas live.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from puzzlekit.core.constraints import Coord
from puzzlekit.core.jsondata import FrozenMap, canonical_json, freeze, thaw, typed_key
from puzzlekit.core.reading import MAX_SAFE_INT, faults, valid_unicode
from puzzlekit.core.violations import Violation


def thaw_coord(coord: Any) -> Coord:
    """A coordinate read from JSON (a list) as the tuple the model uses."""
    if isinstance(coord, list | tuple):
        return tuple(coord)
    return (coord,)


#: the largest integer a plain given's value or coordinate may hold to be written directly (at
#: most 15 digits, as canonical JSON writes integers without an exponent)
_PLAIN_INT = 10**15


def plain_given_json(clue: Any) -> bytes | None:
    """The RFC 8785 bytes of ``clue``'s :meth:`Clue.to_json_obj` when it is a plain given
    (kind ``given``, an ASCII letters-and-digits id, one coordinate of two non-negative integers,
    data ``{"value": integer}``), written field by field from its content (no cache read);
    None for any other clue (:func:`~puzzlekit.core.jsondata.canonical_json` writes it)."""
    data, coords, cid = clue.data, clue.coords, clue.id
    if clue.kind != "given" or type(cid) is not str or not (cid.isascii() and cid.isalnum()):
        return None
    if len(coords) != 1 or len(data) != 1 or len(data[0]) != 2 or data[0][0] != "value":
        return None
    coord, value = coords[0], data[0][1]
    if type(value) is not int or not -_PLAIN_INT < value < _PLAIN_INT or len(coord) != 2:
        return None
    r, c = coord
    if (
        type(r) is not int
        or type(c) is not int
        or not (0 <= r < _PLAIN_INT and 0 <= c < _PLAIN_INT)
    ):
        return None
    return b'{"coords":[[%d,%d]],"data":{"value":%d},"id":"%s","kind":"given"}' % (
        r, c, value, cid.encode("ascii"),
    )  # fmt: skip


@dataclass(frozen=True)
class Clue:
    """A fact of one instance: an id, a kind (``given``, ``cage``, ...), its data, its coordinates.

    ``data`` is frozen JSON (see :func:`freeze`); use :meth:`data_dict` to read it as a dict.
    """

    id: str
    kind: str
    data: tuple[tuple[str, Any], ...]
    coords: tuple[Coord, ...]

    @classmethod
    def make(cls, id: str, kind: str, data: Mapping[str, Any], coords: Sequence[Coord]) -> Clue:
        return cls(str(id), str(kind), freeze(dict(data)), tuple(tuple(c) for c in coords))

    def data_dict(self) -> dict[str, Any]:
        return {k: thaw(v) for k, v in self.data}

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "data": self.data_dict(),
            "coords": [list(c) for c in self.coords],
        }

    def canonical_json(self) -> bytes:
        """RFC 8785 bytes of :meth:`to_json_obj`, computed once (clues are shared by instances)."""
        cached = self.__dict__.get("_canonical")
        if cached is None:
            cached = canonical_json(self.to_json_obj(), keys_are_strings=True)
            object.__setattr__(self, "_canonical", cached)
        return cached

    def content_key(self) -> str:
        """A key of the clue's content (kind, data, coords) for caches: unlike the frozen values
        themselves it tells apart what Python compares equal and JSON does not (``true`` and
        ``1``, ``1`` and ``1.0``), so a cache never answers one with the other."""
        cached = self.__dict__.get("_content_key")
        if cached is None:
            cached = typed_key((self.kind, self.data, self.coords))
            object.__setattr__(self, "_content_key", cached)
        return cached


def _plain_clue(rc: Any) -> Clue | None:
    """The clue of ``rc`` when it has the plainest shape (ASCII id and kind, data of ASCII keys
    and safe integers, coordinates of safe integers): what the general reading gives it, read
    with fewer checks, since no fault can hide in that shape; None for anything else (the
    general reading decides)."""
    if type(rc) is not dict or len(rc) != 4:
        return None
    cid, kind, data, coords = rc.get("id"), rc.get("kind"), rc.get("data"), rc.get("coords")
    if type(cid) is not str or type(kind) is not str or not (cid.isascii() and kind.isascii()):
        return None
    if type(data) is not dict or type(coords) is not list:
        return None
    safe = MAX_SAFE_INT
    for key, value in data.items():
        if type(key) is not str or not key.isascii() or type(value) is not int:
            return None
        if not -safe <= value <= safe:
            return None
    for coord in coords:
        if type(coord) is not list or not 0 < len(coord) <= 8:
            return None
        for x in coord:  # safe integers (not bool: its type is not int)
            if type(x) is not int or not -safe <= x <= safe:
                return None
    return Clue(cid, kind, FrozenMap(sorted(data.items())), tuple(map(tuple, coords)))


def _read_coord(raw: Any) -> Coord | None:
    """A coordinate of the JSON format (an array of integers and names, or one of them)."""
    coord = thaw_coord(raw)
    ok = all(
        (isinstance(x, int) and not isinstance(x, bool) and abs(x) <= MAX_SAFE_INT)
        or (isinstance(x, str) and valid_unicode(x))
        for x in coord
    )
    return coord if ok and len(coord) <= 8 else None


def read_clue(where: str, rc: Any, problems: list[Violation]) -> Clue | None:
    """One clue of the JSON format, or None with its violations added to ``problems``."""
    plain = _plain_clue(rc)
    if plain is not None:
        return plain
    if not isinstance(rc, Mapping):
        problems.append(Violation("malformed", None, where, "a clue must be a JSON object"))
        return None
    cid, kind = rc.get("id"), rc.get("kind")
    data, raw_coords = rc.get("data", {}), rc.get("coords", [])
    if (
        not isinstance(cid, str | int)
        or isinstance(cid, bool)
        or not isinstance(kind, str)
        or faults([cid, kind])
    ):
        problems.append(Violation("malformed", None, where, "a clue needs an id and a kind"))
        return None
    if not isinstance(data, Mapping) or not isinstance(raw_coords, list | tuple):
        problems.append(
            Violation("malformed", None, where, "data must be an object, coords an array")
        )
        return None
    coords = []
    for j, raw in enumerate(raw_coords):
        coord = _read_coord(raw)
        if coord is None:
            detail = "a coordinate is an array of integers (or names), e.g. [0, 2]"
            problems.append(Violation("malformed", None, f"{where}.coords[{j}]", detail))
            return None
        coords.append(coord)
    found = faults(data, f"{where}.data", limit=4)
    if found:
        at = coords[0] if coords else None
        problems.extend(Violation("malformed", at, f.path, f.detail) for f in found)
        return None
    try:
        return Clue.make(str(cid), kind, data, coords)
    except (TypeError, ValueError) as exc:
        problems.append(Violation("malformed", None, where, str(exc)))
        return None

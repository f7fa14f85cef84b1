"""Reading the JSON instance format (``{"family", "params", "clues"}``) through the reading
boundary (:mod:`puzzlekit.core.reading`): every fault becomes a violation naming its path, with
the clue's coordinate when it is inside a clue; coordinates are arrays of integers or names
(never arrays or objects, which cannot be hashed). :meth:`Instance.from_json_obj` calls it.

Not for: checking an instance against its family (that is ``families.resolve``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.core.jsondata import FrozenMap
from puzzlekit.core.model import Clue, Coord, Instance, SpecError, Violation, thaw_coord
from puzzlekit.core.reading import MAX_SAFE_INT, faults, valid_unicode


def read_instance(obj: Any) -> Instance:
    """An :class:`~puzzlekit.core.model.Instance` from the JSON instance format; SpecError with
    every violation found (see :meth:`Instance.from_json_obj`)."""
    if not isinstance(obj, Mapping):
        raise SpecError([Violation("malformed", None, "$", "an instance must be a JSON object")])
    problems = [
        Violation("malformed", None, f.path, f.detail)
        for f in faults({k: v for k, v in obj.items() if k != "clues"}, limit=8)
    ]
    family = obj.get("family")
    if not isinstance(family, str):
        problems.append(Violation("malformed", None, "family", "missing or not a string"))
    params = obj.get("params", {})
    if not isinstance(params, Mapping):
        problems.append(Violation("malformed", None, "params", "must be a JSON object"))
    raw_clues = obj.get("clues", [])
    if not isinstance(raw_clues, list | tuple):
        problems.append(Violation("malformed", None, "clues", "must be a JSON array"))
        raw_clues = []
    unknown = sorted(str(k) for k in set(obj) - {"family", "params", "clues"})
    for key in unknown:
        problems.append(Violation("unknown-field", None, key, "not a field of an instance"))
    clues = []
    for i, rc in enumerate(raw_clues):
        clue = _read_clue(f"clues[{i}]", rc, problems)
        if clue is not None:
            clues.append(clue)
    if problems:
        raise SpecError(problems)
    return Instance.make(family, params, clues)


def _read_coord(raw: Any) -> Coord | None:
    """A coordinate of the JSON format (an array of integers and names, or one of them)."""
    coord = thaw_coord(raw)
    ok = all(
        (isinstance(x, int) and not isinstance(x, bool) and abs(x) <= MAX_SAFE_INT)
        or (isinstance(x, str) and valid_unicode(x))
        for x in coord
    )
    return coord if ok and len(coord) <= 8 else None


def _plain_int(x: Any) -> bool:
    return type(x) is int and -MAX_SAFE_INT <= x <= MAX_SAFE_INT


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
    for key, value in data.items():
        if type(key) is not str or not key.isascii() or not _plain_int(value):
            return None
    for coord in coords:
        if type(coord) is not list or not 0 < len(coord) <= 8:
            return None
        if not all(_plain_int(x) for x in coord):
            return None
    return Clue(cid, kind, FrozenMap(sorted(data.items())), tuple(tuple(c) for c in coords))


def _read_clue(where: str, rc: Any, problems: list[Violation]) -> Clue | None:
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

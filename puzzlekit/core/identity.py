"""The canonical order of an instance's clues, so that content alone decides an instance's digest,
and the clues that break identity: two clues with one id (identical duplicates included).

:class:`~puzzlekit.core.model.Instance` holds its clues in :func:`canonical_order`, fixed at
construction: by clue id in natural order (runs of digits compare as numbers, so ``r2c1`` comes
before ``r10c1`` and cell ids run row by row), then by the id's characters (``c01`` before
``c1``), then, for clues that share an id, by the clue's canonical bytes. The same puzzle read
from JSON with its clues in any order, its text line, a Tatham ID, a ``generate`` record or a
Parquet row therefore has one digest. Ids are content here: every built-in family names a clue
by what it says (``r3c5``, ``cage-r1c1``, ``row4``, ``r1c1-r1c2``, ``region2``), never by the
place it was read at. :func:`duplicate_clues` turns two clues with one id into ``duplicate-clue``
violations instead of merging them; :func:`clue_violations` adds them to a family's own
``validate_clues`` (what ``families.resolve`` and the fast backends check).

Not for: symmetry classes (a family's ``canonical_digest``) or checking clues against a family
(``families.resolve``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from puzzlekit.core.violations import Violation

_RUNS = re.compile(r"([0-9]+)")


class _ClueLike(Protocol):
    id: str
    coords: tuple[tuple[Any, ...], ...]

    def canonical_json(self) -> bytes: ...


#: the keys of ids seen lately (a loop and a reader meet the same few hundred ids again and again)
_KEYS: dict[str, tuple[Any, ...]] = {}


def natural_key(text: str) -> tuple[Any, ...]:
    """``text`` split into runs of ASCII digits and the rest, digit runs compared as numbers
    (by length once leading zeros are gone, then by digits: no int conversion, so a run of any
    length compares); ``text`` itself breaks the ties (``c01`` before ``c1``)."""
    found = _KEYS.get(text)
    if found is not None and type(text) is str:
        return found
    key = _natural_key(text)
    if type(text) is str:
        if len(_KEYS) >= 8192:
            _KEYS.clear()
        _KEYS[text] = key
    return key


def _natural_key(text: str) -> tuple[Any, ...]:
    parts: list[Any] = []
    for i, part in enumerate(_RUNS.split(text)):
        if i % 2:
            digits = part.lstrip("0")
            parts.append((len(digits), digits))
        else:
            parts.append(part)
    return (tuple(parts), text)


def clue_key(clue: _ClueLike) -> tuple[Any, ...]:
    """A clue's place in the canonical order (:func:`natural_key` of its id), kept on the clue
    (clues are shared by the instances a loop builds)."""
    cached = clue.__dict__.get("_order_key")
    if cached is None:
        cached = natural_key(str(clue.id))
        object.__setattr__(clue, "_order_key", cached)
    return cached


def canonical_order(clues: Iterable[Any]) -> tuple[Any, ...]:
    """``clues`` in the canonical order (the module docstring): by id, and clues that share an id
    (an invalid instance, which still has one digest) by their canonical bytes."""
    ordered = sorted(clues, key=clue_key)
    if any(a.id == b.id for a, b in zip(ordered, ordered[1:], strict=False)):
        ordered.sort(key=lambda c: (clue_key(c), c.canonical_json()))
    return tuple(ordered)


def duplicate_clues(clues: Sequence[_ClueLike]) -> list[Violation]:
    """A ``duplicate-clue`` violation for every clue whose id an earlier clue has, at the clue's
    first coordinate: identical duplicates and two different clues with one id alike."""
    out = []
    first: dict[str, _ClueLike] = {}
    for clue in clues:
        seen = first.get(clue.id)
        if seen is None:
            first[clue.id] = clue
            continue
        same = seen.canonical_json() == clue.canonical_json()
        detail = (
            "the same clue is given twice (identical duplicates are not merged)"
            if same
            else "two different clues have this id (an id names one clue)"
        )
        at = clue.coords[0] if clue.coords else None
        out.append(Violation("duplicate-clue", at, f"clue {clue.id}", detail))
    return out


def clue_violations(family: Any, schema: Any, clues: Sequence[Any]) -> list[Violation]:
    """``family.validate_clues`` (:class:`~puzzlekit.core.protocols.Family`) plus a
    ``duplicate-clue`` violation for every clue id used twice, also when an override of the hook
    does not check ids; one ``duplicate-clue`` violation per clue (an identical duplicate also
    gives the same cell, pair or line twice)."""
    out: list[Violation] = []
    named: set[str] = set()
    for v in [*family.validate_clues(schema, clues), *duplicate_clues(clues)]:
        if v.violation_type == "duplicate-clue":
            if v.field_name in named:
                continue
            named.add(v.field_name)
        out.append(v)
    return out

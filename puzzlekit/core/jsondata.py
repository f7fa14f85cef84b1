"""Plain JSON data: the one conversion of mappings and sequences into plain Python (:func:`plain`),
the frozen form that frozen dataclasses hold (:func:`freeze`, :func:`thaw`; :func:`frozen`, a
read-only form that still reads as mappings and sequences), and the canonical
bytes and digest that identify data (:func:`canonical_json`, :func:`sha256_digest`).

Every floor that needs one of these calls it from here; :mod:`puzzlekit.core.model` re-exports
:func:`freeze`, :func:`canonical_json` and :func:`sha256_digest`. Not for checking data against
a schema (families and the review kernel do that) or for reading files (:mod:`puzzlekit.io`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import rfc8785

from puzzlekit.core.reading import MAX_DEPTH, faults


def plain(value: Any, leaf: Callable[[Any], Any] | None = None) -> Any:
    """``value`` as plain JSON-able Python: mappings become dicts with string keys (a key that is
    not a string is converted with ``str``), lists and tuples become lists, recursively.

    Anything else is a leaf, returned as it is, or passed to ``leaf`` when one is given (which
    may call :func:`plain` again, for example on an object's JSON form).
    """
    if (
        type(value) in _FLAT
        and leaf is None
        and _STR.issuperset(map(type, value))
        and _LEAVES.issuperset(map(type, value.values()))
    ):  # the common flat case (a solution, a trace entry), checked at C speed: a copy
        return dict(value)
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else str(k): plain(v, leaf) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, leaf) for v in value]
    return value if leaf is None else leaf(value)


class FrozenMap(tuple):
    """A frozen mapping: a tuple of ``(key, value)`` pairs sorted by key, marked as a mapping so
    that :func:`thaw` gives back an object even when it is empty (``{}`` stays ``{}``, not
    ``[]``)."""

    __slots__ = ()


def freeze(value: Any) -> Any:
    """Turn JSON-like data (dicts, lists) into hashable immutable data (:class:`FrozenMap` of
    pairs, tuples).

    Raises ValueError for data nested deeper than :data:`~puzzlekit.core.reading.MAX_DEPTH`."""
    return _freeze(value, 0)


def _freeze(value: Any, depth: int) -> Any:
    if isinstance(value, Mapping | list | tuple) and depth >= MAX_DEPTH:
        raise ValueError(f"data nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        return FrozenMap(sorted((str(k), _freeze(v, depth + 1)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_freeze(v, depth + 1) for v in value)
    return value


class FrozenDict(dict):  # type: ignore[type-arg]
    """A read-only ``dict``: reads like a dict (``json.dumps``, ``dict(...)``, ``isinstance(...,
    dict)`` keep working), and every method that would change it raises ``TypeError``. Made by
    :func:`frozen`, which freezes its values too; copying or pickling gives an equal one."""

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("this mapping is read-only (immutable report or instance material)")

    __setitem__ = __delitem__ = __ior__ = _readonly
    clear = pop = popitem = setdefault = update = _readonly

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: Any) -> FrozenDict:
        return self


#: the leaves a report holds most (solution values, names): immutable, checked by exact type
_LEAVES = frozenset({str, int, float, bool, type(None)})
#: the mappings :func:`plain` copies at once when every key is a string and every value a leaf
#: (exact types: a subclass takes the general path; ``FrozenDict`` is a report's read-only dict)
_FLAT = frozenset({dict, FrozenDict})
_STR = frozenset({str})


def frozen(value: Any) -> Any:
    """``value`` immutable all the way down and still readable as JSON data: mappings become
    :class:`FrozenDict` s, lists and tuples become tuples, recursively (other leaves as they
    are). Unlike :func:`freeze`, a mapping stays a mapping."""
    if type(value) in _LEAVES:
        return value
    if isinstance(value, FrozenDict):
        if _LEAVES.issuperset(map(type, value.values())) or all(
            type(v) in _LEAVES or _is_frozen(v) for v in value.values()
        ):  # leaves only (a solution), checked at C speed first
            return value
        return FrozenDict({k: frozen(v) for k, v in value.items()})
    if type(value) is dict and _LEAVES.issuperset(map(type, value.values())):
        return FrozenDict(value)  # leaves only (a solution): a copy, made at C speed
    if isinstance(value, Mapping):
        return FrozenDict({k: v if type(v) in _LEAVES else frozen(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(v if type(v) in _LEAVES else frozen(v) for v in value)
    return value


def _is_frozen(value: Any) -> bool:
    if type(value) in _LEAVES or isinstance(value, FrozenDict):
        return True  # frozen() builds FrozenDicts frozen all the way down
    if isinstance(value, tuple):
        return all(_is_frozen(v) for v in value)
    return not isinstance(value, Mapping | list | set | bytearray)


def typed_key(value: Any) -> str:
    """A cache key of frozen data that keeps apart values Python compares equal but JSON does
    not: ``True`` and ``1``, ``1`` and ``1.0``, ``0.0`` and ``-0.0`` (frozen tuples of them
    compare and hash equal, so a cache keyed by them would answer an invalid ``true`` with what
    it computed for a valid ``1``). The ``repr``, which spells each type its own way."""
    return repr(value)


def thaw(value: Any) -> Any:
    """The inverse of :func:`freeze`: tuples of ``(str, value)`` pairs become dicts, other tuples
    lists."""
    if isinstance(value, FrozenMap):
        return {k: thaw(v) for k, v in value}
    if isinstance(value, tuple):
        if value and all(
            isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in value
        ):
            # a frozen mapping; lists of string pairs are not used in clue data
            return {k: thaw(v) for k, v in value}
        return [thaw(v) for v in value]
    return value


_SAFE_INT = 2**53


def _leaf_is_canonical(value: Any) -> bool | None:
    """For a string, integer, bool or None: whether its sorted compact ``json.dumps`` is its
    RFC 8785 form; None for anything else (a container, a float, another type)."""
    kind = type(value)
    if kind is str:
        return value.isascii() and value.isprintable()  # control characters escape differently
    if kind is int:
        return -_SAFE_INT < value < _SAFE_INT
    if value is None or kind is bool:
        return True
    if isinstance(value, str):
        return value.isascii() and value.isprintable()
    if isinstance(value, int):  # bool is handled above; int subclasses
        return -_SAFE_INT < value < _SAFE_INT
    return None


def _dumps_is_canonical(obj: Any) -> bool:
    """True when ``obj`` holds only objects and strings of printable ASCII, arrays, bools, None
    and integers within ±2**53, nested at most ``MAX_DEPTH`` deep: data whose RFC 8785 form
    equals sorted compact ``json.dumps``. Walks the containers with a stack (no recursion) and
    checks the leaves in place: it runs on every digest the loop takes."""
    leaf = _leaf_is_canonical(obj)
    if leaf is not None:
        return leaf
    stack = [(obj, 0)]
    while stack:
        container, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return False
        if isinstance(container, list | tuple):
            items: Any = container
        elif isinstance(container, dict):
            for k in container:
                if not isinstance(k, str) or not (k.isascii() and k.isprintable()):
                    return False
            items = container.values()
        else:
            return False
        for value in items:
            leaf = _leaf_is_canonical(value)
            if leaf is None:
                stack.append((value, depth + 1))
            elif not leaf:
                return False
    return True


#: a JSON string token, escapes included; and, once strings are removed, what makes a number
#: other than an integer of at most 15 digits (a fraction, an exponent, a long integer)
_STRING_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"')
_UNSAFE_DIGITS = re.compile(r"[0-9](?:[eE]|[0-9]{15})")


def _unsafe_number(text: str) -> bool:
    """Whether ``text`` holds a fraction, an exponent or an integer of 16 digits or more (a dot
    found by ``in``, at C speed, before the regular expression looks at the digits)."""
    return "." in text or _UNSAFE_DIGITS.search(text) is not None


def _dumps_if_canonical(obj: Any) -> bytes | None:
    """Sorted compact ``json.dumps`` of ``obj`` when it is the RFC 8785 form, checked on the text
    (at C speed) rather than on the data: ASCII only (every ASCII character, control characters
    included, is written alike by both) and no number but integers of at most 15 digits. None
    otherwise. Only for data whose mapping keys are strings and nesting is bounded (what
    :func:`freeze` makes): ``json.dumps`` would write other keys as strings."""
    try:
        text = json.dumps(
            obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError, RecursionError):
        return None
    if not text.isascii():
        return None
    # a string never touches a number or a literal (JSON puts punctuation between them), so
    # text with no unsafe match has none outside its strings either: the strings are taken
    # out only to clear a match inside one
    if _unsafe_number(text) and _unsafe_number(_STRING_TOKEN.sub("", text)):
        return None
    return text.encode("ascii")


def canonical_json(obj: Any, *, keys_are_strings: bool = False) -> bytes:
    """RFC 8785 canonical JSON bytes of ``obj``.

    ``keys_are_strings``: the caller vouches that every mapping key is a string and the nesting
    is within :data:`~puzzlekit.core.reading.MAX_DEPTH` (thawed :func:`freeze` data: instance
    and clue content); the fast path is then checked on the text (:func:`_dumps_if_canonical`),
    which the loop's integrity checks, hashing every instance it hands on, need.

    Instances are hashed on every verifier call, and the ``rfc8785`` package takes milliseconds
    for an 81-clue grid; for data that :func:`_dumps_is_canonical` accepts, sorted compact
    ``json.dumps`` gives the same bytes (tests compare both on generated data), everything else
    goes to ``rfc8785``. Data that canonical JSON cannot hold (NaN, integers beyond ±2**53, lone
    surrogates: ``rfc8785.CanonicalizationError``) and data nested too deeply raise ValueError;
    input read through :mod:`puzzlekit.core.reading` never holds either.
    """
    if keys_are_strings:
        fast = _dumps_if_canonical(obj)
        if fast is not None:
            return fast
    elif _dumps_is_canonical(obj):
        return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode("ascii")
    found = faults(obj)
    if found:
        raise rfc8785.CanonicalizationError(f"{found[0].path}: {found[0].detail}")
    return rfc8785.dumps(obj)


def sha256_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()

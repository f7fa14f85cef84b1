"""The backend-neutral puzzle model: variables, constraints with origins, clues, schemas, instances.

This module is the ground floor that every backend and generator shares. It knows nothing about
how a puzzle is solved (that is ``verifiers/``) nor about any particular family (that is
``puzzlekit/families/``). An :class:`Instance` is immutable and addressed by the SHA-256 digest of
its RFC 8785 canonical JSON, so evaluators can receive it as bytes and check that nothing changed.
The frozen form of data, canonical JSON and digests live in :mod:`puzzlekit.core.jsondata` and are
re-exported here (:func:`freeze`, :func:`canonical_json`, :func:`sha256_digest`), and so is the
constraint vocabulary of :mod:`puzzlekit.core.constraints` (:class:`AllDifferent`, :class:`Linear`,
..., their :class:`Origin`, :func:`compare`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from puzzlekit.core.clues import Clue as Clue
from puzzlekit.core.clues import plain_given_json, read_clue
from puzzlekit.core.clues import thaw_coord as thaw_coord
from puzzlekit.core.constraints import OPS as OPS
from puzzlekit.core.constraints import AllDifferent as AllDifferent
from puzzlekit.core.constraints import Automaton as Automaton
from puzzlekit.core.constraints import Compare as Compare
from puzzlekit.core.constraints import Constraint as Constraint
from puzzlekit.core.constraints import Coord as Coord
from puzzlekit.core.constraints import Count as Count
from puzzlekit.core.constraints import Linear as Linear
from puzzlekit.core.constraints import Origin as Origin
from puzzlekit.core.constraints import Predicate as Predicate
from puzzlekit.core.constraints import Regular as Regular
from puzzlekit.core.constraints import Solution as Solution
from puzzlekit.core.constraints import Table as Table
from puzzlekit.core.constraints import Value as Value
from puzzlekit.core.constraints import compare as compare
from puzzlekit.core.constraints import scope as scope
from puzzlekit.core.identity import canonical_order
from puzzlekit.core.jsondata import canonical_json, freeze, sha256_digest, thaw, typed_key
from puzzlekit.core.reading import (
    ReadError,
    ascii_int,
    faults,
    parse_json,
)
from puzzlekit.core.violations import VIOLATION_TYPES as VIOLATION_TYPES
from puzzlekit.core.violations import SpecError as SpecError
from puzzlekit.core.violations import Violation as Violation

_thaw = thaw  # the name families imported before thaw moved to core.jsondata

#: the representative of a symmetry class, named rather than imported: families sit above the
#: model, and are loaded on first use (``"module:attr"``, as the registries name entries)
CANONICAL_INSTANCE = "puzzlekit.families:canonical_instance"


@dataclass(frozen=True)
class Variable:
    """One unknown of a schema: where it is (``coord``), what players call it, what it may be."""

    coord: Coord
    name: str
    domain: tuple[Value, ...]


# --- schemas, instances ---------------------------------------------------------------------


@dataclass(frozen=True)
class Schema:
    """A family with fixed params: its variables and its rules (constraints with rule origins)."""

    family: str
    params: tuple[tuple[str, Any], ...]
    variables: tuple[Variable, ...]
    rules: tuple[Constraint, ...]
    clue_kinds: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {v.name: v for v in self.variables})
        object.__setattr__(self, "_by_coord", {v.coord: v for v in self.variables})
        object.__setattr__(self, "_names", tuple(v.name for v in self.variables))

    def params_dict(self) -> dict[str, Any]:
        return {k: thaw(v) for k, v in self.params}

    def var(self, name: str) -> Variable:
        return self._by_name[name]  # type: ignore[attr-defined]

    def var_at(self, coord: Coord) -> Variable | None:
        return self._by_coord.get(tuple(coord))  # type: ignore[attr-defined]

    def has_coord(self, coord: Coord) -> bool:
        return tuple(coord) in self._by_coord  # type: ignore[attr-defined]

    @property
    def names(self) -> tuple[str, ...]:
        return self._names  # type: ignore[attr-defined,no-any-return]

    def domain_size(self) -> int:
        return max((len(v.domain) for v in self.variables), default=0)


class ClueSource(Protocol):
    """The compact form of an instance's clues (a grid line's values): what
    :meth:`Instance.deferred` builds the clues from when they are first read."""

    def clues(self) -> tuple[Clue, ...]:
        """The clue objects (any order: the instance puts them in canonical order)."""
        ...

    def canonical_json(self) -> bytes:
        """The RFC 8785 bytes of the whole instance, as :meth:`Instance.canonical_json`."""
        ...


@dataclass(frozen=True)
class Instance:
    """A schema (family + params) plus clues. Immutable; identified by :attr:`digest`.

    An instance is not necessarily valid: it may name an unknown family or hold a clue outside
    the grid. Verifiers report such instances as ``INVALID_SPEC`` instead of raising.

    Its clues are held in one canonical order, fixed here at construction (by id, see
    :mod:`puzzlekit.core.identity`), whatever order they are given in: content alone decides
    the canonical JSON and the digest.
    """

    family: str
    params: tuple[tuple[str, Any], ...]
    clues: tuple[Clue, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "clues", canonical_order(self.clues))

    @classmethod
    def make(cls, family: str, params: Mapping[str, Any], clues: Iterable[Clue]) -> Instance:
        return cls(str(family), freeze(dict(params)), tuple(clues))

    @classmethod
    def deferred(
        cls,
        family: str,
        params: tuple[tuple[str, Any], ...],
        source: ClueSource,
        params_key: tuple[str, str] | None = None,
    ) -> Instance:
        """An instance whose clues are built from ``source`` when first read (a grid line
        read by a verifier that takes its arrays needs no clue objects). ``params`` are
        frozen. Equal to, and with the same canonical bytes and digest as, the instance
        made from ``source.clues()``: the source vouches for that (tests compare both).
        ``params_key``: :meth:`params_key`, when the caller has it for these params already."""
        inst = object.__new__(cls)
        inst.__dict__.update(family=str(family), params=params, _source=source)
        if params_key is not None:
            inst.__dict__["_params_key"] = params_key
        return inst

    def __getattr__(self, name: str) -> Any:
        # only reached for an attribute not set: the clues of a deferred instance
        source = self.__dict__.get("_source")
        if name == "clues" and source is not None:
            clues = canonical_order(source.clues())
            object.__setattr__(self, "clues", clues)
            return clues
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def clue_source(self) -> ClueSource | None:
        """The compact form this instance was read from (:meth:`deferred`), or None."""
        return self.__dict__.get("_source")

    def params_dict(self) -> dict[str, Any]:
        return {k: thaw(v) for k, v in self.params}

    def params_key(self) -> tuple[str, str]:
        """The family and a key of the params for caches (:func:`typed_key`: ``true`` is not
        ``1``)."""
        cached = self.__dict__.get("_params_key")
        if cached is None:
            cached = (self.family, typed_key(self.params))
            object.__setattr__(self, "_params_key", cached)
        return cached

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "params": self.params_dict(),
            "clues": [c.to_json_obj() for c in self.clues],
        }

    def _assembled(self) -> bytes:
        source = self.__dict__.get("_source")
        if source is not None and "clues" not in self.__dict__:
            return source.canonical_json()  # the same bytes, from the compact form
        missing = sum(1 for c in self.clues if "_canonical" not in c.__dict__)
        if missing > 4 and 4 * missing > len(self.clues):
            # clues seen for the first time (a parsed puzzle): one pass over the whole instance
            # costs less than one per clue; the bytes are the same. A few new clues (a loop's
            # next step) are serialized one by one and joined with the others' cached bytes.
            return canonical_json(self.to_json_obj(), keys_are_strings=True)
        return self._joined()

    def _joined(self) -> bytes:
        """The bytes joined from each clue's cached bytes (computed where missing)."""
        return (
            b'{"clues":['
            + b",".join(c.canonical_json() for c in self.clues)
            + b'],"family":'
            + canonical_json(self.family)
            + b',"params":'
            + canonical_json(self.params_dict(), keys_are_strings=True)
            + b"}"
        )

    def canonical_json(self) -> bytes:
        """RFC 8785 bytes: assembled from the clues' cached bytes (members sorted by key) when
        every clue has them (instances the loop builds share most clues with the last one),
        else computed in one pass."""
        cached = self.__dict__.get("_canonical")
        if cached is None:
            cached = self._assembled()
            object.__setattr__(self, "_canonical", cached)
        return cached

    def to_json(self) -> str:
        return self.canonical_json().decode("utf-8")

    @property
    def digest(self) -> str:
        cached = self.__dict__.get("_digest")
        if cached is None:
            cached = sha256_digest(self.canonical_json())
            object.__setattr__(self, "_digest", cached)
        return cached

    def canonical_digest(self) -> str:
        """The digest of one representative of this puzzle's symmetry class, where its family
        defines a group (``Family.canonical_instance``; each family states its group in
        ``FamilyInfo.symmetry_group`` and docs/models.md, e.g. Sudoku's digit relabelling, row and
        column permutations within bands and stacks, band and stack permutations, transpose);
        else :attr:`digest`. Equal for two puzzles when one is the other moved by an element of
        the stated group (a group smaller than the rules allow keeps some equivalent puzzles
        apart, never merges distinct ones)."""
        cached = self.__dict__.get("_canonical_digest")
        if cached is None:
            import importlib

            module, attr = CANONICAL_INSTANCE.split(":")
            cached = getattr(importlib.import_module(module), attr)(self).digest
            object.__setattr__(self, "_canonical_digest", cached)
        return cached

    def fresh_canonical_json(self) -> bytes:
        """The canonical bytes computed from the content alone, bypassing every cache (the
        instance's and its clues'): what crosses a boundary (a filter call, the holdout hand-off,
        the publish gate), so a rewritten cache cannot pass for the puzzle. Plain givens are
        written field by field (:func:`~puzzlekit.core.clues.plain_given_json`, the same bytes)."""
        clues = self.clues
        parts = [plain_given_json(c) for c in clues]
        if not parts or None in parts:
            return canonical_json(self.to_json_obj(), keys_are_strings=True)
        return (
            b'{"clues":['
            + b",".join(parts)  # type: ignore[arg-type]
            + b'],"family":'
            + canonical_json(self.family)
            + b',"params":'
            + canonical_json(self.params_dict(), keys_are_strings=True)
            + b"}"
        )

    def keep_fresh(self, fresh: bytes) -> None:
        """Keep ``fresh``, this instance's :meth:`fresh_canonical_json` that the caller has just
        computed (a boundary check), as its canonical bytes when none are cached yet, so its
        digest costs no second serialization. :meth:`cache_intact` still compares them with the
        content."""
        if "_canonical" not in self.__dict__:
            object.__setattr__(self, "_canonical", bytes(fresh))

    def fresh_digest(self) -> str:
        """The digest of :meth:`fresh_canonical_json`."""
        return sha256_digest(self.fresh_canonical_json())

    def cache_intact(self, fresh: bytes | None = None) -> bool:
        """True when no cached bytes or digest (the instance's or a clue's) differ from the
        content; a verifier that rewrote one has contaminated its evaluation. ``fresh``: this
        instance's :meth:`fresh_canonical_json`, when the caller has it already."""
        fresh = self.fresh_canonical_json() if fresh is None else fresh
        cached = self.__dict__.get("_canonical")
        digest = self.__dict__.get("_digest")
        source = self.__dict__.get("_source")
        clues_cached = any("_canonical" in c.__dict__ for c in self.clues)
        return (
            # every clue's cached bytes, checked (bytes not cached yet come from the content, as
            # ``fresh`` does: joined from the content alone they are ``fresh`` by construction)
            (not clues_cached or self._joined() == fresh)
            and (source is None or self._source_intact(source, fresh))  # what fast paths read
            and (cached is None or cached == fresh)
            and (digest is None or digest == sha256_digest(fresh))
        )

    def _source_intact(self, source: ClueSource, fresh: bytes) -> bool:
        """The compact form's bytes and the clues it gives (from what it keeps of itself, such
        as a grid line's list of givens) both agree with the content ``fresh``."""
        if source.canonical_json() != fresh:
            return False
        rebuilt = Instance(self.family, self.params, tuple(source.clues()))
        return rebuilt.fresh_canonical_json() == fresh

    def content(self) -> tuple[Any, ...]:
        """The content as nested tuples, copied out of the objects: equal before and after an
        evaluation unless something changed a field in place. Cheap (no serialization)."""
        return (
            self.family,
            self.params,
            tuple((c.id, c.kind, c.data, c.coords) for c in self.clues),
        )

    def with_clues(self, clues: Iterable[Clue]) -> Instance:
        return Instance(self.family, self.params, tuple(clues))

    @classmethod
    def from_json_obj(cls, obj: Any) -> Instance:
        """Read the JSON instance format. Raises :class:`SpecError` naming what is malformed:
        anything the reading boundary refuses (:mod:`puzzlekit.core.reading`) is a ``malformed``
        violation at its path, with the clue's coordinate when it is inside a clue (see
        :func:`read_instance`)."""
        return read_instance(obj)

    @classmethod
    def from_json(cls, text: str | bytes) -> Instance:
        try:
            obj = parse_json(text)
        except ReadError as exc:
            raise SpecError([Violation("malformed", None, exc.field, exc.detail)]) from None
        return cls.from_json_obj(obj)


# --- reading the JSON instance format -----------------------------------------------------------
# through the reading boundary (puzzlekit.core.reading): every fault becomes a violation naming its
# path, with the clue's coordinate when it is inside a clue; coordinates are arrays of integers or
# names (never arrays or objects, which cannot be hashed). Not for checking an instance against its
# family (that is families.resolve).


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
        clue = read_clue(f"clues[{i}]", rc, problems)
        if clue is not None:
            clues.append(clue)
    if problems:
        raise SpecError(problems)
    return Instance.make(family, params, clues)


def text_int(text: str, field: str, coord: Coord | None = None) -> int:
    """The number written ``text`` in a text format: ASCII digits only (``²``, ``٣`` and ``３``
    are not digits here), at most 15 of them; a ``malformed`` SpecError naming ``field``
    otherwise (see :func:`puzzlekit.core.reading.ascii_int`)."""
    try:
        return ascii_int(text, field, coord=coord)
    except ReadError as exc:
        raise SpecError([Violation("malformed", exc.coord, exc.field, exc.detail)]) from None


@dataclass(frozen=True)
class Problem:
    """A resolved instance: its schema and the constraints each clue contributes, by clue id."""

    instance: Instance
    schema: Schema
    clue_constraints: tuple[tuple[str, tuple[Constraint, ...]], ...]

    @property
    def clues(self) -> tuple[Clue, ...]:
        return self.instance.clues

    def constraints_of(self, clue_id: str) -> tuple[Constraint, ...]:
        return dict(self.clue_constraints)[clue_id]

    def all_constraints(self) -> list[Constraint]:
        out = list(self.schema.rules)
        for _, cs in self.clue_constraints:
            out.extend(cs)
        return out

    def check(self, sol: Solution) -> bool:
        """Whether ``sol`` (a full assignment) satisfies every rule and clue."""
        return all(c.holds(sol) for c in self.all_constraints())

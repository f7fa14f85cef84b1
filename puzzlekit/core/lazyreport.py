"""A report whose solutions and reject detail are built when first read.

:class:`LazyReport` is a :class:`~puzzlekit.core.report.VerifierReport` in every respect a
caller sees (fields, wire form, digest, equality, hash, printed form, pickled form); a backend
that found its solutions as arrays (``bitmask``) hands it the builders of its solution mappings
and gap (:func:`lazy_report`), so a caller that reads only the verdict never pays for them.
Not for: reports built from data already at hand (build a VerifierReport).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from puzzlekit.core.jsondata import frozen
from puzzlekit.core.report import VerifierReport


class LazyReport(VerifierReport):
    """A :class:`VerifierReport` whose ``solutions`` and ``reject_detail`` (and, where the
    backend never needed it, ``instance_digest``) are built when first read
    (:func:`lazy_report`, :func:`lazy_fields`): a caller that reads only the verdict never pays
    for solution mappings, a gap or hashing the instance. Every field, the wire form, equality
    and pickling are those of the report built eagerly (a pickled one reads back as a plain
    :class:`VerifierReport`)."""

    def __getattr__(self, name: str) -> Any:  # only called for an attribute not yet set
        thunks = self.__dict__.get("_thunks")
        thunk = None if thunks is None else thunks.get(name)
        if thunk is None:
            if name in self.__dict__:  # built meanwhile by another thread
                return self.__dict__[name]
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = thunk(self)
        if name == "solutions":
            value = frozen(tuple(value))
        object.__setattr__(self, name, value)
        return value

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _eager, ({f: getattr(self, f) for f in _FIELDS},)

    def __eq__(self, other: object) -> bool:  # equal to the eager report of the same fields
        if not isinstance(other, VerifierReport):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    __hash__ = VerifierReport.__hash__

    def __repr__(self) -> str:
        return "VerifierReport" + VerifierReport.__repr__(self).removeprefix("LazyReport")


def _eager(fields: dict[str, Any]) -> VerifierReport:
    return VerifierReport(**fields)


_FIELDS = tuple(VerifierReport.__dataclass_fields__)


def lazy_report(
    solutions: Any,
    reject_detail: Any,
    **fields: Any,
) -> VerifierReport:
    """A report with ``fields`` (every field of :class:`VerifierReport` but the two below,
    frozen as its constructor freezes them) whose ``solutions`` is ``solutions()`` and
    ``reject_detail`` is ``reject_detail(report)`` (or None), each called when first read."""
    fields.setdefault("dispatch_error_count", 0)
    fields["diagnostics"] = tuple(fields["diagnostics"])
    fields["source"] = frozen(fields["source"])
    fields["stats"] = frozen(fields.get("stats", {}))
    return lazy_fields(lambda rep: solutions(), reject_detail, fields)


def lazy_fields(
    solutions: Any,
    reject_detail: Any,
    fields: dict[str, Any],
    instance_digest: Any = None,
) -> VerifierReport:
    """:func:`lazy_report` of ``fields`` already as a report holds them: every field but the
    ones built later, each frozen (``source`` and ``stats`` :class:`FrozenDict` s,
    ``diagnostics`` a tuple); ``fields`` becomes the report's own. ``solutions(report)``,
    ``reject_detail(report)`` (None: no reject detail) and, where ``fields`` has no
    ``instance_digest``, ``instance_digest(report)`` are called when first read."""
    thunks: dict[str, Any] = {"solutions": solutions}
    if instance_digest is not None:
        thunks["instance_digest"] = instance_digest
    if reject_detail is None:
        fields["reject_detail"] = None
    else:
        thunks["reject_detail"] = reject_detail
    fields["_thunks"] = thunks
    return made(fields)


def made(fields: dict[str, Any]) -> VerifierReport:
    """The :class:`LazyReport` whose attributes are ``fields`` itself (taken, not copied): every
    field of :class:`VerifierReport` frozen, or named in ``fields["_thunks"]`` (a mapping, which
    may be shared by many reports, of field name to the function of the report that builds
    it when first read)."""
    rep = object.__new__(LazyReport)
    object.__setattr__(rep, "__dict__", fields)
    return rep


def with_diagnostics(rep: VerifierReport, diagnostics: tuple[str, ...]) -> VerifierReport:
    """``dataclasses.replace(rep, diagnostics=diagnostics)``: for a :class:`LazyReport`, a copy
    that builds its fields when read, as ``rep`` does, instead of building them all now."""
    if type(rep) is not LazyReport:
        return replace(rep, diagnostics=tuple(diagnostics))
    fields = dict(rep.__dict__)
    fields["diagnostics"] = tuple(diagnostics)
    return made(fields)

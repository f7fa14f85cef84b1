"""Verdicts and the verifier report, with the coordinate-tagged reject detail.

The JSON wire form keeps the field names of the TypeScript puzzle verifier this design grew from
(``uniquenessVerdict``, ``solutionCount``, ``rejectDetail``, ...); Python attributes are
snake_case. ``VerifierReport.to_json()`` and ``VerifierReport.from_json()`` round-trip exactly, and
every report validates against the JSON Schema shipped as ``puzzlekit/schemas/report.schema.json``.

Reports are immutable all the way down: sequences are tuples and mappings
:class:`~puzzlekit.core.jsondata.FrozenDict` s (read-only dicts), so a strategy or a notebook
that reads a report cannot change what the loop recorded.

This module describes results; it does not compute them (that is ``verifiers/``).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

from puzzlekit.core.jsondata import frozen, plain
from puzzlekit.core.model import Coord, Violation, canonical_json, sha256_digest


class Verdict(enum.StrEnum):
    UNIQUE = "UNIQUE"
    MULTIPLE = "MULTIPLE"
    UNSOLVABLE = "UNSOLVABLE"
    DOMAIN_TOO_LARGE = "DOMAIN_TOO_LARGE"
    INVALID_SPEC = "INVALID_SPEC"
    UNDECIDED = "UNDECIDED"


def _coord_json(coord: Coord | None) -> list | None:
    return list(coord) if coord is not None else None


def _coord_py(coord: Any) -> Coord | None:
    return tuple(coord) if coord is not None else None


@dataclass(frozen=True)
class GapItem:
    """A variable whose value differs across the found solutions (MULTIPLE).

    ``discriminative_power``: the share of the found solutions that a clue here, with the target
    solution's value, rules out. ``tie_group``: the rank of that power among the gap's distinct
    powers (0: tied for the top); items of one group tie, and their order among themselves was
    drawn by a generator seeded from the instance digest.
    """

    coord: Coord
    field_name: str
    values_in_solutions: tuple[Any, ...]
    discriminative_power: float
    tie_group: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "coord", tuple(self.coord))
        object.__setattr__(self, "values_in_solutions", frozen(tuple(self.values_in_solutions)))

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "coord": list(self.coord),
            "fieldName": self.field_name,
            "valuesInSolutions": list(self.values_in_solutions),
            "discriminativePower": self.discriminative_power,
            "tieGroup": self.tie_group,
        }

    @classmethod
    def from_json_obj(cls, o: Mapping[str, Any]) -> GapItem:
        return cls(
            tuple(o["coord"]),
            o["fieldName"],
            tuple(o["valuesInSolutions"]),
            o["discriminativePower"],
            o.get("tieGroup", 0),
        )


@dataclass(frozen=True)
class ConflictClue:
    """One clue of a minimal conflicting set (UNSOLVABLE)."""

    clue_id: str
    kind: str
    coord: Coord | None
    field_name: str
    coords: tuple[Coord, ...]
    data: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "coords", tuple(tuple(c) for c in self.coords))
        object.__setattr__(self, "data", frozen(self.data))

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "clueId": self.clue_id,
            "kind": self.kind,
            "coord": _coord_json(self.coord),
            "fieldName": self.field_name,
            "coords": [list(c) for c in self.coords],
            "data": plain(self.data),
        }

    @classmethod
    def from_json_obj(cls, o: Mapping[str, Any]) -> ConflictClue:
        return cls(
            o["clueId"],
            o["kind"],
            _coord_py(o["coord"]),
            o["fieldName"],
            tuple(tuple(c) for c in o["coords"]),
            dict(o.get("data", {})),
        )


@dataclass(frozen=True)
class ConflictRule:
    """A rule of the schema involved in a conflict, with the coordinates it constrains."""

    rule: str
    coords: tuple[Coord, ...]

    def to_json_obj(self) -> dict[str, Any]:
        return {"rule": self.rule, "coords": [list(c) for c in self.coords]}

    @classmethod
    def from_json_obj(cls, o: Mapping[str, Any]) -> ConflictRule:
        return cls(o["rule"], tuple(tuple(c) for c in o["coords"]))


@dataclass(frozen=True)
class Conflict:
    """A set of clues that cannot hold together under ``rules``.

    ``minimal`` is true when dropping any one clue makes the rest satisfiable (checked, not
    assumed); it is false only when the budget ran out while shrinking. ``kind`` says how small:
    ``direct`` (two clues that clash on their own: equal givens in one all-different group, a
    given outside its domain), ``minimum`` (no smaller clue set conflicts: a smallest MUS), or
    ``minimal`` (no clue can be dropped, but a smaller set may exist).
    """

    clues: tuple[ConflictClue, ...]
    rules: tuple[ConflictRule, ...]
    minimal: bool
    kind: str = "minimal"

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "clues": [c.to_json_obj() for c in self.clues],
            "rules": [r.to_json_obj() for r in self.rules],
            "minimal": self.minimal,
            "conflictKind": self.kind,
        }

    @classmethod
    def from_json_obj(cls, o: Mapping[str, Any]) -> Conflict:
        return cls(
            tuple(ConflictClue.from_json_obj(c) for c in o["clues"]),
            tuple(ConflictRule.from_json_obj(r) for r in o["rules"]),
            o["minimal"],
            o.get("conflictKind", "minimal"),
        )

    @property
    def clue_ids(self) -> tuple[str, ...]:
        return tuple(c.clue_id for c in self.clues)


@dataclass(frozen=True)
class FieldCardinality:
    """How many values a variable may still take (DOMAIN_TOO_LARGE, UNDECIDED)."""

    coord: Coord
    field_name: str
    cardinality: int

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "coord": list(self.coord),
            "fieldName": self.field_name,
            "cardinality": self.cardinality,
        }

    @classmethod
    def from_json_obj(cls, o: Mapping[str, Any]) -> FieldCardinality:
        return cls(tuple(o["coord"]), o["fieldName"], o["cardinality"])


@dataclass(frozen=True)
class BudgetSpent:
    """What ran out of a verification's :class:`~puzzlekit.core.protocols.SearchBudget`
    (UNDECIDED; the wire field ``rejectDetail.budget``): the resource, its limit, what was spent,
    what was found."""

    resource: str  # "nodes" or "seconds"
    limit: float
    nodes: int
    seconds: float
    solutions_found: int

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "resource": self.resource,
            "limit": self.limit,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "solutionsFound": self.solutions_found,
        }

    @classmethod
    def from_json_obj(cls, o: Mapping[str, Any]) -> BudgetSpent:
        return cls(o["resource"], o["limit"], o["nodes"], o["seconds"], o["solutionsFound"])


@dataclass(frozen=True)
class RejectDetail:
    """Why an instance was not UNIQUE, with coordinates. ``case`` equals the verdict."""

    case: Verdict
    discriminative_gap: tuple[GapItem, ...] = ()
    conflict: Conflict | None = None
    field_cardinalities: tuple[FieldCardinality, ...] = ()
    culprits: tuple[FieldCardinality, ...] = ()
    violations: tuple[Violation, ...] = ()
    budget: BudgetSpent | None = None
    verdict_distribution: Mapping[str, int] | None = None

    def __post_init__(self) -> None:
        for name in ("discriminative_gap", "field_cardinalities", "culprits", "violations"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.verdict_distribution is not None:
            object.__setattr__(self, "verdict_distribution", frozen(self.verdict_distribution))

    def to_json_obj(self) -> dict[str, Any]:
        out: dict[str, Any] = {"case": self.case.value}
        if self.case is Verdict.MULTIPLE:
            out["discriminativeGap"] = [g.to_json_obj() for g in self.discriminative_gap]
        if self.case is Verdict.UNSOLVABLE:
            out["conflict"] = self.conflict.to_json_obj() if self.conflict else None
        if self.case in (Verdict.DOMAIN_TOO_LARGE, Verdict.UNDECIDED):
            out["fieldCardinalities"] = [f.to_json_obj() for f in self.field_cardinalities]
            out["culprits"] = [f.to_json_obj() for f in self.culprits]
        if self.case is Verdict.INVALID_SPEC:
            out["violations"] = [v.to_json_obj() for v in self.violations]
        if self.case is Verdict.UNDECIDED:
            out["budget"] = self.budget.to_json_obj() if self.budget else None
        if self.verdict_distribution is not None:
            out["verdictDistribution"] = plain(self.verdict_distribution)
        return out

    @classmethod
    def from_json_obj(cls, o: Mapping[str, Any]) -> RejectDetail:
        conflict = o.get("conflict")
        budget = o.get("budget")
        return cls(
            Verdict(o["case"]),
            tuple(GapItem.from_json_obj(g) for g in o.get("discriminativeGap", [])),
            Conflict.from_json_obj(conflict) if conflict else None,
            tuple(FieldCardinality.from_json_obj(f) for f in o.get("fieldCardinalities", [])),
            tuple(FieldCardinality.from_json_obj(f) for f in o.get("culprits", [])),
            tuple(Violation.from_json_obj(v) for v in o.get("violations", [])),
            BudgetSpent.from_json_obj(budget) if budget else None,
            o.get("verdictDistribution"),
        )

    def marks(self) -> dict[Coord, str]:
        """One mark per coordinate for drawings: ``?`` a cell that differs across solutions,
        ``!`` a cell of a conflicting clue, ``*`` a search culprit (first mark wins)."""
        out: dict[Coord, str] = {}
        for g in self.discriminative_gap:
            out.setdefault(tuple(g.coord), "?")
        if self.conflict:
            for c in self.conflict.clues:
                for coord in c.coords:
                    out.setdefault(tuple(coord), "!")
        for f in self.culprits:
            out.setdefault(tuple(f.coord), "*")
        return out

    def coords(self) -> list[Coord]:
        """Every coordinate this detail names (for checks that they lie inside the schema)."""
        out: list[Coord] = [g.coord for g in self.discriminative_gap]
        if self.conflict:
            for c in self.conflict.clues:
                out.extend(c.coords)
            for r in self.conflict.rules:
                out.extend(r.coords)
        out += [f.coord for f in self.field_cardinalities] + [f.coord for f in self.culprits]
        out += [v.coord for v in self.violations if v.coord is not None]
        return out


HONEST_SCOPE = {
    Verdict.UNIQUE: "Exactly one assignment satisfies the rules and clues as encoded in this "
    "schema; the verdict says nothing about how hard the puzzle is for a person.",
    Verdict.MULTIPLE: "At least two solutions exist; the gap lists only cells that differ among "
    "the solutions found, which are capped and need not be all solutions.",
    Verdict.UNSOLVABLE: "No assignment satisfies the rules and clues; the conflict is one minimal "
    "conflicting set, other minimal sets may exist.",
    Verdict.DOMAIN_TOO_LARGE: "The search space exceeded the configured limit before any search; "
    "nothing is claimed about solutions.",
    Verdict.INVALID_SPEC: "The input could not be read as an instance of its schema; nothing is "
    "claimed about any puzzle.",
    Verdict.UNDECIDED: "The budget ran out before a verdict; solutions found so far are real but "
    "their count is a lower bound.",
}


@dataclass(frozen=True)
class VerifierReport:
    """What a verifier concluded about one instance."""

    verdict: Verdict
    solutions: tuple[Mapping[str, Any], ...]
    solution_count: int
    solution_count_is_lower_bound: bool
    solution_cap: int
    total_completions_enumerated: int
    cartesian_size: int | float | None
    cartesian_size_log10: float | None
    diagnostics: tuple[str, ...]
    reject_detail: RejectDetail | None
    source: Mapping[str, str]
    honest_scope: str
    instance_digest: str
    stats: Mapping[str, Any] = field(default_factory=dict)
    dispatch_error_count: int = 0

    def __post_init__(self) -> None:
        # immutable all the way down: a strategy handed this report cannot change the record
        object.__setattr__(self, "solutions", frozen(tuple(self.solutions)))
        object.__setattr__(self, "diagnostics", tuple(self.diagnostics))
        object.__setattr__(self, "source", frozen(self.source))
        object.__setattr__(self, "stats", frozen(self.stats))

    # -- wire form --------------------------------------------------------------------------
    def to_json_obj(self) -> dict[str, Any]:
        out = {
            "uniquenessVerdict": self.verdict.value,
            "solutions": plain(self.solutions),
            "solutionCount": self.solution_count,
            "solutionCountIsLowerBound": self.solution_count_is_lower_bound,
            "solutionCap": self.solution_cap,
            "totalCompletionsEnumerated": self.total_completions_enumerated,
            "cartesianSize": self.cartesian_size,
            "cartesianSizeLog10": self.cartesian_size_log10,
            "diagnostics": list(self.diagnostics),
            "source": plain(self.source),
            "honestScope": self.honest_scope,
            "instanceDigest": self.instance_digest,
            "stats": plain(self.stats),
            "dispatchErrorCount": self.dispatch_error_count,
        }
        if self.reject_detail is not None:
            out["rejectDetail"] = self.reject_detail.to_json_obj()
        return out

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_json_obj(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_json_obj(cls, o: Mapping[str, Any]) -> VerifierReport:
        rd = o.get("rejectDetail")
        return cls(
            verdict=Verdict(o["uniquenessVerdict"]),
            solutions=tuple(dict(s) for s in o["solutions"]),
            solution_count=o["solutionCount"],
            solution_count_is_lower_bound=o["solutionCountIsLowerBound"],
            solution_cap=o["solutionCap"],
            total_completions_enumerated=o["totalCompletionsEnumerated"],
            cartesian_size=o["cartesianSize"],
            cartesian_size_log10=o["cartesianSizeLog10"],
            diagnostics=tuple(o["diagnostics"]),
            reject_detail=RejectDetail.from_json_obj(rd) if rd is not None else None,
            source=dict(o["source"]),
            honest_scope=o["honestScope"],
            instance_digest=o["instanceDigest"],
            stats=dict(o.get("stats", {})),
            dispatch_error_count=o.get("dispatchErrorCount", 0),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> VerifierReport:
        return cls.from_json_obj(json.loads(text))

    # -- conveniences -----------------------------------------------------------------------
    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.UNIQUE

    def content_json_obj(self) -> dict[str, Any]:
        """The wire form without run-dependent fields (``stats``: time, nodes; ``source``)."""
        obj = self.to_json_obj()
        obj.pop("stats")
        obj.pop("source")
        return obj

    def digest(self) -> str:
        """Digest of the verdict content: equal for equal conclusions, whatever the timing."""
        return sha256_digest(canonical_json(self.content_json_obj()))

    def with_stats(self, **extra: Any) -> VerifierReport:
        return replace(self, stats={**dict(self.stats), **extra})


def report_schema() -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of the report's wire form."""
    text = resources.files("puzzlekit").joinpath("schemas/report.schema.json").read_text("utf-8")
    return json.loads(text)


def validate_report_json(obj: Mapping[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` when ``obj`` is not a valid report wire form."""
    import jsonschema

    jsonschema.Draft202012Validator(report_schema()).validate(obj)


def summarize(reports: Sequence[VerifierReport]) -> dict[str, int]:
    """Count of each verdict over ``reports``."""
    out: dict[str, int] = {}
    for r in reports:
        out[r.verdict.value] = out.get(r.verdict.value, 0) + 1
    return out


def top_coord(report: VerifierReport) -> Coord | None:
    """The coordinate a report points to first: its most discriminative gap cell, else its first
    conflict clue, culprit or violation with a coordinate (None: nothing to point to)."""
    rd = report.reject_detail
    if rd is None:
        return None
    if rd.discriminative_gap:
        return tuple(rd.discriminative_gap[0].coord)
    if rd.conflict and rd.conflict.clues and rd.conflict.clues[0].coord is not None:
        return tuple(rd.conflict.clues[0].coord)
    if rd.culprits:
        return tuple(rd.culprits[0].coord)
    for v in rd.violations:
        if v.coord is not None:
            return tuple(v.coord)
    return None

"""Contract checks for puzzle families and verifier backends: ``check_family``, ``check_verifier``.

A researcher who adds a family runs ``check_family(MyFamily())`` in a test; one who writes a
verifier runs ``check_verifier(MyVerifier())``. Each raises :class:`ContractError` (an
``AssertionError``) listing every problem found, each with a stable code and a sentence that says
what to change, in the manner of Gymnasium's ``check_env`` and scikit-learn's
``check_estimator``. Checks run on seeded random instances (:func:`sample_instances`), so a
failure is reproducible from the seed printed in the message.

What ``check_family`` checks, in order (a step that fails stops the later steps, which depend on
it):

1. ``schema``: the schema builds, names and coordinates are unique, every domain is non-empty.
2. ``clues-hold``: every clue of ``clues_from_solution(solution)`` lies inside the schema,
   resolves, and each of its constraints holds in that solution.
3. ``full-reveal``: a random solution with all its clues revealed verifies UNIQUE, with that
   solution, on the reference (enumerative) verifier.
4. ``round-trip``: ``parse_text(format_text(instance))`` gives the same clues and params, and
   formatting again gives the same text (skipped, with a note, when ``format_text`` raises
   ``NotImplementedError``).
5. ``report``/``agreement``: every exact registered verifier that can take an instance (a
   backend declines by raising ``NotImplementedError`` or its own ``NotEncodable``) returns a
   well-formed report: solutions that satisfy every rule and clue, a reject detail whose ``case``
   is the verdict and whose coordinates are coordinates of the schema (INVALID_SPEC violations
   excepted: they may point outside the grid on purpose). Exact backends agree on the verdict,
   the capped solution count and, below the cap, the set of solutions.
6. ``deterministic``: the same seed gives the same instances and the same report digests, also on
   a fresh verifier fed the instances in reverse order.
7. ``cross-process``: a fresh Python process (another hash seed) computes the same instance
   digests and the same report digest.
8. ``malformed``: a clue outside the grid, a value out of domain, a clue of an unknown kind, a
   duplicate clue id and an unknown param each give INVALID_SPEC (not an exception); garbage
   text makes ``parse_text`` raise ``SpecError`` and nothing else.

Not for: proving a family correct (the checks are samples), benchmarking, or checking games.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from puzzlekit.core.model import Clue, Instance, Problem, Schema, SpecError, canonical_json
from puzzlekit.core.report import Verdict, VerifierReport, validate_report_json
from puzzlekit.families import Family, get_family, resolve

#: solution cap of the checks: small, so that MULTIPLE instances stay cheap on big grids
CHECK_CAP = 4
#: fractions of a solution's clues kept in the sampled partial instances
KEEP_FRACTIONS = (0.8, 0.55, 0.3)
REFERENCE = "enumerative"


# --- problems and the error ---------------------------------------------------------------------


@dataclass(frozen=True)
class ContractProblem:
    """One failed check: a stable ``code`` and a sentence saying what is wrong and what to fix."""

    code: str
    message: str

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


class ContractError(AssertionError):
    """A family or verifier breaks the contract; ``problems`` lists every failed check."""

    def __init__(self, subject: str, problems: Sequence[ContractProblem], notes: Sequence[str]):
        self.subject = subject
        self.problems = tuple(problems)
        self.notes = tuple(notes)
        shown = self.problems[:12]
        lines = [f"{subject}: {len(self.problems)} problem(s)"]
        lines += [f"  - {p}" for p in shown]
        if len(self.problems) > len(shown):
            lines.append(f"  ... and {len(self.problems) - len(shown)} more")
        lines += [f"  note: {n}" for n in self.notes]
        super().__init__("\n".join(lines))

    @property
    def codes(self) -> set[str]:
        return {p.code for p in self.problems}


@dataclass
class CheckSummary:
    """What a passing check covered: instances, reports per verifier, and notes on skipped steps."""

    subject: str
    instances: int = 0
    reports: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class _Checker:
    def __init__(self, subject: str) -> None:
        self.subject = subject
        self.problems: list[ContractProblem] = []
        self.summary = CheckSummary(subject)

    def fail(self, code: str, message: str) -> None:
        self.problems.append(ContractProblem(code, message))

    def note(self, message: str) -> None:
        self.summary.notes.append(message)

    def gate(self) -> None:
        """Raise if any check so far failed (later steps depend on the earlier ones)."""
        if self.problems:
            raise ContractError(self.subject, self.problems, self.summary.notes)


# --- sampling ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """A seeded instance: how it was made (``label``) and the solution its clues came from."""

    label: str
    instance: Instance
    solution: Mapping[str, int] | None


def as_family(family: Family | str) -> Family:
    """A family object from a family or a registered family name."""
    return get_family(family) if isinstance(family, str) else family


def default_params(family: Family) -> dict[str, Any]:
    """The params a check uses when none are given: the family's first listed params, else {}."""
    return dict(family.listed_params[0]) if family.listed_params else {}


def _rng(seed: int, *stream: int) -> np.random.Generator:
    return np.random.default_rng([seed, *stream])


def _subset(clues: Sequence[Clue], keep: float, rng: np.random.Generator) -> list[Clue]:
    k = max(1, round(keep * len(clues)))
    chosen = sorted(int(i) for i in rng.permutation(len(clues))[:k])
    return [clues[i] for i in chosen]


def sample_instances(
    family: Family | str,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    n: int = 2,
) -> list[Sample]:
    """Seeded instances of a schema: for each of ``n`` random solutions, every clue revealed
    (``full``), random subsets of the clues (``keep80``, ``keep55``, ``keep30``), and every clue
    with one replaced by the clue of the same id from another solution (``perturbed``; mostly
    UNSOLVABLE, and with a small conflict, so that the reference shrinks it quickly).

    One seed gives one list, in any process.
    """
    from puzzlekit.core.solutions import random_solution

    fam = as_family(family)
    schema = fam.schema(dict(params if params is not None else default_params(fam)))
    pdict = schema.params_dict()
    out: list[Sample] = []
    for i in range(n):
        rng = _rng(seed, i)
        sol = random_solution(schema, rng)
        clues = list(fam.clues_from_solution(schema, sol))
        out.append(Sample(f"seed{seed}.{i}.full", Instance.make(fam.name, pdict, clues), sol))
        subsets = []
        for keep in KEEP_FRACTIONS:
            sub = _subset(clues, keep, rng)
            subsets.append(sub)
            label = f"seed{seed}.{i}.keep{round(keep * 100)}"
            out.append(Sample(label, Instance.make(fam.name, pdict, sub), sol))
        other = fam.clues_from_solution(schema, random_solution(schema, rng))
        base = clues
        ids = {c.id for c in base}
        swapped = _perturb(base, other, ids, rng)
        if swapped is not None:
            label = f"seed{seed}.{i}.perturbed"
            out.append(Sample(label, Instance.make(fam.name, pdict, swapped), None))
    return out


def _perturb(
    base: Sequence[Clue], other: Sequence[Clue], ids: set[str], rng: np.random.Generator
) -> list[Clue] | None:
    """``base`` with one clue replaced by the clue of the same id (and another content) from
    ``other``; None when no clue differs."""
    mine = {c.id: c for c in base}
    candidates = [c for c in other if c.id in ids and c != mine[c.id]]
    if not candidates:
        return None
    pick = candidates[int(rng.integers(len(candidates)))]
    return [pick if c.id == pick.id else c for c in base]


# --- malformed inputs -------------------------------------------------------------------------


def _outside_coord(schema: Schema, like: Sequence[Any]) -> tuple[Any, ...] | None:
    """A coordinate shaped like ``like`` that is not a coordinate of the schema."""
    if not like or not all(isinstance(x, int) for x in like):
        return None
    top = max(
        (v.coord[0] for v in schema.variables if v.coord and isinstance(v.coord[0], int)), default=0
    )
    for bump in (1, 2, 1000):
        coord = (top + bump, *like[1:])
        if not schema.has_coord(coord):
            return coord
    return None


def _replace_ints(value: Any, new: Callable[[int], Any]) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return new(value)
    if isinstance(value, Mapping):
        return {k: _replace_ints(v, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replace_ints(v, new) for v in value]
    return value


def _has_int(value: Any) -> bool:
    return _replace_ints(value, lambda v: "X") != value


def malformed_instances(
    family: Family | str, params: Mapping[str, Any] | None = None, *, seed: int = 0
) -> list[tuple[str, Instance, frozenset[str]]]:
    """Instances that are wrong on purpose, each with the verdicts it may get.

    A clue outside the grid, a clue whose integers are out of every domain (INVALID_SPEC for a
    clue whose data has a ``value``; UNSOLVABLE is also accepted for other clue kinds, whose
    integers may be sums), the same clue with strings for integers, an unknown clue kind, a clue id
    used twice, and an unknown param.
    """
    from puzzlekit.core.solutions import random_solution

    fam = as_family(family)
    schema = fam.schema(dict(params if params is not None else default_params(fam)))
    pdict = schema.params_dict()
    rng = _rng(seed, 1000)
    sol = random_solution(schema, rng)
    clues = list(fam.clues_from_solution(schema, sol))
    base = _subset(clues, 0.5, rng) if len(clues) > 2 else clues
    first = base[0]
    invalid = frozenset({Verdict.INVALID_SPEC.value})
    out: list[tuple[str, Instance, frozenset[str]]] = []

    def with_first(clue: Clue) -> Instance:
        return Instance.make(fam.name, pdict, [clue, *base[1:]])

    if first.coords:
        outside = _outside_coord(schema, first.coords[0])
        if outside is not None:
            coords = [outside, *first.coords[1:]]
            moved = Clue.make(first.id, first.kind, first.data_dict(), coords)
            out.append(("clue outside the grid", with_first(moved), invalid))
    data = first.data_dict()
    if _has_int(data):
        top = max(max(v.domain) for v in schema.variables)
        huge = _replace_ints(data, lambda v: top + 1000)
        accepted = invalid if "value" in data else invalid | {Verdict.UNSOLVABLE.value}
        bad = Clue.make(first.id, first.kind, huge, first.coords)
        out.append(("value out of domain", with_first(bad), accepted))
        texty = _replace_ints(data, lambda v: f"v{v}")
        bad = Clue.make(first.id, first.kind, texty, first.coords)
        out.append(("string where an integer belongs", with_first(bad), invalid))
    unknown = Clue.make(first.id, "no-such-clue-kind", data, first.coords)
    out.append(("unknown clue kind", with_first(unknown), invalid))
    if len(base) > 1:
        twin = Clue(first.id, base[1].kind, base[1].data, base[1].coords)
        out.append(("clue id used twice", Instance.make(fam.name, pdict, [first, twin]), invalid))
    out.append(
        (
            "unknown param",
            Instance.make(fam.name, {**pdict, "no_such_param": 1}, base[:2]),
            invalid,
        )
    )
    return out


GARBAGE_TEXTS = ("", "\x00 not a puzzle \u2603 {", "?" * 7)


# --- running verifiers ---------------------------------------------------------------------------


def _declines(exc: BaseException) -> bool:
    return isinstance(exc, NotImplementedError) or type(exc).__name__ == "NotEncodable"


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f" (raised at {os.path.basename(f.filename)}:{f.lineno} in {f.name})"


def _describe(inst: Instance, label: str) -> str:
    return f"instance {label} ({inst.digest[:19]}…, {len(inst.clues)} clues)"


def _run(
    ck: _Checker,
    name: str,
    verifier: Any,
    inst: Instance,
    label: str,
    cap: int,
    budget: Any,
) -> VerifierReport | None:
    """The verifier's report, or None when it declines the instance or breaks the contract."""
    before = canonical_json(inst.to_json_obj())  # fresh bytes: the instance caches its own
    try:
        rep = verifier.verify(inst, solution_cap=cap, budget=budget)
    except Exception as exc:
        if _declines(exc):
            return None
        blame = _blame_family(inst)
        ck.fail(
            "verifier-raised",
            f"verifier {name} raised {type(exc).__name__}: {exc}{_where(exc)} on "
            f"{_describe(inst, label)}. {blame}",
        )
        return None
    if canonical_json(inst.to_json_obj()) != before:
        ck.fail(
            "input-mutated",
            f"verifier {name} changed {_describe(inst, label)} while verifying it; a verifier "
            "must never mutate its input (copy what you need).",
        )
    if not isinstance(rep, VerifierReport):
        ck.fail(
            "not-a-report",
            f"verifier {name} returned {type(rep).__name__} for {_describe(inst, label)}; "
            "verify() must return a puzzlekit.core.report.VerifierReport.",
        )
        return None
    ck.summary.reports[name] = ck.summary.reports.get(name, 0) + 1
    return rep


def _blame_family(inst: Instance) -> str:
    """Whether the family itself raises on ``inst`` (then it, not the verifier, must change)."""
    try:
        resolve(inst)
    except SpecError:
        return "The instance is invalid; the verifier must return INVALID_SPEC for it."
    except Exception as exc:
        return (
            f"The family raises too: resolve() gave {type(exc).__name__}: {exc}{_where(exc)}; "
            "schema(), clue_constraints() and validate_clues() must raise SpecError with "
            "violations for bad input and nothing else."
        )
    return "The family resolves the instance, so the verifier must return a report for it."


def _check_report(
    ck: _Checker,
    name: str,
    rep: VerifierReport,
    inst: Instance,
    label: str,
    schema: Schema | None,
) -> None:
    """Contract checks on one report that need no other verifier."""
    where = f"verifier {name} on {_describe(inst, label)}"
    if rep.instance_digest != inst.digest:
        ck.fail(
            "wrong-digest",
            f"{where}: report.instance_digest is {rep.instance_digest}, the instance's digest is "
            f"{inst.digest}; set it from instance.digest.",
        )
    rd = rep.reject_detail
    if rep.verdict is Verdict.UNIQUE:
        if rd is not None:
            ck.fail("detail-on-unique", f"{where}: a UNIQUE report must have no rejectDetail.")
        if rep.solution_count != 1 or len(rep.solutions) != 1:
            ck.fail(
                "unique-count",
                f"{where}: UNIQUE with solutionCount {rep.solution_count} and "
                f"{len(rep.solutions)} solutions; UNIQUE means exactly one solution.",
            )
    elif rd is None or rd.case is not rep.verdict:
        case = rd.case.value if rd is not None else None
        ck.fail(
            "detail-case",
            f"{where}: verdict {rep.verdict.value} but rejectDetail.case is {case}; every "
            "non-UNIQUE report carries a rejectDetail whose case equals the verdict.",
        )
    if rep.verdict is Verdict.INVALID_SPEC:
        if rd is not None and not rd.violations:
            ck.fail("no-violations", f"{where}: INVALID_SPEC with no violations; say what is bad.")
        return
    if schema is None:
        return
    if rd is not None:
        outside = [c for c in rd.coords() if not schema.has_coord(c)]
        if outside:
            shown = ", ".join(str(list(c)) for c in outside[:5])
            ck.fail(
                "coord-outside-schema",
                f"{where}: the {rep.verdict.value} reject detail names coordinates that are not "
                f"coordinates of the schema: {shown}; report variable coords (Variable.coord) "
                "and clue coords only.",
            )
    if rep.solutions:
        try:
            problem: Problem | None = resolve(inst)
        except Exception:
            problem = None
        for sol in rep.solutions:
            missing = [n for n in schema.names if n not in sol]
            if missing:
                ck.fail(
                    "partial-solution",
                    f"{where}: a reported solution lacks {', '.join(missing[:5])}; a solution "
                    "assigns every variable of the schema, by variable name.",
                )
                break
            if problem is not None and not problem.check(sol):
                broken = [c.origin.id for c in problem.all_constraints() if not c.holds(sol)][:5]
                ck.fail(
                    "wrong-solution",
                    f"{where}: a reported solution violates {', '.join(broken)}; a verifier must "
                    "report only assignments that satisfy every rule and clue.",
                )
                break


def _solution_set(rep: VerifierReport) -> set[tuple]:
    return {tuple(sorted(s.items())) for s in rep.solutions}


def _compare(
    ck: _Checker,
    ref_name: str,
    ref: VerifierReport,
    name: str,
    rep: VerifierReport,
    inst: Instance,
    label: str,
) -> None:
    """Exact backends agree on verdict, capped count and, below the cap, the solutions."""
    undecided = (Verdict.UNDECIDED, Verdict.DOMAIN_TOO_LARGE)
    if ref.verdict in undecided or rep.verdict in undecided:
        ck.note(
            f"{label}: {ref_name} said {ref.verdict.value}, {name} said {rep.verdict.value}; "
            "not compared"
        )
        return
    where = f"{_describe(inst, label)}"
    if ref.verdict is not rep.verdict or ref.solution_count != rep.solution_count:
        ck.fail(
            "backends-disagree",
            f"{where}: {ref_name} says {ref.verdict.value} ({ref.solution_count} solutions), "
            f"{name} says {rep.verdict.value} ({rep.solution_count} solutions). Exact backends "
            "must agree; the clue or rule encoding of one of them is wrong (compare "
            "resolve(instance).all_constraints() with what the backend encodes).",
        )
        return
    if not ref.solution_count_is_lower_bound and _solution_set(ref) != _solution_set(rep):
        ck.fail(
            "backends-disagree",
            f"{where}: {ref_name} and {name} both find {ref.solution_count} solutions, but not "
            "the same ones; below the cap every exact backend finds every solution.",
        )


# --- check_family ------------------------------------------------------------------------------


def _exact_verifiers(verifiers: Mapping[str, Any] | None) -> dict[str, Any]:
    from puzzlekit.verifiers.registry import get_verifier, verifier_names

    if verifiers is not None:
        return dict(verifiers)
    out = {}
    for name in verifier_names():
        v = get_verifier(name)
        if getattr(v, "exact", False):
            out[name] = v
    return out


def _fresh(verifiers: Mapping[str, Any]) -> dict[str, Any]:
    """New objects of the same verifiers (so no state learnt from earlier instances is reused)."""
    out = {}
    for name, v in verifiers.items():
        try:
            out[name] = type(v)()
        except TypeError:
            out[name] = v
    return out


def check_family(
    family: Family | str,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    n: int = 2,
    verifiers: Mapping[str, Any] | None = None,
    solution_cap: int = CHECK_CAP,
    cross_process: bool = True,
) -> CheckSummary:
    """Check that ``family`` (an object or a registered name) keeps the family contract.

    ``params`` defaults to the family's first listed params; ``n`` random solutions are drawn
    from ``seed``. ``verifiers`` maps names to verifier objects (default: every registered exact
    verifier); the one named ``enumerative`` is the reference. Raises :class:`ContractError` (an
    ``AssertionError``) listing what to fix; returns a :class:`CheckSummary` with notes on skipped
    steps otherwise. The module docstring lists the checks.
    """
    from puzzlekit.verifiers.base import SearchBudget

    fam = as_family(family)
    params = dict(params if params is not None else default_params(fam))
    subject = f"check_family({fam.name!r}, {json.dumps(params)}, seed={seed})"
    ck = _Checker(subject)
    budget = SearchBudget(nodes=2_000_000, seconds=60.0)

    # 1. schema
    schema = _check_schema(ck, fam, params)
    ck.gate()
    assert schema is not None
    try:
        registered = get_family(fam.name)
    except SpecError:
        registered = None
    if registered is not fam and type(registered) is not type(fam):
        ck.fail(
            "not-registered",
            f"no family named {fam.name!r} of this class is registered; verifiers look families up "
            "by name, so call puzzlekit.families.register_family(family) at import time.",
        )
    ck.gate()

    # 2. clues from a solution hold in it
    try:
        samples = sample_instances(fam, params, seed=seed, n=n)
    except SpecError as exc:
        ck.fail("sampling", f"sample instances could not be built: {exc}")
        ck.gate()
    except Exception as exc:
        ck.fail(
            "sampling",
            f"building sample instances raised {type(exc).__name__}: {exc}{_where(exc)}; "
            "check schema rules (random_solution must find a solution) and clues_from_solution.",
        )
        ck.gate()
    ck.summary.instances = len(samples)
    fulls = [s for s in samples if s.label.endswith(".full")]
    for s in fulls:
        _check_clues_hold(ck, fam, schema, s)
    ck.gate()

    all_verifiers = _exact_verifiers(verifiers)
    if REFERENCE not in all_verifiers:
        from puzzlekit.verifiers.registry import get_verifier

        all_verifiers = {REFERENCE: get_verifier(REFERENCE), **all_verifiers}
    reference = all_verifiers[REFERENCE]

    # 3. everything revealed is UNIQUE, with that solution
    for s in fulls:
        rep = _run(ck, REFERENCE, reference, s.instance, s.label, solution_cap, budget)
        if rep is None:
            continue
        if rep.verdict is not Verdict.UNIQUE:
            extra = ""
            if (
                rep.verdict is Verdict.UNSOLVABLE
                and rep.reject_detail
                and rep.reject_detail.conflict
            ):
                ids = ", ".join(rep.reject_detail.conflict.clue_ids)
                extra = (
                    f" The conflict names clues {ids}: they are true of the solution, so "
                    "clue_constraints() encodes them wrongly, or a rule is wrong."
                )
            elif rep.verdict is Verdict.MULTIPLE:
                extra = (
                    " clues_from_solution() must reveal enough to pin the solution down when "
                    "every clue is given."
                )
            ck.fail(
                "full-reveal",
                f"{_describe(s.instance, s.label)}: a random solution with every clue of "
                f"clues_from_solution() revealed verifies {rep.verdict.value}, expected UNIQUE."
                + extra,
            )
        elif dict(rep.solutions[0]) != dict(s.solution or {}):
            ck.fail(
                "full-reveal",
                f"{_describe(s.instance, s.label)}: verifies UNIQUE but with another solution "
                "than the one its clues came from; clues_from_solution() reveals false clues.",
            )
    ck.gate()

    # 4. text round-trip
    _check_round_trip(ck, fam, samples)
    ck.gate()

    # 5. reports are well formed; exact backends agree
    reports = _verify_all(ck, all_verifiers, samples, schema, solution_cap, budget)
    ck.gate()
    for s in samples:
        ref = reports[REFERENCE].get(s.label)
        if ref is None:
            continue
        for name in all_verifiers:
            if name != REFERENCE and s.label in reports[name]:
                _compare(ck, REFERENCE, ref, name, reports[name][s.label], s.instance, s.label)
    ck.gate()
    verdicts = sorted({r.verdict.value for r in reports[REFERENCE].values()})
    ck.note(f"verdicts seen on {len(samples)} sample instances: {', '.join(verdicts)}")
    for name in all_verifiers:
        if name != REFERENCE and len(reports[name]) < len(samples):
            ck.note(f"verifier {name} declined {len(samples) - len(reports[name])} instance(s)")

    # 6. one seed, one output
    _check_deterministic(
        ck, fam, params, seed, n, samples, all_verifiers, reports, solution_cap, budget
    )
    ck.gate()

    # 7. digests across processes
    if cross_process:
        _check_cross_process(ck, fam, params, seed, samples, reports[REFERENCE], solution_cap)
        ck.gate()

    # 8. malformed input
    _check_malformed(ck, fam, params, seed, all_verifiers, solution_cap, budget)
    ck.gate()
    return ck.summary


def _check_schema(ck: _Checker, fam: Family, params: Mapping[str, Any]) -> Schema | None:
    try:
        schema = fam.schema(params)
    except SpecError as exc:
        ck.fail("schema", f"schema({dict(params)}) rejects these params: {exc}")
        return None
    except Exception as exc:
        ck.fail(
            "schema",
            f"schema({dict(params)}) raised {type(exc).__name__}: {exc}{_where(exc)}; "
            "normalize_params()/build_schema() must raise SpecError for unusable params.",
        )
        return None
    if not isinstance(schema, Schema):
        ck.fail("schema", f"schema() returned {type(schema).__name__}, not a model.Schema")
        return None
    if schema.family != fam.name:
        ck.fail(
            "schema",
            f"schema().family is {schema.family!r} but the family is named {fam.name!r}; "
            "build the Schema with family=self.name.",
        )
    names = [v.name for v in schema.variables]
    coords = [v.coord for v in schema.variables]
    if len(set(names)) != len(names):
        ck.fail("schema", "two variables share a name; names must be unique (r1c1, ...).")
    if len(set(coords)) != len(coords):
        ck.fail("schema", "two variables share a coord; coordinates must be unique.")
    empty = [v.name for v in schema.variables if not v.domain]
    if empty:
        ck.fail("schema", f"variables with an empty domain: {', '.join(empty[:5])}")
    known = set(names)
    for rule in schema.rules:
        stray = [v for v in rule.vars if v not in known]
        if stray:
            ck.fail(
                "schema",
                f"rule {rule.origin.id!r} reads {', '.join(stray[:3])}, which are not variables "
                "of the schema.",
            )
    return schema


def _check_clues_hold(ck: _Checker, fam: Family, schema: Schema, s: Sample) -> None:
    sol = s.solution or {}
    clues = s.instance.clues
    where = f"{s.label}: clues_from_solution()"
    if not clues:
        ck.fail("clues-hold", f"{where} returned no clues; it must return every true clue.")
        return
    bad_type = [c for c in clues if not isinstance(c, Clue)]
    if bad_type:
        ck.fail("clues-hold", f"{where} returned {type(bad_type[0]).__name__}, not model.Clue.")
        return
    ids = [c.id for c in clues]
    if len(set(ids)) != len(ids):
        ck.fail("clues-hold", f"{where} returned two clues with the same id; ids must be unique.")
    for c in clues:
        outside = [co for co in c.coords if not schema.has_coord(co)]
        if outside:
            ck.fail(
                "clues-hold",
                f"{where}: clue {c.id} names coordinates outside the schema: "
                f"{[list(o) for o in outside]}.",
            )
    try:
        problem = resolve(s.instance)
    except SpecError as exc:
        ck.fail(
            "clues-hold",
            f"{where} returned clues that the family itself rejects: {exc}. The clues a solution "
            "reveals must be valid clues.",
        )
        return
    except Exception as exc:
        ck.fail(
            "clues-hold",
            f"resolving the clues of {s.label} raised {type(exc).__name__}: {exc}{_where(exc)}; "
            "clue_constraints() must turn a valid clue into constraints, and raise SpecError "
            "for a bad one.",
        )
        return
    rule_broken = [r.origin.id for r in schema.rules if not r.holds(sol)]
    if rule_broken:
        ck.fail(
            "clues-hold",
            f"{s.label}: the sampled solution breaks rules {', '.join(rule_broken[:5])}; "
            "puzzlekit.core.solutions.random_solution only returns solutions of the rules, so a "
            "rule's holds() disagrees with its variables.",
        )
    for clue in clues:
        for c in problem.constraints_of(clue.id):
            if not c.holds(sol):
                shown = {v: sol.get(v) for v in c.vars[:6]}
                ck.fail(
                    "clues-hold",
                    f"{where} claims clue {clue.id} ({clue.kind}, data {clue.data_dict()}, "
                    f"coords {[list(x) for x in clue.coords]}), but its constraint "
                    f"{type(c).__name__} does not hold in that solution (values {shown}). "
                    "clues_from_solution() must reveal only true facts, and "
                    "clue_constraints() must encode them faithfully.",
                )
                break


def _clue_key(c: Clue) -> tuple:
    return (c.kind, c.data, c.coords)


def _check_round_trip(ck: _Checker, fam: Family, samples: Sequence[Sample]) -> None:
    for s in samples:
        inst = s.instance
        try:
            text = fam.format_text(inst)
        except NotImplementedError:
            ck.note(f"family {fam.name} has no text format: parse/format round-trip skipped")
            return
        except Exception as exc:
            ck.fail(
                "round-trip",
                f"format_text() raised {type(exc).__name__}: {exc}{_where(exc)} on "
                f"{_describe(inst, s.label)}; raise NotImplementedError if there is no text "
                "format.",
            )
            continue
        if not isinstance(text, str):
            ck.fail("round-trip", f"format_text() returned {type(text).__name__}, not str.")
            continue
        try:
            back = fam.parse_text(text, inst.params_dict())
        except Exception as exc:
            ck.fail(
                "round-trip",
                f"parse_text() cannot read what format_text() wrote for {s.label}: "
                f"{type(exc).__name__}: {exc}. Text: {text[:120]!r}",
            )
            continue
        if back.family != inst.family or back.params_dict() != inst.params_dict():
            ck.fail(
                "round-trip",
                f"{s.label}: parse_text(format_text(x)) gives family {back.family!r} params "
                f"{back.params_dict()}, expected {inst.family!r} {inst.params_dict()}.",
            )
        mine = sorted(map(_clue_key, inst.clues), key=repr)
        theirs = sorted(map(_clue_key, back.clues), key=repr)
        if mine != theirs:
            lost = [c for c in inst.clues if _clue_key(c) not in set(theirs)]
            gained = [c for c in back.clues if _clue_key(c) not in set(mine)]
            parts = []
            if lost:
                parts.append(
                    "lost " + ", ".join(f"{c.id} ({c.kind} {c.data_dict()})" for c in lost[:5])
                )
            if gained:
                parts.append(
                    "gained " + ", ".join(f"{c.id} ({c.kind} {c.data_dict()})" for c in gained[:5])
                )
            ck.fail(
                "round-trip",
                f"{s.label}: parse_text(format_text(instance)) has {len(back.clues)} clues, the "
                f"instance has {len(inst.clues)}; the round trip {'; '.join(parts)}. "
                f"format_text() must write every clue and parse_text() read it back. "
                f"Text: {text[:120]!r}",
            )
            continue
        again = fam.format_text(back)
        if again != text:
            ck.fail(
                "round-trip",
                f"{s.label}: formatting the parsed text gives different text "
                f"({again[:60]!r} vs {text[:60]!r}); format_text() must be deterministic.",
            )


def _verify_all(
    ck: _Checker,
    verifiers: Mapping[str, Any],
    samples: Sequence[Sample],
    schema: Schema,
    cap: int,
    budget: Any,
) -> dict[str, dict[str, VerifierReport]]:
    out: dict[str, dict[str, VerifierReport]] = {name: {} for name in verifiers}
    for s in samples:
        for name, v in verifiers.items():
            rep = _run(ck, name, v, s.instance, s.label, cap, budget)
            if rep is not None:
                _check_report(ck, name, rep, s.instance, s.label, schema)
                out[name][s.label] = rep
    return out


def _check_deterministic(
    ck: _Checker,
    fam: Family,
    params: Mapping[str, Any],
    seed: int,
    n: int,
    samples: Sequence[Sample],
    verifiers: Mapping[str, Any],
    reports: Mapping[str, Mapping[str, VerifierReport]],
    cap: int,
    budget: Any,
) -> None:
    again = sample_instances(fam, params, seed=seed, n=n)
    first = [(s.label, s.instance.digest) for s in samples]
    second = [(s.label, s.instance.digest) for s in again]
    if first != second:
        diff = next(
            (a, b)
            for a, b in zip(first, second + [("-", "-")] * len(first), strict=False)
            if a != b
        )
        ck.fail(
            "deterministic",
            f"the same seed gave different instances ({diff[0][0]}: {diff[0][1][:19]}… vs "
            f"{diff[1][1][:19]}…). Everything random must come from the numpy Generator passed "
            "in; clues_from_solution() must not depend on set or dict iteration order.",
        )
        return
    fresh = _fresh(verifiers)
    for s in reversed(samples):
        for name, v in fresh.items():
            old = reports[name].get(s.label)
            if old is None:
                continue
            rep = _run(ck, name, v, s.instance, s.label, cap, budget)
            if rep is None:
                continue
            if Verdict.UNDECIDED in (rep.verdict, old.verdict):
                continue
            if rep.digest() != old.digest():
                ck.fail(
                    "deterministic",
                    f"verifier {name} gave two different reports for "
                    f"{_describe(s.instance, s.label)}"
                    f" ({old.verdict.value} {old.digest()[:19]}… then {rep.verdict.value} "
                    f"{rep.digest()[:19]}…, the second time on a fresh verifier in reverse "
                    "order); a report must depend on the instance and the settings alone.",
                )


_CHILD = """
import json, sys
sys.path[:0] = {paths!r}
from puzzlekit.quality.checks import _fingerprint
print(json.dumps(_fingerprint({module!r}, {qualname!r}, {name!r}, {params!r}, {seed!r}, {cap!r})))
"""


def _fingerprint(
    module: str, qualname: str, name: str, params: dict[str, Any], seed: int, cap: int
) -> dict[str, Any]:
    """Instance digests of ``sample_instances(n=1)`` and the reference report digest of the first
    two, computed in whatever process calls it (used by the cross-process check)."""
    import importlib

    from puzzlekit.families import register_family
    from puzzlekit.verifiers.registry import get_verifier

    mod = importlib.import_module(module)
    cls: Any = mod
    for part in qualname.split("."):
        cls = getattr(cls, part)
    try:
        fam = get_family(name)
    except SpecError:
        fam = None
    if type(fam) is not cls:
        fam = register_family(cls(), replace=True)
    samples = sample_instances(fam, params, seed=seed, n=1)
    ref = get_verifier(REFERENCE)
    return {
        "instances": [s.instance.digest for s in samples],
        "reports": [ref.verify(s.instance, solution_cap=cap).digest() for s in samples[:2]],
    }


def _check_cross_process(
    ck: _Checker,
    fam: Family,
    params: Mapping[str, Any],
    seed: int,
    samples: Sequence[Sample],
    ref_reports: Mapping[str, VerifierReport],
    cap: int,
) -> None:
    cls = type(fam)
    if cls.__module__ == "__main__" or "<locals>" in cls.__qualname__:
        ck.note(
            f"family class {cls.__qualname__} is defined in {cls.__module__!r} or a function, so a "
            "fresh process cannot import it: cross-process digest check skipped"
        )
        return
    mine_samples = [s for s in samples if s.label.startswith(f"seed{seed}.0.")]
    mine = {
        "instances": [s.instance.digest for s in mine_samples],
        "reports": [ref_reports[s.label].digest() for s in mine_samples[:2]],
    }
    code = _CHILD.format(
        paths=[p for p in sys.path if p],
        module=cls.__module__,
        qualname=cls.__qualname__,
        name=fam.name,
        params=dict(params),
        seed=seed,
        cap=cap,
    )
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        ck.fail(
            "cross-process",
            f"a fresh Python process could not rebuild the sample instances: {tail[0]}. A family "
            f"must be importable from {cls.__module__} in a new process (holdout verifiers run "
            "in their own worker process).",
        )
        return
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    if theirs["instances"] != mine["instances"]:
        ck.fail(
            "cross-process",
            "a fresh Python process (another hash seed) built instances with other digests from "
            "the same seed; clues_from_solution(), schema() and parse must not depend on set "
            "iteration, id() or hash() of strings.",
        )
    elif theirs["reports"] != mine["reports"]:
        ck.fail(
            "cross-process",
            "a fresh Python process computed other report digests for the same instances; "
            "the report content must not depend on the process (sort what comes from sets).",
        )


def _check_malformed(
    ck: _Checker,
    fam: Family,
    params: Mapping[str, Any],
    seed: int,
    verifiers: Mapping[str, Any],
    cap: int,
    budget: Any,
) -> None:
    for what, inst, accepted in malformed_instances(fam, params, seed=seed):
        for name, v in verifiers.items():
            rep = _run(ck, name, v, inst, f"<{what}>", cap, budget)
            if rep is None:
                continue
            if rep.verdict.value not in accepted:
                ck.fail(
                    "malformed",
                    f"a {what} gave {rep.verdict.value} from verifier {name}, expected "
                    f"{' or '.join(sorted(accepted))}; clue_constraints()/normalize_params() "
                    "must raise SpecError with a violation for it.",
                )
            else:
                _check_report(ck, name, rep, inst, f"<{what}>", None)
    for text in GARBAGE_TEXTS:
        try:
            fam.parse_text(text, dict(params))
        except SpecError as exc:
            if not exc.violations:
                ck.fail("malformed", f"parse_text({text!r}) raised SpecError without violations.")
        except Exception as exc:
            ck.fail(
                "malformed",
                f"parse_text({text!r}) raised {type(exc).__name__}: {exc}{_where(exc)}; a parser "
                "must raise SpecError with violations for unreadable text, never another "
                "exception.",
            )
        else:
            ck.fail(
                "malformed",
                f"parse_text({text!r}) accepted garbage; it must raise SpecError with a violation.",
            )


# --- check_verifier -----------------------------------------------------------------------------


def _family_specs(
    families: Iterable[Family | str | tuple[Family | str, Mapping[str, Any]]] | None,
) -> list[tuple[Family, dict[str, Any]]]:
    from puzzlekit.families import families as all_families

    if families is None:
        return [(f, default_params(f)) for f in all_families()]
    out = []
    for spec in families:
        if isinstance(spec, tuple):
            fam = as_family(spec[0])
            out.append((fam, dict(spec[1])))
        else:
            fam = as_family(spec)
            out.append((fam, default_params(fam)))
    return out


def check_verifier(
    verifier: Any,
    families: Iterable[Family | str | tuple[Family | str, Mapping[str, Any]]] | None = None,
    *,
    seed: int = 0,
    n: int = 2,
    reference: Any = None,
    solution_cap: int = CHECK_CAP,
) -> CheckSummary:
    """Check a verifier object against the verifier contract and the reference backend.

    ``families`` lists families (objects or names), optionally as ``(family, params)`` pairs
    (default: every registered family at its first listed params). On the sample and malformed
    instances of each: ``verify`` returns a :class:`~puzzlekit.core.report.VerifierReport` whose
    JSON
    validates against the report schema and round-trips, leaves its input unchanged, names only
    coordinates of the schema, reports only true solutions, gives INVALID_SPEC for malformed
    input, and gives the same report twice. An exact verifier (``exact = True``) must also agree
    with ``reference`` (default: enumerative) on verdict, capped count and, below the cap, the
    solutions. Raises :class:`ContractError`; returns a :class:`CheckSummary`.
    """
    import jsonschema

    from puzzlekit.verifiers.base import SearchBudget
    from puzzlekit.verifiers.registry import get_verifier

    name = str(getattr(verifier, "name", type(verifier).__name__))
    ck = _Checker(f"check_verifier({name!r}, seed={seed})")
    for attr, typ in (("name", str), ("version", str), ("exact", bool)):
        if not isinstance(getattr(verifier, attr, None), typ):
            ck.fail(
                "protocol",
                f"verifier.{attr} must be a {typ.__name__} "
                "(see puzzlekit.verifiers.base.Verifier).",
            )
    if not callable(getattr(verifier, "verify", None)):
        ck.fail("protocol", "a verifier has one verb, verify(instance, *, solution_cap, budget).")
    ck.gate()
    ref = reference if reference is not None else get_verifier(REFERENCE)
    budget = SearchBudget(nodes=2_000_000, seconds=60.0)
    exact = bool(verifier.exact)
    for fam, params in _family_specs(families):
        schema = fam.schema(params)
        samples = sample_instances(fam, params, seed=seed, n=n)
        accepted: dict[str, frozenset[str]] = {}
        bad = []
        for what, inst, verdicts in malformed_instances(fam, params, seed=seed):
            bad.append(Sample(f"<{what}>", inst, None))
            accepted[f"<{what}>"] = verdicts
        ck.summary.instances += len(samples) + len(bad)
        for s in [*samples, *bad]:
            label = f"{fam.name}:{s.label}"
            rep = _run(ck, name, verifier, s.instance, label, solution_cap, budget)
            if rep is None:
                continue
            _check_report(ck, name, rep, s.instance, label, schema)
            try:
                validate_report_json(rep.to_json_obj())
            except jsonschema.ValidationError as exc:
                path = "/".join(str(p) for p in exc.absolute_path) or "$"
                ck.fail(
                    "report-schema",
                    f"the report for {label} does not validate against the report JSON schema "
                    f"at {path}: {exc.message}.",
                )
            except Exception as exc:
                ck.fail("report-schema", f"the report for {label} cannot be serialized: {exc}")
                continue
            back = VerifierReport.from_json(rep.to_json())
            if back.to_json() != rep.to_json() or back.digest() != rep.digest():
                ck.fail(
                    "round-trip",
                    f"the report for {label} does not survive to_json()/from_json(); use JSON "
                    "types (lists, dicts, ints, str) in every field.",
                )
            twice = _run(ck, name, verifier, s.instance, label, solution_cap, budget)
            if (
                twice is not None
                and Verdict.UNDECIDED not in (twice.verdict, rep.verdict)
                and twice.digest() != rep.digest()
            ):
                ck.fail(
                    "deterministic",
                    f"two calls on {label} gave different reports ({rep.verdict.value} then "
                    f"{twice.verdict.value}); a report depends on the instance and settings alone.",
                )
            if s.label in accepted:
                if rep.verdict.value not in accepted[s.label]:
                    ck.fail(
                        "malformed",
                        f"{label} is malformed on purpose but {name} says {rep.verdict.value}; "
                        "return INVALID_SPEC with violations for input the family rejects "
                        "(puzzlekit.verifiers.base.try_resolve gives them).",
                    )
                continue
            if exact:
                ref_rep = ref.verify(s.instance, solution_cap=solution_cap, budget=budget)
                _compare(ck, "reference", ref_rep, name, rep, s.instance, label)
    ck.gate()
    if not exact:
        ck.note(f"{name} is not exact: agreement with the reference not checked")
    return ck.summary

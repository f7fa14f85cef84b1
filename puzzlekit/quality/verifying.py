"""Running verifiers for the contract checks: one report, its well-formedness, and agreement.

Each function records what breaks the contract on a :class:`~puzzlekit.quality.contract.Checker`
(a stable code and a sentence saying what to change) instead of raising: a verifier that raises,
mutates its input or returns something else than a report; a report whose digest, detail case,
coordinates or solutions are wrong; two exact backends that disagree.

Not for: deciding which checks run (``family_check``, ``verifier_check``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core.model import Instance, Problem, Schema, SpecError, canonical_json
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.families import resolve, strict_hooks
from puzzlekit.quality.contract import Checker, describe, where
from puzzlekit.quality.sampling import Sample

#: the reference backend: every family's reports are compared with its
REFERENCE = "enumerative"
#: solution cap of the checks: small, so that MULTIPLE instances stay cheap on big grids
CHECK_CAP = 4
#: the search budget of every verification a check makes
CHECK_BUDGET = SearchBudget(nodes=2_000_000, seconds=60.0)


def declines(exc: BaseException) -> bool:
    """Whether ``exc`` is a backend declining an instance it cannot take (not a failure)."""
    return isinstance(exc, NotImplementedError) or type(exc).__name__ == "NotEncodable"


def run_verifier(
    ck: Checker,
    name: str,
    verifier: Any,
    inst: Instance,
    label: str,
    cap: int,
    budget: SearchBudget,
    declined: list[BaseException] | None = None,
) -> VerifierReport | None:
    """The verifier's report, or None when it declines the instance (the exception appended to
    ``declined`` when given) or breaks the contract."""
    before = canonical_json(inst.to_json_obj())  # fresh bytes: the instance caches its own
    try:
        with strict_hooks():  # a family hook's own exception is a bug to name, not an input
            rep = verifier.verify(inst, solution_cap=cap, budget=budget)
    except Exception as exc:
        if declines(exc):
            if declined is not None:
                declined.append(exc)
            return None
        blame = blame_family(inst)
        ck.fail(
            "verifier-raised",
            f"verifier {name} raised {type(exc).__name__}: {exc}{where(exc)} on "
            f"{describe(inst, label)}. {blame}",
        )
        return None
    if canonical_json(inst.to_json_obj()) != before:
        ck.fail(
            "input-mutated",
            f"verifier {name} changed {describe(inst, label)} while verifying it; a verifier "
            "must never mutate its input (copy what you need).",
        )
    if not isinstance(rep, VerifierReport):
        ck.fail(
            "not-a-report",
            f"verifier {name} returned {type(rep).__name__} for {describe(inst, label)}; "
            "verify() must return a puzzlekit.core.report.VerifierReport.",
        )
        return None
    ck.summary.reports[name] = ck.summary.reports.get(name, 0) + 1
    return rep


def blame_family(inst: Instance) -> str:
    """Whether the family itself raises on ``inst`` (then it, not the verifier, must change)."""
    try:
        with strict_hooks():
            resolve(inst)
    except SpecError:
        return "The instance is invalid; the verifier must return INVALID_SPEC for it."
    except Exception as exc:
        return (
            f"The family raises too: resolve() gave {type(exc).__name__}: {exc}{where(exc)}; "
            "schema(), clue_constraints() and validate_clues() must raise SpecError with "
            "violations for bad input and nothing else."
        )
    return "The family resolves the instance, so the verifier must return a report for it."


def check_report(
    ck: Checker,
    name: str,
    rep: VerifierReport,
    inst: Instance,
    label: str,
    schema: Schema | None,
) -> None:
    """Contract checks on one report that need no other verifier."""
    at = f"verifier {name} on {describe(inst, label)}"
    if rep.instance_digest != inst.digest:
        ck.fail(
            "wrong-digest",
            f"{at}: report.instance_digest is {rep.instance_digest}, the instance's digest is "
            f"{inst.digest}; set it from instance.digest.",
        )
    rd = rep.reject_detail
    if rep.verdict is Verdict.UNIQUE:
        if rd is not None:
            ck.fail("detail-on-unique", f"{at}: a UNIQUE report must have no rejectDetail.")
        if rep.solution_count != 1 or len(rep.solutions) != 1:
            ck.fail(
                "unique-count",
                f"{at}: UNIQUE with solutionCount {rep.solution_count} and "
                f"{len(rep.solutions)} solutions; UNIQUE means exactly one solution.",
            )
    elif rd is None or rd.case is not rep.verdict:
        case = rd.case.value if rd is not None else None
        ck.fail(
            "detail-case",
            f"{at}: verdict {rep.verdict.value} but rejectDetail.case is {case}; every "
            "non-UNIQUE report carries a rejectDetail whose case equals the verdict.",
        )
    if rep.verdict is Verdict.INVALID_SPEC:
        if rd is not None and not rd.violations:
            ck.fail("no-violations", f"{at}: INVALID_SPEC with no violations; say what is bad.")
        return
    if schema is None:
        return
    if rd is not None:
        outside = [c for c in rd.coords() if not schema.has_coord(c)]
        if outside:
            shown = ", ".join(str(list(c)) for c in outside[:5])
            ck.fail(
                "coord-outside-schema",
                f"{at}: the {rep.verdict.value} reject detail names coordinates that are not "
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
                    f"{at}: a reported solution lacks {', '.join(missing[:5])}; a solution "
                    "assigns every variable of the schema, by variable name.",
                )
                break
            if problem is not None and not problem.check(sol):
                broken = [c.origin.id for c in problem.all_constraints() if not c.holds(sol)][:5]
                ck.fail(
                    "wrong-solution",
                    f"{at}: a reported solution violates {', '.join(broken)}; a verifier must "
                    "report only assignments that satisfy every rule and clue.",
                )
                break


def solution_set(rep: VerifierReport) -> set[tuple]:
    return {tuple(sorted(s.items())) for s in rep.solutions}


def compare(
    ck: Checker,
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
    at = f"{describe(inst, label)}"
    if ref.verdict is not rep.verdict or ref.solution_count != rep.solution_count:
        ck.fail(
            "backends-disagree",
            f"{at}: {ref_name} says {ref.verdict.value} ({ref.solution_count} solutions), "
            f"{name} says {rep.verdict.value} ({rep.solution_count} solutions). Exact backends "
            "must agree; the clue or rule encoding of one of them is wrong (compare "
            "resolve(instance).all_constraints() with what the backend encodes).",
        )
        return
    if not ref.solution_count_is_lower_bound and solution_set(ref) != solution_set(rep):
        ck.fail(
            "backends-disagree",
            f"{at}: {ref_name} and {name} both find {ref.solution_count} solutions, but not "
            "the same ones; below the cap every exact backend finds every solution.",
        )


def exact_verifiers(verifiers: Mapping[str, Any] | None) -> dict[str, Any]:
    """``verifiers`` as given, else a new object of every registered exact verifier by name."""
    from puzzlekit.verifiers.registry import get_verifier, verifier_names

    if verifiers is not None:
        return dict(verifiers)
    out = {}
    for name in verifier_names():
        v = get_verifier(name)
        if v.exact:
            out[name] = v
    return out


def fresh_verifiers(verifiers: Mapping[str, Any]) -> dict[str, Any]:
    """New objects of the same verifiers (so no state learnt from earlier instances is reused)."""
    out = {}
    for name, v in verifiers.items():
        try:
            out[name] = type(v)()
        except TypeError:
            out[name] = v
    return out


def verify_all(
    ck: Checker,
    verifiers: Mapping[str, Any],
    samples: Sequence[Sample],
    schema: Schema,
    cap: int,
    budget: SearchBudget,
) -> dict[str, dict[str, VerifierReport]]:
    """Every verifier's well-formed report on every sample it accepts (``Verifier.accepts``: a
    backend that does not take the family's instances is left out, unmentioned), by verifier
    name and label; notes the backends that accepted an instance and then declined it
    (:func:`note_declines`), and fails
    ``default-filter-declines`` when the family's default filter declines one
    (:func:`check_default_filter`)."""
    out: dict[str, dict[str, VerifierReport]] = {name: {} for name in verifiers}
    declined: dict[str, list[BaseException]] = {name: [] for name in verifiers}
    for s in samples:
        for name, v in verifiers.items():
            if not v.accepts(s.instance):  # a backend for other kinds of family: not compared
                continue
            rep = run_verifier(ck, name, v, s.instance, s.label, cap, budget, declined[name])
            if rep is not None:
                check_report(ck, name, rep, s.instance, s.label, schema)
                out[name][s.label] = rep
    note_declines(ck, declined, len(samples))
    check_default_filter(ck, schema, samples, verifiers)
    return out


def check_default_filter(
    ck: Checker, schema: Schema, samples: Sequence[Sample], verifiers: Mapping[str, Any]
) -> None:
    """``default-filter-declines``: the filter a loop of the family gets by default
    (:func:`puzzlekit.verifiers.registry.default_filter_name`, chosen from the family's rules
    without clues) must accept every sample; a family whose rules the compiled backend takes
    but some of whose clues it cannot is told to name its own backend."""
    from puzzlekit.verifiers.registry import default_filter_name

    name = default_filter_name(schema.family, schema.params_dict())
    if name not in verifiers:
        return
    refused = [s.label for s in samples if not verifiers[name].accepts(s.instance)]
    if refused:
        ck.fail(
            "default-filter-declines",
            f"the default filter of {schema.family}, {name}, does not accept {len(refused)} "
            f"sample(s) ({refused[0]} first): loops would end on them. Set "
            '`default_verifier = "sat"` (or another backend that reads every clue) on the family.',
        )


def note_declines(ck: Checker, declined: Mapping[str, list[BaseException]], n: int) -> None:
    """Note each backend that declined some of the ``n`` samples, with its first reason.

    A backend that declined every sample with a plain ``NotImplementedError`` serves other
    kinds of family (a game or tool-call backend) and concerns this family not at all: it goes
    unnoted. A general backend declining (``NotEncodable``, ``NotCompilable``, or only some
    samples) is noted: it tells the family's author which formulation a backend cannot read.
    """
    for name, excs in declined.items():
        if not excs:
            continue
        if len(excs) == n and all(type(e) is NotImplementedError for e in excs):
            continue
        ck.note(f"verifier {name} declined {len(excs)} of {n} instance(s): {excs[0]}")

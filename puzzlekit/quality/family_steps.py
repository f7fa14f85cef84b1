"""The steps of ``check_family`` that run in this process, one function per step.

Each step records what breaks the family contract on a
:class:`~puzzlekit.quality.contract.Checker` (a stable code and a sentence saying what to
change); :func:`puzzlekit.quality.family_check.check_family` runs them in order and stops after a
step that failed. The generation step is in :mod:`puzzlekit.quality.generation`, the
cross-process step in :mod:`puzzlekit.quality.cross_process`.

Not for: verifier backends (``verifier_check``) or proving a family correct (the checks sample).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import Clue, Instance, Schema, SpecError
from puzzlekit.core.protocols import SearchBudget, protocol_members
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.families import resolve
from puzzlekit.quality.contract import Checker, describe, where
from puzzlekit.quality.sampling import (
    GARBAGE_TEXTS,
    Sample,
    malformed_instances,
    sample_instances,
)
from puzzlekit.quality.verifying import (
    REFERENCE,
    check_report,
    compare,
    fresh_verifiers,
    run_verifier,
)


def check_protocol(ck: Checker, fam: Any) -> None:
    """The family has every member of :class:`~puzzlekit.core.protocols.Family` and its
    ``repair_moves`` accepts ``found`` (codes ``family-protocol``, ``repair-found``)."""
    missing = [m for m in protocol_members(protocols.Family) if not hasattr(fam, m)]
    old = protocols.declared_outside_info(fam)
    if missing or old:
        owner = type(fam).__name__
        ck.fail(
            "family-protocol",
            (f"{owner} lacks {', '.join(missing)}; subclass " if missing else "Subclass ")
            + "puzzlekit.core.protocols.Family, which defines every optional hook with its "
            "default, declare info = FamilyInfo(name=...) and fill in the required hooks "
            "(normalize_params, build_schema, clue_constraints, clues_from_solution)."
            + (f" Also: {protocols.outside_info_message(owner, old)}." if old else ""),
        )
        return
    try:
        params = inspect.signature(fam.repair_moves).parameters.values()
    except (TypeError, ValueError):
        return  # a builtin or C callable: the generation step calls it and reports a failure
    takes = any(
        (p.name == "found" and p.kind is not inspect.Parameter.POSITIONAL_ONLY)
        or p.kind is inspect.Parameter.VAR_KEYWORD
        for p in params
    )
    if not takes:
        ck.fail(
            "repair-found",
            f"{type(fam).__name__}.repair_moves does not accept the keyword found; the adaptive "
            "strategy always passes the filter's found solutions: add "
            "`*, found: Sequence[Solution] = ()` to its signature (ignore it if the moves are "
            "not ranked).",
        )


def check_schema(ck: Checker, fam: protocols.Family, params: Mapping[str, Any]) -> Schema | None:
    try:
        schema = fam.schema(params)
    except SpecError as exc:
        ck.fail("schema", f"schema({dict(params)}) rejects these params: {exc}")
        return None
    except Exception as exc:
        ck.fail(
            "schema",
            f"schema({dict(params)}) raised {type(exc).__name__}: {exc}{where(exc)}; "
            "normalize_params()/build_schema() must raise SpecError for unusable params.",
        )
        return None
    if not isinstance(schema, Schema):
        ck.fail("schema", f"schema() returned {type(schema).__name__}, not a model.Schema")
        return None
    if schema.family != fam.info.name:
        ck.fail(
            "schema",
            f"schema().family is {schema.family!r} but the family is named {fam.info.name!r}; "
            "build the Schema with family=self.info.name.",
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


def check_clues_hold(ck: Checker, fam: protocols.Family, schema: Schema, s: Sample) -> None:
    sol = s.solution or {}
    clues = s.instance.clues
    at = f"{s.label}: clues_from_solution()"
    if not clues:
        ck.fail("clues-hold", f"{at} returned no clues; it must return every true clue.")
        return
    bad_type = [c for c in clues if not isinstance(c, Clue)]
    if bad_type:
        ck.fail("clues-hold", f"{at} returned {type(bad_type[0]).__name__}, not model.Clue.")
        return
    ids = [c.id for c in clues]
    if len(set(ids)) != len(ids):
        ck.fail("clues-hold", f"{at} returned two clues with the same id; ids must be unique.")
    for c in clues:
        outside = [co for co in c.coords if not schema.has_coord(co)]
        if outside:
            ck.fail(
                "clues-hold",
                f"{at}: clue {c.id} names coordinates outside the schema: "
                f"{[list(o) for o in outside]}.",
            )
    try:
        problem = resolve(s.instance)
    except SpecError as exc:
        ck.fail(
            "clues-hold",
            f"{at} returned clues that the family itself rejects: {exc}. The clues a solution "
            "reveals must be valid clues.",
        )
        return
    except Exception as exc:
        ck.fail(
            "clues-hold",
            f"resolving the clues of {s.label} raised {type(exc).__name__}: {exc}{where(exc)}; "
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
                    f"{at} claims clue {clue.id} ({clue.kind}, data {clue.data_dict()}, "
                    f"coords {[list(x) for x in clue.coords]}), but its constraint "
                    f"{type(c).__name__} does not hold in that solution (values {shown}). "
                    "clues_from_solution() must reveal only true facts, and "
                    "clue_constraints() must encode them faithfully.",
                )
                break


def check_full_reveal(
    ck: Checker,
    reference: Any,
    fulls: Sequence[Sample],
    cap: int,
    budget: SearchBudget,
) -> None:
    """A random solution with every clue revealed verifies UNIQUE with that solution on the
    reference (code ``full-reveal``)."""
    for s in fulls:
        rep = run_verifier(ck, REFERENCE, reference, s.instance, s.label, cap, budget)
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
                f"{describe(s.instance, s.label)}: a random solution with every clue of "
                f"clues_from_solution() revealed verifies {rep.verdict.value}, expected UNIQUE."
                + extra,
            )
        elif dict(rep.solutions[0]) != dict(s.solution or {}):
            ck.fail(
                "full-reveal",
                f"{describe(s.instance, s.label)}: verifies UNIQUE but with another solution "
                "than the one its clues came from; clues_from_solution() reveals false clues.",
            )


def _clue_key(c: Clue) -> tuple:
    return (c.kind, c.data, c.coords)


def check_round_trip(
    ck: Checker, fam: protocols.Family, samples: Sequence[Sample], code: str = "round-trip"
) -> bool:
    """``parse_text(format_text(x))`` gives ``x`` back, and formatting it again the same text,
    for every sample; failures under ``code``. False when the family has no text format."""
    for s in samples:
        try:
            text = fam.format_text(s.instance)
        except NotImplementedError:
            return False
        except Exception as exc:
            ck.fail(
                code,
                f"format_text() raised {type(exc).__name__}: {exc}{where(exc)} on "
                f"{describe(s.instance, s.label)}; raise NotImplementedError if there is no "
                "text format.",
            )
            continue
        _round_trip_text(ck, fam, s, text, code)
    return True


def _round_trip_text(ck: Checker, fam: protocols.Family, s: Sample, text: Any, code: str) -> None:
    inst = s.instance
    if not isinstance(text, str):
        ck.fail(code, f"format_text() returned {type(text).__name__}, not str.")
        return
    if "\n" in text.strip() or "\r" in text.strip():
        ck.fail(
            "one-line",
            f"format_text() wrote {text.strip().count(chr(10)) + 1} lines for {s.label}; the "
            "text format is one puzzle a line (commands read input line by line): join the "
            f"rows with a separator and keep multi-line drawings in render_ascii(). "
            f"Text: {text[:120]!r}",
        )
        return
    try:
        back = fam.parse_text(text, inst.params_dict())
    except Exception as exc:
        ck.fail(
            code,
            f"parse_text() cannot read what format_text() wrote for {s.label}: "
            f"{type(exc).__name__}: {exc}. Text: {text[:120]!r}",
        )
        return
    if back.family != inst.family or back.params_dict() != inst.params_dict():
        ck.fail(
            code,
            f"{s.label}: parse_text(format_text(x)) gives family {back.family!r} params "
            f"{back.params_dict()}, expected {inst.family!r} {inst.params_dict()}.",
        )
    lost_gained = _clue_difference(inst, back)
    if lost_gained:
        ck.fail(
            code,
            f"{s.label}: parse_text(format_text(instance)) has {len(back.clues)} clues, the "
            f"instance has {len(inst.clues)}; the round trip {lost_gained}. "
            f"format_text() must write every clue and parse_text() read it back. "
            f"Text: {text[:120]!r}",
        )
        return
    again = fam.format_text(back)
    if again != text:
        ck.fail(
            code,
            f"{s.label}: formatting the parsed text gives different text "
            f"({again[:60]!r} vs {text[:60]!r}); format_text() must be deterministic.",
        )


def _clue_difference(inst: Instance, back: Instance) -> str:
    """What the round trip lost and gained (clue kind, data, coords; ids aside), or ''."""
    mine = sorted(map(_clue_key, inst.clues), key=repr)
    theirs = sorted(map(_clue_key, back.clues), key=repr)
    if mine == theirs:
        return ""
    lost = [c for c in inst.clues if _clue_key(c) not in set(theirs)]
    gained = [c for c in back.clues if _clue_key(c) not in set(mine)]
    parts = []
    if lost:
        parts.append("lost " + ", ".join(f"{c.id} ({c.kind} {c.data_dict()})" for c in lost[:5]))
    if gained:
        parts.append(
            "gained " + ", ".join(f"{c.id} ({c.kind} {c.data_dict()})" for c in gained[:5])
        )
    return "; ".join(parts) or "changed the clue multiset"


def check_agreement(
    ck: Checker,
    verifiers: Mapping[str, Any],
    samples: Sequence[Sample],
    reports: Mapping[str, Mapping[str, VerifierReport]],
) -> None:
    """Every exact backend agrees with the reference on every sample (``backends-disagree``);
    notes the verdicts seen (:func:`~puzzlekit.quality.verifying.verify_all` notes the
    declines)."""
    for s in samples:
        ref = reports[REFERENCE].get(s.label)
        if ref is None:
            continue
        for name in verifiers:
            if name != REFERENCE and s.label in reports[name]:
                compare(ck, REFERENCE, ref, name, reports[name][s.label], s.instance, s.label)
    verdicts = sorted({r.verdict.value for r in reports[REFERENCE].values()})
    ck.note(f"verdicts seen on {len(samples)} sample instances: {', '.join(verdicts)}")


def check_deterministic(
    ck: Checker,
    fam: protocols.Family,
    params: Mapping[str, Any],
    seed: int,
    n: int,
    samples: Sequence[Sample],
    verifiers: Mapping[str, Any],
    reports: Mapping[str, Mapping[str, VerifierReport]],
    cap: int,
    budget: SearchBudget,
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
    fresh = fresh_verifiers(verifiers)
    for s in reversed(samples):
        for name, v in fresh.items():
            old = reports[name].get(s.label)
            if old is None:
                continue
            rep = run_verifier(ck, name, v, s.instance, s.label, cap, budget)
            if rep is None:
                continue
            if Verdict.UNDECIDED in (rep.verdict, old.verdict):
                continue
            if rep.digest() != old.digest():
                ck.fail(
                    "deterministic",
                    f"verifier {name} gave two different reports for "
                    f"{describe(s.instance, s.label)}"
                    f" ({old.verdict.value} {old.digest()[:19]}… then {rep.verdict.value} "
                    f"{rep.digest()[:19]}…, the second time on a fresh verifier in reverse "
                    "order); a report must depend on the instance and the settings alone.",
                )


def check_malformed(
    ck: Checker,
    fam: protocols.Family,
    params: Mapping[str, Any],
    seed: int,
    verifiers: Mapping[str, Any],
    cap: int,
    budget: SearchBudget,
) -> None:
    for what, inst, accepted in malformed_instances(fam, params, seed=seed):
        for name, v in verifiers.items():
            rep = run_verifier(ck, name, v, inst, f"<{what}>", cap, budget)
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
                check_report(ck, name, rep, inst, f"<{what}>", None)
    for text in GARBAGE_TEXTS:
        try:
            fam.parse_text(text, dict(params))
        except SpecError as exc:
            if not exc.violations:
                ck.fail("malformed", f"parse_text({text!r}) raised SpecError without violations.")
        except Exception as exc:
            ck.fail(
                "malformed",
                f"parse_text({text!r}) raised {type(exc).__name__}: {exc}{where(exc)}; a parser "
                "must raise SpecError with violations for unreadable text, never another "
                "exception.",
            )
        else:
            ck.fail(
                "malformed",
                f"parse_text({text!r}) accepted garbage; it must raise SpecError with a violation.",
            )

"""``check_verifier``: one function that holds a verifier backend (ours or a third party's) to
the verifier contract and to the reference backend, and says what to change when it breaks it.

Codes: ``protocol`` (a member of :class:`puzzlekit.core.protocols.Verifier` is missing or of the
wrong type, or ``verify`` does not take ``extras``), the report codes of
:mod:`puzzlekit.quality.verifying` (``verifier-raised``, ``input-mutated``, ``not-a-report``,
``wrong-digest``, ``detail-case``, ``coord-outside-schema``, ``wrong-solution``, ...),
``report-schema``, ``round-trip`` (of the report JSON), ``deterministic``, ``malformed`` and
``backends-disagree``.

Not for: families (:mod:`puzzlekit.quality.family_check`) or benchmarking.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import protocol_members
from puzzlekit.core.report import Verdict, VerifierReport, validate_report_json
from puzzlekit.quality.contract import Checker, CheckSummary
from puzzlekit.quality.sampling import (
    Sample,
    as_family,
    default_params,
    malformed_instances,
    sample_instances,
)
from puzzlekit.quality.verifying import (
    CHECK_BUDGET,
    CHECK_CAP,
    REFERENCE,
    check_report,
    compare,
    run_verifier,
)

FamilySpec = protocols.Family | str | tuple[protocols.Family | str, Mapping[str, Any]]
#: the types of the attributes every verifier declares
_TYPES = {"name": str, "version": str, "exact": bool, "holdout_name": str}


def _family_specs(
    families: Iterable[FamilySpec] | None,
) -> list[tuple[protocols.Family, dict[str, Any]]]:
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
    families: Iterable[FamilySpec] | None = None,
    *,
    seed: int = 0,
    n: int = 2,
    reference: Any = None,
    solution_cap: int = CHECK_CAP,
) -> CheckSummary:
    """Check a verifier object against the verifier contract and the reference backend.

    ``families`` lists families (objects or names), optionally as ``(family, params)`` pairs
    (default: every registered family at its first listed params). The verifier has every
    member of :class:`~puzzlekit.core.protocols.Verifier` (subclass it to get the defaults of
    the optional hooks). On the sample and malformed instances of each family: ``verify``
    returns a :class:`~puzzlekit.core.report.VerifierReport` whose JSON validates against the
    report schema and round-trips, leaves its input unchanged, names only coordinates of the
    schema, reports only true solutions, gives INVALID_SPEC for malformed input, and gives the
    same report twice. An exact verifier (``exact = True``) must also agree with ``reference``
    (default: enumerative) on verdict, capped count and, below the cap, the solutions. Raises
    :class:`ContractError`; returns a :class:`CheckSummary`.
    """
    from puzzlekit.verifiers.registry import get_verifier

    name = str(getattr(verifier, "name", type(verifier).__name__))
    ck = Checker(f"check_verifier({name!r}, seed={seed})")
    _check_members(ck, verifier)
    ck.gate()
    ref = reference if reference is not None else get_verifier(REFERENCE)
    for fam, params in _family_specs(families):
        schema = fam.schema(params)
        samples = sample_instances(fam, params, seed=seed, n=n)
        accepted: dict[str, frozenset[str]] = {}
        for what, inst, verdicts in malformed_instances(fam, params, seed=seed):
            samples.append(Sample(f"<{what}>", inst, None))
            accepted[f"<{what}>"] = verdicts
        ck.summary.instances += len(samples)
        for s in samples:
            label = f"{fam.info.name}:{s.label}"
            rep = run_verifier(ck, name, verifier, s.instance, label, solution_cap, CHECK_BUDGET)
            if rep is None:
                continue
            check_report(ck, name, rep, s.instance, label, schema)
            if not _check_wire(ck, rep, label):
                continue
            _check_again(ck, name, verifier, rep, s.instance, label, solution_cap)
            if s.label in accepted:
                _check_malformed_verdict(ck, name, rep, label, accepted[s.label])
            elif verifier.exact:
                ref_rep = ref.verify(s.instance, solution_cap=solution_cap, budget=CHECK_BUDGET)
                compare(ck, "reference", ref_rep, name, rep, s.instance, label)
    ck.gate()
    if not verifier.exact:
        ck.note(f"{name} is not exact: agreement with the reference not checked")
    return ck.summary


def _check_members(ck: Checker, verifier: Any) -> None:
    """Every member of the Verifier protocol is there, the attributes of the right type."""
    missing = [m for m in protocol_members(protocols.Verifier) if not hasattr(verifier, m)]
    if missing:
        ck.fail(
            "protocol",
            f"{type(verifier).__name__} lacks {', '.join(missing)}; subclass "
            "puzzlekit.core.protocols.Verifier, which defines every optional hook with its "
            "default, and give name, version, exact and verify().",
        )
        return
    for attr, typ in _TYPES.items():
        if not isinstance(getattr(verifier, attr), typ):
            ck.fail(
                "protocol",
                f"verifier.{attr} must be a {typ.__name__} "
                "(see puzzlekit.core.protocols.Verifier).",
            )
    if not callable(verifier.verify):
        ck.fail("protocol", "a verifier has one verb, verify(instance, *, solution_cap, budget).")
    elif not _takes_extras(verifier.verify):
        ck.fail(
            "protocol",
            f"{type(verifier).__name__}.verify must take the keyword extras: Collection[str] = () "
            "(the names of the report extras asked for; the loop passes it on every call, and a "
            "verifier ignores the names it does not compute).",
        )


def _takes_extras(verify: Any) -> bool:
    """Whether ``verify`` takes ``extras`` (by name, or through ``**kwargs``)."""
    try:
        params = inspect.signature(verify).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: let the calls tell
        return True
    return any(p.name == "extras" or p.kind is p.VAR_KEYWORD for p in params)


def _check_wire(ck: Checker, rep: VerifierReport, label: str) -> bool:
    """The report's JSON validates against the report schema and round-trips; False when it
    cannot be serialized at all."""
    import jsonschema

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
        return False
    back = VerifierReport.from_json(rep.to_json())
    if back.to_json() != rep.to_json() or back.digest() != rep.digest():
        ck.fail(
            "round-trip",
            f"the report for {label} does not survive to_json()/from_json(); use JSON "
            "types (lists, dicts, ints, str) in every field.",
        )
    return True


def _check_again(
    ck: Checker,
    name: str,
    verifier: Any,
    rep: VerifierReport,
    inst: Instance,
    label: str,
    cap: int,
) -> None:
    """A second call on the same instance gives the same report (UNDECIDED aside)."""
    twice = run_verifier(ck, name, verifier, inst, label, cap, CHECK_BUDGET)
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


def _check_malformed_verdict(
    ck: Checker, name: str, rep: VerifierReport, label: str, accepted: frozenset[str]
) -> None:
    if rep.verdict.value not in accepted:
        ck.fail(
            "malformed",
            f"{label} is malformed on purpose but {name} says {rep.verdict.value}; "
            "return INVALID_SPEC with violations for input the family rejects "
            "(puzzlekit.verifiers.base.try_resolve gives them).",
        )

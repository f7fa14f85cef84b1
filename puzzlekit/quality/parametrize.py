"""``parametrize_with_checks``: the steps of ``check_family`` as one pytest test each (as
scikit-learn's ``parametrize_with_checks``), so a failure names its step in the test id.

::

    from puzzlekit.quality import parametrize_with_checks

    @parametrize_with_checks([MyFamily(), ("latin", {"size": 5})])
    def test_family(family, check):
        check(family)

Each check runs the steps it depends on first; what those steps build (the schema, the sample
instances, every backend's reports) is cached per family, params and seed for the life of the
process, so the checks together cost what one ``check_family`` call costs. A check raises
:class:`~puzzlekit.quality.contract.ContractError` as ``check_family`` does (a failing earlier
step raises in every check that depends on it) and returns its
:class:`~puzzlekit.quality.contract.CheckSummary` otherwise.

Not for: a single pass/fail answer (call ``check_family``), or verifiers (``check_verifier``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.quality.contract import Checker, CheckSummary
from puzzlekit.quality.cross_process import check_cross_process
from puzzlekit.quality.family_check import check_samples, check_structure, with_reference
from puzzlekit.quality.family_steps import (
    check_agreement,
    check_deterministic,
    check_full_reveal,
    check_malformed,
    check_round_trip,
)
from puzzlekit.quality.generation import check_generation
from puzzlekit.quality.sampling import Sample, as_family, default_params
from puzzlekit.quality.verifying import (
    CHECK_BUDGET,
    CHECK_CAP,
    REFERENCE,
    exact_verifiers,
    verify_all,
)


@dataclass
class _Context:
    """What the checks of one (family, params, seed, n) share."""

    fam: Any
    params: dict[str, Any]
    seed: int
    n: int
    schema: Any = None
    samples: list[Sample] | None = None
    verifiers: dict[str, Any] | None = None
    reports: dict[str, Any] | None = None
    report_notes: list[str] = field(default_factory=list)
    report_counts: dict[str, int] = field(default_factory=dict)


_CONTEXTS: dict[tuple, _Context] = {}


def _checker(ctx: _Context, step: str) -> Checker:
    name = getattr(getattr(ctx.fam, "info", None), "name", ctx.fam)
    return Checker(f"{step} of check_family({name!r}, {json.dumps(ctx.params)}, seed={ctx.seed})")


def _prepared(ctx: _Context, step: str, *, reports: bool) -> list[str]:
    """Fill what ``ctx`` lacks (schema and samples; the reports when asked), raising a
    ContractError that names the earlier step on failure; returns the notes of the reports."""
    if ctx.samples is None:
        ck = _checker(ctx, f"structure-and-samples (before {step})")
        schema = check_structure(ck, ctx.fam, ctx.params)
        ctx.samples = check_samples(ck, ctx.fam, ctx.params, schema, ctx.seed, ctx.n)
        ctx.schema, ctx.verifiers = schema, with_reference(exact_verifiers(None))
    if reports and ctx.reports is None:
        assert ctx.verifiers is not None
        ck = _checker(ctx, f"verifiers (before {step})" if step != "verifiers" else step)
        found = verify_all(ck, ctx.verifiers, ctx.samples, ctx.schema, CHECK_CAP, CHECK_BUDGET)
        ck.gate()
        check_agreement(ck, ctx.verifiers, ctx.samples, found)
        ck.gate()
        ctx.reports, ctx.report_notes = found, ck.summary.notes
        ctx.report_counts = ck.summary.reports
    return ctx.report_notes if reports else []


def _step(ck: Checker, ctx: _Context, step: str) -> None:
    fam, v, cap, budget = ctx.fam, ctx.verifiers or {}, CHECK_CAP, CHECK_BUDGET
    if step == "full-reveal":
        fulls = [s for s in ctx.samples or [] if s.label.endswith(".full")]
        check_full_reveal(ck, v[REFERENCE], fulls, cap, budget)
    elif step == "round-trip":
        if not check_round_trip(ck, fam, ctx.samples or []):
            ck.note(f"family {fam.info.name} has no text format: parse/format round-trip skipped")
    elif step == "deterministic":
        args = (ctx.params, ctx.seed, ctx.n, ctx.samples, v, ctx.reports, cap, budget)
        check_deterministic(ck, fam, *args)
    elif step == "cross-process":
        assert ctx.reports is not None
        check_cross_process(ck, fam, ctx.params, ctx.seed, ctx.samples, ctx.reports[REFERENCE], cap)
    elif step == "malformed":
        check_malformed(ck, fam, ctx.params, ctx.seed, v, cap, budget)
    elif step == "generation":
        check_generation(ck, fam, ctx.schema, ctx.seed)


#: the checks in ``check_family``'s order, each with whether it needs every backend's reports
CHECKS: tuple[tuple[str, bool], ...] = (
    ("structure-and-samples", False),
    ("full-reveal", False),
    ("round-trip", False),
    ("verifiers", True),
    ("deterministic", True),
    ("cross-process", True),
    ("malformed", False),
    ("generation", False),
)


def run_check(
    step: str,
    family: protocols.Family | str,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    n: int = 2,
) -> CheckSummary:
    """Run the check named ``step`` (one of :data:`CHECKS`) on ``family``; raise ContractError
    listing what to fix, or return the summary."""
    fam: Any = as_family(family)
    params = dict(params if params is not None else default_params(fam))
    key = (id(fam), json.dumps(params, sort_keys=True), seed, n)
    ctx = _CONTEXTS.setdefault(key, _Context(fam, params, seed, n))
    notes = _prepared(ctx, step, reports=dict(CHECKS)[step])
    ck = _checker(ctx, step)
    ck.summary.instances = len(ctx.samples or [])
    if step == "verifiers":
        ck.summary.notes[:0], ck.summary.reports = notes, dict(ctx.report_counts)
    _step(ck, ctx, step)
    ck.gate()
    return ck.summary


def family_checks(
    families: Sequence[protocols.Family | str | tuple[protocols.Family | str, Mapping[str, Any]]],
    *,
    seed: int = 0,
    n: int = 2,
    cross_process: bool = True,
) -> list[tuple[Any, Callable[[Any], CheckSummary], str]]:
    """(family, check, pytest id) for every check of every family; ``check(family)`` runs it.
    ``cross_process=False`` leaves out the fresh-process check (as ``check_family``'s)."""
    out = []
    for item in families:
        family, params = item if isinstance(item, tuple) else (item, None)
        fam: Any = as_family(family)
        tag = "" if params is None else "-" + "-".join(str(v) for v in dict(params).values())
        for step, _ in CHECKS:
            if step == "cross-process" and not cross_process:
                continue
            check = partial(_bound, step, params=params, seed=seed, n=n)
            out.append((fam, check, f"{fam.info.name}{tag}-{step}"))
    return out


def _bound(step: str, family: Any, *, params: Any, seed: int, n: int) -> CheckSummary:
    return run_check(step, family, params, seed, n)


def parametrize_with_checks(
    families: Sequence[protocols.Family | str | tuple[protocols.Family | str, Mapping[str, Any]]],
    *,
    seed: int = 0,
    n: int = 2,
    cross_process: bool = True,
) -> Any:
    """A ``pytest.mark.parametrize("family, check", ...)`` with one test id per check of every
    family (``latin-x-round-trip``); a ``(family, params)`` pair checks those params, a bare
    family its first listed ones; ``seed``, ``n`` and ``cross_process`` as ``check_family``'s."""
    import pytest

    rows = family_checks(families, seed=seed, n=n, cross_process=cross_process)
    return pytest.mark.parametrize(
        ("family", "check"), [(f, c) for f, c, _ in rows], ids=[i for _, _, i in rows]
    )

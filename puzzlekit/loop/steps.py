"""The audit steps of one loop outcome: its reports turned into eight-valued reasoning steps.

The sequence: the instance is valid (ZERO on INVALID_SPEC); the filter's verdict; the
holdout's verdict; a replay of the filter on the same digest gives the same verdict (FLOWING if
not); filter and holdout agree (BOTH if not); the holdout is another backend than the filter
(SELF if not). A loop that spent its budget ends its sequence with NEITHER: the question is still
open. Pure: no clock, no files.

Not for: locating the first error or escalating (:mod:`puzzlekit.audit.stopping`), or acting on
the outcome (:mod:`puzzlekit.loop.settle`).
"""

from __future__ import annotations

from typing import Any

from puzzlekit.audit.logic import LogicValue, agreement, from_verdict, independence, replay
from puzzlekit.audit.stopping import ReasoningStep
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.loop.driver import LoopResult

HOLDOUT_CLAIM = "an isolated holdout proves the puzzle has exactly one solution"


def _step(
    step_id: str, claim: str, value: LogicValue, reason: str, source: str, /, **payload: Any
) -> ReasoningStep:
    return ReasoningStep(step_id, claim, value, reason, source, payload or None)


def _src(report: VerifierReport | None, fallback: str) -> str:
    if report is None:
        return fallback
    return f"{report.source.get('verifier', fallback)} {report.source.get('version', '?')}"


def _valid_step(result: LoopResult, filter_name: str) -> ReasoningStep:
    fr, hr = result.filter_report, result.holdout_report
    digest = result.instance.digest if result.instance is not None else None
    invalid = [r for r in (fr, hr) if r is not None and r.verdict is Verdict.INVALID_SPEC]
    return _step(
        "instance-valid",
        "the instance is a well-formed puzzle of its schema",
        LogicValue.ZERO if invalid else LogicValue.TRUE,
        "INVALID_SPEC from " + _src(invalid[0], filter_name)
        if invalid
        else "no verifier reported INVALID_SPEC",
        _src(invalid[0] if invalid else fr, filter_name),
        instance_digest=digest,
    )


def _budget_step(result: LoopResult) -> ReasoningStep:
    fr = result.filter_report
    last = fr.verdict.value if fr is not None else None
    return _step(
        "loop-budget",
        "the loop found a puzzle its filter accepts within the budget",
        LogicValue.NEITHER,
        f"budget spent after {result.filter_calls} filter calls; last verdict {last}",
        f"loop {result.strategy} seed {result.seed}",
        filter_calls=result.filter_calls,
        last_verdict=last,
    )


def _holdout_step(hr: VerifierReport | None, holdout_name: str | None) -> ReasoningStep:
    if hr is None:
        return _step("holdout-verdict", HOLDOUT_CLAIM, LogicValue.NEITHER, "no holdout ran", "none")
    return _step(
        "holdout-verdict",
        HOLDOUT_CLAIM,
        from_verdict(hr.verdict),
        f"holdout verdict {hr.verdict.value}",
        _src(hr, holdout_name or "holdout"),
        verdict=hr.verdict.value,
    )


def _replay_step(
    fr: VerifierReport, filter_name: str, replay_verdict: Verdict | str | None
) -> ReasoningStep:
    if replay_verdict is None:
        rv, why = LogicValue.NEITHER, "the filter was not replayed"
    else:
        rv = replay([fr.verdict, replay_verdict])
        why = f"first {fr.verdict.value}, replay {Verdict(replay_verdict).value}"
    return _step(
        "replay",
        "verifying the same digest again gives the same verdict",
        rv,
        why,
        _src(fr, filter_name),
        replay_verdict=None if replay_verdict is None else Verdict(replay_verdict).value,
    )


def _pair_steps(
    fr: VerifierReport, hr: VerifierReport, filter_name: str, holdout_name: str | None
) -> list[ReasoningStep]:
    pair = f"{filter_name} and {holdout_name}"
    return [
        _step(
            "agreement",
            "filter and holdout reach the same verdict",
            agreement(fr.verdict, hr.verdict),
            f"filter {fr.verdict.value}, holdout {hr.verdict.value}",
            pair,
        ),
        _step(
            "independence",
            "the holdout is another backend than the filter",
            independence(filter_name, holdout_name or ""),
            f"filter {filter_name}, holdout {holdout_name}",
            pair,
        ),
    ]


def audit_steps(
    result: LoopResult,
    *,
    filter_name: str,
    holdout_name: str | None,
    replay_verdict: Verdict | str | None = None,
) -> list[ReasoningStep]:
    """The audit sequence of one loop outcome (see the module docstring).

    ``replay_verdict`` is the filter's verdict when it re-verified the accepted instance once;
    without it the replay step is NEITHER (the question whether the verdict is stable is open).
    An accepted loop without a holdout gets a NEITHER holdout step, for the same reason.
    """
    steps = [_valid_step(result, filter_name)]
    if not result.accepted:
        return [*steps, _budget_step(result)]
    fr, hr = result.filter_report, result.holdout_report
    assert fr is not None
    steps.append(
        _step(
            "filter-verdict",
            "the filter proves the puzzle has exactly one solution",
            from_verdict(fr.verdict),
            f"filter verdict {fr.verdict.value}",
            _src(fr, filter_name),
            verdict=fr.verdict.value,
        )
    )
    steps.append(_holdout_step(hr, holdout_name))
    steps.append(_replay_step(fr, filter_name, replay_verdict))
    if hr is not None:
        steps += _pair_steps(fr, hr, filter_name, holdout_name)
    return steps

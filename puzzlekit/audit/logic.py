"""Eight-valued verdicts: what one audit step concluded, and how verifier outcomes map onto them.

The eight values are ``TRUE FALSE BOTH NEITHER INFINITY ZERO FLOWING SELF``. A
verifier report maps to one of the first six; the helpers below produce the values that no
single report can: filter/holdout disagreement (BOTH), a digest whose verdict changes on replay
(FLOWING) and a check that audits itself because its holdout backend is its filter backend
(SELF).

This module only classifies. Deciding what to do about a value that is not TRUE is the job of
:mod:`puzzlekit.audit.stopping`; acting on that decision is
:mod:`puzzlekit.audit.escalation.targets`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any

from puzzlekit.core.report import Verdict, VerifierReport


class LogicValue(enum.StrEnum):
    """The eight values an audit step may take. Only ``TRUE`` lets a sequence continue."""

    TRUE = "TRUE"
    FALSE = "FALSE"
    BOTH = "BOTH"
    NEITHER = "NEITHER"
    INFINITY = "INFINITY"
    ZERO = "ZERO"
    FLOWING = "FLOWING"
    SELF = "SELF"


MEANING: Mapping[LogicValue, str] = {
    LogicValue.TRUE: "the claim holds",
    LogicValue.FALSE: "the claim is refuted",
    LogicValue.BOTH: "the evidence supports the claim and its negation",
    LogicValue.NEITHER: "no verdict yet: the question is still open",
    LogicValue.INFINITY: "the question is too large to settle with the means at hand",
    LogicValue.ZERO: "the question is void: its input cannot be read",
    LogicValue.FLOWING: "the answer changes when the same question is asked again",
    LogicValue.SELF: "the check audits itself, so it is no independent evidence",
}

VERDICT_VALUE: Mapping[Verdict, LogicValue] = {
    Verdict.UNIQUE: LogicValue.TRUE,
    Verdict.UNSOLVABLE: LogicValue.FALSE,
    Verdict.MULTIPLE: LogicValue.BOTH,
    Verdict.UNDECIDED: LogicValue.NEITHER,
    Verdict.DOMAIN_TOO_LARGE: LogicValue.INFINITY,
    Verdict.INVALID_SPEC: LogicValue.ZERO,
}


def value_of(value: LogicValue | str) -> LogicValue:
    """``value`` as a :class:`LogicValue`; raises ``ValueError`` naming the eight values."""
    try:
        return LogicValue(value)
    except ValueError:
        names = " ".join(v.value for v in LogicValue)
        raise ValueError(
            f"{value!r} is not an eight-valued verdict; expected one of {names}"
        ) from None


def from_verdict(verdict: Verdict | str) -> LogicValue:
    """The value of a verifier verdict: UNIQUE TRUE, UNSOLVABLE FALSE, MULTIPLE BOTH, UNDECIDED
    NEITHER, DOMAIN_TOO_LARGE INFINITY, INVALID_SPEC ZERO."""
    return VERDICT_VALUE[Verdict(verdict)]


def from_report(report: VerifierReport | Mapping[str, Any]) -> LogicValue:
    """The value of a report, given as a :class:`VerifierReport` or its JSON wire form."""
    if isinstance(report, VerifierReport):
        return from_verdict(report.verdict)
    return from_verdict(report["uniquenessVerdict"])


def agreement(filter_verdict: Verdict | str, holdout_verdict: Verdict | str) -> LogicValue:
    """TRUE when filter and holdout reach the same verdict, BOTH when they disagree."""
    return (
        LogicValue.TRUE if Verdict(filter_verdict) == Verdict(holdout_verdict) else LogicValue.BOTH
    )


def replay(verdicts: Iterable[Verdict | str]) -> LogicValue:
    """The verdicts of one digest over repeated runs: TRUE when all equal, FLOWING otherwise.

    With fewer than two verdicts there is nothing to compare and the answer is NEITHER.
    """
    seen = [Verdict(v) for v in verdicts]
    if len(seen) < 2:
        return LogicValue.NEITHER
    return LogicValue.TRUE if len(set(seen)) == 1 else LogicValue.FLOWING


def independence(filter_backend: str, holdout_backend: str) -> LogicValue:
    """SELF when the holdout backend is the filter backend (no independent check), else TRUE."""
    return LogicValue.SELF if filter_backend == holdout_backend else LogicValue.TRUE

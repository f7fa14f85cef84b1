"""One filter call of a loop: the guarded call (evaluator isolation) and its trace entry; and
one loop's outcome, the trace whole (:class:`LoopResult`).

:func:`guarded_verify` copies the instance's content before every filter call and recomputes its
digest from the content after it; a verifier that changed its input, its cached bytes or a
registry yields a ``contaminated`` attempt, not a verdict. :class:`Attempt` is one entry of a
loop's trace. :mod:`puzzlekit.loop.driver` builds the :class:`LoopResult`, and the judging
process reads it back from the loop process (:mod:`puzzlekit.loop.isolation`) without the driver.

Not for: the loop itself (:mod:`puzzlekit.loop.driver`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from puzzlekit.core.model import Coord, Instance, sha256_digest
from puzzlekit.core.protocols import SearchBudget, report_extras
from puzzlekit.core.report import Verdict, VerifierReport, top_coord
from puzzlekit.families.grid import GridLine
from puzzlekit.loop.holdout import registry_kept, registry_state

CONTAMINATED = "contaminated"


@dataclass(frozen=True)
class Attempt:
    """One filter call in the trace."""

    index: int
    instance_digest: str
    clue_count: int
    verdict: str  # a Verdict value, or "contaminated"
    action: str  # the strategy action that produced this instance
    action_coord: Coord | None  # the coordinate that action touched
    reject_case: str | None
    top_coord: Coord | None  # the report's most discriminative / first culprit / conflict coord
    solution_count: int
    seconds: float
    #: the filter's report (``None`` when contaminated): the rows take gap, conflict, ... from it
    report: VerifierReport | None = field(default=None, compare=False, repr=False)
    #: its wire form, taken when the filter returned it and before the strategy read it: what a
    #: loop process sends (so an edit made behind the report's read-only surface, with
    #: ``dict.__setitem__`` say, never reaches the rows)
    report_json: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "instanceDigest": self.instance_digest,
            "clueCount": self.clue_count,
            "uniquenessVerdict": self.verdict,
            "action": self.action,
            "actionCoord": list(self.action_coord) if self.action_coord is not None else None,
            "rejectCase": self.reject_case,
            "topCoord": list(self.top_coord) if self.top_coord is not None else None,
            "solutionCount": self.solution_count,
        }


def guarded_verify(
    verifier: Any,
    instance: Instance,
    solution_cap: int,
    extras: Collection[str] = (),
    budget: SearchBudget | None = None,
) -> tuple[VerifierReport | None, float]:
    """Verify (asking for ``extras``, see :func:`~puzzlekit.core.protocols.report_extras`, within
    ``budget``) and check the evaluation left everything as it was; ``None`` means a
    contaminated evaluation. The content is copied out before the call and compared after it;
    the instance's cached bytes and digest (and each clue's) must still match its content and
    the report must name that digest; and the shared registries (tools, families, verifiers,
    strategies) must be as they were.

    The caches are computed before the call and noted by identity: when the call left the
    content as it was (clue data and params are tuples all the way down, so comparing copies
    compares values) and every cache the very object it was, nothing is serialized again;
    otherwise the digest is recomputed from the content (never read from a cache) and every
    cache compared with it. What leaves the loop process is serialized afresh
    from the content there (:func:`puzzlekit.loop.isolation.result_to_json`), and the holdout
    judges fresh bytes."""
    line = _read_as_line(verifier, instance)
    if line is not None:
        return _guarded_line(verifier, instance, line, solution_cap, extras, budget)
    content = instance.content()
    for clue in instance.clues:  # cached on the clue: the loop's next steps share most clues
        clue.canonical_json()
    digest = instance.digest
    caches = _caches(instance)
    registries = registry_state()
    t0 = time.perf_counter()
    asked = report_extras(extras)
    report = verifier.verify(instance, solution_cap=solution_cap, budget=budget, extras=asked)
    seconds = time.perf_counter() - t0
    if instance.content() != content or not registry_kept(registries, registry_state()):
        return None, seconds
    if _same_objects(caches, _caches(instance)):
        return (report, seconds) if report.instance_digest == digest else (None, seconds)
    fresh = instance.fresh_canonical_json()
    if not instance.cache_intact(fresh) or report.instance_digest != sha256_digest(fresh):
        return None, seconds
    return report, seconds


def _read_as_line(verifier: Any, instance: Instance) -> GridLine | None:
    """The grid line of ``instance`` when the built-in ``bitmask`` verifier reads it from its
    values (no clue object built yet). Its bytes come from a table the grid lines of a schema
    share, which only code running in this process could rewrite: a third-party verifier gets
    the clue objects, checked one by one."""
    line = instance.clue_source
    if type(line) is not GridLine or "clues" in instance.__dict__:
        return None
    backend = sys.modules.get("puzzlekit.verifiers.bitmask.backend")
    if backend is None or type(verifier) is not backend.BitmaskVerifier:
        return None
    return line


def _line_held(instance: Instance, line: GridLine) -> tuple[Any, ...]:
    """What a grid line instance holds, by identity: its content (the line's values) and its
    caches (bytes, digest, the line's list of givens)."""
    held = instance.__dict__
    return (
        instance.family, instance.params, held.get("_source"), held.get("clues"),
        held.get("_canonical"), held.get("_digest"),
        line.family, line.params, line.size, line.values, line.__dict__.get("_givens"),
    )  # fmt: skip


def _guarded_line(
    verifier: Any,
    instance: Instance,
    line: GridLine,
    solution_cap: int,
    extras: Collection[str],
    budget: SearchBudget | None,
) -> tuple[VerifierReport | None, float]:
    """:func:`guarded_verify` of a grid line instance the built-in verifier reads from its
    values (:func:`_read_as_line`): the same checks on what it holds (its values, its cached
    bytes and digest), by identity; anything changed or built during the call is judged from
    the content afresh."""
    digest = instance.digest
    before = _line_held(instance, line)
    registries = registry_state()
    t0 = time.perf_counter()
    asked = report_extras(extras)
    report = verifier.verify(instance, solution_cap=solution_cap, budget=budget, extras=asked)
    seconds = time.perf_counter() - t0
    if not registry_kept(registries, registry_state()):
        return None, seconds
    if _same_objects(before, _line_held(instance, line)):
        return (report, seconds) if report.instance_digest == digest else (None, seconds)
    fresh = instance.fresh_canonical_json()
    if (
        not instance.cache_intact(fresh)
        or sha256_digest(fresh) != digest
        or report.instance_digest != digest
    ):
        return None, seconds
    return report, seconds


def _caches(instance: Instance) -> tuple[Any, ...]:
    """The instance's cached bytes, digest and compact source, then each clue's cached bytes."""
    held = instance.__dict__
    clues = tuple(c.__dict__.get("_canonical") for c in instance.clues)
    return (held.get("_canonical"), held.get("_digest"), held.get("_source"), *clues)


def _same_objects(before: tuple[Any, ...], after: tuple[Any, ...]) -> bool:
    return len(before) == len(after) and all(a is b for a, b in zip(before, after, strict=True))


def attempt(index: int, step: Any, report: VerifierReport | None, seconds: float) -> Attempt:
    """The trace entry of one filter call on ``step.instance`` (``report`` None: contaminated)."""
    instance = step.instance
    if report is None:
        return Attempt(
            index,
            instance.digest,
            len(instance.clues),
            CONTAMINATED,
            step.action,
            step.coord,
            None,
            None,
            0,
            seconds,
        )
    rd = report.reject_detail
    return Attempt(
        index,
        report.instance_digest,
        len(instance.clues),
        report.verdict.value,
        step.action,
        step.coord,
        rd.case.value if rd else None,
        top_coord(report),
        report.solution_count,
        seconds,
        report,
        report.to_json_obj(),
    )


@dataclass(frozen=True)
class LoopResult:
    """One loop's outcome: the instance and reports, the trace of filter calls, the counts.

    Never given to the strategy. The rows of :mod:`puzzlekit.loop.rows` are built from it."""

    #: "accepted", "exhausted", "dropped" (the minimize hook declined it) or
    # "contaminated-holdout" (the holdout changed its input or a registry: no verdict) or
    # "strategy-failed" (the strategy crashed, hung, wrote garbage or made an impossible edit)
    status: str
    instance: Instance | None
    solution: dict[str, int] | None
    filter_report: VerifierReport | None
    holdout_report: VerifierReport | None
    trace: tuple[Attempt, ...]
    filter_calls: int
    minimize_calls: int = 0
    seconds: float = 0.0
    strategy: str = ""
    seed: int = 0
    start_clues: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
    holdout_seconds: float | None = None  # wall time of the holdout's check
    #: what a shaping minimize hook reported (``puzzlekit.generators.graded``: level, grader calls,
    # ...)
    shaping: Mapping[str, Any] | None = None
    #: the filter's verdict when it replayed the accepted instance in the loop's own process
    # (``"contaminated"`` when the replay changed its input; None: not replayed there)
    replay_verdict: str | None = None
    #: the backends the loop called, from the driver's own record (never from a report's
    # ``source``): the registry names of the filter and the holdout
    filter_name: str | None = None
    holdout_name: str | None = None
    #: what the strategy did when the loop is ``strategy-failed``: crashed, hung, garbage or
    # impossible-edit (the notes hold its one-line account)
    strategy_failure: str | None = None
    #: a strategy that learns across loops: its state after this loop (``Strategy.state``)
    strategy_state: Mapping[str, Any] | None = None
    #: the instance's canonical bytes as the judging process received them from a loop process,
    #: checked there against a fresh serialization of the content read from them (None: the
    #: loop ran in this process)
    received: bytes | None = field(default=None, compare=False, repr=False)

    @property
    def accepted(self) -> bool:
        return self.status == "accepted"

    @property
    def holdout_rejected(self) -> bool:
        return self.holdout_report is not None and self.holdout_report.verdict is not Verdict.UNIQUE

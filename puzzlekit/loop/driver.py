"""The closed loop: a strategy proposes, the filter verifies, the strategy repairs, until the
filter accepts or the budget is spent; then the holdout verifies the accepted instance.

The split is the point. The **filter** is the verifier whose reports the strategy reads. The
**holdout** receives only the accepted instance's canonical JSON and digest, in its own worker
process, and its report goes into the :class:`LoopResult`, never to the strategy: the strategy
object is not given the holdout, its report, or the result. So the holdout reject rate (filter
accepted, holdout rejected) is an honest measure of the filter.

Evaluator isolation: the instance's digest is recomputed from its canonical JSON after every
filter call; a verifier that changed its input yields a ``contaminated`` attempt, not a verdict.

This module works on protocols only (a strategy, a verifier, a holdout); it does not choose
backends (that is ``puzzlekit.verifiers.registry``) and does not write files.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from puzzlekit.core.model import Coord, Instance, Schema, sha256_digest
from puzzlekit.core.protocols import Holdout as Holdout
from puzzlekit.core.report import Verdict, VerifierReport

CONTAMINATED = "contaminated"


@dataclass(frozen=True)
class LoopBudget:
    """Filter calls allowed per loop (minimization calls are counted apart), and the cap."""

    max_calls: int = 200
    solution_cap: int = 2


@dataclass(frozen=True)
class Attempt:
    """One filter call in the trace."""

    index: int
    instance_digest: str
    clue_count: int
    verdict: str  # a Verdict value, or "contaminated"
    action: str  # the strategy action that produced this instance
    coord: Coord | None  # the coordinate that action touched
    reject_case: str | None
    top_coord: Coord | None  # the report's most discriminative / first culprit / conflict coord
    solution_count: int
    seconds: float

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "instanceDigest": self.instance_digest,
            "clueCount": self.clue_count,
            "verdict": self.verdict,
            "action": self.action,
            "coord": list(self.coord) if self.coord is not None else None,
            "rejectCase": self.reject_case,
            "topCoord": list(self.top_coord) if self.top_coord is not None else None,
            "solutionCount": self.solution_count,
        }


@dataclass(frozen=True)
class LoopResult:
    status: str  # "accepted", "exhausted" or "dropped" (the minimize hook declined it)
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
    holdout_seconds: float | None = None  # wall time of the holdout's check, pipe included
    #: what a shaping minimize hook reported (``puzzlekit.generators.graded``: level, grader calls,
    # ...)
    shaping: Mapping[str, Any] | None = None

    @property
    def accepted(self) -> bool:
        return self.status == "accepted"

    @property
    def holdout_rejected(self) -> bool:
        return self.holdout_report is not None and self.holdout_report.verdict is not Verdict.UNIQUE


def top_coord(report: VerifierReport) -> Coord | None:
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


def guarded_verify(
    verifier: Any, instance: Instance, solution_cap: int
) -> tuple[VerifierReport | None, float]:
    """Verify and check the input is unchanged; ``None`` means a contaminated evaluation."""
    digest = instance.digest
    before = _state(instance)
    t0 = time.perf_counter()
    report = verifier.verify(instance, solution_cap=solution_cap)
    seconds = time.perf_counter() - t0
    if _state(instance) != before or report.instance_digest != digest:
        return None, seconds
    return report, seconds


def _state(instance: Instance) -> str:
    """The instance's content, serialized afresh: no cached bytes, so a mutation shows."""
    return json.dumps(instance.to_json_obj(), sort_keys=True, default=repr)


def run_loop(
    schema: Schema,
    strategy: Any,
    filter: Any,
    holdout: Holdout | None,
    budget: LoopBudget,
    seed: int,
    *,
    minimize: Callable[..., Any] | None = None,
) -> LoopResult:
    """Run one loop; see the module docstring. One seed gives one result (timings aside)."""
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    believed = getattr(filter, "believed_schema", None)
    gen_schema = believed(schema) if believed is not None else schema
    step = strategy.start(gen_schema, rng)
    start_clues = len(step.instance.clues)
    trace: list[Attempt] = []
    report: VerifierReport | None = None
    for i in range(budget.max_calls):
        instance = step.instance
        report, seconds = guarded_verify(filter, instance, budget.solution_cap)
        rd = report.reject_detail if report is not None else None
        trace.append(
            Attempt(
                i,
                instance.digest if report is None else report.instance_digest,
                len(instance.clues),
                CONTAMINATED if report is None else report.verdict.value,
                step.action,
                step.coord,
                rd.case.value if rd else None,
                top_coord(report) if report is not None else None,
                report.solution_count if report is not None else 0,
                seconds,
            )
        )
        if report is None:
            # a contaminated evaluation carries no verdict: start over from a fresh puzzle
            step = strategy.start(gen_schema, rng)
            continue
        if report.verdict is Verdict.UNIQUE:
            instance, report, minimize_calls, shaped = _minimized(
                instance, report, filter, rng, minimize, budget.solution_cap
            )
            shaping = getattr(shaped, "shaping", None)
            if getattr(shaped, "dropped", False):
                return LoopResult(
                    "dropped",
                    instance,
                    dict(report.solutions[0]) if report.solutions else None,
                    report,
                    None,
                    tuple(trace),
                    len(trace),
                    minimize_calls,
                    time.perf_counter() - t0,
                    strategy.name,
                    seed,
                    start_clues,
                    shaping=shaping,
                )
            hold = hold_seconds = None
            if holdout is not None:
                h0 = time.perf_counter()
                hold = holdout.check(
                    instance.canonical_json(), instance.digest, budget.solution_cap
                )
                hold_seconds = time.perf_counter() - h0
            return LoopResult(
                "accepted",
                instance,
                dict(report.solutions[0]) if report.solutions else None,
                report,
                hold,
                tuple(trace),
                len(trace),
                minimize_calls,
                time.perf_counter() - t0,
                strategy.name,
                seed,
                start_clues,
                holdout_seconds=hold_seconds,
                shaping=shaping,
            )
        step = strategy.propose(step, report, rng)
    return LoopResult(
        "exhausted",
        step.instance,
        None,
        report,
        None,
        tuple(trace),
        len(trace),
        seconds=time.perf_counter() - t0,
        strategy=strategy.name,
        seed=seed,
        start_clues=start_clues,
    )


def _minimized(
    instance: Instance,
    report: VerifierReport,
    filter: Any,
    rng: np.random.Generator,
    minimize: Callable[..., Any] | None,
    cap: int,
) -> tuple[Instance, VerifierReport, int, Any]:
    """The accepted instance after minimization (when asked), its filter report, the calls and
    the hook's own result. A changed instance is verified again by the filter."""
    if minimize is None:
        return instance, report, 0, None
    result = minimize(instance, filter, rng, solution=report.solutions[0])
    if result.instance.digest != instance.digest and not getattr(result, "dropped", False):
        report = filter.verify(result.instance, solution_cap=cap)
    return result.instance, report, result.calls, result


# --- holdout evaluators -------------------------------------------------------------------


def _check_material(verifier: Any, canonical: bytes, digest: str, cap: int) -> dict[str, Any]:
    if sha256_digest(canonical) != digest:
        raise ValueError(f"holdout material does not match its digest {digest}")
    instance = Instance.from_json(canonical)
    before = _state(instance)
    report = verifier.verify(instance, solution_cap=cap)
    if _state(instance) != before or report.instance_digest != digest:
        raise ValueError(f"holdout verifier changed its input {digest}")
    return report.to_json_obj()


class InlineHoldout:
    """A holdout in this process (tests, debugging); it still sees only bytes and a digest."""

    def __init__(self, verifier: Any) -> None:
        self._verifier = verifier
        self.name = getattr(verifier, "name", "holdout")

    def check(self, canonical: bytes, digest: str, solution_cap: int) -> VerifierReport:
        return VerifierReport.from_json_obj(
            _check_material(self._verifier, bytes(canonical), digest, solution_cap)
        )

    def close(self) -> None:
        return None


def _worker_main(conn: Any, factory: Callable[[], Any], plugins: Sequence[str] = ()) -> None:
    from puzzlekit.core.plugins import PluginError, use_plugins

    failed = None
    try:
        use_plugins(plugins)  # before the factory: it may name a plugin's verifier
    except PluginError as exc:
        failed = str(exc)
    verifier = factory() if failed is None else None
    while True:
        msg = conn.recv()
        if msg is None:
            break
        if failed is not None:
            conn.send(("error", failed))
            continue
        canonical, digest, cap = msg
        try:
            conn.send(("ok", _check_material(verifier, canonical, digest, cap)))
        except Exception as exc:  # reported to the parent, which raises it there
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
    conn.close()


class WorkerHoldout:
    """A holdout verifier in its own long-lived process, started once and reused.

    ``factory`` must be picklable (a module-level function or ``functools.partial``); it builds
    the verifier inside the worker, so no verifier object is shared with the loop's process.
    ``plugins``: modules the worker imports first (default: the ones loaded per use in this
    process, :func:`puzzlekit.core.plugins.per_use_modules`), so a plugin's verifier, family or
    tool is seen there too.
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        name: str = "holdout",
        plugins: Sequence[str] | None = None,
    ) -> None:
        from puzzlekit.core.plugins import per_use_modules

        self.name = name
        modules = tuple(per_use_modules() if plugins is None else plugins)
        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_worker_main, args=(child, factory, modules), daemon=True)
        self._proc.start()
        child.close()

    def check(self, canonical: bytes, digest: str, solution_cap: int) -> VerifierReport:
        self._conn.send((bytes(canonical), digest, solution_cap))
        status, payload = self._conn.recv()
        if status != "ok":
            raise RuntimeError(f"holdout worker failed: {payload}")
        return VerifierReport.from_json_obj(payload)

    @property
    def pid(self) -> int | None:
        return self._proc.pid

    def close(self) -> None:
        if self._proc.is_alive():
            try:
                self._conn.send(None)
            except (BrokenPipeError, OSError):
                pass
            self._proc.join(timeout=5)
            if self._proc.is_alive():
                self._proc.kill()

    def __enter__(self) -> WorkerHoldout:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

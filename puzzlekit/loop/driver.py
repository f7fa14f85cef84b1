"""The closed loop and its one driver: a strategy proposes, the filter verifies, the strategy
repairs, until the filter accepts or the budget is spent; then the holdout verifies the accepted
instance.

The split is the point. The **filter** is the verifier whose reports the strategy reads. The
**holdout** receives only the accepted instance's canonical JSON and digest, and its report goes
into the :class:`LoopResult`, never to the strategy. :class:`LoopDriver` runs the strategy and
the filter in a loop process of their own (:mod:`puzzlekit.loop.isolation`) and the holdout in
the process that started it, so nothing the strategy runs can reach the holdout or its reports.
So the holdout reject rate (filter accepted, holdout rejected) is an honest measure of the filter.

Evaluator isolation (:func:`guarded_verify`): the instance's content is copied before every
filter call and its digest recomputed from the content after it; a verifier that changed its
input, its cached bytes or a registry yields a ``contaminated`` attempt, not a verdict.

Two levels: :func:`run_loop` runs one loop on objects (a schema, a strategy, a verifier, a
holdout); :class:`LoopDriver` is the one driver every producer uses (``puzzlekit generate``,
``puzzlekit run``, the studies): a :class:`LoopSpec` (names and settings only, picklable) in,
set up once (schema, filter, the strategy from :data:`puzzlekit.generators.STRATEGIES`, the
minimize hook, the holdout from :func:`puzzlekit.loop.holdout.shared_holdout`), then one
:class:`LoopResult` per seed. Loop ``i`` of a batch with seed ``s`` has the seed
:func:`loop_seed` ``(s, i)`` wherever it runs, so one spec and seed give one sequence of results.

Not for: writing rows or files (:mod:`puzzlekit.loop.rows`, the app) or settling outcomes
(:mod:`puzzlekit.loop.settle`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Schema
from puzzlekit.core.protocols import StrategyFailed, report_extras, strategy_hook
from puzzlekit.core.report import Verdict, VerifierReport, top_coord
from puzzlekit.loop.accepting import Accepted
from puzzlekit.loop.accepting import accept as _accept
from puzzlekit.loop.attempts import CONTAMINATED, Attempt, LoopResult, guarded_verify
from puzzlekit.loop.attempts import attempt as _attempt
from puzzlekit.loop.budget import FILTER_NODES, LoopBudget, default_clues, note_progress
from puzzlekit.loop.holdout import (
    CONTAMINATED_HOLDOUT,
    InlineHoldout,
    WorkerHoldout,
    shared_holdout,
)
from puzzlekit.loop.holdout import judge as _judge

__all__ = [
    "CONTAMINATED",
    "CONTAMINATED_HOLDOUT",
    "STRATEGY_FAILED",
    "FILTER_NODES",
    "Attempt",
    "InlineHoldout",
    "LoopBudget",
    "LoopDriver",
    "LoopResult",
    "LoopSpec",
    "WorkerHoldout",
    "default_clues",
    "drive",
    "guarded_verify",
    "loop_seed",
    "run_loop",
    "top_coord",
]

#: the status of a loop whose strategy could not give its next step (:class:`StrategyFailed`)
STRATEGY_FAILED = "strategy-failed"


def run_loop(
    schema: Schema,
    strategy: Any,
    filter: Any,
    holdout: protocols.Holdout | None,
    budget: LoopBudget,
    seed: int,
    *,
    minimize: Callable[..., Any] | None = None,
    extras: Collection[str] = (),
    trace_reports: bool = True,
) -> LoopResult:
    """Run one loop; see the module docstring. One seed gives one result (timings aside).

    ``trace_reports=False``: nothing will read the filter reports of the trace, so steps that
    can run on arrays do (:mod:`puzzlekit.loop.givens_steps`: the same result, trace entries
    without a report).

    The filter is asked for the report extras the strategy declares (``strategy.extras``) and
    ``extras`` (what the run's rows want), nothing more. A strategy that raises
    :class:`StrategyFailed` ends the loop as ``strategy-failed`` (one line on stderr), with the
    calls it spent. A strategy with ``end_loop`` hears the loop's status, its last filter report
    and its call count (never the holdout's report); one with ``state`` has its state recorded."""
    t0 = time.perf_counter()
    trace: list[Attempt] = []
    args = (schema, strategy, filter, holdout, budget, seed, minimize, extras, t0, trace_reports)
    try:
        result = _loop(trace, *args)
    except StrategyFailed as exc:
        import sys

        print(
            f"puzzlekit: strategy {strategy.name}: {exc}; the loop is recorded as "
            f"{STRATEGY_FAILED} and the run goes on",
            file=sys.stderr,
        )
        last = trace[-1].report if trace else None
        result = LoopResult(
            STRATEGY_FAILED,
            None,
            None,
            last,
            None,
            tuple(trace),
            len(trace),
            seconds=time.perf_counter() - t0,
            strategy=strategy.name,
            seed=seed,
            notes=(str(exc),),
            strategy_failure=exc.kind,
        )
    end_loop = strategy_hook(strategy, "end_loop")
    if end_loop is not None:  # what the filter side saw: the holdout's word stays out of it
        seen = "accepted" if result.status == CONTAMINATED_HOLDOUT else result.status
        end_loop(seen, result.filter_report, result.filter_calls)
    state = strategy_hook(strategy, "state")
    return replace(result, strategy_state=state()) if state is not None else result


def _loop(
    trace: list[Attempt],
    schema: Schema,
    strategy: Any,
    filter: Any,
    holdout: protocols.Holdout | None,
    budget: LoopBudget,
    seed: int,
    minimize: Callable[..., Any] | None,
    extras: Collection[str],
    t0: float,
    trace_reports: bool,
) -> LoopResult:
    rng = np.random.default_rng(seed)
    extras = report_extras([*strategy.extras, *extras])
    gen_schema = filter.believed_schema(schema)
    fast = _fast_steps(schema, strategy, filter, extras, budget, trace_reports)
    if fast is not None:  # the same start, its instance kept as a grid line
        step = fast.start(strategy, gen_schema, rng)
        start_clues = fast.clue_count(step.instance)
    else:
        step = strategy.start(gen_schema, rng)
        start_clues = len(step.instance.clues)
    report: VerifierReport | None = None
    noted = t0
    while len(trace) < budget.max_calls:
        if fast is not None:  # the MULTIPLE steps on arrays, the same as below (givens_steps)
            step, noted, unique = fast.advance(step, rng, trace, budget, seed, t0, noted)
            if unique:  # its UNIQUE is in the trace: the report, where one is read, made then
                cap, nodes = budget.solution_cap, budget.filter_budget
                first = partial(filter.verify, step.instance, solution_cap=cap, budget=nodes,
                                extras=extras)  # fmt: skip
                done = _accept(step.instance, None, filter, holdout, rng, minimize, cap, extras,
                               (step.solution, first))  # fmt: skip
                return _accepted(done, trace, t0, strategy, seed, start_clues)
        i = len(trace)
        report, seconds = guarded_verify(
            filter, step.instance, budget.solution_cap, extras, budget.filter_budget
        )
        trace.append(_attempt(i, step, report, seconds))
        noted = note_progress(noted, t0, seed, trace[-1])
        if report is None:
            # a contaminated evaluation carries no verdict: start over from a fresh puzzle
            step = strategy.start(gen_schema, rng)
            continue
        if report.verdict is Verdict.UNIQUE:
            cap = budget.solution_cap
            done = _accept(step.instance, report, filter, holdout, rng, minimize, cap, extras)
            return _accepted(done, trace, t0, strategy, seed, start_clues)
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


def _fast_steps(
    schema: Schema,
    strategy: Any,
    filter: Any,
    extras: Collection[str],
    budget: LoopBudget,
    trace_reports: bool,
) -> Any:
    """The array steps of :mod:`puzzlekit.loop.givens_steps` when this loop may run them."""
    if trace_reports:
        return None
    from puzzlekit.loop.givens_steps import eligible

    return eligible(schema, strategy, filter, extras, budget)


def _accepted(
    done: Accepted, trace: list[Attempt], t0: float, strategy: Any, seed: int, start_clues: int
) -> LoopResult:
    """The result of a loop whose filter said UNIQUE (``done``: what followed)."""
    return LoopResult(
        done.status,
        done.instance,
        dict(done.report.solutions[0]) if done.report.solutions else None,
        done.report,
        done.holdout_report,
        tuple(trace),
        len(trace),
        done.minimize_calls,
        time.perf_counter() - t0,
        strategy.name,
        seed,
        start_clues,
        holdout_seconds=done.holdout_seconds,
        shaping=done.shaping,
    )


# --- the one driver -------------------------------------------------------------------------


def loop_seed(seed: int, index: int) -> int:
    """The seed of loop ``index`` of a batch: independent streams from one batch seed."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint64)[0])


@dataclass(frozen=True)
class LoopSpec:
    """Everything one loop needs, by name: plain values, so it pickles to any executor.

    ``strategy`` names a factory in :data:`puzzlekit.generators.STRATEGIES`, called as
    ``factory(k, **strategy_settings)`` (``policy``: ``policy=PATH``), started from ``k``
    clues (``None``: :func:`default_clues` of the schema, or every variable with
    ``difficulty``). ``filter`` and ``holdout`` name verifiers of the registry, built with their
    settings; ``holdout=None`` runs no holdout; ``holdout_process=False`` runs the loop in the
    holdout's process (debugging: not isolated). ``minimize`` drops clues of each accepted
    puzzle while it stays UNIQUE (``symmetric``: in rotational pairs); ``difficulty`` shapes it
    to that grade level (:mod:`puzzlekit.loop.hooks`). ``extras``: report extras the filter
    computes beyond those the strategy reads (``("forcedCells",)`` fills the rows' column).
    """

    family: str
    params: Mapping[str, Any] = field(default_factory=dict)
    strategy: str = "adaptive"
    #: keyword settings of the strategy's factory (``policy``: ``policy``, the file's path;
    #: ``external``: ``cmd``, ``cmd_timeout``)
    strategy_settings: Mapping[str, Any] = field(default_factory=dict)
    k: int | None = None
    filter: str = "sat"
    filter_settings: Mapping[str, Any] = field(default_factory=dict)
    holdout: str | None = None
    holdout_settings: Mapping[str, Any] = field(default_factory=dict)
    holdout_process: bool = True
    max_calls: int = 200
    solution_cap: int = 2
    minimize: bool = False
    symmetric: bool = False
    difficulty: int | None = None
    extras: tuple[str, ...] = ()
    #: search nodes per filter call (:data:`FILTER_NODES`; None: the verifier's own budget)
    filter_nodes: int | None = FILTER_NODES
    #: whether the trace keeps each filter call's report (the rows' gap and conflict columns);
    #: off (``puzzlekit generate``, whose records have no trace), the loop may run its steps on
    #: arrays (:mod:`puzzlekit.loop.givens_steps`) and a loop process sends no trace reports
    trace_reports: bool = True

    @property
    def budget(self) -> LoopBudget:
        return LoopBudget(self.max_calls, self.solution_cap, self.filter_nodes)


class LoopDriver:
    """Runs loops of one :class:`LoopSpec`: set up once, then :meth:`run` per seed.

    With a holdout (and ``spec.holdout_process``, the default) the loop is isolated by process
    (:mod:`puzzlekit.loop.isolation`): the strategy and the filter run in this process's loop
    process, and the holdout judges each accepted instance here, from its canonical bytes, so
    nothing the strategy or the filter runs can reach the holdout or its reports.
    ``holdout_process=False`` runs everything in this process (debugging; not isolated).
    Without a holdout there is nothing to hide and the loop runs here. The strategy is a fresh
    one from the registry for every loop, so a loop depends on its spec and seed alone; except
    a strategy that learns across loops (``across_loops = True``: ``pattern``, ``external``),
    kept for every loop of this driver (a new driver starts it afresh, wherever its loops run),
    so its loops depend on the spec and the seeds run before, in order.
    ``wrap_filter`` wraps the filter verifier once (e.g. to count its calls; it must pass
    ``verify`` through unchanged): only for a loop run here. ``holdout``: a holdout object to use
    instead of ``spec.holdout``.
    """

    def __init__(
        self,
        spec: LoopSpec,
        *,
        wrap_filter: Callable[[Any], Any] | None = None,
        holdout: protocols.Holdout | None = None,
    ) -> None:
        from puzzlekit.families import get_family
        from puzzlekit.generators import STRATEGIES
        from puzzlekit.loop.hooks import minimize_hook
        from puzzlekit.verifiers.registry import VERIFIERS, get_verifier

        self.spec = spec
        self.family = get_family(spec.family)
        self.schema: Schema = self.family.schema(dict(spec.params))
        n_vars = len(self.schema.variables)
        if spec.k is not None:
            self.k = spec.k
        elif spec.difficulty is not None:
            self.k = n_vars  # graded generation starts from the full grid
        else:
            self.k = default_clues(n_vars)
        self._kept: Any = None
        self.isolated = spec.holdout_process and (holdout is not None or spec.holdout is not None)
        if self.isolated:
            if wrap_filter is not None:
                raise ValueError("wrap_filter wraps a filter run in this process: pass no holdout")
            from puzzlekit.core.plugins import judging
            from puzzlekit.loop.isolation import named_files, shared_loop_worker

            if not judging():  # a judging process knows no plugin: the loop process checks
                STRATEGIES.get(spec.strategy)
                VERIFIERS.get(spec.filter)  # the name is checked here, the filter built there
            self.filter: Any = FilterRecord(spec.filter)
            # an external strategy's program and script readable in the loop process's sandbox
            self._worker = shared_loop_worker(named_files(dict(spec.strategy_settings)))
            self._worker.setup(spec)  # a fresh strategy there too
            self.minimize = None
            if holdout is None:
                holdout = shared_holdout(spec.holdout, spec.holdout_settings, process=False)
        else:
            self._strategy = STRATEGIES.get(spec.strategy)
            filt = get_verifier(spec.filter, **spec.filter_settings)
            self.filter = wrap_filter(filt) if wrap_filter is not None else filt
            if holdout is None and spec.holdout is not None:
                holdout = shared_holdout(spec.holdout, spec.holdout_settings, process=False)
            self.minimize = minimize_hook(spec)
        self.holdout = holdout

    def run(self, seed: int) -> LoopResult:
        """One loop with ``seed``; one seed gives one result (timings aside)."""
        if self.isolated:
            return self._judged(self._worker.run(self.spec, seed))
        strategy = self._kept or self._strategy(self.k, **self.spec.strategy_settings)
        if getattr(strategy, "across_loops", False):
            self._kept = strategy
        result = run_loop(
            self.schema,
            strategy,
            self.filter,
            self.holdout,
            self.spec.budget,
            seed,
            minimize=self.minimize,
            extras=self.spec.extras,
            trace_reports=self.spec.trace_reports,
        )
        return replace(result, **self._names())

    def _names(self) -> dict[str, str | None]:
        holdout_name = getattr(self.holdout, "name", None) if self.holdout is not None else None
        return {"filter_name": self.spec.filter, "holdout_name": holdout_name}

    def _judged(self, result: LoopResult) -> LoopResult:
        """An isolated loop's outcome with the holdout's report, judged here."""
        return replace(judged(result, self.holdout, self.spec.solution_cap), **self._names())

    def reset(self) -> None:
        """Forget a strategy kept across loops (closing what it runs): the next loop starts a
        fresh one."""
        kept, self._kept = self._kept, None
        close = strategy_hook(kept, "close")
        if close is not None:
            close()

    def batch(
        self, seed: int, indices: Iterable[int], wanted: Callable[[], int] | None = None
    ) -> Iterator[tuple[int, LoopResult]]:
        """``(i, result)`` of loop ``i`` of the batch with ``seed``, for each ``i`` in turn: the
        same results as :meth:`run` gives each. An isolated loop process gets the loops in
        batches (:meth:`~puzzlekit.loop.isolation.LoopWorker.run_many`: at most ``wanted()``
        loops ahead when given) and runs the next batch while this process judges; close the
        iterator when done with it early."""
        if not self.isolated:
            for i in indices:
                yield i, self.run(loop_seed(seed, i))
            return
        taken: deque[int] = deque()

        def seeds() -> Iterator[int]:
            for i in indices:
                taken.append(i)
                yield loop_seed(seed, i)

        stream = self._worker.run_many(self.spec, seeds(), wanted)
        try:
            for result in stream:
                yield taken.popleft(), self._judged(result)
        finally:
            stream.close()


@dataclass(frozen=True)
class FilterRecord:
    """The filter of an isolated loop, as this process knows it: its registry name only (the
    verifier itself runs in the loop process)."""

    name: str


def judged(result: LoopResult, holdout: protocols.Holdout | None, cap: int) -> LoopResult:
    """``result`` with the holdout's report on its accepted instance (from fresh bytes)."""
    if holdout is None or not result.accepted or result.instance is None:
        return result
    report, seconds = _judge(holdout, result.instance, cap, result.received)
    if report is None:
        return replace(result, status=CONTAMINATED_HOLDOUT, holdout_seconds=seconds)
    return replace(result, holdout_report=report, holdout_seconds=seconds)


def drive(spec: LoopSpec, seed: int, count: int) -> Iterator[LoopResult]:
    """The results of loops ``0..count-1`` of the batch ``(spec, seed)``."""
    driver = LoopDriver(spec)
    for _, result in driver.batch(seed, range(count)):
        yield result

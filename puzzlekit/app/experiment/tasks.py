"""An experiment split into tasks, and one task run into rows.

:func:`plan` splits a config into :class:`Task` s: one per schema × strategy × k × filter × batch
of trials. Trial ``t`` has the seed ``loop_seed(config.seed, t)`` in every arm (common random
numbers: blind and adaptive start trial ``t`` from the same solution), so a task's rows depend
only on the task, never on which process or machine ran it or in which order.

:func:`run_task` runs one task through the one loop driver
(:class:`puzzlekit.loop.driver.LoopDriver`, whose holdout is started once per process) and builds
its rows with :mod:`puzzlekit.loop.rows`. After each loop, without spending filter calls, it
settles the outcome (:func:`puzzlekit.loop.settle.settle`, no ledger: executor workers do not
write shared state), probes the accepted puzzle's expressive range (:func:`probe`) and grades it
(:func:`grade_columns`).

Grading: with ``grade = true`` (the default), every accepted puzzle of a family in
:data:`puzzlekit.grading.techniques.GRADED_FAMILIES` is graded (techniques only, no search
measures): ``level`` is the tier of its hardest technique (0 = easiest), ``technique`` that
technique's name (``search`` when the techniques got stuck). Other rows hold nulls there.

Not for: executors and files (:mod:`puzzlekit.app.experiment.runner`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from puzzlekit.app.experiment.config import ExperimentConfig, HoldoutSpec, SchemaSpec, VerifierSpec
from puzzlekit.core.clock import FROZEN_AT
from puzzlekit.loop.driver import LoopDriver, LoopResult, LoopSpec

#: one fixed time, so that a settlement depends on the task alone
SETTLED_AT = FROZEN_AT


@dataclass(frozen=True)
class Task:
    """A batch of trials of one arm (schema × strategy × k × filter); plain and picklable."""

    id: str
    schema: SchemaSpec
    strategy: str
    k: int
    filter: VerifierSpec
    holdout: HoldoutSpec | None
    trials: tuple[int, ...]
    seeds: tuple[int, ...]
    max_calls: int
    solution_cap: int
    minimize: bool
    symmetric: bool
    grade: bool = True
    #: plugin modules the process running the task imports first (``use_plugins``)
    plugins: tuple[str, ...] = ()
    #: report extras every filter call computes (the config's ``extras``)
    extras: tuple[str, ...] = ()
    #: keyword settings of the strategy's factory (``external``: ``cmd``, ``cmd_timeout``;
    #: ``policy``: ``policy``, ``policy_digest``)
    strategy_settings: tuple[tuple[str, Any], ...] = ()
    #: the registry name of the strategy when ``strategy`` is an arm's label ("": the same)
    strategy_name: str = ""
    #: whether the (judging) process running the task imports ``plugins`` too; False: only its
    #: loop process does (:func:`puzzlekit.core.plugins.judge_without_plugins`)
    plugins_in_judge: bool = True

    def loop_spec(self) -> LoopSpec:
        """The loop of every trial of this task (the seed aside)."""
        hold = self.holdout
        return LoopSpec(
            self.schema.family,
            dict(self.schema.params),
            strategy=self.strategy_name or self.strategy,
            strategy_settings=dict(self.strategy_settings),
            k=self.k,
            filter=self.filter.verifier,
            filter_settings=dict(self.filter.settings),
            holdout=hold.verifier if hold is not None else None,
            holdout_settings=dict(hold.settings) if hold is not None else {},
            holdout_process=hold.process if hold is not None else True,
            max_calls=self.max_calls,
            solution_cap=self.solution_cap,
            minimize=self.minimize,
            symmetric=self.symmetric,
            extras=self.extras,
        )


def plan(config: ExperimentConfig) -> list[Task]:
    """Every task of the config, in a fixed order."""
    from puzzlekit.core.plugins import judging

    seeds = config.trial_seeds()
    tasks: list[Task] = []
    for schema in config.schemas:
        for strat in config.strategies:
            for k in strat.clues:
                for filt in (f for f in config.filters if strat.runs_under(f.label)):
                    for start in range(0, config.trials, config.batch):
                        trials = tuple(range(start, min(start + config.batch, config.trials)))
                        tid = f"{schema.label}.{strat.arm}.k{k}.{filt.label}.t{start:05d}"
                        tasks.append(
                            Task(
                                tid,
                                schema,
                                strat.arm,
                                k,
                                filt,
                                config.holdout,
                                trials,
                                tuple(seeds[t] for t in trials),
                                config.max_calls,
                                config.solution_cap,
                                config.minimize,
                                config.symmetric,
                                config.grade,
                                config.plugins,
                                config.extras,
                                tuple(sorted(strat.settings.items())),
                                strat.name if strat.arm != strat.name else "",
                                not judging(),
                            )
                        )
    return tasks


@dataclass
class TaskResult:
    """The rows of one task: ``attempts`` (one per verifier call) and ``puzzles`` (one per loop)."""

    task_id: str
    attempts: list[dict[str, Any]] = field(default_factory=list)
    puzzles: list[dict[str, Any]] = field(default_factory=list)


def run_task(task: Task) -> TaskResult:
    """Run every trial of ``task``; rows depend on the task alone (timings aside)."""
    from puzzlekit.core.plugins import judge_without_plugins, use_plugins

    if task.plugins_in_judge:  # a pool or Dask worker: register what the config's plugins do
        use_plugins(task.plugins)
    else:  # or keep them out, for its loop process to import (docs/security.md)
        judge_without_plugins(task.plugins)
    from puzzlekit.loop.rows import attempt_rows, puzzle_row, row_keys
    from puzzlekit.loop.settle import settle

    driver = LoopDriver(task.loop_spec())
    holdout = task.holdout.verifier if task.holdout is not None else None
    graded = task.grade and _graded_family(task.schema.family)
    out = TaskResult(task.id)
    for trial, seed in zip(task.trials, task.seeds, strict=True):
        result = driver.run(seed)
        keys = row_keys(task.schema.label, task.strategy, task.k, task.filter.label, trial, seed)
        out.attempts += attempt_rows(result, keys)
        settled = settle(
            result,
            filter=driver.filter,
            holdout_name=holdout,
            computed_at=SETTLED_AT,
            solution_cap=task.solution_cap,
        )
        out.puzzles.append(
            puzzle_row(
                result,
                keys,
                family=driver.family,
                holdout=holdout,
                settlement=settled,
                **probe(result, seed),
                **grade_columns(result, graded),
            )
        )
    return out


_PROBE: list[Any] = []


def probe(result: LoopResult, seed: int) -> dict[str, Any]:
    """Expressive range of an accepted puzzle: drop one clue, count the cells still forced.

    An accepted puzzle forces every cell, so its own backbone says nothing. Instead one clue,
    chosen by the trial's seed, is removed and the rest is verified by an exact sat verifier
    (computing the backbone): ``probe_forced_cells`` is the count of cells with one value in
    every solution (clue cells included), or every cell when the clue was redundant (UNIQUE).
    A measuring instrument, not the filter: it runs after the loop and is not counted in
    ``filter_calls``.
    """
    empty = {"probe_verdict": None, "probe_forced_cells": None}
    if not result.accepted or result.instance is None or not result.instance.clues:
        return empty
    import numpy as np

    from puzzlekit.core.protocols import FORCED_CELLS
    from puzzlekit.loop.rows import forced_count

    if not _PROBE:
        from puzzlekit.verifiers.registry import get_verifier

        _PROBE.append(get_verifier("sat"))
    inst = result.instance
    drop = int(np.random.default_rng([seed, 0x9B0BE]).integers(len(inst.clues)))
    probed = inst.with_clues(c for i, c in enumerate(inst.clues) if i != drop)
    report = _PROBE[0].verify(probed, solution_cap=2, extras=(FORCED_CELLS,))
    if report.verdict.value == "UNIQUE":
        n = len(report.solutions[0]) if report.solutions else None
    else:
        n = forced_count(report)
    return {"probe_verdict": report.verdict.value, "probe_forced_cells": n}


def _graded_family(family: str) -> bool:
    from puzzlekit.grading.techniques import GRADED_FAMILIES

    return family in GRADED_FAMILIES


def grade_columns(result: LoopResult, graded: bool) -> dict[str, Any]:
    """``level`` and ``technique`` of an accepted puzzle of a graded family; nulls otherwise.

    Techniques only (``search=False``): the grade depends on the instance alone, so rows stay
    identical across processes. An instance the grader refuses (:class:`SpecError`) gets nulls.
    """
    empty = {"level": None, "technique": None}
    if not graded or not result.accepted or result.instance is None:
        return empty
    from puzzlekit.core.model import SpecError
    from puzzlekit.grading.techniques import grade

    try:
        g = grade(result.instance, search=False)
    except SpecError:
        return empty
    return {"level": int(g.level), "technique": g.technique}

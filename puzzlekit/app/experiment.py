"""Experiments: a pre-registered TOML config, split into independent seeded tasks, run anywhere.

A config (``experiments/*.toml``) names schemas, strategies with their clue counts ``k``, filter
verifiers, one holdout verifier, a budget, the number of trials and the seed, and declares in a
``[preregistration]`` table the hypotheses and the metrics the run will report.
:func:`load_config` reads it with :mod:`tomllib` and rejects unknown keys, wrong types and
unusable values with the key's path (``strategies[1].clues[0]``) before anything runs.

:func:`plan` splits the config into :class:`Task` s: one per schema × strategy × k × filter ×
batch of trials. Trial ``t`` has the seed ``loop_seed(config.seed, t)`` in every arm (common random
numbers: blind and adaptive start trial ``t`` from the same solution), so a task's rows depend
only on the task, never on which process or machine ran it or in which order.
:func:`run_task` runs one task and returns plain row dicts; each process keeps one long-lived
holdout evaluator (:func:`holdout_for`), which only ever receives canonical JSON and a digest.

Grading: with the top-level key ``grade = true`` (the default), every accepted puzzle of a family
in :data:`puzzlekit.grading.techniques.GRADED_FAMILIES` is graded after the loop (techniques only,
no
search measures) and its row carries ``level`` (the tier of its hardest technique, 0 = easiest)
and ``technique`` (that technique's name; ``search`` when the techniques got stuck). Rows of
other families, rows that were not accepted and every row of a ``grade = false`` run hold nulls
there. Like the probe, grading is a measurement after the loop: it spends no filter call and
changes no other column.

Not for: writing files or choosing an executor (``puzzlekit.app.commands.run``), or plots
(``puzzlekit.app.plots``).
"""

from __future__ import annotations

import atexit
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from puzzlekit.core.model import canonical_json, sha256_digest

EXECUTORS = ("local", "dask", "serial")
METRICS = {
    "accept_rate": "share of trials the filter accepted within the budget",
    "holdout_reject_rate": "share of filter-accepted puzzles the holdout rejected",
    "calls_per_accept_mean": "mean filter calls of accepted trials",
    "calls_per_accept_median": "median filter calls of accepted trials",
    "final_clues_mean": "mean clue count of accepted puzzles",
    "reject_cases": "share of each reject case among filter rejects",
}


class ConfigError(ValueError):
    """A config that cannot run; ``path`` names the offending key (``budget.max_calls``)."""

    def __init__(self, path: str, message: str, source: str | None = None) -> None:
        self.path = path
        self.message = message
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{path or '<config>'}: {message}")


# --- the parsed config ---------------------------------------------------------------------


@dataclass(frozen=True)
class SchemaSpec:
    family: str
    params: Mapping[str, Any]
    label: str


@dataclass(frozen=True)
class StrategySpec:
    name: str
    clues: tuple[int, ...]


@dataclass(frozen=True)
class VerifierSpec:
    verifier: str
    settings: Mapping[str, Any]
    label: str


@dataclass(frozen=True)
class HoldoutSpec:
    verifier: str
    settings: Mapping[str, Any]
    process: bool = True


@dataclass(frozen=True)
class Preregistration:
    hypotheses: tuple[str, ...]
    metrics: tuple[str, ...]


@dataclass(frozen=True)
class ExperimentConfig:
    name: str
    description: str
    seed: int
    trials: int
    batch: int
    executor: str
    workers: int
    scheduler: str | None
    minimize: bool
    symmetric: bool
    grade: bool
    max_calls: int
    solution_cap: int
    schemas: tuple[SchemaSpec, ...]
    strategies: tuple[StrategySpec, ...]
    filters: tuple[VerifierSpec, ...]
    holdout: HoldoutSpec | None
    preregistration: Preregistration

    def to_json_obj(self) -> dict[str, Any]:
        """The parsed config with every default filled in; its digest identifies the run."""
        return _plain(asdict(self))

    @property
    def digest(self) -> str:
        return sha256_digest(canonical_json(self.to_json_obj()))

    def trial_seeds(self) -> list[int]:
        from puzzlekit.loop.batch import loop_seed

        return [loop_seed(self.seed, t) for t in range(self.trials)]


def _plain(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    return obj


# --- the typed reader ----------------------------------------------------------------------


_TYPE_NAMES = {str: "a string", int: "an integer", bool: "a boolean", dict: "a table"}


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


class _Reader:
    def __init__(self, source: str | None) -> None:
        self.source = source

    def fail(self, path: str, message: str) -> ConfigError:
        return ConfigError(path, message, self.source)

    def table(self, value: Any, path: str, allowed: Sequence[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a table, got {_type_name(value)}")
        for key in value:
            if key not in allowed:
                sub = f"{path}.{key}" if path else key
                raise self.fail(sub, f"unknown key; allowed: {', '.join(allowed)}")
        return value

    def get(self, table: dict, key: str, path: str, kind: type, default: Any = ...) -> Any:
        sub = f"{path}.{key}" if path else key
        if key not in table:
            if default is ...:
                raise self.fail(sub, f"required ({_TYPE_NAMES[kind]})")
            return default
        value = table[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            raise self.fail(sub, f"expected {_TYPE_NAMES[kind]}, got {_type_name(value)}")
        return value

    def positive(self, table: dict, key: str, path: str, default: Any = ...) -> int:
        value = self.get(table, key, path, int, default)
        if value < 1:
            raise self.fail(f"{path}.{key}" if path else key, f"must be at least 1, got {value}")
        return value

    def array(self, table: dict, key: str, path: str, default: Any = ...) -> list[Any]:
        sub = f"{path}.{key}" if path else key
        if key not in table:
            if default is ...:
                raise self.fail(sub, "required (an array)")
            return default
        value = table[key]
        if not isinstance(value, list):
            raise self.fail(sub, f"expected an array, got {_type_name(value)}")
        return value

    def strings(self, table: dict, key: str, path: str) -> tuple[str, ...]:
        items = self.array(table, key, path)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise self.fail(f"{path}.{key}[{i}]", f"expected a string, got {_type_name(item)}")
        return tuple(items)


def _verifier_spec(r: _Reader, raw: Any, path: str, *, holdout: bool) -> Any:
    from puzzlekit.verifiers.registry import get_verifier, verifier_names

    keys = ("verifier", "settings", "process") if holdout else ("verifier", "settings", "label")
    t = r.table(raw, path, keys)
    name = r.get(t, "verifier", path, str)
    names = verifier_names()
    if name not in names:
        raise r.fail(f"{path}.verifier", f"no verifier {name!r}; known: {', '.join(names)}")
    settings = r.get(t, "settings", path, dict, {})
    try:
        verifier = get_verifier(name, **settings)
    except TypeError as exc:
        raise r.fail(f"{path}.settings", f"not accepted by {name!r}: {exc}") from None
    if holdout:
        if not getattr(verifier, "exact", True):
            raise r.fail(f"{path}.verifier", f"{name!r} is not exact; a holdout must be")
        return HoldoutSpec(name, settings, r.get(t, "process", path, bool, True))
    label = r.get(t, "label", path, str, name)
    return VerifierSpec(name, settings, label)


def parse_config(raw: Mapping[str, Any], source: str | None = None) -> ExperimentConfig:
    """Check ``raw`` (a parsed TOML document) and fill in defaults; :class:`ConfigError` else."""
    from puzzlekit.core.model import SpecError
    from puzzlekit.families import get_family
    from puzzlekit.generators import STRATEGIES

    r = _Reader(source)
    top = r.table(
        dict(raw),
        "",
        (
            "name",
            "description",
            "seed",
            "trials",
            "batch",
            "executor",
            "workers",
            "scheduler",
            "minimize",
            "symmetric",
            "grade",
            "budget",
            "schemas",
            "strategies",
            "filters",
            "holdout",
            "preregistration",
        ),
    )
    name = r.get(top, "name", "", str)
    executor = r.get(top, "executor", "", str, "local")
    if executor not in EXECUTORS:
        raise r.fail("executor", f"expected one of {', '.join(EXECUTORS)}, got {executor!r}")
    budget = r.table(top.get("budget", {}), "budget", ("max_calls", "solution_cap"))

    schemas: list[SchemaSpec] = []
    sizes: list[int] = []
    raw_schemas = r.array(top, "schemas", "")
    if not raw_schemas:
        raise r.fail("schemas", "needs at least one schema")
    for i, item in enumerate(raw_schemas):
        path = f"schemas[{i}]"
        t = r.table(item, path, ("family", "params", "label"))
        family = r.get(t, "family", path, str)
        params = r.get(t, "params", path, dict, {})
        try:
            fam = get_family(family)
        except (KeyError, SpecError) as exc:
            raise r.fail(f"{path}.family", str(exc).strip("'\"")) from None
        try:
            schema = fam.schema(params)
        except SpecError as exc:
            raise r.fail(f"{path}.params", str(exc)) from None
        default_label = family + "".join(f"-{v}" for v in params.values() if isinstance(v, int))
        label = r.get(t, "label", path, str, default_label)
        if label in {s.label for s in schemas}:
            raise r.fail(f"{path}.label", f"label {label!r} is used twice; give labels")
        schemas.append(SchemaSpec(family, params, label))
        sizes.append(len(schema.variables))

    strategies: list[StrategySpec] = []
    raw_strats = r.array(top, "strategies", "")
    if not raw_strats:
        raise r.fail("strategies", "needs at least one strategy")
    for i, item in enumerate(raw_strats):
        path = f"strategies[{i}]"
        t = r.table(item, path, ("name", "clues"))
        sname = r.get(t, "name", path, str)
        if sname not in STRATEGIES:  # built-ins and plugins
            raise r.fail(f"{path}.name", f"expected one of {', '.join(STRATEGIES.names())}")
        clues = t.get("clues")
        if isinstance(clues, int) and not isinstance(clues, bool):
            clues = [clues]
        if not isinstance(clues, list) or not clues:
            got = "nothing" if clues is None else _type_name(clues)
            raise r.fail(f"{path}.clues", f"expected an integer or an array of them, got {got}")
        for j, k in enumerate(clues):
            if not isinstance(k, int) or isinstance(k, bool):
                raise r.fail(f"{path}.clues[{j}]", f"expected an integer, got {_type_name(k)}")
            if not 0 <= k <= min(sizes):
                raise r.fail(f"{path}.clues[{j}]", f"must be in 0..{min(sizes)}, got {k}")
        if sname in {s.name for s in strategies}:
            raise r.fail(f"{path}.name", f"strategy {sname!r} is listed twice")
        strategies.append(StrategySpec(sname, tuple(clues)))

    filters: list[VerifierSpec] = []
    raw_filters = r.array(top, "filters", "")
    if not raw_filters:
        raise r.fail("filters", "needs at least one filter")
    for i, item in enumerate(raw_filters):
        spec = _verifier_spec(r, item, f"filters[{i}]", holdout=False)
        if spec.label in {f.label for f in filters}:
            raise r.fail(f"filters[{i}].label", f"label {spec.label!r} is used twice")
        filters.append(spec)

    holdout = None
    if "holdout" in top:
        holdout = _verifier_spec(r, top["holdout"], "holdout", holdout=True)

    if "preregistration" not in top:
        raise r.fail("preregistration", "required: declare hypotheses and metrics up front")
    pre = r.table(top["preregistration"], "preregistration", ("hypotheses", "metrics"))
    hypotheses = r.strings(pre, "hypotheses", "preregistration")
    metrics = r.strings(pre, "metrics", "preregistration")
    if not hypotheses:
        raise r.fail("preregistration.hypotheses", "declare at least one hypothesis")
    if not metrics:
        raise r.fail("preregistration.metrics", "declare at least one metric")
    for i, m in enumerate(metrics):
        if m not in METRICS:
            raise r.fail(
                f"preregistration.metrics[{i}]",
                f"unknown metric {m!r}; known: {', '.join(sorted(METRICS))}",
            )
    scheduler = r.get(top, "scheduler", "", str, None)
    return ExperimentConfig(
        name=name,
        description=r.get(top, "description", "", str, ""),
        seed=r.get(top, "seed", "", int, 0),
        trials=r.positive(top, "trials", ""),
        batch=r.positive(top, "batch", "", 10),
        executor=executor,
        workers=r.positive(top, "workers", "", 2),
        scheduler=scheduler,
        minimize=r.get(top, "minimize", "", bool, False),
        symmetric=r.get(top, "symmetric", "", bool, False),
        grade=r.get(top, "grade", "", bool, True),
        max_calls=r.positive(budget, "max_calls", "budget", 200),
        solution_cap=r.positive(budget, "solution_cap", "budget", 2),
        schemas=tuple(schemas),
        strategies=tuple(strategies),
        filters=tuple(filters),
        holdout=holdout,
        preregistration=Preregistration(hypotheses, metrics),
    )


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and check a TOML config; :class:`ConfigError` names the file and the key's path."""
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError("", f"cannot read: {exc.strerror}", str(p)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("", f"not TOML: {exc}", str(p)) from None
    return parse_config(raw, str(p))


# --- tasks ---------------------------------------------------------------------------------


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


def plan(config: ExperimentConfig) -> list[Task]:
    """Every task of the config, in a fixed order."""
    seeds = config.trial_seeds()
    tasks: list[Task] = []
    for schema in config.schemas:
        for strat in config.strategies:
            for k in strat.clues:
                for filt in config.filters:
                    for start in range(0, config.trials, config.batch):
                        trials = tuple(range(start, min(start + config.batch, config.trials)))
                        tid = f"{schema.label}.{strat.name}.k{k}.{filt.label}.t{start:05d}"
                        tasks.append(
                            Task(
                                tid,
                                schema,
                                strat.name,
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
                            )
                        )
    return tasks


_HOLDOUTS: dict[str, Any] = {}


def _close_holdouts() -> None:
    for h in _HOLDOUTS.values():
        h.close()
    _HOLDOUTS.clear()


def holdout_for(spec: HoldoutSpec) -> Any:
    """This thread's long-lived holdout for ``spec``: started on first use, reused after.

    A :class:`~puzzlekit.loop.driver.WorkerHoldout` in its own process where this process may have
    children; an :class:`~puzzlekit.loop.driver.InlineHoldout` otherwise (a daemonic executor
    worker,
    or ``process = false``). Either one receives only canonical JSON and a digest.
    """
    import functools
    import multiprocessing as mp
    import threading

    from puzzlekit.loop.driver import InlineHoldout, WorkerHoldout
    from puzzlekit.verifiers.registry import get_verifier

    # one per thread too: a holdout's pipe serves one caller at a time (threaded Dask workers)
    ident = [spec.verifier, _plain(spec.settings), spec.process, threading.get_ident()]
    key = json.dumps(ident, sort_keys=True)
    holdout = _HOLDOUTS.get(key)
    if holdout is None:
        factory = functools.partial(get_verifier, spec.verifier, **spec.settings)
        if spec.process and not mp.current_process().daemon:
            holdout = WorkerHoldout(factory, spec.verifier)
        else:
            holdout = InlineHoldout(factory())
        if not _HOLDOUTS:
            atexit.register(_close_holdouts)
        _HOLDOUTS[key] = holdout
    return holdout


def coord_text(coord: Any) -> str | None:
    """A coordinate as compact JSON (``"[2,5]"``), or ``None``."""
    if coord is None:
        return None
    return json.dumps(list(coord), separators=(",", ":"))


def report_coords(report: Any) -> list[list[Any]]:
    """Every coordinate a report's reject detail names, in the detail's order."""
    rd = report.reject_detail if report is not None else None
    if rd is None:
        return []
    coords: list[Any] = [g.coord for g in rd.discriminative_gap]
    if rd.conflict is not None:
        coords += [c.coord for c in rd.conflict.clues if c.coord is not None]
    coords += [f.coord for f in rd.culprits]
    coords += [v.coord for v in rd.violations if v.coord is not None]
    return [list(c) for c in coords]


SETTLED_AT = "2025-01-01T00:00:00Z"  # one fixed time, so a settlement depends on the task alone


def _settle(result: Any, filt: Any, holdout_name: str | None, cap: int) -> dict[str, Any]:
    """Stopping-pipeline kind, escalation target, kernel outcome and action of one loop outcome.

    Settled by :func:`puzzlekit.loop.settle.settle` without a ledger or store: executor workers do
    not write shared state; the run's ledger holds the pre-registration and the run's end.
    """
    empty = {"pipeline_kind": None, "escalation_target": None, "kernel_outcome": None}
    try:
        from puzzlekit.loop.settle import settle
    except ImportError:
        return {**empty, "settle_action": None}
    s = settle(
        result, filter=filt, holdout_name=holdout_name, computed_at=SETTLED_AT, solution_cap=cap
    )
    return {
        "pipeline_kind": s.stop_kind,
        "escalation_target": s.target,
        "kernel_outcome": s.kernel_outcome,
        "settle_action": s.action,
    }


@dataclass
class TaskResult:
    """The rows of one task: ``attempts`` (one per verifier call) and ``puzzles`` (one per loop)."""

    task_id: str
    attempts: list[dict[str, Any]] = field(default_factory=list)
    puzzles: list[dict[str, Any]] = field(default_factory=list)


def run_task(task: Task) -> TaskResult:
    """Run every trial of ``task``; rows depend on the task alone (timings aside)."""
    import functools

    from puzzlekit.families import get_family
    from puzzlekit.generators import STRATEGIES
    from puzzlekit.generators.minimize import minimize
    from puzzlekit.loop.driver import LoopBudget, run_loop
    from puzzlekit.verifiers.registry import get_verifier

    schema = get_family(task.schema.family).schema(dict(task.schema.params))
    filt = get_verifier(task.filter.verifier, **task.filter.settings)
    holdout = holdout_for(task.holdout) if task.holdout is not None else None
    mini = functools.partial(minimize, symmetric=task.symmetric) if task.minimize else None
    budget = LoopBudget(max_calls=task.max_calls, solution_cap=task.solution_cap)
    hname = task.holdout.verifier if task.holdout is not None else None
    out = TaskResult(task.id)
    arm = {
        "schema": task.schema.label,
        "strategy": task.strategy,
        "k": task.k,
        "filter": task.filter.label,
    }
    recorder = _Recorder(filt)
    graded = task.grade and _graded_family(task.schema.family)
    for trial, seed in zip(task.trials, task.seeds, strict=True):
        strategy = STRATEGIES.get(task.strategy)(task.k)
        recorder.forced.clear()
        result = run_loop(schema, strategy, recorder, holdout, budget, seed, minimize=mini)
        base = {**arm, "trial": trial, "seed": str(seed)}
        # the filter's verify calls in order: the first len(trace) are the trace's attempts
        forced = recorder.forced[: len(result.trace)]
        forced += [None] * (len(result.trace) - len(forced))
        for a, n_forced in zip(result.trace, forced, strict=True):
            out.attempts.append(
                {
                    **base,
                    "side": "filter",
                    "attempt": a.index,
                    "instance_digest": a.instance_digest,
                    "clue_count": a.clue_count,
                    "action": a.action,
                    "verdict": a.verdict,
                    "reject_case": a.reject_case,
                    "top_coord": coord_text(a.top_coord),
                    "solution_count": a.solution_count,
                    "forced_cells": n_forced,
                    "seconds": a.seconds,
                }
            )
        hold = result.holdout_report
        if hold is not None:
            rd = hold.reject_detail
            out.attempts.append(
                {
                    **base,
                    "side": "holdout",
                    "attempt": result.filter_calls,
                    "instance_digest": hold.instance_digest,
                    "clue_count": len(result.instance.clues),
                    "action": "holdout",
                    "verdict": hold.verdict.value,
                    "reject_case": rd.case.value if rd else None,
                    "top_coord": coord_text(_top(hold)),
                    "solution_count": hold.solution_count,
                    "forced_cells": _forced_count(hold),
                    "seconds": result.holdout_seconds,
                }
            )
        frep = result.filter_report
        hrd = hold.reject_detail if hold is not None else None
        out.puzzles.append(
            {
                **base,
                "status": result.status,
                "instance_digest": result.instance.digest if result.accepted else None,
                "start_clues": result.start_clues,
                "clue_count": len(result.instance.clues) if result.accepted else None,
                "filter_calls": result.filter_calls,
                "minimize_calls": result.minimize_calls,
                "filter_verdict": frep.verdict.value if frep is not None else None,
                "holdout": hname,
                "holdout_verdict": hold.verdict.value if hold is not None else None,
                "holdout_rejected": result.holdout_rejected,
                "holdout_reject_case": hrd.case.value if hrd else None,
                "holdout_top_coord": coord_text(_top(hold)) if hold is not None else None,
                "holdout_coords": json.dumps(report_coords(hold), separators=(",", ":")),
                **_settle(result, filt, hname, task.solution_cap),
                **_probe(result, seed),
                **_grade(result, graded),
                "holdout_seconds": result.holdout_seconds,
                "seconds": result.seconds,
            }
        )
    return out


class _Recorder:
    """The filter, seen through: notes each report's ``forcedCells`` count (``None`` if absent).

    Everything else (``believed_schema``, ``exact``, ``name``) is the filter's own.
    """

    def __init__(self, verifier: Any) -> None:
        self._verifier = verifier
        self.forced: list[int | None] = []

    def verify(self, instance: Any, **kwargs: Any) -> Any:
        report = self._verifier.verify(instance, **kwargs)
        self.forced.append(_forced_count(report))
        return report

    def __getattr__(self, name: str) -> Any:
        return getattr(self._verifier, name)


def _forced_count(report: Any) -> int | None:
    forced = report.stats.get("forcedCells") if report is not None else None
    return len(forced) if isinstance(forced, list) else None


_PROBE: list[Any] = []


def _probe(result: Any, seed: int) -> dict[str, Any]:
    """Expressive range of an accepted puzzle: drop one clue, count the cells still forced.

    An accepted puzzle forces every cell, so its own backbone says nothing. Instead one clue,
    chosen by the trial's seed, is removed and the rest is verified by an exact sat verifier
    (computing the backbone): ``probe_forced_cells`` is the count of cells with one value in
    every solution (clue cells included), or every cell when the clue was redundant (UNIQUE).
    A measuring instrument, not the filter: it runs after the loop and is not counted in
    ``filter_calls``.
    """
    empty = {"probe_verdict": None, "probe_forced_cells": None}
    if not result.accepted or not result.instance.clues:
        return empty
    import numpy as np

    if not _PROBE:
        from puzzlekit.verifiers.registry import get_verifier

        _PROBE.append(get_verifier("sat"))
    inst = result.instance
    drop = int(np.random.default_rng([seed, 0x9B0BE]).integers(len(inst.clues)))
    probe = inst.with_clues(c for i, c in enumerate(inst.clues) if i != drop)
    report = _PROBE[0].verify(probe, solution_cap=2)
    if report.verdict.value == "UNIQUE":
        n = len(report.solutions[0]) if report.solutions else None
    else:
        n = _forced_count(report)
    return {"probe_verdict": report.verdict.value, "probe_forced_cells": n}


def _graded_family(family: str) -> bool:
    from puzzlekit.grading.techniques import GRADED_FAMILIES

    return family in GRADED_FAMILIES


def _grade(result: Any, graded: bool) -> dict[str, Any]:
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


def _top(report: Any) -> Any:
    from puzzlekit.loop.driver import top_coord

    return top_coord(report)


# --- the run directory ---------------------------------------------------------------------

ATTEMPT_KEYS = ["schema", "strategy", "k", "filter", "trial", "side", "attempt"]
PUZZLE_KEYS = ["schema", "strategy", "k", "filter", "trial"]
_DTYPES = {
    "k": "int64",
    "trial": "int64",
    "attempt": "int64",
    "clue_count": "Int64",
    "start_clues": "int64",
    "filter_calls": "int64",
    "minimize_calls": "int64",
    "solution_count": "int64",
    "forced_cells": "Int64",
    "probe_forced_cells": "Int64",
    "level": "Int64",
    "holdout_rejected": "bool",
    "seconds": "float64",
    "holdout_seconds": "float64",
}


class RunError(Exception):
    """A run directory that cannot be written or resumed as asked."""


def _frame(rows: list[dict[str, Any]], keys: list[str]) -> Any:
    import pandas as pd

    df = pd.DataFrame(rows)
    if df.empty:
        return df
    for col, dtype in _DTYPES.items():
        if col in df:
            df[col] = df[col].astype(dtype)
    return _sorted(df, keys)


def _sorted(df: Any, keys: list[str]) -> Any:
    """Text columns as one string dtype, rows in one order, whatever produced them."""
    if df.empty:
        return df
    for col in df.columns:
        if col not in _DTYPES:
            df[col] = df[col].astype("string")
    # filter rows before the holdout row of the same trial
    order = {"filter": 0, "holdout": 1}
    sort_df = df.assign(_side=df["side"].map(order)) if "side" in df else df
    keys = [("_side" if k == "side" else k) for k in keys]
    sort_df = sort_df.sort_values(keys, kind="stable").reset_index(drop=True)
    return sort_df.drop(columns=["_side"], errors="ignore")


def _write_atomic(df: Any, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    df.to_parquet(tmp, index=False)
    with open(tmp, "rb") as fh:
        import os

        os.fsync(fh.fileno())
    tmp.replace(path)


def _write_json_atomic(obj: Any, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def _part_paths(run: Path, task_id: str) -> tuple[Path, Path]:
    parts = run / "parts"
    return parts / f"{task_id}.attempts.parquet", parts / f"{task_id}.puzzles.parquet"


def task_done(run: Path, task_id: str) -> bool:
    """A task is done when its puzzles part exists (written after its attempts part)."""
    return _part_paths(run, task_id)[1].exists()


def save_task(run: Path, result: TaskResult) -> None:
    """Write one task's rows atomically: attempts first, puzzles (the done marker) last."""
    a_path, p_path = _part_paths(run, result.task_id)
    _write_atomic(_frame(result.attempts, ATTEMPT_KEYS), a_path)
    _write_atomic(_frame(result.puzzles, PUZZLE_KEYS), p_path)


def versions() -> dict[str, str | None]:
    """Versions of the packages that decide a run's results."""
    import platform
    from importlib import metadata

    out: dict[str, str | None] = {"python": platform.python_version()}
    for dist in ("puzzlekit", "numpy", "python-sat", "python-constraint2", "pandas", "pyarrow"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def git_revision() -> dict[str, Any]:
    """The source tree's git revision and whether it had local changes, where git can tell."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        if rev.returncode != 0:
            return {"gitRevision": None, "gitDirty": None}
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return {"gitRevision": rev.stdout.strip(), "gitDirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return {"gitRevision": None, "gitDirty": None}


def verifier_ids(config: ExperimentConfig) -> dict[str, Any]:
    from puzzlekit.verifiers.registry import get_verifier

    def ident(verifier: str, settings: Mapping[str, Any]) -> dict[str, Any]:
        v = get_verifier(verifier, **settings)
        return {
            "verifier": verifier,
            "version": str(getattr(v, "version", "")),
            "settings": _plain(settings),
        }

    return {
        "filters": [{"label": f.label, **ident(f.verifier, f.settings)} for f in config.filters],
        "holdout": ident(config.holdout.verifier, config.holdout.settings)
        if config.holdout
        else None,
    }


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def execute(
    tasks: Sequence[Task],
    executor: str,
    workers: int,
    scheduler: str | None = None,
    *,
    dask_processes: bool = True,
) -> Any:
    """Yield a :class:`TaskResult` per task as it finishes (in any order)."""
    if executor == "serial" or not tasks:
        for task in tasks:
            yield run_task(task)
        return
    if executor == "local":
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed

        ctx = mp.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            futures = [pool.submit(run_task, t) for t in tasks]
            for fut in as_completed(futures):
                yield fut.result()
        return
    if executor == "dask":
        try:
            from distributed import Client, LocalCluster, as_completed
        except ImportError:
            raise RunError(
                "--executor dask needs dask[distributed]: pip install 'puzzlekit[dask]'"
            ) from None
        cluster = None
        if scheduler:
            client = Client(scheduler)
        else:
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=dask_processes,
                dashboard_address=None,
            )
            client = Client(cluster)
        try:
            futures = client.map(run_task, list(tasks), pure=False)
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        return
    raise RunError(f"unknown executor {executor!r}")


def run_experiment(
    config: ExperimentConfig,
    out: str | Path,
    *,
    executor: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    quiet: bool = False,
    config_path: str | None = None,
    report: bool = True,
    dask_processes: bool = True,
) -> Path:
    """Run every task of ``config`` into the run directory ``out``; returns its path.

    The config digest goes into the ledger (``out/ledger.db``) before the first trial. Each task's
    rows are written atomically as soon as it finishes, so a killed run loses at most the tasks
    in flight; ``resume=True`` skips the finished ones. At the end the parts are merged, sorted,
    into ``attempts.parquet`` and ``puzzles.parquet``, and the report is drawn.
    """
    import sys

    from tqdm import tqdm

    from puzzlekit.audit.ledger import Ledger

    run = Path(out)
    executor = executor or config.executor
    workers = workers or config.workers
    scheduler = scheduler or config.scheduler
    manifest_path = run / "manifest.json"
    if manifest_path.exists():
        if not resume:
            raise RunError(f"{run} already holds a run; pass --resume or another --out")
        old = json.loads(manifest_path.read_text(encoding="utf-8"))
        if old.get("configDigest") != config.digest:
            raise RunError(
                f"{run} holds a run of another config ({old.get('configDigest')}); "
                "use another --out"
            )
        manifest = old
        manifest.setdefault("resumes", []).append(_now())
        manifest["end"] = None
    else:
        if run.exists() and any(run.iterdir()):
            raise RunError(f"{run} exists and is not a run directory; use another --out")
        manifest = {
            "format": "puzzlekit-run",
            "formatVersion": 1,
            "name": config.name,
            "description": config.description,
            "configPath": config_path,
            "configDigest": config.digest,
            "config": config.to_json_obj(),
            "preregistration": _plain(asdict(config.preregistration)),
            "versions": versions(),
            **git_revision(),
            "seed": config.seed,
            "trialSeeds": config.trial_seeds(),
            "verifiers": verifier_ids(config),
            "start": _now(),
            "end": None,
            "resumes": [],
        }
    manifest.update({"executor": executor, "workers": workers, "scheduler": scheduler})
    (run / "parts").mkdir(parents=True, exist_ok=True)
    with Ledger(run / "ledger.db") as ledger:
        if len(ledger) == 0:
            ledger.append(
                {
                    "kind": "preregistration",
                    "configDigest": config.digest,
                    "name": config.name,
                    "hypotheses": list(config.preregistration.hypotheses),
                    "metrics": list(config.preregistration.metrics),
                }
            )
        elif resume:
            ledger.append({"kind": "resume", "configDigest": config.digest, "at": _now()})
    _write_json_atomic(manifest, manifest_path)

    tasks = plan(config)
    pending = [t for t in tasks if not task_done(run, t.id)]
    total = sum(len(t.trials) for t in tasks)
    done = total - sum(len(t.trials) for t in pending)
    with tqdm(
        total=total, initial=done, unit="trial", file=sys.stderr, disable=True if quiet else None
    ) as bar:
        for result in execute(pending, executor, workers, scheduler, dask_processes=dask_processes):
            save_task(run, result)
            bar.update(len(result.puzzles))

    attempts = _merge([_part_paths(run, t.id)[0] for t in tasks], ATTEMPT_KEYS)
    puzzles = _merge([_part_paths(run, t.id)[1] for t in tasks], PUZZLE_KEYS)
    _write_atomic(attempts, run / "attempts.parquet")
    _write_atomic(puzzles, run / "puzzles.parquet")
    manifest["end"] = _now()
    manifest["rows"] = {"attempts": len(attempts), "puzzles": len(puzzles), "tasks": len(tasks)}
    _write_json_atomic(manifest, manifest_path)
    with Ledger(run / "ledger.db") as ledger:
        ledger.append(
            {
                "kind": "run-end",
                "configDigest": config.digest,
                "attempts": len(attempts),
                "puzzles": len(puzzles),
                "accepted": int((puzzles["status"] == "accepted").sum()) if len(puzzles) else 0,
            }
        )
    if report:
        from puzzlekit.app.plots import write_report

        write_report(run)
    return run


def _merge(paths: list[Path], keys: list[str]) -> Any:
    import pandas as pd

    frames = [df for df in (pd.read_parquet(p) for p in paths) if not df.empty]
    if not frames:
        return pd.DataFrame()
    return _sorted(pd.concat(frames, ignore_index=True), keys)

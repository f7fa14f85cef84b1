"""Batch generation: run the closed loop until N puzzles are accepted, one JSON line each.

This is the engine behind ``puzzlekit generate``: it picks backends by name, starts the holdout
worker once, derives one seed per loop from the batch seed, and writes records that contain no
timings, so one seed gives byte-identical output.

With a ledger or a corpus (``GenerateConfig.ledger``/``corpus``) every loop outcome is also
settled by :func:`puzzlekit.loop.settle.settle` (audit steps, stopping condition, escalation or the
publish gate), and its record gains ``stoppingKind``, ``escalationTarget``, ``kernelOutcome`` and
``action``. Those four are deterministic for one seed; the escalation ids, ledger hashes and
times that vary between runs go to the ledger and the queues, never into the record.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlekit.families import get_family
from puzzlekit.generators import STRATEGIES
from puzzlekit.generators.minimize import minimize
from puzzlekit.loop.driver import InlineHoldout, LoopBudget, LoopResult, WorkerHoldout, run_loop
from puzzlekit.verifiers.registry import get_verifier


@dataclass(frozen=True)
class GenerateConfig:
    family: str
    params: Mapping[str, Any]
    count: int = 1
    strategy: str = "adaptive"
    clues: int | None = None
    minimize: bool = False
    symmetric: bool = False
    filter: str = "sat"
    holdout: str | None = "enumerative"
    seed: int = 0
    max_calls: int = 200
    max_loops_per_puzzle: int = 20
    holdout_in_process: bool = False
    ledger: str | None = None  # SQLite file: ledger, escalation queues
    corpus: str | None = None  # JSON Lines file the publish gate appends to
    difficulty: int | None = None  # exact grade level wanted (see puzzlekit.generators.graded)


def default_clues(n_vars: int) -> int:
    """A starting clue count: 30% of the variables (24 for a 9×9 Sudoku)."""
    return max(1, round(0.3 * n_vars))


def loop_seed(seed: int, index: int) -> int:
    """The seed of loop ``index`` of a batch: independent streams from one batch seed."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint64)[0])


def record(result: LoopResult, family: Any, schema: Any) -> dict[str, Any]:
    """One output line; no timings, so equal seeds give equal bytes."""
    inst = result.instance
    out: dict[str, Any] = {
        "status": result.status,
        "seed": result.seed,
        "strategy": result.strategy,
        "digest": inst.digest if result.accepted else None,
        "instance": inst.to_json_obj() if result.accepted else None,
        "clueCount": len(inst.clues) if result.accepted else None,
        "startClues": result.start_clues,
        "filterVerdict": result.filter_report.verdict.value if result.filter_report else None,
        "holdoutVerdict": (result.holdout_report.verdict.value if result.holdout_report else None),
        "verifierCalls": result.filter_calls,
        "minimizeCalls": result.minimize_calls,
    }
    if result.accepted:
        try:
            out["text"] = family.format_text(inst)
        except NotImplementedError:
            pass
        out["solution"] = result.solution
    if result.holdout_rejected:
        out["holdoutRejectDetail"] = result.holdout_report.reject_detail.to_json_obj()
    return out


def generate(
    config: GenerateConfig, progress: Any = None, *, computed_at: str | None = None
) -> Iterator[dict[str, Any]]:
    """Yield one record per accepted puzzle (and per loop that exhausted its budget).

    With ``config.ledger`` or ``config.corpus`` each loop is settled (see the module docstring);
    ``computed_at`` (RFC 3339) is when, default the current time at each settlement.
    """
    family = get_family(config.family)
    schema = family.schema(dict(config.params))
    k = config.clues if config.clues is not None else default_clues(len(schema.variables))
    if config.difficulty is not None and config.clues is None:
        k = len(schema.variables)  # graded generation starts from the full grid
    strategy = STRATEGIES.get(config.strategy)(k)
    filt = get_verifier(config.filter)
    holdout: Any = None
    if config.holdout:
        if config.holdout_in_process:
            holdout = InlineHoldout(get_verifier(config.holdout))
        else:
            holdout = WorkerHoldout(functools.partial(get_verifier, config.holdout), config.holdout)
    mini = None
    if config.minimize or config.difficulty is not None:
        mini = functools.partial(minimize, symmetric=config.symmetric)
    if config.difficulty is not None:
        hook = _graded_adaptive if config.strategy == "adaptive" else _graded_blind
        mini = functools.partial(hook, target=config.difficulty, symmetric=config.symmetric)
    budget = LoopBudget(max_calls=config.max_calls)
    settling = config.ledger is not None or config.corpus is not None
    ledger: Any = None
    dispatcher: Any = None
    if config.ledger is not None:
        from puzzlekit.audit.escalation import Dispatcher, EscalationStore
        from puzzlekit.audit.ledger import Ledger
        from puzzlekit.verifiers.registry import registry_verify_fn

        ledger = Ledger(config.ledger)
        dispatcher = Dispatcher(EscalationStore(ledger), verify_fn=registry_verify_fn)
    accepted = 0
    index = 0
    try:
        while accepted < config.count and index < config.count * config.max_loops_per_puzzle:
            result = run_loop(
                schema,
                strategy,
                filt,
                holdout,
                budget,
                loop_seed(config.seed, index),
                minimize=mini,
            )
            index += 1
            if result.accepted:
                accepted += 1
                if progress is not None:
                    progress.update(1)
            rec = record(result, family, schema)
            if result.shaping is not None:
                rec.update(result.shaping)
            if settling and result.status != "dropped":
                from puzzlekit.loop.settle import settle

                settled = settle(
                    result,
                    filter=filt,
                    holdout_name=config.holdout,
                    ledger=ledger,
                    dispatcher=dispatcher,
                    corpus_path=config.corpus,
                    computed_at=computed_at,
                    solution_cap=budget.solution_cap,
                )
                rec.update(settled.record_fields())
            yield rec
    finally:
        if holdout is not None:
            holdout.close()
        if ledger is not None:
            ledger.close()


def _graded_adaptive(
    instance: Any, verifier: Any, rng: Any, *, solution: Any, target: int, symmetric: bool
) -> Any:
    """Level 0: dig the accepted puzzle; above: minimize it, then reveal where the grader is
    stuck and dig what a single brings back (:func:`puzzlekit.generators.graded.shape_to_level`)."""
    from puzzlekit.generators.graded import shape_to_level, shaping_fields
    from puzzlekit.generators.minimize import Minimized

    base, calls, minimal = instance, 0, False
    if target > 0:
        done = minimize(instance, verifier, rng, symmetric=symmetric, solution=solution)
        base, calls, minimal = done.instance, done.calls, True
    shaped = shape_to_level(base, solution, target, rng, minimal=minimal)
    return Minimized(
        shaped.shaped,
        calls,
        len(instance.clues) - len(shaped.shaped.clues),
        dropped=shaped.instance is None,
        shaping=shaping_fields(shaped.grade, shaped),
    )


def _graded_blind(
    instance: Any, verifier: Any, rng: Any, *, solution: Any, target: int, symmetric: bool
) -> Any:
    """The baseline: minimize the accepted puzzle, grade it once, keep it only at ``target``."""
    from puzzlekit.generators.graded import grade_fast, shaping_fields
    from puzzlekit.generators.minimize import Minimized

    done = minimize(instance, verifier, rng, symmetric=symmetric, solution=solution)
    g = grade_fast(done.instance)
    return Minimized(
        done.instance,
        done.calls,
        done.removed,
        dropped=g.level != target,
        shaping=shaping_fields(g),
    )


def dumps(rec: Mapping[str, Any]) -> str:
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)

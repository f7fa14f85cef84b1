"""Batch generation: run the closed loop until N puzzles are accepted, one JSON line each.

This is the engine behind ``puzzlekit generate``: a :class:`GenerateConfig` becomes a
:class:`~puzzlekit.loop.driver.LoopSpec`, the one driver runs loop ``i`` with the seed
``loop_seed(config.seed, i)``, and :func:`puzzlekit.loop.rows.generate_record` writes each
outcome as a record that contains no timings, so one seed gives byte-identical output. Each
record's ``provenance`` (:func:`provenance`) names what made it: the puzzlekit version, the filter
and holdout verifiers with their versions, the batch seed and the loop index.

With a ledger or a corpus (``GenerateConfig.ledger``/``corpus``) every loop outcome is also
settled by :func:`puzzlekit.loop.settle.settle` (audit steps, stopping condition, escalation or the
publish gate), and its record gains ``stopKind``, ``escalationTarget``, ``kernelOutcome`` and
``settleAction``. Those four are deterministic for one seed; the escalation ids, ledger hashes
and times that vary between runs go to the ledger and the queues, never into the record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from puzzlekit.loop.driver import LoopDriver, LoopSpec, default_clues, loop_seed
from puzzlekit.loop.rows import generate_record

__all__ = [
    "GenerateConfig",
    "default_clues",
    "dumps",
    "generate",
    "k_raised",
    "k_raised_line",
    "loop_seed",
    "provenance",
]


@dataclass(frozen=True)
class GenerateConfig:
    family: str
    params: Mapping[str, Any]
    count: int = 1
    strategy: str = "adaptive"
    #: keyword settings of the strategy's factory (``policy``: ``policy``, the file's path;
    #: ``external``: ``cmd``, ``cmd_timeout``)
    strategy_settings: Mapping[str, Any] = field(default_factory=dict)
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
    extras: tuple[str, ...] = ()  # report extras every filter call computes (LoopSpec.extras)

    def loop_spec(self) -> LoopSpec:
        """The loop every record of this batch comes from."""
        return LoopSpec(
            self.family,
            dict(self.params),
            strategy=self.strategy,
            strategy_settings=dict(self.strategy_settings),
            k=self.clues,
            filter=self.filter,
            holdout=self.holdout,
            holdout_process=not self.holdout_in_process,
            max_calls=self.max_calls,
            minimize=self.minimize,
            symmetric=self.symmetric,
            difficulty=self.difficulty,
            extras=self.extras,
            trace_reports=False,  # a record has no trace
        )


class _Settler:
    """Settles loop outcomes into a ledger and/or corpus (``--ledger``, ``--corpus``)."""

    def __init__(self, config: GenerateConfig, computed_at: str | None) -> None:
        self.config, self.computed_at = config, computed_at
        self.ledger: Any = None
        self.dispatcher: Any = None
        if config.ledger is not None:
            from puzzlekit.audit.escalation.targets import Dispatcher, EscalationStore
            from puzzlekit.audit.ledger import Ledger
            from puzzlekit.verifiers.registry import registry_verify_fn

            self.ledger = Ledger(config.ledger)
            self.dispatcher = Dispatcher(EscalationStore(self.ledger), verify_fn=registry_verify_fn)

    def __call__(self, result: Any, driver: LoopDriver) -> Any:
        from puzzlekit.loop.settle import settle

        return settle(
            result,
            filter=driver.filter,
            holdout_name=self.config.holdout,
            ledger=self.ledger,
            dispatcher=self.dispatcher,
            corpus_path=self.config.corpus,
            computed_at=self.computed_at,
            solution_cap=driver.spec.solution_cap,
        )

    def close(self) -> None:
        if self.ledger is not None:
            self.ledger.close()


def generate(
    config: GenerateConfig,
    progress: Any = None,
    *,
    computed_at: str | None = None,
    wrap_filter: Callable[[Any], Any] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield one record per accepted puzzle (and per loop that exhausted its budget).

    With ``config.ledger`` or ``config.corpus`` each loop is settled (see the module docstring);
    ``computed_at`` (RFC 3339) is when, default the current time at each settlement.
    ``wrap_filter`` is passed to :class:`~puzzlekit.loop.driver.LoopDriver` (e.g. to count calls).
    """
    driver = LoopDriver(config.loop_spec(), wrap_filter=wrap_filter)
    made_by = provenance(config)
    settling = config.ledger is not None or config.corpus is not None
    settler = _Settler(config, computed_at) if settling else None
    accepted = 0
    loops = driver.batch(
        config.seed,
        range(config.count * config.max_loops_per_puzzle),
        wanted=lambda: config.count - accepted,
    )
    try:
        for index, result in loops:
            index += 1
            if result.accepted:
                accepted += 1
                if progress is not None:
                    progress.update(1)
            settled = None
            if settler is not None and result.status != "dropped":
                settled = settler(result, driver)
            made = {**made_by, "loop": index - 1}
            yield generate_record(result, driver.family, settlement=settled, provenance=made)
            if accepted >= config.count:
                break
    finally:
        loops.close()
        if settler is not None:
            settler.close()


def provenance(config: GenerateConfig) -> dict[str, Any]:
    """What made a batch's records: the puzzlekit version, the filter and the holdout (registry
    name and version; holdout null when none ran) and the batch seed. With the record's
    ``provenance.loop`` (its loop index ``i``), ``loop_seed(seed, i)`` is the record's ``seed``."""
    from puzzlekit.core.version import __version__
    from puzzlekit.verifiers.registry import get_verifier

    def made_by(name: str | None) -> dict[str, str] | None:
        if name is None:
            return None
        return {"verifier": name, "version": str(getattr(get_verifier(name), "version", ""))}

    out: dict[str, Any] = {
        "puzzlekit": __version__,
        "filter": made_by(config.filter),
        "holdout": made_by(config.holdout),
        "seed": config.seed,
    }
    raised = k_raised(config)
    if raised is not None:
        out["kRaised"] = raised
    return out


def k_raised(config: GenerateConfig) -> dict[str, int] | None:
    """``{"k": clues, "least": least}`` when the batch asks for fewer clues (``clues``) than
    its family starts a puzzle with (:meth:`~puzzlekit.core.protocols.Family.least_k`), so the
    loops start from at least ``least``; ``None`` when ``clues`` is honoured (or not given)."""
    if config.clues is None:
        return None
    from puzzlekit.families import get_family

    family = get_family(config.family)
    least = int(family.least_k(family.schema(dict(config.params))))
    return {"k": config.clues, "least": least} if config.clues < least else None


def k_raised_line(family: str, raised: Mapping[str, int]) -> str:
    """The one stderr line of ``puzzlekit generate`` for a :func:`k_raised` batch."""
    return (
        f"puzzlekit: {family}: --clues asks for k = {raised['k']}; the family starts no puzzle "
        f"with fewer than {raised['least']} clues, so k is raised to at least {raised['least']}"
    )


def dumps(rec: Mapping[str, Any]) -> str:
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)

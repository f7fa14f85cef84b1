"""Config keys whose checking reaches outside their own table: ``plugins`` (imported so that what
they register is known to the rest of the check), ``extras`` (names of report extras) and the
``[preregistration]`` table (metrics, and hypotheses whose arms, schemas and ``k`` are checked
against the config's names). Read by :mod:`puzzlekit.app.experiment.config` with its reader
``r``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from puzzlekit.app.experiment.hypotheses import Hypothesis, read_hypothesis

METRICS = {
    "accept_rate": "share of trials the filter accepted within the budget",
    "holdout_reject_rate": "share of filter-accepted puzzles the holdout rejected",
    "calls_per_accept_mean": "mean filter calls of accepted trials",
    "calls_per_accept_median": "median filter calls of accepted trials",
    "final_clues_mean": "mean clue count of accepted puzzles",
    "reject_cases": "share of each reject case among filter rejects",
}


@dataclass(frozen=True)
class Preregistration:
    hypotheses: tuple[Hypothesis, ...]
    metrics: tuple[str, ...]


def plugins(r: Any, top: dict[str, Any]) -> tuple[str, ...]:
    """Import the config's ``plugins`` (module names) so that what they register is known when
    the rest of the config is checked; ConfigError naming the entry that cannot be imported."""
    from puzzlekit.core.plugins import PluginError, use_plugins

    modules = r.strings(top, "plugins", "") if "plugins" in top else ()
    for i, module in enumerate(modules):
        try:
            use_plugins([module])
        except PluginError as exc:
            raise r.fail(f"plugins[{i}]", str(exc)) from None
    return tuple(modules)


def extras(r: Any, top: dict[str, Any]) -> tuple[str, ...]:
    """The report extras the config asks of every filter call (sorted, each known)."""
    from puzzlekit.core.protocols import EXTRAS

    names = r.strings(top, "extras", "") if "extras" in top else ()
    for i, name in enumerate(names):
        if name not in EXTRAS:
            raise r.fail(
                f"extras[{i}]", f"unknown report extra {name!r}; known: {', '.join(sorted(EXTRAS))}"
            )
    return tuple(sorted(set(names)))


def preregistration(r: Any, top: dict[str, Any]) -> Preregistration:
    if "preregistration" not in top:
        raise r.fail("preregistration", "required: declare hypotheses and metrics up front")
    pre = r.table(top["preregistration"], "preregistration", ("hypotheses", "metrics"))
    hypotheses = _hypotheses(r, pre)
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
    return Preregistration(hypotheses, metrics)


def _hypotheses(r: Any, pre: dict[str, Any]) -> tuple[Hypothesis, ...]:
    out = []
    for i, item in enumerate(r.array(pre, "hypotheses", "preregistration")):
        try:
            out.append(read_hypothesis(item, f"preregistration.hypotheses[{i}]"))
        except ValueError as exc:
            path, _, message = str(exc).partition(": ")
            raise r.fail(path, message) from None
    return tuple(out)


def check_arms(
    r: Any,
    pre: Preregistration,
    schemas: Sequence[Any],
    strategies: Sequence[Any],
    filters: Sequence[Any],
) -> None:
    """Every arm, ``schema`` and ``k`` of the hypotheses checked against the config's names
    (problems kept on ``r``), unless a schema, strategy or filter could not be read: then the
    names are not all known."""
    from puzzlekit.app.experiment.hypotheses import arm_problems

    if any(p.path.startswith(("schemas", "strategies", "filters")) for p in r.problems):
        return
    names = {
        "strategy": [s.arm for s in strategies],
        "filter": [f.label for f in filters],
        "k": [str(k) for k in sorted({k for s in strategies for k in s.clues})],
        "schema": [s.label for s in schemas],
    }
    for i, h in enumerate(pre.hypotheses):
        if h.checkable:
            for path, message in arm_problems(h, f"preregistration.hypotheses[{i}]", names):
                r.problems.append(r.fail(path, message))

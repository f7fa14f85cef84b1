"""The judgement of a run's pre-registered hypotheses: held, not held or inconclusive, with the
statistic and a seeded bootstrap interval, computed from ``puzzles.parquet``.

Each checkable hypothesis (:mod:`puzzlekit.app.experiment.hypotheses`) names a metric, one or
two arms, a direction and a test, and optionally a ``schema`` and a ``k`` that limit every arm's
rows (:func:`limited_rows`). The statistic is metric(first arm) − metric(second arm), or
metric(arm) − ``value``; its (1 − alpha) percentile bootstrap interval resamples each arm's rows
independently (:data:`BOOTSTRAP` draws, numpy generator seeded from the run's seed and the
hypothesis' position, so one run gives one report). Decision:

- ``less``: held when the interval lies below 0; not held when it lies at or above 0;
- ``greater``: held when it lies above 0; not held when it lies at or below 0;
- ``equal``: held when it lies within ±``tolerance``; not held when the statistic does not;
- ``at_most``: held when it lies at or below ``tolerance``; not held when it lies above it;
- ``at_least``: held when it lies at or above −``tolerance``; not held when it lies below it;
- otherwise inconclusive, as is a free-text hypothesis (not checkable) or an arm without rows.

The learner's metrics (``calls_slope``, ``holdout_reject_slope``, ``map_overlap``) take their
per-row values from :mod:`puzzlekit.app.plots.learning`, with the run's ``batch`` (a learner is
one task) and, for ``map_overlap``, the hypothesis' ``region`` on each schema of the config.

Not for: reading the config (:mod:`puzzlekit.app.experiment.hypotheses`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from puzzlekit.app.experiment.hypotheses import ARM_KEYS, Hypothesis, read_hypothesis

#: bootstrap resamples per hypothesis
BOOTSTRAP = 2000


@dataclass(frozen=True)
class Judgement:
    """The judgement of one hypothesis; ``statistic``/``interval`` None when not computed."""

    hypothesis: Hypothesis
    outcome: str  # "held" | "not held" | "inconclusive"
    statistic: float | None
    interval: tuple[float, float] | None
    sizes: tuple[int, ...]
    reason: str


def arm_rows(puzzles: pd.DataFrame, arm: str) -> pd.DataFrame:
    """The rows of an arm: ``NAME`` (a strategy or a filter label) or ``key=value`` pairs joined
    by ``,`` (keys: strategy, filter, k, schema)."""
    if "=" not in arm:
        hit = pd.Series(False, index=puzzles.index)
        for key in ("strategy", "filter"):
            if key in puzzles:
                hit |= puzzles[key].astype(str) == arm
        return puzzles[hit]
    mask = pd.Series(True, index=puzzles.index)
    for part in arm.split(","):
        key, _, value = part.partition("=")
        key = key.strip()
        if key not in ARM_KEYS or key not in puzzles:
            return puzzles.iloc[0:0]
        mask &= puzzles[key].astype(str) == value.strip()
    return puzzles[mask]


def limited_rows(puzzles: pd.DataFrame, h: Hypothesis) -> pd.DataFrame:
    """The rows of the hypothesis' ``schema`` and ``k`` (every row where it names neither)."""
    if h.schema is not None:
        puzzles = puzzles[puzzles["schema"].astype(str) == h.schema]
    if h.k is not None:
        puzzles = puzzles[puzzles["k"].astype(int) == h.k]
    return puzzles


def metric_values(
    rows: pd.DataFrame, metric: str, context: Mapping[str, Any] | None = None
) -> tuple[np.ndarray, Any]:
    """The per-row values of ``metric`` and the function that reduces them (mean, median or a
    slope). ``context``: the run's ``batch`` and, for ``map_overlap``, ``regions`` (schema
    label -> place keys), which the learner's metrics need."""
    from puzzlekit.app.plots import learning

    batch = int((context or {}).get("batch", 1) or 1)
    if metric in ("calls_slope", "holdout_reject_slope"):
        return learning.slope_values(rows, metric, batch), learning.slope
    if metric == "map_overlap":
        regions = (context or {}).get("regions", {})
        return learning.overlap_values(rows, batch, regions), np.mean
    accepted = rows[rows["status"] == "accepted"]
    if metric == "accept_rate":
        return (rows["status"] == "accepted").to_numpy(dtype=float), np.mean
    if metric == "holdout_reject_rate":
        checked = accepted[accepted["holdoutVerdict"].notna()]
        return checked["holdoutRejected"].fillna(False).to_numpy(dtype=float), np.mean
    if metric in ("calls_per_accept_mean", "calls_per_accept_median"):
        reduce = np.median if metric.endswith("median") else np.mean
        return accepted["filterCalls"].to_numpy(dtype=float), reduce
    if metric == "final_clues_mean":
        return accepted["clueCount"].to_numpy(dtype=float), np.mean
    raise ValueError(f"metric {metric!r} is not checkable")


def _resampled(values: np.ndarray, reduce: Any, rng: np.random.Generator) -> np.ndarray:
    idx = rng.integers(0, len(values), size=(BOOTSTRAP, len(values)))
    return np.asarray(reduce(values[idx], axis=1), dtype=float)


def _decide(h: Hypothesis, stat: float, lo: float, hi: float) -> str:
    if h.direction == "less":
        return "held" if hi < 0 else "not held" if lo >= 0 else "inconclusive"
    if h.direction == "greater":
        return "held" if lo > 0 else "not held" if hi <= 0 else "inconclusive"
    if h.direction == "at_most":
        tol = h.tolerance + 1e-12
        return "held" if hi <= tol else "not held" if lo > tol else "inconclusive"
    if h.direction == "at_least":
        tol = h.tolerance + 1e-12
        return "held" if lo >= -tol else "not held" if hi < -tol else "inconclusive"
    tol = h.tolerance + 1e-12
    if -tol <= lo and hi <= tol:
        return "held"
    return "not held" if abs(stat) > tol else "inconclusive"


def judge(
    h: Hypothesis,
    puzzles: pd.DataFrame,
    seed: int,
    index: int,
    manifest: Mapping[str, Any] | None = None,
) -> Judgement:
    """Judge one hypothesis from the run's puzzle rows (see the module docstring); ``manifest``
    (the run's) gives the learner's metrics the batch and the schemas."""
    if not h.checkable or h.metric is None:
        return Judgement(h, "inconclusive", None, None, (), "not checkable: free text")
    samples = []
    puzzles = limited_rows(puzzles, h)
    context = _context(h, manifest or {})
    for arm in h.arms:
        values, reduce = metric_values(arm_rows(puzzles, arm), h.metric, context)
        if not len(values):
            sizes = tuple(len(s[0]) for s in samples) + (0,)
            return Judgement(h, "inconclusive", None, None, sizes, f"no rows for arm {arm!r}")
        samples.append((values, reduce))
    rng = np.random.default_rng([int(seed), index])
    stat = float(samples[0][1](samples[0][0]))
    boot = _resampled(samples[0][0], samples[0][1], rng)
    if len(samples) == 2:
        stat -= float(samples[1][1](samples[1][0]))
        boot = boot - _resampled(samples[1][0], samples[1][1], rng)
    else:
        stat -= float(h.value or 0.0)
        boot = boot - float(h.value or 0.0)
    finite = np.isfinite(boot)
    if not np.isfinite(stat) or finite.mean() < 0.5:  # a slope of loops of one index
        sizes = tuple(len(s[0]) for s in samples)
        return Judgement(h, "inconclusive", None, None, sizes, "undefined: one loop index only")
    boot = boot[finite]  # resamples that drew a single loop index define no slope
    lo, hi = (float(x) for x in np.quantile(boot, [h.alpha / 2, 1 - h.alpha / 2]))
    outcome = _decide(h, stat, lo, hi)
    sizes = tuple(len(s[0]) for s in samples)
    return Judgement(h, outcome, stat, (lo, hi), sizes, f"bootstrap, {BOOTSTRAP} resamples")


def judge_all(manifest: Mapping[str, Any], puzzles: pd.DataFrame) -> list[Judgement]:
    """Every pre-registered hypothesis of the run's manifest, judged in order."""
    pre = manifest.get("preregistration", {})
    seed = int(manifest.get("config", {}).get("seed", 0) or 0)
    out = []
    for i, raw in enumerate(pre.get("hypotheses", [])):
        try:
            h = read_hypothesis(raw, f"preregistration.hypotheses[{i}]")
        except ValueError as exc:
            h = Hypothesis(claim=str(raw))
            out.append(Judgement(h, "inconclusive", None, None, (), f"not checkable: {exc}"))
            continue
        out.append(judge(h, puzzles, seed, i, manifest))
    return out


def _context(h: Hypothesis, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """What a learner's metric needs of the run: its ``batch`` and the hypothesis' regions."""
    from puzzlekit.app.plots.learning import schema_regions

    config = manifest.get("config", {})
    out: dict[str, Any] = {"batch": int(config.get("batch", 1) or 1)}
    if h.region is not None:
        out["regions"] = schema_regions(manifest, h.region)
    return out


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.4g}"


def _describe(h: Hypothesis) -> str:
    if not h.checkable:
        return h.claim
    arms = f"{h.arms[0]} − {h.arms[1]}" if len(h.arms) == 2 else f"{h.arms[0]} − {h.value:g}"
    test = f"{h.metric}: {arms} {h.direction.replace('_', ' ')} 0"
    limits = [f"{key} {v}" for key, v in (("schema", h.schema), ("k", h.k)) if v is not None]
    if limits:
        test += f" ({', '.join(limits)} only)"
    if h.direction == "equal" and h.tolerance:
        test += f" (±{h.tolerance:g})"
    elif h.direction in ("at_most", "at_least") and h.tolerance:
        test += f" ({'+' if h.direction == 'at_most' else '−'}{h.tolerance:g})"
    if h.region is not None:
        test += f" (region of {h.region})"
    name = f"{h.id}: " if h.id else ""
    return f"{name}{h.claim} [{test}, alpha {h.alpha:g}]" if h.claim else f"{name}{test}"


def hypotheses_section(manifest: Mapping[str, Any], puzzles: pd.DataFrame) -> list[str]:
    """The report's section: each pre-registered hypothesis with its judgement."""
    judged = judge_all(manifest, puzzles)
    lines = [
        "## Pre-registered hypotheses",
        "",
        "Each hypothesis judged from puzzles.parquet: the statistic is the first arm's metric "
        "minus the second's (or minus the stated value), with a percentile bootstrap interval "
        "(each arm's rows resampled, seeded by the run's seed); held / not held when the "
        "interval settles the direction, inconclusive otherwise.",
        "",
    ]
    if not judged:
        return [*lines, "(none)", ""]
    lines += [
        "| hypothesis | judgement | statistic | interval | rows per arm | note |",
        "|---|---|---|---|---|---|",
    ]
    for j in judged:
        interval = "–" if j.interval is None else f"[{_num(j.interval[0])}, {_num(j.interval[1])}]"
        sizes = ", ".join(str(n) for n in j.sizes) or "–"
        lines.append(
            f"| {_describe(j.hypothesis)} | **{j.outcome}** | {_num(j.statistic)} | "
            f"{interval} | {sizes} | {j.reason} |"
        )
    return [*lines, ""]


def judgement_rows(judged: Sequence[Judgement]) -> list[dict[str, Any]]:
    """The judgements as plain rows (for notebooks and tests)."""
    return [
        {
            "id": j.hypothesis.id,
            "claim": j.hypothesis.claim,
            "outcome": j.outcome,
            "statistic": j.statistic,
            "interval": j.interval,
            "sizes": j.sizes,
            "reason": j.reason,
        }
        for j in judged
    ]

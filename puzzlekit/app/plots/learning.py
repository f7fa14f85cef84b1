"""The per-row values of the hypothesis metrics that are a learner's: the slope of a learning
curve over the loop index and the overlap of a learned map with a planted region
(:data:`puzzlekit.app.experiment.hypotheses.LEARNING_METRICS`).

One experiment task is one learner (``pattern`` starts afresh at each task,
docs/strategies.md), so a loop's index is its trial's position in its task: ``trial % batch``
(:func:`loop_index`), and a learner is one task's rows (:func:`learners`).

- ``calls_slope`` and ``holdout_reject_slope``: the values are ``(loop index, y)`` pairs, reduced
  by :func:`slope` (least squares, per 100 loops); the bootstrap resamples the pairs.
- ``map_overlap``: one value per learner, the overlap of its map after its last loop with the
  region (:func:`overlap`), reduced by the mean.

Not for: the judgement itself (:mod:`puzzlekit.app.plots.hypotheses`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from puzzlekit.generators.pattern import learned_map

#: the slope's unit: change per this many loops
PER_LOOPS = 100


def loop_index(rows: pd.DataFrame, batch: int) -> np.ndarray:
    """Each row's loop index within its learner: ``trial % batch``."""
    return rows["trial"].to_numpy(dtype=np.int64) % max(1, int(batch))


def slope(values: np.ndarray, axis: int = 0) -> Any:
    """The least-squares slope of ``values[..., 1]`` on ``values[..., 0]`` over the pairs (the
    next-to-last axis; ``axis`` is accepted for the bootstrap's call and ignored), per
    :data:`PER_LOOPS` loops; NaN where every x is equal."""
    x, y = values[..., 0], values[..., 1]
    dx = x - x.mean(axis=-1, keepdims=True)
    dy = y - y.mean(axis=-1, keepdims=True)
    den = (dx * dx).sum(axis=-1)
    num = (dx * dy).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = PER_LOOPS * num / np.where(den > 0, den, np.nan)
    return float(out) if np.ndim(out) == 0 else out


def slope_values(rows: pd.DataFrame, metric: str, batch: int) -> np.ndarray:
    """The ``(loop index, y)`` pairs of a slope metric: every loop's filter calls
    (``calls_slope``), or 1.0 / 0.0 for each accepted puzzle the holdout checked, rejected or not
    (``holdout_reject_slope``)."""
    if metric == "calls_slope":
        y = rows["filterCalls"].to_numpy(dtype=float)
        return np.column_stack([loop_index(rows, batch).astype(float), y])
    if metric == "holdout_reject_slope":
        checked = rows[(rows["status"] == "accepted") & rows["holdoutVerdict"].notna()]
        y = checked["holdoutRejected"].fillna(False).to_numpy(dtype=float)
        return np.column_stack([loop_index(checked, batch).astype(float), y])
    raise ValueError(f"{metric!r} is not a slope metric")


def learners(rows: pd.DataFrame, batch: int) -> list[pd.DataFrame]:
    """The rows of each learner (one task: schema, strategy, k, filter and ``trial // batch``),
    each in trial order."""
    if rows.empty:
        return []
    keys = [rows[c].astype(str) for c in ("schema", "strategy", "k", "filter")]
    keys.append(rows["trial"] // max(1, int(batch)))
    return [g.sort_values("trial") for _, g in rows.groupby(keys, sort=True)]


def overlap(scores: Mapping[str, float], region: Collection[str]) -> float | None:
    """The share of the ``len(region)`` top-scoring places of ``scores`` that lie in ``region``;
    places tied at the cut share the places left, in proportion to how many of them lie in the
    region (the expected overlap of a random tie-break). None for an empty map or region."""
    t = len(region)
    if not scores or not t:
        return None
    ranked = sorted(scores.values(), reverse=True)
    cut = ranked[min(t, len(ranked)) - 1]
    above = [p for p, s in scores.items() if s > cut]
    tied = [p for p, s in scores.items() if s == cut]
    left = min(t, len(ranked)) - len(above)
    hits = sum(p in region for p in above)
    hits_tied = sum(p in region for p in tied)
    return (hits + left * hits_tied / len(tied)) / t


def overlap_values(
    rows: pd.DataFrame, batch: int, regions: Mapping[str, Collection[str]]
) -> np.ndarray:
    """One overlap per learner: its last recorded map (``strategyState`` of its last row that
    has one) against the region of its schema (``regions``: schema label -> place keys).
    Learners without a state (a strategy that keeps none) or without a region give nothing."""
    out = []
    for group in learners(rows, batch):
        region = regions.get(str(group["schema"].iloc[0]))
        states = group["strategyState"].dropna() if "strategyState" in group else []
        if region is None or not len(states):
            continue
        value = overlap(learned_map(json.loads(states.iloc[-1])), region)
        if value is not None:
            out.append(value)
    return np.asarray(out, dtype=float)


def schema_regions(manifest: Mapping[str, Any], sampler: str) -> dict[str, set[str]]:
    """Schema label -> the place keys (``"0,3"``) of the region ``sampler`` plants its defect
    in, for each schema of the run's config the sampler takes."""
    from puzzlekit.families import get_family
    from puzzlekit.generators.pattern import place_key
    from puzzlekit.generators.samplers import sampler_region

    out: dict[str, set[str]] = {}
    for spec in manifest.get("config", {}).get("schemas", []):
        try:
            schema = get_family(spec["family"]).schema(dict(spec.get("params", {})))
            cells = sampler_region(sampler, schema)
        except (LookupError, ValueError):
            continue
        if cells:
            out[str(spec["label"])] = {place_key(tuple(c)) for c in cells}
    return out


def uses_learning(manifest: Mapping[str, Any]) -> bool:
    """Whether a pre-registered hypothesis of the run names a learner's metric."""
    from puzzlekit.app.experiment.hypotheses import LEARNING_METRICS, snake

    hyps = manifest.get("preregistration", {}).get("hypotheses", [])
    return any(
        isinstance(h, Mapping) and snake(str(h.get("metric"))) in LEARNING_METRICS for h in hyps
    )


def curve_table(puzzles: pd.DataFrame, batch: int, bins: int = 5) -> pd.DataFrame:
    """Mean filter calls per loop of each arm (schema, strategy, k, filter) in ``bins`` equal
    spans of the loop index (every loop, an exhausted one at its whole budget): the learning
    curves the ``calls_slope`` hypotheses fit a line to."""
    if puzzles.empty:
        return pd.DataFrame()
    width = max(1, -(-max(1, int(batch)) // bins))
    df = puzzles.assign(_span=loop_index(puzzles, batch) // width)
    table = df.pivot_table(
        index=["schema", "strategy", "k", "filter"], columns="_span", values="filterCalls"
    )
    table.columns = [
        _span(int(c) * width, min(int(batch), (int(c) + 1) * width) - 1) for c in table
    ]
    return table.reset_index()


def _span(lo: int, hi: int) -> str:
    return f"loop {lo}" if lo == hi else f"loops {lo}–{hi}"


def overlap_table(puzzles: pd.DataFrame, batch: int, manifest: Mapping[str, Any]) -> pd.DataFrame:
    """Per arm with a recorded map: its learners and the overlap of each one's last map with the
    region of every sampler that names one (``planted-deadly``), and the chance level."""
    from puzzlekit.generators.samplers import REGIONS

    rows = []
    for name in sorted(REGIONS):
        regions = schema_regions(manifest, name)
        for key, arm in puzzles.groupby(["schema", "strategy", "k", "filter"], sort=True):
            values = overlap_values(arm, batch, regions)
            if len(values):
                n_places = len(learned_map(json.loads(arm["strategyState"].dropna().iloc[-1])))
                chance = len(regions[str(key[0])]) / max(1, n_places)
                rows.append(
                    {
                        "schema": key[0],
                        "strategy": key[1],
                        "k": key[2],
                        "filter": key[3],
                        "region": name,
                        "learners": len(values),
                        "overlap per learner": " ".join(f"{v:.2f}" for v in values),
                        "chance": chance,
                    }
                )
    return pd.DataFrame(rows)

"""The tables of a run's report, computed from its Parquet rows with pandas.

Every number in ``report/report.md`` comes from one of these functions; the notebooks call the
same ones. Column names are those of :mod:`puzzlekit.loop.rows` (documented in docs/data.md).

Not for: figures (:mod:`puzzlekit.app.plots.figures`) or the Markdown
(:mod:`puzzlekit.app.plots.report`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from puzzlekit.app.plots.panels import PanelKey, panel_keys, panel_rows

ARM = ["schema", "strategy", "k", "filter"]


def load_run(run_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """``(attempts, puzzles, manifest)`` of a run directory; the rows of a run written with an
    older row schema get today's column names (:func:`puzzlekit.loop.row_schema.upgrade_frame`),
    and instances written before clues were held in one canonical order get their canonical
    JSON and digest (:func:`puzzlekit.loop.row_schema.canonical_identity`)."""
    from puzzlekit.app.experiment.manifest import check_manifest
    from puzzlekit.app.experiment.store import read_table
    from puzzlekit.core.files import DamagedFile, read_json
    from puzzlekit.loop.row_schema import canonical_identity, upgrade_frame

    run = Path(run_dir)
    manifest = check_manifest(read_json(run / "manifest.json"), run / "manifest.json")
    version = manifest.get("rowSchemaVersion", 1)
    if not isinstance(version, int) or isinstance(version, bool):
        raise DamagedFile(run / "manifest.json", f"rowSchemaVersion is not a number: {version!r}")
    attempts = upgrade_frame(read_table(run / "attempts.parquet"), version)
    puzzles = upgrade_frame(read_table(run / "puzzles.parquet"), version)
    attempts, puzzles = canonical_identity(attempts, puzzles)
    return attempts, puzzles, manifest


def metrics_table(attempts: pd.DataFrame, puzzles: pd.DataFrame) -> pd.DataFrame:
    """One row per arm: trials, accepted, the pre-registrable metrics."""
    rows = []
    for key, grp in puzzles.groupby(ARM, sort=True):
        acc = grp[grp["status"] == "accepted"]
        checked = acc[acc["holdoutVerdict"].notna()]
        rows.append(
            {
                **dict(zip(ARM, key, strict=True)),
                "trials": len(grp),
                "accepted": len(acc),
                "accept_rate": len(acc) / len(grp) if len(grp) else np.nan,
                "holdout_reject_rate": (
                    float(checked["holdoutRejected"].mean()) if len(checked) else np.nan
                ),
                "calls_per_accept_mean": float(acc["filterCalls"].mean()) if len(acc) else np.nan,
                "calls_per_accept_median": (
                    float(acc["filterCalls"].median()) if len(acc) else np.nan
                ),
                "final_clues_mean": float(acc["clueCount"].mean()) if len(acc) else np.nan,
            }
        )
    return pd.DataFrame(rows)


def reject_case_table(
    attempts: pd.DataFrame, by: Sequence[str] = ("strategy", "filter")
) -> pd.DataFrame:
    """Share of each reject case among filter rejects, per ``by`` (strategy × filter)."""
    rej = attempts[(attempts["side"] == "filter") & attempts["rejectCase"].notna()]
    if rej.empty:
        return pd.DataFrame()
    counts = rej.groupby([*by, "rejectCase"]).size().unstack(fill_value=0)
    return counts.div(counts.sum(axis=1), axis=0)


def verdict_matrix(
    puzzles: pd.DataFrame, by: Sequence[str] = ("strategy", "filter")
) -> pd.DataFrame:
    """Filter-accepted puzzles counted by ``by`` (strategy, filter) × holdout verdict."""
    acc = puzzles[(puzzles["status"] == "accepted") & puzzles["holdoutVerdict"].notna()]
    if acc.empty:
        return pd.DataFrame()
    return pd.crosstab([acc[c] for c in by], acc["holdoutVerdict"])


#: the panels of the reject-coordinate analyses, per schema
COORD_PANELS = (
    "filter rejects (top coordinate)",
    "filter MULTIPLE rejects (every gap cell)",
    "holdout rejects (all coordinates)",
)


def reject_coords(attempts: pd.DataFrame, puzzles: pd.DataFrame) -> dict[str, list[Any]]:
    """Coordinates named in rejects, every schema pooled (see :func:`reject_coords_by_panel`,
    which the report uses: coordinates of schemas of different sizes do not mean the same)."""
    out: dict[str, list[Any]] = {p: [] for p in COORD_PANELS}
    for panels in reject_coords_by_panel(attempts, puzzles).values():
        for name, coords in panels.items():
            out[name] += coords
    return out


def reject_coords_by_panel(
    attempts: pd.DataFrame, puzzles: pd.DataFrame
) -> dict[PanelKey, dict[str, list[Any]]]:
    """Per panel (schema, and k where the schema's arms differ in k:
    :func:`~puzzlekit.app.plots.panels.panel_keys`): each filter reject's top coordinate, every
    cell of each filter MULTIPLE's gap (not only the top one), and every coordinate of each
    holdout reject's detail."""
    filt = attempts[attempts["side"] == "filter"] if len(attempts) else attempts
    hold = (
        puzzles[puzzles["holdoutRejected"].fillna(False).astype(bool)] if len(puzzles) else puzzles
    )
    cols = ["schema", "k"]
    frames = [df[cols] for df in (attempts, puzzles) if len(df) and set(cols) <= set(df.columns)]
    out: dict[PanelKey, dict[str, list[Any]]] = {}
    for key in panel_keys(pd.concat(frames)) if frames else []:
        f, h = panel_rows(filt, key), panel_rows(hold, key)
        top = [_coord(c) for c in f["topCoord"].dropna()] if "topCoord" in f else []
        gap: list[Any] = []
        if "discriminativeGap" in f:
            for items in f["discriminativeGap"].dropna():
                gap += [_coord(item["coord"]) for item in items]
        held: list[Any] = []
        for coords in h["holdoutCoords"].dropna() if "holdoutCoords" in h else []:
            held += [_coord(c) for c in coords]
        out[key] = dict(zip(COORD_PANELS, (top, gap, held), strict=True))
    return out


def grid_shapes(manifest: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Schema label → (rows, columns) of its grid, from the schema itself (every variable's
    coordinate), for the schemas of the manifest's config whose coordinates are 2-D."""
    from puzzlekit.families import get_family

    out: dict[str, tuple[int, int]] = {}
    for spec in manifest.get("config", {}).get("schemas", []):
        try:
            schema = get_family(spec["family"]).schema(spec.get("params", {}))
        except Exception:  # an unreadable schema: its panel is sized from the coordinates
            continue
        coords = [v.coord for v in schema.variables]
        if coords and all(len(c) == 2 and all(isinstance(x, int) for x in c) for c in coords):
            rows = max(c[0] for c in coords) + 1
            cols = max(c[1] for c in coords) + 1
            out[str(spec.get("label"))] = (rows, cols)
    return out


def _coord(value: Any) -> list[int]:
    """A coordinate as read from Parquet (a numpy array) as a list of ints (``tolist``: Python
    ints in one call, not one numpy scalar per element)."""
    if hasattr(value, "tolist"):
        return [int(x) for x in value.tolist()]
    return [int(x) for x in value]


def graded_rows(puzzles: pd.DataFrame) -> pd.DataFrame:
    """Accepted puzzles with a grade (``level`` not null); none for runs without the column."""
    if "level" not in puzzles or "status" not in puzzles:
        return puzzles.iloc[0:0]
    return puzzles[(puzzles["status"] == "accepted") & puzzles["level"].notna()]


Scale = tuple[tuple[str, ...], ...]


def grade_scales(manifest: dict[str, Any]) -> dict[str, Scale]:
    """Schema label → its family's scale of techniques (level = tier index), from the manifest.

    Only schemas of graded families; an unreadable schema is left out (its panel is then labelled
    from the rows' own techniques).
    """
    from puzzlekit.grading.techniques import GRADED_FAMILIES, family_scale

    out: dict[str, Scale] = {}
    for schema in manifest.get("config", {}).get("schemas", []):
        family, label = schema.get("family"), schema.get("label")
        if family not in GRADED_FAMILIES or not isinstance(label, str):
            continue
        try:
            out[label] = family_scale(family, schema.get("params", {}))
        except Exception:  # a schema this version cannot build: fall back to the rows
            continue
    return out


def grade_table(puzzles: pd.DataFrame) -> pd.DataFrame:
    """Per arm (schema × strategy × k × filter: rows started from different k are never pooled):
    accepted, graded, mean clues and level, and how many puzzles have each hardest technique
    (named, not numbered: a level means different techniques in different families), easiest
    first."""
    from puzzlekit.grading.techniques import TIERS

    graded = graded_rows(puzzles)
    if graded.empty:
        return pd.DataFrame()
    keys = ARM
    accepted = puzzles[puzzles["status"] == "accepted"].groupby(keys).size()
    order = {name: i for i, name in enumerate(t for tier in TIERS for t in tier)}
    techniques = sorted(
        graded["technique"].dropna().astype(str).unique(), key=lambda t: (order.get(t, 99), t)
    )
    rows = []
    for key, grp in graded.groupby(keys, sort=True):
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "accepted": int(accepted.get(key, 0)),
                "graded": len(grp),
                "clues_mean": float(grp["clueCount"].mean()),
                "level_mean": float(grp["level"].astype(float).mean()),
                **{t: int((grp["technique"] == t).sum()) for t in techniques},
            }
        )
    return pd.DataFrame(rows)


def settlement_table(
    puzzles: pd.DataFrame, by: Sequence[str] = ("strategy", "filter")
) -> pd.DataFrame:
    """Loops per ``by`` (strategy × filter) × stopping-pipeline kind × escalation target ×
    kernel outcome."""
    cols = ["stopKind", "escalationTarget", "kernelOutcome"]
    if any(c not in puzzles for c in cols) or not puzzles["stopKind"].notna().any():
        return pd.DataFrame()
    return (
        puzzles.fillna({c: "-" for c in cols})
        .groupby([*by, *cols])
        .size()
        .rename("loops")
        .reset_index()
    )


def calls_table(puzzles: pd.DataFrame, by: Sequence[str] = ARM) -> pd.DataFrame:
    """Per ``by`` (an arm: schema × strategy × k × filter): trials, accepted, and quantiles of
    filter calls to acceptance."""
    rows = []
    for key, grp in puzzles.groupby(list(by), sort=True):
        calls = grp.loc[grp["status"] == "accepted", "filterCalls"].astype(float)
        q = calls.quantile([0.25, 0.5, 0.75, 0.9]) if len(calls) else pd.Series(dtype=float)
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "trials": len(grp),
                "accepted": len(calls),
                "p25": q.get(0.25, np.nan),
                "median": q.get(0.5, np.nan),
                "p75": q.get(0.75, np.nan),
                "p90": q.get(0.9, np.nan),
                "max": float(calls.max()) if len(calls) else np.nan,
            }
        )
    return pd.DataFrame(rows)


def top_coords_table(attempts: pd.DataFrame, puzzles: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """The ``n`` most named coordinates per schema and k (the figure's panels, each with its k)
    and kind of reject (ties by coordinate)."""
    rows = []
    one_k = puzzles.groupby("schema")["k"].first() if len(puzzles) else pd.Series(dtype=int)
    for (label, k), panels in reject_coords_by_panel(attempts, puzzles).items():
        for source, coords in panels.items():
            keys = [json.dumps(c, separators=(",", ":")) for c in coords]
            counts = pd.Series(keys, dtype=object).value_counts()
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            for coord, count in ranked[:n]:
                rows.append(
                    {
                        "schema": label,
                        "k": k if k is not None else one_k.get(label),
                        "rejects": source,
                        "coord": coord,
                        "count": int(count),
                        "of": len(coords),
                    }
                )
    return pd.DataFrame(rows)


def expressive_table(puzzles: pd.DataFrame, by: Sequence[str] = ARM) -> pd.DataFrame:
    """Per ``by`` (an arm): accepted and probed puzzles, mean clues and forced cells of the
    expressive-range probe, and the share whose removed clue was redundant."""
    acc = puzzles[puzzles["status"] == "accepted"]
    if "probeForcedCells" not in acc:
        return pd.DataFrame()
    rows = []
    for key, grp in acc.groupby(list(by), sort=True):
        probed = grp[grp["probeForcedCells"].notna()]
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "accepted": len(grp),
                "probed": len(probed),
                "clues_mean": float(probed["clueCount"].mean()) if len(probed) else np.nan,
                "forced_mean": (
                    float(probed["probeForcedCells"].mean()) if len(probed) else np.nan
                ),
                "forced_min": float(probed["probeForcedCells"].min()) if len(probed) else np.nan,
                "removed_clue_redundant": (
                    float((probed["probeVerdict"] == "UNIQUE").mean()) if len(probed) else np.nan
                ),
            }
        )
    return pd.DataFrame(rows)


def holdout_name(manifest: dict[str, Any]) -> str | None:
    """The holdout's backend as the manifest records it (``enumerative``), None without one."""
    held = (manifest.get("verifiers") or {}).get("holdout")
    return held.get("verifier") if isinstance(held, dict) else None


def timing_table(attempts: pd.DataFrame, holdout: str | None = None) -> pd.DataFrame:
    """Seconds per verifier call by side and verifier: the filter's label, the holdout's
    backend ``holdout`` (:func:`holdout_name` of the manifest; "holdout" when unknown)."""
    df = attempts[attempts["seconds"].notna()]
    if df.empty:
        return pd.DataFrame()
    who = df["filter"].where(df["side"] == "filter", holdout or "holdout")
    g = df.assign(verifier=who).groupby(["side", "verifier"])["seconds"]
    return pd.DataFrame(
        {"calls": g.size(), "median_s": g.median(), "p90_s": g.quantile(0.9), "total_s": g.sum()}
    ).reset_index()

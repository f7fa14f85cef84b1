"""The report of a run directory: matplotlib figures (Agg) and ``report/report.md``.

Everything here reads ``attempts.parquet`` and ``puzzles.parquet`` with pandas; every number in
``report.md`` is computed from them, none is typed by hand. The figures: the reject-case
distribution, filter calls to acceptance as a CDF per strategy, where on the grid the rejects
point, the filter × holdout verdict matrix, clue count vs forced cells of accepted puzzles
(expressive range), and escalation targets and kernel outcomes. When some accepted puzzle carries
a grade (``level`` in puzzles.parquet, see :mod:`puzzlekit.app.experiment`), clue count vs grade
level
(:data:`GRADE_FIGURE`, one panel per schema, the level axis labelled by the family's techniques);
without one that figure is not drawn and the report says why. The notebook
``notebooks/reject_distributions.ipynb`` draws the same figures with these functions.

Not for: running trials (:mod:`puzzlekit.app.experiment`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

ARM = ["schema", "strategy", "k", "filter"]


def load_run(run_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """``(attempts, puzzles, manifest)`` of a run directory."""
    run = Path(run_dir)
    attempts = pd.read_parquet(run / "attempts.parquet")
    puzzles = pd.read_parquet(run / "puzzles.parquet")
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    return attempts, puzzles, manifest


def metrics_table(attempts: pd.DataFrame, puzzles: pd.DataFrame) -> pd.DataFrame:
    """One row per arm: trials, accepted, the pre-registrable metrics."""
    rows = []
    for key, grp in puzzles.groupby(ARM, sort=True):
        acc = grp[grp["status"] == "accepted"]
        checked = acc[acc["holdout_verdict"].notna()]
        rows.append(
            {
                **dict(zip(ARM, key, strict=True)),
                "trials": len(grp),
                "accepted": len(acc),
                "accept_rate": len(acc) / len(grp) if len(grp) else np.nan,
                "holdout_reject_rate": (
                    float(checked["holdout_rejected"].mean()) if len(checked) else np.nan
                ),
                "calls_per_accept_mean": float(acc["filter_calls"].mean()) if len(acc) else np.nan,
                "calls_per_accept_median": (
                    float(acc["filter_calls"].median()) if len(acc) else np.nan
                ),
                "final_clues_mean": float(acc["clue_count"].mean()) if len(acc) else np.nan,
            }
        )
    return pd.DataFrame(rows)


def reject_case_table(attempts: pd.DataFrame) -> pd.DataFrame:
    """Share of each reject case among filter rejects, per strategy × filter."""
    rej = attempts[(attempts["side"] == "filter") & attempts["reject_case"].notna()]
    if rej.empty:
        return pd.DataFrame()
    counts = rej.groupby(["strategy", "filter", "reject_case"]).size().unstack(fill_value=0)
    return counts.div(counts.sum(axis=1), axis=0)


def plot_calls_vs_clues(puzzles: pd.DataFrame, path: Path) -> None:
    acc = puzzles[puzzles["status"] == "accepted"]
    fig, ax = plt.subplots(figsize=(6, 4))
    for (strategy, filt), grp in acc.groupby(["strategy", "filter"], sort=True):
        ax.scatter(
            grp["clue_count"], grp["filter_calls"], s=14, alpha=0.6, label=f"{strategy}/{filt}"
        )
    ax.set_xlabel("final clue count")
    ax.set_ylabel("filter calls to acceptance")
    ax.set_yscale("log")
    ax.set_title("Filter calls per accepted puzzle")
    if len(acc):
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_reject_cases(attempts: pd.DataFrame, path: Path) -> None:
    table = reject_case_table(attempts)
    fig, ax = plt.subplots(figsize=(6, 4))
    if table.empty:
        ax.text(0.5, 0.5, "no filter rejects", ha="center", va="center")
    else:
        labels = [f"{s}/{f}" for s, f in table.index]
        bottom = np.zeros(len(table))
        for case in table.columns:
            ax.bar(labels, table[case].to_numpy(), bottom=bottom, label=case)
            bottom += table[case].to_numpy()
        ax.set_ylabel("share of filter rejects")
        ax.legend(fontsize=7)
        ax.tick_params(axis="x", labelsize=7, rotation=20)
    ax.set_title("Reject cases per strategy / filter")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_calls_cdf(puzzles: pd.DataFrame, path: Path) -> None:
    """Share of trials accepted within n filter calls, one step line per strategy (× filter).

    Exhausted trials count in the denominator and never step up, so a line ends at the arm's
    accept rate, not at 1.
    """
    fig, ax = plt.subplots(figsize=(6, 4))
    groups = ["strategy", "filter"] if puzzles["filter"].nunique() > 1 else ["strategy"]
    for key, grp in puzzles.groupby(groups, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        calls = np.sort(grp.loc[grp["status"] == "accepted", "filter_calls"].to_numpy())
        if not len(grp):
            continue
        xs = np.concatenate([[0], calls])
        ys = np.arange(len(xs)) / len(grp)
        ax.step(xs, ys, where="post", label="/".join(map(str, key)) + f" (n={len(grp)})")
    ax.set_xscale("symlog", linthresh=10)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("filter calls")
    ax.set_ylabel("share of trials accepted")
    ax.set_title("Filter calls to acceptance (CDF, all k pooled)")
    if len(puzzles):
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def verdict_matrix(puzzles: pd.DataFrame) -> pd.DataFrame:
    """Filter-accepted puzzles counted by (strategy, filter) × holdout verdict."""
    acc = puzzles[(puzzles["status"] == "accepted") & puzzles["holdout_verdict"].notna()]
    if acc.empty:
        return pd.DataFrame()
    return pd.crosstab([acc["strategy"], acc["filter"]], acc["holdout_verdict"])


def plot_verdict_matrix(puzzles: pd.DataFrame, path: Path) -> None:
    table = verdict_matrix(puzzles)
    fig, ax = plt.subplots(figsize=(5.5, 0.6 + 0.45 * max(len(table), 2)))
    if table.empty:
        ax.text(0.5, 0.5, "no holdout verdicts", ha="center", va="center")
    else:
        share = table.div(table.sum(axis=1), axis=0).to_numpy(dtype=float)
        ax.imshow(share, vmin=0, vmax=1, cmap="Blues", aspect="auto")
        ax.set_xticks(range(len(table.columns)), table.columns, fontsize=8)
        ax.set_yticks(range(len(table.index)), [f"{s}/{f}" for s, f in table.index], fontsize=8)
        for i in range(table.shape[0]):
            for j in range(table.shape[1]):
                ax.text(j, i, str(table.iat[i, j]), ha="center", va="center", fontsize=8)
        ax.set_xlabel("holdout verdict")
    ax.set_title("Filter-accepted puzzles × holdout verdict")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_holdout_reject_rate(puzzles: pd.DataFrame, path: Path) -> None:
    acc = puzzles[(puzzles["status"] == "accepted") & puzzles["holdout_verdict"].notna()]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    if acc.empty:
        ax.text(0.5, 0.5, "no holdout verdicts", ha="center", va="center")
    else:
        rate = acc.groupby(["strategy", "filter"])["holdout_rejected"].mean().unstack()
        im = ax.imshow(rate.to_numpy(dtype=float), vmin=0, vmax=1, cmap="Reds")
        ax.set_xticks(range(len(rate.columns)), rate.columns, fontsize=8)
        ax.set_yticks(range(len(rate.index)), rate.index, fontsize=8)
        for i in range(rate.shape[0]):
            for j in range(rate.shape[1]):
                v = rate.iat[i, j]
                if pd.notna(v):
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8)
        fig.colorbar(im, ax=ax)
    ax.set_title("Holdout reject rate (filter-accepted)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _grid_counts(coords: list[Any]) -> np.ndarray | None:
    grid = [c for c in coords if len(c) == 2 and all(isinstance(x, int) for x in c)]
    if not grid:
        return None
    counts = np.zeros((max(r for r, _ in grid) + 1, max(c for _, c in grid) + 1))
    for r, c in grid:
        counts[r, c] += 1
    return counts


def reject_coords(attempts: pd.DataFrame, puzzles: pd.DataFrame) -> dict[str, list[Any]]:
    """Coordinates named in rejects: each filter reject's top coordinate, and every coordinate
    of each holdout reject's detail."""
    filt = attempts[(attempts["side"] == "filter") & attempts["top_coord"].notna()]
    hold = puzzles[puzzles["holdout_rejected"].fillna(False).astype(bool)]
    held: list[Any] = []
    for text in hold["holdout_coords"].dropna():
        held += json.loads(text)
    return {
        "filter rejects (top coordinate)": [json.loads(c) for c in filt["top_coord"]],
        "holdout rejects (all coordinates)": held,
    }


def plot_coord_heatmap(attempts: pd.DataFrame, puzzles: pd.DataFrame, path: Path) -> None:
    panels = reject_coords(attempts, puzzles)
    fig, axes = plt.subplots(1, len(panels), figsize=(9, 4))
    for ax, (title, coords) in zip(axes, panels.items(), strict=True):
        counts = _grid_counts(coords)
        if counts is None:
            ax.text(0.5, 0.5, "no grid coordinates", ha="center", va="center")
            ax.set_xticks([])
            ax.set_yticks([])
        else:
            im = ax.imshow(counts, cmap="viridis")
            ax.set_xticks(range(counts.shape[1]))
            ax.set_yticks(range(counts.shape[0]))
            ax.tick_params(labelsize=7)
            ax.set_xlabel("column (0-based)")
            ax.set_ylabel("row (0-based)")
            fig.colorbar(im, ax=ax, shrink=0.8)
        ax.set_title(f"{title}\nn={len(coords)}", fontsize=9)
    fig.suptitle("Coordinates named in rejects")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_expressive_range(puzzles: pd.DataFrame, path: Path) -> None:
    """Accepted puzzles: clue count × cells still forced with one (seeded) clue removed."""
    acc = puzzles[(puzzles["status"] == "accepted")]
    if "probe_forced_cells" in acc:
        acc = acc[acc["probe_forced_cells"].notna()]
    else:
        acc = acc.iloc[0:0]
    fig, ax = plt.subplots(figsize=(6, 4))
    if acc.empty:
        ax.text(0.5, 0.5, "no probed accepted puzzles", ha="center", va="center")
    else:
        rng = np.random.default_rng(0)  # jitter only, so equal points stay visible
        for (strategy, filt), grp in acc.groupby(["strategy", "filter"], sort=True):
            x = grp["clue_count"].to_numpy(dtype=float) + rng.uniform(-0.25, 0.25, len(grp))
            y = grp["probe_forced_cells"].to_numpy(dtype=float)
            ax.scatter(x, y, s=12, alpha=0.5, label=f"{strategy}/{filt} (n={len(grp)})")
        ax.legend(fontsize=7)
    ax.set_xlabel("clue count of the accepted puzzle")
    ax.set_ylabel("cells forced after removing one clue")
    ax.set_title("Expressive range of accepted puzzles")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


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


def _level_labels(grp: pd.DataFrame, scale: Scale | None) -> dict[int, str]:
    """Tick label per level: the scale's tier (``pointing/box-line``), else the rows' techniques."""
    if scale:
        return {i: "/".join(tier) for i, tier in enumerate(scale)}
    seen: dict[int, set[str]] = {}
    for level, technique in zip(grp["level"], grp["technique"], strict=True):
        if pd.notna(technique):
            seen.setdefault(int(level), set()).add(str(technique))
    return {lv: "/".join(sorted(names)) for lv, names in seen.items()}


def plot_grade_range(
    puzzles: pd.DataFrame, path: Path, scales: dict[str, Scale] | None = None
) -> bool:
    """Clue count (x) vs grade level (y) of graded accepted puzzles; ``False``, no file, if none.

    One panel per schema (so one family, whose technique names label the level axis; ``scales``
    maps a schema label to its scale, see :func:`grade_scales`), one colour per strategy (× filter
    when the run has several), points jittered so equal puzzles stay visible.
    """
    graded = graded_rows(puzzles)
    path.unlink(missing_ok=True)  # a stale figure of an earlier report must not remain
    if graded.empty:
        return False
    scales = scales or {}
    schemas = sorted(graded["schema"].unique())
    ncols = min(len(schemas), 3)
    nrows = -(-len(schemas) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.5 * ncols, 4.2 * nrows), squeeze=False)
    by = ["strategy", "filter"] if puzzles["filter"].nunique() > 1 else ["strategy"]
    rng = np.random.default_rng(0)  # jitter only
    for ax, schema in zip(axes.flat, schemas, strict=False):
        grp = graded[graded["schema"] == schema]
        for key, sub in grp.groupby(by, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            x = sub["clue_count"].to_numpy(dtype=float) + rng.uniform(-0.25, 0.25, len(sub))
            y = sub["level"].to_numpy(dtype=float) + rng.uniform(-0.15, 0.15, len(sub))
            label = "/".join(map(str, key)) + f" (n={len(sub)})"
            ax.scatter(x, y, s=14, alpha=0.55, label=label)
        labels = _level_labels(grp, scales.get(schema))
        levels = grp["level"].astype(int)
        top = max(max(labels, default=0), int(levels.max()))
        ticks = range(0, top + 1)
        ax.set_yticks(list(ticks), [f"{lv} {labels.get(lv, '')}".strip() for lv in ticks])
        ax.set_ylim(-0.5, top + 0.5)
        ax.tick_params(axis="y", labelsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("clue count of the accepted puzzle")
        ax.set_ylabel("grade level (hardest technique)")
        ax.set_title(f"{schema} (n={len(grp)})", fontsize=9)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(schemas) :]:
        ax.set_visible(False)
    fig.suptitle("Expressive range: clue count vs grade level of accepted puzzles")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def grade_table(puzzles: pd.DataFrame) -> pd.DataFrame:
    """Per schema × strategy × filter: accepted, graded, mean clues and level, and how many
    puzzles have each hardest technique (named, not numbered: a level means different
    techniques in different families), easiest first."""
    from puzzlekit.grading.techniques import TIERS

    graded = graded_rows(puzzles)
    if graded.empty:
        return pd.DataFrame()
    keys = ["schema", "strategy", "filter"]
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
                "clues_mean": float(grp["clue_count"].mean()),
                "level_mean": float(grp["level"].astype(float).mean()),
                **{t: int((grp["technique"] == t).sum()) for t in techniques},
            }
        )
    return pd.DataFrame(rows)


def settlement_table(puzzles: pd.DataFrame) -> pd.DataFrame:
    """Loops per strategy × filter × stopping-pipeline kind × escalation target × kernel outcome."""
    cols = ["pipeline_kind", "escalation_target", "kernel_outcome"]
    if any(c not in puzzles for c in cols) or not puzzles["pipeline_kind"].notna().any():
        return pd.DataFrame()
    return (
        puzzles.fillna({c: "-" for c in cols})
        .groupby(["strategy", "filter", *cols])
        .size()
        .rename("loops")
        .reset_index()
    )


def plot_settlement(puzzles: pd.DataFrame, path: Path) -> None:
    table = settlement_table(puzzles)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    if table.empty:
        for ax in axes:
            ax.text(0.5, 0.5, "no settlements", ha="center", va="center")
    else:
        table = table.assign(arm=table["strategy"] + "/" + table["filter"])
        for ax, col, title in (
            (axes[0], "escalation_target", "Escalation targets"),
            (axes[1], "kernel_outcome", "Kernel outcomes"),
        ):
            counts = table.groupby(["arm", col])["loops"].sum().unstack(fill_value=0)
            bottom = np.zeros(len(counts))
            for value in counts.columns:
                label = "(not settled here)" if value == "-" else str(value)
                ax.barh(counts.index, counts[value].to_numpy(), left=bottom, label=label)
                bottom += counts[value].to_numpy()
            ax.set_xlabel("loops")
            ax.set_title(title)
            ax.tick_params(axis="y", labelsize=7)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


FIGURES = {
    "reject_cases.png": "Reject-case distribution per strategy / filter",
    "calls_cdf.png": "Filter calls to acceptance (CDF per strategy)",
    "calls_vs_clues.png": "Filter calls per accepted puzzle vs final clue count",
    "reject_coords.png": "Coordinates named in rejects",
    "verdict_matrix.png": "Filter × holdout verdict matrix",
    "holdout_reject_rate.png": "Holdout reject rate per strategy × filter",
    "expressive_range.png": "Clue count vs forced cells (expressive range)",
    "settlement.png": "Escalation targets and kernel outcomes",
}
#: drawn only when some accepted puzzle has a grade (:func:`plot_grade_range`)
GRADE_FIGURE = "grade_range.png"
GRADE_FIGURE_TITLE = "Clue count vs grade level (expressive range)"


def draw_figures(
    attempts: pd.DataFrame,
    puzzles: pd.DataFrame,
    out: Path,
    scales: dict[str, Scale] | None = None,
) -> list[str]:
    """Every figure of :data:`FIGURES` into ``out``, and :data:`GRADE_FIGURE` when some puzzle
    has a grade; the names of the figures drawn."""
    plot_reject_cases(attempts, out / "reject_cases.png")
    plot_calls_cdf(puzzles, out / "calls_cdf.png")
    plot_calls_vs_clues(puzzles, out / "calls_vs_clues.png")
    plot_coord_heatmap(attempts, puzzles, out / "reject_coords.png")
    plot_verdict_matrix(puzzles, out / "verdict_matrix.png")
    plot_holdout_reject_rate(puzzles, out / "holdout_reject_rate.png")
    plot_expressive_range(puzzles, out / "expressive_range.png")
    plot_settlement(puzzles, out / "settlement.png")
    drawn = list(FIGURES)
    if plot_grade_range(puzzles, out / GRADE_FIGURE, scales):
        drawn.append(GRADE_FIGURE)
    return drawn


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if np.isnan(value):
            return "–"
        return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"
    return str(value)


def _md_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "(no rows)\n"
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def calls_table(puzzles: pd.DataFrame) -> pd.DataFrame:
    """Per strategy × filter: trials, accepted, and quantiles of filter calls to acceptance."""
    rows = []
    for (strategy, filt), grp in puzzles.groupby(["strategy", "filter"], sort=True):
        calls = grp.loc[grp["status"] == "accepted", "filter_calls"].astype(float)
        q = calls.quantile([0.25, 0.5, 0.75, 0.9]) if len(calls) else pd.Series(dtype=float)
        rows.append(
            {
                "strategy": strategy,
                "filter": filt,
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
    rows = []
    for source, coords in reject_coords(attempts, puzzles).items():
        counts = pd.Series([json.dumps(c, separators=(",", ":")) for c in coords]).value_counts()
        for coord, count in counts.head(n).items():
            rows.append({"rejects": source, "coord": coord, "count": int(count), "of": len(coords)})
    return pd.DataFrame(rows)


def expressive_table(puzzles: pd.DataFrame) -> pd.DataFrame:
    acc = puzzles[puzzles["status"] == "accepted"]
    if "probe_forced_cells" not in acc:
        return pd.DataFrame()
    rows = []
    for (strategy, filt), grp in acc.groupby(["strategy", "filter"], sort=True):
        probed = grp[grp["probe_forced_cells"].notna()]
        rows.append(
            {
                "strategy": strategy,
                "filter": filt,
                "accepted": len(grp),
                "probed": len(probed),
                "clues_mean": float(probed["clue_count"].mean()) if len(probed) else np.nan,
                "forced_mean": (
                    float(probed["probe_forced_cells"].mean()) if len(probed) else np.nan
                ),
                "forced_min": float(probed["probe_forced_cells"].min()) if len(probed) else np.nan,
                "removed_clue_redundant": (
                    float((probed["probe_verdict"] == "UNIQUE").mean()) if len(probed) else np.nan
                ),
            }
        )
    return pd.DataFrame(rows)


def timing_table(attempts: pd.DataFrame) -> pd.DataFrame:
    """Seconds per verifier call by side and verifier label (filter label, or the holdout)."""
    df = attempts[attempts["seconds"].notna()]
    if df.empty:
        return pd.DataFrame()
    who = df["filter"].where(df["side"] == "filter", "holdout")
    g = df.assign(verifier=who).groupby(["side", "verifier"])["seconds"]
    return pd.DataFrame(
        {"calls": g.size(), "median_s": g.median(), "p90_s": g.quantile(0.9), "total_s": g.sum()}
    ).reset_index()


def write_report(run_dir: str | Path) -> Path:
    """Draw the figures and write ``report/report.md``; returns its path.

    Every number in the report is computed here from ``attempts.parquet``, ``puzzles.parquet``
    and ``manifest.json``.
    """
    run = Path(run_dir)
    attempts, puzzles, manifest = load_run(run)
    out = run / "report"
    out.mkdir(exist_ok=True)
    drawn = draw_figures(attempts, puzzles, out, grade_scales(manifest))

    pre = manifest.get("preregistration", {})
    metrics: Sequence[str] = pre.get("metrics", [])
    table = metrics_table(attempts, puzzles)
    scalar = [m for m in metrics if m in table.columns]
    n_filter = int((attempts["side"] == "filter").sum()) if len(attempts) else 0
    n_hold = int((attempts["side"] == "holdout").sum()) if len(attempts) else 0
    accepted = int((puzzles["status"] == "accepted").sum()) if len(puzzles) else 0

    def fig(name: str) -> list[str]:
        title = GRADE_FIGURE_TITLE if name == GRADE_FIGURE else FIGURES[name]
        return [f"![{title}]({name})", ""]

    lines = [
        f"# Run {manifest.get('name', run.name)}",
        "",
        manifest.get("description", ""),
        "",
        f"- config `{manifest.get('configPath')}`, digest `{manifest.get('configDigest')}`",
        f"- git revision `{manifest.get('gitRevision')}` (local changes: "
        f"{manifest.get('gitDirty')}); executor {manifest.get('executor')}, "
        f"{manifest.get('workers')} workers; {manifest.get('start')} to {manifest.get('end')}",
        f"- {len(puzzles)} trials, {accepted} accepted by the filter; {n_filter} filter calls, "
        f"{n_hold} holdout calls",
        "",
        "## Pre-registered hypotheses",
        "",
        *[f"- {h}" for h in pre.get("hypotheses", [])],
        "",
        "## Pre-registered metrics (per arm)",
        "",
        _md_table(table[[*ARM, "trials", "accepted", *scalar]] if len(table) else table),
        "## Reject-case distribution",
        "",
        "Share of each reject case among the filter's rejects, per strategy / filter.",
        "",
        *fig("reject_cases.png"),
    ]
    cases = reject_case_table(attempts)
    lines.append(_md_table(cases.reset_index()) if not cases.empty else "(no rejects)\n")
    lines += [
        "## Filter calls to acceptance",
        "",
        "Share of trials accepted within n filter calls (all k pooled); exhausted trials stay in "
        "the denominator, so a line ends at the accept rate.",
        "",
        *fig("calls_cdf.png"),
        _md_table(calls_table(puzzles)),
        *fig("calls_vs_clues.png"),
        "## Coordinates named in rejects",
        "",
        "Left: the top coordinate of each filter reject (the most discriminative cell of a "
        "MULTIPLE, the first clue of an UNSOLVABLE conflict). Right: every coordinate named in "
        "the holdout's rejects of filter-accepted puzzles.",
        "",
        *fig("reject_coords.png"),
        _md_table(top_coords_table(attempts, puzzles)),
        "## Filter × holdout verdicts",
        "",
        "Filter-accepted puzzles by the holdout's verdict (counts; the colour is the row share).",
        "",
        *fig("verdict_matrix.png"),
    ]
    vm = verdict_matrix(puzzles)
    lines.append(_md_table(vm.reset_index()) if not vm.empty else "(no holdout verdicts)\n")
    hold_rej = puzzles[puzzles["holdout_rejected"].fillna(False).astype(bool)]
    with_coords = int((hold_rej["holdout_coords"].fillna("[]") != "[]").sum())
    lines += [
        f"Holdout rejects: {len(hold_rej)}, of which {with_coords} name coordinates.",
        "",
        *fig("holdout_reject_rate.png"),
        "## Expressive range: clue count vs forced cells",
        "",
        "An accepted puzzle forces every cell, so its own backbone is uninformative. Each "
        "accepted puzzle is probed instead: one clue, chosen by the trial's seed, is removed and "
        "the rest verified by the exact sat verifier, whose `forcedCells` stat is the backbone "
        "(cells with one value in every solution, clue cells included; every cell when the "
        "removed clue was redundant). Few forced cells: the puzzle hangs on each clue; many: it "
        "has slack. The probe is a measurement, outside the filter's budget "
        "(`probe_forced_cells` in puzzles.parquet; the filter's own `forcedCells` on each "
        "MULTIPLE attempt is `forced_cells` in attempts.parquet).",
        "",
        *fig("expressive_range.png"),
        _md_table(expressive_table(puzzles)),
        "## Expressive range: clue count vs grade",
        "",
        "Each accepted puzzle of a graded family is graded by the logical solver of "
        "`puzzlekit.grading.techniques` (techniques only): `level` is the tier of the hardest "
        "technique it "
        "needs (0 = easiest; `search` when the techniques got stuck), `technique` that "
        "technique. A puzzle the techniques cannot finish (also one that is not unique, e.g. "
        "accepted by a faulty filter) gets the last tier. Levels name different techniques in "
        "different families, so there is one panel per schema, its level axis labelled by the "
        "family's techniques; points are jittered. Columns `level` and `technique` of "
        "puzzles.parquet; `grade = false` in the config turns grading off.",
        "",
    ]
    if GRADE_FIGURE in drawn:
        lines += [*fig(GRADE_FIGURE), _md_table(grade_table(puzzles))]
        acc_schemas = puzzles.loc[puzzles["status"] == "accepted", "schema"].unique()
        ungraded = sorted(set(acc_schemas) - set(graded_rows(puzzles)["schema"].unique()))
        if ungraded:
            lines += [f"Schemas without grades: {', '.join(ungraded)}.", ""]
    else:
        lines += [
            "Note: no accepted puzzle has a grade (no graded family among the schemas, no "
            "accepted puzzle, `grade = false` in the config, or a run from before grading), so "
            "this figure is not drawn.",
            "",
        ]
    lines += [
        "## Escalation targets and kernel outcomes",
        "",
        "Each loop outcome settled by the stopping pipeline (kind), its escalation target and "
        "the review kernel's outcome.",
        "",
        *fig("settlement.png"),
    ]
    settled = settlement_table(puzzles)
    lines.append(_md_table(settled) if not settled.empty else "(no settlements)\n")
    lines += [
        "## Verifier time",
        "",
        "Seconds per call (holdout calls include the pipe to its process).",
        "",
        _md_table(timing_table(attempts)),
    ]
    report = out / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    return report

"""The report of a run directory: matplotlib figures (Agg) and ``report/summary.md``.

Everything here reads ``attempts.parquet`` and ``puzzles.parquet`` with pandas; every number in
``summary.md`` is computed from them, none is typed by hand. The figures are the ones a
researcher draws anyway: filter calls per accepted puzzle against the final clue count, the
reject-case distribution, the holdout reject rate per strategy × filter, and where on the grid
the rejects point.

Not for: running trials (:mod:`puzzlekit.experiment`).
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


def plot_coord_heatmap(attempts: pd.DataFrame, path: Path) -> None:
    coords = [json.loads(c) for c in attempts["top_coord"].dropna()]
    grid = [c for c in coords if len(c) == 2 and all(isinstance(x, int) for x in c)]
    fig, ax = plt.subplots(figsize=(4.5, 4))
    if not grid:
        ax.text(0.5, 0.5, "no grid coordinates", ha="center", va="center")
    else:
        rows = max(r for r, _ in grid) + 1
        cols = max(c for _, c in grid) + 1
        counts = np.zeros((rows, cols))
        for r, c in grid:
            counts[r, c] += 1
        im = ax.imshow(counts, cmap="viridis")
        fig.colorbar(im, ax=ax)
    ax.set_title("Top coordinates named in rejects")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


FIGURES = {
    "calls_vs_clues.png": ("Filter calls per accepted puzzle vs final clue count", "puzzles"),
    "reject_cases.png": ("Reject-case distribution", "attempts"),
    "holdout_reject_rate.png": ("Holdout reject rate per strategy × filter", "puzzles"),
    "reject_coords.png": ("Coordinates named in rejects", "attempts"),
}


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "–" if np.isnan(value) else f"{value:.3g}"
    return str(value)


def _md_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "(no rows)\n"
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def write_report(run_dir: str | Path) -> Path:
    """Draw the figures and write ``report/summary.md``; returns the summary's path."""
    run = Path(run_dir)
    attempts, puzzles, manifest = load_run(run)
    out = run / "report"
    out.mkdir(exist_ok=True)
    plot_calls_vs_clues(puzzles, out / "calls_vs_clues.png")
    plot_reject_cases(attempts, out / "reject_cases.png")
    plot_holdout_reject_rate(puzzles, out / "holdout_reject_rate.png")
    plot_coord_heatmap(attempts, out / "reject_coords.png")

    pre = manifest.get("preregistration", {})
    metrics: Sequence[str] = pre.get("metrics", [])
    table = metrics_table(attempts, puzzles)
    scalar = [m for m in metrics if m in table.columns]
    lines = [
        f"# Run {manifest.get('name', run.name)}",
        "",
        f"Config digest `{manifest.get('configDigest')}`; git revision "
        f"`{manifest.get('gitRevision')}`; {len(puzzles)} trials, {len(attempts)} verifier calls.",
        "",
        "## Pre-registered hypotheses",
        "",
        *[f"- {h}" for h in pre.get("hypotheses", [])],
        "",
        "## Pre-registered metrics",
        "",
        _md_table(table[[*ARM, "trials", "accepted", *scalar]] if len(table) else table),
    ]
    if "reject_cases" in metrics:
        cases = reject_case_table(attempts)
        lines += ["### Reject cases (share of filter rejects)", ""]
        lines.append(_md_table(cases.reset_index()) if not cases.empty else "(no rejects)\n")
    if "pipeline_kind" in puzzles and puzzles["pipeline_kind"].notna().any():
        settled = (
            puzzles.fillna({"kernel_outcome": "-", "escalation_target": "-"})
            .groupby(["strategy", "filter", "pipeline_kind", "escalation_target", "kernel_outcome"])
            .size()
            .rename("loops")
            .reset_index()
        )
        lines += ["## Stopping pipeline and kernel", "", _md_table(settled)]
    lines += ["## Figures", ""]
    for name, (title, _) in FIGURES.items():
        lines += [f"### {title}", "", f"![{title}]({name})", ""]
    summary = out / "summary.md"
    summary.write_text("\n".join(lines), encoding="utf-8")
    return summary

"""The figures of a run's report (matplotlib), drawn from its Parquet rows.

The reject-case distribution, filter calls to acceptance as a CDF per strategy, where on the
grid the rejects point, the filter × holdout verdict matrix and holdout reject rate, clue count
vs forced cells of accepted puzzles (expressive range), escalation targets and kernel outcomes
(:data:`FIGURES`), and, when some accepted puzzle carries a grade, clue count vs grade level
(:data:`GRADE_FIGURE`, one panel per schema (and k), the level axis labelled by the family's
techniques).

Figures are :class:`matplotlib.figure.Figure` objects, one panel per schema, per schema and k
where the schema's arms differ in k (:mod:`~puzzlekit.app.plots.panels`), laid out from their
text and saved in one draw (:mod:`~puzzlekit.app.plots.layout`; each ``plot_*`` returns the
figure it saved), and never go through pyplot: importing this module selects no backend, so
a notebook keeps drawing inline.

Not for: the tables (:mod:`puzzlekit.app.plots.tables`) or the Markdown
(:mod:`puzzlekit.app.plots.report`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter

from puzzlekit.app.plots.layout import CALL_TICKS, grid, integer_ticks, log_call_ticks, save
from puzzlekit.app.plots.panels import (
    FIGURE_FORMATS,
    arm_keys,
    arm_label,
    by_panel,
    panel_grid,
    panel_keys,
    panel_label,
    panel_rows,
    say,
    titled,
)
from puzzlekit.app.plots.pool import Job, draw_all
from puzzlekit.app.plots.tables import (
    COORD_PANELS,
    Scale,
    graded_rows,
    reject_case_table,
    reject_coords_by_panel,
    settlement_table,
    verdict_matrix,
)


def plot_calls_vs_clues(puzzles: pd.DataFrame, path: Path) -> Figure:
    """Accepted puzzles: final clue count × filter calls, one panel per schema (and k)."""
    acc = puzzles[puzzles["status"] == "accepted"]
    groups = by_panel(acc, puzzles)
    fig, axes = panel_grid(len(groups), 6, 4)
    for ax, (label, grp) in zip(axes, groups, strict=True):
        ax.set_title(titled(label, f"filter calls per accepted puzzle (n={len(grp)})"), fontsize=9)
        if grp.empty:
            say(ax, "no accepted puzzles in this run")
            continue
        keys = arm_keys(grp)
        for key, sub in grp.groupby(keys, sort=True):
            ax.scatter(
                sub["clueCount"], sub["filterCalls"], s=14, alpha=0.6, label=arm_label(key, keys)
            )
        ax.set_xlabel("final clue count")
        ax.set_ylabel("filter calls to acceptance")
        log_call_ticks(ax, grp["filterCalls"].to_numpy(dtype=float))
        ax.legend(fontsize=7)
    return save(fig, path)


def _one_bar(table: pd.DataFrame) -> tuple[str, str] | None:
    """(whose, column) when ``table`` (arms × values) has one non-zero column: every bar would
    be one colour, all of it. ``whose`` names the arm when there is one, else ``every arm``."""
    nonzero = [c for c in table.columns if (table[c] > 0).any()]
    if len(nonzero) != 1:
        return None
    return (str(table.index[0]) if len(table) == 1 else "every arm"), str(nonzero[0])


def plot_reject_cases(attempts: pd.DataFrame, path: Path) -> Figure:
    """Share of each reject case among the filter's rejects, per arm, one panel per schema (and
    k)."""
    rej = attempts[(attempts["side"] == "filter") & attempts["rejectCase"].notna()]
    groups = by_panel(rej, attempts)
    fig, axes = panel_grid(len(groups), 6, 4)
    for ax, (label, grp) in zip(axes, groups, strict=True):
        ax.set_title(titled(label, f"reject cases (n={len(grp)} filter rejects)"), fontsize=9)
        if grp.empty:
            say(ax, "no filter rejects in this run")
            continue
        keys = arm_keys(grp)
        table = reject_case_table(grp, keys)
        table.index = [arm_label(k, keys) for k in table.index]
        one = _one_bar(table)
        if one:
            say(ax, f"every filter reject of {one[0]} is {one[1]} ({len(grp)} rejects)")
            continue
        bottom = np.zeros(len(table))
        for case in table.columns:
            ax.bar(list(table.index), table[case].to_numpy(), bottom=bottom, label=case)
            bottom += table[case].to_numpy()
        ax.set_ylabel("share of filter rejects")
        ax.legend(fontsize=7)
        ax.tick_params(axis="x", labelsize=7, rotation=20)
    return save(fig, path)


def plot_calls_cdf(puzzles: pd.DataFrame, path: Path) -> Figure:
    """Share of trials accepted within n filter calls, one panel per schema (per schema and k
    where the schema's arms differ in k), one step line per arm (strategy, × filter where there
    are several).

    Exhausted trials count in the denominator and never step up, so a line ends at the arm's
    accept rate, not at 1.
    """
    groups = by_panel(puzzles)
    fig, axes = panel_grid(len(groups), 6, 4)
    for ax, (label, grp) in zip(axes, groups, strict=True):
        ax.set_title(titled(label, "filter calls to acceptance (CDF)"), fontsize=9)
        if grp.empty:
            say(ax, "no trials in this run")
            continue
        keys = arm_keys(grp)
        for key, sub in grp.groupby(keys, sort=True):
            calls = np.sort(sub.loc[sub["status"] == "accepted", "filterCalls"].to_numpy())
            xs = np.concatenate([[0], calls])
            ys = np.arange(len(xs)) / len(sub)
            ax.step(xs, ys, where="post", label=f"{arm_label(key, keys)} (n={len(sub)})")
        ax.set_xscale("symlog", linthresh=10)
        top = max(10, int(grp["filterCalls"].fillna(0).max()))
        ax.set_xticks([t for t in CALL_TICKS if t <= top * 1.05])
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("filter calls")
        ax.set_ylabel("share of trials accepted")
        ax.legend(fontsize=7)
    return save(fig, path)


def plot_verdict_matrix(puzzles: pd.DataFrame, path: Path) -> Figure:
    """Filter-accepted puzzles by arm × holdout verdict, one panel per schema (and k)."""
    groups = by_panel(puzzles)
    height = 0.9 + 0.45 * max([2] + [len(g.groupby(arm_keys(g))) for _, g in groups if len(g)])
    fig, axes = panel_grid(len(groups), 5.5, height)
    for ax, (label, grp) in zip(axes, groups, strict=True):
        ax.set_title(titled(label, "filter-accepted puzzles × holdout verdict"), fontsize=9)
        keys = arm_keys(grp) if len(grp) else ["strategy"]
        table = verdict_matrix(grp, keys) if len(grp) else pd.DataFrame()
        if table.empty:
            say(ax, "no holdout verdicts in this run")
            continue
        share = table.div(table.sum(axis=1), axis=0).to_numpy(dtype=float)
        ax.imshow(share, vmin=0, vmax=1, cmap="Blues", aspect="auto")
        ax.set_xticks(range(len(table.columns)), table.columns, fontsize=8)
        ax.set_yticks(
            range(len(table.index)), [arm_label(k, keys) for k in table.index], fontsize=8
        )
        for i in range(table.shape[0]):
            for j in range(table.shape[1]):
                ax.text(j, i, str(table.iat[i, j]), ha="center", va="center", fontsize=8)
        ax.set_xlabel("holdout verdict")
    return save(fig, path)


def plot_holdout_reject_rate(puzzles: pd.DataFrame, path: Path) -> Figure:
    """The holdout's reject rate of filter-accepted puzzles, arm × filter, one panel per schema
    (and k)."""
    acc = puzzles[(puzzles["status"] == "accepted") & puzzles["holdoutVerdict"].notna()]
    groups = by_panel(acc, puzzles)
    fig, axes = panel_grid(len(groups), 5, 3.5)
    for ax, (label, grp) in zip(axes, groups, strict=True):
        ax.set_title(titled(label, f"holdout reject rate (n={len(grp)} accepted)"), fontsize=9)
        if grp.empty:
            say(ax, "no holdout verdicts in this run")
            continue
        keys = [k for k in arm_keys(grp) if k != "filter"]
        rate = grp.groupby([*keys, "filter"])["holdoutRejected"].mean().unstack()
        im = ax.imshow(rate.to_numpy(dtype=float), vmin=0, vmax=1, cmap="Reds")
        ax.set_xticks(range(len(rate.columns)), rate.columns, fontsize=8)
        ax.set_yticks(range(len(rate.index)), [arm_label(k, keys) for k in rate.index], fontsize=8)
        for i in range(rate.shape[0]):
            for j in range(rate.shape[1]):
                v = rate.iat[i, j]
                if pd.notna(v):
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8)
        fig.colorbar(im, ax=ax)
    return save(fig, path)


def _grid_counts(coords: list[Any], shape: tuple[int, int] | None = None) -> np.ndarray | None:
    """Counts per cell of the 2-D coordinates, on a grid of ``shape`` (the schema's size; from
    the largest coordinate seen only when the schema's size is unknown)."""
    grid = [c for c in coords if len(c) == 2 and all(isinstance(x, int) for x in c)]
    if shape is None:
        if not grid:
            return None
        shape = (max(r for r, _ in grid) + 1, max(c for _, c in grid) + 1)
    counts = np.zeros(shape)
    for r, c in grid:
        if r < shape[0] and c < shape[1]:
            counts[r, c] += 1
    return counts


def _panel_order(key: tuple[str, int | None]) -> tuple[str, int]:
    return key[0], -1 if key[1] is None else key[1]


#: what a coordinate panel says when it has no coordinate to draw (one per COORD_PANELS)
_NO_COORDS = (
    "no filter rejects in this run",
    "no filter MULTIPLE rejects in this run",
    "no holdout rejects in this run",
)


def plot_coord_heatmap(
    attempts: pd.DataFrame,
    puzzles: pd.DataFrame,
    path: Path,
    shapes: dict[str, tuple[int, int]] | None = None,
) -> Figure:
    """One row of panels per schema, or per schema and k where the schema's arms differ in k
    (each sized from its schema): the filter rejects' top coordinates, every gap cell of the
    filter's MULTIPLE rejects, the holdout rejects' coords."""
    coords_of = reject_coords_by_panel(attempts, puzzles)
    keys = sorted(set(coords_of) | set(panel_keys(puzzles)), key=_panel_order) or [("", None)]
    shapes = shapes or {}
    n = len(keys)
    fig, axes = grid(n, 3, 4, 3.6)
    for row, key in zip(axes, keys, strict=True):
        panels, label = coords_of.get(key, {}), panel_label(key)
        for ax, title, empty in zip(row, COORD_PANELS, _NO_COORDS, strict=True):
            coords = panels.get(title, [])
            ax.set_title(titled(label, f"{title}\nn={len(coords)}"), fontsize=8)
            counts = _grid_counts(coords, shapes.get(key[0])) if coords else None
            if counts is None:
                say(ax, empty if not coords else "no grid coordinates")
                continue
            im = ax.imshow(counts, cmap="viridis")
            ax.set_xticks(range(counts.shape[1]))
            ax.set_yticks(range(counts.shape[0]))
            ax.tick_params(labelsize=7)
            ax.set_xlabel("column (0-based)")
            ax.set_ylabel("row (0-based)")
            fig.colorbar(im, ax=ax, shrink=0.8)
    fig.suptitle("Coordinates named in rejects, per schema (and k)")
    return save(fig, path)


def plot_expressive_range(puzzles: pd.DataFrame, path: Path) -> Figure:
    """Accepted puzzles: clue count × cells still forced with one (seeded) clue removed, one
    panel per schema (and k)."""
    acc = puzzles[(puzzles["status"] == "accepted")]
    if "probeForcedCells" in acc:
        acc = acc[acc["probeForcedCells"].notna()]
    else:
        acc = acc.iloc[0:0]
    groups = by_panel(acc, puzzles)
    fig, axes = panel_grid(len(groups), 6, 4)
    rng = np.random.default_rng(0)  # jitter only, so equal points stay visible
    for ax, (label, grp) in zip(axes, groups, strict=True):
        ax.set_title(titled(label, "expressive range of accepted puzzles"), fontsize=9)
        if grp.empty:
            say(ax, "no probed accepted puzzles in this run")
            continue
        keys = arm_keys(grp)
        for key, sub in grp.groupby(keys, sort=True):
            x = sub["clueCount"].to_numpy(dtype=float) + rng.uniform(-0.25, 0.25, len(sub))
            y = sub["probeForcedCells"].to_numpy(dtype=float)
            ax.scatter(x, y, s=12, alpha=0.5, label=f"{arm_label(key, keys)} (n={len(sub)})")
        ax.legend(fontsize=7)
        ax.set_xlabel("clue count of the accepted puzzle")
        ax.set_ylabel("cells forced after removing one clue")
    return save(fig, path)


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
) -> Figure | None:
    """Clue count (x) vs grade level (y) of graded accepted puzzles; ``None``, no file, if none.

    One panel per schema with a graded puzzle (so one family, whose technique names label the
    level axis; ``scales`` maps a schema label to its scale, see :func:`grade_scales`), one per
    schema and k where the schema's arms differ in k; one colour per arm (strategy, × filter
    where the panel's rows differ in it), points jittered so equal puzzles stay visible.
    """
    graded = graded_rows(puzzles)
    path.unlink(missing_ok=True)  # a stale figure of an earlier report must not remain
    if graded.empty:
        return None
    scales = scales or {}
    with_grades = set(graded["schema"])
    panels = [key for key in panel_keys(puzzles) if key[0] in with_grades]
    fig, axes = panel_grid(len(panels), 6.5, 4.2)
    rng = np.random.default_rng(0)  # jitter only
    for ax, panel in zip(axes, panels, strict=True):
        grp, schema = panel_rows(graded, panel), panel[0]
        ax.set_title(titled(panel_label(panel), f"clue count vs grade level (n={len(grp)})"))
        ax.title.set_fontsize(9)
        if grp.empty:
            say(ax, "no graded puzzles started from this k")
            continue
        keys = arm_keys(grp)
        for key, sub in grp.groupby(keys, sort=True):
            x = sub["clueCount"].to_numpy(dtype=float) + rng.uniform(-0.25, 0.25, len(sub))
            y = sub["level"].to_numpy(dtype=float) + rng.uniform(-0.15, 0.15, len(sub))
            label = f"{arm_label(key, keys)} (n={len(sub)})"
            ax.scatter(x, y, s=14, alpha=0.55, label=label)
        labels = _level_labels(grp, scales.get(schema))
        levels = grp["level"].astype(int)
        top = max(max(labels, default=0), int(levels.max()))
        ticks = range(0, top + 1)
        ax.set_yticks(list(ticks), [f"{lv} {labels.get(lv, '')}".strip() for lv in ticks])
        ax.set_ylim(-0.5, top + 0.5)
        ax.tick_params(axis="y", labelsize=7)
        counts = grp["clueCount"].astype(int)
        steps = integer_ticks(int(counts.min()), int(counts.max()))
        ax.set_xticks(steps, [str(t) for t in steps])
        ax.set_xlabel("clue count of the accepted puzzle")
        ax.set_ylabel("grade level (hardest technique)")
        ax.legend(fontsize=7)
    fig.suptitle("Expressive range: clue count vs grade level of accepted puzzles")
    return save(fig, path)


_SETTLED = (("escalationTarget", "escalation targets"), ("kernelOutcome", "kernel outcomes"))


def plot_settlement(puzzles: pd.DataFrame, path: Path) -> Figure:
    """Escalation targets and kernel outcomes per arm: one row of two panels per schema (and
    k)."""
    groups = by_panel(puzzles)
    fig, axes = grid(len(groups), 2, 5, 3.6)
    for row, (label, grp) in zip(axes, groups, strict=True):
        keys = arm_keys(grp) if len(grp) else ["strategy"]
        table = settlement_table(grp, keys) if len(grp) else pd.DataFrame()
        for ax, (col, what) in zip(row, _SETTLED, strict=True):
            ax.set_title(titled(label, what), fontsize=9)
            if table.empty:
                say(ax, "no settlements in this run")
                continue
            arms = [arm_label(tuple(r), keys) for r in table[keys].itertuples(index=False)]
            counts = table.assign(arm=arms).groupby(["arm", col])["loops"].sum()
            counts = counts.unstack(fill_value=0)
            one = _one_bar(counts)
            if one:
                value = "not settled here" if one[1] == "-" else one[1]
                loops = int(counts.to_numpy().sum())
                say(ax, f"{what}: every loop of {one[0]} is {value} ({loops})")
                continue
            bottom = np.zeros(len(counts))
            for value in counts.columns:
                name = "(not settled here)" if value == "-" else str(value)
                ax.barh(counts.index, counts[value].to_numpy(), left=bottom, label=name)
                bottom += counts[value].to_numpy()
            ax.set_xlabel("loops")
            ax.tick_params(axis="y", labelsize=7)
            ax.legend(fontsize=7)
    return save(fig, path)


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


#: each figure's share of a report's drawing, for balancing the processes that draw it
#: (:func:`~puzzlekit.app.plots.pool.shares`): its CPU time in tenths of a second as
#: ``python -m benchmarks.report_cost`` measures it on the quickstart's run directory (every
#: figure has one panel, or one row of panels, per schema and k, so their ratios hold for other
#: runs); ``report.md`` (the tables and hypotheses) weighs ``markdown``
WEIGHTS = {
    "reject_coords": 6.0,
    "grade_range": 2.4,
    "expressive_range": 1.9,
    "calls_vs_clues": 1.9,
    "calls_cdf": 1.7,
    "holdout_reject_rate": 1.6,
    "markdown": 1.4,
    "settlement": 1.3,
    "verdict_matrix": 1.0,
    "reject_cases": 0.8,
}


#: drawn only when some accepted puzzle has a grade (:func:`plot_grade_range`)
GRADE_FIGURE = "grade_range.png"


GRADE_FIGURE_TITLE = "Clue count vs grade level (expressive range)"


def draw_figures(
    attempts: pd.DataFrame,
    puzzles: pd.DataFrame,
    out: Path,
    scales: dict[str, Scale] | None = None,
    shapes: dict[str, tuple[int, int]] | None = None,
    fmt: str = "png",
    workers: int | None = None,
) -> list[str]:
    """Every figure of :data:`FIGURES` into ``out``, and :data:`GRADE_FIGURE` when some puzzle
    has a grade, as ``fmt`` files (one of :data:`~puzzlekit.app.plots.panels.FIGURE_FORMATS`;
    the names keep their stem, ``reject_cases.svg``); the names of the figures drawn.

    ``workers`` processes draw them side by side (default: one per usable core, see
    :func:`~puzzlekit.app.plots.pool.drawing_workers`); the files are the same bytes however
    many draw."""
    jobs, drawn = figure_jobs(attempts, puzzles, out, scales, shapes, fmt)
    draw_all(jobs, workers)
    return drawn


def figure_jobs(
    attempts: pd.DataFrame,
    puzzles: pd.DataFrame,
    out: Path,
    scales: dict[str, Scale] | None = None,
    shapes: dict[str, tuple[int, int]] | None = None,
    fmt: str = "png",
) -> tuple[list[Job], list[str]]:
    """The figures of :func:`draw_figures`, each a job for
    :func:`~puzzlekit.app.plots.pool.draw_all` (its weight, the call that draws and saves it),
    and the names of the files they write."""
    if fmt not in FIGURE_FORMATS:
        raise ValueError(f"figure format {fmt!r}; expected one of {', '.join(FIGURE_FORMATS)}")

    def at(name: str) -> Path:
        return out / as_format(name, fmt)

    jobs: list[Job] = [
        (
            WEIGHTS["reject_coords"],
            lambda: plot_coord_heatmap(attempts, puzzles, at("reject_coords.png"), shapes),
        ),
        (WEIGHTS["grade_range"], lambda: plot_grade_range(puzzles, at(GRADE_FIGURE), scales)),
        (WEIGHTS["reject_cases"], lambda: plot_reject_cases(attempts, at("reject_cases.png"))),
        (WEIGHTS["calls_cdf"], lambda: plot_calls_cdf(puzzles, at("calls_cdf.png"))),
        (WEIGHTS["calls_vs_clues"], lambda: plot_calls_vs_clues(puzzles, at("calls_vs_clues.png"))),
        (WEIGHTS["verdict_matrix"], lambda: plot_verdict_matrix(puzzles, at("verdict_matrix.png"))),
        (
            WEIGHTS["holdout_reject_rate"],
            lambda: plot_holdout_reject_rate(puzzles, at("holdout_reject_rate.png")),
        ),
        (
            WEIGHTS["expressive_range"],
            lambda: plot_expressive_range(puzzles, at("expressive_range.png")),
        ),
        (WEIGHTS["settlement"], lambda: plot_settlement(puzzles, at("settlement.png"))),
    ]
    drawn = [as_format(name, fmt) for name in FIGURES]
    if not graded_rows(puzzles).empty:  # plot_grade_range draws when some puzzle has a grade
        drawn.append(as_format(GRADE_FIGURE, fmt))
    return jobs, drawn


def as_format(name: str, fmt: str) -> str:
    """``reject_cases.png`` as ``reject_cases.FMT``."""
    return f"{Path(name).stem}.{fmt}"

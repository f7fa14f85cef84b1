"""``report/report.md`` of a run directory: the figures embedded, every number computed from the
Parquet rows and the manifest (none typed by hand).

It opens with :func:`summary_lines`: what was run, what was accepted, whether the run met its
goal, and the pre-registered hypotheses (:func:`hypotheses_lines`, where their judgements go).

Not for: the tables or figures themselves (:mod:`puzzlekit.app.plots.tables`,
:mod:`puzzlekit.app.plots.figures`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from puzzlekit.app.plots.figures import (
    FIGURES,
    GRADE_FIGURE,
    GRADE_FIGURE_TITLE,
    WEIGHTS,
    as_format,
    figure_jobs,
)
from puzzlekit.app.plots.hypotheses import hypotheses_section, judge_all
from puzzlekit.app.plots.pool import draw_all
from puzzlekit.app.plots.tables import (
    ARM,
    calls_table,
    expressive_table,
    grade_scales,
    grade_table,
    graded_rows,
    grid_shapes,
    holdout_name,
    load_run,
    metrics_table,
    reject_case_table,
    settlement_table,
    timing_table,
    top_coords_table,
    verdict_matrix,
)


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


def _fig(name: str) -> list[str]:
    title = GRADE_FIGURE_TITLE if name == GRADE_FIGURE else FIGURES[name]
    return [f"![{title}]({name})", ""]


def _names(values: Any) -> str:
    return ", ".join(str(v) for v in dict.fromkeys(values)) or "none"


def summary_lines(
    run: Path, attempts: pd.DataFrame, puzzles: pd.DataFrame, manifest: dict
) -> list[str]:
    """The report's opening: what was run (and each arm whose family raised ``k``), what was
    accepted (and whether every trial was settled, with nothing dropped), then
    :func:`hypotheses_lines`."""
    config = manifest.get("config", {})
    strategies = config.get("strategies", [])  # each arm by its label (two of one strategy)
    n_filter = int((attempts["side"] == "filter").sum()) if len(attempts) else 0
    n_hold = int((attempts["side"] == "holdout").sum()) if len(attempts) else 0
    status = puzzles["status"].value_counts() if len(puzzles) else pd.Series(dtype=int)
    accepted = int(status.get("accepted", 0))
    rejected = (
        int(puzzles["holdoutRejected"].fillna(False).astype(bool).sum()) if len(puzzles) else 0
    )
    planned = _planned_trials(config)
    done = "all" if planned is None or planned == len(puzzles) else f"{len(puzzles)} of {planned}"
    overrides = manifest.get("overrides") or []
    outcomes = pd.Series([j.outcome for j in judge_all(manifest, puzzles)], dtype=object)
    judged = ", ".join(f"{n} {o}" for o, n in outcomes.value_counts().sort_index().items())
    raised = [
        f"{e['schema']} {e['strategy']} k = {e['k']} to at least {e['least']}"
        for e in manifest.get("kRaised") or []
    ]
    return [
        f"# Run {manifest.get('name', run.name)}",
        "",
        manifest.get("description", ""),
        "",
        "## Summary",
        "",
        f"- **Run**: schemas {_names(s.get('label') for s in config.get('schemas', []))}; "
        f"strategies {_names(s.get('label') or s.get('name') for s in strategies)}; "
        f"filters {_names(f.get('label') for f in config.get('filters', []))}; holdout "
        f"{holdout_name(manifest) or 'none'}; {config.get('trials', '?')} trials an arm, "
        f"budget {config.get('max_calls', '?')} filter calls a loop; {done} trials ran"
        + (f" (overrides: {', '.join(f'`{o}`' for o in overrides)})" if overrides else ""),
        *(
            [f"- **k raised** (the family starts no puzzle with fewer clues): {'; '.join(raised)}"]
            if raised
            else []
        ),
        f"- **Accepted**: {accepted} of {len(puzzles)} trials by the filter "
        f"({int(status.get('exhausted', 0))} exhausted their budget, "
        f"{int(status.get('dropped', 0))} dropped); the holdout rejected {rejected} of the "
        f"accepted; {n_filter} filter calls, {n_hold} holdout calls",
        f"- **Hypotheses**: {judged or 'none declared'} (each judged below)",
        f"- config `{manifest.get('configPath')}`, digest `{manifest.get('configDigest')}`; "
        f"git revision `{manifest.get('gitRevision')}` (local changes: "
        f"{manifest.get('gitDirty')}); executor {manifest.get('executor')}, "
        f"{manifest.get('workers')} workers; {manifest.get('start')} to {manifest.get('end')}",
        "",
        *hypotheses_lines(attempts, puzzles, manifest),
    ]


def _planned_trials(config: dict) -> int | None:
    """Trials the config asks for: trials × schemas × clue counts × filters."""
    try:
        arms = sum(len(s["clues"]) for s in config["strategies"])
        return int(config["trials"]) * arms * len(config["schemas"]) * len(config["filters"])
    except (KeyError, TypeError):
        return None


def hypotheses_lines(attempts: pd.DataFrame, puzzles: pd.DataFrame, manifest: dict) -> list[str]:
    """The pre-registered hypotheses, each judged from the rows (held / not held /
    inconclusive, with its statistic and interval: :mod:`puzzlekit.app.plots.hypotheses`)."""
    return hypotheses_section(manifest, puzzles)


def _head(run: Path, attempts: pd.DataFrame, puzzles: pd.DataFrame, manifest: dict) -> list[str]:
    pre = manifest.get("preregistration", {})
    metrics: Sequence[str] = pre.get("metrics", [])
    table = metrics_table(attempts, puzzles)
    scalar = [m for m in metrics if m in table.columns]
    return [
        *summary_lines(run, attempts, puzzles, manifest),
        "## Pre-registered metrics (per arm)",
        "",
        _md_table(table[[*ARM, "trials", "accepted", *scalar]] if len(table) else table),
        *_learning(puzzles, manifest),
    ]


def _learning(puzzles: pd.DataFrame, manifest: dict) -> list[str]:
    """Learning curves and learned maps, when a hypothesis names a learner's metric."""
    from puzzlekit.app.plots.learning import curve_table, overlap_table, uses_learning

    if not uses_learning(manifest):
        return []
    batch = int(manifest.get("config", {}).get("batch", 1) or 1)
    maps = overlap_table(puzzles, batch, manifest)
    return [
        "## Learning curves and learned maps",
        "",
        f"Mean filter calls per loop over spans of the loop index (a trial's position in its "
        f"task of {batch}: how many loops its learner had run), every loop counted, an exhausted "
        "one at its whole budget; the `calls_slope` hypotheses fit a line to these loops.",
        "",
        _md_table(curve_table(puzzles, batch)),
        "Each learner's map after its last loop (the rows' `strategyState`): the share of its "
        "top-scoring places, as many as the region has cells, that lie in the planted region.",
        "",
        _md_table(maps) if not maps.empty else "(no arm records a map)\n",
    ]


def _rejects(attempts: pd.DataFrame, puzzles: pd.DataFrame) -> list[str]:
    cases = reject_case_table(attempts, ARM)
    lines = [
        "## Reject-case distribution",
        "",
        "Share of each reject case among the filter's rejects, per arm, one panel per schema "
        "(one per schema and k where the schema's arms differ in k: every figure and table of "
        "this report keeps rows started from different k apart).",
        "",
        *_fig("reject_cases.png"),
        _md_table(cases.reset_index()) if not cases.empty else "(no rejects)\n",
        "## Filter calls to acceptance",
        "",
        "Share of trials accepted within n filter calls, one panel per schema (and k) and one "
        "line per arm; exhausted trials stay in the denominator, so a line ends at the accept "
        "rate.",
        "",
        *_fig("calls_cdf.png"),
        _md_table(calls_table(puzzles)),
        *_fig("calls_vs_clues.png"),
        "## Coordinates named in rejects",
        "",
        "One row per schema (and k), each grid sized from its schema. Left: the top coordinate "
        "of each filter reject (the first cell of a MULTIPLE's gap, ties drawn from the instance "
        "digest; the first clue of an UNSOLVABLE conflict). Middle: every cell of the gap of each "
        "filter MULTIPLE. Right: every coordinate named in the holdout's rejects of "
        "filter-accepted puzzles.",
        "",
        *_fig("reject_coords.png"),
        _md_table(top_coords_table(attempts, puzzles)),
    ]
    return lines


def _holdout(puzzles: pd.DataFrame) -> list[str]:
    vm = verdict_matrix(puzzles, ARM)
    hold_rej = puzzles[puzzles["holdoutRejected"].fillna(False).astype(bool)]
    with_coords = sum(1 for c in hold_rej["holdoutCoords"] if c is not None and len(c))
    return [
        "## Filter × holdout verdicts",
        "",
        "Filter-accepted puzzles by the holdout's verdict (counts; the colour is the row share).",
        "",
        *_fig("verdict_matrix.png"),
        _md_table(vm.reset_index()) if not vm.empty else "(no holdout verdicts)\n",
        f"Holdout rejects: {len(hold_rej)}, of which {with_coords} name coordinates.",
        "",
        *_fig("holdout_reject_rate.png"),
    ]


def _expressive(puzzles: pd.DataFrame, drawn: list[str]) -> list[str]:
    lines = [
        "## Expressive range: clue count vs forced cells",
        "",
        "An accepted puzzle forces every cell, so its own backbone is uninformative. Each "
        "accepted puzzle is probed instead: one clue, chosen by the trial's seed, is removed and "
        "the rest verified by the exact sat verifier, whose `forcedCells` stat is the backbone "
        "(cells with one value in every solution, clue cells included; every cell when the "
        "removed clue was redundant). Few forced cells: the puzzle hangs on each clue; many: it "
        "has slack. The probe is a measurement, outside the filter's budget "
        "(`probeForcedCells` in puzzles.parquet; the filter's own `forcedCells` on each "
        "MULTIPLE attempt is `forcedCells` in attempts.parquet).",
        "",
        *_fig("expressive_range.png"),
        _md_table(expressive_table(puzzles)),
        "## Expressive range: clue count vs grade",
        "",
        "Each accepted puzzle of a graded family is graded by the logical solver of "
        "`puzzlekit.grading.techniques` (techniques only): `level` is the tier of the hardest "
        "technique it needs (0 = easiest; `search` when the techniques got stuck), `technique` "
        "that technique. A puzzle the techniques cannot finish (also one that is not unique, "
        "e.g. accepted by a faulty filter) gets the last tier. Levels name different techniques "
        "in different families, so there is one panel per schema (and k), its level axis "
        "labelled by the family's techniques; points are jittered. Columns `level` and "
        "`technique` of puzzles.parquet; `grade = false` in the config turns grading off.",
        "",
    ]
    if GRADE_FIGURE not in drawn:
        return [
            *lines,
            "Note: no accepted puzzle has a grade (no graded family among the schemas, no "
            "accepted puzzle, `grade = false` in the config, or a run from before grading), so "
            "this figure is not drawn.",
            "",
        ]
    lines += [*_fig(GRADE_FIGURE), _md_table(grade_table(puzzles))]
    acc_schemas = puzzles.loc[puzzles["status"] == "accepted", "schema"].unique()
    ungraded = sorted(set(acc_schemas) - set(graded_rows(puzzles)["schema"].unique()))
    if ungraded:
        lines += [f"Schemas without grades: {', '.join(ungraded)}.", ""]
    return lines


def _settlement(attempts: pd.DataFrame, puzzles: pd.DataFrame, holdout: str | None) -> list[str]:
    settled = settlement_table(puzzles, ARM)
    return [
        "## Escalation targets and kernel outcomes",
        "",
        "Each loop outcome settled by the stopping pipeline (kind), its escalation target and "
        "the review kernel's outcome.",
        "",
        *_fig("settlement.png"),
        _md_table(settled) if not settled.empty else "(no settlements)\n",
        "## Verifier time",
        "",
        "Seconds per call, per verifier (the filters by label, the holdout by its backend; "
        "holdout calls include the pipe to its process).",
        "",
        _md_table(timing_table(attempts, holdout)),
    ]


def _relink(line: str, links: dict[str, str]) -> str:
    for old, new in links.items():
        if line.startswith("![") and line.endswith(old):
            return line[: -len(old)] + new
    return line


def markdown_lines(
    run: Path,
    attempts: pd.DataFrame,
    puzzles: pd.DataFrame,
    manifest: dict,
    drawn: Sequence[str],
    figure_format: str = "png",
) -> list[str]:
    """The lines of ``report.md``, linking the figures ``drawn`` (file names) as
    ``figure_format`` files."""
    names = [as_format(name, "png") for name in drawn]  # the sections name the png
    lines = [
        *_head(run, attempts, puzzles, manifest),
        *_rejects(attempts, puzzles),
        *_holdout(puzzles),
        *_expressive(puzzles, names),
        *_settlement(attempts, puzzles, holdout_name(manifest)),
    ]
    if figure_format != "png":  # each figure's link names the file drawn
        links = {f"]({name})": f"]({as_format(name, figure_format)})" for name in names}
        lines = [_relink(line, links) for line in lines]
    return lines


def write_report(
    run_dir: str | Path, figure_format: str = "png", workers: int | None = None
) -> Path:
    """Draw the figures (as ``figure_format`` files: png, svg or pdf) and write
    ``report/report.md``, which links them; returns its path. ``workers`` processes draw the
    figures and write the Markdown side by side (by default one per usable core:
    :func:`~puzzlekit.app.plots.pool.draw_all`).

    Every number in the report is computed here from ``attempts.parquet``, ``puzzles.parquet``
    and ``manifest.json``.
    """
    run = Path(run_dir)
    attempts, puzzles, manifest = load_run(run)
    out = run / "report"
    out.mkdir(exist_ok=True)
    jobs, drawn = figure_jobs(
        attempts,
        puzzles,
        out,
        grade_scales(manifest),
        grid_shapes(manifest),
        figure_format,
    )
    report = out / "report.md"

    def markdown() -> None:
        lines = markdown_lines(run, attempts, puzzles, manifest, drawn, figure_format)
        report.write_text("\n".join(lines), encoding="utf-8")

    draw_all([(WEIGHTS["markdown"], markdown), *jobs], workers)
    return report

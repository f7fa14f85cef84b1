"""The report of a run directory: tables, matplotlib figures and ``report/report.md``.

Everything here reads ``attempts.parquet`` and ``puzzles.parquet`` with pandas (columns of
:mod:`puzzlekit.loop.rows`, documented in docs/data.md); every number in ``report.md`` is
computed from them, none is typed by hand. :mod:`~puzzlekit.app.plots.tables` computes the
tables, :mod:`~puzzlekit.app.plots.figures` draws the figures, :mod:`~puzzlekit.app.plots.report`
writes the Markdown. The notebooks in ``notebooks/`` call the same functions.

Not for: running trials (:mod:`puzzlekit.app.experiment`).
"""

from puzzlekit.app.plots.figures import (
    FIGURES,
    GRADE_FIGURE,
    GRADE_FIGURE_TITLE,
    draw_figures,
    plot_calls_cdf,
    plot_calls_vs_clues,
    plot_coord_heatmap,
    plot_expressive_range,
    plot_grade_range,
    plot_holdout_reject_rate,
    plot_reject_cases,
    plot_settlement,
    plot_verdict_matrix,
)
from puzzlekit.app.plots.panels import by_panel, panel_keys, panel_label, panel_rows
from puzzlekit.app.plots.report import hypotheses_lines, summary_lines, write_report
from puzzlekit.app.plots.tables import (
    ARM,
    Scale,
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
    reject_coords,
    reject_coords_by_panel,
    settlement_table,
    timing_table,
    top_coords_table,
    verdict_matrix,
)

__all__ = [
    "ARM",
    "FIGURES",
    "GRADE_FIGURE",
    "GRADE_FIGURE_TITLE",
    "Scale",
    "by_panel",
    "calls_table",
    "draw_figures",
    "expressive_table",
    "grade_scales",
    "grade_table",
    "graded_rows",
    "holdout_name",
    "hypotheses_lines",
    "load_run",
    "metrics_table",
    "panel_keys",
    "panel_label",
    "panel_rows",
    "plot_calls_cdf",
    "plot_calls_vs_clues",
    "plot_coord_heatmap",
    "plot_expressive_range",
    "plot_grade_range",
    "plot_holdout_reject_rate",
    "plot_reject_cases",
    "plot_settlement",
    "plot_verdict_matrix",
    "reject_case_table",
    "reject_coords",
    "reject_coords_by_panel",
    "grid_shapes",
    "settlement_table",
    "summary_lines",
    "timing_table",
    "top_coords_table",
    "verdict_matrix",
    "write_report",
]

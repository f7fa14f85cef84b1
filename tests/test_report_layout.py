"""The report's figures are drawn in one pass (no layout engine, no tight bounding box) and
keep their content in reach: every title, label and tick label on the canvas, no panel's text
over another panel, every panel's title and axis labels present."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from puzzlekit.app.plots import figures, load_run
from puzzlekit.app.plots.layout import text_size

#: the panels of the two-family run (conftest.two_family_run): two schemas, two k each
PANELS = ["kenken5 k=6", "kenken5 k=8", "sudoku4 k=6", "sudoku4 k=8"]


def _draw_all(run: Path, out: Path) -> dict[str, Figure]:
    attempts, puzzles, _ = load_run(run)
    return {
        "reject_cases": figures.plot_reject_cases(attempts, out / "a.png"),
        "calls_cdf": figures.plot_calls_cdf(puzzles, out / "b.png"),
        "calls_vs_clues": figures.plot_calls_vs_clues(puzzles, out / "c.png"),
        "reject_coords": figures.plot_coord_heatmap(
            attempts, puzzles, out / "d.png", {"sudoku4": (4, 4), "kenken5": (5, 5)}
        ),
        "verdict_matrix": figures.plot_verdict_matrix(puzzles, out / "e.png"),
        "holdout_reject_rate": figures.plot_holdout_reject_rate(puzzles, out / "f.png"),
        "expressive_range": figures.plot_expressive_range(puzzles, out / "g.png"),
        "settlement": figures.plot_settlement(puzzles, out / "h.png"),
        "grade_range": figures.plot_grade_range(puzzles, out / "i.png"),
    }


@pytest.fixture(scope="module")
def drawn(two_family_run, tmp_path_factory) -> dict[str, Figure]:
    return _draw_all(two_family_run, tmp_path_factory.mktemp("figures"))


def _renderer(fig: Figure):
    """A renderer at the saved figure's resolution, with the figure drawn on it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    return renderer


def _shown_ticks(axis) -> list:
    """The tick labels of ``axis`` drawn: those of ticks inside its view."""
    lo, hi = sorted(axis.get_view_interval())
    return [
        label
        for loc, label in zip(axis.get_ticklocs(), axis.get_ticklabels(), strict=True)
        if lo - 1e-9 <= loc <= hi + 1e-9 and label.get_text()
    ]


def _panels(fig: Figure) -> list:
    return [ax for ax in fig.axes if ax.get_visible() and not hasattr(ax, "_colorbar")]


def test_saving_a_figure_draws_it_once_without_a_layout_engine(
    two_family_run, tmp_path, monkeypatch
):
    draws: list[Figure] = []
    real = Figure.draw

    def counted(self: Figure, renderer) -> None:
        draws.append(self)
        real(self, renderer)

    monkeypatch.setattr(Figure, "draw", counted)
    made = _draw_all(two_family_run, tmp_path)
    assert all(fig is not None for fig in made.values())
    for name, fig in made.items():
        assert fig.get_layout_engine() is None, name
        assert draws.count(fig) == 1, (name, draws.count(fig))


def test_every_text_of_every_figure_lies_on_its_canvas(drawn):
    for name, fig in drawn.items():
        renderer = _renderer(fig)
        canvas = fig.bbox
        texts = [fig._suptitle] if fig._suptitle else []
        for ax in fig.axes:
            if not ax.get_visible():
                continue
            texts += [ax.title, ax.xaxis.label, ax.yaxis.label]
            if ax.axison:
                texts += _shown_ticks(ax.xaxis) + _shown_ticks(ax.yaxis)
        for text in texts:
            if not text.get_text() or not text.get_visible():
                continue
            box = text.get_window_extent(renderer)
            inside = (
                box.x0 >= canvas.x0 - 1
                and box.y0 >= canvas.y0 - 1
                and box.x1 <= canvas.x1 + 1
                and box.y1 <= canvas.y1 + 1
            )
            assert inside, (name, text.get_text(), box.bounds, canvas.bounds)


def test_no_panel_reaches_over_another(drawn):
    """A panel with its title, tick labels, axis labels and colour bar stays in its own cell."""
    for name, fig in drawn.items():
        renderer = _renderer(fig)
        boxes = []
        for ax in _panels(fig):
            bars = [c for c in fig.axes if getattr(c, "_colorbar", None) is not None]
            own = [ax] + [c for c in bars if c._colorbar.mappable.axes is ax]
            boxes.append([a.get_tightbbox(renderer) for a in own])
        for one, other in combinations(boxes, 2):
            for a in one:
                for b in other:
                    assert a.intersection(a, b) is None or a.intersection(a, b).width <= 1, (
                        name,
                        a.bounds,
                        b.bounds,
                    )


def test_each_panel_keeps_its_title_and_its_axes_labels(drawn):
    for name, fig in drawn.items():
        panels = _panels(fig)
        heads = list(dict.fromkeys(ax.get_title().split(":")[0] for ax in panels))
        assert heads == PANELS, name
        for ax in panels:
            assert ax.get_title(), name
            if ax.axison and name not in ("reject_cases", "verdict_matrix", "holdout_reject_rate"):
                assert ax.get_xlabel() and (ax.get_ylabel() or name == "settlement"), (name, ax)


def test_a_label_is_measured_by_the_characters_it_shows():
    w, h = text_size("abc", 10)
    assert w == pytest.approx(3 * 10 * 0.64 / 72) and h == pytest.approx(10 * 1.25 / 72)
    assert text_size("$\\mathdefault{10^{2}}$", 10)[0] == pytest.approx(w)
    assert text_size("n=1\nlonger line", 9)[1] == pytest.approx(2 * text_size("x", 9)[1])


def test_a_clue_count_axis_ticks_whole_numbers_inside_its_points():
    from puzzlekit.app.plots.layout import integer_ticks

    assert integer_ticks(32, 32) == [32]  # one count: that count, not fractions of it
    assert integer_ticks(28, 36) == list(range(28, 37))
    assert integer_ticks(17, 40) == [20, 25, 30, 35, 40]  # never below the fewest (no widening)
    assert integer_ticks(20, 81) == [20, 30, 40, 50, 60, 70, 80]
    assert all(len(integer_ticks(0, hi)) <= 10 for hi in range(0, 5000, 7))

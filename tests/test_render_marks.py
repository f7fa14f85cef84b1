"""Matplotlib renderings mark the coordinates a reject names, for every grid family."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.patches as patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import puzzlekit as pk  # noqa: E402
from puzzlekit.core.report import Verdict  # noqa: E402
from puzzlekit.generators.base import fresh_puzzle  # noqa: E402

GRIDS = [
    ("sudoku", {"size": 4}),
    ("latin", {"size": 4}),
    ("futoshiki", {"size": 4}),
    ("kenken", {"size": 4}),
    ("sudoku-killer", {"size": 4}),
    ("sudoku-jigsaw", {"size": 4}),
    ("skyscrapers", {"size": 4}),
    ("starbattle", {"size": 5, "stars": 1}),
    ("nonogram", {"rows": 5, "cols": 5, "density": 50}),
]


def _outlines(ax) -> list[patches.Rectangle]:
    return [p for p in ax.patches if isinstance(p, patches.Rectangle) and not p.get_fill()]


@pytest.mark.parametrize("family,params", GRIDS, ids=[f for f, _ in GRIDS])
def test_render_outlines_every_marked_cell(family, params, tmp_path):
    fam = pk.get_family(family)
    schema = fam.schema(params)
    inst, _, _ = fresh_puzzle(schema, 1, np.random.default_rng(0))
    rep = pk.verify(inst.with_clues(inst.clues[:1]))
    marks = rep.reject_detail.marks() if rep.reject_detail else {}
    if rep.verdict is Verdict.MULTIPLE:
        assert marks and set(marks.values()) == {"?"}
    ax = fam.render(inst, marks=marks)
    before = len(_outlines(fam.render(inst)))
    assert len(_outlines(ax)) - before == len(marks)
    ax.figure.savefig(tmp_path / f"{family}.png")
    plt.close("all")


def test_marks_name_conflicts_and_ambiguity():
    rep = pk.verify(pk.parse("sudoku", "11.............."))
    assert set(rep.reject_detail.marks().values()) == {"!"}
    rep = pk.verify(pk.parse("sudoku", "1..............."))
    assert set(rep.reject_detail.marks().values()) == {"?"}

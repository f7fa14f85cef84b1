"""Experiment rows carry the grade of each accepted puzzle of a graded family (``level``,
``technique``), nulls elsewhere; the report draws clue count vs grade level when some row has a
level, and says why it does not when none has."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from puzzlekit.app.cli import main
from puzzlekit.app.experiment import ConfigError, Task, parse_config, plan, run_experiment, run_task
from puzzlekit.app.plots import FIGURES, GRADE_FIGURE, plot_grade_range
from puzzlekit.grading.techniques import GRADED_FAMILIES, grade

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "experiments" / "smoke.toml"


def tiny_raw(**overrides) -> dict:
    """4×4 Sudoku (graded) and a 4×4 nonogram (not graded); a budget small enough that some
    blind trials are exhausted; the sat filter, no holdout."""
    raw = tomllib.loads(SMOKE.read_text())
    raw.pop("holdout")
    raw.update(
        name="grade-tiny",
        trials=3,
        batch=3,
        budget={"max_calls": 3, "solution_cap": 2},
        schemas=[
            raw["schemas"][0],
            {"family": "nonogram", "params": {"rows": 4, "cols": 4}, "label": "nonogram4"},
        ],
        strategies=[{"name": "blind", "clues": [3, 5]}, {"name": "adaptive", "clues": [3]}],
        filters=[{"verifier": "sat"}],
    )
    hypotheses = raw["preregistration"]["hypotheses"]  # the faulty filter's is gone with it
    raw["preregistration"]["hypotheses"] = [h for h in hypotheses if h["arms"] != ["faulty-box"]]
    raw.update(overrides)
    return raw


@pytest.fixture(scope="module")
def graded_run(tmp_path_factory) -> Path:
    config = parse_config(tiny_raw())
    out = tmp_path_factory.mktemp("runs") / "graded"
    return run_experiment(config, out, executor="serial", quiet=True)


def replay(task: Task, trial: int, seed: int):
    """The loop of one trial, rebuilt outside the runner (the filter is exact, no holdout)."""
    from puzzlekit.families import get_family
    from puzzlekit.generators import STRATEGIES
    from puzzlekit.loop.driver import LoopBudget, run_loop
    from puzzlekit.verifiers.registry import get_verifier

    assert task.holdout is None and not task.minimize
    schema = get_family(task.schema.family).schema(dict(task.schema.params))
    filt = get_verifier(task.filter.verifier, **task.filter.settings)
    budget = LoopBudget(max_calls=task.max_calls, solution_cap=task.solution_cap)
    return run_loop(schema, STRATEGIES.get(task.strategy)(task.k), filt, None, budget, seed)


def test_rows_carry_the_grade_recomputed_from_their_instance(graded_run):
    config = parse_config(tiny_raw())
    puzzles = pd.read_parquet(graded_run / "puzzles.parquet")
    assert str(puzzles["level"].dtype) == "Int64" and str(puzzles["technique"].dtype) == "string"
    seen = {"graded": 0, "other family": 0, "not accepted": 0}
    for task in plan(config):
        for trial, seed in zip(task.trials, task.seeds, strict=True):
            row = puzzles[
                (puzzles["schema"] == task.schema.label)
                & (puzzles["strategy"] == task.strategy)
                & (puzzles["k"] == task.k)
                & (puzzles["trial"] == trial)
            ]
            assert len(row) == 1
            row = row.iloc[0]
            result = replay(task, trial, seed)
            assert row["status"] == result.status
            if not result.accepted:
                seen["not accepted"] += 1
                assert pd.isna(row["level"]) and pd.isna(row["technique"])
                continue
            assert row["instanceDigest"] == result.instance.digest
            if task.schema.family in GRADED_FAMILIES:
                seen["graded"] += 1
                g = grade(result.instance)
                assert row["level"] == g.level and row["technique"] == g.technique
            else:
                seen["other family"] += 1
                assert pd.isna(row["level"]) and pd.isna(row["technique"])
    assert all(seen.values()), seen
    # one Parquet file, both families: plain integer and string columns, nulls where ungraded
    schema = pq.read_schema(graded_run / "puzzles.parquet")
    assert str(schema.field("level").type) == "int64"
    assert "string" in str(schema.field("technique").type)


def test_grade_false_leaves_the_columns_null_and_changes_the_digest():
    on, off = parse_config(tiny_raw()), parse_config(tiny_raw(grade=False))
    assert on.grade and not off.grade and on.digest != off.digest
    task = next(t for t in plan(off) if t.schema.family == "sudoku" and t.strategy == "adaptive")
    assert task.grade is False
    rows = run_task(task).puzzles
    assert any(r["status"] == "accepted" for r in rows)
    assert all(r["level"] is None and r["technique"] is None for r in rows)


def test_grade_must_be_a_boolean():
    with pytest.raises(ConfigError) as info:
        parse_config(tiny_raw(grade="yes"), "x.toml")
    assert info.value.path == "grade"


def test_the_report_draws_clue_count_vs_grade_when_rows_have_levels(graded_run):
    report = graded_run / "report"
    assert (report / GRADE_FIGURE).stat().st_size > 0
    text = (report / "report.md").read_text()
    assert f"]({GRADE_FIGURE})" in text and "clue count vs grade" in text
    grades = text.split("## Expressive range: clue count vs grade")[1].split("\n## ")[0]
    assert "| schema | strategy | k | filter | accepted | graded |" in grades
    for arm in ("adaptive | 3", "blind | 5"):  # per arm: rows of two k are never pooled
        assert f"| sudoku4 | {arm} | sat |" in grades, arm
    assert "Schemas without grades: nonogram4." in text


def test_the_report_skips_the_grade_figure_when_no_row_has_a_level(graded_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(graded_run, run)  # its report/ holds a grade figure from the first report
    puzzles = pd.read_parquet(run / "puzzles.parquet")
    # a run directory written before grading: no level column at all
    puzzles.drop(columns=["level", "technique"]).to_parquet(run / "puzzles.parquet", index=False)
    assert main(["report", str(run)]) == 0
    assert not (run / "report" / GRADE_FIGURE).exists()
    for name in FIGURES:
        assert (run / "report" / name).exists()
    text = (run / "report" / "report.md").read_text()
    assert GRADE_FIGURE not in text and "no accepted puzzle has a grade" in text


def test_plot_grade_range_draws_nothing_when_every_level_is_null(graded_run, tmp_path):
    puzzles = pd.read_parquet(graded_run / "puzzles.parquet")
    path = tmp_path / GRADE_FIGURE
    assert plot_grade_range(puzzles, path) is not None and path.stat().st_size > 0
    nulled = puzzles.assign(level=pd.array([pd.NA] * len(puzzles), dtype="Int64"))
    assert plot_grade_range(nulled, path) is None
    assert not path.exists()  # the stale figure is gone too
    empty = pd.DataFrame({"status": pd.Series([], dtype="string")})
    assert plot_grade_range(empty, path) is None and not path.exists()


def test_the_grade_range_config_loads_with_only_graded_families():
    from puzzlekit.app.experiment import load_config

    config = load_config(ROOT / "experiments" / "grade_range.toml")
    assert config.grade and all(s.family in GRADED_FAMILIES for s in config.schemas)

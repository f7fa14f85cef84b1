"""The run report: a summary at the top (what ran, what was accepted), the holdout named by its
backend, a calls axis that reads at several ticks, and figures that never select a backend."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.app.experiment import parse_config, run_experiment
from puzzlekit.app.plots import holdout_name, load_run, plot_calls_cdf, timing_table

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    raw = tomllib.loads((ROOT / "experiments" / "smoke.toml").read_text())
    config = parse_config({**raw, "trials": 1, "batch": 1})
    out = tmp_path_factory.mktemp("report") / "run"
    return run_experiment(config, out, executor="serial", quiet=True)


def test_the_report_opens_with_a_summary_of_what_ran_and_was_accepted(run_dir: Path) -> None:
    text = (run_dir / "report" / "report.md").read_text()
    head = text.split("## Pre-registered metrics")[0]
    _, puzzles, _ = load_run(run_dir)
    accepted = int((puzzles["status"] == "accepted").sum())
    assert "## Summary" in head and "## Pre-registered hypotheses" in head
    assert "holdout enumerative" in head and "strategies blind, adaptive" in head
    assert f"**Accepted**: {accepted} of {len(puzzles)} trials" in head
    assert "all trials ran" in head


def test_the_timing_table_names_the_holdout_backend(run_dir: Path) -> None:
    attempts, _, manifest = load_run(run_dir)
    assert holdout_name(manifest) == "enumerative"
    table = timing_table(attempts, holdout_name(manifest))
    assert set(table.loc[table["side"] == "holdout", "verifier"]) == {"enumerative"}


def test_the_calls_cdf_axis_has_ticks_between_decades(tmp_path: Path) -> None:
    from matplotlib.figure import Figure

    captured: list[Figure] = []
    original = Figure.savefig

    def keep(self, *args, **kwargs):
        captured.append(self)
        return original(self, *args, **kwargs)

    puzzles = pd.DataFrame(
        {
            "strategy": ["blind"] * 4,
            "filter": ["sat"] * 4,
            "status": ["accepted"] * 3 + ["exhausted"],
            "filterCalls": [1, 7, 40, 150],
        }
    )
    Figure.savefig = keep
    try:
        plot_calls_cdf(puzzles, tmp_path / "cdf.png")
    finally:
        Figure.savefig = original
    ticks = [t for t in captured[0].axes[0].get_xticks() if t > 0]
    assert len(ticks) >= 6 and (tmp_path / "cdf.png").stat().st_size > 0


def test_importing_the_plots_selects_no_backend() -> None:
    code = (
        "import matplotlib; before = matplotlib.get_backend(); "
        "import puzzlekit.app.plots; print(before == matplotlib.get_backend())"
    )
    env_backend = {"MPLBACKEND": "svg"}
    import os

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env_backend},
        timeout=120,
    )
    assert out.stdout.strip() == "True", out.stderr

"""The analysis notebooks run top to bottom (nbmake) against a small run made here.

``notebooks/reject_distributions.ipynb`` redraws the report's figures from a run directory; it
must agree with ``puzzlekit.app.plots`` (its last cell asserts so). ``notebooks/run_analysis.ipynb``
reads the run directory alone: it verifies the stored accepted puzzles again (and asserts they
give the recorded verdicts), draws gap sizes per attempt and the holdout's conflicts."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from puzzlekit.app.experiment import parse_config, run_experiment

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

pytest.importorskip("nbmake")


def test_the_analysis_notebooks_are_there():
    names = [nb.name for nb in NOTEBOOKS]
    assert "reject_distributions.ipynb" in names and "run_analysis.ipynb" in names


def test_the_run_analysis_notebook_says_first_how_to_make_its_run():
    import json

    first = json.loads((ROOT / "notebooks" / "run_analysis.ipynb").read_text())["cells"][0]
    assert first["cell_type"] == "markdown"
    assert "puzzlekit run experiments/smoke.toml --out runs/smoke" in "".join(first["source"])


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[nb.name for nb in NOTEBOOKS])
def test_notebook_executes_on_a_smoke_run(notebook, tmp_path):
    raw = tomllib.loads((ROOT / "experiments" / "smoke.toml").read_text())
    config = parse_config({**raw, "trials": 2, "batch": 2})
    run = run_experiment(config, tmp_path / "run", executor="serial", quiet=True, report=False)
    env = {**os.environ, "PUZZLEKIT_RUN": str(run), "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbmake", str(notebook), "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]

"""The analysis notebooks run top to bottom (nbmake) against a small run made here.

``notebooks/reject_distributions.ipynb`` redraws the report's figures from a run directory; it
must agree with ``puzzlekit.app.plots`` (its last cell asserts so)."""

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


def test_the_reject_distributions_notebook_is_there():
    assert "reject_distributions.ipynb" in [nb.name for nb in NOTEBOOKS]


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

"""The analysis notebooks run top to bottom in a Jupyter kernel against a small run of two
families (``experiments/two_families.toml``: 4×4 Sudoku and 5×5 KenKen; the session's
``two_family_run`` of tests/conftest.py, shared with the report's tests), and draw
their figures inline, one panel per schema, one per (schema, k) where a schema's arms differ in k
(each notebook's last cell checks so and says it).

``notebooks/reject_distributions.ipynb`` redraws the report's figures from a run directory; it
must agree with ``puzzlekit.app.plots`` (its last cell asserts so). ``notebooks/run_analysis.ipynb``
reads the run directory alone: it verifies the stored accepted puzzles again (and asserts they
give the recorded verdicts), draws gap sizes per attempt and the holdout's conflicts.
``notebooks/paper_figures.ipynb`` draws holdout reject rates with intervals, calls to acceptance
and gap size distributions per arm."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

pytest.importorskip("nbclient")


def test_the_analysis_notebooks_are_there():
    names = [nb.name for nb in NOTEBOOKS]
    assert "reject_distributions.ipynb" in names and "run_analysis.ipynb" in names
    assert "paper_figures.ipynb" in names


def test_the_run_analysis_notebook_says_first_how_to_make_its_run():
    import json

    first = json.loads((ROOT / "notebooks" / "run_analysis.ipynb").read_text())["cells"][0]
    assert first["cell_type"] == "markdown"
    assert "puzzlekit run experiments/smoke.toml --out runs/smoke" in "".join(first["source"])


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[nb.name for nb in NOTEBOOKS])
def test_notebook_executes_and_draws_inline(notebook, two_family_run, tmp_path, monkeypatch):
    """Executed by a Jupyter kernel (nbclient, as nbmake and ``jupyter nbconvert --execute``
    do), with no backend forced: every notebook shows its figures inline, each figure one panel
    per (schema, k) of the run (both schemas' arms differ in k: blind has k 6 and 8), never a
    panel that pools two k."""
    outputs = _execute(notebook, two_family_run, tmp_path, monkeypatch)
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert images, f"{notebook.name} drew no inline figure"
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    panels = "kenken5 k=6, kenken5 k=8, sudoku4 k=6, sudoku4 k=8"
    assert re.search(rf"\b[1-9]\d* figures, one panel per \(schema, k\): {panels}\n", text), text
    assert "split by k: kenken5, sudoku4" in text


@pytest.mark.parametrize("name", ["paper_figures.ipynb", "run_analysis.ipynb"])
def test_a_notebook_reads_a_run_of_row_schema_2(name, two_family_run, tmp_path, monkeypatch):
    """Row schema 2 called an attempt's verdict ``verdict``: the notebooks read a run through
    ``load_run``, which gives it today's name, so an older run still draws."""
    import json
    import shutil

    import pandas as pd

    old = tmp_path / "v2"
    shutil.copytree(two_family_run, old)
    attempts = pd.read_parquet(old / "attempts.parquet")
    attempts.rename(columns={"uniquenessVerdict": "verdict"}).to_parquet(
        old / "attempts.parquet", index=False
    )
    manifest = json.loads((old / "manifest.json").read_text())
    (old / "manifest.json").write_text(json.dumps({**manifest, "rowSchemaVersion": 2}))
    outputs = _execute(ROOT / "notebooks" / name, old, tmp_path, monkeypatch)
    assert not [o for o in outputs if o.output_type == "error"]
    assert [o for o in outputs if "image/png" in o.get("data", {})]


def _execute(notebook: Path, run: Path, tmp_path: Path, monkeypatch) -> list:
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("PUZZLEKIT_RUN", str(run))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = nbformat.read(notebook, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def test_run_analysis_reads_back_every_puzzle_of_kenken_nonogram_and_futoshiki(
    tmp_path_factory, tmp_path, monkeypatch
):
    """The notebook checks that every accepted puzzle's JSON and text line give the recorded
    digest; futoshiki's text line gave another one before clues were held in one canonical
    order (the notebook stopped with an AssertionError on such a run)."""
    import tomllib

    from puzzlekit.app.experiment import parse_config, run_experiment

    raw = tomllib.loads((ROOT / "experiments" / "two_families.toml").read_text())
    schemas = [
        {"family": "kenken", "params": {"size": 4}, "label": "kenken4"},
        {"family": "nonogram", "params": {"rows": 5, "cols": 5}, "label": "nonogram5"},
        {"family": "futoshiki", "params": {"size": 4}, "label": "futoshiki4"},
    ]
    prereg = {**raw["preregistration"], "hypotheses": raw["preregistration"]["hypotheses"][1:2]}
    config = parse_config(
        {
            **raw,
            "trials": 2,
            "batch": 2,
            "schemas": schemas,
            "strategies": [{"name": "adaptive", "clues": [6]}],
            "filters": [{"verifier": "sat"}],
            "preregistration": prereg,
        }
    )
    out = tmp_path_factory.mktemp("three") / "run"
    run = run_experiment(config, out, executor="serial", quiet=True, report=False)
    outputs = _execute(ROOT / "notebooks" / "run_analysis.ipynb", run, tmp_path, monkeypatch)
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    agreed = re.search(r"\{\('filter', True\): (\d+), \('holdout', True\): (\d+)\}", text)
    assert agreed and int(agreed[1]) == int(agreed[2]) >= 3, text
    assert "figures, one panel per (schema, k): futoshiki4, kenken4, nonogram5" in text
    assert "split by k: no schema" in text  # one k (6) in every schema: one panel each


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[nb.name for nb in NOTEBOOKS])
def test_a_notebook_without_its_run_says_how_to_make_it(notebook, tmp_path):
    """No notebook runs an experiment behind the reader's back: without its run directory it
    stops with the command that makes one."""
    import json

    first = json.loads(notebook.read_text())["cells"][0]
    assert first["cell_type"] == "markdown" and "puzzlekit run experiments/" in "".join(
        first["source"]
    )
    setup = "".join(json.loads(notebook.read_text())["cells"][1]["source"])
    assert "run_experiment" not in setup and "FileNotFoundError" in setup
    env = {**os.environ, "PUZZLEKIT_RUN": str(tmp_path / "missing"), "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-c", setup], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode != 0 and "puzzlekit run experiments/" in proc.stderr

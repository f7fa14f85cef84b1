"""A run directory is sealed: the manifest and the ledger's run-end entry hold every data file's
digest, and ``puzzlekit report --check RUN_DIR`` names every file changed after the run."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.app.cli import main
from puzzlekit.app.experiment import parse_config, run_experiment
from puzzlekit.app.experiment.run_check import check_run, data_files
from puzzlekit.audit.ledger import Ledger
from puzzlekit.core.seal import file_digest

SMOKE = Path(__file__).resolve().parent.parent / "experiments" / "smoke.toml"


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    raw = tomllib.loads(SMOKE.read_text())
    raw.update(trials=2, batch=1)
    out = tmp_path_factory.mktemp("sealed") / "run"
    run_experiment(parse_config(raw), out, quiet=True, executor="serial", report=False)
    return out


@pytest.fixture
def run(finished, tmp_path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(finished, copy)
    return copy


def test_the_manifest_and_the_ledger_hold_every_data_files_digest(finished) -> None:
    manifest = json.loads((finished / "manifest.json").read_text())
    names = data_files(finished)
    assert "puzzles.parquet" in names and any(n.startswith("parts/") for n in names)
    assert manifest["files"] == {n: file_digest(finished / n) for n in names}
    with Ledger(finished / "ledger.db") as ledger:
        end = [e.body for e in ledger.entries() if e.body.get("kind") == "run-end"][-1]
    assert end["files"] == manifest["files"]
    assert end["manifestDigest"] == file_digest(finished / "manifest.json")
    assert check_run(finished) == []


def test_report_check_passes_an_intact_run(run, capsys) -> None:
    assert main(["report", "--check", str(run)]) == 0
    assert "intact" in capsys.readouterr().out


def _rewrite_rows(run: Path) -> None:
    df = pd.read_parquet(run / "puzzles.parquet")
    df.loc[df.index[0], "filterCalls"] = 1
    df.to_parquet(run / "puzzles.parquet")


def _edit_manifest(run: Path) -> None:
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["files"]["puzzles.parquet"] = "sha256:" + "0" * 64
    (run / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    "tamper,named",
    [
        (_rewrite_rows, "puzzles.parquet: changed since it was sealed"),
        (lambda r: next((r / "parts").glob("*.parquet")).unlink(), "sealed but missing"),
        (lambda r: shutil.copy(r / "puzzles.parquet", r / "extra.parquet"), "not in the seal"),
        (_edit_manifest, "manifest.json: changed since the run ended"),
    ],
    ids=["rows", "part-removed", "file-added", "manifest"],
)
def test_report_check_names_what_changed(run, capsys, tamper, named) -> None:
    tamper(run)
    assert main(["report", "--check", str(run)]) == 1
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err


def test_a_run_without_a_seal_is_said_to_be_unverifiable(run, capsys) -> None:
    manifest = json.loads((run / "manifest.json").read_text())
    del manifest["files"]
    (run / "manifest.json").write_text(json.dumps(manifest))
    assert main(["report", "--check", str(run)]) == 1
    assert "no file digests" in capsys.readouterr().err

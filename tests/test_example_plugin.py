"""The example plugin package (examples/puzzlekit-takuzu) works with every command, unchanged.

The package is made visible to ``python -m puzzlekit`` subprocesses the way an installed one is:
through its entry point. A ``puzzlekit_takuzu-0.1.0.dist-info`` folder (METADATA and the
``entry_points.txt`` that the example's pyproject.toml declares) is written into a temporary
directory that goes on PYTHONPATH next to the package. That takes milliseconds and no network;
``pip install --no-build-isolation --no-deps --target`` needs the ``wheel`` package beside
setuptools < 70.1, which this project does not depend on. Nothing is registered in this test
process: the plugin stays out of the other tests' registries.

``--plugin MODULE`` and ``plugins = [...]`` name the same module per use, uninstalled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.quality.golden.corpus import content_digest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "puzzlekit-takuzu"
TIMEOUT = 240


def _pythonpath(*paths: Path) -> dict[str, str]:
    parts = [str(p) for p in paths]
    if os.environ.get("PYTHONPATH"):
        parts.append(os.environ["PYTHONPATH"])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(parts)}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, str]:
    """An environment where the example is installed as far as importlib.metadata can tell."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    site = tmp_path_factory.mktemp("site")
    info = site / f"puzzlekit_takuzu-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    groups = project["entry-points"]
    lines = [
        f"[{g}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) for g, eps in groups.items()
    ]
    (info / "entry_points.txt").write_text("\n".join(lines))
    (info / "top_level.txt").write_text("puzzlekit_takuzu\n")
    return _pythonpath(site, EXAMPLE)


@pytest.fixture(scope="module")
def uninstalled() -> dict[str, str]:
    """The package importable but not installed: no entry point."""
    return _pythonpath(EXAMPLE)


def cli(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "puzzlekit", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def test_the_entry_point_makes_the_family_a_registered_schema(installed, uninstalled):
    proc = cli(installed, "schemas", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["params"] for r in rows if r["family"] == "takuzu"] == [{"size": 4}, {"size": 6}]
    missing = cli(uninstalled, "generate", "takuzu")
    assert missing.returncode == 2 and "unknown family 'takuzu'" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def generated(installed, tmp_path_factory) -> tuple[Path, list[dict]]:
    """Three takuzu puzzles from the plugin's strategy, filter and holdout, written to a file."""
    out = tmp_path_factory.mktemp("gen") / "takuzu.jsonl"
    args = ["generate", "takuzu", "--count", "3", "--seed", "4", "--strategy", "random-gap"]
    args += ["--filter", "takuzu-lines", "--holdout", "sat", "--out", str(out)]
    proc = cli(installed, *args)
    assert proc.returncode == 0, proc.stderr
    return out, [json.loads(line) for line in out.read_text().splitlines()]


def test_generate_takuzu_with_the_plugins_strategy_filter_and_holdout(generated, installed):
    out, rows = generated
    assert len(rows) == 3
    for row in rows:
        assert (row["status"], row["strategy"]) == ("accepted", "random-gap")
        assert row["filterVerdict"] == row["holdoutVerdict"] == "UNIQUE"
        assert len(row["text"]) == 36 and row["clueCount"] == 36 - row["text"].count(".")
    again = cli(
        installed,
        *"generate takuzu --count 3 --seed 4 --strategy random-gap".split(),
        "--filter",
        "takuzu-lines",
        "--holdout",
        "sat",
    )
    assert again.stdout == out.read_text()  # one seed, the same bytes


def test_generate_takuzu_with_the_defaults_and_the_rule_out_strategy(installed):
    for extra in ([], ["--strategy", "rule-out", "--params", '{"size": 8}']):
        proc = cli(installed, "generate", "takuzu", "--seed", "1", *extra)
        assert proc.returncode == 0, proc.stderr
        (row,) = [json.loads(line) for line in proc.stdout.splitlines()]
        assert row["filterVerdict"] == row["holdoutVerdict"] == "UNIQUE"


def test_verify_reads_generated_puzzles_in_the_text_format(generated, installed, tmp_path):
    _, rows = generated
    lines = tmp_path / "takuzu.txt"
    lines.write_text("".join(r["text"] + "\n" for r in rows))
    for verifier in ("takuzu-lines", "enumerative"):
        proc = cli(installed, "verify", str(lines), "--family", "takuzu", "--verifier", verifier)
        assert proc.returncode == 0, proc.stderr
        reports = [json.loads(line) for line in proc.stdout.splitlines()]
        assert [r["uniquenessVerdict"] for r in reports] == ["UNIQUE"] * 3
        assert [r["instanceDigest"] for r in reports] == [r["instanceDigest"] for r in rows]
        assert [r["solutions"][0] for r in reports] == [r["solution"] for r in rows]
    sparse = tmp_path / "sparse.txt"
    sparse.write_text("1.0.......1....0\n")
    text = cli(installed, "verify", str(sparse), "--family", "takuzu", "--format", "text")
    assert "MULTIPLE" in text.stdout and "?" in text.stdout and "| 1 " in text.stdout


def test_run_an_experiment_with_the_plugin_strategies(installed, tmp_path):
    config = (EXAMPLE / "experiments" / "strategies.toml").read_text()
    config = config.replace("trials = 40", "trials = 2").replace("batch = 10", "batch = 2")
    path = tmp_path / "strategies.toml"
    path.write_text(config)
    out = str(tmp_path / "run")
    proc = cli(installed, "run", str(path), "--out", out, "--executor", "serial", "--quiet")
    assert proc.returncode == 0, proc.stderr
    puzzles = pd.read_parquet(tmp_path / "run" / "puzzles.parquet")
    assert sorted(set(puzzles.strategy)) == ["adaptive", "blind", "random-gap", "rule-out"]
    assert len(puzzles) == 8 and (puzzles.status == "accepted").all()
    # the holdout runs in its own process: it found the family through the entry point
    assert (puzzles.holdoutVerdict == "UNIQUE").all()


def test_regress_update_builds_the_corpus_the_example_keeps_and_regress_then_passes(
    installed, tmp_path
):
    golden = tmp_path / "golden"
    built = cli(installed, "regress", "--golden", str(golden), "--schema", "takuzu-4x4", "--update")
    assert built.returncode == 0 and "new corpus built" in built.stdout, built.stderr
    corpus = golden / "takuzu-4x4.jsonl"
    assert corpus.read_text() == (EXAMPLE / "tests" / "golden" / "takuzu-4x4.jsonl").read_text()
    for verifier in ([], ["--verifier", "takuzu-lines"]):
        proc = cli(installed, "regress", "--golden", str(golden), *verifier)
        assert proc.returncode == 0 and "0 changed" in proc.stdout, proc.stdout
    # a recorded report that the verifier no longer gives (a well-formed entry, digest and all)
    entries = [json.loads(line) for line in corpus.read_text().splitlines()]
    entries[0]["report"]["solutionCount"] = 2
    entries[0]["reportDigest"] = content_digest(entries[0]["report"])
    corpus.write_text("".join(json.dumps(e) + "\n" for e in entries))
    refused = cli(installed, "regress", "--golden", str(golden))  # changed outside --update
    assert refused.returncode == 2 and "changed since it was sealed" in refused.stderr
    (golden / "SEAL.json").unlink()  # an unsealed corpus is compared entry by entry
    broken = cli(installed, "regress", "--golden", str(golden))
    assert broken.returncode == 1 and "solutionCount: 2 -> 1" in broken.stdout, broken.stdout


def test_the_examples_own_test_suite_passes(uninstalled):
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=EXAMPLE,
        env=uninstalled,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout.splitlines()[-1] and "skipped" not in proc.stdout


# --- per use: --plugin MODULE and plugins = [...] ------------------------------------------------


def test_plugin_flag_names_an_uninstalled_module_for_verify(uninstalled, tmp_path):
    lines = tmp_path / "t.txt"
    lines.write_text("1.0.......1....0\n")
    args = ["verify", str(lines), "--family", "takuzu", "--verifier", "takuzu-lines"]
    proc = cli(uninstalled, *args, "--plugin", "puzzlekit_takuzu")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["uniquenessVerdict"] == "MULTIPLE"


def test_plugin_flag_reaches_the_holdout_process_of_generate(uninstalled):
    args = ["generate", "takuzu", "--count", "2", "--strategy", "rule-out"]
    args += ["--filter", "takuzu-lines", "--holdout", "sat", "--plugin", "puzzlekit_takuzu"]
    proc = cli(uninstalled, *args)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["holdoutVerdict"] for r in rows] == ["UNIQUE", "UNIQUE"]


def test_plugins_in_a_config_reach_every_process_of_a_run(uninstalled, tmp_path):
    config = (EXAMPLE / "experiments" / "strategies.toml").read_text()
    config = config.replace("trials = 40", "trials = 2").replace("batch = 10", "batch = 2")
    config = 'plugins = ["puzzlekit_takuzu"]\n' + config
    path = tmp_path / "strategies.toml"
    path.write_text(config)
    out = str(tmp_path / "run")
    proc = cli(uninstalled, "run", str(path), "--out", out, "--executor", "serial", "--quiet")
    assert proc.returncode == 0, proc.stderr
    puzzles = pd.read_parquet(tmp_path / "run" / "puzzles.parquet")
    assert len(puzzles) == 8 and (puzzles.holdoutVerdict == "UNIQUE").all()

"""The trust boundary around the holdout, through the command line (docs/security.md).

A plugin, whether named with ``--plugin``, in a config's ``plugins`` or installed as an entry
point, runs in the loop process only: its import code patching the holdout's check
(``pk_forge_patch``) changes no holdout verdict, and the adversary strategy reaches nothing of the
judging process through the operating system, on serial, process-pool and Dask execution. The
faulty filter accepts puzzles the holdout calls UNSOLVABLE, so a forgery (every verdict UNIQUE)
would show. Each test runs the command in a fresh process: a judging process is one for good.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.loop.sandbox import ENV_NAMES_VAR, SHARE_VAR, landlock_abi
from tests.adversary_plugin import LOG_ENV, SECRET_ENV, TARGET_ENV

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "plugin_fixture"
GENERATE = ["generate", "sudoku", "--params", '{"size":4}', "--filter", "faulty"]
GENERATE += ["--holdout", "enumerative", "--count", "6", "--seed", "5", "--quiet"]


def _env(tmp: Path, extra_path: Path | None = None) -> dict[str, str]:
    (tmp / "log").mkdir(exist_ok=True)
    (tmp / "secret.txt").write_text("what the judge keeps\n")
    paths = [str(ROOT), str(FIXTURE), *([str(extra_path)] if extra_path else [])]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        LOG_ENV: str(tmp / "log" / "adversary.jsonl"),
        TARGET_ENV: str(tmp / "secret.txt"),
        SECRET_ENV: "a secret of the judging process",
        ENV_NAMES_VAR: f"{LOG_ENV},{TARGET_ENV}",
        SHARE_VAR: str(tmp / "log"),
    }


def _cli(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess:
    """The command, run from the project (on the import path, hence readable to the loop
    process; the test's files are elsewhere)."""
    return subprocess.run(
        [sys.executable, "-m", "puzzlekit", *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=240,
        check=False,
    )


def _verdicts(stdout: str) -> list[str]:
    return [json.loads(line)["holdoutVerdict"] for line in stdout.splitlines()]


def _reached(log: Path) -> set[str]:
    """What the adversary reached of the judging process (docs/security.md residual risks)."""
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert rows, "the adversary never ran"
    got = {("proc fd/N" if f.startswith("proc fd/") else f) for r in rows for f in r["os"]}
    if landlock_abi() == 0:  # unconfined: a shell reads its user's files, root reads /proc
        got -= {"proc cmdline", "proc cwd", "target read", "target shell"}
        if os.geteuid() == 0:
            got -= {"proc environ", "proc fd", "proc fd/N", "proc mem"}
    return got


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> list[str]:
    got = _cli(_env(tmp_path_factory.mktemp("base")), *GENERATE)
    assert got.returncode == 0, got.stderr
    verdicts = _verdicts(got.stdout)
    assert "UNSOLVABLE" in verdicts  # a forgery would turn these into UNIQUE
    return verdicts


def test_a_plugin_that_patches_the_holdout_check_changes_no_verdict(baseline, tmp_path) -> None:
    got = _cli(_env(tmp_path), "--plugin", "pk_forge_patch", *GENERATE)
    assert got.returncode == 0, got.stderr
    assert _verdicts(got.stdout) == baseline


def test_an_entry_point_plugin_never_loads_in_the_judging_process(baseline, tmp_path) -> None:
    dist = tmp_path / "site" / "pk_forge-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pk-forge\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[puzzlekit.plugins]\nforge = pk_forge_patch\n")
    env = _env(tmp_path, tmp_path / "site")
    got = _cli(env, *GENERATE)
    assert got.returncode == 0, got.stderr
    assert _verdicts(got.stdout) == baseline


def test_a_plugin_holdout_the_user_names_is_let_in(tmp_path) -> None:
    env = _env(tmp_path)
    named = ["--plugin", "pk_fixture_plugin", *GENERATE[:4], "--filter", "faulty"]
    got = _cli(env, *named, "--holdout", "pkfix-sat", "--count", "1", "--quiet")
    assert got.returncode == 0, got.stderr
    assert _verdicts(got.stdout) == ["UNIQUE"]


CONFIG = """
name = "trust"
seed = 7
trials = 2
batch = 2
plugins = ["tests.adversary_plugin", "pk_forge_patch"]
[budget]
max_calls = 30
solution_cap = 2
[[schemas]]
family = "sudoku"
params = { size = 4 }
[[strategies]]
name = "adversary"
clues = [4]
[[filters]]
verifier = "faulty"
label = "faulty-box"
settings = { ignore = "box" }
[holdout]
verifier = "enumerative"
[preregistration]
metrics = ["holdout_reject_rate"]
[[preregistration.hypotheses]]
id = "H3"
claim = "the holdout rejects some faulty-box puzzles"
metric = "holdout_reject_rate"
arms = ["faulty-box"]
direction = "greater"
value = 0
test = "bootstrap"
alpha = 0.05
"""


def _dask_available() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


EXECUTORS = [
    pytest.param("serial", id="serial"),
    pytest.param("local", id="local"),
    pytest.param(
        "dask",
        id="dask",
        marks=pytest.mark.skipif(not _dask_available(), reason="dask[distributed] not installed"),
    ),
]


#: a run as ``puzzlekit run`` makes it (a judging process from the start), without the report
RUN = (
    "import sys; from puzzlekit.core.plugins import judge_without_plugins; "
    "judge_without_plugins(); from puzzlekit.app.experiment import load_config, run_experiment; "
    "run_experiment(load_config(sys.argv[1]), sys.argv[2], executor=sys.argv[3], workers=1, "
    "quiet=True, report=False)"
)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_no_executor_lets_a_plugin_into_the_judge(tmp_path, executor) -> None:
    env = _env(tmp_path)
    (tmp_path / "trust.toml").write_text(CONFIG)
    run = tmp_path / "run"
    if executor == "serial":  # the command itself once
        argv = ["run", str(tmp_path / "trust.toml"), "--out", str(run), "--executor", executor]
        got = _cli(env, *argv, "--quiet")
    else:
        argv = [sys.executable, "-c", RUN, str(tmp_path / "trust.toml"), str(run), executor]
        got = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=240)
    assert got.returncode in (0, 1), got.stderr
    verdicts = pd.read_parquet(run / "puzzles.parquet")["holdoutVerdict"].dropna().tolist()
    assert "UNSOLVABLE" in verdicts, verdicts  # the patch never reached the holdout
    assert _reached(Path(env[LOG_ENV])) == set()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["trust"]["judge"] == "kept-out"
    assert manifest["trust"]["loopPlugins"] == ["tests.adversary_plugin", "pk_forge_patch"]
    assert manifest["plugins"] == []


def test_a_config_plugin_that_replaces_a_name_is_refused_naming_it(tmp_path) -> None:
    config = CONFIG.replace('"pk_forge_patch"', '"pk_forge_replace"')
    (tmp_path / "forge.toml").write_text(config)
    got = _cli(_env(tmp_path), "run", str(tmp_path / "forge.toml"), "--out", str(tmp_path / "r"))
    assert got.returncode == 2, got.stderr
    assert "Traceback" not in got.stderr
    assert "plugin 'pk_forge_replace' may not replace verifier 'enumerative'" in got.stderr

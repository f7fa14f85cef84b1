"""Experiments: config errors name the key's path; a run directory holds what it promises; the
same config gives the same rows under every executor; a killed run resumes without losing or
repeating a trial."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.app.cli import main
from puzzlekit.app.experiment import ConfigError, parse_config, plan, run_experiment
from puzzlekit.audit.ledger import Ledger

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "experiments" / "smoke.toml"


def smoke_raw(**overrides) -> dict:
    raw = tomllib.loads(SMOKE.read_text())
    raw.update(overrides)
    return raw


def tiny_config():
    """Smoke with fewer trials: enough for several tasks, quick under three executors."""
    return parse_config(smoke_raw(trials=4, batch=2))


def without_seconds(df: pd.DataFrame) -> pd.DataFrame:
    timings = [c for c in df.columns if c == "seconds" or c.endswith("Seconds")]
    return df.drop(columns=timings).reset_index(drop=True)


def mutate(path_fn):
    raw = smoke_raw()
    path_fn(raw)
    return raw


def test_a_config_names_any_registered_strategy_and_an_unknown_one_is_refused_with_the_known():
    from puzzlekit.generators import STRATEGIES, register_strategy
    from puzzlekit.generators.blind import Blind

    raw = smoke_raw()
    raw["strategies"] = [{"name": "test-blind-twin", "clues": [5]}]
    hypotheses = raw["preregistration"]["hypotheses"]  # those naming no strategy
    raw["preregistration"]["hypotheses"] = [h for h in hypotheses if h["id"] != "H1"]
    with pytest.raises(ConfigError) as err:
        parse_config(raw)
    assert err.value.path == "strategies[0].name"
    assert "unknown strategy 'test-blind-twin'; closest: blind" in str(err.value)
    register_strategy("test-blind-twin", Blind)
    try:
        config = parse_config(raw)
    finally:
        STRATEGIES.unregister("test-blind-twin")
    assert [s.name for s in config.strategies] == ["test-blind-twin"]


@pytest.mark.parametrize(
    "edit,path",
    [
        (lambda r: r.update(trails=3), "trails"),
        (lambda r: r.update(trials="6"), "trials"),
        (lambda r: r.update(trials=0), "trials"),
        (lambda r: r.update(executor="cloud"), "executor"),
        (lambda r: r["budget"].update(max_calls=1.5), "budget.max_calls"),
        (lambda r: r["budget"].update(max_cals=3), "budget.max_cals"),
        (lambda r: r["schemas"][0].update(params={"size": 5}), "schemas[0].params"),
        (lambda r: r["schemas"][0].update(family="chess"), "schemas[0].family"),
        (lambda r: r["strategies"][1].update(name="greedy"), "strategies[1].name"),
        (lambda r: r["strategies"][0].update(clues=[5, 99]), "strategies[0].clues[1]"),
        (lambda r: r["strategies"][0].update(clues=[5, True]), "strategies[0].clues[1]"),
        (lambda r: r["strategies"][0].update(extra=1), "strategies[0].extra"),
        (lambda r: r["filters"][0].update(verifier="no-such-verifier"), "filters[0].verifier"),
        (lambda r: r["filters"][1].update(settings={"nope": 1}), "filters[1].settings"),
        (lambda r: r["holdout"].update(verifier="sampling"), "holdout.verifier"),
        (lambda r: r.pop("preregistration"), "preregistration"),
        (lambda r: r["preregistration"].update(metrics=["vibes"]), "preregistration.metrics[0]"),
        (lambda r: r["preregistration"].update(hypotheses=[1]), "preregistration.hypotheses[0]"),
    ],
)
def test_config_error_names_the_key_path(edit, path):
    with pytest.raises(ConfigError) as info:
        parse_config(mutate(edit), "x.toml")
    assert info.value.path == path
    assert str(info.value).startswith(f"x.toml: {path}: ")


def test_cli_rejects_a_bad_config_with_its_path_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(SMOKE.read_text().replace("max_calls = 30", 'max_calls = "30"'))
    assert main(["run", str(bad), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "budget.max_calls: expected an integer" in err
    assert not (tmp_path / "run").exists()


def test_config_digest_ignores_spelling_and_follows_content():
    a = parse_config(smoke_raw())
    b = parse_config(copy.deepcopy(smoke_raw()))
    assert a.digest == b.digest
    assert parse_config(smoke_raw(seed=8)).digest != a.digest


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "smoke"
    assert main(["run", str(SMOKE), "--out", str(out), "--workers", "2", "--quiet"]) == 0
    return out


def test_smoke_run_writes_manifest_parquet_ledger_and_report(smoke_run):
    config = parse_config(smoke_raw())
    manifest = json.loads((smoke_run / "manifest.json").read_text())
    assert manifest["configDigest"] == config.digest
    for key in ("versions", "gitRevision", "trialSeeds", "verifiers", "start", "end"):
        assert key in manifest
    assert manifest["end"] and manifest["versions"]["numpy"]
    assert [f["verifier"] for f in manifest["verifiers"]["filters"]] == ["sat", "faulty"]
    assert manifest["verifiers"]["holdout"]["verifier"] == "enumerative"

    puzzles = pd.read_parquet(smoke_run / "puzzles.parquet")
    attempts = pd.read_parquet(smoke_run / "attempts.parquet")
    arms = 3 * 2  # (blind k5, blind k7, adaptive k4) × (sat, faulty)
    assert len(puzzles) == arms * config.trials == manifest["rows"]["puzzles"]
    for col in (
        "status",
        "clueCount",
        "filterCalls",
        "holdoutVerdict",
        "holdoutRejectCase",
        "holdoutCoords",
        "stopKind",
        "escalationTarget",
        "kernelOutcome",
        "level",
        "technique",
    ):
        assert col in puzzles
    for col in (
        "trial",
        "strategy",
        "schema",
        "attempt",
        "instanceDigest",
        "side",
        "uniquenessVerdict",
        "rejectCase",
        "topCoord",
        "solutionCount",
        "seconds",
    ):
        assert col in attempts
    filt = attempts[attempts["side"] == "filter"]
    assert len(filt) == puzzles["filterCalls"].sum()
    assert (attempts["side"] == "holdout").sum() == puzzles["holdoutVerdict"].notna().sum()
    hold = attempts[attempts["side"] == "holdout"]
    assert hold["seconds"].notna().all() and (hold["seconds"] > 0).all()
    assert puzzles.loc[puzzles["holdoutVerdict"].notna(), "holdoutSeconds"].notna().all()
    # sat reports forcedCells on MULTIPLE; the probe measures every sat-accepted puzzle
    sat_multiple = filt[(filt["filter"] == "sat") & (filt["uniquenessVerdict"] == "MULTIPLE")]
    assert sat_multiple["forcedCells"].notna().all()
    assert filt.loc[filt["uniquenessVerdict"] == "UNIQUE", "forcedCells"].isna().all()
    sat_acc = puzzles[(puzzles["filter"] == "sat") & (puzzles["status"] == "accepted")]
    assert sat_acc["probeForcedCells"].between(1, 16).all()
    # every accepted 4×4 Sudoku is graded; the rest are not
    acc = puzzles["status"] == "accepted"
    assert puzzles.loc[acc, "level"].notna().all() and puzzles.loc[acc, "technique"].notna().all()
    assert puzzles.loc[~acc, "level"].isna().all()
    # the sat filter is exact: the holdout never rejects what it accepted
    sat = puzzles[(puzzles["filter"] == "sat") & (puzzles["status"] == "accepted")]
    assert not sat["holdoutRejected"].any()

    with Ledger(smoke_run / "ledger.db") as ledger:
        entries = ledger.entries()
        assert ledger.verify().ok
    assert entries[0].seq == 1 and entries[0].body["configDigest"] == config.digest
    assert entries[0].body["kind"] == "preregistration"

    report = smoke_run / "report"
    from puzzlekit.app.plots import FIGURES, GRADE_FIGURE

    for name in ("report.md", *FIGURES, GRADE_FIGURE):
        assert (report / name).stat().st_size > 0
    text = (report / "report.md").read_text()
    assert "holdout_reject_rate" in text
    # every pre-registered hypothesis is judged: its row names it and gives a judgement
    rows = [line for line in text.splitlines() if line.startswith("| H")]
    assert len(rows) == len(config.preregistration.hypotheses) >= 1
    for h, row in zip(config.preregistration.hypotheses, rows, strict=True):
        assert h.claim in row
        assert any(f"**{o}**" in row for o in ("held", "not held", "inconclusive"))
    # the sat filter's holdout reject rate is exactly 0 in the rows, so H2 holds
    assert "**held**" in rows[1]
    for name in FIGURES:
        assert f"]({name})" in text  # every figure is embedded
    for heading in ("Reject-case", "calls to acceptance", "Coordinates named", "holdout verdicts"):
        assert heading in text
    assert "Expressive range" in text and "kernel outcomes" in text


def test_report_command_rewrites_the_report_from_the_parquet_files(smoke_run, capsys):
    (smoke_run / "report" / "report.md").unlink()
    assert main(["report", str(smoke_run)]) == 0
    assert capsys.readouterr().out.strip() == f"report: {smoke_run / 'report' / 'report.md'}"
    text = (smoke_run / "report" / "report.md").read_text()
    puzzles = pd.read_parquet(smoke_run / "puzzles.parquet")
    rejects = int(puzzles["holdoutRejected"].sum())
    assert f"Holdout rejects: {rejects}, of which {rejects} name coordinates." in text


def test_an_existing_run_is_not_overwritten_without_resume(smoke_run, capsys):
    assert main(["run", str(SMOKE), "--out", str(smoke_run), "--quiet"]) == 2
    assert "--resume" in capsys.readouterr().err


def test_rows_are_identical_under_serial_process_pool_and_dask(tmp_path):
    config = tiny_config()
    runs = {
        "serial": run_experiment(
            config, tmp_path / "s", executor="serial", quiet=True, report=False
        ),
        "local1": run_experiment(
            config, tmp_path / "l1", executor="local", workers=1, quiet=True, report=False
        ),
        "local2": run_experiment(
            config, tmp_path / "l2", executor="local", workers=2, quiet=True, report=False
        ),
    }
    try:
        import distributed  # noqa: F401
    except ImportError:
        pass
    else:
        runs["dask"] = run_experiment(
            config,
            tmp_path / "d",
            executor="dask",
            workers=1,
            quiet=True,
            report=False,
            dask_processes=False,
        )
    ref = runs.pop("serial")
    for table in ("attempts.parquet", "puzzles.parquet"):
        expected = without_seconds(pd.read_parquet(ref / table))
        assert len(expected)
        exact = _arrow_without_timings(ref / table)
        for name, run in runs.items():
            got = without_seconds(pd.read_parquet(run / table))
            pd.testing.assert_frame_equal(got, expected, obj=f"{name}/{table}")
            # nested columns too (gap lists, conflicts, reject details), compared by Arrow
            assert _arrow_without_timings(run / table).equals(exact), f"{name}/{table}"


def _arrow_without_timings(path: Path):
    import pyarrow.parquet as pq

    from puzzlekit.loop.row_schema import TIMINGS

    table = pq.read_table(path)
    return table.drop_columns([c for c in TIMINGS if c in table.column_names])


def test_resume_skips_finished_tasks_and_recovers_lost_ones(tmp_path):
    config = tiny_config()
    run = run_experiment(config, tmp_path / "r", executor="serial", quiet=True, report=False)
    expected = without_seconds(pd.read_parquet(run / "puzzles.parquet"))
    parts = sorted((run / "parts").glob("*.puzzles.parquet"))
    assert len(parts) == len(plan(config))
    lost = parts[::2]
    kept = {p: p.stat().st_mtime_ns for p in parts[1::2]}
    for p in lost:
        p.unlink()
    run_experiment(config, run, executor="serial", quiet=True, report=False, resume=True)
    assert {p: p.stat().st_mtime_ns for p in kept} == kept  # finished tasks were not rerun
    assert all(p.exists() for p in lost)
    pd.testing.assert_frame_equal(
        without_seconds(pd.read_parquet(run / "puzzles.parquet")), expected
    )
    with Ledger(run / "ledger.db") as ledger:
        kinds = [e.body["kind"] for e in ledger.entries()]
    assert kinds == ["preregistration", "run-end", "resume", "run-end"]


def test_a_run_killed_with_sigkill_resumes_with_no_trial_lost_or_doubled(tmp_path):
    cfg = tmp_path / "kill.toml"
    cfg.write_text(SMOKE.read_text().replace("batch = 3", "batch = 1"))
    config = parse_config(smoke_raw(batch=1))
    out = tmp_path / "killed"
    cmd = [
        sys.executable,
        "-m",
        "puzzlekit",
        "run",
        str(cfg),
        "--out",
        str(out),
        "--executor",
        "serial",
        "--quiet",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list((out / "parts").glob("*.puzzles.parquet"))) >= 3:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.02)
    proc.wait()
    assert not (out / "puzzles.parquet").exists(), "the run finished before it could be killed"
    assert (
        main(["run", str(cfg), "--out", str(out), "--executor", "serial", "--resume", "--quiet"])
        == 0
    )
    puzzles = pd.read_parquet(out / "puzzles.parquet")
    keys = puzzles[["schema", "strategy", "k", "filter", "trial"]]
    assert not keys.duplicated().any()
    assert len(puzzles) == len(plan(config))  # one trial per task


def test_hypotheses_are_judged_from_the_rows() -> None:
    import pandas as pd

    from puzzlekit.app.plots.hypotheses import judge_all

    puzzles = pd.DataFrame(
        {
            "strategy": ["a"] * 20 + ["b"] * 20,
            "filter": ["sat"] * 40,
            "status": ["accepted"] * 40,
            "filterCalls": [1, 2] * 10 + [9, 10] * 10,
            "clueCount": [20] * 40,
            "holdoutVerdict": ["UNIQUE"] * 40,
            "holdoutRejected": [False] * 40,
        }
    )
    less = {"metric": "calls_per_accept_mean", "arms": ["a", "b"], "direction": "less"}
    manifest = {
        "config": {"seed": 3},
        "preregistration": {
            "hypotheses": [
                {**less, "id": "H1"},
                {**less, "arms": ["b", "a"], "id": "H2"},
                {"metric": "holdoutRejectRate", "arms": ["sat"], "direction": "equal", "value": 0},
                {"metric": "accept_rate", "arms": ["nobody"], "direction": "equal", "value": 1},
                "free text, recorded but not checkable",
            ]
        },
    }
    judged = judge_all(manifest, puzzles)
    assert [j.outcome for j in judged] == [
        "held",
        "not held",
        "held",
        "inconclusive",
        "inconclusive",
    ]
    assert judged[0].statistic == -8.0 and judged[0].interval[1] < 0
    assert "no rows" in judged[3].reason and "not checkable" in judged[4].reason
    assert judge_all(manifest, puzzles)[0].interval == judged[0].interval  # seeded


@pytest.mark.parametrize(
    ("hypothesis", "where"),
    [
        ({"metric": "nope", "arms": ["a"], "direction": "less", "value": 0}, "metric"),
        ({"metric": "accept_rate", "arms": [], "direction": "less"}, "arms"),
        ({"metric": "accept_rate", "arms": ["a", "b"], "direction": "up"}, "direction"),
        ({"metric": "accept_rate", "arms": ["a"], "direction": "less"}, "value"),
        ({"metric": "accept_rate", "arms": ["a", "b"], "direction": "less", "x": 1}, "x"),
    ],
)
def test_a_malformed_hypothesis_names_its_key(hypothesis: dict, where: str) -> None:
    raw = smoke_raw()
    raw["preregistration"]["hypotheses"] = [hypothesis]
    with pytest.raises(ConfigError) as err:
        parse_config(raw)
    assert err.value.path == f"preregistration.hypotheses[0].{where}"

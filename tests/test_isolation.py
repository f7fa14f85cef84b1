"""The holdout is out of the strategy's reach on every executor.

A strategy that plays the adversary (``tests/adversary_plugin.py``: frame walking, ``gc``,
module globals, registries, querying whatever holdout it finds) runs through the loop driver
and through experiments under serial, local-pool and Dask execution. Isolated, it finds no
holdout and no holdout report, and it runs in another process than the one that judged. The
control: with the isolation switched off (``holdout_process=False``) the same search finds the
holdout and queries it, so the search is not blind.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.app.experiment import parse_config, run_experiment
from puzzlekit.core.plugins import use_plugins
from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed
from puzzlekit.loop.isolation import close_loop_workers
from puzzlekit.loop.sandbox import ENV_NAMES_VAR, SHARE_VAR, landlock_abi
from tests.adversary_plugin import HOLDOUT, LOG_ENV, SECRET_ENV, TARGET_ENV

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = "tests.adversary_plugin"


@pytest.fixture
def adversary_log(tmp_path, monkeypatch):
    """The adversary's log file; loop processes started from here on write to it."""
    (tmp_path / "log").mkdir()
    log = tmp_path / "log" / "adversary.jsonl"
    target = tmp_path / "secret.txt"
    target.write_text("what the judge keeps\n")
    monkeypatch.setenv(LOG_ENV, str(log))
    monkeypatch.setenv(TARGET_ENV, str(target))
    monkeypatch.setenv(SECRET_ENV, "a secret of the judging process")
    # what the user lets through to the loop process: the log's name and folder, the target's
    # name (as a shell that listed the processes would know it), never the target itself
    monkeypatch.setenv(ENV_NAMES_VAR, f"{LOG_ENV},{TARGET_ENV}")
    monkeypatch.setenv(SHARE_VAR, str(tmp_path / "log"))
    use_plugins([PLUGIN])
    close_loop_workers()  # a loop process started before would not know the log
    yield log
    close_loop_workers()


def findings(log: Path) -> list[dict]:
    assert log.exists(), "the adversary never ran"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert rows, "the adversary never ran"
    return rows


def residual() -> set[str]:
    """What the loop process may still reach on this machine (docs/security.md): nothing where
    Landlock confines it; without Landlock, the judge's command line and working directory, the
    target (a shell can read any file its user can), and as root the judge's /proc entries."""
    if landlock_abi() > 0:
        return set()
    left = {"proc cmdline", "proc cwd", "target read", "target shell"}
    if os.geteuid() == 0:
        left |= {"proc environ", "proc fd", "proc mem"}
    return left


def reached(rows: list[dict]) -> set[str]:
    """What the adversary reached through the operating system, beyond this machine's residual
    (an ``fd/N`` of the judge counted once)."""
    got = {("proc fd/N" if f.startswith("proc fd/") else f) for r in rows for f in r["os"]}
    return got - residual() - ({"proc fd/N"} if "proc fd" in residual() else set())


def spec(**kw) -> LoopSpec:
    return LoopSpec(
        "sudoku",
        {"size": 4},
        strategy="adversary",
        k=4,
        filter="sat",
        holdout=HOLDOUT,
        max_calls=30,
        **kw,
    )


def test_the_adversary_finds_and_queries_the_holdout_when_the_loop_is_not_isolated(
    adversary_log,
):
    driver = LoopDriver(spec(holdout_process=False))
    kept = [driver.run(loop_seed(5, i)) for i in range(3)]  # results a caller holds on to
    rows = findings(adversary_log)
    assert all(r["pid"] == os.getpid() for r in rows)
    assert any(any(f.startswith("frame") for f in r["found"]) for r in rows)
    assert any(any(f.startswith("gc") for f in r["found"]) for r in rows)
    assert any("UNIQUE" in r["queried"] or "MULTIPLE" in r["queried"] for r in rows)
    # a later loop finds the reports the holdout gave on earlier ones
    assert kept and any(any("report" in f for f in r["found"]) for r in rows[1:])
    # the operating-system probes are not blind either: in the judging process they see its
    # environment and the file beside the run directory
    assert {"env secret", "target read", "target shell"} <= set(rows[0]["os"])


def test_an_isolated_loop_gives_the_adversary_nothing_and_the_same_results(adversary_log):
    isolated = LoopDriver(spec())
    assert isolated.isolated
    results = [isolated.run(loop_seed(5, i)) for i in range(4)]
    rows = findings(adversary_log)
    assert {r["pid"] for r in rows} == {isolated._worker.pid} != {os.getpid()}
    assert [r["found"] for r in rows] == [[]] * len(rows)
    assert [r["queried"] for r in rows] == [[]] * len(rows)
    assert reached(rows) == set()  # no /proc of the judge, descriptor, variable or run file
    assert any(r.holdout_report is not None for r in results)
    # one seed, one output: the isolated loop gives what the loop in one process gives (the
    # adversary is the adaptive strategy plus its search, which draws nothing from the rng)
    inline = LoopDriver(replace(spec(holdout_process=False), strategy="adaptive"))
    for i, got in enumerate(results):
        want = inline.run(loop_seed(5, i))
        assert got.instance == want.instance and got.status == want.status
        assert [a.to_json_obj() for a in got.trace] == [a.to_json_obj() for a in want.trace]
        assert got.holdout_report.digest() == want.holdout_report.digest()


def adversary_config():
    raw = tomllib.loads((ROOT / "experiments" / "smoke.toml").read_text())
    raw.update(trials=4, batch=2, plugins=[PLUGIN])
    raw["strategies"] = [{"name": "adversary", "clues": [4]}]
    raw["filters"] = [{"verifier": "sat"}]
    hypotheses = raw["preregistration"]["hypotheses"]  # only the sat filter's arm is left
    raw["preregistration"]["hypotheses"] = [h for h in hypotheses if h["arms"] == ["sat"]]
    return parse_config(raw)


def _dask_available() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


EXECUTORS = [
    pytest.param("serial", {}, id="serial"),
    pytest.param("local", {"workers": 2}, id="local"),
    pytest.param(
        "dask",
        {"workers": 1, "dask_processes": True},
        id="dask",
        marks=pytest.mark.skipif(not _dask_available(), reason="dask[distributed] not installed"),
    ),
]


@pytest.mark.parametrize("executor,options", EXECUTORS)
def test_no_executor_lets_the_strategy_reach_the_holdout(
    adversary_log, tmp_path, executor, options
):
    run = run_experiment(
        adversary_config(),
        tmp_path / executor,
        executor=executor,
        quiet=True,
        report=False,
        **options,
    )
    rows = findings(adversary_log)
    assert [r["found"] for r in rows] == [[]] * len(rows)
    assert [r["queried"] for r in rows] == [[]] * len(rows)
    assert reached(rows) == set()
    assert os.getpid() not in {r["pid"] for r in rows}
    puzzles = pd.read_parquet(run / "puzzles.parquet")
    assert puzzles["holdoutVerdict"].notna().any(), "the holdout judged nothing"


def test_the_loop_process_sends_json_that_is_checked_on_arrival():
    from puzzlekit.families import get_family
    from puzzlekit.generators.adaptive import Adaptive
    from puzzlekit.loop.driver import LoopBudget, run_loop
    from puzzlekit.loop.isolation import LoopWorkerError, result_from_json, result_to_json
    from puzzlekit.verifiers.registry import get_verifier

    schema = get_family("sudoku").schema({"size": 4})
    res = run_loop(schema, Adaptive(4), get_verifier("sat"), None, LoopBudget(), 3)
    wire = json.loads(json.dumps(result_to_json(res)))
    back = result_from_json(wire)
    assert back.instance == res.instance and back.status == "accepted"
    assert [a.to_json_obj() for a in back.trace] == [a.to_json_obj() for a in res.trace]
    assert back.filter_report.content_json_obj() == res.filter_report.content_json_obj()
    # an accepted instance under a filter report of another instance is refused
    other = {
        **wire,
        "filterReport": {**wire["filterReport"], "instanceDigest": "sha256:" + "0" * 64},
    }
    with pytest.raises(LoopWorkerError, match="another instance"):
        result_from_json(other)
    # so is an instance sent in a form that is not its canonical one
    spaced = {**wire, "instance": json.dumps(json.loads(wire["instance"]), indent=1)}
    with pytest.raises(LoopWorkerError, match="non-canonical"):
        result_from_json(spaced)


def test_the_driver_records_the_verifiers_it_called(adversary_log):
    result = LoopDriver(spec()).run(loop_seed(5, 0))
    assert (result.filter_name, result.holdout_name) == ("sat", HOLDOUT)


def test_edits_behind_the_read_only_surface_never_reach_the_loops_record(adversary_log):
    def run(strategy: str, inline: bool) -> list:
        driver = LoopDriver(replace(spec(holdout_process=not inline), strategy=strategy))
        return [driver.run(loop_seed(9, i)) for i in range(3)]

    edited, clean = run("surface-editor", False), run("adaptive", False)
    reports = [a.report for r in edited for a in r.trace if a.report is not None]
    assert len(reports) > 3, "the strategy read no report"
    for got, want in zip(edited, clean, strict=True):
        assert [a.report.content_json_obj() for a in got.trace if a.report] == [
            a.report.content_json_obj() for a in want.trace if a.report
        ]
        assert all(a.report.stats["nodes"] >= 0 for a in got.trace if a.report)
        if got.filter_report is not None:
            assert got.filter_report.digest() == want.filter_report.digest()
    # the same strategy in the judging process (isolation off, debugging only) does change the
    # objects it was handed: the test can fail
    inline = run("surface-editor", True)
    assert any(
        a.report.solution_count == 77 for r in inline for a in r.trace if a.report is not None
    )


def test_the_mcp_generate_tool_isolates_the_holdout_too(adversary_log):
    from puzzlekit.app.mcp.work import generate_work

    out = generate_work(
        family="sudoku", params={"size": 4}, count=2, strategy="adversary", filter="sat",
        holdout=HOLDOUT, seed=3,
    )  # fmt: skip
    assert out["accepted"] == 2
    assert all(p["holdoutVerdict"] == "UNIQUE" for p in out["puzzles"])
    rows = findings(adversary_log)
    assert os.getpid() not in {r["pid"] for r in rows}
    assert [r["found"] for r in rows] == [[]] * len(rows)
    assert [r["queried"] for r in rows] == [[]] * len(rows)

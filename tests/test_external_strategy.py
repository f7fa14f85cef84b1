"""The external strategy: a program in any language speaking JSON Lines as the loop's strategy,
and every way such a program can fail (the loop is ``strategy-failed``, the run goes on)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed

AGENTS = Path(__file__).parent / "agents"
PY_AGENT = f"{sys.executable} {AGENTS / 'reveal_gap.py'}"
JQ_AGENT = f"sh {AGENTS / 'reveal_gap.sh'}"
NODE_AGENT = f"node {AGENTS / 'reveal_gap.js'}"


def _spec(cmd: str, timeout: float = 20.0, **kw) -> LoopSpec:
    settings = {"cmd": cmd, "cmd_timeout": timeout}
    return LoopSpec("sudoku", {"size": 4}, strategy="external", strategy_settings=settings, **kw)


def _run(cmd: str, loops: int = 3, timeout: float = 20.0, **kw):
    driver = LoopDriver(_spec(cmd, timeout, **kw))
    try:
        return [driver.run(loop_seed(5, i)) for i in range(loops)]
    finally:
        driver.reset()


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "agent.py"
    path.write_text(body)
    return f"{sys.executable} {path}"


def test_a_python_agent_builds_unique_puzzles_from_the_reject_detail():
    results = _run(PY_AGENT)
    assert [r.status for r in results] == ["accepted"] * 3
    # it revealed clues where the gap pointed: every step after the first is a reveal
    for r in results:
        assert all(a.action == "reveal" for a in r.trace[1:])
        assert r.strategy == "external" and r.strategy_failure is None
    # one seed gives one output
    again = _run(PY_AGENT)
    assert [r.instance.digest for r in again] == [r.instance.digest for r in results]


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not on this machine")
def test_a_jq_agent_makes_the_same_edits_as_the_python_one():
    py = _run(PY_AGENT)
    jq = _run(JQ_AGENT)
    assert [r.status for r in jq] == ["accepted"] * 3
    assert [r.instance.digest for r in jq] == [r.instance.digest for r in py]
    assert [r.filter_calls for r in jq] == [r.filter_calls for r in py]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on this machine")
def test_a_node_agent_makes_the_same_edits_as_the_python_one():
    py = _run(PY_AGENT)
    node = _run(NODE_AGENT)
    assert [r.status for r in node] == ["accepted"] * 3
    assert [r.instance.digest for r in node] == [r.instance.digest for r in py]
    assert [r.filter_calls for r in node] == [r.filter_calls for r in py]


@pytest.mark.parametrize(
    ("body", "kind", "words"),
    [
        (
            "import sys\nsys.stdin.readline()\nsys.stderr.write('boom\\n')\nsys.exit(3)\n",
            "crashed",
            "exited with code 3 before answering start (its last stderr line: boom)",
        ),
        (
            "import sys, time\nsys.stdin.readline()\ntime.sleep(60)\n",
            "hung",
            "no answer to start within 1 s",
        ),
        ("import sys\nsys.stdin.readline()\nprint('hello', flush=True)\n", "garbage", "not JSON"),
        (
            'import sys\nsys.stdin.readline()\nprint(\'{"reveal": "r1c1"}\', flush=True)\n',
            "garbage",
            "no protocol answer",
        ),
        (
            "import sys\nsys.stdin.readline()\nprint('{\"reveal\": [[9, 9]]}', flush=True)\n",
            "impossible-edit",
            "asked to reveal [9, 9], no clue of the solution",
        ),
    ],
    ids=["crash", "hang", "not-json", "off-schema", "impossible-edit"],
)
def test_a_failing_program_gives_strategy_failed_with_one_line(tmp_path, capsys, body, kind, words):
    (result,) = _run(_script(tmp_path, body), loops=1, timeout=1.0)
    assert result.status == "strategy-failed"
    assert result.strategy_failure == kind
    assert result.instance is None and result.filter_calls == 0
    assert words in result.notes[0]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0] and "strategy-failed" in err[0], err


def test_a_hidden_clue_that_is_not_shown_is_an_impossible_edit(tmp_path):
    body = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        "    hide = [] if req['type'] == 'start' else ['no-such-clue']\n"
        "    print(json.dumps({'hide': hide}), flush=True)\n"
    )
    (result,) = _run(_script(tmp_path, body), loops=1, k=1)
    assert result.status == "strategy-failed" and result.strategy_failure == "impossible-edit"
    assert result.filter_calls == 1  # the failure came after the first filter call


def test_a_hung_program_is_stopped_and_the_next_loop_starts_a_fresh_one(tmp_path):
    """The first program hangs on its first propose; the loop is strategy-failed; the next loop
    runs a fresh program (a marker file tells the second one to behave) and is accepted."""
    marker = tmp_path / "hung-once"
    body = (
        "import json, os, sys, time\n"
        f"marker = {str(marker)!r}\n"
        f"agent = {str(AGENTS / 'reveal_gap.py')!r}\n"
        "if os.path.exists(marker):\n"
        "    os.execv(sys.executable, [sys.executable, agent])\n"
        "open(marker, 'w').close()\n"
        "sys.stdin.readline()\n"
        "print(json.dumps({'reveal': []}), flush=True)\n"
        "time.sleep(60)\n"
    )
    results = _run(_script(tmp_path, body), loops=2, timeout=1.0, k=1)
    assert [r.status for r in results] == ["strategy-failed", "accepted"]
    assert results[0].strategy_failure == "hung" and results[0].filter_calls == 1


def test_an_isolated_run_reports_the_failure_through_the_loop_process(tmp_path):
    """With a holdout the program runs in the loop process; the failure crosses the wire."""
    body = "import sys\nsys.stdin.readline()\nsys.exit(1)\n"
    (result,) = _run(_script(tmp_path, body), loops=1, holdout="enumerative")
    assert result.status == "strategy-failed" and result.strategy_failure == "crashed"
    assert result.holdout_report is None


def test_the_cli_records_every_failed_loop_and_goes_on(tmp_path):
    cmd = _script(tmp_path, "import sys\nsys.exit(2)\n")
    args = ["generate", "sudoku", "--params", '{"size":4}', "--seed", "3", "--holdout", "none"]
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlekit", *args, "--strategy", "external", "--cmd", cmd],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(records) == 20  # the loop limit of one puzzle
    assert {(r["status"], r["strategyFailure"]) for r in records} == {
        ("strategy-failed", "crashed")
    }
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 21 and lines[-1] == "puzzlekit: 0 of 1 accepted"
    assert all("strategy external: exited with code 2" in line for line in lines[:-1])


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--strategy", "external"], "--strategy external needs --cmd"),
        (["--cmd", "true"], "--cmd and --cmd-timeout go with --strategy external"),
        (["--strategy", "external", "--cmd", "true", "--cmd-timeout", "0"], "--cmd-timeout"),
    ],
)
def test_cli_usage_errors(extra, words):
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlekit", "generate", "sudoku", *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr


def test_the_protocol_schema_ships_and_checks_answers():
    from puzzlekit.generators.external import _validator, protocol_schema

    assert protocol_schema()["$defs"]["answer"]["additionalProperties"] is False
    ok = _validator("answer")
    assert ok.is_valid({"reveal": [[0, 1], "r2c2"], "hide": []})
    assert not ok.is_valid({"reveal": "r1c1"}) and not ok.is_valid({"move": []})


def _config(strategy: dict) -> dict:
    return {
        "name": "ext",
        "trials": 2,
        "schemas": [{"family": "sudoku", "params": {"size": 4}}],
        "strategies": [strategy],
        "filters": [{"verifier": "sat"}],
        "preregistration": {
            "hypotheses": [
                {
                    "id": "H1",
                    "claim": "every loop is accepted",
                    "metric": "accept_rate",
                    "arms": [strategy["name"]],
                    "direction": "equal",
                    "value": 1,
                    "test": "bootstrap",
                    "alpha": 0.05,
                }
            ],
            "metrics": ["accept_rate"],
        },
    }


def test_an_experiment_config_runs_an_external_strategy():
    from puzzlekit.app.experiment import parse_config
    from puzzlekit.app.experiment.tasks import plan, run_task

    config = parse_config(
        _config({"name": "external", "clues": [3], "cmd": PY_AGENT, "cmd_timeout": 20})
    )
    (task,) = plan(config)
    assert task.loop_spec().strategy_settings == {"cmd": PY_AGENT, "cmd_timeout": 20}
    rows = run_task(task).puzzles
    assert [r["status"] for r in rows] == ["accepted", "accepted"]
    assert all(r["strategyFailure"] is None for r in rows)


@pytest.mark.parametrize(
    ("strategy", "words"),
    [
        ({"name": "external", "clues": [3]}, "strategy external needs cmd"),
        ({"name": "adaptive", "clues": [3], "cmd": "x"}, "go with strategy external"),
        ({"name": "external", "clues": [3], "cmd": "x", "cmd_timeout": 0}, "cmd_timeout"),
    ],
)
def test_a_config_with_a_misplaced_cmd_is_refused(strategy, words):
    from puzzlekit.app.experiment import ConfigError, parse_config

    with pytest.raises(ConfigError, match=words):
        parse_config(_config(strategy))

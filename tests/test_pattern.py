"""The pattern strategy (a map of repairs learned across loops) and the planted-defect sampler
(a Sudoku whose solutions keep a deadly pattern in one region)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from puzzlekit.families import get_family
from puzzlekit.generators.samplers import check_sampler, planted_deadly, planted_region
from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed

SIX = {"size": 6}


def _grid(schema, solution):
    n = int(schema.params_dict()["size"])
    names = {tuple(v.coord): v.name for v in schema.variables}
    return np.array([[solution[names[(r, c)]] for c in range(n)] for r in range(n)])


def _valid(schema, solution) -> bool:
    from puzzlekit.core.model import Instance
    from puzzlekit.verifiers.registry import get_verifier

    fam = get_family(schema.family)
    clues = fam.clues_from_solution(schema, solution)
    inst = Instance.make(schema.family, schema.params_dict(), clues)
    return get_verifier("sat").verify(inst, solution_cap=2).verdict.value == "UNIQUE"


@pytest.mark.parametrize("params", [{"size": 4}, SIX, {"size": 9}])
def test_the_planted_sampler_keeps_a_deadly_pattern_in_its_region(params):
    schema = get_family("sudoku").schema(params)
    region = planted_region(schema)
    for seed in range(3):
        solution = planted_deadly(schema, np.random.default_rng(seed))
        assert _valid(schema, solution)
        grid = _grid(schema, solution)
        (a, b), (c, d) = grid[0, [region[0][1], region[1][1]]], grid[1, [0, region[1][1]]]
        assert a == d and b == c and a != b  # a b / b a: swapping them is another solution
        swapped = {**solution}
        for (r, col), value in zip(region, (b, a, a, b), strict=True):
            swapped[schema.var_at((r, col)).name] = int(value)
        assert swapped != solution and _valid(schema, swapped)
        again = planted_deadly(schema, np.random.default_rng(seed))
        assert again == solution


def test_the_planted_sampler_names_what_it_refuses():
    assert "not latin" in check_sampler("planted-deadly", get_family("latin").schema({"size": 4}))
    assert "unknown sampler" in check_sampler("nope", get_family("sudoku").schema(SIX))
    assert check_sampler("planted-deadly", get_family("sudoku").schema(SIX)) is None


def _run(strategy: str, loops: int, seed: int = 3, k: int = 10, **settings):
    spec = LoopSpec("sudoku", SIX, strategy=strategy, k=k, strategy_settings=settings)
    driver = LoopDriver(spec)
    return [driver.run(loop_seed(seed, i)) for i in range(loops)]


@pytest.fixture(scope="module")
def learned():
    return _run("pattern", 60, sampler="planted-deadly")


def test_pattern_records_its_state_after_every_loop_and_one_seed_gives_one_run(learned):
    states = [r.strategy_state for r in learned]
    assert [s["loops"] for s in states] == list(range(1, 61))
    assert states[-1]["accepted"] == sum(r.accepted for r in learned)
    assert states[-1]["filterCalls"] == sum(r.filter_calls for r in learned)
    hidden, repaired, rejected = np.array(list(states[-1]["cells"].values())).T
    assert (repaired <= hidden).all() and repaired.sum() > 0 and rejected.sum() > 0
    again = _run("pattern", 20, sampler="planted-deadly")  # the same seeds in the same order
    assert [r.instance.digest for r in again] == [r.instance.digest for r in learned[:20]]
    assert [r.strategy_state for r in again] == states[:20]


def test_pattern_learns_the_planted_region(learned):
    """After 60 loops a cell of the planted region is among the five its map scores highest,
    and over the last 30 loops its repairs fall in the region less often than adaptive's do
    (its start already holds a clue there)."""
    cells = learned[-1].strategy_state["cells"]
    score = {key: (v[1] + 1) / (v[0] + 2) for key, v in cells.items()}
    top = sorted(score.values(), reverse=True)[4]
    assert max(score.get(key, 0.5) for key in REGION) >= top

    def region_repairs(results):
        return np.mean([any(_key(a.action_coord) in REGION for a in r.trace[1:]) for r in results])

    adaptive = _run("adaptive", 60, sampler="planted-deadly")
    assert region_repairs(learned[30:]) + 0.1 < region_repairs(adaptive[30:])


REGION = {"0,0", "0,3", "1,0", "1,3"}


def _key(coord) -> str | None:
    return ",".join(map(str, coord)) if coord is not None else None


def test_a_driver_reset_starts_a_fresh_learner():
    spec = LoopSpec("sudoku", SIX, strategy="pattern", k=10)
    driver = LoopDriver(spec)
    first = driver.run(loop_seed(1, 0))
    driver.run(loop_seed(1, 1))
    driver.reset()
    assert driver.run(loop_seed(1, 0)).strategy_state == first.strategy_state
    assert first.strategy_state["loops"] == 1


def test_adaptive_and_blind_keep_no_state():
    (result,) = _run("adaptive", 1)
    assert result.strategy_state is None


def _config(batch: int) -> dict:
    strategy = {"name": "pattern", "clues": [6], "sampler": "planted-deadly"}
    return {
        "name": "pattern-pool",
        "trials": 6,
        "batch": batch,
        "schemas": [{"family": "sudoku", "params": {"size": 4}}],
        "strategies": [strategy],
        "filters": [{"verifier": "sat"}],
        "holdout": {"verifier": "enumerative"},
        "preregistration": {
            "hypotheses": [
                {
                    "id": "H1",
                    "claim": "every loop is accepted",
                    "metric": "accept_rate",
                    "arms": ["pattern"],
                    "direction": "equal",
                    "value": 1,
                    "test": "bootstrap",
                    "alpha": 0.05,
                }
            ],
            "metrics": ["accept_rate"],
        },
    }


def test_learning_is_per_task_and_the_rows_are_the_same_serial_and_pooled():
    """One task (a batch of trials) is one learner started afresh: the pool's rows equal the
    serial ones, and the state's loop count restarts at each task boundary."""
    from puzzlekit.app.experiment import parse_config
    from puzzlekit.app.experiment.runner import execute
    from puzzlekit.app.experiment.tasks import plan

    tasks = plan(parse_config(_config(batch=3)))
    assert len(tasks) == 2

    def rows(executor: str) -> list[dict]:
        done = sorted(execute(tasks, executor, workers=2), key=lambda t: t.task_id)
        out = [dict(r) for t in done for r in t.puzzles]
        for r in out:
            r.pop("seconds")
            r.pop("holdoutSeconds")
        return out

    serial = rows("serial")
    assert [json.loads(r["strategyState"])["loops"] for r in serial] == [1, 2, 3, 1, 2, 3]
    assert rows("local") == serial


def test_the_config_and_the_cli_take_a_sampler_only_where_it_goes():
    from puzzlekit.app.experiment import ConfigError, parse_config

    config = _config(batch=6)
    assert parse_config(config).strategies[0].settings == {"sampler": "planted-deadly"}
    config["strategies"][0]["sampler"] = "nope"
    with pytest.raises(ConfigError, match="unknown sampler"):
        parse_config(config)
    config["strategies"][0] = {"name": "external", "clues": [6], "cmd": "x", "sampler": "x"}
    with pytest.raises(ConfigError, match="sampler goes with"):
        parse_config(config)
    cli = [sys.executable, "-m", "puzzlekit", "generate"]
    for extra, words in [
        (["sudoku", "--strategy", "blind", "--sampler", "nope"], "unknown sampler"),
        (["latin", "--sampler", "planted-deadly"], "plants in Sudoku grids, not latin"),
    ]:
        proc = subprocess.run([*cli, *extra], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr

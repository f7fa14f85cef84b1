"""The seed's question as an experiment (experiments/speed_or_pattern.toml): its pieces (the
one-time fix ``fix_region``, pattern's temperature and prior from the config, a policy trained
and run on the planted-defect sampler, its map in the rows) and a shrunk run of the config end to
end, in which every pre-registered hypothesis gets a computed judgement."""

from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from puzzlekit.app.experiment import ConfigError, load_config, parse_config, run_experiment
from puzzlekit.families import get_family
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.generators.pattern import Pattern, learned_map
from puzzlekit.generators.samplers import planted_region, sampler_region
from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "experiments" / "speed_or_pattern.toml"
SIX = {"size": 6}


def test_fix_region_puts_one_start_clue_in_the_planted_region_every_time():
    schema = get_family("sudoku").schema(SIX)
    region = set(planted_region(schema))
    assert set(sampler_region("planted-deadly", schema)) == region
    assert sampler_region("nope", schema) is None
    fixed = Adaptive(6, sampler="planted-deadly", fix_region=True)
    plain = Adaptive(6, sampler="planted-deadly")
    hits, plain_hits = [], []
    for seed in range(40):
        step = fixed.start(schema, np.random.default_rng(seed))
        coords = [tuple(c.coords[0]) for c in step.instance.clues]
        assert len(coords) == len(set(coords)) == 6
        hits.append(len(region.intersection(coords)))
        again = plain.start(schema, np.random.default_rng(seed))
        plain_hits.append(
            len(region.intersection(tuple(c.coords[0]) for c in again.instance.clues))
        )
        restarted = fixed.restart(step, np.random.default_rng(seed + 100))
        assert region.intersection(tuple(c.coords[0]) for c in restarted.instance.clues)
    assert min(hits) >= 1 and min(plain_hits) == 0  # the unfixed start misses it at times
    assert max(hits) > 1  # the other five clues are drawn from every cell, the region included
    with pytest.raises(ValueError, match="fix_region needs a sampler"):
        Adaptive(6, fix_region=True)


def _raw() -> dict:
    return tomllib.loads(CONFIG.read_text(encoding="utf-8"))


def _parse(raw: dict):
    """The config read as if from its own directory (the policy path is relative to it)."""
    import os

    old = os.getcwd()
    os.chdir(CONFIG.parent)
    try:
        return parse_config(raw, str(CONFIG))
    finally:
        os.chdir(old)


@pytest.mark.parametrize(
    ("index", "edit", "words"),
    [
        (2, {"fix_region": True}, "fix_region goes with blind, adaptive"),
        (1, {"fix_region": True, "sampler": None}, "fix_region needs a sampler"),
        (1, {"temperature": 0.1}, "temperature goes with strategy pattern"),
        (2, {"prior": 0}, r"strategies\[2\]\.prior: 0 is less than or equal to the minimum"),
        (
            2,
            {"temperature": True},
            r"strategies\[2\]\.temperature: expected a number, got a boolean",
        ),
        (2, {"temperature": 1e12}, r"strategies\[2\]\.temperature: expected a positive number"),
    ],
)
def test_the_config_takes_each_knob_only_where_it_goes(index, edit, words):
    raw = _raw()
    strategy = raw["strategies"][index]
    for key, value in edit.items():
        if value is None:
            strategy.pop(key, None)
        else:
            strategy[key] = value
    with pytest.raises(ConfigError, match=words):
        _parse(raw)


def test_the_configs_settings_reach_each_strategy():
    config = _parse(_raw())
    settings = {s.arm: dict(s.settings) for s in config.strategies}
    assert settings["pattern"] == {"sampler": "planted-deadly", "temperature": 0.05, "prior": 8.0}
    assert settings["fixed-once"] == {"sampler": "planted-deadly", "fix_region": True}
    assert settings["policy"]["sampler"] == "planted-deadly"
    raw = _raw()
    raw["strategies"][2]["prior"] = 2.0
    assert _parse(raw).digest != config.digest  # the knobs are part of what was registered


def test_the_prior_reaches_the_strategy_shapes_the_map_and_is_recorded_when_not_the_default():
    def last_state(**settings) -> dict:
        spec = LoopSpec("sudoku", SIX, strategy="pattern", k=6, strategy_settings=settings)
        driver = LoopDriver(spec)
        return [driver.run(loop_seed(4, i)).strategy_state for i in range(2)][-1]

    assert "prior" not in last_state(sampler="planted-deadly")
    weak = last_state(sampler="planted-deadly", prior=0.5, temperature=0.2)
    assert weak["prior"] == 0.5 and weak["loops"] == 2
    cells = {"0,0": [10, 9, 0], "0,1": [10, 1, 0], "0,2": [10, 2, 0]}
    strong_map = learned_map({"cells": cells})
    weak_map = learned_map({"cells": cells, "prior": 0.5})
    assert max(strong_map, key=strong_map.get) == max(weak_map, key=weak_map.get) == "0,0"
    assert np.ptp(list(weak_map.values())) > np.ptp(list(strong_map.values()))
    assert weak_map["0,0"] == pytest.approx((9 + 0.5 * (12 + 1) / (30 + 2)) / (10 + 0.5))
    with pytest.raises(ValueError, match="prior must be a positive number"):
        Pattern(6, prior=-1)


def test_a_policy_trains_and_runs_on_the_planted_sampler_and_records_its_map(tmp_path):
    from puzzlekit.envs import GenerateEnv
    from puzzlekit.envs.train import TrainSettings, train
    from puzzlekit.generators.policy import Policy

    env = GenerateEnv("sudoku", SIX, sampler="planted-deadly")
    env.reset(seed=3)
    schema, sol = env.schema, env._solution

    def at(r: int, c: int) -> int:
        return sol[schema.var_at((r, c)).name]

    assert at(0, 0) == at(1, 3) and at(0, 3) == at(1, 0)  # the planted rectangle: a b / b a
    with pytest.raises(ValueError, match="sampler"):
        GenerateEnv("latin", {"size": 4}, sampler="planted-deadly")
    tiny = {"steps": 200, "population": 2, "elite": 1, "episodes": 1}
    file = train(TrainSettings("sudoku", SIX, sampler="planted-deadly", seed=1, **tiny))
    assert file.env["sampler"] == "planted-deadly"
    assert "sampler" not in train(TrainSettings("sudoku", SIX, seed=1, **tiny)).env
    path = tmp_path / "p.json"
    file.write(path)
    strategy = Policy(0, policy=path, sampler="planted-deadly")
    assert strategy.state() is None
    sol = strategy.start(schema, np.random.default_rng(5)).solution
    assert sol[schema.var_at((0, 0)).name] == sol[schema.var_at((1, 3)).name]
    state = strategy.state()
    assert set(state["map"]) == {f"{r},{c}" for r in range(6) for c in range(6)}
    assert list(learned_map(state).values()) == pytest.approx(list(file.policy.w_slot), abs=1e-6)


def test_a_shrunk_run_of_the_config_judges_every_hypothesis(tmp_path):
    """Three loops an arm (three loop indexes, so slopes are defined), a short budget, serially:
    every hypothesis is checkable, and each gets a statistic and an interval from the rows."""
    from puzzlekit.app.plots.hypotheses import judge_all

    t0 = time.perf_counter()
    overrides = ["trials=3", "batch=3", "budget.max_calls=16"]
    config = load_config(CONFIG, overrides)
    out = tmp_path / "run"
    run_experiment(config, out, executor="serial", quiet=True, report=False)
    manifest = json.loads((out / "manifest.json").read_text())
    puzzles = pd.read_parquet(out / "puzzles.parquet")
    arms = sum(s.runs_under(f.label) for s in config.strategies for f in config.filters)
    assert arms == 8  # blind and policy under the exact filter only (their entries' filters)
    assert len(puzzles) == 3 * arms
    judged = judge_all(manifest, puzzles)
    assert (
        len(judged)
        == len(config.preregistration.hypotheses)
        == len(_raw()["preregistration"]["hypotheses"])
    )
    for j in judged:
        assert j.hypothesis.checkable, j.hypothesis.claim
        assert j.outcome in ("held", "not held", "inconclusive")
        assert j.statistic is not None and j.interval is not None, (j.hypothesis.id, j.reason)
    states = puzzles[puzzles["strategy"].isin(["pattern", "policy"])]["strategyState"]
    assert states.notna().all()
    assert time.perf_counter() - t0 < 120  # the shrunk run stays small (about 20 s unloaded)

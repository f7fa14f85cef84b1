"""Experiment hypotheses about a learner: the slope of a learning curve over the loop index, the
overlap of a learned map with a planted region, and the one-sided directions at_most / at_least,
judged from rows built here with known answers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from puzzlekit.app.experiment import ConfigError, parse_config
from puzzlekit.app.plots.hypotheses import judge_all
from puzzlekit.app.plots.learning import overlap, slope
from tests.test_experiment import smoke_raw

REGION = ["0,0", "0,3", "1,0", "1,3"]  # planted-deadly on 6×6
SCHEMAS = [{"family": "sudoku", "params": {"size": 6}, "label": "s6"}]


def rows(strategy: str, calls: list[int], *, batch: int, states=None, rejected=None) -> dict:
    n = len(calls)
    return {
        "schema": ["s6"] * n,
        "strategy": [strategy] * n,
        "k": [6] * n,
        "filter": ["exact"] * n,
        "trial": list(range(n)),
        "status": ["accepted"] * n,
        "filterCalls": calls,
        "clueCount": [12] * n,
        "holdoutVerdict": ["UNIQUE"] * n,
        "holdoutRejected": rejected if rejected is not None else [False] * n,
        "strategyState": states if states is not None else [None] * n,
    }


def frame(*parts: dict) -> pd.DataFrame:
    out: dict[str, list] = {}
    for part in parts:
        for key, values in part.items():
            out.setdefault(key, []).extend(values)
    return pd.DataFrame(out)


def judged(puzzles: pd.DataFrame, hypotheses: list[dict], batch: int) -> list:
    manifest = {
        "config": {"seed": 5, "batch": batch, "schemas": SCHEMAS},
        "preregistration": {"hypotheses": hypotheses},
    }
    return judge_all(manifest, puzzles)


def test_the_slope_is_least_squares_per_100_loops_over_the_index_within_each_learner():
    pairs = np.array([[0, 10.0], [1, 9.0], [2, 8.0], [3, 7.0]])
    assert slope(pairs) == pytest.approx(-100.0)
    assert np.isnan(slope(np.array([[1, 3.0], [1, 5.0]])))  # one index: no slope
    rng = np.random.default_rng(0)
    batch = 50
    # two learners of 50 loops each: calls fall 4 per 100 loops of a learner's index (the
    # trial number keeps growing, the index starts again at 50)
    idx = np.arange(100) % batch
    falling = np.round(8 - 0.04 * idx + rng.normal(0, 0.3, 100)).astype(int).tolist()
    flat = rng.integers(5, 8, 100).tolist()
    puzzles = frame(rows("pattern", falling, batch=batch), rows("adaptive", flat, batch=batch))
    one = {"metric": "calls_slope", "value": 0}
    out = judged(
        puzzles,
        [
            {**one, "arms": ["pattern"], "direction": "less"},
            {**one, "arms": ["adaptive"], "direction": "equal", "tolerance": 1.5},
            {"metric": "calls_slope", "arms": ["pattern", "adaptive"], "direction": "less"},
            {**one, "arms": ["adaptive"], "direction": "less"},
        ],
        batch,
    )
    assert [j.outcome for j in out[:3]] == ["held", "held", "held"]
    assert out[0].statistic == pytest.approx(-4.0, abs=1.0)
    assert out[3].outcome != "held"
    # over the trial number instead of the index the learners' restarts would hide the fall
    whole = judged(puzzles, [{**one, "arms": ["pattern"], "direction": "less"}], 100)[0]
    assert whole.statistic > out[0].statistic


def test_the_holdout_reject_slope_reads_accepted_puzzles_the_holdout_checked():
    rejected = [i >= 30 for i in range(60)]  # the holdout starts rejecting halfway
    puzzles = frame(rows("pattern", [3] * 60, batch=60, rejected=rejected))
    out = judged(
        puzzles,
        [
            {
                "metric": "holdout_reject_slope",
                "arms": ["pattern"],
                "value": 0,
                "direction": "greater",
            }
        ],
        60,
    )[0]
    assert out.outcome == "held" and out.statistic > 0


def test_overlap_counts_the_top_places_in_the_region_and_shares_ties():
    assert overlap({"a": 3.0, "b": 2.0, "c": 1.0}, {"a", "b"}) == 1.0
    assert overlap({"a": 3.0, "b": 2.0, "c": 1.0}, {"b", "c"}) == 0.5
    flat = {str(i): 0.5 for i in range(36)}
    assert overlap(flat, set(list(flat)[:4])) == pytest.approx(4 / 36)  # chance
    assert overlap({}, {"a"}) is None


def _pattern_state(region_repaired: int) -> str:
    """A pattern table whose region cells were repaired ``region_repaired`` times of 20."""
    cells = {
        f"{r},{c}": [20, region_repaired if f"{r},{c}" in REGION else 2, 0]
        for r in range(6)
        for c in range(6)
    }
    return json.dumps({"cells": cells, "loops": 20, "schema": "sudoku"})


def test_map_overlap_reads_each_learners_last_state_against_the_samplers_region():
    batch = 3
    learned = [None, _pattern_state(3), _pattern_state(15)] * 2  # two learners, map sharpens
    unlearned = [_pattern_state(2)] * 6  # every place alike: chance
    policy = [json.dumps({"map": {k: (5.0 if k in REGION else 0.0) for k in REGION + ["2,2"]}})]
    puzzles = frame(
        rows("pattern", [4] * 6, batch=batch, states=learned),
        rows("flat", [4] * 6, batch=batch, states=unlearned),
        rows("policy", [1] * 3, batch=batch, states=policy * 3),
        rows("adaptive", [4] * 6, batch=batch),
    )
    h = {"metric": "map_overlap", "value": 4 / 36, "region": "planted-deadly"}
    out = judged(
        puzzles,
        [
            {**h, "arms": ["pattern"], "direction": "greater"},
            {**h, "arms": ["flat"], "direction": "greater"},
            {**h, "arms": ["policy"], "direction": "greater"},
            {**h, "arms": ["adaptive"], "direction": "greater"},
        ],
        batch,
    )
    assert out[0].outcome == "held" and out[0].statistic == pytest.approx(1 - 4 / 36)
    assert out[0].sizes == (2,)  # one value per learner
    assert out[1].outcome == "not held" and out[1].statistic == pytest.approx(0.0, abs=1e-12)
    assert out[2].outcome == "held"
    assert out[3].outcome == "inconclusive" and "no rows" in out[3].reason  # keeps no map


def test_at_most_and_at_least_say_no_higher_and_no_lower_of_equal_rates():
    puzzles = frame(rows("a", [4] * 30, batch=30), rows("b", [4] * 30, batch=30))
    rejected = rows("c", [4] * 30, batch=30, rejected=[i % 2 == 0 for i in range(30)])
    puzzles = pd.concat([puzzles, pd.DataFrame(rejected)], ignore_index=True)
    h = {"metric": "holdout_reject_rate"}
    out = judged(
        puzzles,
        [
            {**h, "arms": ["a", "b"], "direction": "at_most"},
            {**h, "arms": ["a", "b"], "direction": "at_least"},
            {**h, "arms": ["c", "a"], "direction": "at_most"},
            {**h, "arms": ["c", "a"], "direction": "at_least"},
            {**h, "arms": ["a", "b"], "direction": "less"},  # what less says of equal rates
        ],
        30,
    )
    assert [j.outcome for j in out] == ["held", "held", "not held", "held", "not held"]


@pytest.mark.parametrize(
    ("hypothesis", "where"),
    [
        (
            {"metric": "map_overlap", "arms": ["adaptive"], "direction": "greater", "value": 0.1},
            "region",
        ),
        (
            {
                "metric": "map_overlap",
                "arms": ["adaptive"],
                "direction": "greater",
                "value": 0.1,
                "region": "nope",
            },
            "region",
        ),
        (
            {
                "metric": "accept_rate",
                "arms": ["adaptive"],
                "direction": "less",
                "value": 1,
                "region": "planted-deadly",
            },
            "region",
        ),
    ],
)
def test_region_goes_with_map_overlap_and_names_a_sampler_with_a_region(hypothesis, where):
    raw = smoke_raw()
    raw["preregistration"]["hypotheses"] = [hypothesis]
    with pytest.raises(ConfigError) as err:
        parse_config(raw)
    assert err.value.path == f"preregistration.hypotheses[0].{where}"


def test_a_learners_hypothesis_is_read_and_kept_in_the_config_digest():
    raw = smoke_raw()
    h = {"metric": "calls_slope", "arms": ["adaptive"], "direction": "at_most", "value": 0}
    raw["preregistration"]["hypotheses"] = [h]
    config = parse_config(raw)
    got = config.to_json_obj()["preregistration"]["hypotheses"][0]
    assert got["metric"] == "calls_slope" and got["direction"] == "at_most"
    raw["preregistration"]["hypotheses"] = [{**h, "direction": "at_least"}]
    assert parse_config(raw).digest != config.digest


def test_the_report_draws_the_learning_curves_and_each_learners_overlap():
    from puzzlekit.app.plots.learning import curve_table, overlap_table, uses_learning
    from puzzlekit.app.plots.report import _learning

    batch = 4
    calls = [8, 6, 4, 2] * 2  # two learners, each falling by 2 a loop
    states = [None, None, None, _pattern_state(15)] * 2
    puzzles = frame(rows("pattern", calls, batch=batch, states=states))
    curves = curve_table(puzzles, batch, bins=2)
    assert list(curves.columns[-2:]) == ["loops 0–1", "loops 2–3"]
    assert curves.iloc[0, -2:].tolist() == [7.0, 3.0]
    manifest = {
        "config": {"batch": batch, "schemas": SCHEMAS},
        "preregistration": {"hypotheses": [{"metric": "callsSlope"}, "free text"]},
    }
    maps = overlap_table(puzzles, batch, manifest)
    assert maps[["learners", "overlap per learner"]].values.tolist() == [[2, "1.00 1.00"]]
    assert maps["chance"].tolist() == [pytest.approx(4 / 36)]
    assert uses_learning(manifest) and not uses_learning({"preregistration": {}})
    text = "\n".join(_learning(puzzles, manifest))
    assert "## Learning curves and learned maps" in text and "1.00 1.00" in text
    assert _learning(puzzles, {"preregistration": {"hypotheses": ["x"]}}) == []

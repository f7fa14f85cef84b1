"""A strategy entry's ``filters``: the arm runs under the filters it names only (so the arms no
hypothesis judges need not run), checked against the config's filter labels and its
hypotheses, and left out of the config's digest when not given."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from puzzlekit.app.experiment import ConfigError, load_config, parse_config, plan

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "experiments" / "smoke.toml"


def smoke(**blind) -> dict:
    raw = tomllib.loads(SMOKE.read_text())
    raw["strategies"][0].update(blind)  # the blind entry
    return raw


def arms(config) -> set[tuple[str, int, str]]:
    return {(t.strategy, t.k, t.filter.label) for t in plan(config)}


def test_a_strategy_runs_under_the_filters_it_names_and_the_others_under_every_filter() -> None:
    every = arms(parse_config(smoke()))
    assert ("blind", 5, "faulty-box") in every and ("adaptive", 4, "faulty-box") in every
    narrowed = parse_config(smoke(filters=["sat"]))
    got = arms(narrowed)
    assert got == {a for a in every if not (a[0] == "blind" and a[2] == "faulty-box")}
    assert narrowed.strategies[0].filters == ("sat",)
    assert len(plan(narrowed)) < len(plan(parse_config(smoke())))


def test_a_config_without_filters_keeps_its_digest_and_one_with_them_changes_it() -> None:
    plain = parse_config(smoke())
    assert all("filters" not in s for s in plain.to_json_obj()["strategies"])
    named = parse_config(smoke(filters=["sat", "faulty-box"]))  # every filter, said
    assert named.digest != plain.digest and arms(named) == arms(plain)


@pytest.mark.parametrize(
    ("filters", "path", "message"),
    [
        (["sta"], "strategies[0].filters[0]", "no filter labelled 'sta'; did you mean sat?"),
        (["sat", "sat"], "strategies[0].filters", ""),
        ([], "strategies[0].filters", ""),
        (["sat", 3], "strategies[0].filters[1]", ""),
    ],
)
def test_bad_strategy_filters_are_refused_naming_the_key(filters, path, message) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(smoke(filters=filters), "x.toml")
    paths = [p.path for p in err.value.problems]
    assert any(p.startswith(path) for p in paths), paths
    assert message in str(err.value)


def test_a_hypothesis_on_an_arm_that_does_not_run_is_refused() -> None:
    raw = smoke(filters=["faulty-box"])
    raw["preregistration"]["hypotheses"].append(
        {
            "id": "H4",
            "claim": "blind under sat",
            "metric": "accept_rate",
            "arms": ["strategy=blind,filter=sat"],
            "direction": "greater",
            "value": 0,
        }
    )
    with pytest.raises(ConfigError) as err:
        parse_config(raw, "x.toml")
    assert [p.path for p in err.value.problems] == ["preregistration.hypotheses[3].arms[0]"]
    assert "strategy 'blind' does not run under filter 'sat' (its filters: faulty-box)" in str(
        err.value
    )


def test_speed_or_pattern_runs_under_the_faulty_filter_only_the_arms_its_hypotheses_judge() -> None:
    config = load_config(ROOT / "experiments" / "speed_or_pattern.toml")
    faulty = {a for a, _, f in arms(config) if f == "faulty-box"}
    judged = {
        part.split("=", 1)[1]
        for h in config.preregistration.hypotheses
        for arm in h.arms
        if "filter=faulty-box" in arm
        for part in arm.split(",")
        if part.startswith("strategy=")
    }
    assert faulty == judged == {"pattern", "adaptive", "fixed-once"}
    exact = {a for a, _, f in arms(config) if f == "exact"}
    assert exact == {"blind", "adaptive", "pattern", "policy", "fixed-once"}

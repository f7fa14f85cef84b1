"""Experiment configs: every problem reported at once with the closest valid key, ``--set``
overrides recorded in the manifest, and the shipped JSON Schema that editors complete from."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from puzzlekit.app.cli import main
from puzzlekit.app.experiment import ConfigError, parse_config
from puzzlekit.app.experiment.config import TOP_KEYS, load_config
from puzzlekit.app.experiment.config_jsonschema import apply_overrides, config_schema

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "experiments" / "smoke.toml"


def smoke_raw() -> dict:
    return tomllib.loads(SMOKE.read_text())


def experiment_configs() -> list[Path]:
    """The shipped configs ``puzzlekit run`` reads as experiments (benchmarks and the
    publish-gate study have configs of their own)."""
    out = []
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        raw = tomllib.loads(path.read_text())
        if "sets" not in raw and "publish_gate" not in raw and "study" not in raw:
            out.append(path)
    return out


def test_every_problem_is_reported_at_once_with_the_closest_key() -> None:
    raw = smoke_raw()
    raw["trails"] = 3
    raw["strategies"][0]["clues"] = [5, 99]
    raw["budget"]["max_cals"] = 3
    raw["filters"][0]["verifier"] = "no-such-verifier"
    with pytest.raises(ConfigError) as info:
        parse_config(raw, "x.toml")
    paths = [p.path for p in info.value.problems]
    assert set(paths) == {
        "trails",
        "budget.max_cals",
        "strategies[0].clues[1]",
        "filters[0].verifier",
    }
    text = str(info.value)
    assert "trails: unknown key; did you mean trials?" in text
    assert "budget.max_cals: unknown key; did you mean max_calls?" in text
    assert len(text.splitlines()) == 4 and all(
        ln.startswith("x.toml: ") for ln in text.splitlines()
    )


def test_the_schema_lists_every_top_key_and_accepts_every_shipped_config() -> None:
    schema = config_schema()
    assert set(schema["properties"]) == set(TOP_KEYS)
    validator = jsonschema.Draft202012Validator(schema)
    configs = experiment_configs()
    assert SMOKE in configs and len(configs) >= 4
    for path in configs:
        errors = list(validator.iter_errors(tomllib.loads(path.read_text())))
        assert errors == [], f"{path.name}: {errors[0].message if errors else ''}"


@pytest.mark.parametrize("path", experiment_configs(), ids=lambda p: p.name)
def test_every_shipped_experiment_config_loads_from_the_repository(path: Path) -> None:
    config = load_config(path)
    assert config.name and config.trials >= 1


def test_schemas_command_prints_the_config_schema(capsys) -> None:
    assert main(["schemas", "--config-schema"]) == 0
    assert json.loads(capsys.readouterr().out) == config_schema()


def test_overrides_set_nested_values_read_as_toml() -> None:
    raw = apply_overrides(
        smoke_raw(),
        ["trials=2", "budget.max_calls=50", "strategies[1].clues=[4, 5]", "name=quick try"],
    )
    assert raw["trials"] == 2 and raw["budget"]["max_calls"] == 50
    assert raw["strategies"][1]["clues"] == [4, 5] and raw["name"] == "quick try"
    assert smoke_raw()["trials"] == 6  # the file is untouched
    with pytest.raises(ValueError, match="no strategies\\[9\\]"):
        apply_overrides(smoke_raw(), ["strategies[9].clues=3"])
    with pytest.raises(ValueError, match="expected key=value"):
        apply_overrides(smoke_raw(), ["trials"])


def test_run_set_overrides_the_config_and_the_manifest_records_it(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    code = main(
        ["run", str(SMOKE), "--out", str(out), "--executor", "serial", "--quiet",
         "--set", "trials=1", "--set", "strategies[1].clues=[4]"]
    )  # fmt: skip
    assert code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["overrides"] == ["trials=1", "strategies[1].clues=[4]"]
    assert manifest["config"]["trials"] == 1


def test_run_refuses_a_bad_override_with_exit_2(tmp_path, capsys) -> None:
    code = main(["run", str(SMOKE), "--out", str(tmp_path / "r"), "--set", "trials=0"])
    assert code == 2
    assert "trials: must be at least 1, got 0" in capsys.readouterr().err

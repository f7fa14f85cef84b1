"""The shipped learner and the ``policy`` strategy: ``puzzlekit train`` writes a policy file
(one seed, one file), the reader refuses what is not one, the strategy sees in the loop what the
policy saw in the environment, and env → trained policy → closed loop → holdout runs end to end
on a 4×4 Sudoku."""

from __future__ import annotations

import json

import numpy as np
import pytest

from puzzlekit.app.cli import main
from puzzlekit.envs import GenerateEnv
from puzzlekit.envs.train import TrainSettings, train
from puzzlekit.generators.policy import Episode, Policy
from puzzlekit.generators.policy.file import MAX_POLICY_BYTES, PolicyFileError, read_policy
from puzzlekit.generators.policy.model import Geometry

SUDOKU_4 = {"size": 4}
TINY = {"steps": 300, "population": 4, "elite": 2, "episodes": 2}


@pytest.fixture(scope="module")
def policies(tmp_path_factory) -> dict[str, str]:
    """A tiny policy of each observation mode, written to files."""
    out = {}
    for mode in ("structured", "scalar"):
        path = tmp_path_factory.mktemp("policy") / f"{mode}.json"
        train(TrainSettings("sudoku", SUDOKU_4, obs_mode=mode, seed=1, **TINY)).write(path)
        out[mode] = str(path)
    return out


def test_one_seed_gives_one_policy_file(policies, tmp_path) -> None:
    again = tmp_path / "again.json"
    train(TrainSettings("sudoku", SUDOKU_4, seed=1, **TINY)).write(again)
    assert again.read_bytes() == open(policies["structured"], "rb").read()
    other = train(TrainSettings("sudoku", SUDOKU_4, seed=2, **TINY))
    assert other.to_json_obj()["digest"] != read_policy(again).digest


def test_the_file_carries_its_provenance(policies) -> None:
    obj = json.loads(open(policies["scalar"]).read())
    assert obj["format"] == "puzzlekit-policy" and obj["puzzlekit"]
    assert obj["family"] == "sudoku" and obj["params"] == {"box": [2, 2], "size": 4}
    assert obj["observation"] == "scalar" and obj["seed"] == 1
    assert obj["steps"]["budget"] == 300 and obj["steps"]["used"] >= 300
    assert obj["trainer"]["method"] == "cem" and obj["trainer"]["population"] == 4
    assert obj["env"]["filter"] == "bitmask" and obj["env"]["solution_cap"] == 2
    assert len(obj["slots"]) == 16 and obj["digest"].startswith("sha256:")
    pf = read_policy(policies["scalar"])
    assert pf.digest == obj["digest"] and pf.observation == "scalar"
    assert list(pf.policy.w_slot) == obj["weights"]["slot"]


@pytest.mark.parametrize(
    "content, fault",
    [
        ("{not json", "not"),
        ('{"hello": "world"}', "not a puzzlekit policy file"),
        ("[1, 2]", "not a puzzlekit policy file"),
        ('{"format": "puzzlekit-policy", "version": 9}', "version 9"),
    ],
)
def test_a_foreign_file_is_refused_naming_it(tmp_path, content, fault) -> None:
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(PolicyFileError) as exc:
        read_policy(path)
    assert str(path) in str(exc.value) and fault in str(exc.value)


def test_an_edited_or_truncated_policy_is_refused(policies, tmp_path) -> None:
    obj = json.loads(open(policies["structured"]).read())
    obj["weights"]["submit"][0] += 1.0
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(obj))
    with pytest.raises(PolicyFileError, match="digest does not match"):
        read_policy(edited)
    del obj["weights"]
    (tmp_path / "short.json").write_text(json.dumps(obj))
    with pytest.raises(PolicyFileError, match="'weights' missing"):
        read_policy(tmp_path / "short.json")
    with pytest.raises(PolicyFileError, match="no such file"):
        read_policy(tmp_path / "absent.json")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_POLICY_BYTES + 1))
    with pytest.raises(PolicyFileError, match="larger than"):
        read_policy(big)


def test_the_loop_shows_the_policy_what_the_environment_shows(policies) -> None:
    """After the same clues and the same filter report, the strategy's observation (and so the
    policy's logits) equals the environment's."""
    for mode, path in policies.items():
        env = GenerateEnv("sudoku", SUDOKU_4, obs_mode=mode, solution_cap=2)
        env.reset(seed=5)
        for slot in (0, 5, 10):
            env.step(slot)
        obs, *_ = env.step(env.layout.n_slots)
        pf = read_policy(path)
        ep = Episode(pf, env.schema, env.solution, np.random.default_rng(0), path)
        for slot in (0, 5, 10):
            ep._toggle(slot)
        ep.observe(env.last_report)
        mine = ep.observation()
        assert set(mine) <= set(obs)
        for key in mine:
            assert np.array_equal(np.asarray(mine[key]), np.asarray(obs[key])), (mode, key)
        geo = Geometry.of(env.layout, env.schema)
        assert np.array_equal(pf.policy.logits(obs, geo, 0, 20), pf.policy.logits(mine, geo, 0, 20))


def test_a_policy_for_another_schema_is_refused(policies) -> None:
    from puzzlekit.families import get_family

    strategy = Policy(0, policy=policies["structured"])
    schema = get_family("latin").schema({"size": 4})
    with pytest.raises(PolicyFileError, match="trained on sudoku"):
        strategy.start(schema, np.random.default_rng(0))
    with pytest.raises(ValueError, match="needs a policy file"):
        Policy(0)


def _generate(capsys, *args: str) -> tuple[int, list[dict], str]:
    code = main(["generate", "sudoku", "--params", json.dumps(SUDOKU_4), "--quiet", *args])
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines()], out.err


def test_env_to_policy_to_closed_loop_to_holdout(policies, capsys, tmp_path) -> None:
    """``puzzlekit train`` then ``generate --strategy policy --policy FILE``: the loop's
    strategy is the policy, the holdout judges what the filter accepted; one seed, one output."""
    path = tmp_path / "cli.json"
    code = main(
        ["train", "sudoku", "--params", json.dumps(SUDOKU_4), "--out", str(path)]
        + ["--steps", "300", "--population", "4", "--elite", "2", "--episodes", "2"]
        + ["--quiet", "--format", "json"]
    )
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["digest"] == read_policy(path).digest
    args = ("--strategy", "policy", "--policy", str(path), "--count", "3", "--seed", "4")
    code, records, _ = _generate(capsys, *args)
    assert code == 0 and len(records) == 3
    assert {r["status"] for r in records} == {"accepted"}
    assert {r["strategy"] for r in records} == {"policy"}
    assert {r["holdoutVerdict"] for r in records} == {"UNIQUE"}
    again = _generate(capsys, *args)[1]
    assert [r["instanceDigest"] for r in again] == [r["instanceDigest"] for r in records]


@pytest.mark.parametrize(
    "extra, fault",
    [
        (("--policy", "{missing}"), "no such file"),
        (("--policy", "{foreign}"), "not a puzzlekit policy file"),
        ((), "--strategy policy needs --policy FILE"),
    ],
)
def test_a_bad_policy_file_is_one_line_and_exit_2(capsys, tmp_path, extra, fault) -> None:
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"weights": [1, 2, 3]}')
    names = {"missing": str(tmp_path / "missing.json"), "foreign": str(foreign)}
    extra = tuple(e.format(**names) for e in extra)
    code, records, err = _generate(capsys, "--strategy", "policy", *extra)
    assert code == 2 and records == [] and err.count("\n") == 1 and fault in err
    if extra:
        assert extra[1] in err


def test_a_policy_of_another_schema_is_one_line_and_exit_2(policies, capsys) -> None:
    code = main(
        ["generate", "latin", "--params", '{"size": 4}', "--strategy", "policy"]
        + ["--policy", policies["scalar"], "--quiet"]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "trained on sudoku" in err
    assert policies["scalar"] in err


def test_train_refuses_bad_settings_with_one_line(capsys, tmp_path) -> None:
    out = str(tmp_path / "p.json")
    for args, fault in (
        (["--elite", "20"], "--elite (20) must not exceed population (16)"),
        (["--steps", "0"], "--steps must be an integer of at least 1"),
        (["--start-clues", "99"], "--start-clues must be 0..16"),
    ):
        code = main(["train", "sudoku", "--params", '{"size": 4}', "--out", out, *args])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and fault in err, err
    code = main(["train", "sudoku", "--out", str(tmp_path / "no" / "p.json"), "--quiet"])
    assert code == 2 and "cannot write" in capsys.readouterr().err


def _config(tmp_path, policies) -> str:
    """A two-policy experiment config beside copies of the policies (paths relative to it)."""
    import shutil

    for mode, path in policies.items():
        shutil.copy(path, tmp_path / f"{mode}.json")
    arms = "".join(
        f'[[strategies]]\nname = "policy"\nlabel = "{mode}"\npolicy = "{mode}.json"\nclues = 0\n'
        for mode in policies
    )
    text = (
        'name = "two-policies"\nseed = 3\ntrials = 2\nbatch = 2\nexecutor = "serial"\n'
        "[budget]\nmax_calls = 20\n"
        '[[schemas]]\nfamily = "sudoku"\nparams = { size = 4 }\nlabel = "sudoku4"\n'
        f'{arms}[[filters]]\nverifier = "bitmask"\n[holdout]\nverifier = "sat"\n'
        '[preregistration]\nhypotheses = [{ id = "H1", claim = "fewer calls", '
        'metric = "calls_per_accept_mean", arms = ["structured", "scalar"], '
        'direction = "less" }]\nmetrics = ["accept_rate"]\n'
    )
    cfg = tmp_path / "exp.toml"
    cfg.write_text(text)
    return str(cfg)


def test_an_experiment_runs_two_policies_as_two_arms(policies, tmp_path, capsys) -> None:
    import pyarrow.parquet as pq

    from puzzlekit.app.experiment.config import load_config
    from puzzlekit.app.experiment.tasks import plan

    cfg = _config(tmp_path, policies)
    config = load_config(cfg)
    tasks = plan(config)
    assert [t.strategy for t in tasks] == ["structured", "scalar"]
    spec = tasks[1].loop_spec()
    assert spec.strategy == "policy"
    assert spec.strategy_settings["policy"] == str((tmp_path / "scalar.json").resolve())
    assert spec.strategy_settings["policy_digest"] == read_policy(policies["scalar"]).digest
    code = main(["run", cfg, "--out", str(tmp_path / "run"), "--quiet"])
    capsys.readouterr()
    assert code == 0
    puzzles = pq.read_table(tmp_path / "run" / "puzzles.parquet").to_pylist()
    assert sorted({p["strategy"] for p in puzzles}) == ["scalar", "structured"]
    assert len(puzzles) == 4


def test_a_config_with_a_bad_policy_names_the_file(policies, tmp_path) -> None:
    from puzzlekit.app.experiment.config import ConfigError, load_config

    cfg = _config(tmp_path, policies)
    (tmp_path / "scalar.json").write_text('{"format": "something else"}')
    with pytest.raises(ConfigError) as exc:
        load_config(cfg)
    text = str(exc.value)
    assert "strategies[1].policy" in text and "scalar.json" in text
    assert "not a puzzlekit policy file" in text
    bad = (tmp_path / "exp.toml").read_text().replace("size = 4", "size = 6")
    (tmp_path / "exp.toml").write_text(bad)
    with pytest.raises(ConfigError, match="trained on sudoku"):
        load_config(cfg)

"""The generator environment: Gymnasium's checker for every puzzle family, registration, one
seed one trajectory, refused actions, rewards from the filter alone, the reject-detail channels,
vector execution and the holdout measured outside the agent's view."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import puzzlekit.envs  # noqa: F401  (registers puzzlekit/Generate-v0)
from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.envs import GenerateEnv, HoldoutEvaluation, LayoutError
from puzzlekit.envs.observe import DETAIL_KEYS, fill_detail
from puzzlekit.families import families
from puzzlekit.verifiers.registry import get_verifier

SUDOKU4 = {"family": "sudoku", "params": {"size": 4}}
PUZZLES = [f for f in families() if f.info.default_verifier != "gametree"]


def rollout(env: gymnasium.Env, seed: int, steps: int) -> list:
    """(observation, reward, terminated, truncated) of ``steps`` seeded random actions."""
    obs, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    out = [(obs, 0.0, False, False)]
    for _ in range(steps):
        obs, reward, term, trunc, _ = env.step(env.action_space.sample())
        out.append((obs, reward, term, trunc))
        if term or trunc:
            obs, _ = env.reset()
            out.append((obs, 0.0, False, False))
    return out


def same(a: list, b: list) -> bool:
    if len(a) != len(b):
        return False
    for (oa, *ra), (ob, *rb) in zip(a, b, strict=True):
        if ra != rb or oa.keys() != ob.keys():
            return False
        if not all(np.array_equal(oa[k], ob[k]) for k in oa):
            return False
    return True


@pytest.mark.parametrize("family", PUZZLES, ids=lambda f: f.info.name)
def test_check_env_passes_for_every_puzzle_family(family) -> None:
    params = dict(family.info.listed_params[0])
    for mode in ("structured", "scalar"):
        env = gymnasium.make(
            "puzzlekit/Generate-v0",
            family=family.info.name,
            params=params,
            obs_mode=mode,
            render_mode="ansi",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a checker warning is a failure here
            check_env(env.unwrapped)
        env.close()


def test_the_id_with_the_module_makes_the_env_in_a_fresh_interpreter() -> None:
    code = (
        "import gymnasium\n"
        "env = gymnasium.make('puzzlekit.envs:puzzlekit/Generate-v0', family='latin',"
        " params={'size': 4})\n"
        "print(type(env.unwrapped).__name__, env.action_space)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["GenerateEnv", "Discrete(17)"]


def test_one_seed_gives_one_trajectory_and_another_seed_another() -> None:
    a = rollout(gymnasium.make("puzzlekit/Generate-v0", **SUDOKU4), 7, 300)
    b = rollout(gymnasium.make("puzzlekit/Generate-v0", **SUDOKU4), 7, 300)
    c = rollout(gymnasium.make("puzzlekit/Generate-v0", **SUDOKU4), 8, 300)
    assert same(a, b)
    assert not same(a, c)
    assert any(r != 0.0 for _, r, _, _ in a)  # the filter was called on the way


@pytest.mark.parametrize("action", [-1, 17, 1.0, "3", True, None, np.array([1, 2])])
def test_a_bad_action_is_refused_naming_it_and_the_valid_range(action) -> None:
    env = GenerateEnv(**SUDOKU4)
    env.reset(seed=0)
    with pytest.raises(ValueError) as err:
        env.step(action)
    message = str(err.value)
    assert repr(action) in message
    assert "Discrete(17)" in message and "0..15 toggle a slot, 16 submits" in message


def test_numpy_integer_actions_are_taken() -> None:
    env = GenerateEnv(**SUDOKU4)
    env.reset(seed=0)
    obs, *_ = env.step(np.int64(3))
    obs, *_ = env.step(np.array(5))
    assert obs["revealed"].nonzero()[0].tolist() == [3, 5]
    assert env.action_meaning(3) == "toggle r1c4" and env.action_meaning(16) == "submit"


def test_a_step_after_the_episode_ended_asks_for_reset() -> None:
    env = GenerateEnv(**SUDOKU4, start_clues="all")
    env.reset(seed=0)
    _, _, terminated, _, _ = env.step(16)
    assert terminated
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="obs_mode"):
        GenerateEnv(**SUDOKU4, obs_mode="pixels")
    with pytest.raises(ValueError, match="start_clues"):
        GenerateEnv(**SUDOKU4, start_clues=17)
    with pytest.raises(ValueError, match="rewards"):
        GenerateEnv(**SUDOKU4, rewards={"GOOD": 1.0})
    with pytest.raises(ValueError, match="max_calls"):
        GenerateEnv(**SUDOKU4, max_calls=0)


def test_a_family_whose_clues_move_with_the_solution_is_refused_at_construction() -> None:
    with pytest.raises(LayoutError, match="one layout across solutions"):
        GenerateEnv("owm-tictactoe")


def test_toggles_call_no_filter_and_a_toggle_twice_restores_the_clues() -> None:
    env = GenerateEnv(**SUDOKU4)
    obs0, _ = env.reset(seed=1)
    obs, reward, *_ = env.step(5)
    assert reward == 0.0 and obs["calls"] == 0 and env.submissions == 0
    assert obs["clues"][1, 1] == 1 and obs["revealed"][5] == 1  # r2c2 is slot 5
    obs, *_ = env.step(5)
    assert np.array_equal(obs["clues"], obs0["clues"]) and obs["revealed"].sum() == 0


def test_the_solution_channel_is_the_episode_solution() -> None:
    env = GenerateEnv(**SUDOKU4)
    obs, _ = env.reset(seed=2)
    sol = env.solution
    # 1 + the index of the value in the domain 1..4: the digit itself
    cells = [(r, c) for r in range(4) for c in range(4)]
    assert all(obs["solution"][r, c] == sol[f"r{r + 1}c{c + 1}"] for r, c in cells)


def test_rewards_come_from_the_filter_verdict_with_a_call_cost() -> None:
    env = GenerateEnv(**SUDOKU4, solution_cap=10)
    env.reset(seed=0)
    _, reward, term, _, info = env.step(16)  # nothing revealed: many solutions
    assert info["verdict"] == "MULTIPLE" and not term
    assert reward == pytest.approx(-0.1 - 0.01)
    full = GenerateEnv(**SUDOKU4, start_clues="all")
    full.reset(seed=0)
    _, reward, term, _, info = full.step(16)
    assert info["verdict"] == "UNIQUE" and term
    assert reward == pytest.approx(1.0 - 0.5 - 0.01)  # every clue revealed: half the bonus


def test_the_gap_channels_mark_where_the_found_solutions_differ() -> None:
    env = GenerateEnv(**SUDOKU4, solution_cap=10)
    env.reset(seed=3)
    for slot in (0, 1, 4, 5):
        env.step(slot)
    obs, *_ = env.step(16)
    report = env.last_report
    found = report.solutions
    sol = env.solution
    assert obs["verdict"] == puzzlekit.envs.VERDICTS.index("MULTIPLE")
    for r in range(4):
        for c in range(4):
            name = f"r{r + 1}c{c + 1}"
            values = {s[name] for s in found}
            assert obs["gap"][r, c] == (len(values) > 1)
            share = sum(s[name] != sol[name] for s in found) / len(found)
            assert obs["power"][r, c] == pytest.approx(share if len(values) > 1 else 0.0)
    assert obs["conflict"].sum() == 0 and obs["culprit"].sum() == 0


def test_the_culprit_channel_marks_what_an_exhausted_budget_names() -> None:
    env = GenerateEnv("sudoku", {"size": 9}, budget=SearchBudget(nodes=1))
    env.reset(seed=0)
    obs, reward, *_ = env.step(81)
    culprits = env.last_report.reject_detail.culprits
    assert env.last_report.verdict.value == "UNDECIDED" and culprits
    assert reward == pytest.approx(-0.2 - 0.01)
    assert {tuple(x) for x in np.argwhere(obs["culprit"] == 1)} == {c.coord for c in culprits}


def test_the_conflict_channel_marks_the_clues_of_a_conflict() -> None:
    env = GenerateEnv(**SUDOKU4)
    given = [Clue.make(f"r1c{c}", "given", {"value": 1}, [(0, c - 1)]) for c in (1, 2)]
    report = get_verifier("sat").verify(Instance.make("sudoku", {"size": 4}, given))
    out = np.zeros((len(DETAIL_KEYS), env.layout.n_cells), np.float32)
    fill_detail(out, report, env.layout, {})
    assert out[2].reshape(4, 4)[0].tolist() == [1.0, 1.0, 0.0, 0.0]
    assert out[[0, 1, 3]].sum() == 0


def test_the_scalar_mode_shows_no_verdict_and_no_reject_detail() -> None:
    env = GenerateEnv(**SUDOKU4, obs_mode="scalar")
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"revealed", "clues", "solution", "calls"}
    _, reward, *_ = env.step(16)
    assert reward == pytest.approx(-0.11)  # the verdict arrives as the reward alone


def test_sync_and_async_vector_envs_run_the_same_episodes() -> None:
    def make() -> gymnasium.Env:
        return gymnasium.make("puzzlekit/Generate-v0", **SUDOKU4)

    results = []
    for cls in (gymnasium.vector.SyncVectorEnv, gymnasium.vector.AsyncVectorEnv):
        vec = cls([make, make])
        obs, _ = vec.reset(seed=5)
        vec.action_space.seed(5)
        rewards = []
        for _ in range(120):
            obs, reward, *_ = vec.step(vec.action_space.sample())
            rewards.append(reward.copy())
        vec.close()
        assert obs["gap"].shape == (2, 4, 4)
        results.append((np.array(rewards), obs["revealed"]))
    assert np.array_equal(results[0][0], results[1][0])
    assert np.array_equal(results[0][1], results[1][1])
    assert np.count_nonzero(results[0][0]) > 0


def test_the_holdout_wrapper_changes_nothing_the_agent_sees() -> None:
    plain = rollout(GenerateEnv(**SUDOKU4), 11, 400)
    wrapped_env = HoldoutEvaluation(GenerateEnv(**SUDOKU4), process=False)
    wrapped = rollout(wrapped_env, 11, 400)
    assert same(plain, wrapped)
    assert wrapped_env.accepted > 0 and wrapped_env.holdout_reject_rate == 0.0
    assert wrapped_env.holdout_name == "sat"  # the bitmask filter's independent backend


def test_the_holdout_measures_a_faulty_filter_in_its_own_process() -> None:
    env = HoldoutEvaluation(
        GenerateEnv(**SUDOKU4, filter="faulty", start_clues="all"), holdout="sat"
    )
    for seed in range(12):
        env.reset(seed=seed)
        _, reward, term, _, info = env.step(16)
        assert term and "holdout" not in " ".join(info)
    assert env.accepted == 12
    assert 0.0 < env.holdout_reject_rate <= 1.0  # solutions that break the box rule
    assert [r.episode for r in env.records] == list(range(12))
    assert env._holdout.pid is not None  # a worker process, not this one


def test_a_holdout_equal_to_the_filter_is_refused() -> None:
    with pytest.raises(ValueError, match="filter itself"):
        HoldoutEvaluation(GenerateEnv(**SUDOKU4, filter="sat"), holdout="sat")


def test_the_same_clues_are_answered_from_the_kept_report_and_still_count_as_a_call() -> None:
    env = GenerateEnv(**SUDOKU4)
    env.reset(seed=0)
    env.step(16)
    first = env.last_report
    obs, *_ = env.step(16)
    assert env.last_report is first and env.cache_hits == 1 and obs["calls"] == 2
    env.reset(seed=1)  # another solution, the same (empty) clue set: the same instance
    env.step(16)
    assert env.last_report is first and env.cache_hits == 2
    fresh = GenerateEnv(**SUDOKU4, report_cache=0)
    fresh.reset(seed=0)
    fresh.step(16)
    fresh.step(16)
    assert fresh.cache_hits == 0

    def content(report) -> dict:
        return {k: v for k, v in report.to_json_obj().items() if k != "stats"}  # stats: timing

    assert content(fresh.last_report) == content(first)


def test_the_speed_study_measures_every_schema_and_policy(capsys) -> None:
    from benchmarks import env_speed

    assert env_speed.main(["--steps", "200", "--json"]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)
    assert [(r["schema"], r["policy"]) for r in rows] == [
        (s, p) for s, _, _ in env_speed.SCHEMAS for p in env_speed.POLICIES
    ]
    for row in rows:
        assert row["steps"] == 200 and row["stepsPerSecond"] > 0
        assert row["filterCalls"] <= row["submissions"]


def test_the_rollout_example_of_docs_envs_prints_what_the_page_shows(tmp_path) -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "envs.md").read_text()
    section = page.split("## A rollout", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    shown = section.split("```text\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "rollout.py"  # a file, so the holdout's spawned worker re-imports it
    script.write_text(code)
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout == shown


def test_the_making_example_of_docs_envs_runs() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "envs.md").read_text()
    code = page.split("## Making it", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(code, "docs/envs.md", "exec"), namespace)
    assert namespace["env"].unwrapped.family.info.name == "latin"

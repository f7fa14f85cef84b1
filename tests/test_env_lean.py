"""The generator environment's lean filter call: ``bitmask``'s ``verify_found`` finds the
solutions ``verify`` reports, and an environment answered through it shows the agent exactly
what the full reports would (observations, rewards, ends), its ``last_report`` built on demand."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.report import Verdict
from puzzlekit.envs import GenerateEnv
from puzzlekit.families import families
from puzzlekit.verifiers.registry import default_filter_name, get_verifier

LEAN = [f for f in families() if default_filter_name(f.info.name) == "bitmask"]


def plan(n_actions: int, steps: int, seed: int) -> list[int]:
    """Seeded actions, a submission two times in five (the rest toggles)."""
    rng = np.random.default_rng(seed)
    return [
        n_actions - 1 if rng.random() < 0.4 else int(rng.integers(n_actions - 1))
        for _ in range(steps)
    ]


def trajectory(env: GenerateEnv, actions: list[int], seed: int) -> list:
    obs, _ = env.reset(seed=seed)
    out = [obs]
    for action in actions:
        obs, reward, term, trunc, info = env.step(action)
        out.append((obs, reward, term, trunc, info))
        if term or trunc:
            out.append(env.reset()[0])
    return out


def same(a, b) -> bool:
    """Observations equal key by key and array by array, rewards and ends equal."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        ox, oy = (x, y) if isinstance(x, dict) else (x[0], y[0])
        if not isinstance(x, dict) and x[1:] != y[1:]:
            return False
        if ox.keys() != oy.keys() or not all(np.array_equal(ox[k], oy[k]) for k in ox):
            return False
    return True


@pytest.mark.parametrize("family", LEAN, ids=lambda f: f.info.name)
def test_a_lean_environment_shows_what_the_full_reports_show(family) -> None:
    params = dict(family.info.listed_params[0])
    lean = GenerateEnv(family.info.name, params, start_clues=2)
    full = GenerateEnv(family.info.name, params, start_clues=2, lean=False)
    actions = plan(int(lean.action_space.n), 150, seed=3)
    seen_lean = trajectory(lean, actions, seed=5)
    seen_full = trajectory(full, actions, seed=5)
    assert same(seen_lean, seen_full)
    assert lean.submissions == full.submissions > 0
    # the lean answers carry no report until one is read; read, it is the full one
    assert all(a.report is None for a in lean._reports.values() if a.found is not None)
    assert any(a.found is not None for a in lean._reports.values())
    assert all(a.report is not None for a in full._reports.values())
    if lean.last_submitted is not None:
        assert lean.last_verdict is full.last_verdict
        assert _content(lean.last_report) == _content(full.last_report)


def test_a_multiple_answer_marks_the_gap_and_its_power_as_the_full_report_does() -> None:
    lean = GenerateEnv("sudoku", {"size": 4})
    full = GenerateEnv("sudoku", {"size": 4}, lean=False)
    for env in (lean, full):
        env.reset(seed=7)
        for slot in (0, 5, 10):
            env.step(slot)
    obs_lean, r_lean, *_ = lean.step(16)
    obs_full, r_full, *_ = full.step(16)
    assert lean.last_verdict is Verdict.MULTIPLE and r_lean == r_full
    assert obs_lean["gap"].sum() > 0 and 0 < obs_lean["power"].max() <= 1
    for key in ("gap", "power", "conflict", "culprit"):
        assert np.array_equal(obs_lean[key], obs_full[key])


def _content(report) -> dict:
    return {k: v for k, v in report.to_json_obj().items() if k != "stats"}  # stats: timing


def test_verify_found_finds_the_reported_solutions_and_declines_the_other_verdicts() -> None:
    bitmask = get_verifier("bitmask")
    schema = {"size": 4}
    few = Instance.make("sudoku", schema, [Clue.make("r1c1", "given", {"value": 1}, [(0, 0)])])
    report = bitmask.verify(few, solution_cap=10)
    rows = bitmask.verify_found(few, solution_cap=10)
    names = [name for name in report.solutions[0]]
    assert report.verdict is Verdict.MULTIPLE and len(rows) == report.solution_count == 10
    reported = {tuple(s[n] for n in names) for s in report.solutions}
    assert {tuple(int(v) for v in row) for row in rows} == reported
    clash = Instance.make(
        "sudoku",
        schema,
        [Clue.make(f"r1c{c}", "given", {"value": 1}, [(0, c - 1)]) for c in (1, 2)],
    )
    assert bitmask.verify(clash).verdict in (Verdict.UNSOLVABLE, Verdict.INVALID_SPEC)
    assert bitmask.verify_found(clash) is None
    with pytest.raises(ValueError, match="solution_cap"):
        bitmask.verify_found(few, solution_cap=1)


def test_the_same_clues_in_another_episode_get_that_episodes_power() -> None:
    """A kept lean answer serves another episode's solution: the power is drawn anew."""
    lean = GenerateEnv("sudoku", {"size": 4})
    full = GenerateEnv("sudoku", {"size": 4}, lean=False)
    seen = []
    for env in (lean, full):
        powers = []
        for seed in (0, 1, 2):
            env.reset(seed=seed)
            obs, *_ = env.step(16)  # the empty clue set: one instance in every episode
            powers.append(obs["power"])
        seen.append(powers)
    assert lean.cache_hits == full.cache_hits == 2
    assert not np.array_equal(seen[0][0], seen[0][1])  # other solutions, other powers
    assert all(np.array_equal(a, b) for a, b in zip(*seen, strict=True))


def test_the_flattened_environment_of_docs_envs_passes_the_checker() -> None:
    """docs/envs.md's wrapper for an MlpPolicy learner (stable-baselines3, not installed here):
    FlattenObservation turns the Dict observation into one Box vector the checker accepts."""
    import warnings

    import gymnasium
    from gymnasium.utils.env_checker import check_env
    from gymnasium.wrappers import FlattenObservation

    import puzzlekit.envs  # noqa: F401  (registers puzzlekit/Generate-v0)

    flat = FlattenObservation(
        gymnasium.make("puzzlekit/Generate-v0", family="sudoku", params={"size": 4})
    )
    assert isinstance(flat.observation_space, gymnasium.spaces.Box)
    assert len(flat.observation_space.shape) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure, except the one on
        warnings.filterwarnings("ignore", message=".*different from the unwrapped")  # wrappers
        check_env(flat)
    obs, _ = flat.reset(seed=0)
    obs, *_ = flat.step(16)
    assert obs.shape == flat.observation_space.shape and flat.observation_space.contains(obs)

"""The solver environment ``puzzlekit/Solve-v0``: Gymnasium's checker passes for every grid
family; one seed gives one puzzle and one trajectory; placing the solution solves with the
shaped reward the docstring states; a dead board is marked and recovers when cleared; refused
actions leave the board and say why; actions outside the space raise."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import puzzlekit as pk
import puzzlekit.answers
import puzzlekit.envs  # noqa: F401  (registers the ids)
from puzzlekit.answers.prompts import layout_of
from puzzlekit.envs.solve import DEFAULT_SOLVE_REWARDS, FEEDBACK, SolveEnv
from puzzlekit.families import families

GRID = [  # the built-in ones (a test file run before this one may have registered a plugin's)
    (f.info.name, dict(f.info.listed_params[0]))
    for f in families()
    if type(f).__module__.startswith("puzzlekit.families.")
    and f.info.listed_params
    and layout_of(f, f.schema(dict(f.info.listed_params[0]))).kind in ("grid", "sparse")
]
STEP = DEFAULT_SOLVE_REWARDS["step"]


def test_the_grid_families_are_the_eleven() -> None:
    assert sorted(name for name, _ in GRID) == [
        "futoshiki",
        "futoshiki-adjacent",
        "kakuro",
        "kenken",
        "latin",
        "nonogram",
        "skyscrapers",
        "starbattle",
        "sudoku",
        "sudoku-jigsaw",
        "sudoku-killer",
    ]


@pytest.mark.parametrize(("family", "params"), GRID, ids=[name for name, _ in GRID])
def test_check_env_passes(family: str, params: dict) -> None:
    env = gymnasium.make("puzzlekit/Solve-v0", family=family, params=params, render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning fails the test too
        check_env(env.unwrapped)
    assert "feedback:" in env.unwrapped.render()


@pytest.mark.parametrize(("family", "params"), GRID, ids=[name for name, _ in GRID])
def test_a_right_placement_is_placed_and_a_wrong_one_dead_in_every_grid_family(
    family: str, params: dict
) -> None:
    env = SolveEnv(family, params)
    env.reset(seed=1)
    solution = _solution(env)
    first, second = _free(env)[:2]
    _, reward, _, _, info = env.step(env.action_for(first, solution[first]))
    assert info["feedback"] == "placed" and info["completable"] is True and reward > 0
    wrong = next(v for v in env.values if v != solution[second])
    obs, reward, _, _, info = env.step(env.action_for(second, wrong))
    assert info["feedback"] == "dead" and second in info["dead_cells"] and reward < 0
    assert obs["dead"].sum() == len(info["dead_cells"])


def _solution(env: SolveEnv) -> dict[str, int]:
    return dict(pk.verify(env.instance).solutions[0])


def _free(env: SolveEnv) -> list[str]:
    return [n for n, x in env.board().items() if x is None]


def test_one_seed_gives_one_puzzle_and_one_trajectory() -> None:
    def run(seed: int) -> list:
        env = SolveEnv("sudoku", {"size": 4})
        obs, info = env.reset(seed=seed)
        out = [info["instance"], obs["board"].tolist()]
        env.action_space.seed(seed)
        for _ in range(6):
            obs, reward, term, trunc, info = env.step(env.action_space.sample())
            out.append((obs["board"].tolist(), obs["dead"].tolist(), reward, term, info))
        return out

    assert run(5) == run(5)
    assert run(5)[0] != run(6)[0]


def test_placing_the_solution_solves_with_the_shaped_reward() -> None:
    env = SolveEnv("sudoku", {"size": 4})
    obs, info = env.reset(seed=2)
    assert obs["feedback"] == FEEDBACK.index("start") and info["feedback"] == "start"
    assert obs["givens"].sum() == len(env.instance.clues) == info["filled"]
    solution = _solution(env)
    free = _free(env)
    total = 0.0
    for k, name in enumerate(free, 1):
        obs, reward, term, trunc, info = env.step(env.action_for(name, solution[name]))
        total += reward
        if k < len(free):
            assert info["feedback"] == "placed" and not term
            assert reward == pytest.approx(1 / len(free) - STEP)  # the potential's step
    assert term and not trunc and info["feedback"] == "solved"
    assert obs["feedback"] == FEEDBACK.index("solved")
    # the potential from 0 to 1, the solved bonus, less one step cost per action
    assert total == pytest.approx(1.0 + DEFAULT_SOLVE_REWARDS["solved"] - STEP * len(free))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(env.action_for(free[0], None))


def test_a_dead_board_is_marked_and_clearing_the_culprit_recovers() -> None:
    env = SolveEnv("sudoku", {"size": 4})
    env.reset(seed=3)
    solution = _solution(env)
    name = _free(env)[0]
    wrong = next(v for v in env.values if v != solution[name])
    obs, reward, term, _, info = env.step(env.action_for(name, wrong))
    assert info["feedback"] == "dead" and info["completable"] is False and not term
    assert name in info["dead_cells"]
    r, c = env.coords[env.names.index(name)]
    assert obs["dead"][r, c] == 1 and obs["feedback"] == FEEDBACK.index("dead")
    assert reward == pytest.approx(-DEFAULT_SOLVE_REWARDS["dead"] - STEP)
    obs, back, _, _, info = env.step(env.action_for(name, None))
    assert info["feedback"] == "cleared" and obs["dead"].sum() == 0
    assert back == pytest.approx(DEFAULT_SOLVE_REWARDS["dead"] - STEP)
    # placing then clearing a right value earns nothing but the step costs
    _, up, _, _, _ = env.step(env.action_for(name, solution[name]))
    _, down, _, _, _ = env.step(env.action_for(name, None))
    assert up + down == pytest.approx(-2 * STEP)


def test_refused_actions_leave_the_board_and_say_why() -> None:
    env = SolveEnv("sudoku", {"size": 4})
    obs0, _ = env.reset(seed=4)
    given = next(n for n, x in env.board().items() if x is not None)
    empty = _free(env)[0]
    solution = _solution(env)
    cases = [
        (env.action_for(given, env.values[0]), "is given"),
        (env.action_for(empty, None), "nothing to clear"),
    ]
    for action, said in cases:
        obs, reward, term, trunc, info = env.step(action)
        assert info["feedback"] == "refused" and said in info["error"]
        assert reward == pytest.approx(-DEFAULT_SOLVE_REWARDS["refused"] - STEP)
        assert np.array_equal(obs["board"], obs0["board"])
    env.step(env.action_for(empty, solution[empty]))
    _, _, _, _, info = env.step(env.action_for(empty, solution[empty]))
    assert info["feedback"] == "refused" and "already holds" in info["error"]


def test_a_coordinate_that_is_no_cell_is_refused_in_a_sparse_grid() -> None:
    env = SolveEnv("kakuro", {"rows": 5, "cols": 5, "seed": 1})
    obs, _ = env.reset(seed=0)
    r, c = map(int, np.argwhere(obs["cells"] == 0)[0])
    _, _, _, _, info = env.step(np.array([r, c, 1]))
    assert info["feedback"] == "refused" and "not a cell" in info["error"]


@pytest.mark.parametrize("action", [[4, 0, 1], [0, 0, 5], [0, 0], [0.0, 0.0, 1.0], "r1c1=1", 3])
def test_an_action_outside_the_space_raises_saying_what_the_space_is(action) -> None:
    env = SolveEnv("sudoku", {"size": 4})
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"MultiDiscrete\(\[4, 4, 5\]\)"):
        env.step(action)


def test_puzzles_and_options_choose_the_puzzle_and_other_families_are_refused() -> None:
    line = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
    puzzle = pk.parse("sudoku", line)
    env = SolveEnv("sudoku", puzzles=[puzzle.to_json()])
    _, info = env.reset(seed=9)
    assert env.instance == puzzle and info["instance"] == puzzle.to_json_obj()
    assert env.prompt().startswith("Solve this sudoku puzzle.")
    other = SolveEnv("sudoku", {"size": 4})
    small = pk.parse("sudoku", "1.3.......2.3...", {"size": 4})
    other.reset(seed=0, options={"instance": small})
    assert other.instance == small
    with pytest.raises(ValueError, match="not ours"):
        SolveEnv("sudoku", {"size": 4}, puzzles=[puzzle])
    for family in ("logicgrid", "owm-tictactoe"):
        with pytest.raises(ValueError, match="grid families"):
            SolveEnv(family)
    with pytest.raises(ValueError, match="rewards"):
        SolveEnv("sudoku", rewards={"win": 1.0})


def test_importing_the_envs_package_leaves_the_solver_module_unimported() -> None:
    code = (
        "import sys, gymnasium, puzzlekit.envs\n"
        "assert 'puzzlekit.envs.solve' not in sys.modules\n"
        "env = gymnasium.make('puzzlekit/Solve-v0', family='latin', params={'size': 4})\n"
        "assert 'puzzlekit.envs.solve' in sys.modules\n"
        "print(type(env.unwrapped).__name__)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "SolveEnv"


@pytest.mark.parametrize(("shrink", "dead"), [(True, ["r1c3"]), (False, ["r1c3", "r1c4"])])
def test_shrink_false_marks_every_placed_cell_of_a_dead_board(shrink: bool, dead: list) -> None:
    line = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
    env = SolveEnv("sudoku", puzzles=[pk.parse("sudoku", line)], shrink=shrink)
    env.reset(seed=0)
    _, _, _, _, info = env.step(env.action_for("r1c4", 6))  # right
    assert info["feedback"] == "placed"
    obs, _, _, _, info = env.step(env.action_for("r1c3", 1))  # clashes with nothing, yet dead
    assert info["feedback"] == "dead" and sorted(info["dead_cells"]) == dead
    assert obs["dead"].sum() == len(dead)
    board = {**env.board()}
    rep = puzzlekit.answers.check_partial(env.instance, board, shrink=shrink)
    assert rep.dead_kind == ("minimum" if shrink else "unshrunk")

"""What the three paths to a model cost: the reward, reasoning-gym entries, the solver environment.

Run ``python -m benchmarks.models_bench`` (``--quick`` for a small run). It prints:

1. the TRL-shaped reward (:data:`puzzlekit.integrations.reward.reward`) on one 9×9 Sudoku over
   ``--completions`` completions (default 1,000): chat-message completions whose last grid is
   the solution after some prose, plain answer lines, and lines half of them wrong (a given
   overwritten), in completions per CPU second;
2. reasoning-gym entries of ``puzzlekit-sudoku`` (9×9, each made by the closed loop: filter
   UNIQUE, then the holdout) per CPU second over ``--entries`` entries (default 20), when
   reasoning-gym is installed;
3. ``puzzlekit/Solve-v0`` with the agent of docs/models.md (each empty cell in turn, the first
   value the partial check does not call dead), on 4×4 and 9×9 Sudoku, seeds 0 to 2: whether
   it solved, its steps, steps per wall second and CPU milliseconds per step, and the reset's
   wall seconds (the loop making the puzzle); the 9×9 again with ``shrink=False`` (a dead
   board's placed cells marked, not shrunk to the smallest dead set).

CPU time (``time.process_time``) where a rate is given, so a shared machine's load counts less.
A benchmark, not a test: nothing here asserts; tests/test_integrations.py and
tests/test_solve_env.py pin the behaviour.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Sequence

import puzzlekit as pk

SUDOKU = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def reward_rates(count: int) -> list[str]:
    """Part 1: completions per CPU second of the reward, three kinds of completion."""
    from puzzlekit.integrations.reward import reward

    inst = pk.parse("sudoku", SUDOKU).to_json()
    grid = "\n".join(" ".join(SOLVED[i : i + 9]) for i in range(0, 81, 9))
    chat = [{"role": "assistant", "content": f"Let me reason step by step...\nAnswer:\n{grid}"}]
    wrong = "6" + SOLVED[1:]  # r1c1 is given 5
    reward([chat, SOLVED, wrong], instance=[inst] * 3)  # compile the puzzle once
    rows = []
    for name, completions in (
        ("chat messages, free text", [chat] * count),
        ("plain answer lines", [SOLVED] * count),
        ("answer lines, half wrong", [wrong if i % 2 else SOLVED for i in range(count)]),
    ):
        t = time.process_time()
        scores = reward(completions, instance=[inst] * count)
        cpu = time.process_time() - t
        mean = sum(scores) / len(scores)
        rows.append(
            f"{name}: {count} in {cpu:.3f} CPU s = {count / cpu:,.0f}/CPU s (mean score {mean:.3f})"
        )
    return rows


def entry_rate(count: int) -> list[str]:
    """Part 2: reasoning-gym entries of 9×9 Sudoku made per CPU second."""
    try:
        import reasoning_gym
    except ImportError:
        return ["reasoning-gym is not installed: pip install 'puzzlekit[reasoning-gym]'"]
    from puzzlekit.integrations.reasoning_gym import register

    register(["sudoku"])
    data = reasoning_gym.create_dataset("puzzlekit-sudoku", size=count + 1, seed=1)
    data[count]  # warm: the filter and the holdout built once
    t, w = time.process_time(), time.perf_counter()
    right = sum(data.score_answer(data[i]["answer"], data[i]) == 1.0 for i in range(count))
    cpu, wall = time.process_time() - t, time.perf_counter() - w
    return [
        f"{count} entries of puzzlekit-sudoku (9x9): {cpu:.2f} CPU s ({count / cpu:.1f}/CPU s), "
        f"{wall:.2f} s wall; their answers scored 1.0: {right}/{count}"
    ]


def agent_rows(params: dict, seeds: Sequence[int], *, shrink: bool = True) -> list[str]:
    """Part 3: the docs' agent in Solve-v0, one row per seed."""
    import gymnasium

    import puzzlekit.envs  # noqa: F401  (registers the ids)

    env = gymnasium.make("puzzlekit/Solve-v0", family="sudoku", params=params, shrink=shrink)
    solver = env.unwrapped
    rows = []
    for seed in seeds:
        w = time.perf_counter()
        env.reset(seed=seed)
        reset = time.perf_counter() - w
        steps, info, terminated = 0, {}, False
        t, w = time.process_time(), time.perf_counter()
        for cell in [n for n, v in solver.board().items() if v is None]:
            for value in solver.values:
                _, _, terminated, _, info = env.step(solver.action_for(cell, value))
                steps += 1
                if info["feedback"] != "dead":
                    break
        cpu, wall = time.process_time() - t, time.perf_counter() - w
        rows.append(
            f"sudoku {params.get('size', 9)}x{params.get('size', 9)} seed {seed}"
            f"{'' if shrink else ' shrink=False'}: "
            f"{info.get('feedback')} (terminated {terminated}) in {steps} steps, "
            f"{steps / wall:.0f} steps/s wall, {cpu / steps * 1e3:.1f} CPU ms/step; "
            f"reset {reset:.2f} s"
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--completions", type=int, default=1000, help="completions per reward run")
    ap.add_argument("--entries", type=int, default=20, help="reasoning-gym entries made")
    ap.add_argument("--quick", action="store_true", help="a small run: 4x4 only, few of each")
    args = ap.parse_args(argv)
    print(f"# models_bench on {platform.node()} ({platform.processor() or platform.machine()})")
    print("\n## the reward (9x9 Sudoku)")
    print("\n".join(reward_rates(50 if args.quick else args.completions)))
    print("\n## reasoning-gym entries")
    print("\n".join(entry_rate(2 if args.quick else args.entries)))
    print("\n## Solve-v0, the docs' agent")
    print("\n".join(agent_rows({"size": 4}, [0] if args.quick else [0, 1, 2])))
    if not args.quick:
        print("\n".join(agent_rows({}, [0, 1, 2])))
        print("\n".join(agent_rows({}, [0, 1, 2], shrink=False)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

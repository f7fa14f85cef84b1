"""The closed-loop goals, measured: verifier calls against final clue count for blind and
adaptive, minimal-puzzle throughput, and holdout rejects with exact filters.

Run ``python -m benchmarks.loopbench --out runs/loop_goals`` (``--quick`` for a small
sample); it writes ``loop_goals.md``, ``curve.csv`` and the loops' puzzle rows
(``curve_loops.parquet``, columns as in docs/data.md). Every loop runs through the one driver
(:class:`puzzlekit.loop.driver.LoopDriver`). A benchmark, not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from puzzlekit.core.model import Instance
from puzzlekit.core.solutions import random_solution
from puzzlekit.families import get_family
from puzzlekit.generators.minimize import minimize
from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed
from puzzlekit.loop.row_schema import PUZZLE_SCHEMA, rows_frame
from puzzlekit.loop.rows import puzzle_row, row_keys
from puzzlekit.verifiers.registry import get_verifier

SUDOKU9 = ("sudoku", {"size": 9})


def calls_curve(ks: list[int], loops: int, max_calls: int, seed: int) -> pd.DataFrame:
    """Puzzle rows (:mod:`puzzlekit.loop.rows`), one per loop, for blind and adaptive at each k.

    Loop ``i`` at ``k`` has the seed ``loop_seed(seed, k * 100000 + i)``."""
    rows = []
    for k in ks:
        for name in ("blind", "adaptive"):
            spec = LoopSpec(*SUDOKU9, strategy=name, k=k, filter="sat", max_calls=max_calls)
            driver = LoopDriver(spec)
            for i in range(loops):
                trial = k * 100_000 + i
                s = loop_seed(seed, trial)
                keys = row_keys("sudoku9", name, k, "sat", trial, s)
                rows.append(puzzle_row(driver.run(s), keys, family=driver.family, holdout=None))
    return rows_frame(rows, PUZZLE_SCHEMA)


def write_rows(puzzles: pd.DataFrame, path: Path) -> None:
    """Puzzle rows as Parquet with the row schema (docs/data.md)."""
    import pyarrow.parquet as pq

    from puzzlekit.loop.row_schema import frame_table

    pq.write_table(frame_table(puzzles, PUZZLE_SCHEMA), path)


def per_clue_count(puzzles: pd.DataFrame) -> pd.DataFrame:
    """Filter calls per accepted puzzle, by strategy and final clue count (puzzle rows)."""
    df = puzzles.assign(accepted=puzzles["status"] == "accepted")
    out = defaultdict(dict)
    for (strategy, clues), grp in df[df.accepted].groupby(["strategy", "clueCount"]):
        out[int(clues)][strategy + "_accepted"] = len(grp)
    # blind: all calls at start k, divided by accepted puzzles at that k
    for k, grp in df[df.strategy == "blind"].groupby("k"):
        acc = int(grp.accepted.sum())
        calls = grp.filterCalls.sum()
        out[int(k)]["blind_calls_per_accepted"] = calls / acc if acc else float("inf")
    acc = df[(df.strategy == "adaptive") & df.accepted]
    for clues, grp in acc.groupby("clueCount"):
        out[int(clues)]["adaptive_calls_per_accepted"] = grp.filterCalls.mean()
    table = pd.DataFrame.from_dict(out, orient="index").sort_index()
    table.index.name = "final_clues"
    if {"blind_calls_per_accepted", "adaptive_calls_per_accepted"} <= set(table.columns):
        table["ratio"] = table.blind_calls_per_accepted / table.adaptive_calls_per_accepted
    return table


def curve_from_run(run_dir: Path) -> pd.DataFrame:
    """The same table from a ``puzzlekit run`` directory (its ``puzzles.parquet``)."""
    from puzzlekit.app.plots import load_run

    _, puzzles, _ = load_run(run_dir)
    return per_clue_count(puzzles)


def minimal_rate(n: int, seed: int) -> dict[str, float]:
    schema = get_family("sudoku").schema({"size": 9})
    fam = get_family("sudoku")
    sat = get_verifier("sat")
    rng = np.random.default_rng(seed)
    sat.verify(Instance.make("sudoku", {"size": 9}, []))  # build the solver once, outside timing
    clues = []
    t0 = time.perf_counter()
    for _ in range(n):
        sol = random_solution(schema, rng)
        full = Instance.make("sudoku", {"size": 9}, fam.clues_from_solution(schema, sol))
        clues.append(len(minimize(full, sat, rng, solution=sol).instance.clues))
    dt = time.perf_counter() - t0
    return {"puzzles": n, "seconds": dt, "per_second": n / dt, "mean_clues": float(np.mean(clues))}


def holdout_rejects(family: str, params: dict, n: int, k: int, seed: int) -> dict[str, object]:
    spec = LoopSpec(family, params, strategy="adaptive", k=k, filter="sat", holdout="enumerative")
    driver = LoopDriver(spec)
    accepted = rejected = 0
    for _, r in driver.batch(seed, range(n)):
        accepted += r.accepted
        rejected += r.holdout_rejected
    return {
        "family": family,
        "params": json.dumps(params),
        "loops": n,
        "accepted": accepted,
        "holdout_rejects": rejected,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="runs/loop_goals")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--loops", type=int, default=None, help="loops per strategy and k")
    p.add_argument("--holdout-loops", type=int, default=None, help="loops per family")
    p.add_argument(
        "--curve-from",
        default=None,
        help="a run directory of experiments/adaptive_vs_blind.toml to tabulate",
    )
    p.add_argument(
        "--skip-curve",
        action="store_true",
        help="skip the calls curve (measured by experiments/adaptive_vs_blind.toml)",
    )
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    quick = args.quick
    ks = [20, 22, 24, 26, 28, 30, 32, 34] if not quick else [24, 30, 34]
    t0 = time.perf_counter()
    loops = args.loops or (10 if quick else 30)
    table = pd.DataFrame()
    if args.curve_from:
        table = curve_from_run(Path(args.curve_from))
        table.to_csv(out / "curve.csv")
    elif not args.skip_curve:
        df = calls_curve(ks, loops, 300 if quick else 1000, args.seed)
        write_rows(df, out / "curve_loops.parquet")
        table = per_clue_count(df)
        table.to_csv(out / "curve.csv")
    rate = minimal_rate(10 if quick else 100, args.seed)
    n = args.holdout_loops or (30 if quick else 1000)
    holds = [
        holdout_rejects("sudoku", {"size": 9}, n, 24, args.seed),
        holdout_rejects("sudoku", {"size": 4}, n, 4, args.seed),
        holdout_rejects("latin", {"size": 5}, n, 8, args.seed),
    ]
    lines = [
        "# Closed-loop goals",
        "",
        f"Command: `python -m benchmarks.loopbench {' '.join(argv or sys.argv[1:])}`"
        f" — {platform.machine()}, {platform.python_version()}, "
        f"{_cpu()}, {time.perf_counter() - t0:.0f} s in all.",
        "",
        "## Filter calls per accepted 9×9 puzzle, by final clue count (sat filter)",
        "",
        "Blind: `--clues K` exact, every call on a fresh puzzle; adaptive starts at K and reveals",
        "the top discriminative cell; its rows are grouped by the clue count it ended at.",
        "",
        table.to_markdown() if _has_tabulate() else table.to_string(),
        "",
        "## Minimal unique 9×9 puzzles per second (one core, sat filter)",
        "",
        f"{rate['per_second']:.1f} puzzles/s over {rate['puzzles']} puzzles "
        f"(mean {rate['mean_clues']:.1f} clues)",
        "",
        "## Holdout rejects with exact filters (sat filter, enumerative holdout)",
        "",
    ]
    lines += [
        f"- {h['family']} {h['params']}: {h['holdout_rejects']} rejects of "
        f"{h['accepted']} accepted ({h['loops']} loops)"
        for h in holds
    ]
    (out / "loop_goals.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    raise SystemExit(main())

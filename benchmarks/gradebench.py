"""Graded generation, measured: 9×9 Sudoku puzzles at exactly one level, adaptive against blind.

Both strategies are ``puzzlekit generate sudoku --difficulty LEVEL --holdout none`` and start,
as graded generation does, from a random full grid the loop accepts at once:

- ``adaptive`` (:func:`puzzlekit.generators.graded.shape_to_level`): level 0 digs the full grid;
higher
  levels minimize it with the SAT uniqueness session, run the solver limited to the level, reveal
  where it is stuck, dig what a single brings back and grade the result;
- ``blind`` (``--strategy blind``): minimize the same way, grade once, keep only exactly LEVEL.

Grader calls are the records' ``graderCalls`` (solver runs started; a run that goes on after a
reveal is not a new call), summed over every loop, dropped ones included; grader time is the
time spent inside the solver's runs, so the two columns can be weighed against each other.
Verifier calls count every ``verify`` and every uniqueness-session question. Each (level,
strategy) stops at ``--count`` accepted puzzles or ``--time-limit`` seconds; the run is pinned
to one core where the OS allows it.

Run ``python -m benchmarks.gradebench --out runs/gradebench``; it prints the Markdown
table and
writes ``gradebench.md``. ``--reveal-study N`` compares instead the ways of picking the stuck
cell to reveal (:func:`reveal_study`). A benchmark, not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import platform
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import puzzlekit.grading.techniques as grading
from puzzlekit.core.model import Instance
from puzzlekit.loop.batch import GenerateConfig, generate

COLUMNS = (
    "level",
    "strategy",
    "accepted",
    "grader calls/puzzle",
    "grader ms/puzzle",
    "verifier calls/puzzle",
    "clues",
    "puzzles/s",
)
PARAMS = {"size": 9}


@dataclass
class Counter:
    verifier: int = 0
    grader_seconds: float = 0.0


class _CountingSession:
    def __init__(self, inner: Any, counter: Counter) -> None:
        self._inner, self._counter = inner, counter

    def unique_with(self, clue_ids: Any) -> bool:
        self._counter.verifier += 1
        return self._inner.unique_with(clue_ids)

    def close(self) -> None:
        self._inner.close()


class CountingVerifier:
    """A verifier that counts ``verify`` calls and uniqueness-session questions."""

    def __init__(self, inner: Any, counter: Counter) -> None:
        self._inner, self._counter = inner, counter

    def verify(self, instance: Instance, *args: Any, **kwargs: Any) -> Any:
        self._counter.verifier += 1
        return self._inner.verify(instance, *args, **kwargs)

    def uniqueness_session(self, instance: Instance, solution: Any) -> _CountingSession | None:
        inner = self._inner.uniqueness_session(instance, solution)
        return None if inner is None else _CountingSession(inner, self._counter)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@contextlib.contextmanager
def counting(counter: Counter) -> Iterator[None]:
    """Time the logical solver's runs."""
    real_run = grading.PencilSolver.run

    def run(self: Any, cap: int | None = None) -> str:
        t0 = time.perf_counter()
        try:
            return real_run(self, cap)
        finally:
            counter.grader_seconds += time.perf_counter() - t0

    grading.PencilSolver.run = run  # type: ignore[method-assign]
    try:
        yield
    finally:
        grading.PencilSolver.run = real_run  # type: ignore[method-assign]


def run_strategy(
    strategy: str, level: int, count: int, seed: int, deadline: float, counter: Counter
) -> dict[str, Any]:
    """Generate until ``count`` puzzles at ``level`` or the deadline; the totals."""
    config = GenerateConfig(
        family="sudoku",
        params=PARAMS,
        count=count,
        strategy=strategy,
        holdout=None,
        seed=seed,
        difficulty=level,
        max_loops_per_puzzle=10**6,
    )
    accepted = grader = 0
    clues: list[int] = []
    with counting(counter):
        count_calls = functools.partial(CountingVerifier, counter=counter)
        for rec in generate(config, wrap_filter=count_calls):
            grader += int(rec.get("graderCalls", 0))
            if rec.get("status") == "accepted":
                accepted += 1
                clues.append(int(rec["clueCount"]))
            if time.perf_counter() > deadline:
                break
    return {"accepted": accepted, "grader": grader, "clues": clues}


def measure(
    levels: Sequence[int], count: int, time_limit: float, seed: int = 0
) -> list[dict[str, Any]]:
    """One row per (level, strategy), in the order of :data:`COLUMNS` plus raw totals."""
    rows = []
    for level in levels:
        for name in ("adaptive", "blind"):
            t0 = time.perf_counter()
            counter = Counter()
            got = run_strategy(name, level, count, seed, t0 + time_limit, counter)
            seconds = time.perf_counter() - t0
            rows.append(
                {
                    "level": level,
                    "strategy": name,
                    "accepted": got["accepted"],
                    "wanted": count,
                    "grader": got["grader"],
                    "graderSeconds": counter.grader_seconds,
                    "verifier": counter.verifier,
                    "clues": float(np.mean(got["clues"])) if got["clues"] else None,
                    "seconds": seconds,
                }
            )
    return rows


def _per(total: int, accepted: int) -> str:
    return f"{total / accepted:.1f}" if accepted else f"— ({total} total)"


def table(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [
            str(r["level"]),
            r["strategy"],
            f"{r['accepted']}/{r['wanted']}",
            _per(r["grader"], r["accepted"]),
            f"{1000 * r['graderSeconds'] / r['accepted']:.1f}" if r["accepted"] else "—",
            _per(r["verifier"], r["accepted"]),
            f"{r['clues']:.1f}" if r["clues"] is not None else "—",
            f"{r['accepted'] / r['seconds']:.2f}" if r["seconds"] > 0 else "—",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> str:
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"nproc {os.cpu_count()}, CPU {model}, Python {platform.python_version()}"


def pin_one_core() -> str:
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    except (AttributeError, OSError):
        return "not pinned"


def reveal_study(puzzles: int, levels: Sequence[int], seed: int = 0) -> str:
    """How often revealing a minimal level-7 (``search``) 9×9 Sudoku down to each level lands
    exactly on it, for each way of picking the stuck cell
    (:data:`puzzlekit.generators.graded.REVEALS`).

    The same ``puzzles`` start puzzles (random grids minimized with the SAT uniqueness session,
    kept when they grade ``search``) go through every choice. Returns a Markdown table."""
    from puzzlekit.families import get_family
    from puzzlekit.generators.base import fresh_puzzle
    from puzzlekit.generators.graded import REVEALS, grade_fast, shape_to_level
    from puzzlekit.generators.minimize import minimize
    from puzzlekit.verifiers.registry import get_verifier

    schema = get_family("sudoku").schema(PARAMS)
    sat = get_verifier("sat")
    rng = np.random.default_rng([seed, 7])
    pool = []
    while len(pool) < puzzles:
        inst, solution, _ = fresh_puzzle(schema, 81, rng)
        mini = minimize(inst, sat, rng, solution=solution).instance
        if grade_fast(mini).level == 7:
            pool.append((mini, solution))
    lines = [
        "| reveal | " + " | ".join(f"level {lv}" for lv in levels) + " |",
        "|---|" + "---|" * len(levels),
    ]
    for how in REVEALS:
        cells = []
        for lv in levels:
            pick = np.random.default_rng([seed, lv])
            hits = sum(
                shape_to_level(m, sol, lv, pick, minimal=True, reveal=how).instance is not None
                for m, sol in pool
            )
            cells.append(f"{hits}/{len(pool)}")
        lines.append(f"| {how} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gradebench", description=__doc__)
    p.add_argument("--out", default="runs/gradebench", help="directory for gradebench.md")
    p.add_argument("--levels", default="0-7", help="levels, e.g. 0-3 or 0,1,7")
    p.add_argument("--count", type=int, default=20, help="puzzles wanted per level and strategy")
    p.add_argument("--time-limit", type=float, default=30.0, help="seconds per level/strategy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-pin", action="store_true", help="do not pin the process to one core")
    p.add_argument(
        "--reveal-study",
        type=int,
        metavar="N",
        help="instead: reveal N minimal level-7 puzzles down to each of --levels (default 1-5) "
        "with each way of picking the stuck cell, and print how many land exactly",
    )
    args = p.parse_args(argv)
    levels: list[int] = []
    for part in args.levels.split(","):
        lo, _, hi = part.partition("-")
        levels.extend(range(int(lo), int(hi or lo) + 1))
    if args.reveal_study is not None:
        if args.levels == "0-7":
            levels = [1, 2, 3, 4, 5]
        print(reveal_study(args.reveal_study, levels, args.seed))
        return 0
    pinned = "not pinned" if args.no_pin else pin_one_core()
    command = "python -m benchmarks.gradebench " + " ".join(
        sys.argv[1:] if argv is None else list(argv)
    )
    rows = measure(levels, args.count, args.time_limit, args.seed)
    text = "\n".join(
        [
            f"Command: `{command.strip()}`  ",
            f"Machine: {machine()}; one process, {pinned}.  ",
            f"{args.count} puzzles wanted per level and strategy, {args.time_limit:g} s limit "
            "each; both are `generate --difficulty LEVEL --holdout none [--strategy blind]`.",
            "",
            table(rows),
            "",
        ]
    )
    print(text)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gradebench.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

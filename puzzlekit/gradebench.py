"""Graded generation, measured: 9×9 Sudoku puzzles at exactly one level, adaptive against blind.

``adaptive`` is ``puzzlekit generate sudoku --difficulty LEVEL --holdout none`` as it exists
(:func:`puzzlekit.generate.generate`: closed loop, minimize, reveal toward the level, drop a
puzzle that lands easier). ``blind`` is the baseline: a random solution
(:func:`generators.solutions.random_solution`), all its givens, minimized with the SAT verifier's
uniqueness session, graded, accepted only at exactly LEVEL, else start over.

Every call of :func:`puzzlekit.grading.grade` counts as a grader call (including those of
rejected attempts), every ``verify`` and every uniqueness-session question as a verifier call.
Each (level, strategy) stops at ``--count`` accepted puzzles or ``--time-limit`` seconds; the run
is pinned to one core where the OS allows it.

Run ``python -m puzzlekit.gradebench --out runs/gradebench``; it prints the Markdown table and
writes ``gradebench.md``. A benchmark, not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import puzzlekit.generate as gen_mod
import puzzlekit.grading as grading
from generators.minimize import minimize
from generators.solutions import random_solution
from puzzlekit.families import get_family
from puzzlekit.model import Instance
from puzzlekit.registry import get_verifier

COLUMNS = (
    "level",
    "strategy",
    "accepted",
    "grader calls/puzzle",
    "verifier calls/puzzle",
    "puzzles/s",
)
PARAMS = {"size": 9}


class _TimeUp(Exception):
    pass


@dataclass
class Counter:
    grader: int = 0
    verifier: int = 0
    deadline: float = float("inf")

    def tick(self) -> None:
        if time.perf_counter() > self.deadline:
            raise _TimeUp


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

    def uniqueness_session(self, instance: Instance, solution: Any) -> _CountingSession:
        return _CountingSession(self._inner.uniqueness_session(instance, solution), self._counter)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@contextlib.contextmanager
def counting(counter: Counter) -> Iterator[None]:
    """Count grader calls (``puzzlekit.grading.grade``) and wrap ``generate``'s verifiers."""
    real_grade, real_get = grading.grade, gen_mod.get_verifier

    def grade(instance: Instance, **kwargs: Any) -> Any:
        counter.tick()
        counter.grader += 1
        return real_grade(instance, **kwargs)

    def get_verifier_counted(name: str, **settings: Any) -> Any:
        return CountingVerifier(real_get(name, **settings), counter)

    grading.grade = grade
    gen_mod.get_verifier = get_verifier_counted
    try:
        yield
    finally:
        grading.grade = real_grade
        gen_mod.get_verifier = real_get


def run_adaptive(level: int, count: int, seed: int, counter: Counter) -> int:
    config = gen_mod.GenerateConfig(
        family="sudoku", params=PARAMS, count=count, holdout=None, seed=seed, difficulty=level
    )
    accepted = 0
    with counting(counter):
        try:
            for rec in gen_mod.generate(config):
                accepted += rec.get("status") == "accepted"
        except _TimeUp:
            pass
    return accepted


def run_blind(level: int, count: int, seed: int, counter: Counter) -> int:
    fam = get_family("sudoku")
    schema = fam.schema(PARAMS)
    sat = CountingVerifier(get_verifier("sat"), counter)
    rng = np.random.default_rng([seed, level])
    accepted = 0
    with counting(counter):
        try:
            while accepted < count:
                counter.tick()
                sol = random_solution(schema, rng)
                full = Instance.make("sudoku", PARAMS, fam.clues_from_solution(schema, sol))
                done = minimize(full, sat, rng, solution=sol)
                if grading.grade(done.instance, search=False).level == level:
                    accepted += 1
        except _TimeUp:
            pass
    return accepted


STRATEGIES = {"adaptive": run_adaptive, "blind": run_blind}


def measure(
    levels: Sequence[int], count: int, time_limit: float, seed: int = 0
) -> list[dict[str, Any]]:
    """One row per (level, strategy), in the order of :data:`COLUMNS` plus raw totals."""
    rows = []
    for level in levels:
        for name, run in STRATEGIES.items():
            t0 = time.perf_counter()
            counter = Counter(deadline=t0 + time_limit)
            accepted = run(level, count, seed, counter)
            seconds = time.perf_counter() - t0
            rows.append(
                {
                    "level": level,
                    "strategy": name,
                    "accepted": accepted,
                    "wanted": count,
                    "grader": counter.grader,
                    "verifier": counter.verifier,
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
            _per(r["verifier"], r["accepted"]),
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


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m puzzlekit.gradebench", description=__doc__)
    p.add_argument("--out", default="runs/gradebench", help="directory for gradebench.md")
    p.add_argument("--levels", default="0-7", help="levels, e.g. 0-3 or 0,1,7")
    p.add_argument("--count", type=int, default=20, help="puzzles wanted per level and strategy")
    p.add_argument("--time-limit", type=float, default=30.0, help="seconds per level/strategy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-pin", action="store_true", help="do not pin the process to one core")
    args = p.parse_args(argv)
    levels: list[int] = []
    for part in args.levels.split(","):
        lo, _, hi = part.partition("-")
        levels.extend(range(int(lo), int(hi or lo) + 1))
    pinned = "not pinned" if args.no_pin else pin_one_core()
    command = "python -m puzzlekit.gradebench " + " ".join(
        sys.argv[1:] if argv is None else list(argv)
    )
    rows = measure(levels, args.count, args.time_limit, args.seed)
    text = "\n".join(
        [
            f"Command: `{command.strip()}`  ",
            f"Machine: {machine()}; one process, {pinned}.  ",
            f"{args.count} puzzles wanted per level and strategy, {args.time_limit:g} s limit "
            "each; adaptive is `generate --difficulty LEVEL --holdout none`.",
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

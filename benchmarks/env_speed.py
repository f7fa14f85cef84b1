"""How fast the generator environment steps: ``puzzlekit/Generate-v0`` on 4×4 and 9×9 Sudoku,
one process, with a random policy and with a submit-heavy one.

Run ``python -m benchmarks.env_speed --steps 50000`` (``--out FILE.md`` also writes
the table; ``--json`` prints the measures). Each environment is made with ``gymnasium.make``
(its default wrappers included, as a learner gets it), reset and submitted once before the
clock (numba's compiled search loads on the first call), then steps through actions drawn in
advance from a seeded generator, so the figure is the environment's steps per second, not the
policy's. Policies: ``random`` draws every action uniformly (a submission once in
``n_slots + 1`` steps); ``submit-heavy`` submits with probability 1/2, else toggles a uniform
slot. The time is split into the filter's ``verify`` calls, resets (a fresh solution and its
true clues) and the rest (toggles, observations, the reject-detail channels, Gymnasium's
wrappers). Steps per CPU second (the process's CPU time over the steps) is the figure to read
on a shared machine, where waiting for a core slows the wall clock alone. Goals (issue 28): at
least 1,000 steps/s on 9×9 and 10,000 on 4×4.

A benchmark, not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import puzzlekit.envs  # noqa: F401  (registers puzzlekit/Generate-v0)

SCHEMAS = (("sudoku 4×4", {"size": 4}, 10_000), ("sudoku 9×9", {"size": 9}, 1_000))
POLICIES = ("random", "submit-heavy")


class TimedFilter:
    """The environment's filter with the seconds of its ``verify`` calls (and of its lean
    ``verify_found`` calls, when it has them: the environment uses them then) summed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.seconds = 0.0
        self.calls = 0
        if hasattr(inner, "verify_found"):
            self.verify_found = self._verify_found

    def verify(self, instance: Any, **kwargs: Any) -> Any:
        return self._timed(self.inner.verify, instance, kwargs)

    def _verify_found(self, instance: Any, **kwargs: Any) -> Any:
        found = self._timed(self.inner.verify_found, instance, kwargs)
        if found is None:  # the environment asks verify next: one filter call, not two
            self.calls -= 1
        return found

    def _timed(self, call: Any, instance: Any, kwargs: dict[str, Any]) -> Any:
        start = time.perf_counter()
        try:
            return call(instance, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1


def actions(policy: str, n_actions: int, steps: int, seed: int) -> list[int]:
    """``steps`` actions of ``policy`` for an action space ``Discrete(n_actions)``."""
    rng = np.random.default_rng(seed)
    if policy == "random":
        return [int(a) for a in rng.integers(n_actions, size=steps)]
    submit = rng.random(steps) < 0.5
    toggles = rng.integers(n_actions - 1, size=steps)
    return [n_actions - 1 if s else int(t) for s, t in zip(submit, toggles, strict=True)]


def measure(params: dict[str, Any], policy: str, steps: int, seed: int) -> dict[str, Any]:
    """Steps per second of one schema and policy, and where the time went."""
    env = gymnasium.make("puzzlekit/Generate-v0", family="sudoku", params=params)
    inner = env.unwrapped
    env.reset(seed=seed)
    env.step(inner.layout.n_slots)  # load the compiled search before the clock
    timed = TimedFilter(inner.filter)
    inner.filter = timed
    plan = actions(policy, int(env.action_space.n), steps, seed)
    env.reset(seed=seed)
    submits = episodes = accepted = 0
    reset_seconds = 0.0
    cpu = time.process_time()
    start = time.perf_counter()
    for action in plan:
        _, _, terminated, truncated, _ = env.step(action)
        submits += action == inner.layout.n_slots
        if terminated or truncated:
            accepted += terminated
            episodes += 1
            t0 = time.perf_counter()
            env.reset()
            reset_seconds += time.perf_counter() - t0
    total = time.perf_counter() - start
    cpu = time.process_time() - cpu
    env.close()
    return {
        "params": params,
        "policy": policy,
        "steps": steps,
        "seconds": round(total, 3),
        "stepsPerSecond": round(steps / total),
        "cpuSeconds": round(cpu, 3),
        "stepsPerCpuSecond": round(steps / max(cpu, 1e-9)),
        "submissions": submits,
        "filterCalls": timed.calls,
        "episodes": episodes,
        "accepted": accepted,
        "filterShare": round(timed.seconds / total, 3),
        "resetShare": round(reset_seconds / total, 3),
        "filterMsPerCall": round(1e3 * timed.seconds / max(timed.calls, 1), 3),
    }


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| schema | policy | steps/s | steps per CPU s | goal | submissions | filter calls "
        "| ms per call | time in filter | in resets | episodes (accepted) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['schema']} | {row['policy']} | {row['stepsPerSecond']:,} "
            f"| {row['stepsPerCpuSecond']:,} | {row['goal']:,} | {row['submissions']:,} "
            f"| {row['filterCalls']:,} "
            f"| {row['filterMsPerCall']:.2f} | {row['filterShare']:.0%} "
            f"| {row['resetShare']:.0%} | {row['episodes']:,} ({row['accepted']:,}) |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=50_000, help="steps per schema and policy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="also write the table to this Markdown file")
    p.add_argument("--json", action="store_true", help="print the measures as JSON")
    args = p.parse_args(argv)
    if args.steps < 1:
        p.error("--steps must be at least 1")
    load_before = _load()
    rows = []
    for label, params, goal in SCHEMAS:
        for policy in POLICIES:
            row = measure(params, policy, args.steps, args.seed)
            rows.append({"schema": label, "goal": goal, **row})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    lines = [
        "# Generator environment speed",
        "",
        f"Command: `python -m benchmarks.env_speed --steps {args.steps}` "
        f"(seed {args.seed}) — {_cpu()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, one process; load average {load_before} before the "
        f"run, {_load()} after it (other jobs on the cores slow every figure alike).",
        "",
        *table(rows),
    ]
    text = "\n".join(lines) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(text, end="")
    return 0


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


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

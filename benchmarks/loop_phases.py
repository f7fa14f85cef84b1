"""Where a loop process's time goes in ``puzzlekit generate sudoku --minimize``: the loops of a
run, in this process, each phase timed.

Run ``python -m benchmarks.loop_phases`` (``--count N``, ``--seed S``). It builds the loop
process's side of ``generate`` (:class:`puzzlekit.loop.loop_process._Loops`, the spec the
command sends it: the ``bitmask`` filter, minimization, no trace reports), runs one loop to load
every compiled function, then ``--count`` loops as the loop process runs them (each outcome
serialized to JSON as it crosses the pipe), with a timer around each phase: the fresh puzzle
(the array steps' start, and the compiled sampler in it), the array steps (and their counts),
minimization (and its compiled remove-and-check), the accepted puzzle's filter report, the
settlement's replay and the outcome's JSON. Prints microseconds per loop of wall time, and the
CPU time per loop beside the total (the machine is shared: the CPU time is the steadier
figure); ``--bare`` times no phase, the totals alone. Phases nest (minimization is inside the
accepting), so they do not add up. A benchmark, not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
from collections.abc import Callable
from typing import Any

#: (module, owner attribute or "", function name, label) of each phase timed
PHASES = (
    ("puzzlekit.loop.givens_steps", "GivensSteps", "start", "fresh puzzle"),
    ("puzzlekit.verifiers.bitmask.sample", "", "sample_solution", "  compiled sampler"),
    ("puzzlekit.loop.givens_steps", "GivensSteps", "advance", "array steps"),
    ("puzzlekit.loop.givens_steps", "", "_count_two", "  their counts to two"),
    ("puzzlekit.loop.accepting", "", "_minimized", "accepting (minimization, report)"),
    ("puzzlekit.generators.minimize", "", "_minimize", "  minimization"),
    ("puzzlekit.verifiers.bitmask.minimize9", "", "remove_groups9", "    remove-and-check"),
    ("puzzlekit.loop.loop_process", "", "guarded_verify", "settlement replay"),
    ("puzzlekit.loop.loop_process", "", "result_to_json", "outcome as JSON"),
)


def _timed(totals: dict[str, float], label: str, function: Callable[..., Any]) -> Any:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            totals[label] = totals.get(label, 0.0) + time.perf_counter() - t0

    return wrapper


def run(count: int, seed: int, timed: bool = True) -> dict[str, float]:
    """Microseconds per loop of each phase, ``total`` (the loops and their JSON) and ``cpu``
    (the CPU time of the loops, this process's). ``timed`` False: no phase timed (their
    timers cost time too), the totals alone. A phase this code does not have is left out."""
    import importlib

    from puzzlekit.loop.batch import GenerateConfig, loop_seed
    from puzzlekit.loop.isolation import _spec_json
    from puzzlekit.loop.loop_process import _Loops

    config = GenerateConfig("sudoku", {"size": 9}, minimize=True, filter="bitmask", holdout="sat")
    spec = _spec_json(config.loop_spec())
    loops = _Loops()
    loops.run(spec, loop_seed(seed, 0))  # every compiled function loaded
    totals: dict[str, float] = {}
    for module, owner, name, label in PHASES if timed else ():
        target = importlib.import_module(module)
        target = getattr(target, owner, None) if owner else target
        if hasattr(target, name):
            setattr(target, name, _timed(totals, label, getattr(target, name)))
    t0, cpu0 = time.perf_counter(), time.process_time()
    for i in range(1, count + 1):
        json.dumps(loops.run(spec, loop_seed(seed, i))).encode("utf-8")
    totals["total"] = time.perf_counter() - t0
    totals["cpu"] = time.process_time() - cpu0
    return {k: round(v / count * 1e6, 1) for k, v in totals.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bare", action="store_true", help="time no phase: the totals alone")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    cpu0 = time.process_time()
    got = run(args.count, args.seed, timed=not args.bare)
    cpu = time.process_time() - cpu0
    print(f"{args.count} loops, load average {load:.2f} before, {cpu:.2f} CPU s in all")
    print(f"{'total per loop':36s} {got.pop('total'):8.1f} µs")
    print(f"{'  CPU time per loop':36s} {got.pop('cpu'):8.1f} µs")
    for _, _, _, label in PHASES if not args.bare else ():
        print(f"{label:36s} {got.get(label, 0.0):8.1f} µs")


if __name__ == "__main__":
    main()

"""Puzzles per second and filter calls per puzzle, by strategy, on one schema.

Runs puzzlekit's closed loop (``puzzlekit.loop.driver.LoopDriver``, what ``puzzlekit generate``
runs) for each strategy from the same loop seeds, clue count and filter, with no holdout (the
holdout measures the filter, not the strategy), until ``--count`` puzzles are accepted. Prints
one row per strategy and solution cap: accepted puzzles, loops that exhausted their budget, wall
time, puzzles per second, filter calls per accepted puzzle (mean and median) and clues of the
accepted puzzles (mean).

The solution cap matters to the comparison: with a cap of 2 (the default of ``generate`` and of
experiment configs) every cell of a MULTIPLE report's gap differs between the two solutions
found, so every cell is "most discriminative" and ``adaptive`` draws from the whole gap just as
``random-gap`` does. The ranking only says something with a larger cap.

    python measure.py                          # takuzu 6x6, sat filter, caps 2 and 8
    python measure.py --filter takuzu-lines --count 100 --caps 8

Not for: experiments with hypotheses (write a config and ``puzzlekit run`` it).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

from puzzlekit.families import get_family
from puzzlekit.loop.driver import LoopDriver, LoopSpec, default_clues

import puzzlekit_takuzu  # noqa: F401  (registers takuzu, takuzu-lines, random-gap)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", default="takuzu")
    p.add_argument("--params", default='{"size": 6}')
    p.add_argument("--strategies", default="adaptive,random-gap,rule-out,blind")
    p.add_argument("--filter", default="sat")
    p.add_argument("--count", type=int, default=30)
    p.add_argument("--clues", type=int, default=None, help="start clues (default: 30%% of cells)")
    p.add_argument("--max-calls", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--caps", default="2,8", help="solution caps of the filter, comma-separated")
    args = p.parse_args()
    params = json.loads(args.params)
    schema = get_family(args.family).schema(params)
    k = args.clues if args.clues is not None else default_clues(len(schema.variables))
    print(
        f"# {args.family} {schema.params_dict()}, filter {args.filter}, {k} start clues, "
        f"{args.count} puzzles per row, seed {args.seed}; Python {platform.python_version()} "
        f"on {platform.machine()}"
    )
    print(
        f"{'strategy':<12}{'cap':>4}{'accepted':>9}{'exhausted':>10}{'seconds':>9}"
        f"{'puzzles/s':>10}{'calls mean':>11}{'median':>7}{'clues':>7}"
    )
    for cap in (int(c) for c in args.caps.split(",")):
        for name in args.strategies.split(","):
            row(name, schema, k, args, cap)


def row(name: str, schema, k: int, args: argparse.Namespace, cap: int) -> None:
    spec = LoopSpec(
        schema.family,
        schema.params_dict(),
        strategy=name,
        k=k,
        filter=args.filter,
        holdout=None,
        max_calls=args.max_calls,
        solution_cap=cap,
    )
    driver = LoopDriver(spec)
    calls, clues, exhausted, index = [], [], 0, 0
    started = time.perf_counter()
    while len(calls) < args.count and index < 20 * args.count:
        ((_, result),) = driver.batch(args.seed, [index])
        index += 1
        if result.accepted:
            calls.append(result.filter_calls)
            clues.append(len(result.instance.clues))
        else:
            exhausted += 1
    seconds = time.perf_counter() - started
    print(
        f"{name:<12}{cap:>4}{len(calls):>9}{exhausted:>10}{seconds:>9.2f}"
        f"{len(calls) / seconds:>10.1f}{statistics.mean(calls) if calls else 0:>11.1f}"
        f"{statistics.median(calls) if calls else 0:>7.0f}"
        f"{statistics.mean(clues) if clues else 0:>7.1f}"
    )


if __name__ == "__main__":
    main()

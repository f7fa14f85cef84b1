"""Where the judging process's time goes in ``puzzlekit generate sudoku --minimize``: each loop
outcome read from its JSON, judged by the ``sat`` holdout and written as a record, in CPU time per
puzzle.

Run ``python -m benchmarks.holdout_phases`` (``--count N``, ``--seed S``). It runs the loops of
the command's loop process in this process first (outcomes as JSON, as they cross the pipe; not
timed), then replays the judging process's work on each outcome, each outcome new to the
process's cache of material read: reading the outcome (JSON, the instance through the reading
boundary), the holdout's check (``puzzlekit.loop.driver.judged``: material checked against its
digest, the verification, the contamination checks, the report's wire form), and the record
(``generate_record`` as JSON). Prints microseconds of CPU per puzzle for each phase and the
holdout verdicts.

``--solver`` adds what bounds the check: the share of the puzzles whose clues fix every cell by
unit propagation alone (on a fresh solver of the schema), and the CPU time of one solver call
and its model on a fresh solver and on one holding as many retired activation literals as the
sat verifier keeps before it rebuilds a 9×9 solver. A benchmark, not a test: nothing here
asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

PHASES = ("read outcome", "holdout", "record", "total")


def outcomes(count: int, seed: int) -> list[str]:
    """The JSON of loop outcomes ``0..count-1`` as the loop process sends them."""
    from puzzlekit.loop.batch import loop_seed
    from puzzlekit.loop.isolation import _spec_json
    from puzzlekit.loop.loop_process import _Loops

    spec = _spec_json(_config().loop_spec())
    loops = _Loops()
    return [json.dumps(loops.run(spec, loop_seed(seed, i))) for i in range(count)]


def _config() -> Any:
    from puzzlekit.loop.batch import GenerateConfig

    return GenerateConfig("sudoku", {"size": 9}, minimize=True, filter="bitmask", holdout="sat")


def run(count: int, seed: int) -> dict[str, Any]:
    """CPU microseconds per puzzle of each phase, and the holdout verdicts."""
    from puzzlekit.families import get_family
    from puzzlekit.loop.batch import dumps, provenance
    from puzzlekit.loop.driver import judged
    from puzzlekit.loop.holdout import _READ, InlineHoldout
    from puzzlekit.loop.isolation import result_from_json
    from puzzlekit.loop.rows import generate_record
    from puzzlekit.verifiers.registry import get_verifier

    config = _config()
    cap = config.loop_spec().solution_cap
    family = get_family("sudoku")
    made_by = provenance(config)
    sent = outcomes(count + 1, seed)
    holdout = InlineHoldout(get_verifier("sat"))
    judged(result_from_json(json.loads(sent[0])), holdout, cap)  # warms the solver
    spent = dict.fromkeys(PHASES, 0.0)
    verdicts: dict[str, int] = {}
    for i in range(1, count + 1):
        _READ.clear()  # each outcome new to the judging process, as in a run
        t0 = time.process_time()
        result = result_from_json(json.loads(sent[i]))
        t1 = time.process_time()
        result = judged(result, holdout, cap)
        t2 = time.process_time()
        record = dumps(generate_record(result, family, provenance={**made_by, "loop": i}))
        t3 = time.process_time()
        spent["read outcome"] += t1 - t0
        spent["holdout"] += t2 - t1
        spent["record"] += t3 - t2
        spent["total"] += t3 - t0
        got = str(json.loads(record)["holdoutVerdict"])
        verdicts[got] = verdicts.get(got, 0) + 1
    return {"cpu": {k: round(v / count * 1e6, 1) for k, v in spent.items()}, "verdicts": verdicts}


def solver_detail(count: int, seed: int) -> dict[str, float]:
    """Unit propagation's share and one solver call's CPU µs before and after retired
    activation literals, on the instances of ``count`` outcomes."""
    from puzzlekit.families import get_family
    from puzzlekit.loop.isolation import result_from_json
    from puzzlekit.verifiers.sat.backend import REBUILD_FACTOR
    from puzzlekit.verifiers.sat.session import _Engine

    family = get_family("sudoku")
    schema = family.schema({"size": 9})
    engine = _Engine(schema, "cadical153", guard_rules=False)
    queries = []
    for text in outcomes(count, seed):
        instance = result_from_json(json.loads(text)).instance
        lits = {
            lit
            for clue in instance.clues
            for lit in engine.clue_literals(
                clue.content_key(), family.clue_constraints(schema, clue)
            )
        }
        queries.append(sorted(lits))
    solver, nx, cells = engine.solver, engine.cnf.nx, len(schema.variables)
    forced = 0
    for lits in queries:
        ok, implied = solver.propagate(assumptions=lits)
        forced += ok and len({lit for lit in implied if 0 < lit <= nx}) == cells

    def call_us() -> float:
        t0 = time.process_time()
        for lits in queries:
            solver.solve(assumptions=lits)
            solver.get_model()
        return (time.process_time() - t0) / len(queries) * 1e6

    fresh = call_us()
    for _ in range(REBUILD_FACTOR * nx):  # retired activation literals, as verify leaves them
        act = engine.new_activation()
        solver.add_clause([-act, *range(1, nx + 1, 9)])
        solver.add_clause([-act])
    return {
        "propagated": forced / len(queries),
        "fresh_us": fresh,
        "variables": engine.cnf.top,
        "retired_us": call_us(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--solver", action="store_true", help="also what bounds the check")
    args = parser.parse_args(argv)
    before = os.getloadavg()[0]
    got = run(args.count, args.seed)
    after = os.getloadavg()[0]
    print(f"{args.count} puzzles, seed {args.seed}, load average {before:.2f} to {after:.2f}")
    for phase in PHASES:
        print(f"{phase:20s} {got['cpu'][phase]:10.1f} µs CPU per puzzle")
    print(f"holdout verdicts: {json.dumps(got['verdicts'], sort_keys=True)}")
    if args.solver:
        d = solver_detail(args.count, args.seed)
        print(f"unit propagation alone fixes every cell of {d['propagated']:.1%} of the puzzles")
        print(f"one solver call and its model: {d['fresh_us']:.1f} µs CPU on a fresh solver, ")
        print(f"  {d['retired_us']:.1f} µs with {d['variables']} variables (retired activations)")


if __name__ == "__main__":
    main()

"""Adaptive repair of wrong tool inputs: how many filter calls the adaptive strategy needs when the
loop starts from a random partial input (``k`` given fields with random values, most of them not
the hidden solution's) instead of ``k`` true fields of it.

Generation from true fields never meets UNSOLVABLE (every clue holds in the solution), so this is
where the strategy's UNSOLVABLE step shows: changing a conflicting given to the solution's value,
or dropping it and revealing it again later. Prints one Markdown row:
loops | accepted | holdout rejects | filter calls per accepted | UNSOLVABLE reports | actions | s

    python experiments/toolcall_wrong_inputs.py [--count 200] [--k 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np

from puzzlekit.core.model import Instance, Schema
from puzzlekit.core.protocols import Step
from puzzlekit.families import get_family
from puzzlekit.generators import STRATEGIES, register_strategy
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.loop.driver import LoopDriver, LoopSpec

PARAMS = {"tool": "shipping-rate", "expectedVerdict": "mid", "fixedInput": {"note": ""}}


class FromWrongInput(Adaptive):
    """Adaptive, started from ``k`` fields with uniformly random values (not the solution's)."""

    def start(self, schema: Schema, rng: np.random.Generator) -> Step:
        fam = get_family(schema.family)
        solution = fam.sample_solution(schema, rng)
        picked = sorted(rng.choice(len(schema.variables), size=self.k, replace=False))
        clues = []
        for i in picked:
            var = schema.variables[int(i)]
            clues.append(fam.given(schema, var.name, int(rng.choice(var.domain))))
        inst = Instance.make(schema.family, schema.params_dict(), clues)
        return Step(inst, "start", None, solution, schema)

    def restart(self, step: Step, rng: np.random.Generator) -> Step:
        return self.start(step.schema, rng)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if "wrong-input" not in STRATEGIES:
        register_strategy("wrong-input", FromWrongInput)
    spec = LoopSpec(
        "toolcall",
        PARAMS,
        strategy="wrong-input",
        k=args.k,
        filter="oracle",
        holdout="oracle-plain",
        holdout_process=False,
    )
    driver = LoopDriver(spec)
    t0 = time.perf_counter()
    accepted = rejects = calls = unsolvable = 0
    actions: Counter[str] = Counter()
    for _, res in driver.batch(args.seed, range(args.count)):
        accepted += res.accepted
        rejects += res.holdout_rejected
        calls += res.filter_calls
        unsolvable += sum(a.verdict == "UNSOLVABLE" for a in res.trace)
        actions.update(a.action for a in res.trace[1:])
    seconds = time.perf_counter() - t0
    print(
        f"| {args.count} | {accepted} | {rejects} | {calls / max(1, accepted):.2f} | "
        f"{unsolvable} | {json.dumps(dict(sorted(actions.items())))} | {seconds:.1f} |"
    )


if __name__ == "__main__":
    main()

"""What judging answers costs, and whether the judge agrees with a brute-force rule check.

Run ``python -m benchmarks.answers_bench`` (``--count N`` answers per family for the
agreement part, default 10,000; ``--puzzles N`` MULTIPLE puzzles per family, default 200;
``--part`` one of ``throughput``, ``agreement``, ``multiple``; ``--quick`` for a small run). It
prints, with the machine's load average at the start of each part:

1. throughput on one 9×9 Sudoku: one ``pk.check_answer`` of a right answer (CPU microseconds
   per call, median of rounds), and ``pk.check_answers`` batched over 20,000 answer lines: all
   right; half wrong by one given overwritten (four violations each, one answer repeated);
   half wrong by one random cell changed (at most 648 different wrong answers, so they repeat);
   half wrong by three random cells changed (nearly all different); in answers per CPU second;
2. agreement per family: random answers (a solution with up to three cells changed, a fifth of
   them with an unfilled cell) judged by ``check_answers`` and by a brute-force check with no
   arrays (a filled value outside its domain, a rule or clue whose cells are all filled that
   does not hold, two filled cells of an all-different unit with one value: INCORRECT; else
   unfilled cells: INCOMPLETE), with the disagreements counted (the goal: 0);
3. per family, MULTIPLE puzzles with at most 50 solutions, so that the verifier enumerates all
   of them, and every one judged by ``check_answer`` (the goal: all CORRECT).

CPU time (``time.process_time``), so a shared machine's load counts less. A benchmark, not a
test: nothing here asserts; ``tests/test_answers.py`` pins the same properties on small counts.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

import puzzlekit as pk
from puzzlekit.answers import AnswerVerdict, check_answer, check_answers
from puzzlekit.core.model import AllDifferent
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.families import default_params, families, resolve
from puzzlekit.families.games import OnlyWinningMove
from puzzlekit.generators.base import fresh_puzzle
from puzzlekit.loop.budget import default_clues

PARTS = ("throughput", "agreement", "multiple")
#: what one verification of a candidate MULTIPLE puzzle may spend
VERIFY_SECONDS = 10.0


def _cpu(fn: Any, rounds: int, per: int) -> float:
    """Median CPU seconds of one call of ``fn`` over ``rounds`` rounds of ``per`` calls."""
    out = []
    for _ in range(rounds):
        t = time.process_time()
        for _ in range(per):
            fn()
        out.append((time.process_time() - t) / per)
    return statistics.median(out)


def throughput(batch: int) -> list[str]:
    schema = pk.schema("sudoku")
    inst, solution, _ = fresh_puzzle(schema, 30, np.random.default_rng(0))
    line = "".join(str(solution[n]) for n in schema.names)
    given = next(c for c in inst.clues)
    at = schema.names.index(given.id)
    wrong = line[:at] + str(solution[given.id] % 9 + 1) + line[at + 1 :]
    check_answer(inst, line)
    single = _cpu(lambda: check_answer(inst, line), 7, 2000)
    rows = [f"one check_answer (right 9x9 line): {single * 1e6:.1f} CPU us"]
    rng = np.random.default_rng(5)

    def changed(times: int = 1) -> str:
        out = line
        for at in rng.choice(len(line), size=times, replace=False).tolist():
            out = out[:at] + str(int(line[at]) % 9 + 1) + out[at + 1 :]
        return out

    for name, answers in (
        ("all right", [line] * batch),
        ("half wrong, a given overwritten", [wrong if i % 2 else line for i in range(batch)]),
        ("half wrong, one random cell each", [changed() if i % 2 else line for i in range(batch)]),
        (
            "half wrong, three random cells each",
            [changed(3) if i % 2 else line for i in range(batch)],
        ),
    ):
        t = time.process_time()
        reps = check_answers(inst, answers)
        rate = batch / (time.process_time() - t)
        n_ok = sum(r.correct for r in reps)
        rows.append(
            f"check_answers, {batch} lines, {name}: {rate:,.0f} answers/CPU s ({n_ok} right)"
        )
    return rows


def _answers(schema: Any, solution: dict[str, int], rng: Any, count: int) -> list[dict]:
    names = schema.names
    out = []
    for _ in range(count):
        answer: dict[str, Any] = dict(solution)
        for n in rng.choice(names, size=int(rng.integers(0, 4)), replace=False):
            answer[str(n)] = int(rng.choice(schema.var(str(n)).domain))
        if rng.random() < 0.2:
            answer[names[int(rng.integers(len(names)))]] = None
        out.append(answer)
    return out


def brute_verdict(problem: Any, answer: dict[str, Any]) -> AnswerVerdict:
    """The verdict by the rules read one by one, with no arrays: a filled value outside its
    domain, a rule or clue whose cells are all filled and that does not hold, or two filled
    cells of an all-different unit with one value make it INCORRECT; else unfilled cells make it
    INCOMPLETE; else CORRECT."""
    schema = problem.schema
    filled = {k: v for k, v in answer.items() if v is not None}
    if any(v.name in filled and filled[v.name] not in v.domain for v in schema.variables):
        return AnswerVerdict.INCORRECT
    for c in problem.all_constraints():
        if all(x in filled for x in c.vars):
            if not c.holds(filled):
                return AnswerVerdict.INCORRECT
        elif isinstance(c, AllDifferent):
            seen = [filled[x] for x in c.vars if x in filled]
            if len(seen) != len(set(seen)):
                return AnswerVerdict.INCORRECT
    return AnswerVerdict.INCOMPLETE if len(filled) < len(answer) else AnswerVerdict.CORRECT


def agreement(count: int, names: Sequence[str]) -> list[str]:
    rows = []
    for name in names:
        fam = pk.get_family(name)
        schema = fam.schema(default_params(fam))
        inst, solution, _ = fresh_puzzle(schema, 4, np.random.default_rng(1))
        problem = resolve(inst)
        answers = _answers(schema, solution, np.random.default_rng(2), count)
        reps = check_answers(inst, answers)
        bad = sum(
            rep.verdict is not brute_verdict(problem, answer)
            for answer, rep in zip(answers, reps, strict=True)
        )
        right = sum(r.correct for r in reps)
        rows.append(f"{name:<20} {count:>7} answers  {right:>6} right  {bad} disagreements")
        print(rows[-1], flush=True)
    return rows


def _multiple_puzzle(schema: Any, rng: Any, k: int, cap: int) -> tuple[Any, Any, int]:
    """A puzzle of ``k`` clues, its verification (``cap`` solutions), and the next ``k``: one
    more clue while the solutions are past the cap, one fewer once it is UNIQUE."""
    inst, _, _ = fresh_puzzle(schema, k, rng)
    rep = pk.verify(inst, solution_cap=cap, budget=SearchBudget(seconds=VERIFY_SECONDS))
    if rep.verdict.value == "UNDECIDED" or (
        rep.verdict.value == "MULTIPLE" and rep.solution_count_is_lower_bound
    ):
        return inst, None, k + 1
    if rep.verdict.value != "MULTIPLE":
        return inst, None, max(1, k - 1)
    return inst, rep, k


def multiple(puzzles: int, names: Sequence[str], cap: int = 50) -> list[str]:
    """Per family, ``puzzles`` MULTIPLE puzzles with at most ``cap`` solutions, so that the
    verifier enumerates every one of them (the count is exact, not a lower bound); every one
    judged by ``check_answer``. The clue count starts at the loop's default and adapts: more
    clues while past the cap (or undecided within ``VERIFY_SECONDS``), fewer once UNIQUE."""
    rows = []
    for name in names:
        fam = pk.get_family(name)
        schema = fam.schema(default_params(fam))
        rng = np.random.default_rng(3)
        k = default_clues(len(schema.variables))
        seen = judged = wrong = tries = 0
        cpu = time.process_time()
        while seen < puzzles and tries < puzzles * 20:
            tries += 1
            inst, rep, k = _multiple_puzzle(schema, rng, k, cap)
            if rep is None:
                continue
            seen += 1
            for sol in rep.solutions:
                judged += 1
                wrong += not check_answer(inst, dict(sol)).correct
        rows.append(
            f"{name:<20} {seen:>4} MULTIPLE puzzles  {judged:>6} solutions (all of each)  "
            f"{wrong} not CORRECT  ({time.process_time() - cpu:.0f} CPU s)"
        )
        print(rows[-1], flush=True)
    return rows


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"(load average {one:.1f}, 5 min {five:.1f})"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10_000, help="answers per family (agreement)")
    ap.add_argument("--puzzles", type=int, default=200, help="MULTIPLE puzzles per family")
    ap.add_argument("--part", choices=PARTS, action="append", help="run only this part")
    ap.add_argument("--quick", action="store_true", help="a small run: 500 answers, 10 puzzles")
    args = ap.parse_args(argv)
    count, puzzles = (500, 10) if args.quick else (args.count, args.puzzles)
    parts = args.part or list(PARTS)
    names = [f.info.name for f in families() if not isinstance(f, OnlyWinningMove)]
    print(f"# answers_bench on {platform.node()} ({platform.processor() or platform.machine()})")
    if "throughput" in parts:
        print(f"\n## throughput (9x9 Sudoku) {_load()}")
        print("\n".join(throughput(20_000)))
    if "agreement" in parts:
        print(
            f"\n## agreement with a brute-force rule check ({count} answers per family) {_load()}"
        )
        agreement(count, names)  # prints as it goes
    if "multiple" in parts:
        print(
            f"\n## every solution of MULTIPLE puzzles is CORRECT ({puzzles} per family) {_load()}"
        )
        multiple(puzzles, names)  # prints as it goes
    print(f"\n# done {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

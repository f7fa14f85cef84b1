"""What judging answers costs, and whether the judge agrees with a brute-force rule check.

Run ``python -m puzzlekit.app.studies.answers_bench`` (``--count N`` answers per family for the
agreement part, default 10,000; ``--quick`` for a small run). It prints:

1. throughput on one 9×9 Sudoku: one ``pk.check_answer`` of a right answer (CPU microseconds
   per call, median of rounds), and ``pk.check_answers`` batched over 20,000 answer lines, all
   right and half wrong (a given overwritten: four violations each), in answers per CPU second;
2. agreement per family: random answers (a solution with up to three cells changed, a fifth of
   them with an unfilled cell) judged by ``check_answers`` and by a brute-force check (every
   value in its domain and ``Problem.check``, the rules and clues one by one), with the
   disagreements counted (the goal: 0);
3. every solution of MULTIPLE puzzles (up to the cap of 20 each) judged CORRECT, per family.

CPU time (``time.process_time``), so a shared machine's load counts less. A benchmark, not a
test: nothing here asserts; ``tests/test_answers.py`` pins the same properties on small counts.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

import puzzlekit as pk
from puzzlekit.answers import AnswerVerdict, check_answer, check_answers
from puzzlekit.families import default_params, families, resolve
from puzzlekit.families.games import OnlyWinningMove
from puzzlekit.generators.base import fresh_puzzle


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
    for name, answers in (
        ("all right", [line] * batch),
        ("half wrong", [wrong if i % 2 else line for i in range(batch)]),
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


def _brute(problem: Any, answer: dict[str, Any]) -> AnswerVerdict:
    schema = problem.schema
    if any(v is None for v in answer.values()):
        return AnswerVerdict.INCOMPLETE
    if any(answer[v.name] not in v.domain for v in schema.variables):
        return AnswerVerdict.INCORRECT
    return AnswerVerdict.CORRECT if problem.check(answer) else AnswerVerdict.INCORRECT


def agreement(count: int, names: Sequence[str]) -> list[str]:
    rows = []
    for name in names:
        fam = pk.get_family(name)
        schema = fam.schema(default_params(fam))
        inst, solution, _ = fresh_puzzle(schema, 4, np.random.default_rng(1))
        problem = resolve(inst)
        answers = _answers(schema, solution, np.random.default_rng(2), count)
        reps = check_answers(inst, answers)
        bad = 0
        for answer, rep in zip(answers, reps, strict=True):
            want = _brute(problem, answer)
            got = rep.verdict
            if want is AnswerVerdict.INCOMPLETE:
                bad += got not in (AnswerVerdict.INCOMPLETE, AnswerVerdict.INCORRECT)
            else:
                bad += got is not want
        right = sum(r.correct for r in reps)
        rows.append(f"{name:<20} {count:>7} answers  {right:>6} right  {bad} disagreements")
    return rows


def multiple(puzzles: int, names: Sequence[str]) -> list[str]:
    rows = []
    for name in names:
        fam = pk.get_family(name)
        schema = fam.schema(default_params(fam))
        rng = np.random.default_rng(3)
        seen = judged = wrong = 0
        for _ in range(puzzles * 5):
            if seen >= puzzles:
                break
            inst, _, _ = fresh_puzzle(schema, 2, rng)
            rep = pk.verify(inst, solution_cap=20)
            if rep.verdict.value != "MULTIPLE":
                continue
            seen += 1
            for sol in rep.solutions:
                judged += 1
                wrong += not check_answer(inst, dict(sol)).correct
        rows.append(
            f"{name:<20} {seen:>4} MULTIPLE puzzles  {judged:>6} solutions  {wrong} not CORRECT"
        )
        print(rows[-1], flush=True)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10_000, help="answers per family (agreement)")
    ap.add_argument("--puzzles", type=int, default=200, help="MULTIPLE puzzles per family")
    ap.add_argument("--quick", action="store_true", help="a small run: 500 answers, 10 puzzles")
    args = ap.parse_args(argv)
    count, puzzles = (500, 10) if args.quick else (args.count, args.puzzles)
    names = [f.name for f in families() if not isinstance(f, OnlyWinningMove)]
    print(f"# answers_bench on {platform.node()} ({platform.processor() or platform.machine()})")
    print("\n## throughput (9x9 Sudoku)")
    print("\n".join(throughput(20_000)))
    print(f"\n## agreement with a brute-force rule check ({count} answers per family)")
    print("\n".join(agreement(count, names)))
    print(f"\n## every solution of MULTIPLE puzzles is CORRECT (up to {puzzles} per family)")
    multiple(puzzles, [n for n in names if n not in ("toolcall",)])  # prints as it goes
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What a verification costs when reports compute only what is asked, measured in one run.

Run ``python -m benchmarks.bench_extras`` (``--quick`` for a small sample, ``--data``
for the directory of the shared 9×9 sets). It prints four tables, every variant of a table
measured on the same instances in the same process, interleaved instance by instance (the
machine is shared, so only ratios within a table mean much):

1. a kept ``sat`` verifier on MULTIPLE 9×9 instances (17-clue puzzles with one clue removed),
   at cap 2 and cap 100: without extras, with the ``forcedCells`` extra, and with the
   non-canonical setting (the first solutions found; the floor the canonical descent adds to);
2. the public one-shot ``pk.verify(instance, verifier="sat")`` against a kept ``sat`` verifier
   on the three shared 9×9 sets, counting to two;
3. 16×16 and 25×25 Sudoku checks per at-most-one encoding (``SatVerifier(amo=...)``): the first
   call (encoding the schema) and the median check after it;
4. nonogram verifies from 10×10 to 20×20 (random images, every line clue; fresh instances on a
   kept verifier), without and with ``forcedCells``.

A benchmark, not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import puzzlekit as pk
from puzzlekit.core.model import Clue, Instance
from puzzlekit.verifiers.registry import get_verifier
from puzzlekit.verifiers.sat.backend import SatVerifier

DATA = Path("/work/shared/data/sudoku")
SETS = {
    "17-clue": "sudoku9_17clue_1000.txt",
    "top1465": "sudoku9_top1465.txt",
    "forum-hardest": "sudoku9_forum_hardest_500.txt",
}
FORCED = frozenset({"forcedCells"})


def _read_set(data: Path, name: str, count: int) -> list[Instance]:
    fam = pk.get_family("sudoku")
    lines = [x.strip() for x in (data / SETS[name]).read_text().splitlines()]
    return [fam.parse_text(x[:81]) for x in lines if len(x) >= 81 and not x.startswith("#")][:count]


def _interleaved(
    instances: Sequence[Any], variants: dict[str, Callable[[Any], Any]]
) -> dict[str, list[float]]:
    """Seconds per call of each variant, the variants taking turns on each instance, in an
    order rotated from one instance to the next (what one leaves in shared caches, such as the
    sat backend's automaton templates, serves the next; each instance's digest is computed
    before)."""
    times: dict[str, list[float]] = {k: [] for k in variants}
    for x in instances:
        _ = x.digest
    order = list(variants.items())
    for i, x in enumerate(instances):
        for name, call in order[i % len(order) :] + order[: i % len(order)]:
            t0 = time.perf_counter()
            call(x)
            times[name].append(time.perf_counter() - t0)
    return times


def _ms(values: Sequence[float]) -> str:
    return f"{statistics.median(values) * 1e3:9.2f}"


def _table(title: str, head: Sequence[str], rows: list[Sequence[Any]]) -> None:
    print(f"\n## {title}\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|")
    for row in rows:
        print("| " + " | ".join(str(c).strip() for c in row) + " |")


def multiple_extras(data: Path, count: int) -> None:
    """Table 1: MULTIPLE instances at cap 2 and 100, with and without forcedCells."""
    multiple = [x.with_clues(x.clues[1:]) for x in _read_set(data, "17-clue", count)]
    rows = []
    for cap, n in ((2, count), (100, max(3, count // 8))):
        plain, loose = SatVerifier(), SatVerifier(canonical=False)
        for v in (plain, loose):
            v.verify(multiple[0], solution_cap=cap)
        t = _interleaved(
            multiple[:n],
            {
                "no extras": lambda x, c=cap, v=plain: v.verify(x, solution_cap=c),
                "forcedCells": lambda x, c=cap, v=plain: v.verify(x, solution_cap=c, extras=FORCED),
                "non-canonical": lambda x, c=cap, v=loose: v.verify(x, solution_cap=c),
            },
        )
        ratio = statistics.median(t["forcedCells"]) / statistics.median(t["no extras"])
        rows.append((cap, n, *(_ms(v) for v in t.values()), f"{ratio:.2f}"))
    _table(
        "1. kept sat verify, MULTIPLE 9×9 (17-clue minus one clue), median ms",
        ("cap", "instances", "no extras", "forcedCells", "non-canonical", "forced/no extras"),
        rows,
    )


def one_shot(data: Path, count: int) -> None:
    """Table 2: ``pk.verify`` one-shot against a kept sat verifier on the shared 9×9 sets."""
    rows = []
    kept = get_verifier("sat")
    for name in SETS:
        sample = _read_set(data, name, count)
        kept.verify(sample[0], solution_cap=2)
        pk.verify(sample[0], verifier="sat", solution_cap=2)
        t = _interleaved(
            sample[1:],
            {
                "kept": lambda x: kept.verify(x, solution_cap=2),
                "pk.verify": lambda x: pk.verify(x, verifier="sat", solution_cap=2),
            },
        )
        ratio = statistics.median(t["pk.verify"]) / statistics.median(t["kept"])
        rows.append((name, len(sample) - 1, _ms(t["kept"]), _ms(t["pk.verify"]), f"{ratio:.2f}"))
    _table(
        "2. one-shot pk.verify vs a kept sat verifier, 9×9, cap 2, median ms",
        ("set", "instances", "kept", "pk.verify", "one-shot/kept"),
        rows,
    )


def _grid(n: int, b: int, rng: random.Random) -> list[list[int]]:
    base = [[(b * (r % b) + r // b + c) % n for c in range(n)] for r in range(n)]
    rows = [x * b + r for x in rng.sample(range(b), b) for r in rng.sample(range(b), b)]
    cols = [x * b + c for x in rng.sample(range(b), b) for c in rng.sample(range(b), b)]
    digits = rng.sample(range(1, n + 1), n)
    return [[digits[base[r][c]] for c in cols] for r in rows]


def big_sudoku(n: int, b: int, keep: float, seed: int) -> Instance:
    """A seeded N×N Sudoku: a shuffled pattern grid with each cell kept as a clue with
    probability ``keep``."""
    rng = random.Random(seed)
    grid = _grid(n, b, rng)
    clues = [
        Clue.make(f"r{r + 1}c{c + 1}", "given", {"value": grid[r][c]}, [(r, c)])
        for r in range(n)
        for c in range(n)
        if rng.random() < keep
    ]
    return Instance.make("sudoku", {"size": n, "box": [b, b]}, clues)


def amo_encodings(count: int) -> None:
    """Table 3: 16×16 and 25×25 checks per at-most-one encoding."""
    rows = []
    for n, b, keep in ((16, 4, 0.6), (25, 5, 0.7)):
        sample = [big_sudoku(n, b, keep, s) for s in range(count + 1)]
        verifiers, first = {}, {}
        for amo in ("pairwise", "seqcounter", "bitwise"):
            t0 = time.perf_counter()
            verifiers[amo] = SatVerifier(amo=amo)
            verifiers[amo].verify(sample[0], solution_cap=2)
            first[amo] = time.perf_counter() - t0
        t = _interleaved(
            sample[1:],
            {a: (lambda x, v=v: v.verify(x, solution_cap=2)) for a, v in verifiers.items()},
        )
        verdicts = "".join(
            verifiers["pairwise"].verify(x, solution_cap=2).verdict.value[0] for x in sample[1:]
        )
        for amo in verifiers:
            rows.append((f"{n}×{n}", amo, f"{first[amo] * 1e3:.0f}", _ms(t[amo]), verdicts))
    _table(
        "3. Sudoku checks per at-most-one encoding (auto: pairwise up to 25 literals), cap 2",
        ("size", "amo", "first call ms", "median check ms", "verdicts"),
        rows,
    )


def nonograms(count: int) -> None:
    """Table 4: nonogram verifies, 10×10 to 20×20, fresh random images on a kept verifier."""
    fam = pk.get_family("nonogram")
    rows = []
    for n in (10, 15, 20):
        params = {"rows": n, "cols": n}
        schema = fam.schema(params)
        sample = []
        for s in range(count + 1):
            sol = fam.sample_solution(schema, np.random.default_rng([n, s]))
            sample.append(Instance.make("nonogram", params, fam.line_clues(schema, sol)))
        plain, forced = SatVerifier(), SatVerifier(forced_cells=True)
        for v in (plain, forced):
            v.verify(sample[0], solution_cap=2)
        t = _interleaved(
            sample[1:],
            {
                "no extras": lambda x, v=plain: v.verify(x, solution_cap=2),
                "forcedCells": lambda x, v=forced: v.verify(x, solution_cap=2),
            },
        )
        verdicts = "".join(plain.verify(x, solution_cap=2).verdict.value[0] for x in sample[1:])
        rows.append((f"{n}×{n}", count, _ms(t["no extras"]), _ms(t["forcedCells"]), verdicts))
    _table(
        "4. nonogram verify (every line clue, fresh images), kept sat verifier, cap 2, median ms",
        ("size", "instances", "no extras", "forcedCells", "verdicts"),
        rows,
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a small sample of each table")
    p.add_argument("--data", type=Path, default=DATA, help="directory of the shared 9×9 sets")
    p.add_argument(
        "--tables", default="1234", help="which tables to run, e.g. 13 (default: all four)"
    )
    args = p.parse_args(argv)
    if set("12") & set(args.tables) and not args.data.is_dir():
        print(f"bench_extras: no data directory {args.data}", file=sys.stderr)
        return 2
    q = args.quick
    print(f"# bench_extras ({platform.python_version()}, {platform.machine()}, quick={q})")
    if "1" in args.tables:
        multiple_extras(args.data, 16 if q else 60)
    if "2" in args.tables:
        one_shot(args.data, 31 if q else 201)
    if "3" in args.tables:
        amo_encodings(3 if q else 8)
    if "4" in args.tables:
        nonograms(3 if q else 8)
    return 0


if __name__ == "__main__":
    sys.exit(main())

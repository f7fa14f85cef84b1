"""Is the most discriminative cell free of reading-order bias? Over random MULTIPLE puzzles, the
top gap cell's row and column histograms against a chi-square test of uniformity.

Each puzzle is ``k`` random givens of a random 9×9 solution (the loop's fresh start), verified at
a solution cap; MULTIPLE reports are kept until ``count`` of them are collected, and the first
item of each report's ``discriminativeGap`` is counted by row and by column. Run
``python -m benchmarks.gap_uniformity --count 300 --cap 2 --cap 100``; it prints one
JSON line per cap (histograms, chi-square statistics and p-values). A benchmark, not a test:
nothing here asserts (``tests/test_gap_measure.py`` runs a small sample with a lenient bound).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from puzzlekit.families import get_family
from puzzlekit.generators.base import fresh_puzzle
from puzzlekit.verifiers.registry import get_verifier


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom: the regularized upper
    incomplete gamma Q(df/2, x/2) (series below a + 1, continued fraction above)."""
    a, z = df / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    log_front = -z + a * math.log(z) - math.lgamma(a)
    if z < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= z / n
            total += term
            if term < total * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    b = z + 1 - a
    c, d = 1e300, 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1.0 / (d if abs(d) > 1e-300 else 1e-300)
        c = b + an / c if abs(c) > 1e-300 else b + an / 1e-300
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return math.exp(log_front) * h


def chi_square_uniform(counts: Sequence[int]) -> tuple[float, float]:
    """Pearson's chi-square statistic of ``counts`` against equal expected counts, and p."""
    n = float(sum(counts))
    if n == 0 or len(counts) < 2:
        return 0.0, 1.0
    expected = n / len(counts)
    stat = sum((c - expected) ** 2 / expected for c in counts)
    return stat, chi2_sf(stat, len(counts) - 1)


def top_cell_histograms(
    count: int, cap: int, *, k: int = 22, seed: int = 1, verifier: str = "sat"
) -> dict[str, Any]:
    """Row and column histograms of the top gap cell of ``count`` random MULTIPLE 9×9 puzzles
    (``k`` givens each), verified by ``verifier`` at ``cap``; with the chi-square tests."""
    schema = get_family("sudoku").schema({"size": 9})
    backend = get_verifier(verifier)
    rng = np.random.default_rng(seed)
    rows, cols = [0] * 9, [0] * 9
    gap_rows = [0] * 9
    tried = 0
    while sum(rows) < count:
        inst, _, _ = fresh_puzzle(schema, k, rng)
        tried += 1
        rep = backend.verify(inst, solution_cap=cap)
        if rep.reject_detail is None or not rep.reject_detail.discriminative_gap:
            continue
        gap = rep.reject_detail.discriminative_gap
        r, c = gap[0].coord
        rows[r] += 1
        cols[c] += 1
        for item in gap:
            gap_rows[item.coord[0]] += 1
    row_stat, row_p = chi_square_uniform(rows)
    col_stat, col_p = chi_square_uniform(cols)
    return {
        "cap": cap,
        "verifier": verifier,
        "k": k,
        "seed": seed,
        "count": count,
        "puzzlesTried": tried,
        "topRows": rows,
        "topCols": cols,
        "gapCellRows": gap_rows,
        "rowChi2": round(row_stat, 3),
        "rowP": row_p,
        "colChi2": round(col_stat, 3),
        "colP": col_p,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--cap", type=int, action="append", help="solution cap (repeatable)")
    ap.add_argument("--k", type=int, default=22, help="givens per puzzle")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--verifier", default="sat")
    args = ap.parse_args(argv)
    for cap in args.cap or [2, 100]:
        started = time.perf_counter()
        out = top_cell_histograms(args.count, cap, k=args.k, seed=args.seed, verifier=args.verifier)
        out["seconds"] = round(time.perf_counter() - started, 1)
        out["machine"] = f"{platform.machine()} {platform.python_version()}"
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

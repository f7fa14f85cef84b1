"""What a user waits for before puzzlekit does anything: start-up, as whole processes.

Run ``python -m benchmarks.startup`` (``--runs N``, ``--json``). Each figure is a
fresh interpreter, timed ``--runs`` times after one warm-up (the warm-up also fills numba's
cache for the verification); the table gives the median CPU seconds (user + sys, from the
operating system's accounting of the finished child, so a loaded machine slows it little) and
the median wall seconds, with the load average before and after. Goals (issue 31):
``puzzlekit --version`` <= 0.15 s, ``import puzzlekit`` <= 0.1 s, one Sudoku through
``echo LINE | puzzlekit verify -`` <= 1 s with a warm numba cache.

``python -X importtime -c "import puzzlekit"`` names what each import costs. A benchmark, not a
test: nothing here asserts (tests/test_startup.py pins what each path imports).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

#: a 17-clue 9x9 Sudoku (unique)
LINE = ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6..."
CASES: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("python -c pass", ("-c", "pass"), None),
    ("import puzzlekit", ("-c", "import puzzlekit"), None),
    ("puzzlekit --version", ("-m", "puzzlekit", "--version"), None),
    ("puzzlekit --help", ("-m", "puzzlekit", "--help"), None),
    ("echo LINE | puzzlekit verify -", ("-m", "puzzlekit", "verify", "-"), LINE + "\n"),
)


def child_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def time_once(args: tuple[str, ...], stdin: str | None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one fresh interpreter running ``args``."""
    cpu0, wall0 = child_cpu(), time.perf_counter()
    subprocess.run([sys.executable, *args], input=stdin, text=True, capture_output=True, check=True)
    return child_cpu() - cpu0, time.perf_counter() - wall0


def measure(runs: int) -> dict[str, Any]:
    rows = []
    load_before = os.getloadavg()[0]
    for name, args, stdin in CASES:
        time_once(args, stdin)  # warm-up: the file cache, numba's cache
        cpu, wall = zip(*(time_once(args, stdin) for _ in range(runs)), strict=True)
        rows.append(
            {
                "what": name,
                "cpuMedian": round(statistics.median(cpu), 3),
                "wallMedian": round(statistics.median(wall), 3),
                "runs": runs,
            }
        )
    return {
        "rows": rows,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "loadAverage": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def table(result: dict[str, Any]) -> str:
    lines = ["| what | CPU s (median) | wall s (median) |", "|---|---:|---:|"]
    lines += [
        f"| `{r['what']}` | {r['cpuMedian']:.3f} | {r['wallMedian']:.3f} |" for r in result["rows"]
    ]
    before, after = result["loadAverage"]
    lines.append(f"\n{result['machine']}; load average {before} before, {after} after; ")
    lines[-1] += f"{result['rows'][0]['runs']} runs each after a warm-up."
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure")
    parser.add_argument("--json", action="store_true", help="print the measures as JSON")
    args = parser.parse_args(argv)
    result = measure(max(1, args.runs))
    print(json.dumps(result, indent=2) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

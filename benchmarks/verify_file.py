"""Lines per second of ``puzzlekit verify FILE``, whole processes (start-up included).

Run ``python -m benchmarks.verify_file FILE [FILE ...]`` (``--runs N``, ``--python
LABEL=INTERPRETER`` repeatable, ``--json``). Each figure is a fresh interpreter running
``python -m puzzlekit verify FILE --quiet`` (reports to ``/dev/null``) from a scratch directory,
so the ``puzzlekit`` it runs is the one the interpreter has installed: give another checkout's
virtual environment (``--python main=/path/to/main/.venv/bin/python``) to measure that code
with the same files, interleaved run by run with this one. Beside the files, the same process
on an empty file (start-up alone) and on ``--copies`` relabelled copies of each 9×9 file (its
digits permuted: the same puzzles up to symmetry, which no cache has seen).

For each interpreter and file, the median over ``--runs`` (after one warm-up run each: the file
cache, numba's cache) of wall seconds and of CPU seconds (user + system, the operating system's
accounting of the finished child: a loaded machine slows it little), lines per second of each,
and for the copies the CPU a line costs past the file's own run (start-up and numba's loading
aside). The load average is read before and after.
A benchmark, not a test: nothing here asserts (tests/test_verify_stream.py pins the output).
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
import tempfile
import time
from pathlib import Path
from typing import Any


def child_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def time_once(python: str, path: Path, scratch: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``python -m puzzlekit verify PATH --quiet``."""
    cpu0, wall0 = child_cpu(), time.perf_counter()
    with open(os.devnull, "w") as sink:
        subprocess.run(
            [python, "-m", "puzzlekit", "verify", str(path), "--quiet"],
            cwd=scratch,
            stdout=sink,
            check=True,
        )
    return time.perf_counter() - wall0, child_cpu() - cpu0


def puzzle_lines(path: Path) -> int:
    """The puzzles of a one-puzzle-a-line file (blank and ``#`` lines are not puzzles)."""
    with path.open(encoding="utf-8") as fh:
        return sum(1 for line in fh if line.strip() and not line.lstrip().startswith("#"))


def code_of(python: str, scratch: str) -> str:
    """Where the interpreter's ``puzzlekit`` lives, and its checkout's commit where it has one."""
    where = subprocess.run(
        [python, "-c", "import puzzlekit, os; print(os.path.dirname(puzzlekit.__file__))"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    commit = subprocess.run(
        ["git", "-C", where, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    return f"{where} ({commit or 'no git'})"


def measure(files: list[Path], pythons: dict[str, str], runs: int, copies: int) -> dict[str, Any]:
    scratch = tempfile.mkdtemp(prefix="verify_file_")
    empty = Path(scratch) / "empty.txt"
    empty.write_text("")
    cases: list[tuple[str, Path, int]] = [("empty file (start-up)", empty, 0)]
    for path in files:
        cases.append((path.name, path, puzzle_lines(path)))
        if copies > 1:
            many = Path(scratch) / f"{copies}x_{path.name}"
            many.write_text("".join(line + "\n" for line in relabelled_copies(path, copies)))
            cases.append((f"{path.name}, {copies} copies", many, puzzle_lines(many)))
    load_before = os.getloadavg()[0]
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for rep in range(runs + 1):  # run 0: warm-up, not counted
        for name, path, _ in cases:
            for label, python in pythons.items():  # interleaved: both under the same load
                got = time_once(python, path, scratch)
                if rep:
                    times.setdefault((label, name), []).append(got)
    rows = []
    for label in pythons:
        for name, _, lines in cases:
            wall = statistics.median(t[0] for t in times[(label, name)])
            cpu = statistics.median(t[1] for t in times[(label, name)])
            rows.append({"python": label, "what": name, "lines": lines, "wall": wall, "cpu": cpu})
    for row in rows:  # CPU a line in the copies beyond the file's own run (start-up aside)
        one = next(
            (
                r
                for r in rows
                if r["python"] == row["python"] and row["what"].startswith(r["what"] + ", ")
            ),
            None,
        )
        row["cpuPerLineUs"] = (
            (row["cpu"] - one["cpu"]) / (row["lines"] - one["lines"]) * 1e6 if one else None
        )
    return {
        "rows": rows,
        "code": {label: code_of(python, scratch) for label, python in pythons.items()},
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "loadAverage": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "runs": runs,
    }


def relabelled_copies(path: Path, copies: int) -> list[str]:
    """``copies`` copies of the file's 9×9 puzzles, each copy's digits relabelled by a seeded
    permutation (the same puzzles up to symmetry: no cache has seen them; the first copy is
    the file itself)."""
    import random

    with path.open(encoding="utf-8") as fh:
        lines = [line.strip() for line in fh if line.strip() and not line.lstrip().startswith("#")]
    out = list(lines)
    for k in range(1, copies):
        perm = list("123456789")
        random.Random(20261206 + k).shuffle(perm)
        table = str.maketrans("123456789", "".join(perm))
        out += [line.translate(table) for line in lines]
    return out


def table(result: dict[str, Any]) -> str:
    lines = [
        "| code | input | lines | wall s | CPU s | lines/s (wall) | lines/s (CPU) "
        "| CPU µs a line in the copies |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        per_wall = f"{r['lines'] / r['wall']:,.0f}" if r["lines"] else ""
        per_cpu = f"{r['lines'] / r['cpu']:,.0f}" if r["lines"] else ""
        marginal = f"{r['cpuPerLineUs']:.1f}" if r["cpuPerLineUs"] is not None else ""
        lines.append(
            f"| {r['python']} | {r['what']} | {r['lines']} | {r['wall']:.2f} | {r['cpu']:.2f} "
            f"| {per_wall} | {per_cpu} | {marginal} |"
        )
    before, after = result["loadAverage"]
    lines.append("")
    lines += [f"- {label}: {where}" for label, where in result["code"].items()]
    lines.append(
        f"\n{result['machine']}; load average {before} before, {after} after; medians of "
        f"{result['runs']} runs after a warm-up, interpreters interleaved."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="files of one puzzle a line")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per figure")
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="LABEL=INTERPRETER",
        help="an interpreter to run puzzlekit with (repeatable; default: this one, as 'this')",
    )
    parser.add_argument(
        "--copies",
        type=int,
        default=10,
        help="also time a file of this many relabelled copies of each file, for the CPU a "
        "line costs past start-up (1: none)",
    )
    parser.add_argument("--json", action="store_true", help="print the measures as JSON")
    args = parser.parse_args(argv)
    pythons = dict(p.split("=", 1) for p in args.python) or {"this": sys.executable}
    files = [f.resolve() for f in args.files]
    result = measure(files, pythons, max(1, args.runs), args.copies)
    print(json.dumps(result, indent=2) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

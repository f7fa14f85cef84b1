"""The verification benchmark: uniqueness checks of 9×9 Sudoku by several checkers, side by side.

A TOML config (``experiments/bench_verify.toml``) names instance sets (files of 81-character lines,
or generated 25-clue unique and random non-unique sets) and checkers: the ``sat`` and
``enumerative`` verifiers, a naive python-constraint2 model (``BacktrackingSolver`` and the default
solver) and the Python peers py-sudoku and dokusan (the optional extra ``bench``). Every checker
gets the same instances in one run (a checker with a ``sample`` size gets the first ones), with
the input prepared outside the timed region; the sat verdict is the reference every other verdict
is compared with. Writes ``results.csv`` and ``results.md``: median and p95 time per check, checks
per second, how many times faster than the fastest peer on the same instances, verdict agreement.

Not for: timing assertions in tests, or claims about families other than 9×9 Sudoku.
"""

from __future__ import annotations

import csv
import math
import random
import signal
import statistics
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlekit.core.protocols import SearchBudget
from puzzlekit.families import get_family

PEERS = ("py-sudoku", "dokusan")
CHECKERS = ("sat", "enumerative", "pc-backtracking", "pc-default", *PEERS)


class Timeout(Exception):
    """A check ran past its time limit."""


@dataclass
class Row:
    """One (set, checker) cell of the table."""

    set: str
    checker: str
    times: list[float] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    timeouts: int = 0
    mismatches: int = 0


# --- instance sets ---------------------------------------------------------------------------


def random_grid(rng: random.Random) -> str:
    """A full 9×9 Sudoku grid: a base pattern under random band, row, stack, column, digit moves."""
    base = [[(3 * (r % 3) + r // 3 + c) % 9 for c in range(9)] for r in range(9)]
    rows = [b * 3 + r for b in rng.sample(range(3), 3) for r in rng.sample(range(3), 3)]
    cols = [s * 3 + c for s in rng.sample(range(3), 3) for c in rng.sample(range(3), 3)]
    digits = rng.sample("123456789", 9)
    return "".join(digits[base[r][c]] for r in rows for c in cols)


def generate(kind: str, count: int, clues: int, seed: int) -> list[str]:
    """``unique``: puzzles with ``clues`` givens and one solution (cells removed while unique);
    ``multiple``: ``clues`` random givens of a random grid (almost always several solutions)."""
    from puzzlekit.verifiers.sat.backend import SatVerifier

    rng = random.Random(seed)
    sat = SatVerifier(forced_cells=False)
    fam = get_family("sudoku")
    out: list[str] = []
    while len(out) < count:
        grid = list(random_grid(rng))
        order = rng.sample(range(81), 81)
        if kind == "multiple":
            keep = set(order[:clues])
            out.append("".join(ch if i in keep else "." for i, ch in enumerate(grid)))
            continue
        filled = 81
        for i in order:
            if filled == clues:
                break
            old, grid[i] = grid[i], "."
            if sat.verify(fam.parse_text("".join(grid)), solution_cap=2).verdict.value == "UNIQUE":
                filled -= 1
            else:
                grid[i] = old
        if filled == clues:
            out.append("".join(grid))
    return out


def load_sets(config: dict[str, Any], root: Path) -> list[tuple[str, list[str]]]:
    out = []
    seed = int(config.get("seed", 0))
    for i, spec in enumerate(config.get("sets", [])):
        name = spec["name"]
        if "path" in spec:
            lines = (root / spec["path"]).read_text("utf-8").split()
            lines = lines[: spec.get("limit", len(lines))]
        else:
            lines = generate(spec["generate"], spec["count"], spec.get("clues", 25), seed + i)
        out.append((name, lines))
    return out


# --- checkers: each takes the 81-character line, prepares outside the clock, returns a check ----


def _grid(line: str) -> list[list[int]]:
    return [[0 if ch in ".0" else int(ch) for ch in line[r * 9 : r * 9 + 9]] for r in range(9)]


def _verifier_checker(name: str) -> Callable[[str], Callable[[], str]]:
    from puzzlekit.verifiers.registry import get_verifier

    verifier = get_verifier(name)
    fam = get_family("sudoku")
    budget = SearchBudget(nodes=None, seconds=None)

    def prepare(line: str) -> Callable[[], str]:
        instance = fam.parse_text(line)
        instance.digest  # noqa: B018  (computed once per instance, as in a generation loop)
        return lambda: verifier.verify(instance, solution_cap=2, budget=budget).verdict.value

    return prepare


def _pc_checker(default_solver: bool) -> Callable[[str], Callable[[], str]]:
    import constraint as pc

    units = [[(r, c) for c in range(9)] for r in range(9)]
    units += [[(r, c) for r in range(9)] for c in range(9)]
    units += [
        [(br + r, bc + c) for r in range(3) for c in range(3)]
        for br in (0, 3, 6)
        for bc in (0, 3, 6)
    ]

    def prepare(line: str) -> Callable[[], str]:
        grid = _grid(line)

        def check() -> str:
            p = pc.Problem() if default_solver else pc.Problem(pc.BacktrackingSolver())
            for r in range(9):
                for c in range(9):
                    p.addVariable((r, c), [grid[r][c]] if grid[r][c] else list(range(1, 10)))
            for unit in units:
                p.addConstraint(pc.AllDifferentConstraint(), unit)
            n = 0
            for _ in p.getSolutionIter():
                n += 1
                if n == 2:
                    break
            return ["UNSOLVABLE", "UNIQUE", "MULTIPLE"][n]

        return check

    return prepare


def _py_sudoku_checker() -> Callable[[str], Callable[[], str]]:
    from sudoku import Sudoku

    def prepare(line: str) -> Callable[[], str]:
        board = [[v or None for v in row] for row in _grid(line)]
        # one call cannot tell UNIQUE from UNSOLVABLE; the sets hold no unsolvable puzzle
        return lambda: (
            "MULTIPLE" if Sudoku(3, 3, board=board).has_multiple_solutions() else "UNIQUE"
        )

    return prepare


def _dokusan_checker() -> Callable[[str], Callable[[], str]]:
    from dokusan import exceptions, solvers
    from dokusan.boards import BoxSize, Cell, Sudoku

    def count(sudoku: Sudoku, limit: int) -> int:
        # dokusan's own backtrack (eliminate, then try candidates), counting instead of returning
        try:
            s = solvers.eliminate(sudoku)
        except (exceptions.InvalidSudoku, exceptions.NoCandidates):
            return 0
        empty = [cell for cell in s.cells() if not cell.value]
        if not empty:
            return 1
        cell = min(empty, key=lambda x: len(x.candidates))
        found = 0
        for candidate in sorted(cell.candidates):
            s.update([Cell(position=cell.position, value=candidate)])
            found += count(s, limit - found)
            s.update([cell])
            if found >= limit:
                break
        return found

    def prepare(line: str) -> Callable[[], str]:
        text = line.replace(".", "0")
        return lambda: ["UNSOLVABLE", "UNIQUE", "MULTIPLE"][
            count(Sudoku.from_string(text, box_size=BoxSize(3, 3)), 2)
        ]

    return prepare


def checker(name: str) -> Callable[[str], Callable[[], str]]:
    """Checker ``name``: ``prepare(line)`` returns the timed ``check() -> verdict``.

    Besides :data:`CHECKERS`, any registered verifier (a plugin's too) is a checker; an unknown
    name raises :class:`~puzzlekit.core.plugins.UnknownName` naming the closest checkers."""
    from puzzlekit.core.plugins import UnknownName
    from puzzlekit.verifiers.registry import VERIFIERS

    if name in ("sat", "enumerative") or (name not in CHECKERS and name in VERIFIERS):
        return _verifier_checker(name)
    if name in ("pc-backtracking", "pc-default"):
        return _pc_checker(default_solver=name == "pc-default")
    if name == "py-sudoku":
        return _py_sudoku_checker()
    if name == "dokusan":
        return _dokusan_checker()
    raise UnknownName("checker", name, dict.fromkeys([*CHECKERS, *VERIFIERS.names()]))


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout


def timed(check: Callable[[], str], limit: float | None) -> tuple[float, str | None]:
    """Seconds and verdict of one check; verdict None when it ran past ``limit`` seconds."""
    if limit is not None:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.perf_counter()
    try:
        try:
            verdict: str | None = check()
        finally:
            if limit is not None:
                signal.setitimer(signal.ITIMER_REAL, 0)
    except Timeout:  # also when the alarm lands just as the check returns
        verdict = None
    return time.perf_counter() - start, verdict


# --- the run --------------------------------------------------------------------------------


def run(config_path: Path, out_dir: Path, progress: Callable[[str], None] = print) -> list[Row]:
    """Run the benchmark ``config_path``; write ``results.csv`` and ``results.md`` in ``out_dir``.

    Relative set paths are read from the repository root (the config's folder's parent).
    """
    config = tomllib.loads(config_path.read_text("utf-8"))
    root = config_path.resolve().parent.parent
    sets = load_sets(config, root)
    specs = config.get("checkers", [{"name": n} for n in CHECKERS])
    rows: list[Row] = []
    for set_name, lines in sets:
        reference: list[str] = []
        for spec in specs:
            name = spec["name"]
            if set_name not in spec.get("sets", [set_name]):
                continue
            prepare = checker(name)
            row = Row(set_name, name)
            sample = lines[: spec.get("sample", len(lines))]
            limit = spec.get("time_limit")
            for i, line in enumerate(sample):
                seconds, verdict = timed(prepare(line), limit)
                row.times.append(seconds)
                row.verdicts.append(verdict or "TIMEOUT")
                if verdict is None:
                    row.timeouts += 1
                elif i < len(reference) and reference[i] not in ("TIMEOUT", verdict):
                    row.mismatches += 1
            if name == specs[0]["name"]:
                reference = list(row.verdicts)
            rows.append(row)
            progress(f"{set_name:<16} {name:<16} {len(sample):>5} checks  median {_ms(row.times)}")
    write(rows, out_dir, config_path)
    return rows


def _ms(times: Sequence[float]) -> str:
    return f"{statistics.median(times) * 1e3:.3f} ms" if times else "-"


def summary(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """One dict per row with the table's columns."""
    out = []
    for row in rows:
        peers = [r for r in rows if r.set == row.set and r.checker in PEERS and r.times]
        fastest = min(peers, key=lambda r: statistics.median(r.times), default=None)
        ratio = None
        if fastest is not None and row.times:
            k = min(len(fastest.times), len(row.times))
            ratio = statistics.median(fastest.times[:k]) / statistics.median(row.times[:k])
        n = len(row.times)
        times = sorted(row.times)
        median = statistics.median(times) if times else math.nan
        out.append(
            {
                "set": row.set,
                "checker": row.checker,
                "checks": n,
                "timeouts": row.timeouts,
                "median_ms": round(median * 1e3, 4),
                "p95_ms": round(times[min(n - 1, math.ceil(0.95 * n) - 1)] * 1e3, 4) if n else None,
                "checks_per_s": round(n / sum(times), 1) if n else None,
                "x_faster_than_fastest_peer": round(ratio, 2) if ratio is not None else None,
                "fastest_peer": fastest.checker if fastest else None,
                "verdicts_match": row.mismatches == 0,
                "mismatches": row.mismatches,
                "verdicts": "/".join(
                    f"{v}:{row.verdicts.count(v)}" for v in sorted(set(row.verdicts))
                ),
            }
        )
    return out


def write(rows: Sequence[Row], out_dir: Path, config_path: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    table = summary(rows)
    with (out_dir / "results.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(table[0]) if table else ["set"])
        writer.writeheader()
        writer.writerows(table)
    (out_dir / "results.md").write_text(markdown(table, config_path), encoding="utf-8")


def markdown(table: Sequence[dict[str, Any]], config_path: Path) -> str:
    """The results as a markdown table (times in milliseconds, ratio on the same instances)."""
    lines = [
        f"Uniqueness checks (stop at 2 solutions), config `{config_path.name}`.",
        "",
        "| set | checker | checks | timeouts | median ms | p95 ms | checks/s "
        "| × faster than fastest peer | verdicts match sat |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in table:
        ratio = r["x_faster_than_fastest_peer"]
        ratio_text = f"{ratio:g}× ({r['fastest_peer']})" if ratio is not None else "-"
        match = "yes" if r["verdicts_match"] else f"no ({r['mismatches']})"
        lines.append(
            f"| {r['set']} | {r['checker']} | {r['checks']} | {r['timeouts']} | "
            f"{r['median_ms']:g} | {r['p95_ms']:g} | {r['checks_per_s']:g} | {ratio_text} | "
            f"{match} |"
        )
    return "\n".join(lines) + "\n"

"""Do searches stop on their budget? Every verifier and ``grade`` on hard inputs of every family,
with a small budget, each check in a child process of its own: wall time and peak memory.

Run ``python -m benchmarks.budgets --budget 2`` (``--family sudoku`` to pick families,
``--out DIR`` to keep ``budgets.md`` and ``budgets.json``). Goals (issue 19): every check stops
within 1.5 × budget + 1 s, and its peak memory stays under 2 GB. A check over ``--kill-after``
seconds or over ``--max-rss-mb`` is killed and reported so. A benchmark, not a test: it prints
what it measured and nothing asserts.

Inputs per family, from its largest registered schema or a larger one: the empty instance (no
clues: the widest search; for games the empty board); for families with given clues (up to
256 variables), a full set of givens from a random solution with one given changed
(UNSOLVABLE: conflict shrinking); for Sudoku, a hard 9×9 of the top1465 set; for KenKen, a
9×9 whose one cage is a 9-cell product (too many tuples to list), one covered by nine such
cages of nine shapes and one by nine 9-cell product cages of up to 18,072 tuples; for Killer
Sudoku, a 25×25 whose cages are its 5×5 boxes; for connect and m,n,k, the empty 8×8 board too.
Checks: each registered verifier with ``solution_cap=2`` and
``SearchBudget(nodes=None, seconds=BUDGET)``; ``default``, what ``puzzlekit verify`` does (the
backend chosen for the instance, then its verification: the choice reads the clues too);
``grade`` (with its SAT measures) on every family (``puzzlekit grade`` takes any: its rules
that search a game must stop on the deadline too). A verifier that does not take a
family (it raises before searching) is listed as ``n/a``, and is held to the same time goal: the
caller waited for that answer too.

Each check runs in a ``fork`` of this process, whose imports and compiled code are warm (each
verifier runs once on a small instance first), so the time measured is the check's own.
``CPU`` is the child's user and system seconds (``os.wait4``): on a machine shared with other
work a check can be over its goal by wall time only because it waited for a core; the table says
``by CPU`` for a check over by wall time and within by CPU time. ``peak MB`` is the child's
``ru_maxrss`` (from ``os.wait4``): its resident peak, the pages it shares with this process
counted once it touches them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.protocols import SearchBudget

#: family -> params of its hard inputs (larger than the registered ones where that is the point)
HARD_PARAMS: dict[str, list[dict[str, Any]]] = {
    "sudoku": [{"size": 9}, {"size": 16}, {"size": 25}],
    "latin": [{"size": 12}],
    "futoshiki": [{"size": 9}],
    "kenken": [{"size": 9}],
    "skyscrapers": [{"size": 9}],
    "sudoku-killer": [{"size": 9}],
    "kakuro": [{"rows": 12, "cols": 12, "seed": 1}],
    "nonogram": [{"rows": 30, "cols": 30, "density": 50}],
    "starbattle": [{"size": 10, "stars": 2}],
    "logicgrid": [{"preset": "einstein"}],
    "owm-connect": [{"rows": 6, "cols": 7, "k": 4}, {"rows": 8, "cols": 8, "k": 4}],
    "owm-mnk": [{"rows": 5, "cols": 5, "k": 4}, {"rows": 8, "cols": 8, "k": 4}],
    "owm-nim": [{"heaps": 5, "max": 9}],
    "owm-tictactoe": [{}],
}

#: a random solution of a bigger grid takes minutes (25x25 Sudoku: over 60 s)
MAX_UNSOLVABLE_VARIABLES = 256

#: games: the empty board (their instances are positions, in the family's text format); boards
#: of ``rows`` × ``cols`` are drawn from the params
GAME_POSITIONS = {
    "owm-connect": None,
    "owm-mnk": None,
    "owm-nim": "9,9,9,9,9",
    "owm-tictactoe": ".../.../...",
}


def _empty_position(family: str, params: dict[str, Any]) -> str:
    fixed = GAME_POSITIONS[family]
    return fixed if fixed is not None else "/".join(["." * params["cols"]] * params["rows"])


def _product_cage() -> Instance:
    """A 9×9 KenKen whose one cage is a 3×3 block with product 9! (651,960 tuples)."""
    block = [(r, c) for r in range(3) for c in range(3)]
    cage = Clue.make("cage-r1c1", "cage", {"op": "*", "target": 362880}, block)
    return Instance.make("kenken", {"size": 9}, [cage])


#: nine connected 9-cell regions of a 9×9 grid, each of another shape (a jigsaw Sudoku layout)
NINE_SHAPES = (
    "122222222",
    "111233333",
    "133334445",
    "116444445",
    "166646655",
    "177666555",
    "777889955",
    "777889999",
    "788888999",
)


def _product_cages(target: int = 362880) -> Instance:
    """A 9×9 KenKen covered by nine 9-cell product cages of ``target``, each of another shape
    (the regions of :data:`NINE_SHAPES`). With 9! each cage's tuples are too many to list, and
    finding that out costs a few tenths of a second of CPU a cage; with 125,440 each has up to
    18,072, few enough to be a table, which the backend choice compiles."""
    cells: dict[str, list[tuple[int, int]]] = {}
    for r, row in enumerate(NINE_SHAPES):
        for c, region in enumerate(row):
            cells.setdefault(region, []).append((r, c))
    clues = [
        Clue.make(f"cage-{k}", "cage", {"op": "*", "target": target}, v)
        for k, v in sorted(cells.items())
    ]
    return Instance.make("kenken", {"size": 9}, clues)


def box_sum_killer(n: int, b: int) -> Instance:
    """An n×n Killer Sudoku whose cages are its b×b boxes, each summing to 1 + ... + n (the sat
    encoding of one 25-cell sum takes seconds)."""
    clues = [
        Clue.make(
            f"cage-{br}-{bc}",
            "cage",
            {"sum": n * (n + 1) // 2},
            [(b * br + r, b * bc + c) for r in range(b) for c in range(b)],
        )
        for br in range(n // b)
        for bc in range(n // b)
    ]
    return Instance.make("sudoku-killer", {"size": n}, clues)


HARD_SUDOKU = Path(__file__).resolve().parents[1] / "tests" / "data" / "sudoku9_top1465_sample.txt"


def _params_list(family: str) -> list[dict[str, Any]]:
    from puzzlekit.families import registered_schemas

    if family in HARD_PARAMS:
        return HARD_PARAMS[family]
    mine = [s["params"] for s in registered_schemas() if s["family"] == family]
    return mine[-1:]


def _unsolvable(family: str, params: dict[str, Any]) -> Instance | None:
    """Every given of a random solution, one of them changed; None where there are no givens."""
    import numpy as np

    from puzzlekit.core.solutions import random_solution
    from puzzlekit.families import get_family

    fam = get_family(family)
    schema = fam.schema(params)
    if len(schema.variables) > MAX_UNSOLVABLE_VARIABLES:
        return None
    rng = np.random.default_rng(19)
    try:
        solution = fam.sample_solution(schema, rng) or random_solution(schema, rng)
    except RuntimeError:
        return None
    clues = [c for c in fam.clues_from_solution(schema, solution) if c.kind == "given"]
    if not clues:
        return None
    first = clues[0].data_dict()
    domain = next(v.domain for v in schema.variables if v.coord == clues[0].coords[0])
    other = next(x for x in domain if x != first.get("value"))
    changed = Clue.make(clues[0].id, "given", {**first, "value": other}, clues[0].coords)
    return Instance.make(family, schema.params_dict(), [changed, *clues[1:]])


def cases(families: list[str] | None) -> list[tuple[str, str, Instance]]:
    """``(family, label, instance)`` of every hard input (see the module docstring)."""
    from puzzlekit.families import FAMILIES, get_family

    out: list[tuple[str, str, Instance]] = []
    for family in families or FAMILIES.names():
        fam = get_family(family)
        for params in _params_list(family):
            try:
                normal = fam.normalize_params(params)
                fam.schema(normal)
            except Exception as exc:  # a schema this family refuses: say so, go on
                print(f"skipped {family} {params}: {exc}", file=sys.stderr)
                continue
            label = json.dumps(params, separators=(",", ":"))
            if family in GAME_POSITIONS:
                empty = fam.parse_text(_empty_position(family, normal), normal)
            else:
                empty = Instance.make(family, normal, [])
            out.append((family, f"empty {label}", empty))
            bad = _unsolvable(family, normal)
            if bad is not None:
                out.append((family, f"unsolvable {label}", bad))
    if "sudoku" in (families or FAMILIES.names()) and HARD_SUDOKU.exists():
        line = HARD_SUDOKU.read_text().split()[0]
        out.append(("sudoku", "top1465 #1", get_family("sudoku").parse_text(line, {"size": 9})))
    if "kenken" in (families or FAMILIES.names()):
        out.append(("kenken", "9-cell product cage", _product_cage()))
        out.append(("kenken", "nine 9-cell product cages", _product_cages()))
        out.append(("kenken", "nine 9-cell product tables", _product_cages(125440)))
    if "sudoku-killer" in (families or FAMILIES.names()):
        out.append(("sudoku-killer", "25×25, 5×5 sum cages", box_sum_killer(25, 5)))
    return out


#: what a verifier raises for a family it does not take, before any search
NOT_APPLICABLE = ("NotImplementedError", "NotCompilable", "SpecError", "NotEncodable")


def _check(name: str, instance: Instance, seconds: float) -> dict[str, Any]:
    """One check in this process: its verdict (or status) and the seconds it took."""
    budget = SearchBudget(nodes=None, seconds=seconds)
    start = time.perf_counter()
    if name == "default":  # what `puzzlekit verify` does: choose the backend, then verify
        from puzzlekit.verifiers.registry import (
            choice_seconds,
            default_verifier_name,
            get_verifier,
        )

        chosen = default_verifier_name(instance, choice_seconds(budget))
        rep = get_verifier(chosen).verify(instance, solution_cap=2, budget=budget)
        verdict = f"{rep.verdict.value} ({chosen})"
    elif name == "grade":
        from puzzlekit.grading.techniques import grade

        g = grade(instance, budget=budget)
        verdict = g.status if g.sat_verdict is None else f"{g.status}/{g.sat_verdict}"
    else:
        from puzzlekit.verifiers.registry import get_verifier

        verdict = get_verifier(name).verify(instance, solution_cap=2, budget=budget).verdict.value
    return {"verdict": verdict, "seconds": time.perf_counter() - start}


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run_forked(
    fn: Callable[[], dict[str, Any]], kill_after: float, max_rss_mb: float
) -> dict[str, Any]:
    """``fn()`` in a forked child: its result, wall and CPU seconds, peak MB, or why it was
    killed."""
    read, write = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        try:
            out = fn()
        except Exception as exc:
            out = {"error": f"{type(exc).__name__}: {str(exc)[:120]}"}
        os.write(write, json.dumps(out).encode())
        os._exit(0)
    os.close(write)
    killed, data = None, b""
    while True:
        ready, _, _ = select.select([read], [], [], 0.1)
        if ready:
            chunk = os.read(read, 65536)
            if not chunk:
                break
            data += chunk
            continue
        if time.monotonic() - start > kill_after:
            killed = f"killed after {kill_after:g} s"
        elif _rss_mb(pid) > max_rss_mb:
            killed = f"killed over {max_rss_mb:g} MB"
        if killed:
            os.kill(pid, signal.SIGKILL)
            break
    os.close(read)
    _, _, usage = os.wait4(pid, 0)
    wall = time.monotonic() - start
    cpu = usage.ru_utime + usage.ru_stime
    out = {"wall": wall, "cpu": cpu, "peakMB": usage.ru_maxrss / 1024}
    if killed:
        out["error"] = killed
    elif data:
        out.update(json.loads(data))
    else:
        out["error"] = "no answer"
    return out


def _warm(names: list[str], instances: list[Instance]) -> None:
    """Each check once on a small instance of each family, so that a fork finds the imports
    done and compiled code (numba) compiled."""
    from puzzlekit.families import registered_schemas

    first: dict[str, Any] = {}
    for s in registered_schemas():
        first.setdefault(s["family"], s["params"])
    for family in dict.fromkeys(inst.family for inst in instances):
        if family not in first:
            continue
        tiny = Instance.make(family, first[family], [])
        for name in names:
            try:
                _check(name, tiny, 0.5)
            except Exception:
                pass


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    from puzzlekit.verifiers.registry import verifier_names

    names = args.verifier or [*verifier_names(), "default", "grade"]
    todo = cases(args.family)
    _warm(names, [inst for _, _, inst in todo])
    rows = []
    limit = 1.5 * args.budget + 1.0
    for family, label, inst in todo:
        for name in names:
            got = run_forked(
                lambda n=name, i=inst: _check(n, i, args.budget), args.kill_after, args.max_rss_mb
            )
            error = got.get("error")
            na = error is not None and error.startswith(NOT_APPLICABLE)
            row = {
                "family": family,
                "input": label,
                "check": name,
                "verdict": "n/a" if na else (error or got["verdict"]),
                "seconds": round(got.get("seconds", got["wall"]), 3),
                "wall": round(got["wall"], 3),
                "cpu": round(got["cpu"], 3),
                "peakMB": round(got["peakMB"], 1),
                "withinTime": (na or error is None) and got["wall"] <= limit,
                "withinCpu": (na or error is None) and got["cpu"] <= limit,
                "withinMemory": got["peakMB"] < 2048,
            }
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


def _load() -> str:
    """The machine's load averages (1, 5, 15 minutes), or "unknown"."""
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def markdown(rows: list[dict[str, Any]], budget: float, load_before: str = "") -> str:
    """The table of every check, the counts over a goal first."""
    limit = 1.5 * budget + 1.0
    fails = [r for r in rows if not (r["withinTime"] and r["withinMemory"])]
    cpu_fails = [r for r in rows if not (r["withinCpu"] and r["withinMemory"])]
    lines = [
        f"# Budgets: every check with a budget of {budget:g} s (goal: stop within {limit:g} s, "
        "peak under 2048 MB)",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; command: `python -m benchmarks.budgets "
        f"--budget {budget:g}`.",
        "",
        f"Load average (1, 5, 15 min) at the start: {load_before or 'unknown'}; at the end: "
        f"{_load()}.",
        "",
        f"{len(rows)} checks, {len(fails)} over a goal by wall time, {len(cpu_fails)} by CPU time "
        "(a check starved of CPU by other work on the machine is over by wall time alone).",
        "",
        "| family | input | check | verdict | seconds | wall | CPU | peak MB | within |",
        "|---|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        ok = "yes" if r["withinTime"] and r["withinMemory"] else "**no**"
        if ok != "yes" and r["withinCpu"] and r["withinMemory"]:
            ok = "by CPU"
        lines.append(
            f"| {r['family']} | {r['input']} | {r['check']} | {r['verdict']} | {r['seconds']} "
            f"| {r['wall']} | {r['cpu']} | {r['peakMB']} | {ok} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=2.0, help="seconds per check (default 2)")
    p.add_argument("--family", action="append", help="only this family (repeatable)")
    p.add_argument("--verifier", action="append", help="only this check (repeatable; 'grade')")
    p.add_argument(
        "--kill-after", type=float, help="kill a check after (s; default 2 x the goal + 5)"
    )
    p.add_argument("--max-rss-mb", type=float, default=3072.0, help="kill a check over (MB)")
    p.add_argument("--out", help="directory for budgets.md and budgets.json")
    args = p.parse_args(argv)
    if not args.budget > 0:
        p.error("--budget must be positive")
    if args.kill_after is None:
        args.kill_after = 2 * (1.5 * args.budget + 1) + 5
    load_before = _load()
    rows = measure(args)
    text = markdown(rows, args.budget, load_before)
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "budgets.md").write_text(text, encoding="utf-8")
        (out / "budgets.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

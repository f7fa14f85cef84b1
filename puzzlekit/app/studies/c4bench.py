"""The Connect Four benchmark: our compiled 7×6 solver against the committed test set, and against
``bitbully`` (the optional extra ``games-check``) in the same run when it is installed.

``python -m puzzlekit.app.studies.c4bench [--data tests/data/connect4/positions.json]`` times
every move's value of every committed position (late 24+ stones, mid 16–23, early 10–15),
checks each against the committed scores, and prints per band the median and maximum seconds
per position, ours and bitbully's (no opening book, a fresh transposition table per position),
and the ratio of the medians. ``--empty`` solves the empty board's value (a first-player win)
and prints the seconds and nodes. Nothing here asserts a time: these are reported figures.

Not for: tests (``tests/test_connect4.py`` checks the values without timing anything).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from puzzlekit.families.games import connect4 as c4

BANDS = (("late", 24, 42), ("mid", 16, 23), ("early", 10, 15))
DEFAULT_DATA = Path("tests/data/connect4/positions.json")
#: a late position (milliseconds): compiles or loads the kernel before any timing
WARM_UP = "2252576253462244111563365343671351441"


def cells_of(moves: str) -> tuple[tuple[int, ...], int]:
    """The cells (row-major, top row first) and side to move after ``moves`` (columns 1..7)."""
    cells = [0] * (c4.COLS * c4.ROWS)
    heights = [0] * c4.COLS
    for i, ch in enumerate(moves):
        col = int(ch) - 1
        row = c4.ROWS - 1 - heights[col]
        cells[row * c4.COLS + col] = 1 + i % 2
        heights[col] += 1
    return tuple(cells), 1 + len(moves) % 2


def _ours(moves: str) -> tuple[dict[int, int], float]:
    cells, side = cells_of(moves)
    t = time.perf_counter()
    scores, _ = c4.move_scores(c4.bitboards(cells, side))
    return scores, time.perf_counter() - t


def _bitbully(agent: Any, moves: str) -> tuple[dict[int, int], float]:
    import bitbully

    board = bitbully.Board([int(ch) - 1 for ch in moves])
    agent.reset_transposition_table()
    t = time.perf_counter()
    scores = agent.score_all_moves(board)
    return {int(c): int(s) for c, s in scores.items()}, time.perf_counter() - t


def run(data: Path, with_bitbully: bool = True) -> dict[str, Any]:
    """Time and check every committed position; the figures per band."""
    positions = json.loads(data.read_text())["positions"]
    agent = None
    if with_bitbully:
        try:
            import bitbully

            agent = bitbully.BitBully(opening_book=None)
        except ImportError:
            agent = None
    _ours(WARM_UP)  # compile (or load the cached compiled code) outside the timings
    out: dict[str, Any] = {"wrong": [], "bands": {}}
    times: dict[str, list[float]] = {b[0]: [] for b in BANDS}
    peer: dict[str, list[float]] = {b[0]: [] for b in BANDS}
    for p in positions:
        band = next(name for name, lo, hi in BANDS if lo <= len(p["moves"]) <= hi)
        scores, secs = _ours(p["moves"])
        times[band].append(secs)
        want = {int(c) - 1: s for c, s in p["moveScores"].items()}
        if scores != want:
            out["wrong"].append(p["moves"])
        if agent is not None:
            _, bsecs = _bitbully(agent, p["moves"])
            peer[band].append(bsecs)
    for name, ts in times.items():
        if not ts:
            continue
        row = {"positions": len(ts), "median": statistics.median(ts), "max": max(ts)}
        if peer[name]:
            row["bitbullyMedian"] = statistics.median(peer[name])
            row["bitbullyMax"] = max(peer[name])
            row["ratio"] = row["median"] / row["bitbullyMedian"]
        out["bands"][name] = row
    return out


def empty_board() -> dict[str, Any]:
    """The empty board's value, seconds and nodes (no budget)."""
    cells, side = cells_of("")
    c4.score(c4.bitboards(*cells_of(WARM_UP)))  # compile outside the timing
    t, cpu = time.perf_counter(), time.process_time()
    s, spent = c4.score(c4.bitboards(cells, side))
    result, distance = c4.result_distance(s, 0)
    return {
        "score": s,
        "result": {1: "WIN", 0: "DRAW", -1: "LOSS"}[result],
        "distance": distance,
        "seconds": time.perf_counter() - t,
        "cpuSeconds": time.process_time() - cpu,
        "nodes": spent.nodes,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--no-bitbully", action="store_true", help="time our solver only")
    ap.add_argument("--empty", action="store_true", help="solve the empty board instead")
    args = ap.parse_args(argv)
    if args.empty:
        print(json.dumps(empty_board()), flush=True)
        return 0
    res = run(args.data, not args.no_bitbully)
    print(json.dumps(res, indent=2))
    return 1 if res["wrong"] else 0


if __name__ == "__main__":
    raise SystemExit(main())

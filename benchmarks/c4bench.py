"""The Connect Four benchmark: our compiled 7×6 solver against the committed test set, and in
the same run against Pascal Pons' solver (``--pons DRIVER``, built locally) and ``bitbully``
(the optional extra ``games-check``) when it is installed.

``python -m benchmarks.c4bench [--data tests/data/connect4/positions.json]
[--bands late,mid] [--pons DRIVER]`` times every move's value of every committed position (late
24+ stones, mid 16–23, early 10–15), checks each against the committed scores, and prints per
band the median, mean and maximum wall and CPU seconds per position: ours through the solver
(``connect4.move_scores``) and through the user's call (``game_verdict``: the game layer,
every move's result and distance), and the peers' (no opening book, a cleared transposition
table per position), with the ratios of the medians. Each side runs the positions in one pass
(so none pays for being woken between positions); ``--rounds N`` repeats the passes, ours and
the peers' in turn, and keeps each position's fastest round (wall and CPU apart), so a burst of
load on the shared machine weighs on neither side alone.

``DRIVER`` is a command that reads move strings (columns 1..7) one a line and answers each
with ``moves s1 .. s7 nodes wall_us cpu_us`` (``-1000`` for a full column): Pons' ``Solver``
with a main that calls ``reset()`` (not timed) and ``analyze()`` between two clock reads
(docs/games.md has it and the build command). ``--empty`` solves the empty board's value (a
first-player win) and prints the wall and CPU seconds and nodes; ``--only-centre`` then proves
that no other first move wins (a null-window search per mirror pair of columns, on the same
table) and exits 1 if one might.
Nothing here asserts a time: these are reported figures. The command exits 1 when our scores
or a peer's disagree with the committed ones. ``--nodes STONES`` solves the first STONES moves
of the committed positions (a fixed set) and prints each one's nodes and CPU seconds: the
search's cost in a measure the machine's load does not change.

Not for: tests (``tests/test_connect4.py`` checks the values without timing anything).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from puzzlekit.families.games import connect4 as c4

BANDS = (("late", 24, 42), ("mid", 16, 23), ("early", 10, 15))
DEFAULT_DATA = Path("tests/data/connect4/positions.json")
#: a late position (milliseconds): compiles or loads the solver before any timing
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


def _ours(moves: str) -> tuple[dict[int, int], float, float]:
    cells, side = cells_of(moves)
    board = c4.bitboards(cells, side)
    t, cpu = time.perf_counter(), time.thread_time()
    scores, _ = c4.move_scores(board)
    return scores, time.perf_counter() - t, time.thread_time() - cpu


def _verdict(moves: str) -> tuple[float, float]:
    """Seconds (wall, CPU) of the user's call: ``game_verdict`` on the game's state."""
    from puzzlekit.families import get_family
    from puzzlekit.verifiers.gametree import game_verdict

    game = get_family("owm-connect").game({})
    state = game.check(*cells_of(moves))[0]
    t, cpu = time.perf_counter(), time.thread_time()
    game_verdict(game, state)
    return time.perf_counter() - t, time.thread_time() - cpu


def _bitbully(agent: Any, moves: str) -> tuple[float, float]:
    import bitbully

    board = bitbully.Board([int(ch) - 1 for ch in moves])
    agent.reset_transposition_table()
    t, cpu = time.perf_counter(), time.thread_time()
    agent.score_all_moves(board)
    return time.perf_counter() - t, time.thread_time() - cpu


def pons_pass(command: str, moves: list[str]) -> list[tuple[dict[int, int], float, float]]:
    """Every position through the driver (see the module docstring) in one process, all lines
    written at once so that it runs without waiting, as ours does: each position's scores and
    wall and CPU seconds."""
    proc = subprocess.run(
        shlex.split(command),
        input="".join(m + "\n" for m in moves),
        capture_output=True,
        text=True,
        check=True,
    )
    out = []
    for m, line in zip(moves, proc.stdout.splitlines(), strict=True):
        fields = line.split()
        if len(fields) != 11 or fields[0] != m:
            raise RuntimeError(f"the driver answered {line!r} to {m!r}")
        scores = {c: int(v) for c, v in enumerate(fields[1:8]) if int(v) > -1000}
        out.append((scores, float(fields[9]) / 1e6, float(fields[10]) / 1e6))
    return out


def _bitbully_agent() -> Any:
    try:
        import bitbully
    except ImportError:
        return None
    return bitbully.BitBully(opening_book=None)


def _row(times: dict[str, list[tuple[float, float]]]) -> dict[str, Any]:
    """Medians, means and maxima (wall, CPU) of each timed side, and the ratios of the medians: ours
    (the solver, and the user's call ``verdict``) over each peer's."""
    row: dict[str, Any] = {"positions": len(times["ours"])}
    for side, ts in times.items():
        if not ts:
            continue
        wall, cpu = [t[0] for t in ts], [t[1] for t in ts]
        row[side] = {
            "medianWall": statistics.median(wall),
            "medianCpu": statistics.median(cpu),
            "meanWall": statistics.fmean(wall),
            "meanCpu": statistics.fmean(cpu),
            "maxWall": max(wall),
            "maxCpu": max(cpu),
        }
    for peer in ("pons", "bitbully"):
        if peer not in row:
            continue
        for side, name in (("ours", "ratio"), ("verdict", "verdictRatio")):
            for clock in ("Cpu", "Wall"):
                mine, theirs = row[side][f"median{clock}"], row[peer][f"median{clock}"]
                row[f"{name}To{peer.capitalize()}{clock}"] = mine / theirs
    return row


def _passes(
    moves: list[str], agent: Any, pons: str | None
) -> tuple[dict[str, list[tuple[float, float]]], list[dict[int, int]], list[dict[int, int]]]:
    """One round: every position through each side in turn (a pass per side); the seconds per
    side and position, our scores and the driver's."""
    times: dict[str, list[tuple[float, float]]] = {"ours": [], "verdict": []}
    ours = []
    for m in moves:
        scores, wall, cpu = _ours(m)
        ours.append(scores)
        times["ours"].append((wall, cpu))
    times["verdict"] = [_verdict(m) for m in moves]
    peer: list[dict[int, int]] = []
    if pons:
        answers = pons_pass(pons, moves)
        peer = [a[0] for a in answers]
        times["pons"] = [(a[1], a[2]) for a in answers]
    if agent is not None:
        times["bitbully"] = [_bitbully(agent, m) for m in moves]
    return times, ours, peer


def run(
    data: Path,
    with_bitbully: bool = True,
    pons: str | None = None,
    bands: tuple[str, ...] = ("late", "mid", "early"),
    rounds: int = 1,
) -> dict[str, Any]:
    """Time and check every committed position of ``bands``, ``rounds`` times (each position's
    fastest round counts, wall and CPU apart); the figures per band."""
    from benchmarks.bench_fast import machine

    positions = json.loads(data.read_text())["positions"]
    chosen = [
        (band, p)
        for p in positions
        for band, lo, hi in BANDS
        if lo <= len(p["moves"]) <= hi and band in bands
    ]
    moves = [p["moves"] for _, p in chosen]
    agent = _bitbully_agent() if with_bitbully else None
    _ours(WARM_UP)  # compile (or load the cached compiled code) outside the timings
    _verdict(WARM_UP)
    out: dict[str, Any] = {"machine": machine(), "rounds": rounds, "wrong": [], "peerWrong": []}
    best: dict[str, list[tuple[float, float]]] = {}
    for _ in range(rounds):
        times, ours, peer = _passes(moves, agent, pons)
        for side, ts in times.items():
            prev = best.get(side, ts)
            best[side] = [(min(a[0], b[0]), min(a[1], b[1])) for a, b in zip(prev, ts, strict=True)]
    for i, (_, p) in enumerate(chosen):
        want = {int(c) - 1: s for c, s in p["moveScores"].items()}
        if ours[i] != want:
            out["wrong"].append(p["moves"])
        if peer and peer[i] != want:
            out["peerWrong"].append(p["moves"])
    out["bands"] = {}
    for name, _, _ in BANDS:
        idx = [i for i, (band, _) in enumerate(chosen) if band == name]
        if idx:
            out["bands"][name] = _row({side: [ts[i] for i in idx] for side, ts in best.items()})
    out["loadAtEnd"] = os.getloadavg()[0]
    return out


def empty_board() -> dict[str, Any]:
    """The empty board's value, seconds and nodes (no budget)."""
    cells, side = cells_of("")
    from benchmarks.bench_fast import machine

    c4.score(c4.bitboards(*cells_of(WARM_UP)))  # compile outside the timing
    at_start = machine()
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
        "machine": at_start,
        "loadAtEnd": os.getloadavg()[0],
    }


def early_positions(data: Path, stones: int, count: int) -> list[str]:
    """A fixed set of early positions: the first ``stones`` moves of the committed positions
    (in file order, duplicates dropped), the first ``count`` of them."""
    seen: list[str] = []
    for p in json.loads(data.read_text())["positions"]:
        m = p["moves"][:stones]
        if len(m) == stones and m not in seen:
            seen.append(m)
    return seen[:count]


def node_counts(
    data: Path, stones: int, count: int, table_size: int = c4.TABLE_SIZE
) -> dict[str, Any]:
    """Nodes and CPU seconds of each early position's score (``connect4.score``, no budget):
    the search's cost measured by its node count, which the machine's load does not change."""
    from benchmarks.bench_fast import machine

    c4.score(c4.bitboards(*cells_of(WARM_UP)))  # compile outside the timing
    out: dict[str, Any] = {"machine": machine(), "stones": stones, "tableSize": table_size}
    out["positions"] = []
    for m in early_positions(data, stones, count):
        cpu = time.process_time()
        s, spent = c4.score(c4.bitboards(*cells_of(m)), table_size=table_size)
        cpu = time.process_time() - cpu
        out["positions"].append({"moves": m, "score": s, "nodes": spent.nodes, "cpuSeconds": cpu})
    out["nodes"] = sum(p["nodes"] for p in out["positions"])
    out["cpuSeconds"] = sum(p["cpuSeconds"] for p in out["positions"])
    out["loadAtEnd"] = os.getloadavg()[0]
    return out


def other_first_moves() -> list[dict[str, Any]]:
    """After :func:`empty_board` (on the same thread, so the table still holds that search's
    entries under its epoch): proves that no first move but the centre wins, by one
    null-window search per column left of the centre (the board is its own mirror image, so
    column ``6 - c`` scores as column ``c``): the reply's score is at least 0 (a draw or
    better for the second player). Each column's verdict, nodes and CPU seconds."""
    from puzzlekit.families.games import _c4kernel as K

    t = c4._table(c4.TABLE_SIZE)
    out = []
    for col in range(K.W // 2 - 1, -1, -1):
        move = K.column_move(0, col)
        nodes, cpu = t.ctl[K.NODES], time.process_time()
        v = K.negamax(0, move, 1, -1, 0, t.slots, t.work, t.ctl, t.deadline)
        out.append(
            {
                "columns": [col + 1, K.W - col],
                "replyScoreAtLeast0": bool(v >= 0),
                "nodes": int(t.ctl[K.NODES] - nodes),
                "cpuSeconds": time.process_time() - cpu,
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--no-bitbully", action="store_true", help="leave bitbully out")
    ap.add_argument("--pons", metavar="DRIVER", help="Pons' solver's timing driver (a command)")
    ap.add_argument("--bands", default="late,mid,early", help="bands to run, comma-separated")
    ap.add_argument("--rounds", type=int, default=1, help="passes; each position's fastest")
    ap.add_argument("--empty", action="store_true", help="solve the empty board instead")
    ap.add_argument(
        "--only-centre", action="store_true", help="with --empty: no other first move wins"
    )
    ap.add_argument(
        "--nodes", type=int, metavar="STONES", help="node counts of early positions of STONES"
    )
    ap.add_argument("--count", type=int, default=12, help="positions for --nodes")
    ap.add_argument("--table-size", type=int, default=c4.TABLE_SIZE, help="table slots")
    args = ap.parse_args(argv)
    if args.nodes is not None:
        print(
            json.dumps(node_counts(args.data, args.nodes, args.count, args.table_size), indent=1),
            flush=True,
        )
        return 0
    if args.empty:
        print(json.dumps(empty_board()), flush=True)
        if args.only_centre:
            proofs = other_first_moves()
            print(json.dumps({"otherFirstMoves": proofs, "loadAtEnd": os.getloadavg()[0]}))
            return 0 if all(p["replyScoreAtLeast0"] for p in proofs) else 1
        return 0
    bands = tuple(b for b in args.bands.split(",") if b)
    unknown = sorted(set(bands) - {b[0] for b in BANDS})
    if unknown:
        ap.error(f"--bands: unknown band(s) {', '.join(unknown)}")
    res = run(args.data, not args.no_bitbully, args.pons, bands, max(1, args.rounds))
    print(json.dumps(res, indent=2))
    for side, key in (("ours", "wrong"), ("the peer's", "peerWrong")):
        if res[key]:
            print(f"c4bench: {len(res[key])} of {side} answers disagree", file=sys.stderr)
    return 1 if res["wrong"] or res["peerWrong"] else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Regenerate ``positions.json``: Connect Four 7×6 positions with exact scores from ``bitbully``,
an independent strong solver (C++ with Python bindings, AGPL-3.0; the optional extra
``games-check``, never a runtime dependency).

    .venv/bin/python -m pip install -e '.[games-check]'
    .venv/bin/python tests/data/connect4/make_positions.py [--seed 2026] [--out positions.json]

Positions come from seeded random games in which no move completes four, kept when the side to
move cannot win at once either (so every position needs search): 150 late (24–34 stones),
100 mid (16–23) and 40 early (10–15). Each is written as its moves (columns 1–7, first player
first), its stone count, its score and the score of every playable column, all from bitbully's
``BitBully(opening_book=None).score_all_moves`` (pure search, no opening book). Scores follow the
classic convention: positive when the side to move wins, ``(43 - n) // 2`` with ``n`` stones on
the board before the winning stone; negative when the other side wins; 0 for a draw. A column's
score is the side to move's score after dropping its stone there.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np

BANDS = (("late", 24, 34, 150), ("mid", 16, 23, 100), ("early", 10, 15, 40))


def random_position(rng: np.random.Generator, stones: int) -> list[int] | None:
    import bitbully

    board = bitbully.Board()
    moves: list[int] = []
    for _ in range(stones):
        legal = [c for c in range(7) if board.is_legal_move(c) and not board.can_win_next(c)]
        if not legal:
            return None
        c = int(legal[int(rng.integers(len(legal)))])
        board.play(c)
        moves.append(c)
    return None if board.can_win_next() else moves


def main(argv: list[str] | None = None) -> int:
    import bitbully

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("positions.json"))
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    agent = bitbully.BitBully(opening_book=None)
    seen: set[str] = set()
    positions = []
    for band, lo, hi, count in BANDS:
        kept = 0
        while kept < count:
            moves = random_position(rng, int(rng.integers(lo, hi + 1)))
            if moves is None:
                continue
            text = "".join(str(c + 1) for c in moves)
            if text in seen:
                continue
            seen.add(text)
            agent.reset_transposition_table()
            scores = agent.score_all_moves(bitbully.Board(moves))
            by_col = {str(c + 1): int(s) for c, s in sorted(scores.items())}
            positions.append(
                {
                    "band": band,
                    "moves": text,
                    "stones": len(moves),
                    "score": max(by_col.values()),
                    "moveScores": by_col,
                }
            )
            kept += 1
            print(band, kept, text, file=sys.stderr)
    doc = {
        "provenance": {
            "tool": "bitbully",
            "version": version("bitbully"),
            "solver": "BitBully(opening_book=None).score_all_moves",
            "command": "python tests/data/connect4/make_positions.py --seed " + str(args.seed),
            "seed": args.seed,
            "date": datetime.date.today().isoformat(),
            "license": "positions and scores are data computed with bitbully (AGPL-3.0); "
            "bitbully is not a dependency of puzzlekit",
            "scoreConvention": "positive: the side to move wins, (43 - n) // 2 with n stones "
            "on the board before the winning stone; negative: the other side wins; 0: draw",
            "moves": "columns 1-7, first player first",
        },
        "positions": positions,
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

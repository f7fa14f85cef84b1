"""The compiled Connect Four solver's reused transposition table: a query on the thread's table
(epoch tags, never cleared between queries) gives exactly what a freshly zeroed table gives,
the old path: the same scores and the same node counts, whatever was solved before."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from benchmarks.c4bench import cells_of
from puzzlekit.families.games import connect4

POSITIONS = json.loads((Path(__file__).parent / "data/connect4/positions.json").read_text())[
    "positions"
]
SAMPLE = [p for p in POSITIONS if p["band"] in ("late", "mid")][::8]


def _board(moves: str) -> connect4.Bitboards:
    return connect4.bitboards(*cells_of(moves))


def _fresh(moves: str, table_size: int = connect4.TABLE_SIZE) -> tuple[dict[int, int], int]:
    """Scores and nodes on a newly allocated, zeroed table (what every query had before)."""
    connect4.release_tables()
    scores, spent = connect4.move_scores(_board(moves), table_size=table_size)
    return scores, spent.nodes


def _reused(moves: str, table_size: int = connect4.TABLE_SIZE) -> tuple[dict[int, int], int]:
    scores, spent = connect4.move_scores(_board(moves), table_size=table_size)
    return scores, spent.nodes


@pytest.mark.parametrize("table_size", [connect4.TABLE_SIZE, 1009])
def test_a_reused_table_answers_as_a_fresh_one_node_for_node(table_size: int) -> None:
    fresh = {p["moves"]: _fresh(p["moves"], table_size) for p in SAMPLE}
    connect4.release_tables()
    # forwards, backwards, and each position twice in a row: a second solve of the same
    # position would take far fewer nodes if the first one's entries were read back
    order = [p["moves"] for p in SAMPLE]
    for moves in order + order[::-1] + [m for m in order for _ in (0, 1)]:
        assert _reused(moves, table_size) == fresh[moves]
    for p in SAMPLE:
        want = {int(c) - 1: s for c, s in p["moveScores"].items()}
        assert fresh[p["moves"]][0] == want


def test_the_epochs_wrap_by_zeroing_the_table_and_answers_stay_the_same() -> None:
    moves = SAMPLE[3]["moves"]
    want = _fresh(moves, 1009)
    table = connect4._table(1009)
    assert table.buckets == 503 and table.slots.shape == (1006,)
    assert table.shift == 16 + (((1 << 49) - 1) // 503).bit_length()
    last = (1 << (63 - table.shift)) - 1  # the last epoch the tag can hold
    table.epoch = last - 1
    assert _reused(moves, 1009) == want
    assert table.epoch == last and int(table.slots.max()) >> table.shift == last
    assert _reused(moves, 1009) == want  # the epochs ran out: zeroed, epoch 1 again
    assert table.epoch == 1
    assert int(table.slots.max()) >> table.shift == 1


def test_each_thread_has_its_own_table() -> None:
    moves = SAMPLE[0]["moves"]
    want = _fresh(moves)
    mine = connect4._table(connect4.TABLE_SIZE)
    seen: list[object] = []

    def other() -> None:
        seen.append(_reused(moves))
        seen.append(connect4._table(connect4.TABLE_SIZE))
        connect4.release_tables()

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen[0] == want and seen[1] is not mine
    assert connect4._table(connect4.TABLE_SIZE) is mine


def test_a_table_needs_a_bucket() -> None:
    for size in (0, 1):
        with pytest.raises(ValueError, match="at least two slots"):
            connect4.Table(size)

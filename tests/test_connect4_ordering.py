"""The compiled Connect Four solver's table move, two-slot buckets, enhanced cutoffs and mirror
sharing change how many nodes a search visits, never a score: on many random positions every
score equals the one of the solver before them (``tests/c4_reference.py``: one always-replaced
slot, threat ordering alone), with the default table and with tables small enough that entries
are evicted all the time."""

from __future__ import annotations

import random

import pytest

from puzzlekit.families.games import _c4kernel as K
from puzzlekit.families.games import connect4
from tests.c4_reference import reference_score


def _random_position(rng: random.Random, stones: int) -> connect4.Bitboards:
    """A position after ``stones`` random moves that make no four (fewer when every move
    would); the side to move may be able to win at once."""
    current = mask = 0
    moves = 0
    while moves < stones:
        cols = [c for c in range(K.W) if K.column_move(mask, c)]
        rng.shuffle(cols)
        for c in cols:
            move = K.column_move(mask, c)
            if not move & K._winning_spots(current, mask):
                break
        else:
            break
        current, mask = current ^ mask, mask | move
        moves += 1
    return connect4.Bitboards(current, mask, moves)


def _mirrored(board: connect4.Bitboards) -> connect4.Bitboards:
    return connect4.Bitboards(
        K._mirror(board.current + K.BOTTOM) - K.BOTTOM, K._mirror(board.mask), board.moves
    )


POSITIONS = [_random_position(random.Random(seed), 16 + seed % 21) for seed in range(240)]


@pytest.mark.parametrize("table_size", [connect4.TABLE_SIZE, 4099, 64])
def test_scores_equal_the_solver_without_the_new_ordering(table_size: int) -> None:
    for board in POSITIONS[:: 2 if table_size == connect4.TABLE_SIZE else 3]:
        s, _ = connect4.score(board, table_size=table_size)
        assert s == reference_score(board.current, board.mask, board.moves), board


def test_every_move_scores_as_the_reference_and_mirror_images_agree() -> None:
    for board in POSITIONS[::6]:
        scores, _ = connect4.move_scores(board, table_size=4099)
        mirror, _ = connect4.move_scores(_mirrored(board), table_size=4099)
        assert mirror == {K.W - 1 - c: s for c, s in scores.items()}
        for col, s in scores.items():
            move = K.column_move(board.mask, col)
            if move & K._winning_spots(board.current, board.mask):
                assert s == (K.SIZE + 1 - board.moves) // 2
            elif board.moves + 1 < K.SIZE:
                child = (board.current ^ board.mask, board.mask | move, board.moves + 1)
                assert s == -reference_score(*child), (board, col)


def _symmetric_position(rng: random.Random, stones: int) -> connect4.Bitboards | None:
    """A position that is its own mirror image, of ``stones`` stones (even), built from blocks
    that keep it so (x and o in the centre, or x and o in column ``c`` and then in ``6 - c``);
    None when a block would make four or no block fits."""
    current = mask = 0
    moves = 0
    while moves < stones:
        c = rng.randrange(K.W // 2 + 1)
        block = [c, c] if c == K.W // 2 else [c, c, K.W - 1 - c, K.W - 1 - c]
        if moves + len(block) > stones:
            continue
        for col in block:
            move = K.column_move(mask, col)
            if not move or move & K._winning_spots(current, mask):
                return None
            current, mask = current ^ mask, mask | move
            moves += 1
    return connect4.Bitboards(current, mask, moves)


def test_a_symmetric_position_scores_mirror_columns_alike_and_exactly() -> None:
    rng = random.Random(7)
    boards = [_symmetric_position(rng, 16 + 2 * (i % 4)) for i in range(60)]
    chosen = [b for b in boards if b is not None][:12]
    assert len(chosen) >= 8
    for board in chosen:
        current, mask = board.current, board.mask
        assert K._mirror(current + mask) == current + mask
        scores, _ = connect4.move_scores(board)
        for col, s in scores.items():
            assert s == scores[K.W - 1 - col]
            move = K.column_move(mask, col)
            if move & K._winning_spots(current, mask):
                continue
            child = (current ^ mask, mask | move, board.moves + 1)
            assert s == -reference_score(*child), (board, col)

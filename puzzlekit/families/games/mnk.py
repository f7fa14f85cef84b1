"""m,n,k-games: two players take turns placing ``x`` and ``o`` on an m×n board; k in a row wins.

Tic-tac-toe is the 3,3,3-game (``tictactoe``); Connect Four-style games add gravity
(``connect``). Both reuse :class:`MNKGame` from this module.

Params of ``owm-mnk``: ``{"rows": m, "cols": n, "k": k}`` (m, n in 2..8, k in 2..max(m, n)).
State: ``(cells, to_move, winner)``, cells row-major (0 empty, 1 x, 2 o), ``winner`` 0 while
the game goes on. A move is a cell index; its coordinate is ``(row, col)`` (0-based, top row 0)
and its name ``r{row+1}c{col+1}``. Text: rows top to bottom joined by ``/`` (``x``, ``o``,
``.``), then optionally the side to move (default: from the piece counts, x moves first).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from puzzlekit.core.model import Coord, SpecError, Variable, Violation
from puzzlekit.core.protocols import FamilyInfo, GameInfo
from puzzlekit.families import register_family
from puzzlekit.families.games import Move, OnlyWinningMove, PuzzleGame, State, int_param

PIECES = {".": 0, "x": 1, "o": 2}
SYMBOL = ".xo"
SIDES = {"x": 1, "o": 2}
MAX_SIDE = 8


def cell_name(r: int, c: int) -> str:
    return f"r{r + 1}c{c + 1}"


class MNKGame(PuzzleGame):
    """The m,n,k-game; ``gravity = True`` makes pieces drop to the lowest empty cell."""

    gravity = False
    info = GameInfo("mnk", "m×n board, k in a row wins")

    def __init__(self, rows: int, cols: int, k: int) -> None:
        super().__init__(rows=rows, cols=cols, k=k)
        self.rows, self.cols, self.k = rows, cols, k
        self.n = rows * cols
        self.lines = self._lines()
        self.lines_through = [[ln for ln in self.lines if i in ln] for i in range(self.n)]
        self.perms = self._symmetries()

    # -- structure, computed once -------------------------------------------------------------
    def _lines(self) -> list[tuple[int, ...]]:
        out = []
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + i * dr, c + i * dc) for i in range(self.k)]
                    if all(0 <= rr < self.rows and 0 <= cc < self.cols for rr, cc in cells):
                        out.append(tuple(rr * self.cols + cc for rr, cc in cells))
        return out

    def _symmetries(self) -> list[tuple[int, ...]]:
        m, n = self.rows, self.cols
        maps = [lambda r, c: (r, c), lambda r, c: (r, n - 1 - c)]
        if not self.gravity:
            maps += [lambda r, c: (m - 1 - r, c), lambda r, c: (m - 1 - r, n - 1 - c)]
            if m == n:
                maps += [
                    lambda r, c: (c, r),
                    lambda r, c: (n - 1 - c, r),
                    lambda r, c: (c, m - 1 - r),
                    lambda r, c: (n - 1 - c, m - 1 - r),
                ]
        perms = set()
        for f in maps:
            perms.add(tuple(f(*divmod(i, n))[0] * n + f(*divmod(i, n))[1] for i in range(m * n)))
        return sorted(perms)

    # -- dynamics -----------------------------------------------------------------------------
    def initial(self) -> State:
        return ((0,) * self.n, 1, 0)

    def current_player(self, state: State) -> int:
        return state[1]

    def legal_actions(self, state: State) -> list[Move]:
        cells, _, winner = state
        if winner:
            return []
        if not self.gravity:
            return [i for i in range(self.n) if cells[i] == 0]
        out = []
        for c in range(self.cols):
            for r in range(self.rows - 1, -1, -1):
                if cells[r * self.cols + c] == 0:
                    out.append(r * self.cols + c)
                    break
        return out

    def apply_action(self, state: State, move: Move) -> State:
        cells, p, _ = state
        i = int(move)  # type: ignore[arg-type]
        new = cells[:i] + (p,) + cells[i + 1 :]
        won = any(all(new[j] == p for j in ln) for ln in self.lines_through[i])
        return (new, 3 - p, p if won else 0)

    def is_terminal(self, state: State) -> bool:
        return bool(state[2]) or 0 not in state[0]

    def returns(self, state: State) -> tuple[float, float]:
        winner = state[2]
        if not winner:
            return (0.0, 0.0)  # a draw, or play goes on
        return (1.0, -1.0) if winner == 1 else (-1.0, 1.0)

    def key(self, state: State) -> Hashable:
        cells = state[0]
        return (min(tuple(cells[j] for j in perm) for perm in self.perms), state[1])

    def plies_left(self, state: State) -> int:
        return state[0].count(0)

    # -- coordinates --------------------------------------------------------------------------
    def variables(self) -> list[Variable]:
        return [
            Variable((r, c), cell_name(r, c), (0, 1, 2))
            for r in range(self.rows)
            for c in range(self.cols)
        ]

    def move_coord(self, state: State, move: Move) -> Coord:
        return divmod(int(move), self.cols)  # type: ignore[arg-type]

    def move_name(self, state: State, move: Move) -> str:
        return cell_name(*divmod(int(move), self.cols))  # type: ignore[arg-type]

    def move_value(self, state: State, move: Move) -> int:
        return state[1]

    def move_at(self, state: State, coord: Coord, value: int) -> Move | None:
        if len(coord) != 2 or value != state[1]:
            return None
        i = coord[0] * self.cols + coord[1]
        return i if i in self.legal_actions(state) else None

    # -- legality -----------------------------------------------------------------------------
    def _winners(self, cells: tuple[int, ...]) -> dict[int, list[tuple[int, ...]]]:
        out: dict[int, list[tuple[int, ...]]] = {}
        for ln in self.lines:
            p = cells[ln[0]]
            if p and all(cells[j] == p for j in ln):
                out.setdefault(p, []).append(ln)
        return out

    def _tops(self, cells: tuple[int, ...]) -> set[int]:
        """Cells whose piece could have been placed last (with gravity: the top of a column)."""
        if not self.gravity:
            return {i for i in range(self.n) if cells[i]}
        out = set()
        for c in range(self.cols):
            for r in range(self.rows):
                if cells[r * self.cols + c]:
                    out.add(r * self.cols + c)
                    break
        return out

    def _coord_v(self, i: int, detail: str) -> Violation:
        r, c = divmod(i, self.cols)
        return Violation("malformed", (r, c), cell_name(r, c), detail)

    def check(self, cells: tuple[int, ...], to_move: int | None) -> tuple[State, list[Violation]]:
        """The state of ``cells`` (side to move from the counts when ``to_move`` is None) and
        what makes it illegal: a floating piece, wrong piece counts, play after a win."""
        out: list[Violation] = []
        if self.gravity:
            for c in range(self.cols):
                gap = False
                for r in range(self.rows - 1, -1, -1):
                    i = r * self.cols + c
                    if cells[i] == 0:
                        gap = True
                    elif gap:
                        out.append(
                            self._coord_v(
                                i, f"floating-piece: {cell_name(r, c)} has an empty cell below it"
                            )
                        )
        nx, no = cells.count(1), cells.count(2)
        if to_move is None:
            if nx == no:
                side = 1
            elif nx == no + 1:
                side = 2
            else:
                side = 1
                surplus = 1 if nx > no else 2
                out += [
                    self._coord_v(
                        i,
                        f"piece-count: x has {nx} pieces and o has {no}; x moves first, so x "
                        "has as many pieces as o or one more",
                    )
                    for i in range(self.n)
                    if cells[i] == surplus
                ]
        else:
            side = to_move
            mine, theirs = (nx, no) if side == 1 else (no, nx)
            if not (theirs - 1 <= mine <= theirs):
                surplus = side if mine > theirs else 3 - side
                out += [
                    self._coord_v(
                        i,
                        f"piece-count: {SYMBOL[side]} is to move with {mine} pieces against "
                        f"{theirs}; the side to move has as many pieces as the other or one less",
                    )
                    for i in range(self.n)
                    if cells[i] == surplus
                ]
        wins = self._winners(cells)
        winner = 0
        if len(wins) == 2:
            line_cells = sorted({j for lns in wins.values() for ln in lns for j in ln})
            out += [
                self._coord_v(i, "play-after-win: both sides have k in a row") for i in line_cells
            ]
        elif wins:
            ((w, lns),) = wins.items()
            winner = w
            last = set.intersection(*(set(ln) for ln in lns)) & self._tops(cells)
            if side == w or not last:
                line_cells = sorted({j for ln in lns for j in ln})
                out += [
                    self._coord_v(
                        i,
                        f"play-after-win: {SYMBOL[w]} completed {self.k} in a row and the game "
                        "went on",
                    )
                    for i in line_cells
                ]
        return (cells, side, winner), out

    def violations(self, state: State) -> list[Violation]:
        return self.check(state[0], state[1])[1]

    # -- text ---------------------------------------------------------------------------------
    def parse(self, text: str, to_move: str | None = None) -> State:
        rows = text.strip().split("/")
        problems: list[Violation] = self._shape_violations(rows)
        if problems:
            raise SpecError(problems)
        cells = []
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch not in PIECES:
                    problems.append(
                        Violation(
                            "out-of-domain",
                            (r, c),
                            cell_name(r, c),
                            f"{ch!r} is not a piece: use x, o or .",
                        )
                    )
                cells.append(PIECES.get(ch, 0))
        side = None
        if to_move is not None:
            if to_move not in SIDES:
                problems.append(
                    Violation("malformed", None, "toMove", f"side to move is x or o: {to_move!r}")
                )
            else:
                side = SIDES[to_move]
        if problems:
            raise SpecError(problems)
        state, bad = self.check(tuple(cells), side)
        if bad:
            raise SpecError(bad)
        return state

    def _shape_violations(self, rows: list[str]) -> list[Violation]:
        """A violation per row of the wrong length, at its first missing cell (or its last
        cell when it is too long), and one for missing or extra rows, at the board's edge."""
        want = f"expected {self.rows} rows of {self.cols} cells joined by '/'"
        out = []
        for r, row in enumerate(rows[: self.rows]):
            if len(row) != self.cols:
                c = min(len(row), self.cols - 1)
                out.append(
                    Violation(
                        "shape-mismatch",
                        (r, c),
                        cell_name(r, c),
                        f"row {r + 1} has {len(row)} cells: {want}",
                    )
                )
        if len(rows) != self.rows:
            r = min(len(rows), self.rows - 1)
            out.append(
                Violation(
                    "shape-mismatch",
                    (r, 0),
                    cell_name(r, 0),
                    f"{len(rows)} row{'s' if len(rows) != 1 else ''}: {want}",
                )
            )
        return out

    def derived_side(self, cells: tuple[int, ...]) -> int:
        return 1 if cells.count(1) == cells.count(2) else 2

    def rows_text(self, state: State) -> str:
        cells = state[0]
        return "/".join(
            "".join(SYMBOL[cells[r * self.cols + c]] for c in range(self.cols))
            for r in range(self.rows)
        )

    def format(self, state: State) -> str:
        text = self.rows_text(state)
        if state[1] != self.derived_side(state[0]):
            text += " " + SYMBOL[state[1]]
        return text

    def position_data(self, state: State) -> dict[str, Any]:
        return {"rows": self.rows_text(state), "toMove": SYMBOL[state[1]]}

    def position_coords(self, state: State) -> list[Coord]:
        return [divmod(i, self.cols) for i in range(self.n) if state[0][i]]

    def state_from_data(self, data: Mapping[str, Any], where: str) -> State:
        extra = sorted(set(data) - {"rows", "toMove"})
        if extra:
            raise SpecError(
                [Violation("unknown-field", None, where, f"unknown position fields {extra}")]
            )
        rows, side = data.get("rows"), data.get("toMove")
        if not isinstance(rows, str) or not (side is None or isinstance(side, str)):
            raise SpecError(
                [Violation("malformed", None, where, "rows must be a string, toMove x or o")]
            )
        return self.parse(rows, side)

    # -- repair candidates --------------------------------------------------------------------
    def alternatives(self, state: State, coord: Coord, keep: Move) -> list[tuple[str, State]]:
        cells, p, _ = state
        q = 3 - p
        i = coord[0] * self.cols + coord[1]
        keep = int(keep)  # type: ignore[arg-type]
        out: list[tuple[str, State]] = []
        if cells[i] == 0:
            blocked = cells[:i] + (q,) + cells[i + 1 :]
            probe = (blocked, p, 0)
            for z in self.legal_actions(probe):
                if z in (i, keep):
                    continue
                new = blocked[:z] + (p,) + blocked[z + 1 :]
                out.append(("block", self.check(new, p)[0]))
        keep_col = keep % self.cols
        tops = self._tops(cells)
        for a in sorted(tops):
            if cells[a] != p or (self.gravity and a % self.cols == keep_col):
                continue
            less = cells[:a] + (0,) + cells[a + 1 :]
            for b in sorted(self._tops(less)):
                if less[b] != q or (self.gravity and b % self.cols == keep_col):
                    continue
                new = less[:b] + (0,) + less[b + 1 :]
                out.append(("play-back", self.check(new, p)[0]))
        return out


class MNKFamily(OnlyWinningMove):
    info = FamilyInfo(
        name="owm-mnk",
        description="only winning move in an m,n,k-game (k in a row on an m×n board)",
        clue_kinds=("position",),
        listed_params=({"rows": 4, "cols": 4, "k": 3},),
        default_verifier="gametree",
        golden_verifier="gametree",
        size_limits={"rows": MAX_SIDE, "cols": MAX_SIDE, "k": MAX_SIDE},
        rules_text=(
            "An m,n,k-game on a {rows}×{cols} board: two players take turns placing `x` and `o` "
            "(`.` is empty; x moves first, so x is to move when both have as many pieces); the "
            "first to get {k} in a row across, down or diagonally wins. Find the move that wins "
            "for the player to move under perfect play by both (if several win, the fastest)."
        ),
    )
    #: the params, in the order the schema id names them
    game_keys = ("rows", "cols", "k")
    max_moves_left = 7
    game_class: type[MNKGame] = MNKGame
    default_k = 3

    def game_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        rows, p1 = int_param(params, "rows", None, 2, MAX_SIDE)
        cols, p2 = int_param(params, "cols", None, 2, MAX_SIDE)
        k, p3 = int_param(params, "k", self.default_k, 2, MAX_SIDE)
        problems = p1 + p2 + p3
        if not problems and k > max(rows, cols):  # type: ignore[operator]
            problems.append(Violation("malformed", None, "params.k", "k exceeds the board"))
        if problems:
            raise SpecError(problems)
        return {"rows": rows, "cols": cols, "k": k}

    def make_game(self, params: Mapping[str, Any]) -> PuzzleGame:
        return self.game_class(params["rows"], params["cols"], params["k"])

    def game_id(self, params: Mapping[str, Any]) -> str:
        return self.info.name + "-" + "x".join(str(params[key]) for key in self.game_keys)

    def params_from_text(self, text: str, params: Mapping[str, Any]) -> dict[str, Any]:
        rows = text.split("/")
        out = {"rows": len(rows), "cols": len(rows[0]) if rows else 0}
        out.update(params)
        return out


MNK = register_family(MNKFamily())

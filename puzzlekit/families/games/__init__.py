"""Two-player perfect-information games, and the only-winning-move puzzle family built on them.

A **game** (one module per game: ``tictactoe``, ``mnk``, ``connect``, ``nim``) fills in the small
uniform protocol of :class:`Game`, in this order, OpenSpiel style: ``initial``, ``to_move``,
``legal_moves``, ``play``, ``is_terminal``, ``outcome``, ``key`` (canonical key for
transpositions, symmetric positions share one), the move coordinates (``move_coord``,
``move_name``, ``move_value``, ``move_at``), and the text format (``parse``, ``format``,
``violations``). States are immutable tuples, so a solver may keep them in tables; a game
describes itself with a :class:`GameInfo` record instead of special cases in the core.

The **only-winning-move family** (:class:`OnlyWinningMove`, one registered family per game,
named ``owm-<game>``) turns a position into a puzzle: "find the only move that wins under
perfect play". Its schema has one variable per move coordinate (a board cell ``r2c3`` with
domain ``0`` or the mover's piece ``1``/``2``; a Nim heap ``h2`` with the number of stones
taken), and its rules say exactly one move is played. The instance holds one ``position`` clue
(the whole position: ``{"rows": "x.o/.x./...", "toMove": "x"}`` or ``{"heaps": [3, 4, 5]}``);
a solution is a winning move written as that assignment, so a verdict is UNIQUE when exactly one
move wins, MULTIPLE when several do (the reject detail names them by move coordinate) and
UNSOLVABLE when none does. With ``variant = "fastest"`` the puzzle asks for the fastest win and
is unique by distance. Illegal positions (wrong piece counts, play after a win, a floating piece)
are INVALID_SPEC with violations at the offending cells.

The clue's constraints include an opaque ``Predicate`` whose oracle is :func:`move_values`
(a memoized negamax over the game tree), so the enumerative reference can verify these
instances; the exact game verifiers (``puzzlekit/verifiers/gametree.py``: alpha-beta with a
transposition
table, and plain minimax as the holdout) solve the position themselves.

Not for: games with chance, hidden information or more than two players, nor positions too big
to solve exhaustively (a 7×6 Connect Four board is out of reach of these solvers).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlekit.core.model import (
    Clue,
    Constraint,
    Coord,
    Instance,
    Linear,
    Origin,
    Predicate,
    Problem,
    Schema,
    Solution,
    SpecError,
    Table,
    Variable,
    Violation,
)
from puzzlekit.families import Family, Repair

#: result of a position or move for the side to move
WIN, DRAW, LOSS = "WIN", "DRAW", "LOSS"
RESULT_NAMES = {1: WIN, 0: DRAW, -1: LOSS}


@dataclass(frozen=True)
class GameInfo:
    """What kind of game this is (OpenSpiel's ``GameType``): the core reads it, never the name."""

    name: str
    description: str
    players: int = 2
    dynamics: str = "sequential"
    information: str = "perfect"
    utility: str = "zero-sum"
    chance: str = "deterministic"
    draws: bool = True


State = Hashable
Move = Hashable


class Game:
    """The protocol of a game; each game module subclasses it and fills in every method.

    Players are ``1`` (moves first; ``x`` on boards) and ``2`` (``o``). States are immutable
    and hashable. A game object is built from its params and compares equal by them.
    """

    info: GameInfo

    def __init__(self, **params: Any) -> None:
        self.params = dict(params)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.params == self.params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.params.items()))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.params})"

    # -- dynamics ---------------------------------------------------------------------------
    def initial(self) -> State:
        raise NotImplementedError

    def to_move(self, state: State) -> int:
        raise NotImplementedError

    def legal_moves(self, state: State) -> list[Move]:
        """Moves of the side to move, in a fixed order; empty when the game is over."""
        raise NotImplementedError

    def play(self, state: State, move: Move) -> State:
        raise NotImplementedError

    def is_terminal(self, state: State) -> bool:
        raise NotImplementedError

    def outcome(self, state: State) -> int | None:
        """The winner (1 or 2), 0 for a draw, None while the game goes on."""
        raise NotImplementedError

    def key(self, state: State) -> Hashable:
        """Canonical transposition key: equal for positions with equal value (symmetries)."""
        return state

    def plies_left(self, state: State) -> int:
        """Plies until no move is left when nobody wins (the distance of a drawn position)."""
        raise NotImplementedError

    # -- coordinates ------------------------------------------------------------------------
    def variables(self) -> list[Variable]:
        """One variable per move coordinate, in move order (the schema of the puzzle family)."""
        raise NotImplementedError

    def move_coord(self, state: State, move: Move) -> Coord:
        raise NotImplementedError

    def move_name(self, state: State, move: Move) -> str:
        raise NotImplementedError

    def move_label(self, state: State, move: Move) -> str:
        """How a player writes the move (default: its coordinate's name)."""
        return self.move_name(state, move)

    def move_value(self, state: State, move: Move) -> int:
        """The value the move's variable takes in a solution (the piece, or stones taken)."""
        raise NotImplementedError

    def move_at(self, state: State, coord: Coord, value: int) -> Move | None:
        """The legal move written as ``coord = value``, or None."""
        for m in self.legal_moves(state):
            if self.move_coord(state, m) == tuple(coord) and self.move_value(state, m) == value:
                return m
        return None

    # -- text -------------------------------------------------------------------------------
    def parse(self, text: str, to_move: str | None = None) -> State:
        """The position written as text; SpecError with violations at offending coordinates."""
        raise NotImplementedError

    def format(self, state: State) -> str:
        raise NotImplementedError

    def side_name(self, player: int) -> str:
        return {1: "x", 2: "o"}[player]

    # -- the position clue ------------------------------------------------------------------
    def position_data(self, state: State) -> dict[str, Any]:
        raise NotImplementedError

    def position_coords(self, state: State) -> list[Coord]:
        raise NotImplementedError

    def state_from_data(self, data: Mapping[str, Any], where: str) -> State:
        """The state of a position clue's data; SpecError with violations otherwise."""
        raise NotImplementedError

    def violations(self, state: State) -> list[Violation]:
        """What makes ``state`` an illegal position (empty for a legal one)."""
        raise NotImplementedError

    def alternatives(self, state: State, coord: Coord, keep: Move) -> list[tuple[str, State]]:
        """Nearby positions (action name, state) where the move at ``coord`` may stop winning
        while ``keep`` stays legal: the generator's repair moves. Candidates, not checked."""
        return []


# --- the family's oracle: memoized negamax ----------------------------------------------------


def _better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether (result, distance) ``a`` is better for the side to move than ``b``: a win beats a
    draw beats a loss; a faster win, a slower loss."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1] if a[0] > 0 else a[1] > b[1]


def _value(game: Game, state: State, memo: dict) -> tuple[int, int]:
    k = game.key(state)
    hit = memo.get(k)
    if hit is not None:
        return hit
    if game.is_terminal(state):
        winner = game.outcome(state)
        best = (0 if winner == 0 else (1 if winner == game.to_move(state) else -1), 0)
    else:
        best = None
        for m in game.legal_moves(state):
            r, d = _value(game, game.play(state, m), memo)
            cand = (-r, d + 1)
            if best is None or _better(cand, best):
                best = cand
    memo[k] = best
    return best


@functools.lru_cache(maxsize=4096)
def move_values(game: Game, state: State) -> tuple[tuple[Move, int, int], ...]:
    """Every legal move with its result (1 win, 0 draw, -1 loss for the mover) and distance
    (plies to the end under perfect play, the move included). Exhaustive, memoized per call."""
    memo: dict = {}
    out = []
    for m in game.legal_moves(state):
        r, d = _value(game, game.play(state, m), memo)
        out.append((m, -r, d + 1))
    return tuple(out)


def winning_moves(game: Game, state: State, fastest: bool = False) -> list[Move]:
    """The moves that win (with ``fastest``: the moves that win in the fewest plies)."""
    wins = [(m, d) for m, r, d in move_values(game, state) if r > 0]
    if fastest and wins:
        best = min(d for _, d in wins)
        wins = [(m, d) for m, d in wins if d == best]
    return [m for m, _ in wins]


# --- the only-winning-move family ------------------------------------------------------------

VARIANTS = ("win", "fastest")
#: random playouts tried by the generation hooks before giving up on one target
PLAYOUTS = 400


class OnlyWinningMove(Family):
    """ "Find the only winning move" for one game (see the module docstring)."""

    clue_kinds = ("position",)
    default_verifier = "gametree"
    golden_verifier = "gametree"
    game_keys: tuple[str, ...] = ()
    #: generation: positions have at most this many legal moves left (keeps the holdout feasible)
    max_moves_left = 9

    # -- params -----------------------------------------------------------------------------
    def make_game(self, params: Mapping[str, Any]) -> Game:
        raise NotImplementedError

    def game_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Check and complete the game's own params; SpecError otherwise."""
        raise NotImplementedError

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        known = {*self.game_keys, "variant"}
        problems = [
            Violation("unknown-field", None, f"params.{k}", f"{self.name} has no param {k!r}")
            for k in sorted(set(params) - known)
        ]
        variant = params.get("variant", "win")
        if variant not in VARIANTS:
            problems.append(
                Violation("malformed", None, "params.variant", f"must be one of {VARIANTS}")
            )
        if problems:
            raise SpecError(problems)
        out = self.game_params({k: v for k, v in params.items() if k != "variant"})
        if variant != "win":
            out["variant"] = variant
        return out

    def game(self, params: Mapping[str, Any]) -> Game:
        norm = self.normalize_params(params)
        return _cached_game(self, tuple(sorted((k, v) for k, v in norm.items() if k != "variant")))

    def fastest(self, params: Mapping[str, Any]) -> bool:
        return params.get("variant", "win") == "fastest"

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        game = self.game(params)
        variables = tuple(game.variables())
        names = [v.name for v in variables]
        coords = tuple(v.coord for v in variables)
        rules: list[Constraint] = []
        # at most one move: pairwise, so that a randomized search prunes at once
        for i, a in enumerate(variables):
            for b in variables[i + 1 :]:
                allowed = frozenset((x, y) for x in a.domain for y in b.domain if x == 0 or y == 0)
                rules.append(
                    Table(
                        (a.name, b.name),
                        allowed,
                        Origin("rule", f"one-move:{a.name}:{b.name}", (a.coord, b.coord)),
                    )
                )
        rules.append(
            Linear(tuple(names), (1,) * len(names), ">=", 1, Origin("rule", "a-move", coords))
        )
        return Schema(
            self.name, tuple(sorted(params.items())), variables, tuple(rules), self.clue_kinds
        )

    def schema_id(self, params: Mapping[str, Any]) -> str:
        base = self.game_id(params)
        return base + ("-fastest" if self.fastest(params) else "")

    def game_id(self, params: Mapping[str, Any]) -> str:
        return self.name

    # -- clues ------------------------------------------------------------------------------
    def state_of(self, schema: Schema, clue: Clue) -> State:
        """The position of a ``position`` clue; SpecError with violations when it is unusable."""
        where = f"clue {clue.id}"
        if clue.kind != "position":
            raise SpecError(
                [Violation("malformed", None, where, f"unknown clue kind {clue.kind!r}")]
            )
        game = self.game(schema.params_dict())
        outside = [c for c in clue.coords if not schema.has_coord(c)]
        if outside:
            raise SpecError(
                [
                    Violation("shape-mismatch", c, where, f"{list(c)} is not a move coordinate")
                    for c in outside
                ]
            )
        state = game.state_from_data(clue.data_dict(), where)
        expected = [tuple(c) for c in game.position_coords(state)]
        if sorted(expected) != sorted(tuple(c) for c in clue.coords):
            raise SpecError(
                [
                    Violation(
                        "shape-mismatch",
                        None,
                        where,
                        "coords must list the occupied coordinates of the position: "
                        f"{[list(c) for c in expected]}",
                    )
                ]
            )
        return state

    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        state = self.state_of(schema, clue)
        params = schema.params_dict()
        game = self.game(params)
        fastest = self.fastest(params)
        origin = Origin("clue", clue.id, clue.coords)
        allowed: dict[Coord, set[int]] = {v.coord: {0} for v in schema.variables}
        for m in game.legal_moves(state):
            allowed[tuple(game.move_coord(state, m))].add(game.move_value(state, m))
        out: list[Constraint] = []
        for v in schema.variables:
            out.append(Table((v.name,), frozenset((x,) for x in allowed[v.coord]), origin))
        names = tuple(v.name for v in schema.variables)
        coords = tuple(v.coord for v in schema.variables)
        if not game.is_terminal(state) and all(len(a) <= 2 for a in allowed.values()):
            # boards: every move writes the mover's piece, so "one move" is an exact sum
            out.append(Linear(names, (1,) * len(names), "==", game.to_move(state), origin))

        def wins(*values: int) -> bool:
            played = [(coords[i], x) for i, x in enumerate(values) if x]
            if len(played) != 1:
                return False
            move = game.move_at(state, played[0][0], played[0][1])
            return move is not None and move in winning_moves(game, state, fastest)

        out.append(Predicate(names, wins, origin))
        return tuple(out)

    def validate_clues(self, schema: Schema, clues: Sequence[Clue]) -> list[Violation]:
        out = super().validate_clues(schema, clues)
        positions = [c for c in clues if c.kind == "position"]
        if len(positions) != 1 and not out:
            out.append(
                Violation(
                    "malformed" if positions else "shape-mismatch",
                    None,
                    "clues",
                    f"an only-winning-move instance has exactly one position clue, not "
                    f"{len(positions)}",
                )
            )
        return out

    def position_clue(self, game: Game, state: State) -> Clue:
        return Clue.make(
            "position", "position", game.position_data(state), game.position_coords(state)
        )

    def instance_of(self, params: Mapping[str, Any], state: State) -> Instance:
        norm = self.normalize_params(params)
        return Instance.make(self.name, norm, [self.position_clue(self.game(norm), state)])

    def position_of(self, problem: Problem) -> State:
        """The position of a resolved instance."""
        clue = next(c for c in problem.clues if c.kind == "position")
        return self.state_of(problem.schema, clue)

    def solution_of(self, schema: Schema, game: Game, state: State, move: Move) -> dict[str, int]:
        """A move written as an assignment of the schema's variables."""
        coord = tuple(game.move_coord(state, move))
        value = game.move_value(state, move)
        return {v.name: (value if v.coord == coord else 0) for v in schema.variables}

    def move_of(self, schema: Schema, game: Game, state: State, solution: Solution) -> Move | None:
        """The legal move a solution assignment writes, or None."""
        played = [(v.coord, solution[v.name]) for v in schema.variables if solution.get(v.name)]
        if len(played) != 1:
            return None
        return game.move_at(state, played[0][0], played[0][1])

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        """A position whose only winning move is ``solution`` (searched with a seed derived from
        the move, so the same solution gives the same position in any process)."""
        seed = [solution[n] for n in schema.names]
        rng = np.random.default_rng(seed)
        found = self._position_for(schema, solution, rng, unique=True)
        if found is None:
            found = self._position_for(schema, solution, rng, unique=False)
        if found is None:
            return []
        game = self.game(schema.params_dict())
        return [self.position_clue(game, found)]

    # -- generation hooks ---------------------------------------------------------------------
    def _targets_ok(self, game: Game, state: State) -> bool:
        return not game.is_terminal(state) and len(game.legal_moves(state)) <= self.max_moves_left

    def sample_solution(self, schema: Schema, rng: Any) -> Solution | None:
        """A winning move of a random position reached by a random playout."""
        params = schema.params_dict()
        game = self.game(params)
        fastest = self.fastest(params)
        for _ in range(PLAYOUTS):
            state = self._playout(game, rng)
            if state is None:
                continue
            wins = winning_moves(game, state, fastest)
            if wins:
                move = wins[int(rng.integers(len(wins)))]
                return self.solution_of(schema, game, state, move)
        raise RuntimeError(f"{self.name}: no position with a winning move in {PLAYOUTS} playouts")

    def _playout(self, game: Game, rng: Any, avoid: Coord | None = None) -> State | None:
        """A random legal non-terminal position with few moves left (not playing at ``avoid``)."""
        state = game.initial()
        path = [state]
        while not game.is_terminal(state):
            moves = [
                m for m in game.legal_moves(state) if tuple(game.move_coord(state, m)) != avoid
            ]
            if not moves:
                break
            state = game.play(state, moves[int(rng.integers(len(moves)))])
            path.append(state)
        ok = [s for s in path if self._targets_ok(game, s)]
        return ok[int(rng.integers(len(ok)))] if ok else None

    def _position_for(
        self, schema: Schema, solution: Solution, rng: Any, *, unique: bool
    ) -> State | None:
        params = schema.params_dict()
        game = self.game(params)
        fastest = self.fastest(params)
        target = [(v.coord, solution[v.name]) for v in schema.variables if solution.get(v.name)]
        if len(target) != 1:
            return None
        coord, value = target[0]
        for _ in range(PLAYOUTS):
            state = game.initial()
            candidates = []
            while not game.is_terminal(state):
                if self._targets_ok(game, state):
                    m = game.move_at(state, coord, value)
                    if m is not None:
                        candidates.append(state)
                moves = [
                    m for m in game.legal_moves(state) if tuple(game.move_coord(state, m)) != coord
                ]
                if not moves:
                    break
                state = game.play(state, moves[int(rng.integers(len(moves)))])
            for state in candidates[::-1]:
                m = game.move_at(state, coord, value)
                wins = winning_moves(game, state, fastest)
                if (wins == [m]) if unique else (m in wins):
                    return state
        return None

    def initial_clues(self, schema: Schema, solution: Solution, k: int, rng: Any) -> list[Clue]:
        """A random position in which ``solution`` wins (other moves may win too: the loop's
        verifier reports them, and the adaptive strategy repairs them away). ``k`` is unused."""
        state = self._position_for(schema, solution, rng, unique=False)
        if state is None:
            return []
        return [self.position_clue(self.game(schema.params_dict()), state)]

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        """Edits of the position that keep ``solution`` winning, stop the winning move at
        ``coord`` from winning and leave fewer winning moves than before (so repairs never
        cycle), keeping the position legal (see the game's ``alternatives``)."""
        params = schema.params_dict()
        game = self.game(params)
        fastest = self.fastest(params)
        clue = next((c for c in instance.clues if c.kind == "position"), None)
        if clue is None:
            return []
        try:
            state = self.state_of(schema, clue)
        except SpecError:
            return []
        mine = self.move_of(schema, game, state, solution)
        if mine is None or tuple(game.move_coord(state, mine)) == tuple(coord):
            return []
        before = len(winning_moves(game, state, fastest))
        out = []
        for action, new in game.alternatives(state, tuple(coord), mine):
            # stay where the generator draws positions (few moves left: the holdout can follow)
            if game.violations(new) or not self._targets_ok(game, new):
                continue
            m = game.move_at(new, game.move_coord(state, mine), game.move_value(state, mine))
            if m is None:
                continue
            wins = winning_moves(game, new, fastest)
            # progress: fewer winning moves than before, so repairs never cycle
            if m not in wins or len(wins) >= before:
                continue
            if any(tuple(game.move_coord(new, w)) == tuple(coord) for w in wins):
                continue
            out.append(
                Repair(
                    action, tuple(coord), add=(self.position_clue(game, new),), remove=(clue.id,)
                )
            )
            if len(out) >= 6:
                break
        return out

    # -- golden cases -----------------------------------------------------------------------
    def golden_instances(
        self, params: Mapping[str, Any], *, seed: int = 0
    ) -> dict[str, tuple[str, Instance, int]]:
        """The regression cases of a schema (the names of
        :data:`puzzlekit.quality.golden.CASES`), each as (note, instance, solution cap), from
        seeded random playouts. ``puzzlekit.quality.golden``
        builds corpora by dropping clues; a position is one clue, so game corpora come from here.
        """
        norm = self.normalize_params(params)
        schema = self.schema(norm)
        game = self.game(norm)
        fastest = self.fastest(norm)
        rng = np.random.default_rng([seed, 11])
        found: dict[str, State] = {}
        for _ in range(20 * PLAYOUTS):
            state = self._playout(game, rng)
            if state is None:
                continue
            n = len(winning_moves(game, state, fastest))
            case = {0: "unsolvable", 1: "unique"}.get(n, "multiple" if n < 8 else "capped")
            if case == "multiple" and "multiple" in found:
                case = "multiple-capped"
            found.setdefault(case, state)
            if {"unique", "multiple", "multiple-capped", "unsolvable"} <= set(found):
                break
        missing = {"unique", "multiple", "multiple-capped", "unsolvable"} - set(found)
        if missing:
            raise RuntimeError(f"{self.name} {norm}: no playout gave {sorted(missing)}")
        out: dict[str, tuple[str, Instance, int]] = {}
        for case, note, cap in (
            ("unique", "a position with one winning move", 8),
            ("multiple", "a position with several winning moves", 8),
            ("multiple-capped", "several winning moves, capped at two", 2),
            ("unsolvable", "a position with no winning move", 8),
        ):
            out[case] = (note, self.instance_of(norm, found[case]), cap)
        clue = self.position_clue(game, found["unique"])
        top = max(v.coord[0] for v in schema.variables)
        coords = [list(c) for c in clue.coords]
        coords[0] = [top + 1, *coords[0][1:]]
        moved = Clue.make(clue.id, clue.kind, clue.data_dict(), coords)
        out["invalid-outside"] = (
            f"the position's first coordinate moved to {coords[0]}, outside the board",
            Instance.make(self.name, norm, [moved]),
            8,
        )
        data = clue.data_dict()
        if "heaps" in data:
            data["heaps"] = [*data["heaps"][:-1], norm["max"] + 1]
            note = "a heap larger than the params allow"
        else:
            data["rows"] = "z" + data["rows"][1:]
            note = "a piece that is neither x nor o"
        bad = Clue.make(clue.id, clue.kind, data, clue.coords)
        out["invalid-value"] = (note, Instance.make(self.name, norm, [bad]), 8)
        out["invalid-duplicate"] = (
            "the position clue twice",
            Instance.make(self.name, norm, [clue, clue]),
            8,
        )
        return out

    # -- text -------------------------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        """A position as text (see the game's ``parse``): ``x.o/.x./... [x|o]``, Nim ``3,4,5``."""
        parts = text.strip().split()
        if not parts or len(parts) > 2:
            raise SpecError(
                [Violation("malformed", None, "text", "expected a position and an optional side")]
            )
        merged = dict(self.params_from_text(parts[0], params or {}))
        game = self.game(merged)
        state = game.parse(parts[0], parts[1] if len(parts) == 2 else None)
        return self.instance_of(merged, state)

    def params_from_text(self, text: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Params of a position written as text (given ``params`` win)."""
        return dict(params)

    def format_text(self, instance: Instance) -> str:
        schema = self.schema(instance.params_dict())
        clue = next(c for c in instance.clues if c.kind == "position")
        game = self.game(schema.params_dict())
        state = self.state_of(schema, clue)
        return game.format(state)

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """The board, one row per line (Nim: the heaps); ``marks`` replace the marked cells."""
        try:
            text = self.format_text(instance).split()[0]
        except (SpecError, StopIteration):
            return instance.to_json()
        if "/" not in text:
            return text
        rows = [list(r) for r in text.split("/")]
        for coord, mark in (marks or {}).items():
            if len(coord) == 2 and 0 <= coord[0] < len(rows) and 0 <= coord[1] < len(rows[0]):
                rows[coord[0]][coord[1]] = mark[:1]
        return "\n".join("".join(r) for r in rows)


@functools.lru_cache(maxsize=64)
def _cached_game(family: OnlyWinningMove, frozen: tuple) -> Game:
    return family.make_game(dict(frozen))


def int_param(
    params: Mapping[str, Any], key: str, default: int | None, lo: int, hi: int
) -> tuple[int | None, list[Violation]]:
    """An integer param in ``lo..hi`` (``default`` when absent), with the violation if not."""
    value = params.get(key, default)
    if value is None:
        return None, [Violation("malformed", None, f"params.{key}", "missing required param")]
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        return None, [
            Violation(
                "malformed", None, f"params.{key}", f"must be an integer {lo}..{hi}: {value!r}"
            )
        ]
    return value, []


__all__ = [
    "DRAW",
    "LOSS",
    "RESULT_NAMES",
    "WIN",
    "Game",
    "GameInfo",
    "Move",
    "OnlyWinningMove",
    "State",
    "int_param",
    "move_values",
    "winning_moves",
]

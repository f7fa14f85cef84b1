"""``owm`` is "only winning move": the family that makes a position of a game
(:class:`~puzzlekit.core.protocols.Game`) a puzzle whose one solution is the only winning move.

Re-exported by :mod:`puzzlekit.families.games`, where each game registers one
:class:`OnlyWinningMove`. Not for the games themselves or their oracle (``games._game``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from puzzlekit.core import protocols
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
    Violation,
)
from puzzlekit.families.games._game import Move, PuzzleGame, State, move_values, winning_moves

VARIANTS = ("win", "fastest")
#: params of the puzzle rather than of the game: ``variant``, and ``distance`` (generation draws
#: positions whose intended winning move wins in exactly that many plies: a difficulty axis)
PUZZLE_KEYS = ("variant", "distance")
#: random playouts tried by the generation hooks before giving up on one target
PLAYOUTS = 400


class OnlyWinningMove(protocols.Family):
    """ "Find the only winning move" for one game (see the module docstring)."""

    game_keys: tuple[str, ...] = ()
    #: generation: positions have at most this many legal moves left (keeps the holdout feasible)
    max_moves_left = 9

    # -- params -----------------------------------------------------------------------------
    def make_game(self, params: Mapping[str, Any]) -> PuzzleGame:
        raise NotImplementedError

    def game_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Check and complete the game's own params; SpecError otherwise."""
        raise NotImplementedError

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        known = {*self.game_keys, *PUZZLE_KEYS}
        problems = [
            Violation("unknown-field", None, f"params.{k}", f"{self.info.name} has no param {k!r}")
            for k in sorted(set(params) - known)
        ]
        variant = params.get("variant", "win")
        if variant not in VARIANTS:
            problems.append(
                Violation("malformed", None, "params.variant", f"must be one of {VARIANTS}")
            )
        distance = params.get("distance")
        if distance is not None and (
            type(distance) is not int or not 3 <= distance <= 99 or distance % 2 == 0
        ):
            problems.append(
                Violation(
                    "malformed", None, "params.distance", "must be an odd number of plies 3..99"
                )
            )
        if problems:
            raise SpecError(problems)
        out = self.game_params({k: v for k, v in params.items() if k not in PUZZLE_KEYS})
        if variant != "win":
            out["variant"] = variant
        if distance is not None:
            out["distance"] = distance
        return out

    def game(self, params: Mapping[str, Any]) -> PuzzleGame:
        norm = self.normalize_params(params)
        game_only = tuple(sorted((k, v) for k, v in norm.items() if k not in PUZZLE_KEYS))
        return _cached_game(self, game_only)

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
        key = tuple(sorted(params.items()))
        return Schema(self.info.name, key, variables, tuple(rules), self.info.clue_kinds)

    def schema_id(self, params: Mapping[str, Any]) -> str:
        base = self.game_id(params)
        d = params.get("distance")
        return base + ("-fastest" if self.fastest(params) else "") + (f"-d{d}" if d else "")

    def at_distance(
        self, game: PuzzleGame, state: State, move: Move, params: Mapping[str, Any]
    ) -> bool:
        """Whether ``move`` wins in the params' ``distance`` plies (True when none is named)."""
        d = params.get("distance")
        return d is None or any(
            m == move and r > 0 and n == d for m, r, n in move_values(game, state)
        )

    def game_id(self, params: Mapping[str, Any]) -> str:
        return self.info.name

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
        for m in game.legal_actions(state):
            allowed[tuple(game.move_coord(state, m))].add(game.move_value(state, m))
        out: list[Constraint] = []
        for v in schema.variables:
            out.append(Table((v.name,), frozenset((x,) for x in allowed[v.coord]), origin))
        names = tuple(v.name for v in schema.variables)
        coords = tuple(v.coord for v in schema.variables)
        if not game.is_terminal(state) and all(len(a) <= 2 for a in allowed.values()):
            # boards: every move writes the mover's piece, so "one move" is an exact sum
            out.append(Linear(names, (1,) * len(names), "==", game.current_player(state), origin))

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

    def position_clue(self, game: PuzzleGame, state: State) -> Clue:
        return Clue.make(
            "position", "position", game.position_data(state), game.position_coords(state)
        )

    def instance_of(self, params: Mapping[str, Any], state: State) -> Instance:
        norm = self.normalize_params(params)
        return Instance.make(self.info.name, norm, [self.position_clue(self.game(norm), state)])

    def position_of(self, problem: Problem) -> State:
        """The position of a resolved instance."""
        clue = next(c for c in problem.clues if c.kind == "position")
        return self.state_of(problem.schema, clue)

    def solution_of(
        self, schema: Schema, game: PuzzleGame, state: State, move: Move
    ) -> dict[str, int]:
        """A move written as an assignment of the schema's variables."""
        coord = tuple(game.move_coord(state, move))
        value = game.move_value(state, move)
        return {v.name: (value if v.coord == coord else 0) for v in schema.variables}

    def move_of(
        self, schema: Schema, game: PuzzleGame, state: State, solution: Solution
    ) -> Move | None:
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
    def _targets_ok(self, game: PuzzleGame, state: State) -> bool:
        return not game.is_terminal(state) and len(game.legal_actions(state)) <= self.max_moves_left

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
            wins = [m for m in wins if self.at_distance(game, state, m, params)]
            if wins:
                move = wins[int(rng.integers(len(wins)))]
                return self.solution_of(schema, game, state, move)
        raise RuntimeError(
            f"{self.info.name}: no position with a winning move in {PLAYOUTS} playouts"
        )

    def _pick(self, game: PuzzleGame, state: State, moves: list[Move], rng: Any) -> Move:
        """The next move of a random playout (uniform over ``moves``)."""
        return moves[int(rng.integers(len(moves)))]

    def _playout(self, game: PuzzleGame, rng: Any, avoid: Coord | None = None) -> State | None:
        """A random legal non-terminal position with few moves left (not playing at ``avoid``)."""
        state = game.initial()
        path = [state]
        while not game.is_terminal(state):
            moves = [
                m for m in game.legal_actions(state) if tuple(game.move_coord(state, m)) != avoid
            ]
            if not moves:
                break
            state = game.apply_action(state, self._pick(game, state, moves, rng))
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
                    m
                    for m in game.legal_actions(state)
                    if tuple(game.move_coord(state, m)) != coord
                ]
                if not moves:
                    break
                state = game.apply_action(state, self._pick(game, state, moves, rng))
            for state in candidates[::-1]:
                m = game.move_at(state, coord, value)
                wins = winning_moves(game, state, fastest)
                if ((wins == [m]) if unique else (m in wins)) and self.at_distance(
                    game, state, m, params
                ):
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
    ) -> list[protocols.Repair]:
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
            if m not in wins or len(wins) >= before or not self.at_distance(game, new, m, params):
                continue
            if any(tuple(game.move_coord(new, w)) == tuple(coord) for w in wins):
                continue
            out.append(
                protocols.Repair(
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
        :data:`puzzlekit.quality.golden.corpus.CASES`), each as (note, instance, solution cap), from
        seeded random playouts. ``puzzlekit.quality.golden.corpus``
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
            raise RuntimeError(f"{self.info.name} {norm}: no playout gave {sorted(missing)}")
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
            Instance.make(self.info.name, norm, [moved]),
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
        out["invalid-value"] = (note, Instance.make(self.info.name, norm, [bad]), 8)
        out["invalid-duplicate"] = (
            "the position clue twice",
            Instance.make(self.info.name, norm, [clue, clue]),
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
        positions = [c for c in instance.clues if c.kind == "position"]
        if len(positions) != 1:  # as validate_clues says it, not a StopIteration
            raise SpecError(self.validate_clues(schema, instance.clues))
        clue = positions[0]
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
def _cached_game(family: OnlyWinningMove, frozen: tuple) -> PuzzleGame:
    return family.make_game(dict(frozen))

"""Exact game verifiers: ``gametree`` (a game's compiled solver where it has one, Connect Four
7×6; otherwise negamax, alpha-beta and a transposition table), ``alphabeta`` (that general
search alone: the holdout of ``gametree`` on Connect Four 7×6) and ``minimax`` (plain minimax,
no pruning, no table: the independent holdout for small positions).

Every search has a budget (the verifiers: the caller's, else ``SearchBudget()``;
:func:`game_verdict`: :data:`GAME_BUDGET`) and a bounded table (the alpha-beta table starts
afresh past :data:`TABLE_ENTRIES`; the compiled solver's table has a fixed size); when the
budget runs out the report is UNDECIDED with the nodes and seconds spent.

:func:`game_verdict` answers for any game of :mod:`puzzlekit.families.games`: the value of the
position for the side to move (WIN, LOSS or DRAW under perfect play), the distance to the end
(plies; the winner hurries, the loser delays; a drawn game ends when no move is left) and the
value and distance of every legal move. The verifiers turn that into the report of an
only-winning-move instance: UNIQUE when exactly one move wins (with ``variant = "fastest"``:
wins fastest), MULTIPLE with every winning move in ``discriminativeGap`` by move coordinate
(fastest first; each move's distance is in ``stats.moves``), UNSOLVABLE with a
``verdictDistribution`` over the moves. Illegal positions are INVALID_SPEC, as the family says.

Scores: a win for the side to move scores ``MATE - plies from the root to the end``, a loss
the negative, a draw 0; table entries store scores relative to their node and are shifted by
the ply on the way in and out, so a transposition reached at another depth reads correctly.

Not for: families other than the only-winning-move ones (``verify`` raises
``NotImplementedError``, which callers treat as the backend declining), nor positions beyond
exhaustive search (a budget turns those into UNDECIDED).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import Instance, Problem, SpecError
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import (
    BudgetSpent,
    Conflict,
    GapItem,
    RejectDetail,
    Verdict,
    VerifierReport,
)
from puzzlekit.families import get_family
from puzzlekit.families.games import Move, OnlyWinningMove, PuzzleGame, State, Unfinished
from puzzlekit.verifiers.base import (
    DEFAULT_CAP,
    BudgetExceeded,
    Meter,
    conflict_clue,
    invalid_report,
    report,
    source,
    try_resolve,
)

VERSION = "1.0"
MATE = 1_000_000
EXACT, LOWER, UPPER = 0, 1, 2

HONEST = {
    Verdict.UNIQUE: "Exactly one legal move wins under perfect play (exact game-tree search); "
    "nothing is claimed about how hard the move is to find.",
    Verdict.MULTIPLE: "Several legal moves win under perfect play; the gap lists every one of "
    "them, the solutions only up to the cap.",
    Verdict.UNSOLVABLE: "No legal move wins under perfect play; the distribution counts the "
    "moves that draw and lose.",
}


@dataclass(frozen=True)
class MoveValue:
    """One legal move: where, its result for the mover and plies to the end under perfect play."""

    move: Move
    coord: tuple
    name: str
    value: int  # the move's variable value in a solution
    result: str  # WIN, DRAW or LOSS
    distance: int
    label: str = ""  # how a player writes the move (Nim: ``h2-3``, take 3 from heap 2)


@dataclass(frozen=True)
class GameVerdict:
    """The value of a position for the side to move, with every move's value."""

    result: str
    distance: int
    to_move: int
    moves: tuple[MoveValue, ...]
    nodes: int

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "value": self.result,
            "distance": self.distance,
            "toMove": self.to_move,
            "moves": [
                {
                    "fieldName": m.name,
                    "coord": list(m.coord),
                    "move": m.label,
                    "moveValue": m.value,
                    "value": m.result,
                    "distance": m.distance,
                }
                for m in self.moves
            ],
            "nodes": self.nodes,
        }


# --- alpha-beta with a transposition table -----------------------------------------------------


#: the alpha-beta table's size bound (entries; it starts afresh when full): the memory bound
TABLE_ENTRIES = 1 << 18
#: the budget of :func:`game_verdict` when none is given
GAME_BUDGET = SearchBudget(nodes=None, seconds=120.0)
#: what ``solver`` may name: ``auto`` is the game's compiled solver where it has one (Connect
#: Four 7×6), else ``alphabeta``; ``compiled`` insists on the compiled solver
SOLVER_NAMES = ("auto", "compiled", "alphabeta", "minimax")


class GameBudgetExceeded(BudgetExceeded):
    """A game search ran out of its budget, with the nodes and seconds it spent."""

    def __init__(self, resource: str, limit: float, nodes: int, seconds: float) -> None:
        super().__init__(resource, limit)
        self.nodes = nodes
        self.seconds = seconds


class _AlphaBeta:
    def __init__(self, game: PuzzleGame, meter: Meter) -> None:
        self.game = game
        self.meter = meter
        self.table: dict[Any, tuple[int, int]] = {}

    def terminal_score(self, state: State, ply: int) -> int:
        mine = self.game.returns(state)[self.game.current_player(state) - 1]
        if mine == 0:
            return 0
        return MATE - ply if mine > 0 else -(MATE - ply)

    def search(self, state: State, ply: int, alpha: int, beta: int) -> int:
        self.meter.tick()
        game = self.game
        if game.is_terminal(state):
            return self.terminal_score(state, ply)
        key = game.key(state)
        hit = self.table.get(key)
        if hit is not None:
            flag, rel = hit
            score = _from_rel(rel, ply)
            if flag == EXACT:
                return score
            if flag == LOWER and score >= beta:
                return score
            if flag == UPPER and score <= alpha:
                return score
        alpha0 = alpha
        best = -MATE - 1
        for m in game.legal_actions(state):
            score = -self.search(game.apply_action(state, m), ply + 1, -beta, -alpha)
            if score > best:
                best = score
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        if len(self.table) >= TABLE_ENTRIES:
            self.table.clear()
        self.table[key] = (flag, _to_rel(best, ply))
        return best


def _to_rel(score: int, ply: int) -> int:
    if score > MATE // 2:
        return score + ply
    if score < -MATE // 2:
        return score - ply
    return score


def _from_rel(score: int, ply: int) -> int:
    if score > MATE // 2:
        return score - ply
    if score < -MATE // 2:
        return score + ply
    return score


def _alphabeta_move_scores(game: PuzzleGame, state: State, meter: Meter) -> list[tuple[Move, int]]:
    ab = _AlphaBeta(game, meter)
    out = []
    for m in game.legal_actions(state):
        out.append((m, -ab.search(game.apply_action(state, m), 1, -MATE - 1, MATE + 1)))
    return out


# --- plain minimax ----------------------------------------------------------------------------


def _minimax(game: PuzzleGame, state: State, ply: int, meter: Meter) -> int:
    meter.tick()
    if game.is_terminal(state):
        mine = game.returns(state)[game.current_player(state) - 1]
        if mine == 0:
            return 0
        return MATE - ply if mine > 0 else -(MATE - ply)
    return max(
        -_minimax(game, game.apply_action(state, m), ply + 1, meter)
        for m in game.legal_actions(state)
    )


def _minimax_move_scores(game: PuzzleGame, state: State, meter: Meter) -> list[tuple[Move, int]]:
    return [
        (m, -_minimax(game, game.apply_action(state, m), 1, meter))
        for m in game.legal_actions(state)
    ]


SOLVERS: dict[str, Callable[[PuzzleGame, State, Meter], list[tuple[Move, int]]]] = {
    "alphabeta": _alphabeta_move_scores,
    "minimax": _minimax_move_scores,
}


def _result(score: int, game: PuzzleGame, after: State) -> tuple[str, int]:
    if score == 0:
        return "DRAW", 1 + game.plies_left(after)
    return ("WIN" if score > 0 else "LOSS"), MATE - abs(score)


def _scored_moves(
    game: PuzzleGame, position: State, solver: str, budget: SearchBudget
) -> tuple[list[tuple[Move, str, int]], int]:
    """Every legal move's result and distance by ``solver``, and the nodes searched."""
    if solver not in SOLVER_NAMES:
        raise ValueError(f"solver must be one of {SOLVER_NAMES}, not {solver!r}")
    if solver in ("auto", "compiled"):
        try:
            fast = game.solve_moves(position, budget)
        except Unfinished as exc:
            raise GameBudgetExceeded(exc.resource, exc.limit, exc.nodes, exc.seconds) from None
        if fast is not None:
            names = {1: "WIN", 0: "DRAW", -1: "LOSS"}
            return [(m, names[r], d) for m, r, d in fast[0]], fast[1]
        if solver == "compiled":
            raise ValueError(f"{game!r} has no compiled solver: use alphabeta")
        solver = "alphabeta"
    meter = Meter(budget)
    try:
        scores = SOLVERS[solver](game, position, meter)
    except BudgetExceeded as exc:
        raise GameBudgetExceeded(exc.resource, exc.limit, meter.nodes, meter.seconds) from None
    out = []
    for m, score in scores:
        out.append((m, *_result(score, game, game.apply_action(position, m))))
    return out, meter.nodes


def game_verdict(
    game: PuzzleGame,
    position: State,
    *,
    solver: str = "auto",
    budget: SearchBudget | None = None,
) -> GameVerdict:
    """The value of ``position`` for the side to move and of each legal move (see the module
    docstring). ``solver`` is one of :data:`SOLVER_NAMES`; ``budget`` defaults to
    :data:`GAME_BUDGET`. Raises :class:`GameBudgetExceeded` (a BudgetExceeded with what was
    spent) when the budget runs out."""
    to_move = game.current_player(position)
    if game.is_terminal(position):
        mine = game.returns(position)[to_move - 1]
        result = "DRAW" if mine == 0 else ("WIN" if mine > 0 else "LOSS")
        return GameVerdict(result, 0, to_move, (), 0)
    scored, nodes = _scored_moves(game, position, solver, budget or GAME_BUDGET)
    moves = []
    for m, result, distance in scored:
        moves.append(
            MoveValue(
                m,
                tuple(game.move_coord(position, m)),
                game.move_name(position, m),
                game.move_value(position, m),
                result,
                distance,
                game.move_label(position, m),
            )
        )
    best = max(moves, key=_rank)
    return GameVerdict(best.result, best.distance, to_move, tuple(moves), nodes)


def _rank(m: MoveValue) -> tuple[int, int]:
    r = {"WIN": 1, "DRAW": 0, "LOSS": -1}[m.result]
    return (r, -m.distance if r > 0 else m.distance)


# --- the verifiers ----------------------------------------------------------------------------


class GameTreeVerifier(protocols.Verifier):
    """Exact verdicts of only-winning-move instances by game-tree search."""

    name = "gametree"
    version = VERSION
    exact = True
    holdout_name = "minimax"
    solver = "auto"

    def accepts(self, instance: Instance) -> bool:
        """Instances of the only-winning-move game families (``owm-*``) only."""
        try:
            return isinstance(get_family(instance.family), OnlyWinningMove)
        except SpecError:
            return False

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        if solution_cap < 2:
            raise ValueError("solution_cap must be at least 2: uniqueness needs a second solution")
        src = source(self.name, self.version)
        try:
            family = get_family(instance.family)
        except SpecError as exc:
            return invalid_report(instance, exc.violations, src, solution_cap)
        if not isinstance(family, OnlyWinningMove):
            raise NotImplementedError(
                f"{self.name} verifies game families (owm-*) only, not {instance.family}"
            )
        resolved = try_resolve(instance)
        if not isinstance(resolved, Problem):
            return invalid_report(instance, resolved, src, solution_cap)
        return game_report(family, resolved, src, solution_cap, budget, self.solver)


class MinimaxVerifier(GameTreeVerifier):
    """Plain minimax (no pruning, no table): the independent holdout, for small positions."""

    name = "minimax"
    holdout_name = "gametree"
    solver = "minimax"


class AlphaBetaVerifier(GameTreeVerifier):
    """The general alpha-beta search over the game protocol, never a compiled solver: the
    independent holdout of ``gametree`` on Connect Four 7×6 (late positions)."""

    name = "alphabeta"
    holdout_name = "gametree"
    solver = "alphabeta"


def game_report(
    family: OnlyWinningMove,
    problem: Problem,
    src: dict[str, str],
    cap: int,
    budget: SearchBudget | None,
    solver: str,
) -> VerifierReport:
    """The report of a resolved only-winning-move instance (see the module docstring)."""
    schema = problem.schema
    params = schema.params_dict()
    game = family.game(params)
    state = family.position_of(problem)
    budget = budget or SearchBudget()
    meter = Meter(budget)
    try:
        verdict = game_verdict(game, state, solver=solver, budget=budget)
    except GameBudgetExceeded as exc:
        return _undecided(problem, src, cap, exc)
    wins = [m for m in verdict.moves if m.result == "WIN"]
    if family.fastest(params) and wins:
        fastest = min(m.distance for m in wins)
        wins = [m for m in wins if m.distance == fastest]
    order = {v.coord: i for i, v in enumerate(schema.variables)}
    wins.sort(key=lambda m: (m.distance, order.get(m.coord, len(order))))
    in_order = sorted(wins, key=lambda m: order.get(m.coord, len(order)))
    solutions = [family.solution_of(schema, game, state, m.move) for m in in_order[:cap]]
    n_moves = len(verdict.moves)
    cart = (n_moves, round(math.log10(n_moves), 6) if n_moves else None)
    distribution = {
        r: sum(1 for m in verdict.moves if m.result == r) for r in ("WIN", "DRAW", "LOSS")
    }
    stats = {
        "nodes": verdict.nodes,
        "seconds": round(meter.seconds, 6),
        **verdict.to_json_obj(),
        "winningMoves": len(wins),
    }
    stats.pop("nodes", None)
    stats["nodes"] = verdict.nodes
    common = dict(
        cap=cap,
        completions=n_moves,
        cart=cart,
        diagnostics=_diagnostics(game, verdict, wins),
        stats=stats,
    )
    if len(wins) == 1:
        rep = report(Verdict.UNIQUE, problem.instance, src, solutions=solutions, **common)
    elif wins:
        power = round(2 / len(wins), 6)
        gap = tuple(GapItem(m.coord, m.name, (0, m.value), power) for m in wins)
        detail = RejectDetail(
            Verdict.MULTIPLE, discriminative_gap=gap, verdict_distribution=distribution
        )
        rep = report(
            Verdict.MULTIPLE,
            problem.instance,
            src,
            solutions=solutions,
            lower_bound=len(wins) >= cap,
            detail=detail,
            **common,
        )
    else:
        clue = next(c for c in problem.clues if c.kind == "position")
        conflict = Conflict((conflict_clue(problem, clue.id),), (), True)
        detail = RejectDetail(
            Verdict.UNSOLVABLE, conflict=conflict, verdict_distribution=distribution
        )
        rep = report(Verdict.UNSOLVABLE, problem.instance, src, detail=detail, **common)
    return replace(rep, honest_scope=HONEST[rep.verdict])


def _undecided(
    problem: Problem, src: dict[str, str], cap: int, exc: GameBudgetExceeded
) -> VerifierReport:
    """UNDECIDED: the game-tree search ran out of its budget, with what it spent."""
    seconds = round(exc.seconds, 6)
    detail = RejectDetail(
        Verdict.UNDECIDED,
        budget=BudgetSpent(exc.resource, exc.limit, exc.nodes, seconds, 0),
    )
    return report(
        Verdict.UNDECIDED,
        problem.instance,
        src,
        cap=cap,
        lower_bound=True,
        detail=detail,
        diagnostics=[f"{exc.resource} budget of {exc.limit} ran out"],
        stats={"nodes": exc.nodes, "seconds": seconds},
    )


def _diagnostics(game: PuzzleGame, verdict: GameVerdict, wins: list[MoveValue]) -> list[str]:
    """The position's value for the side to move, then the winning moves with their distance."""
    side = game.side_name(verdict.to_move)
    head = f"{side} to move: {verdict.result}"
    if verdict.result != "DRAW" and verdict.moves:
        head += f" in {verdict.distance} plies"
    diagnostics = [head]
    if wins:
        diagnostics.append("winning moves: " + ", ".join(f"{m.label} ({m.distance})" for m in wins))
    return diagnostics


__all__ = [
    "GAME_BUDGET",
    "SOLVER_NAMES",
    "AlphaBetaVerifier",
    "GameBudgetExceeded",
    "GameTreeVerifier",
    "GameVerdict",
    "MinimaxVerifier",
    "MoveValue",
    "game_report",
    "game_verdict",
]

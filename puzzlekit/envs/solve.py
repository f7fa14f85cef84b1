"""``SolveEnv`` (``puzzlekit/Solve-v0``): the agent solves a puzzle, one placement at a time.

At :meth:`~SolveEnv.reset` the environment takes a puzzle: from ``options={"instance": ...}``,
else one of ``puzzles`` drawn with the episode's generator, else one made by the closed loop
(:func:`puzzlekit.loop.batch.generate`, the filter's UNIQUE; the loop seed drawn from the
episode's generator), so one seed gives one puzzle and, with the same actions, one trajectory.
The families are the grid ones (each variable a cell ``(row, col)``: the Sudokus, Latin,
Futoshiki, KenKen, Skyscrapers, Nonogram, Star Battle, and Kakuro's sparse grid).

**Actions** ``MultiDiscrete([rows, cols, len(values) + 1])``: ``[row, col, v]`` places
``values[v - 1]`` (:attr:`SolveEnv.values`, every value a cell may hold, ascending) at that cell,
``v = 0`` clears it; :meth:`SolveEnv.action_for` builds one from a cell name (``"r1c3"``) and a
value. An action outside the space raises ValueError saying what the space is. An action in the
space that cannot be played is **refused**: the board stays as it was, the feedback is
``refused`` and ``info["error"]`` says why (the coordinate is no cell, the cell is given, the
cell already holds that value, there is nothing to clear).

**Observation** (``Dict``; ``grid`` = (rows, cols)):

============ ============================== =================================================
key          space                          meaning
============ ============================== =================================================
board        ``Box(0, V, grid, int16)``     0: empty (or no cell), ``k``: ``values[k - 1]``
givens       ``Box(0, 1, grid, int8)``      1 at a cell the puzzle gives
cells        ``Box(0, 1, grid, int8)``      1 at a coordinate that is a cell
dead         ``Box(0, 1, grid, int8)``      1 at the smallest set of cells after which the
                                            board has no completion (the last check; with
                                            ``shrink=False`` every placed cell)
feedback     ``Discrete(7)``                the last step's outcome, :data:`FEEDBACK` order
============ ============================== =================================================

The puzzle's other clues (cages, inequalities, edge counts, runs) are not in the observation;
``info["instance"]`` at reset is the puzzle's JSON object and :meth:`SolveEnv.prompt` its
prompt for a language model.

**Feedback and reward.** After each placement or clearing the board is judged by the partial
check (:func:`puzzlekit.answers.check_partial`: is a completion still possible, and if not, the
smallest set of placed cells that makes it dead). The reward is shaped by a potential
``phi(board)``, the share of the free cells filled while the board is completable and
``-rewards["dead"]`` while it is not: ``phi(after) - phi(before) - rewards["step"]``, plus
``rewards["solved"]`` when the board is a solution (the episode terminates) and minus
``rewards["refused"]`` for a refused action. Placing then clearing a value earns nothing
(potential-based shaping: the sum over an episode is ``phi(end) - phi(start)`` plus the
bonus, less the costs). Any valid solution is a solution (the rules judge, not a stored one).
The episode is truncated after ``max_steps`` actions (default: ``len(values) + 1`` per free
cell, room to try every value in each).

Not for: generating puzzles (:mod:`puzzlekit.envs.generate`), judging whole answers
(:func:`puzzlekit.answers.check_answer`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from puzzlekit.answers import AnswerVerdict, check_partial
from puzzlekit.answers.compiled import compiled
from puzzlekit.answers.prompts import layout_of
from puzzlekit.core.model import Instance
from puzzlekit.families import default_params, get_family

#: the ``feedback`` key's values: the outcome of the last step
FEEDBACK: tuple[str, ...] = ("start", "placed", "cleared", "dead", "refused", "solved", "unknown")
#: the reward terms (see the module docstring)
DEFAULT_SOLVE_REWARDS: Mapping[str, float] = {
    "solved": 1.0,
    "dead": 0.5,
    "refused": 0.1,
    "step": 0.01,
}
#: puzzles made by the loop that an environment keeps, by loop seed
PUZZLES_KEPT = 256


class SolveEnv(gymnasium.Env):
    """An episode solves one puzzle of ``family`` with ``params`` (module docstring).

    ``puzzles``: instances (or their JSON) to draw from instead of generating; ``strategy``,
    ``minimize``, ``clues``, ``filter``: how the loop makes a puzzle when none is given (as
    ``puzzlekit generate`` takes them; no holdout: every valid solution counts, so uniqueness
    does not change the task). ``rewards`` overrides :data:`DEFAULT_SOLVE_REWARDS`.
    ``shrink=False`` marks every placed cell of a dead board (a clash: its cells) instead of the
    smallest dead set: one verification a step, where shrinking costs many on a large grid.
    ``render_mode="ansi"`` draws the board and the last feedback.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        family: str = "sudoku",
        params: Mapping[str, Any] | None = None,
        *,
        puzzles: Sequence[Instance | str | Mapping[str, Any]] | None = None,
        strategy: str = "adaptive",
        minimize: bool = False,
        clues: int | None = None,
        filter: str | None = None,
        max_steps: int | None = None,
        rewards: Mapping[str, float] | None = None,
        shrink: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of: ansi")
        unknown = sorted(set(rewards or {}) - set(DEFAULT_SOLVE_REWARDS))
        if unknown:
            raise ValueError(
                f"rewards: {unknown[0]!r} is not one of {sorted(DEFAULT_SOLVE_REWARDS)}"
            )
        self.family = get_family(family)
        raw = dict(params) if params is not None else default_params(self.family)
        self.schema = self.family.schema(raw)
        self.params = self.schema.params_dict()
        lay = layout_of(self.family, self.schema)
        if lay.kind not in ("grid", "sparse"):
            raise ValueError(
                "Solve-v0 takes grid families (every cell a (row, col)); "
                f"{self.family.info.name}'s answer is a {lay.kind}, not a grid"
            )
        self.names = self.schema.names
        self.coords = [tuple(v.coord) for v in self.schema.variables]
        self.shape = (max(r for r, _ in self.coords) + 1, max(c for _, c in self.coords) + 1)
        self.index = {coord: i for i, coord in enumerate(self.coords)}
        #: every value a cell may hold, ascending: action ``v`` places ``values[v - 1]``
        self.values: tuple[int, ...] = tuple(
            sorted({x for v in self.schema.variables for x in v.domain})
        )
        self.puzzles = self._own_puzzles(puzzles)
        self.generate_settings = {
            "strategy": strategy,
            "minimize": minimize,
            "clues": clues,
            "filter": filter,
        }
        self.rewards = {
            **DEFAULT_SOLVE_REWARDS,
            **{k: float(v) for k, v in (rewards or {}).items()},
        }
        self.max_steps_setting = max_steps
        self.shrink = bool(shrink)
        self.render_mode = render_mode
        self.action_space, self.observation_space = self._spaces()
        self._cells_mask = np.zeros(self.shape, np.int8)
        for r, c in self.coords:
            self._cells_mask[r, c] = 1
        self._made: OrderedDict[int, Instance] = OrderedDict()
        self.instance: Instance | None = None
        self._board: list[int | None] = []
        self._given: set[int] = set()
        self._dead = np.zeros(self.shape, np.int8)
        self._feedback = 0
        self._phi = 0.0
        self._steps = 0
        self.max_steps = 0
        self._done = True
        self._last: dict[str, Any] = {}

    # -- the Gymnasium API ----------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        if "instance" in options:
            self.instance = _instance(options["instance"])
            if self.instance.family != self.family.info.name:
                raise ValueError(f"options['instance'] is a {self.instance.family} puzzle")
        elif self.puzzles is not None:
            self.instance = self.puzzles[int(self.np_random.integers(len(self.puzzles)))]
        else:
            self.instance = self._generated(int(self.np_random.integers(2**63 - 1)))
        comp = compiled(self.instance)
        self._board = [None] * len(self.names)
        for i, x in zip(comp.given_idx.tolist(), comp.given_val.tolist(), strict=True):
            self._board[i] = int(x)
        self._given = set(comp.given_idx.tolist())
        self._free = len(self.names) - len(self._given)
        self.max_steps = self.max_steps_setting or max(1, (len(self.values) + 1) * self._free)
        self._dead.fill(0)
        self._feedback = 0
        self._phi = 0.0
        self._steps = 0
        self._done = False
        self._last = {"feedback": "start", "error": None, "completable": True}
        info = self._info()
        info["instance"] = self.instance.to_json_obj()
        return self._observation(), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        row, col, v = self._action(action)
        if self._done:
            raise RuntimeError("the episode has ended: call reset() before step()")
        self._steps += 1
        reward = -self.rewards["step"]
        terminated = False
        error = self._refusal(row, col, v)
        if error is not None:
            reward -= self.rewards["refused"]
            self._feedback = FEEDBACK.index("refused")
            self._last = {**self._last, "feedback": "refused", "error": error}
        else:
            i = self.index[(row, col)]
            self._board[i] = None if v == 0 else self.values[v - 1]
            board = dict(zip(self.names, self._board, strict=True))
            rep = check_partial(self.instance, board, shrink=self.shrink)
            phi, feedback = self._judge(rep, cleared=v == 0)
            reward += phi - self._phi
            self._phi = phi
            terminated = feedback == "solved"
            if terminated:
                reward += self.rewards["solved"]
        truncated = not terminated and self._steps >= self.max_steps
        self._done = terminated or truncated
        return self._observation(), float(reward), terminated, truncated, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        rows = []
        for r in range(self.shape[0]):
            line = []
            for c in range(self.shape[1]):
                i = self.index.get((r, c))
                if i is None:
                    line.append("#")
                elif self._board[i] is None:
                    line.append(".")
                else:
                    mark = "*" if self._dead[r, c] else ""
                    line.append(f"{self._board[i]}{mark}")
            width = max(len(s) for s in line)
            rows.append(" ".join(s.rjust(width) for s in line))
        said = self._last.get("error") or ""
        return "\n".join([*rows, f"feedback: {self._last['feedback']} {said}".rstrip()])

    # -- what an agent may use besides the observation -----------------------------------------
    def action_for(self, cell: str, value: int | None) -> np.ndarray:
        """The action that puts ``value`` in ``cell`` (a name such as ``"r1c3"``; None clears)."""
        if cell not in self.names:
            raise ValueError(f"the puzzle has no cell named {cell!r}")
        if value is not None and value not in self.values:
            raise ValueError(f"{value!r} is not a value of this puzzle ({list(self.values)})")
        r, c = self.coords[self.names.index(cell)]
        v = 0 if value is None else self.values.index(value) + 1
        return np.array([r, c, v], dtype=np.int64)

    def prompt(self, style: str = "plain") -> str:
        """The episode's puzzle as a prompt for a language model (:meth:`Family.prompt`)."""
        if self.instance is None:
            raise RuntimeError("call reset() first")
        return self.family.prompt(self.instance, style=style)

    def board(self) -> dict[str, int | None]:
        """Cell name -> value (None: empty) of the current board, givens included."""
        return dict(zip(self.names, self._board, strict=True))

    # -- inside ---------------------------------------------------------------------------------
    def _own_puzzles(self, puzzles: Sequence[Any] | None) -> list[Instance] | None:
        if puzzles is None:
            return None
        out = [_instance(p) for p in puzzles]
        if not out:
            raise ValueError("puzzles is empty")
        for p in out:
            if (p.family, p.params_dict()) != (self.family.info.name, self.params):
                raise ValueError(f"a puzzle of {p.family} {p.params_dict()} is not ours")
        return out

    def _spaces(self) -> tuple[spaces.MultiDiscrete, spaces.Dict]:
        """The action space and the observation space (module docstring)."""
        rows, cols = self.shape
        action = spaces.MultiDiscrete([rows, cols, len(self.values) + 1])
        observation = spaces.Dict(
            {
                "board": spaces.Box(0, len(self.values), self.shape, np.int16),
                "givens": spaces.Box(0, 1, self.shape, np.int8),
                "cells": spaces.Box(0, 1, self.shape, np.int8),
                "dead": spaces.Box(0, 1, self.shape, np.int8),
                "feedback": spaces.Discrete(len(FEEDBACK)),
            }
        )
        return action, observation

    def _generated(self, seed: int) -> Instance:
        hit = self._made.get(seed)
        if hit is not None:
            self._made.move_to_end(seed)
            return hit
        from puzzlekit.loop.batch import GenerateConfig, generate
        from puzzlekit.verifiers.registry import default_filter_name

        s = self.generate_settings
        config = GenerateConfig(
            family=self.family.info.name,
            params=self.params,
            count=1,
            strategy=s["strategy"],
            minimize=s["minimize"],
            clues=s["clues"],
            filter=s["filter"] or default_filter_name(self.family.info.name),
            holdout=None,
            seed=seed,
        )
        record = next((r for r in generate(config) if r["status"] == "accepted"), None)
        if record is None:
            raise RuntimeError(f"no {self.family.info.name} puzzle accepted for loop seed {seed}")
        raw = record["instance"]
        made = raw if isinstance(raw, Instance) else Instance.from_json_obj(raw)
        self._made[seed] = made
        if len(self._made) > PUZZLES_KEPT:
            self._made.popitem(last=False)
        return made

    def _action(self, action: Any) -> tuple[int, int, int]:
        a = np.asarray(action) if isinstance(action, list | tuple | np.ndarray) else None
        ok = a is not None and a.shape == (3,) and np.issubdtype(a.dtype, np.integer)
        if not ok or not self.action_space.contains(a.astype(np.int64)):  # type: ignore[union-attr]
            rows, cols = self.shape
            raise ValueError(
                f"action {action!r} is not in the action space "
                f"MultiDiscrete([{rows}, {cols}, {len(self.values) + 1}]): [row, col, v] with "
                f"row 0..{rows - 1}, col 0..{cols - 1}, v 0 (clear) or 1..{len(self.values)} "
                f"(place values[v - 1], values = {list(self.values)})"
            )
        r, c, v = (int(x) for x in a)  # type: ignore[union-attr]
        return r, c, v

    def _refusal(self, row: int, col: int, v: int) -> str | None:
        """Why the in-space action ``[row, col, v]`` cannot be played, or None."""
        i = self.index.get((row, col))
        where = f"({row}, {col})"
        if i is None:
            return f"{where} is not a cell of this puzzle"
        name = self.names[i]
        if i in self._given:
            return f"{name} is given ({self._board[i]}): it cannot be changed"
        if v == 0 and self._board[i] is None:
            return f"{name} is empty: there is nothing to clear"
        if v and self._board[i] == self.values[v - 1]:
            return f"{name} already holds {self._board[i]}"
        return None

    def _judge(self, rep: Any, *, cleared: bool) -> tuple[float, str]:
        """The potential of the board just judged and its feedback; marks the dead cells."""
        self._dead.fill(0)
        if rep.verdict is AnswerVerdict.CORRECT:
            feedback = "solved"
            phi = 1.0
        elif rep.completable is False:
            feedback = "dead"
            phi = -self.rewards["dead"]
            for r, c in rep.dead_cells or ():
                self._dead[r, c] = 1
        else:
            feedback = (
                "unknown" if rep.completable is None else ("cleared" if cleared else "placed")
            )
            filled = sum(x is not None for x in self._board) - len(self._given)
            phi = filled / self._free if self._free else 1.0
        self._feedback = FEEDBACK.index(feedback)
        dead = [self.names[self.index[tuple(c)]] for c in (rep.dead_cells or ())]
        self._last = {
            "feedback": feedback,
            "error": None,
            "completable": rep.completable,
            "dead_cells": dead,
        }
        return phi, feedback

    def _observation(self) -> dict[str, Any]:
        board = np.zeros(self.shape, np.int16)
        givens = np.zeros(self.shape, np.int8)
        for i, x in enumerate(self._board):
            if x is not None:
                r, c = self.coords[i]
                board[r, c] = self.values.index(x) + 1
                givens[r, c] = i in self._given
        return {
            "board": board,
            "givens": givens,
            "cells": self._cells_mask.copy(),
            "dead": self._dead.copy(),
            "feedback": self._feedback,
        }

    def _info(self) -> dict[str, Any]:
        filled = sum(x is not None for x in self._board)
        return {
            "feedback": self._last["feedback"],
            "error": self._last.get("error"),
            "completable": self._last.get("completable"),
            "dead_cells": list(self._last.get("dead_cells", [])),
            "filled": filled,
            "cells": len(self.names),
            "steps": self._steps,
        }


def _instance(raw: Instance | str | Mapping[str, Any]) -> Instance:
    if isinstance(raw, Instance):
        return raw
    if isinstance(raw, str):
        return Instance.from_json(raw)
    if isinstance(raw, Mapping):
        return Instance.from_json_obj(dict(raw))
    raise ValueError(f"not an instance (nor its JSON): {type(raw).__name__}")

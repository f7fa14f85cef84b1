"""Gymnasium environments: :class:`GenerateEnv`, in which the agent is the generator, and
:class:`SolveEnv`, in which the agent solves.

Importing this package registers ``puzzlekit/Generate-v0`` and ``puzzlekit/Solve-v0`` with
Gymnasium (their entry points are the strings ``"puzzlekit.envs.generate:GenerateEnv"`` and
``"puzzlekit.envs.solve:SolveEnv"``, as Gymnasium's own environments are registered, so neither
module is imported before it is made); Gymnasium 1.x has no entry-point group for third-party
environments, so either import the package first or name it in the id::

    import gymnasium
    import puzzlekit.envs  # registers puzzlekit/Generate-v0 and puzzlekit/Solve-v0

    env = gymnasium.make("puzzlekit/Generate-v0", family="sudoku", params={"size": 4})
    env = gymnasium.make("puzzlekit.envs:puzzlekit/Generate-v0", family="sudoku")
    env = gymnasium.make("puzzlekit/Solve-v0", family="latin", params={"size": 4})

The modules: :mod:`~puzzlekit.envs.generate` (the environment, its actions and rewards),
:mod:`~puzzlekit.envs.solve` (the solver environment: place or clear a value, the partial check's
feedback and shaped reward),
:mod:`~puzzlekit.envs.observe` (the observation space and the reject-detail channels),
:mod:`~puzzlekit.generators.slots` (slot index, clue and coordinates; shared with the ``policy``
strategy), :mod:`~puzzlekit.envs.holdout`
(:class:`HoldoutEvaluation`, the holdout reject rate outside the agent's view). docs/envs.md
walks through a rollout.

This floor sits above the answers and the loop and below the app: it imports generators,
verifiers, the loop's holdout and the answers' partial check, and nothing imports it but the app.
"""

from __future__ import annotations

import gymnasium

from puzzlekit.envs.generate import DEFAULT_REWARDS, GenerateEnv
from puzzlekit.envs.holdout import HoldoutEvaluation, HoldoutRecord
from puzzlekit.envs.observe import DETAIL_KEYS, VERDICTS
from puzzlekit.generators.slots import LayoutError, SlotLayout

__all__ = [
    "DEFAULT_REWARDS",
    "DEFAULT_SOLVE_REWARDS",
    "DETAIL_KEYS",
    "FEEDBACK",
    "ENV_ID",
    "SOLVE_ENV_ID",
    "VERDICTS",
    "GenerateEnv",
    "HoldoutEvaluation",
    "HoldoutRecord",
    "LayoutError",
    "SlotLayout",
    "SolveEnv",
]

#: the Gymnasium id of :class:`GenerateEnv`
ENV_ID = "puzzlekit/Generate-v0"

_LAZY = {"SolveEnv", "FEEDBACK", "DEFAULT_SOLVE_REWARDS"}


def __getattr__(name: str) -> object:
    """:class:`~puzzlekit.envs.solve.SolveEnv` and its constants, imported on first use."""
    if name in _LAZY:
        from puzzlekit.envs import solve

        return getattr(solve, name)
    raise AttributeError(f"module 'puzzlekit.envs' has no attribute {name!r}")


#: the Gymnasium id of :class:`~puzzlekit.envs.solve.SolveEnv`
SOLVE_ENV_ID = "puzzlekit/Solve-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="puzzlekit.envs.generate:GenerateEnv")
if SOLVE_ENV_ID not in gymnasium.registry:
    gymnasium.register(id=SOLVE_ENV_ID, entry_point="puzzlekit.envs.solve:SolveEnv")

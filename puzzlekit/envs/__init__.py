"""Gymnasium environments: :class:`GenerateEnv`, in which the agent is the generator.

Importing this package registers ``puzzlekit/Generate-v0`` with Gymnasium (its entry point is the
string ``"puzzlekit.envs.generate:GenerateEnv"``, as Gymnasium's own environments are
registered); Gymnasium 1.x has no entry-point group for third-party environments, so either
import the package first or name it in the id::

    import gymnasium
    import puzzlekit.envs  # registers puzzlekit/Generate-v0

    env = gymnasium.make("puzzlekit/Generate-v0", family="sudoku", params={"size": 4})
    env = gymnasium.make("puzzlekit.envs:puzzlekit/Generate-v0", family="sudoku")

The modules: :mod:`~puzzlekit.envs.generate` (the environment, its actions and rewards),
:mod:`~puzzlekit.envs.observe` (the observation space and the reject-detail channels),
:mod:`~puzzlekit.generators.slots` (slot index, clue and coordinates; shared with the ``policy``
strategy), :mod:`~puzzlekit.envs.holdout`
(:class:`HoldoutEvaluation`, the holdout reject rate outside the agent's view). docs/envs.md
walks through a rollout.

This floor sits above the loop and below the app: it imports generators, verifiers and the
loop's holdout, and nothing imports it but the app.
"""

from __future__ import annotations

import gymnasium

from puzzlekit.envs.generate import DEFAULT_REWARDS, GenerateEnv
from puzzlekit.envs.holdout import HoldoutEvaluation, HoldoutRecord
from puzzlekit.envs.observe import DETAIL_KEYS, VERDICTS
from puzzlekit.generators.slots import LayoutError, SlotLayout

__all__ = [
    "DEFAULT_REWARDS",
    "DETAIL_KEYS",
    "ENV_ID",
    "VERDICTS",
    "GenerateEnv",
    "HoldoutEvaluation",
    "HoldoutRecord",
    "LayoutError",
    "SlotLayout",
]

#: the Gymnasium id of :class:`GenerateEnv`
ENV_ID = "puzzlekit/Generate-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="puzzlekit.envs.generate:GenerateEnv")

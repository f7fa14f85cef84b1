"""What the generator environment shows its agent: the observation space, sized from the schema,
and the reject detail of a filter report turned into per-coordinate channels.

Two modes. ``structured`` (the default) shows the clues and the filter's reject detail:

=========== ============================ ====================================================
key         space                        meaning
=========== ============================ ====================================================
revealed    ``MultiBinary(n_slots)``     1 where slot ``i``'s clue is revealed
clues       ``Box(0, c, grid, int16)``   per coordinate, how many revealed clues touch it
solution    ``Box(0, d, grid, int16)``   per coordinate, 1 + the index of the episode's
                                         solution value in the variable's domain (0: none)
verdict     ``Discrete(7)``              the last filter verdict, :data:`VERDICTS` order
                                         (0: no submission yet)
gap         ``Box(0, 1, grid, float32)`` 1 at a cell of the last report's discriminative gap
power       ``Box(0, 1, grid, float32)`` its discriminative power: the share of the found
                                         solutions that the episode solution's value there
                                         rules out (as the adaptive strategy ranks cells)
conflict    ``Box(0, 1, grid, float32)`` 1 at a coordinate of a clue in the conflict
culprit     ``Box(0, 1, grid, float32)`` 1 at a culprit of DOMAIN_TOO_LARGE / UNDECIDED
calls       ``Discrete(max_calls + 1)``  filter calls used in the episode
=========== ============================ ====================================================

``scalar`` (PCGRL's setting) keeps ``revealed``, ``clues``, ``solution`` and ``calls``: the
filter reaches the agent only through the reward, a scalar per submission.

``grid`` is the :class:`~puzzlekit.generators.slots.SlotLayout`'s shape, ``c`` its
:meth:`~puzzlekit.generators.slots.SlotLayout.max_cover`, ``d`` the largest domain.

The reject detail becomes channels in :func:`~puzzlekit.generators.slots.fill_detail`, which the
``policy`` strategy shares, so a trained policy reads the same channels in the closed loop.

Not for: rewards or episode rules (:mod:`puzzlekit.envs.generate`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from puzzlekit.core.model import Schema
from puzzlekit.core.report import Verdict
from puzzlekit.generators.slots import DETAIL_KEYS, SlotLayout, fill_detail

#: the values of the ``verdict`` key: no submission yet, then every verdict
VERDICTS: tuple[str, ...] = ("NONE", *(v.value for v in Verdict))
MODES: tuple[str, ...] = ("structured", "scalar")


def observation_space(layout: SlotLayout, schema: Schema, max_calls: int, mode: str) -> spaces.Dict:
    """The ``Dict`` space of ``mode`` for ``layout`` (see the module's table)."""
    grid = layout.shape
    domain = max(len(v.domain) for v in schema.variables)
    keys: dict[str, spaces.Space[Any]] = {
        "revealed": spaces.MultiBinary(layout.n_slots),
        "clues": spaces.Box(0, max(1, layout.max_cover()), grid, np.int16),
        "solution": spaces.Box(0, domain, grid, np.int16),
    }
    if mode == "structured":
        keys["verdict"] = spaces.Discrete(len(VERDICTS))
        for key in DETAIL_KEYS:
            keys[key] = spaces.Box(0.0, 1.0, grid, np.float32)
    keys["calls"] = spaces.Discrete(max_calls + 1)
    return spaces.Dict(keys)


def solution_grid(layout: SlotLayout, schema: Schema, solution: Mapping[str, Any]) -> np.ndarray:
    """The ``solution`` channel: 1 + the domain index of each variable's value, on the grid."""
    out = np.zeros(layout.n_cells, np.int16)
    for cell, var in zip(layout.var_cells, schema.variables, strict=True):
        out[cell] = 1 + var.domain.index(solution[var.name])
    return out.reshape(layout.shape)


def fill_found(
    out: np.ndarray, found: np.ndarray, target: np.ndarray, var_cells: np.ndarray
) -> None:
    """The channels :func:`fill_detail` writes for a UNIQUE or MULTIPLE report, from the found
    solutions alone (``found``: one row per solution, its values in the schema's variable order;
    ``target``: the episode's solution in that order; ``var_cells``: each variable's cell, no two
    alike): ``gap`` where the found solutions differ, ``power`` the share of them whose value
    there differs from the target's. The conflict and culprit channels stay 0 (those verdicts
    come with a full report)."""
    out.fill(0.0)
    if len(found) < 2:
        return
    differ = (found != found[0]).any(axis=0)
    cells = var_cells[differ]
    out[0, cells] = 1.0
    out[1, cells] = np.count_nonzero(found[:, differ] != target[differ], axis=0) / len(found)


__all__ = [
    "DETAIL_KEYS",
    "MODES",
    "VERDICTS",
    "fill_detail",
    "fill_found",
    "observation_space",
    "solution_grid",
]

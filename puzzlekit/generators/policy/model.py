"""The shipped learner's policy: a linear softmax over the generator's actions, read from the
generator environment's observation (:mod:`puzzlekit.envs.observe`) or built the same way in the
closed loop, so that one policy acts alike in training and as the ``policy`` strategy.

An action is "toggle slot ``i``" or "submit". Each toggle has a feature row, the submission one
feature vector, and the logits are linear in them:

- toggle ``i``: ``TOGGLE_FEATURES @ w_toggle + w_slot[i] * hidden_i`` (the per-slot weight is
  the tabular part: a reveal order the policy can learn without any feedback);
- submit: ``SUBMIT_FEATURES @ w_submit``.

The features that come from the filter's reject detail and verdict (``gap``, ``power``,
``conflict``, ``culprit``, the verdict) are 0 in the ``scalar`` observation mode, which has
none of them: the same learner, trained in both modes, measures what the reject detail buys.

Besides the observation the policy keeps one number of its own, the toggles since its last
submission (an agent may remember its own actions), and it submits by force after
:func:`max_toggles` toggles in a row, in training and in the loop alike.

Not for: training (:mod:`puzzlekit.envs.train`) or the file format
(:mod:`puzzlekit.generators.policy.file`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlekit.core.model import Schema
from puzzlekit.generators.slots import SlotLayout

#: the features of one toggle (a row per slot); ``hidden`` is 1 - revealed
TOGGLE_FEATURES: tuple[str, ...] = (
    "revealed",
    "hidden*gap",
    "hidden*power",
    "revealed*conflict",
    "hidden*culprit",
    "hidden*peers_revealed",
)
#: the features of the submission
SUBMIT_FEATURES: tuple[str, ...] = (
    "bias",
    "revealed_share",
    "unchanged",
    "toggles_since_submit",
    "verdict_none",
    "verdict_multiple",
    "gap_hidden_share",
    "calls_share",
)
#: the ``verdict`` values of :data:`puzzlekit.envs.observe.VERDICTS` the features read
_NONE, _MULTIPLE = 0, 2
#: the reject-detail keys of the structured observation
_DETAIL = ("gap", "power", "conflict", "culprit")


def max_toggles(n_slots: int) -> int:
    """Toggles in a row after which the policy submits by force: two per slot."""
    return 2 * n_slots


@dataclass(frozen=True, eq=False)
class Geometry:
    """What the features need of a schema's layout: which cells each slot touches, and each
    cell's peers (the cells sharing a rule with it)."""

    n_slots: int
    n_cells: int
    #: slot × cell incidence, 1 where the slot's clue touches the cell
    touch: np.ndarray
    #: the same, each row divided by its count (a mean over the slot's cells)
    touch_mean: np.ndarray
    #: cell × cell, each row the share of that cell's peers (0 rows for cells without peers)
    peers: np.ndarray

    @classmethod
    def of(cls, layout: SlotLayout, schema: Schema) -> Geometry:
        n, m = layout.n_slots, layout.n_cells
        touch = np.zeros((n, m), np.float32)
        for i, cells in enumerate(layout.slot_cells):
            touch[i, cells] = 1.0
        counts = touch.sum(axis=1, keepdims=True)
        touch_mean = touch / np.maximum(counts, 1.0)
        cell_of = {v.name: int(c) for v, c in zip(schema.variables, layout.var_cells, strict=True)}
        peers = np.zeros((m, m), np.float32)
        for rule in schema.rules:
            cells = sorted({cell_of[v] for v in rule.vars if v in cell_of})
            if len(cells) > 1:
                peers[np.ix_(cells, cells)] = 1.0
        np.fill_diagonal(peers, 0.0)
        peers /= np.maximum(peers.sum(axis=1, keepdims=True), 1.0)
        return cls(n, m, touch, touch_mean, peers)


def n_weights(n_slots: int) -> int:
    """The length of a policy's parameter vector for ``n_slots`` slots."""
    return len(TOGGLE_FEATURES) + len(SUBMIT_FEATURES) + n_slots


@dataclass(frozen=True, eq=False)
class LinearPolicy:
    """Weights of the linear softmax policy (see the module docstring)."""

    w_toggle: np.ndarray
    w_submit: np.ndarray
    w_slot: np.ndarray

    @classmethod
    def from_vector(cls, theta: np.ndarray, n_slots: int) -> LinearPolicy:
        t, s = len(TOGGLE_FEATURES), len(SUBMIT_FEATURES)
        theta = np.asarray(theta, np.float64)
        if theta.shape != (t + s + n_slots,):
            raise ValueError(f"a policy of {n_slots} slots has {t + s + n_slots} weights")
        return cls(theta[:t].copy(), theta[t : t + s].copy(), theta[t + s :].copy())

    def vector(self) -> np.ndarray:
        return np.concatenate([self.w_toggle, self.w_submit, self.w_slot])

    def logits(
        self, obs: Mapping[str, Any], geo: Geometry, since: int, max_calls: int
    ) -> np.ndarray:
        """The ``n_slots + 1`` action logits for observation ``obs`` (the environment's keys; the
        detail keys and ``verdict`` absent in the scalar mode), ``since`` toggles after the last
        submission, ``max_calls`` the environment's call budget."""
        toggle, submit = features(obs, geo, since, max_calls)
        hidden = 1.0 - np.asarray(obs["revealed"], np.float64)
        out = np.empty(geo.n_slots + 1, np.float64)
        out[:-1] = toggle @ self.w_toggle + self.w_slot * hidden
        out[-1] = submit @ self.w_submit
        return out

    def act(
        self,
        obs: Mapping[str, Any],
        geo: Geometry,
        since: int,
        max_calls: int,
        rng: np.random.Generator,
    ) -> int:
        """An action drawn from the softmax of :meth:`logits` with ``rng`` (submit, action
        ``n_slots``, when ``since`` reached :func:`max_toggles`)."""
        if since >= max_toggles(geo.n_slots):
            return geo.n_slots
        z = self.logits(obs, geo, since, max_calls)
        p = np.exp(z - z.max())
        cum = np.cumsum(p)
        return int(min(np.searchsorted(cum, rng.random() * cum[-1], side="right"), geo.n_slots))


def features(
    obs: Mapping[str, Any], geo: Geometry, since: int, max_calls: int
) -> tuple[np.ndarray, np.ndarray]:
    """The toggle feature rows (``n_slots × len(TOGGLE_FEATURES)``) and the submission's
    features (``len(SUBMIT_FEATURES)``) of ``obs``."""
    revealed = np.asarray(obs["revealed"], np.float64)
    hidden = 1.0 - revealed
    covered = (np.asarray(obs["clues"]).ravel() > 0).astype(np.float64)
    peer_share = geo.touch_mean @ (geo.peers @ covered)
    toggle = np.zeros((geo.n_slots, len(TOGGLE_FEATURES)), np.float64)
    toggle[:, 0] = revealed
    toggle[:, 5] = hidden * peer_share
    submit = np.zeros(len(SUBMIT_FEATURES), np.float64)
    submit[0] = 1.0
    submit[1] = revealed.mean()
    submit[2] = 1.0 if since == 0 else 0.0
    submit[3] = min(since, 4) / 4.0
    submit[7] = min(int(obs["calls"]), max_calls) / max_calls
    if "verdict" in obs:  # the structured mode: the verdict and the reject detail
        verdict = int(obs["verdict"])
        submit[4] = 1.0 if verdict == _NONE else 0.0
        submit[5] = 1.0 if verdict == _MULTIPLE else 0.0
        detail = np.stack([np.asarray(obs[k], np.float64).ravel() for k in _DETAIL])
        if detail.any():
            gap, power, conflict, culprit = (geo.touch[None, :, :] * detail[:, None, :]).max(2)
            toggle[:, 1] = hidden * gap
            toggle[:, 2] = hidden * power
            toggle[:, 3] = revealed * conflict
            toggle[:, 4] = hidden * culprit
        else:
            gap = np.zeros(geo.n_slots)
        total = gap.sum()
        submit[6] = float((hidden * gap).sum() / total) if total > 0 else 0.0
    return toggle, submit

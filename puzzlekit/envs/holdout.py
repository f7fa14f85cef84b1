"""``HoldoutEvaluation``: the holdout reject rate of the puzzles an agent gets accepted, measured
outside the agent's view.

The wrapper passes every observation, reward, flag and info of the environment through
unchanged. When a step's submission is accepted by the filter (UNIQUE), it hands the instance's
canonical bytes and digest to the holdout (an independent exact verifier, by default the one
the filter names, in a worker process of its own: :func:`puzzlekit.loop.holdout.
shared_holdout`) and keeps the holdout's verdict in :attr:`HoldoutEvaluation.records`. Nothing
of it goes into what ``step`` returns, so neither the agent nor the reward can see it; the
records are for the evaluation that reads them after the episodes (:attr:`holdout_reject_rate`).

Not for: training signals (the filter's reward is the only one) or the loop's holdout, which
:mod:`puzzlekit.loop.driver` runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium

from puzzlekit.core.report import Verdict
from puzzlekit.loop.holdout import shared_holdout
from puzzlekit.verifiers.registry import default_holdout_name


@dataclass(frozen=True)
class HoldoutRecord:
    """One filter-accepted submission: its episode (0-based, counted by the wrapper), instance
    digest, clue count, filter calls of the episode so far, and the holdout's verdict."""

    episode: int
    instance_digest: str
    clues: int
    filter_calls: int
    filter_verdict: str
    holdout_verdict: str

    @property
    def holdout_rejected(self) -> bool:
        return self.holdout_verdict != Verdict.UNIQUE.value


class HoldoutEvaluation(gymnasium.Wrapper):
    """Wrap a :class:`~puzzlekit.envs.generate.GenerateEnv` (or anything wrapping one) and record
    the holdout's verdict on each puzzle the filter accepts.

    ``holdout``: a registered exact verifier name (default: the one the filter names,
    :func:`~puzzlekit.verifiers.registry.default_holdout_name`) with ``holdout_settings``;
    ``process=False`` runs it in this process (tests; it still sees only bytes and a digest).
    ``solution_cap``: the holdout's cap (2 decides uniqueness).
    """

    def __init__(
        self,
        env: gymnasium.Env,
        holdout: str | None = None,
        *,
        holdout_settings: dict[str, Any] | None = None,
        process: bool = True,
        solution_cap: int = 2,
    ) -> None:
        super().__init__(env)
        inner = env.unwrapped
        if not hasattr(inner, "last_submitted") or not hasattr(inner, "submissions"):
            raise TypeError("HoldoutEvaluation wraps a puzzlekit GenerateEnv")
        self.holdout_name = holdout or default_holdout_name(inner.filter_name)
        if self.holdout_name == inner.filter_name:
            raise ValueError(
                f"the holdout {self.holdout_name!r} is the filter itself: name another verifier"
            )
        self._holdout = shared_holdout(self.holdout_name, holdout_settings, process=process)
        self.solution_cap = solution_cap
        self.records: list[HoldoutRecord] = []
        self.episodes = 0
        self._started = False
        self._seen = inner.submissions

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        if self._started:
            self.episodes += 1
        self._started = True
        out = self.env.reset(**kwargs)
        self._seen = self.env.unwrapped.submissions
        return out

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        out = self.env.step(action)
        inner = self.env.unwrapped
        if inner.submissions != self._seen:
            self._seen = inner.submissions
            if inner.last_verdict is Verdict.UNIQUE:
                self._judge(inner)
        return out

    def _judge(self, inner: Any) -> None:
        instance = inner.last_submitted
        canonical = instance.fresh_canonical_json()
        digest = instance.fresh_digest()
        verdict = self._holdout.check(canonical, digest, self.solution_cap).verdict
        self.records.append(
            HoldoutRecord(
                episode=self.episodes,
                instance_digest=digest,
                clues=len(instance.clues),
                filter_calls=int(inner.calls),
                filter_verdict=Verdict.UNIQUE.value,
                holdout_verdict=verdict.value,
            )
        )

    @property
    def accepted(self) -> int:
        """Puzzles the filter accepted so far."""
        return len(self.records)

    @property
    def holdout_reject_rate(self) -> float:
        """Holdout-rejected over filter-accepted puzzles (NaN before any was accepted)."""
        if not self.records:
            return float("nan")
        return sum(r.holdout_rejected for r in self.records) / len(self.records)

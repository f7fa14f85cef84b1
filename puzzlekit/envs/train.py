"""The shipped learner: the cross-entropy method over the linear softmax policy of
:mod:`puzzlekit.generators.policy.model`, trained in :class:`~puzzlekit.envs.GenerateEnv`
(``puzzlekit train``). It writes a policy file (:mod:`puzzlekit.generators.policy.file`) that
the ``policy`` strategy runs in the closed loop.

Each iteration draws ``population`` weight vectors from a diagonal Gaussian (the first is its
mean), plays each for ``episodes`` episodes, and refits the Gaussian to the ``elite`` best by
mean return (the standard deviation kept at least ``min_std``). All candidates of an iteration
play the same episode seeds and the same action streams (common random numbers), so they are
compared on the same puzzles. Training stops at the end of the first iteration at which
``steps`` environment steps are spent (``steps.used`` in the file says how many). The policy
written is the Gaussian's mean.

Everything is drawn from ``seed``: one seed gives one policy file, byte for byte. The holdout is
not used in training (the reward is the filter's alone).

Not for: a general reinforcement-learning library (any Gymnasium learner works on the
environment; docs/envs.md shows a stable-baselines3 wrapper).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from puzzlekit.envs.generate import GenerateEnv
from puzzlekit.generators.policy.file import PolicyFile
from puzzlekit.generators.policy.model import Geometry, LinearPolicy, n_weights

#: the trainer's method name in the policy file
METHOD = "cem"


@dataclass(frozen=True)
class TrainSettings:
    """What ``puzzlekit train`` takes (all but ``family`` have defaults): the environment's
    settings (``obs_mode``, ``filter``, ``solution_cap``, ``max_calls``, ``start_clues``,
    ``sampler``) and the
    trainer's (``steps``, ``seed``, ``population``, ``elite``, ``episodes``, ``init_std``,
    ``min_std``)."""

    family: str
    params: Mapping[str, Any] = field(default_factory=dict)
    obs_mode: str = "structured"
    steps: int = 20_000
    seed: int = 0
    population: int = 16
    elite: int = 4
    episodes: int = 4
    init_std: float = 1.0
    min_std: float = 0.05
    filter: str | None = None
    #: the filter's solution cap: 2 by default, the closed loop's, so that the discriminative
    #: power the policy sees in training is the one it sees as a strategy
    solution_cap: int = 2
    max_calls: int = 20
    start_clues: int = 0
    #: the solution sampler of the environment (None: the family's); recorded in the file's
    #: ``env`` only when set
    sampler: str | None = None

    def check(self) -> None:
        """ValueError naming the first setting out of range."""
        for name, least in (("steps", 1), ("population", 2), ("elite", 1), ("episodes", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ValueError(f"{name} must be an integer of at least {least}, got {value!r}")
        if self.elite > self.population:
            raise ValueError(f"elite ({self.elite}) must not exceed population ({self.population})")
        for name in ("init_std", "min_std"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value < 1e6):
                raise ValueError(f"{name} must be a positive number, got {value!r}")


def make_env(settings: TrainSettings) -> GenerateEnv:
    """The training environment of ``settings`` (no wrappers: the trainer steps it directly)."""
    return GenerateEnv(
        settings.family,
        dict(settings.params),
        obs_mode=settings.obs_mode,
        filter=settings.filter,
        solution_cap=settings.solution_cap,
        max_calls=settings.max_calls,
        start_clues=settings.start_clues,
        sampler=settings.sampler,
    )


def rollout(
    env: GenerateEnv, policy: LinearPolicy, geo: Geometry, seed: int, act_seed: int
) -> tuple[float, int, bool]:
    """One episode of ``policy`` from ``env.reset(seed=seed)``, actions drawn with a generator
    seeded by ``act_seed``: its return, its steps and whether the filter accepted."""
    rng = np.random.default_rng(act_seed)
    obs, _ = env.reset(seed=seed)
    total, steps, since, n = 0.0, 0, 0, geo.n_slots
    while True:
        action = policy.act(obs, geo, since, env.max_calls, rng)
        since = 0 if action == n else since + 1
        obs, reward, terminated, truncated, _ = env.step(action)
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, terminated


@dataclass
class _Score:
    returns: float = 0.0
    steps: int = 0
    accepted: int = 0


def _evaluate(
    env: GenerateEnv, policy: LinearPolicy, geo: Geometry, seeds: list[tuple[int, int]]
) -> _Score:
    score = _Score()
    for seed, act_seed in seeds:
        ret, steps, ok = rollout(env, policy, geo, seed, act_seed)
        score.returns += ret / len(seeds)
        score.steps += steps
        score.accepted += ok
    return score


def train(
    settings: TrainSettings, progress: Callable[[int, int], None] | None = None
) -> PolicyFile:
    """Train a policy with ``settings``; ``progress(steps_used, steps)`` after each iteration."""
    from puzzlekit.core.version import __version__

    settings.check()
    env = make_env(settings)
    geo = Geometry.of(env.layout, env.schema)
    n = env.layout.n_slots
    dim = n_weights(n)
    rng = np.random.default_rng(settings.seed)
    mean = np.zeros(dim)
    std = np.full(dim, float(settings.init_std))
    used, iteration, curve = 0, 0, []
    while used < settings.steps:
        seeds = [
            (int(rng.integers(2**31)), int(rng.integers(2**31))) for _ in range(settings.episodes)
        ]
        cands = mean + std * rng.standard_normal((settings.population, dim))
        cands[0] = mean
        scores = []
        for theta in cands:
            score = _evaluate(env, LinearPolicy.from_vector(theta, n), geo, seeds)
            used += score.steps
            scores.append(score)
        returns = np.array([s.returns for s in scores])
        elite = np.argsort(-returns, kind="stable")[: settings.elite]
        mean = cands[elite].mean(axis=0)
        std = np.maximum(cands[elite].std(axis=0), settings.min_std)
        accepted = sum(s.accepted for s in scores) / (settings.population * settings.episodes)
        curve.append((float(used), float(returns.mean()), float(returns.max()), accepted))
        iteration += 1
        if progress is not None:
            progress(used, settings.steps)
    env.close()
    trainer = {
        "method": METHOD,
        **{k: v for k, v in asdict(settings).items() if k in _TRAINER_KEYS},
        "iterations": iteration,
    }
    env_settings = {
        "filter": env.filter_name,
        "solution_cap": settings.solution_cap,
        "max_calls": settings.max_calls,
        "start_clues": settings.start_clues,
        "rewards": dict(env.rewards),
        "call_cost": env.call_cost,
        "clue_penalty": env.clue_penalty,
    }
    if settings.sampler is not None:
        env_settings["sampler"] = settings.sampler
    return PolicyFile(
        policy=LinearPolicy.from_vector(mean, n),
        family=env.family.info.name,
        params=env.params,
        slots=env.layout.ids,
        observation=settings.obs_mode,
        env=env_settings,
        trainer=trainer,
        seed=settings.seed,
        steps={"budget": settings.steps, "used": used},
        curve=tuple(curve),
        puzzlekit=__version__,
    )


_TRAINER_KEYS = ("population", "elite", "episodes", "init_std", "min_std")

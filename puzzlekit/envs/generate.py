"""``GenerateEnv`` (``puzzlekit/Generate-v0``): the agent is the generator, one episode builds one
puzzle.

At :meth:`~GenerateEnv.reset` the environment samples a solution of the schema with its seeded
generator (the family's sampler, else the compiled one, as every strategy does:
:func:`puzzlekit.generators.samplers.sample_solution`; ``sampler=NAME`` draws them with a sampler of
:data:`puzzlekit.generators.samplers.SAMPLERS` instead, such as ``planted-deadly``); the candidate
clues are the family's true clues of that solution, laid out as slots
(:class:`~puzzlekit.generators.slots.SlotLayout`). Each action toggles one slot (reveals or hides
its clue) or submits the revealed clues to the filter verifier; only a submission calls the filter.
The observation is described in :mod:`puzzlekit.envs.observe`.

Rewards come from the filter alone (the holdout never reaches the agent or the reward: see
:class:`puzzlekit.envs.holdout.HoldoutEvaluation`):

- a toggle: 0;
- a submission: ``rewards[verdict] - call_cost``, and for UNIQUE
  ``rewards["UNIQUE"] - clue_penalty * revealed / n_slots - call_cost``, so a puzzle with fewer
  clues earns more; a MULTIPLE reward is scaled by how many solutions the filter found, up to
  its cap (``rewards["MULTIPLE"] * found / solution_cap``: two solutions cost less than many).

The episode terminates when the filter answers UNIQUE, and is truncated when ``max_calls``
submissions or ``max_steps`` actions are spent.

Not for: training (bring any Gymnasium learner) or the closed loop (:mod:`puzzlekit.loop`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.envs.observe import (
    DETAIL_KEYS,
    MODES,
    VERDICTS,
    fill_detail,
    fill_found,
    observation_space,
    solution_grid,
)
from puzzlekit.families import get_family
from puzzlekit.generators.base import draw_solution, sample_solution
from puzzlekit.generators.slots import SlotLayout
from puzzlekit.verifiers.registry import default_filter_name, get_verifier

#: the reward of a submission by verdict, before the per-call cost (see the module docstring)
DEFAULT_REWARDS: Mapping[str, float] = {
    "UNIQUE": 1.0,
    "MULTIPLE": -0.1,
    "UNSOLVABLE": -0.5,
    "DOMAIN_TOO_LARGE": -0.2,
    "UNDECIDED": -0.2,
    "INVALID_SPEC": -0.5,
}
#: solutions whose true clues an environment keeps (the clues are pure functions of them)
TRUTHS_KEPT = 1024
#: the seed of the probe solution whose true clues fix the slots of a schema
LAYOUT_SEED = 0


@dataclass
class _Answer:
    """The filter's answer to one clue set, as a submission reads it: the verdict, the
    solutions found, and the full report once something asks for it (:attr:`GenerateEnv.
    last_report`). ``found`` holds the found solutions' values (rows, in the schema's variable
    order) when the filter answered through its lean call (``verify_found``)."""

    instance: Instance
    verdict: Verdict
    count: int
    found: np.ndarray | None = None
    report: VerifierReport | None = None
    #: the reject-detail channels of ``found`` for the target of episode ``episode``
    channels: np.ndarray | None = None
    episode: int = -1


class GenerateEnv(gymnasium.Env):
    """An episode builds one puzzle of ``family`` with ``params``; actions are
    ``Discrete(n_slots + 1)``: ``i < n_slots`` toggles slot ``i``, ``n_slots`` submits.

    ``obs_mode``: ``"structured"`` (clues and reject detail) or ``"scalar"`` (PCGRL-style: the
    verdict reaches the agent through the reward only). ``filter``: a registered verifier name
    (default: the family's default filter, :func:`~puzzlekit.verifiers.registry.
    default_filter_name`) with ``filter_settings``. ``solution_cap``: solutions the filter
    reports (the gap and its power are computed over them). ``start_clues``: slots revealed at
    reset, drawn with the episode's generator (``"all"``: every slot). ``max_steps`` defaults to
    four actions per slot plus ``max_calls``. ``render_mode="ansi"`` draws the current puzzle with
    the last reject detail marked. ``report_cache``: filter reports kept per clue set (the same
    clues always get the same report; a submission answered from it still counts as a call,
    :attr:`cache_hits` counts them); 0 keeps none. ``sampler``: the solution sampler's name
    (None: the family's), checked against the schema.

    A filter with a lean call (``verify_found``, as ``bitmask`` has: the solutions its search
    finds, no report built) answers submissions through it when its verdict is UNIQUE or
    MULTIPLE: the observation and the reward read only the verdict and the found solutions, so
    they are the same as from the full report (pinned by a test), and :attr:`last_report`
    builds that report (one more filter call, not counted) only when it is read. ``lean=False``
    asks the full report of every submission.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        family: str = "sudoku",
        params: Mapping[str, Any] | None = None,
        *,
        obs_mode: str = "structured",
        filter: str | None = None,
        filter_settings: Mapping[str, Any] | None = None,
        solution_cap: int = 10,
        budget: SearchBudget | None = None,
        max_calls: int = 20,
        max_steps: int | None = None,
        start_clues: int | str = 0,
        rewards: Mapping[str, float] | None = None,
        call_cost: float = 0.01,
        clue_penalty: float = 0.5,
        report_cache: int = 4096,
        render_mode: str | None = None,
        sampler: str | None = None,
        lean: bool = True,
    ) -> None:
        _check_settings(obs_mode, render_mode, solution_cap, max_calls, report_cache, rewards)
        self.family = get_family(family)
        self.schema = self.family.schema(dict(params or {}))
        self.params = self.schema.params_dict()
        self.filter_name = filter or default_filter_name(self.family.info.name)
        self.filter = get_verifier(self.filter_name, **dict(filter_settings or {}))
        # solutions are sampled under the filter's rules, as the loop's strategies sample them
        self.sample_schema = self.filter.believed_schema(self.schema)
        self.sampler = _checked_sampler(sampler, self.schema)
        self.layout = SlotLayout.of(self.schema, self._true_clues(LAYOUT_SEED))
        self.layout.align(self._true_clues(LAYOUT_SEED + 1))  # refuse a layout that moves now
        n = self.layout.n_slots
        self.obs_mode = obs_mode
        self.solution_cap = solution_cap
        self.budget = budget
        self.max_calls = max_calls
        self.max_steps = 4 * n + max_calls if max_steps is None else max_steps
        _positive("max_steps", self.max_steps, 1)
        self.start_clues = n if start_clues == "all" else start_clues
        if not isinstance(self.start_clues, int) or not 0 <= self.start_clues <= n:
            raise ValueError(f"start_clues must be 0..{n} or 'all', got {start_clues!r}")
        self.rewards = {**DEFAULT_REWARDS, **dict(rewards or {})}
        self.call_cost = float(call_cost)
        self.clue_penalty = float(clue_penalty)
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(n + 1)
        self.observation_space = observation_space(self.layout, self.schema, max_calls, obs_mode)
        self._detail = np.zeros((len(DETAIL_KEYS), self.layout.n_cells), np.float32)
        self._revealed = np.zeros(n, np.int8)
        self._n_revealed = 0
        self._cover = np.zeros(self.layout.n_cells, np.int16)
        self._clues: tuple[Any, ...] = ()
        self._solution: dict[str, Any] = {}
        self._solution_grid = np.zeros(self.layout.shape, np.int16)
        self._target = np.zeros(len(self.schema.variables), np.int64)
        self._episode = 0
        # the lean call's channels are filled per variable: only when no two share a cell
        distinct = len(set(self.layout.var_cells.tolist())) == len(self.layout.var_cells)
        self._lean = bool(lean) and distinct
        self._verdict = 0
        self._calls = 0
        self._steps = 0
        self._done = True
        self.report_cache = report_cache
        # the same clues give the same report (ties are drawn from the digest): kept, bounded
        self._reports: OrderedDict[tuple[Any, ...], _Answer] = OrderedDict()
        self._truths: OrderedDict[tuple[Any, ...], tuple[Any, ...]] = OrderedDict()
        #: submissions answered from the kept reports instead of a filter call
        self.cache_hits = 0
        self._last: _Answer | None = None
        #: submissions since the environment was made (a wrapper tells a new one by it)
        self.submissions = 0

    # -- the Gymnasium API ----------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        self._solution = draw_solution(self.sample_schema, rng, self.sampler)
        self._clues = self._truth_of(self._solution)
        self._solution_grid = solution_grid(self.layout, self.schema, self._solution)
        self._target = np.array([self._solution[n] for n in self.schema.names], np.int64)
        self._episode += 1
        self._revealed.fill(0)
        self._n_revealed = 0
        self._cover.fill(0)
        if self.start_clues:
            for slot in sorted(rng.choice(self.layout.n_slots, self.start_clues, replace=False)):
                self._toggle(int(slot))
        self._detail.fill(0.0)
        self._verdict = 0
        self._calls = 0
        self._steps = 0
        self._done = False
        self._last = None
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        slot = self._action(action)
        if self._done:
            raise RuntimeError("the episode has ended: call reset() before step()")
        self._steps += 1
        reward = 0.0
        terminated = False
        if slot < self.layout.n_slots:
            self._toggle(slot)
        else:
            answer = self._submit()
            reward = self._reward(answer)
            terminated = answer.verdict is Verdict.UNIQUE
        truncated = not terminated and (
            self._calls >= self.max_calls or self._steps >= self.max_steps
        )
        self._done = terminated or truncated
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        marks = None
        if self.last_report is not None and self.last_report.reject_detail is not None:
            marks = self.last_report.reject_detail.marks()
        return self.family.render_ascii(self.current_instance(), self._solution, marks)

    # -- what an agent may read besides the observation -----------------------------------------
    @property
    def solution(self) -> dict[str, Any]:
        """The episode's solution (every candidate clue is true of it)."""
        return dict(self._solution)

    @property
    def calls(self) -> int:
        """Filter calls used in the episode."""
        return self._calls

    # the last submission (read by :class:`~puzzlekit.envs.holdout.HoldoutEvaluation`; never
    # part of an observation)
    @property
    def last_submitted(self) -> Instance | None:
        """The instance of the episode's last submission (None before one)."""
        return None if self._last is None else self._last.instance

    @property
    def last_verdict(self) -> Verdict | None:
        """The filter's verdict on the last submission (None before one)."""
        return None if self._last is None else self._last.verdict

    @property
    def last_report(self) -> VerifierReport | None:
        """The filter's full report on the last submission (None before one); after a lean
        answer it is built when first read, by a filter call that :attr:`calls` does not count
        (the same clues give the same report)."""
        answer = self._last
        if answer is None:
            return None
        if answer.report is None:
            answer.report = self._verify(answer.instance)
        return answer.report

    def current_instance(self) -> Instance:
        """The puzzle of the revealed clues, as the next submission would send it."""
        picked = [self._clues[i] for i in np.flatnonzero(self._revealed)]
        return Instance.make(self.schema.family, self.params, picked)

    def action_meaning(self, action: int) -> str:
        """``"toggle r1c1"`` or ``"submit"``: what ``action`` does."""
        slot = self._action(action)
        return "submit" if slot == self.layout.n_slots else f"toggle {self.layout.ids[slot]}"

    # -- inside ---------------------------------------------------------------------------------
    def _action(self, action: Any) -> int:
        n = int(self.action_space.n)
        value = action
        if isinstance(value, np.ndarray) and value.shape == ():
            value = value.item()
        ok = isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
        if not ok or not 0 <= int(value) < n:
            raise ValueError(
                f"action {action!r} is not in the action space Discrete({n}): "
                f"0..{n - 2} toggle a slot, {n - 1} submits"
            )
        return int(value)

    def _truth_of(self, solution: Mapping[str, Any]) -> tuple[Any, ...]:
        """The true clues of ``solution`` in slot order, kept for the last solutions seen (a
        small schema has few: a 4×4 Sudoku 288), so that a solution met again costs nothing."""
        key = tuple(solution[name] for name in self.schema.names)
        clues = self._truths.get(key)
        if clues is None:
            clues = self.layout.align(self.family.clues_from_solution(self.schema, solution))
            self._truths[key] = clues
            if len(self._truths) > TRUTHS_KEPT:
                self._truths.popitem(last=False)
        else:
            self._truths.move_to_end(key)
        return clues

    def _true_clues(self, seed: int) -> list[Any]:
        probe = sample_solution(self.sample_schema, np.random.default_rng(seed))
        return self.family.clues_from_solution(self.schema, probe)

    def _toggle(self, slot: int) -> None:
        cells = self.layout.slot_cells[slot]
        if self._revealed[slot]:
            self._revealed[slot] = 0
            self._n_revealed -= 1
            self._cover[cells] -= 1
        else:
            self._revealed[slot] = 1
            self._n_revealed += 1
            self._cover[cells] += 1

    def _submit(self) -> _Answer:
        self._calls += 1
        self.submissions += 1
        picked = tuple(self._clues[i] for i in np.flatnonzero(self._revealed))
        answer = self._reports.get(picked)
        if answer is None:
            answer = self._answer(picked)
            if self.report_cache:
                self._reports[picked] = answer
                if len(self._reports) > self.report_cache:
                    self._reports.popitem(last=False)
        else:
            self._reports.move_to_end(picked)
            self.cache_hits += 1
        self._last = answer
        self._verdict = VERDICTS.index(answer.verdict.value)
        if self.obs_mode == "structured":
            if answer.report is None and answer.found is not None:
                if answer.episode == self._episode:  # the same clues again in this episode
                    self._detail[:] = answer.channels
                else:
                    fill_found(self._detail, answer.found, self._target, self.layout.var_cells)
                    answer.episode, answer.channels = self._episode, self._detail.copy()
            else:
                fill_detail(self._detail, answer.report, self.layout, self._solution)
        return answer

    def _answer(self, picked: tuple[Any, ...]) -> _Answer:
        """The filter's answer to the clues ``picked``: its lean call when it has one and the
        verdict is UNIQUE or MULTIPLE, else its full report."""
        instance = Instance.make(self.schema.family, self.params, picked)
        lean = getattr(self.filter, "verify_found", None) if self._lean else None
        if lean is not None:
            found = lean(instance, solution_cap=self.solution_cap, budget=self.budget)
            if found is not None:
                verdict = Verdict.UNIQUE if len(found) == 1 else Verdict.MULTIPLE
                return _Answer(instance, verdict, len(found), found=found)
        report = self._verify(instance)
        return _Answer(instance, report.verdict, report.solution_count, report=report)

    def _verify(self, instance: Instance) -> VerifierReport:
        return self.filter.verify(instance, solution_cap=self.solution_cap, budget=self.budget)

    def _reward(self, answer: _Answer) -> float:
        verdict = answer.verdict
        base = self.rewards[verdict.value]
        if verdict is Verdict.UNIQUE:
            share = self._n_revealed / self.layout.n_slots
            base -= self.clue_penalty * share
        elif verdict is Verdict.MULTIPLE:
            base *= min(answer.count, self.solution_cap) / self.solution_cap
        return float(base - self.call_cost)

    def _observation(self) -> dict[str, Any]:
        grid = self.layout.shape
        obs: dict[str, Any] = {
            "revealed": self._revealed.copy(),
            "clues": self._cover.reshape(grid).copy(),
            "solution": self._solution_grid.copy(),
        }
        if self.obs_mode == "structured":
            obs["verdict"] = self._verdict
            # one copy of the four channels, each key a view of its row
            detail = self._detail.reshape(len(DETAIL_KEYS), *grid).copy()
            for i, key in enumerate(DETAIL_KEYS):
                obs[key] = detail[i]
        obs["calls"] = self._calls
        return obs

    def _info(self) -> dict[str, Any]:
        return {
            "verdict": VERDICTS[self._verdict],
            "clues": self._n_revealed,
            "calls": self._calls,
        }


def _check_settings(
    obs_mode: str,
    render_mode: str | None,
    solution_cap: int,
    max_calls: int,
    report_cache: int,
    rewards: Mapping[str, float] | None,
) -> None:
    """ValueError naming the first of :class:`GenerateEnv`'s settings that cannot be used."""
    if obs_mode not in MODES:
        raise ValueError(f"obs_mode {obs_mode!r} is not one of {', '.join(MODES)}")
    if render_mode is not None and render_mode not in GenerateEnv.metadata["render_modes"]:
        raise ValueError(f"render_mode {render_mode!r} is not one of: ansi")
    _positive("solution_cap", solution_cap, 2)
    _positive("max_calls", max_calls, 1)
    if not isinstance(report_cache, int) or isinstance(report_cache, bool) or report_cache < 0:
        raise ValueError(f"report_cache must be a non-negative integer, got {report_cache!r}")
    unknown = sorted(set(rewards or {}) - set(DEFAULT_REWARDS))
    if unknown:
        raise ValueError(f"rewards: {unknown[0]!r} is not a verdict")


def _checked_sampler(sampler: str | None, schema: Any) -> str | None:
    """``sampler`` (None: the family's own); ValueError when it cannot sample ``schema``."""
    if sampler is not None:
        from puzzlekit.generators.samplers import check_sampler

        problem = check_sampler(sampler, schema)
        if problem is not None:
            raise ValueError(f"sampler {problem}")
    return sampler


def _positive(name: str, value: Any, least: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ValueError(f"{name} must be an integer of at least {least}, got {value!r}")

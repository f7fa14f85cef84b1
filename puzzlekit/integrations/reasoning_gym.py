"""puzzlekit's families as reasoning-gym datasets: :func:`register` adds ``puzzlekit-<family>``.

After ``register()``, ``reasoning_gym.create_dataset("puzzlekit-sudoku", size=10, seed=1)`` is a
procedural dataset whose entry ``i`` is a puzzle made on demand by the closed loop
(:func:`puzzlekit.loop.batch.generate`, the engine of ``puzzlekit generate``: filter UNIQUE,
then the holdout, in this process) from the seed ``loop_seed(seed, i)``, so one seed gives the
same entries in any order. An entry is ``{"question", "answer", "metadata"}``:

- ``question``: the family's prompt (:meth:`Family.prompt`, ``style``);
- ``answer``: the solution written as the prompt asks (:meth:`Family.format_answer`);
- ``metadata``: ``source_dataset``, ``source_index`` (what reasoning-gym's composite datasets
  read), ``family``, ``params``, ``instance`` (the puzzle's JSON object), ``digest``,
  ``text``, ``clue_count``, ``seed`` and ``provenance`` (the puzzlekit version, filter and
  holdout with their verdicts).

``score_answer(answer, entry)`` judges the answer with :func:`~puzzlekit.answers.check_answer`
against the rules of the entry's ``instance`` (every valid solution scores 1.0): the report's
``score`` (partial credit, the share of cells right) or, with ``partial=False``, 1.0 for a
CORRECT answer and 0.0 otherwise, or with ``givens=False`` the share of the cells to fill that
are right (:func:`puzzlekit.integrations.reward.free_score`: copying the puzzle earns 0.0); a
MALFORMED or missing answer 0.0.

The config of ``create_dataset`` (:class:`PuzzlekitConfig`): ``params`` (default: the family's
own, as ``puzzlekit generate`` takes), ``seed``, ``size``, ``style`` (prompt style),
``strategy``, ``minimize``, ``clues``, ``filter`` and ``holdout`` (``None``: the family's
default filter and the other exact backend; holdout ``"none"`` skips it), ``partial``,
``givens``.

reasoning-gym is an optional extra (``pip install 'puzzlekit[reasoning-gym]'``); without it
:func:`register` raises ImportError saying so. Nothing else in puzzlekit imports it.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

__all__ = ["PREFIX", "PuzzlekitConfig", "dataset_name", "register"]

#: reasoning-gym dataset names are ``PREFIX + family``
PREFIX = "puzzlekit-"
#: entries a dataset keeps made (iterating twice, or scoring, makes nothing again)
ENTRIES_KEPT = 4096


def dataset_name(family: str) -> str:
    """The reasoning-gym name of ``family``'s dataset: ``puzzlekit-<family>``."""
    return PREFIX + family


@dataclasses.dataclass
class PuzzlekitConfig:
    """What one ``create_dataset("puzzlekit-<family>", ...)`` makes (module docstring)."""

    family: str = "sudoku"
    params: dict[str, Any] | None = None
    seed: int | None = None
    size: int = 500
    style: str = "plain"
    strategy: str = "adaptive"
    minimize: bool = False
    clues: int | None = None
    filter: str | None = None
    holdout: str | None = None
    partial: bool = True
    givens: bool = True

    def validate(self) -> None:
        """Refuse what could not make a dataset, with the reason (reasoning-gym calls this)."""
        from puzzlekit.answers.prompts import STYLES
        from puzzlekit.families import default_params, get_family
        from puzzlekit.verifiers.registry import VERIFIERS

        family = get_family(self.family)  # SpecError naming the closest families
        family.schema(dict(self.params) if self.params is not None else default_params(family))
        if not isinstance(self.size, int) or isinstance(self.size, bool) or self.size < 0:
            raise ValueError(f"size must be a non-negative integer, got {self.size!r}")
        if self.seed is not None and (not isinstance(self.seed, int) or self.seed < 0):
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        styles = {*STYLES, *family.info.prompt_templates}
        if self.style not in styles:
            raise ValueError(f"style {self.style!r} is not one of {', '.join(sorted(styles))}")
        for what, name in (("filter", self.filter), ("holdout", self.holdout)):
            if name is not None and name != "none" and name not in VERIFIERS:
                raise ValueError(f"{what} {name!r} is not a registered verifier")


def _generate_config(config: PuzzlekitConfig, seed: int) -> Any:
    from puzzlekit.families import default_params, get_family
    from puzzlekit.loop.batch import GenerateConfig
    from puzzlekit.verifiers.registry import default_filter_name, default_holdout_name

    family = get_family(config.family)
    params = dict(config.params) if config.params is not None else default_params(family)
    filter_name = config.filter or default_filter_name(family.info.name)
    holdout = config.holdout or default_holdout_name(filter_name)
    return GenerateConfig(
        family=family.info.name,
        params=params,
        count=1,
        strategy=config.strategy,
        clues=config.clues,
        minimize=config.minimize,
        filter=filter_name,
        holdout=None if holdout == "none" else holdout,
        seed=seed,
        holdout_in_process=True,
    )


def make_entry(config: PuzzlekitConfig, seed: int, idx: int, name: str) -> dict[str, Any]:
    """Entry ``idx`` of a dataset whose seed is ``seed`` (module docstring)."""
    from puzzlekit.core.model import Instance
    from puzzlekit.families import get_family
    from puzzlekit.loop.batch import generate, loop_seed

    entry_seed = loop_seed(seed, idx)
    gen = _generate_config(config, entry_seed)
    record = next((r for r in generate(gen) if r["status"] == "accepted"), None)
    if record is None:
        raise RuntimeError(
            f"{name}[{idx}]: no puzzle accepted within {gen.max_loops_per_puzzle} loops of "
            f"{gen.max_calls} filter calls (seed {entry_seed})"
        )
    raw = record["instance"]
    instance = raw if isinstance(raw, Instance) else Instance.from_json_obj(raw)
    family = get_family(instance.family)
    solution = {str(k): int(v) for k, v in record["solution"].items()}
    provenance = dict(record.get("provenance") or {})
    provenance.update(
        seed=str(provenance.get("seed")),
        filterVerdict=record.get("filterVerdict"),
        holdoutVerdict=record.get("holdoutVerdict"),
    )
    return {
        "question": family.prompt(instance, style=config.style),
        "answer": family.format_answer(instance, solution, style=config.style),
        "metadata": {
            "source_dataset": name,
            "source_index": idx,
            "family": instance.family,
            "params": instance.params_dict(),
            "instance": instance.to_json_obj(),
            "digest": instance.digest,
            "text": record.get("text"),
            "clue_count": len(instance.clues),
            "seed": str(entry_seed),
            "provenance": provenance,
        },
    }


def score(
    answer: Any, entry: Mapping[str, Any], *, partial: bool = True, givens: bool = True
) -> float:
    """The score of ``answer`` to ``entry`` (module docstring)."""
    from puzzlekit.answers import check_answer
    from puzzlekit.core.model import Instance
    from puzzlekit.integrations.reward import free_score

    if answer is None or (isinstance(answer, str) and not answer.strip()):
        return 0.0
    raw = entry["metadata"]["instance"]
    instance = Instance.from_json(raw) if isinstance(raw, str) else Instance.from_json_obj(raw)
    report = check_answer(instance, answer)
    if not partial:
        return 1.0 if report.correct else 0.0
    return float(report.score) if givens else free_score(instance, report)


def _import_reasoning_gym() -> Any:
    try:
        import reasoning_gym
    except ImportError as exc:
        raise ImportError(
            "puzzlekit.integrations.reasoning_gym needs the reasoning-gym package: "
            "pip install 'puzzlekit[reasoning-gym]' (or pip install reasoning-gym)"
        ) from exc
    return reasoning_gym


@functools.cache
def _dataset_class() -> type:
    """The :class:`reasoning_gym.dataset.ProceduralDataset` subclass (built once, on first use,
    since its base class lives in the optional package)."""
    from reasoning_gym.dataset import ProceduralDataset

    class PuzzlekitDataset(ProceduralDataset):
        """A puzzlekit family as a reasoning-gym dataset (see
        :mod:`puzzlekit.integrations.reasoning_gym`)."""

        def __init__(self, config: PuzzlekitConfig) -> None:
            super().__init__(config=config, seed=config.seed, size=config.size)
            self.name = dataset_name(config.family)
            self._entries: OrderedDict[int, dict[str, Any]] = OrderedDict()

        def __len__(self) -> int:
            return self.size

        def __iter__(self) -> Any:
            self._current_idx = 0
            return self

        def __getitem__(self, idx: int) -> dict[str, Any]:
            if not isinstance(idx, int) or not -self.size <= idx < self.size:
                raise IndexError(f"{self.name}: index {idx!r} outside 0..{self.size - 1}")
            idx %= self.size
            entry = self._entries.get(idx)
            if entry is None:
                entry = make_entry(self.config, self.seed, idx, self.name)
                self._entries[idx] = entry
                if len(self._entries) > ENTRIES_KEPT:
                    self._entries.popitem(last=False)
            return copy.deepcopy(entry)  # a caller may add to it (composites add version ids)

        def score_answer(self, answer: Any, entry: dict[str, Any]) -> float:
            return score(answer, entry, partial=self.config.partial, givens=self.config.givens)

    return PuzzlekitDataset


def _config_class(family: str) -> type:
    """A config dataclass whose ``family`` defaults to ``family`` (``create_dataset`` builds
    the config from its keyword arguments alone)."""
    camel = "".join(part.capitalize() for part in family.replace("_", "-").split("-"))
    return dataclasses.make_dataclass(
        f"Puzzlekit{camel}Config",
        [("family", str, dataclasses.field(default=family))],
        bases=(PuzzlekitConfig,),
    )


def register(families: list[str] | None = None) -> list[str]:
    """Register ``puzzlekit-<family>`` with reasoning-gym for every registered family (or
    those named), and return the dataset names. Calling it again registers what is new and
    keeps what is there; a name reasoning-gym already holds for another dataset is an error."""
    rg = _import_reasoning_gym()
    from reasoning_gym.factory import DATASETS

    from puzzlekit.families import families as all_families
    from puzzlekit.families import get_family

    names = [get_family(f).info.name for f in families] if families else None
    dataset_cls = _dataset_class()
    out = []
    for fam in all_families():
        if names is not None and fam.info.name not in names:
            continue
        name = dataset_name(fam.info.name)
        held = DATASETS.get(name)
        if held is None:
            rg.register_dataset(name, dataset_cls, _config_class(fam.info.name))
        elif held[0] is not dataset_cls:
            raise ValueError(f"reasoning-gym already holds a dataset {name!r} that is not ours")
        out.append(name)
    return out

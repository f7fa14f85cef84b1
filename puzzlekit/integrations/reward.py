"""A reward function in the shape TRL's GRPO trainer calls: ``reward(completions, **columns)``.

TRL calls each reward function with the batch's ``completions`` (plain strings, or for a
conversational dataset lists of chat messages ``[{"role": "assistant", "content": ...}]``) and
every other column of the dataset as a keyword argument, one value per completion (with
``prompts``, ``completion_ids`` and ``trainer_state`` besides, which are ignored here). The
puzzle of each row is read from its ``instance`` column (an :class:`Instance`, its JSON object
or JSON text) or, as ``puzzlekit export`` writes rows, from ``family`` + ``params`` + ``text``
(the family's text line); each completion is judged by
:func:`~puzzlekit.answers.check_answers` against the puzzle's rules, so every valid solution
scores 1.0:

- ``partial=True`` (the default): the report's ``score``, the share of cells right (partial
  credit; an answer that repeats the puzzle's givens and fills nothing earns their share);
  with ``givens=False``, the share of the cells the puzzle leaves to fill that are right
  (:func:`free_score`), so that copying the puzzle earns 0.0;
- ``partial=False``: 1.0 for a CORRECT answer, else 0.0;
- a MALFORMED answer (nothing readable, a completion that is not text) scores 0.0 either way.

Nothing here imports TRL: :data:`reward` and what :func:`make_reward` returns are plain
functions. A dataset row whose puzzle cannot be read is an error (``ValueError`` naming the row
and the column), never a zero: it is the data that is wrong, not the model.

Not for: judging one answer by hand (``pk.check_answer``), reasoning-gym
(:mod:`puzzlekit.integrations.reasoning_gym`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from puzzlekit.answers import AnswerReport, AnswerVerdict, check_answers
from puzzlekit.core.model import Instance, SpecError

__all__ = [
    "RewardFunction",
    "completion_text",
    "free_score",
    "judge_completions",
    "make_reward",
    "reward",
]

#: what a reward function built here looks like: completions and columns in, floats out
RewardFunction = Callable[..., list[float]]


def completion_text(completion: Any) -> str | None:
    """The text of one completion: a string itself; a chat-message list its last assistant
    message's content (else its last message's); a message its content. A content given as
    parts (``[{"type": "text", "text": ...}]``) is joined. None when there is no text."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content(completion.get("content"))
    if isinstance(completion, Sequence) and completion:
        messages = [m for m in completion if isinstance(m, Mapping)]
        if not messages:
            return None
        spoken = [m for m in messages if m.get("role") == "assistant"] or messages
        return _content(spoken[-1].get("content"))
    return None


def _content(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [
            p.get("text") if isinstance(p, Mapping) else p
            for p in content
            if isinstance(p, str) or (isinstance(p, Mapping) and isinstance(p.get("text"), str))
        ]
        return "\n".join(parts) if parts else None
    return None


@functools.lru_cache(maxsize=4096)
def _from_json(text: str) -> Instance:
    return Instance.from_json(text)


@functools.lru_cache(maxsize=4096)
def _from_line(family: str, params: str, text: str) -> Instance:
    from puzzlekit.families import get_family

    return get_family(family).parse_text(text, json.loads(params) if params else None)


def _params_text(params: Any) -> str:
    if params is None or params == "":
        return ""
    if isinstance(params, str):
        return params
    return json.dumps(params, sort_keys=True)


def _instance_of(columns: Mapping[str, Any], column: str, i: int) -> Instance:
    """The puzzle of row ``i`` (module docstring)."""
    try:
        if column in columns:
            raw = columns[column][i]
            if isinstance(raw, Instance):
                return raw
            if isinstance(raw, Mapping):
                return Instance.from_json_obj(dict(raw))
            if isinstance(raw, str | bytes):
                text = raw.decode() if isinstance(raw, bytes) else raw
                if text.lstrip().startswith("{"):
                    return _from_json(text)
                if "family" in columns:  # a text line: its family (and params) in columns
                    params = _params_text(columns.get("params", [None] * (i + 1))[i])
                    return _from_line(str(columns["family"][i]), params, text)
            raise ValueError(
                f"the {column!r} column holds {type(raw).__name__}, not an instance (its JSON "
                "object or text, or a text line beside a 'family' column)"
            )
        if "family" in columns and "text" in columns:
            params = _params_text(columns.get("params", [None] * (i + 1))[i])
            return _from_line(str(columns["family"][i]), params, str(columns["text"][i]))
    except SpecError as exc:
        raise ValueError(f"row {i}: the puzzle in column {column!r} does not read: {exc}") from exc
    except (IndexError, TypeError, KeyError) as exc:
        raise ValueError(f"row {i}: no puzzle in column {column!r} ({exc})") from exc
    raise ValueError(
        f"no puzzle column: the reward reads column {column!r}, or 'family' + 'text' (+ "
        f"'params') as puzzlekit export writes them; the columns given are {sorted(columns)}"
    )


def judge_completions(
    completions: Sequence[Any], *, column: str = "instance", **columns: Any
) -> list[AnswerReport]:
    """One :class:`~puzzlekit.answers.AnswerReport` per completion, each judged against the
    puzzle of its row (module docstring): what :func:`make_reward`'s functions score."""
    return _judged(completions, column, columns)[1]


def _judged(
    completions: Sequence[Any], column: str, columns: Mapping[str, Any]
) -> tuple[list[Instance], list[AnswerReport]]:
    instances = [_instance_of(columns, column, i) for i in range(len(completions))]
    texts: list[Any] = []
    for c in completions:
        text = completion_text(c)
        # not text at all: an empty answer reads as MALFORMED
        texts.append("" if text is None else text)
    return instances, check_answers(instances, texts)


def free_score(instance: Instance, report: AnswerReport) -> float:
    """The share of the cells ``instance`` leaves to fill (those it does not give) that
    ``report`` counts right: 1.0 when CORRECT, 0.0 when MALFORMED or when the answer only
    repeats the givens. A puzzle that gives every cell, or an only-winning-move puzzle (whose
    answer is a move), keeps the report's ``score``."""
    if report.verdict is AnswerVerdict.CORRECT:
        return 1.0
    if report.verdict is AnswerVerdict.MALFORMED:
        return 0.0
    from puzzlekit.answers.compiled import compiled
    from puzzlekit.families import get_family
    from puzzlekit.families.games import OnlyWinningMove

    if isinstance(get_family(instance.family), OnlyWinningMove):
        return float(report.score)
    comp = compiled(instance)
    given = set(comp.given_idx.tolist())
    free = [comp.coords[i] for i in range(comp.n) if i not in given]
    if not free:
        return float(report.score)
    wrong = {c for v in report.violations for c in v.coords}
    return sum(c not in wrong for c in free) / len(free)


def make_reward(
    *,
    column: str = "instance",
    partial: bool = True,
    givens: bool = True,
    name: str = "puzzlekit_reward",
) -> RewardFunction:
    """A reward function ``reward(completions, **columns) -> list[float]`` (module docstring):
    the puzzle read from ``column`` (else ``family`` + ``text``), scored with partial credit
    (``partial``; over every cell, or with ``givens=False`` over the cells to fill) or 1/0.
    ``name`` is the function's ``__name__`` (TRL logs rewards by it)."""

    def reward_fn(completions: Sequence[Any], **columns: Any) -> list[float]:
        instances, reports = _judged(completions, column, columns)
        if not partial:
            return [1.0 if r.correct else 0.0 for r in reports]
        if givens:
            return [float(r.score) for r in reports]
        return [free_score(inst, r) for inst, r in zip(instances, reports, strict=True)]

    if not partial:
        how = "1.0 when correct, else 0.0"
    elif givens:
        how = "partial credit (the share of cells right)"
    else:
        how = "partial credit (the share of the cells to fill that are right)"
    reward_fn.__name__ = reward_fn.__qualname__ = name
    reward_fn.__doc__ = (
        f"puzzlekit reward: the puzzle from column {column!r} (else 'family' + 'text'), "
        f"{how}; a malformed answer 0.0."
    )
    return reward_fn


#: the default reward: the ``instance`` column, partial credit
reward = make_reward()

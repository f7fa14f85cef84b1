"""puzzlekit: closed-loop puzzle generation with verifiers that say where and why they reject.

Typical use::

    import puzzlekit as pk
    inst = pk.parse("sudoku", line)
    rep = pk.verify(inst)
    rep.verdict, rep.reject_detail, rep.to_json()
    pk.check_answer(inst, answer)   # a solver's answer judged against the rules
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from puzzlekit.answers import AnswerReport, AnswerVerdict, check_answer, check_answers
    from puzzlekit.core.model import Clue, Instance, SpecError, Violation
    from puzzlekit.core.report import RejectDetail, Verdict, VerifierReport

from puzzlekit.core.version import __version__ as __version__

# The model's names are imported on first use, so ``import puzzlekit`` (and ``puzzlekit
# --version``) costs no numpy and no floor.
_LAZY = {
    "Clue": "puzzlekit.core.model",
    "Instance": "puzzlekit.core.model",
    "SpecError": "puzzlekit.core.model",
    "Violation": "puzzlekit.core.model",
    "RejectDetail": "puzzlekit.core.report",
    "Verdict": "puzzlekit.core.report",
    "VerifierReport": "puzzlekit.core.report",
    "AnswerReport": "puzzlekit.answers",
    "AnswerVerdict": "puzzlekit.answers",
    "check_answer": "puzzlekit.answers",
    "check_answers": "puzzlekit.answers",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'puzzlekit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "AnswerReport",
    "AnswerVerdict",
    "Clue",
    "Instance",
    "RejectDetail",
    "SpecError",
    "Verdict",
    "VerifierReport",
    "Violation",
    "check_answer",
    "check_answers",
    "get_family",
    "get_verifier",
    "parse",
    "schema",
    "verify",
    "verify_many",
]


def get_family(name: str) -> Any:
    """The registered family ``name`` (raises SpecError for an unknown family)."""
    from puzzlekit.families import get_family as _get

    return _get(name)


def schema(family: str, params: Mapping[str, Any] | None = None) -> Any:
    """The schema of ``family`` with ``params``."""
    return get_family(family).schema(params or {})


def parse(family: str, text: str, params: Mapping[str, Any] | None = None) -> Instance:
    """Read one puzzle in the family's text format; raises SpecError naming what is wrong."""
    return get_family(family).parse_text(text, params)


def get_verifier(name: str, **settings: Any) -> Any:
    """A new verifier ``name`` built with ``settings`` (keep it to reuse what it builds)."""
    from puzzlekit.verifiers.registry import get_verifier as _get

    return _get(name, **settings)


def verify(
    instance: Instance,
    *,
    verifier: str | None = None,
    solution_cap: int = 100,
    budget: Any = None,
    extras: Collection[str] = (),
) -> VerifierReport:
    """Verify ``instance`` with the named backend (default:
    :func:`~puzzlekit.verifiers.registry.default_verifier_name`: the family's own, else the
    first of ``bitmask``, ``sat``, ``enumerative`` that accepts it; ``bitmask`` for Sudoku,
    Latin, KenKen, Futoshiki and any family of all-different rules that compile, ``sat`` for
    the other grids), asking for the report ``extras`` (e.g. ``{"forcedCells"}``).

    The verifier is kept for the life of the process per name
    (:func:`puzzlekit.verifiers.registry.kept_verifier`), so one call after another costs what
    a kept verifier costs, not a new solver each time; safe from several threads.
    """
    if verifier is None and not extras:  # a grid line: its schema's choice, asked once
        line = _VERIFY_LINE[0] if _VERIFY_LINE else _verify_line()
        rep = line(instance, solution_cap, budget)
        if rep is not None:
            return rep  # type: ignore[no-any-return]
    from puzzlekit.core.protocols import report_extras
    from puzzlekit.verifiers.registry import choice_seconds, default_verifier_name, kept_verifier

    asked = report_extras(extras)
    name = verifier or default_verifier_name(instance, choice_seconds(budget))
    with kept_verifier(name) as v:
        return v.verify(instance, solution_cap=solution_cap, budget=budget, extras=asked)


_VERIFY_LINE: list[Any] = []  # registry.verify_line, imported on the first verify


def _verify_line() -> Any:
    from puzzlekit.verifiers.registry import verify_line

    _VERIFY_LINE.append(verify_line)
    return verify_line


def verify_many(
    items: Iterable[Instance | str],
    family: str | None = None,
    params: Mapping[str, Any] | None = None,
    *,
    verifier: str | None = None,
    solution_cap: int = 100,
    budget: Any = None,
    extras: Collection[str] = (),
) -> list[VerifierReport]:
    """The report of each item, in order: instances, or lines of text in ``family``'s one-line
    format (a JSON instance line; without a family, a Sudoku grid). Each report equals
    :func:`verify`'s (``stats.seconds`` aside); a line that does not read gives the
    ``INVALID_SPEC`` report ``puzzlekit verify`` prints for it. Backends that can
    (``bitmask``) search a chunk of puzzles in one compiled call
    (:mod:`puzzlekit.verifiers.many`)."""
    from puzzlekit.verifiers.many import verify_many as _many

    return _many(
        items,
        family,
        params,
        verifier=verifier,
        solution_cap=solution_cap,
        budget=budget,
        extras=extras,
    )

"""Judging a solver's answer: checks of full answers, partial boards and move sequences.

:func:`check_answer` judges one answer against the puzzle's rules (never against a stored
solution): an :class:`AnswerReport` with a verdict (``CORRECT``, ``INCORRECT``, ``INCOMPLETE``,
``MALFORMED``), a score (the share of cells right) and coordinate-tagged violations.
:func:`check_answers` judges many at once with array operations. :func:`check_partial` asks
whether a partly filled board still has a completion and, if not, which placed cells make it
dead; :func:`check_moves` judges a sequence of placements move by move.

This floor sits above the verifiers (a partial check asks one) and below ``app``.
"""

from __future__ import annotations

from puzzlekit.answers.check import check_answer, check_answers
from puzzlekit.answers.partial import check_moves, check_partial
from puzzlekit.answers.reading import Unreadable, read_cells
from puzzlekit.answers.report import (
    ANSWER_VIOLATION_TYPES,
    AnswerReport,
    AnswerVerdict,
    AnswerViolation,
)

__all__ = [
    "ANSWER_VIOLATION_TYPES",
    "AnswerReport",
    "AnswerVerdict",
    "AnswerViolation",
    "Unreadable",
    "check_answer",
    "check_answers",
    "check_moves",
    "check_partial",
    "read_cells",
]

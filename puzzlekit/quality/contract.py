"""What a contract check reports: problems with stable codes, the error that lists them, and the
summary of a check that passed. Shared by ``check_family`` and ``check_verifier``.

Not for: the checks themselves (:mod:`puzzlekit.quality.family_check`,
:mod:`puzzlekit.quality.verifier_check` and the modules of their steps).
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field

from puzzlekit.core.model import Instance


@dataclass(frozen=True)
class ContractProblem:
    """One failed check: a stable ``code`` and a sentence saying what is wrong and what to fix."""

    code: str
    message: str

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


class ContractError(AssertionError):
    """A family or verifier breaks the contract; ``problems`` lists every failed check."""

    def __init__(self, subject: str, problems: Sequence[ContractProblem], notes: Sequence[str]):
        self.subject = subject
        self.problems = tuple(problems)
        self.notes = tuple(notes)
        shown = self.problems[:12]
        lines = [f"{subject}: {len(self.problems)} problem(s)"]
        lines += [f"  - {p}" for p in shown]
        if len(self.problems) > len(shown):
            lines.append(f"  ... and {len(self.problems) - len(shown)} more")
        lines += [f"  note: {n}" for n in self.notes]
        super().__init__("\n".join(lines))

    @property
    def codes(self) -> set[str]:
        return {p.code for p in self.problems}


@dataclass
class CheckSummary:
    """What a passing check covered: instances, reports per verifier, and notes on skipped steps."""

    subject: str
    instances: int = 0
    reports: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class Checker:
    """Collects the problems and notes of one check run."""

    def __init__(self, subject: str) -> None:
        self.subject = subject
        self.problems: list[ContractProblem] = []
        self.summary = CheckSummary(subject)

    def fail(self, code: str, message: str) -> None:
        self.problems.append(ContractProblem(code, message))

    def note(self, message: str) -> None:
        self.summary.notes.append(message)

    def gate(self) -> None:
        """Raise if any check so far failed (later steps depend on the earlier ones)."""
        if self.problems:
            raise ContractError(self.subject, self.problems, self.summary.notes)


def where(exc: BaseException) -> str:
    """`` (raised at file:line in function)`` for the innermost frame of ``exc``'s traceback."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f" (raised at {os.path.basename(f.filename)}:{f.lineno} in {f.name})"


def describe(inst: Instance, label: str) -> str:
    """How a message names an instance: its label, digest prefix and clue count."""
    return f"instance {label} ({inst.digest[:19]}…, {len(inst.clues)} clues)"

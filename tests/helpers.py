"""Small helpers shared by tests (not fixtures)."""

from __future__ import annotations

from typing import Any

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.report import HONEST_SCOPE, Verdict, VerifierReport


def given(r: int, c: int, v: int, cid: str | None = None) -> Clue:
    return Clue.make(cid or f"r{r + 1}c{c + 1}", "given", {"value": v}, [(r, c)])


def sudoku(size: int, givens: list[tuple[int, int, int]], **params) -> Instance:
    return Instance.make("sudoku", {"size": size, **params}, [given(*g) for g in givens])


def latin(size: int, givens: list[tuple[int, int, int]]) -> Instance:
    return Instance.make("latin", {"size": size}, [given(*g) for g in givens])


def is_valid_sudoku(grid: dict[str, int], n: int, box: tuple[int, int]) -> bool:
    rows = [[grid[f"r{r + 1}c{c + 1}"] for c in range(n)] for r in range(n)]
    want = set(range(1, n + 1))
    if any(set(row) != want for row in rows):
        return False
    if any({rows[r][c] for r in range(n)} != want for c in range(n)):
        return False
    br, bc = box
    for r0 in range(0, n, br):
        for c0 in range(0, n, bc):
            if {rows[r0 + r][c0 + c] for r in range(br) for c in range(bc)} != want:
                return False
    return True


def fake_report(
    verdict: Verdict,
    verifier: str,
    digest: str,
    *,
    cap: int = 100,
    lower_bound: bool = False,
    dispatch_errors: int = 0,
) -> VerifierReport:
    """A report built by hand, for tests of what consumes reports (publish gate, settling)."""
    n = cap if lower_bound else {Verdict.UNIQUE: 1, Verdict.MULTIPLE: 2}.get(verdict, 0)
    return VerifierReport(
        verdict=verdict,
        solutions=tuple({"r1c1": i + 1} for i in range(n)),
        solution_count=n,
        solution_count_is_lower_bound=lower_bound,
        solution_cap=cap,
        total_completions_enumerated=n,
        cartesian_size=None,
        cartesian_size_log10=None,
        diagnostics=(),
        reject_detail=None,
        source={"verifier": verifier, "version": "1.0"},
        honest_scope=HONEST_SCOPE[verdict],
        instance_digest=digest,
        dispatch_error_count=dispatch_errors,
    )


class LineStdin:
    """A stdin that hands out one line a read, as a pipe does, and before each read records
    how many answer lines were printed so far (``answered_before_read``): a command that
    answers each line before it reads the next shows it there. ``capsys``: pytest's."""

    def __init__(self, lines: list[str], capsys: Any) -> None:
        self.buffer = self
        self._lines = iter(lines)
        self._capsys = capsys
        self.out = ""
        self.answered_before_read: list[int] = []

    def readline(self, size: int = -1) -> bytes:
        self.out += self._capsys.readouterr().out
        self.answered_before_read.append(self.out.count("\n"))
        return next(self._lines, "").encode()

    def read1(self, size: int = -1) -> bytes:  # a pipe hands out what was written: one line
        return self.readline()

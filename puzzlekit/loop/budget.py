"""What one loop may spend and where it starts: the :class:`LoopBudget` (filter calls, the
solution cap, the search nodes of one filter call), the starting clue count of a schema
(:func:`default_clues`), and the line a loop that is still looking writes on stderr
(:func:`note_progress`). :mod:`puzzlekit.loop.driver` re-exports the budget and the start.

Not for: running loops (:mod:`puzzlekit.loop.driver`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

from puzzlekit.core.protocols import SearchBudget


@dataclass(frozen=True)
class LoopBudget:
    """Filter calls allowed per loop (minimization calls are counted apart), the cap, and the
    search nodes one filter call may spend (:data:`FILTER_NODES`; None: the verifier's own
    budget)."""

    max_calls: int = 200
    solution_cap: int = 2
    filter_nodes: int | None = None

    @property
    def filter_budget(self) -> SearchBudget | None:
        """The budget of one filter call: ``filter_nodes`` search nodes (None: the default)."""
        return SearchBudget(nodes=self.filter_nodes) if self.filter_nodes is not None else None


#: the search nodes one filter call of a loop may spend (``LoopSpec.filter_nodes``). A sparse
#: start on a large grid (25×25 with 30% of its cells given) can take the compiled search
#: minutes to find a second solution; cut off, the call is UNDECIDED and the strategy repairs
#: at its culprits (the cells with the most candidates left), so the loop goes on adding clues
#: instead of waiting. The 9×9 calls of ``generate sudoku --minimize --count 100`` stay under
#: 2,000 nodes (the same records with that budget): the budget does not bind there.
FILTER_NODES = 20_000


#: above this many variables (a 16×16 grid) a loop starts from :data:`LARGE_START` of them
LARGE_VARS = 256
#: the share of the variables a loop on a larger schema starts from: a 25×25 Sudoku from 30%
#: of its cells keeps the compiled search from finding a second solution for minutes, from 55%
#: it is accepted in a few filter calls
LARGE_START = 0.55


def default_clues(n_vars: int) -> int:
    """A starting clue count: 30% of the variables (24 for a 9×9 Sudoku), :data:`LARGE_START`
    above :data:`LARGE_VARS` (344 for a 25×25)."""
    share = 0.3 if n_vars <= LARGE_VARS else LARGE_START
    return max(1, round(share * n_vars))


#: a loop still looking after this many seconds says so on stderr, and again as often after
NOTE_EVERY = 10.0


def note_progress(noted: float, t0: float, seed: int, last: Any) -> float:
    """One line on stderr when :data:`NOTE_EVERY` seconds passed since ``noted`` (the loop's
    start or its last line): what the loop is doing. Returns the time of the last line."""
    now = time.perf_counter()
    if now - noted < NOTE_EVERY:
        return noted
    print(
        f"puzzlekit: loop seed {seed}: still looking after {last.index + 1} filter calls "
        f"({now - t0:.0f} s): the last on {last.clue_count} clues was {last.verdict} "
        f"({last.seconds:.2f} s)",
        file=sys.stderr,
        flush=True,
    )
    return now

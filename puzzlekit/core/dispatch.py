"""Dispatch errors: the opaque rules (a :class:`~puzzlekit.core.constraints.Predicate`'s oracle)
that raised, counted by the verification that called them, whatever called them.

A verifier opens :func:`counting` around its search and reports the size of the tally as
``dispatchErrorCount``. Every call of an opaque rule records a raise with :func:`record`:
:meth:`Predicate.holds <puzzlekit.core.constraints.Predicate.holds>` (domain narrowing, random
restarts, checks) and a backend's own wrapper (the enumerative search), so no path of a search
is left out: a one-field tool's oracle is only ever called while its domain is narrowed. A raise
counts once per rule and input, as the oracle verifiers count each completion of their one
enumeration once; work done after the verdict to explain it (shrinking a conflict) is run
:func:`uncounted`, as those verifiers do not count it either.

Outside a :func:`counting` block :func:`record` does nothing (generation calls the same rules).
One tally per thread and task (a :class:`contextvars.ContextVar`).

Not for: deciding what a raise means (the rule does not hold; :mod:`puzzlekit.core.model`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["counting", "record", "uncounted"]

_TALLY: ContextVar[set[Hashable] | None] = ContextVar("puzzlekit_dispatch_errors", default=None)


@contextmanager
def counting() -> Iterator[set[Hashable]]:
    """A fresh tally for the block: the set of ``(rule id, input)`` keys that raised in it."""
    tally: set[Hashable] = set()
    token = _TALLY.set(tally)
    try:
        yield tally
    finally:
        _TALLY.reset(token)


@contextmanager
def uncounted() -> Iterator[None]:
    """No tally for the block (work after the verdict: a conflict being shrunk)."""
    token = _TALLY.set(None)
    try:
        yield
    finally:
        _TALLY.reset(token)


def record(rule: str, inputs: tuple[Hashable, ...]) -> None:
    """Rule ``rule`` raised on ``inputs``: one more dispatch error in the open tally, if any."""
    tally = _TALLY.get()
    if tally is not None:
        tally.add((rule, inputs))

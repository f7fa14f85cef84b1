"""Time for the audit trail and for deterministic runs: the one frozen time and frozen clock that
make a run's settlement and review depend on its inputs alone, the real UTC clock, and the reader
of the RFC 3339 date-times that requests, decisions and ledger entries carry.

A clock is a function of no arguments returning an aware :class:`~datetime.datetime`; code that
stamps times takes one as an argument so that tests and experiments can pass
:func:`frozen_clock`. Not for measuring durations (use :func:`time.perf_counter`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]

#: The one fixed time of deterministic runs (experiments, toolcall tools, examples).
FROZEN_AT = "2025-01-01T00:00:00Z"

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def parse_datetime(text: str) -> datetime | None:
    """An RFC 3339 date-time with an offset, or ``None``."""
    if not isinstance(text, str) or not _RFC3339.match(text):
        return None
    try:
        return datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return None


def frozen_clock(at: str = FROZEN_AT) -> Clock:
    """A clock that always reads ``at`` (an RFC 3339 date-time; ValueError if it is not one)."""
    moment = parse_datetime(at)
    if moment is None:
        raise ValueError(f"frozen_clock needs an RFC 3339 date-time with an offset, got {at!r}")
    return lambda: moment


def utc_now() -> datetime:
    """The real clock: now, in UTC."""
    return datetime.now(UTC)

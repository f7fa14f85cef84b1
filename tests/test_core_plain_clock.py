"""The one plain-data conversion (core.jsondata.plain) and the one frozen clock (core.clock)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import MappingProxyType

import pytest

from puzzlekit.core.clock import FROZEN_AT, frozen_clock, parse_datetime
from puzzlekit.core.jsondata import freeze, plain, thaw


def test_plain_turns_mappings_and_tuples_into_dicts_and_lists():
    data = MappingProxyType({"a": (1, 2, {"b": (3,)}), 4: "x"})
    assert plain(data) == {"a": [1, 2, {"b": [3]}], "4": "x"}


def test_plain_passes_leaves_through_the_leaf_hook_only():
    seen = []

    def leaf(value):
        seen.append(value)
        return repr(value) if isinstance(value, float) else value

    assert plain({"x": [1.5, "s"], "y": None}, leaf) == {"x": ["1.5", "s"], "y": None}
    assert seen == [1.5, "s", None]


def test_thaw_inverts_freeze():
    data = {"size": 4, "box": [2, 2], "rows": ["ab", "cd"]}
    assert thaw(freeze(data)) == data


def test_frozen_clock_always_reads_its_moment():
    clock = frozen_clock()
    assert clock() == clock() == datetime(2025, 1, 1, tzinfo=UTC)
    assert parse_datetime(FROZEN_AT) == clock()
    assert frozen_clock("2024-02-29T12:00:00+01:00")().isoformat() == "2024-02-29T12:00:00+01:00"


def test_frozen_clock_refuses_a_time_without_offset():
    with pytest.raises(ValueError, match="2025-01-01T00:00:00'"):
        frozen_clock("2025-01-01T00:00:00")


def test_the_kernel_and_the_clock_read_times_with_one_function():
    from puzzlekit.audit.review import kernel

    assert kernel.parse_datetime is parse_datetime

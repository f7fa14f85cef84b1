"""A plugin module for the tests of the plugin mechanism: what a user's own package registers.

A family that subclasses a built-in under a new name (``pkfix-latin``, 4×4 and 5×5 listed), a
verifier alias (``pkfix-sat``), a strategy alias (``pkfix-blind``) and a tool (``pkfix-parity``).
The tests put this folder on PYTHONPATH and name the module with ``--plugin pk_fixture_plugin``,
``plugins = ["pk_fixture_plugin"]`` or an entry point. Not a test module and not an example to
ship (examples/ holds that).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.families import register_family
from puzzlekit.families.latin import Latin
from puzzlekit.families.tools import register_tool
from puzzlekit.generators import register_strategy
from puzzlekit.generators.blind import Blind
from puzzlekit.verifiers.registry import register_verifier
from puzzlekit.verifiers.sat.backend import SatVerifier


class FixtureLatin(Latin):
    info = Latin.info.replace(
        name="pkfix-latin",
        description="a Latin square registered by a plugin",
        listed_params=({"size": 4}, {"size": 5}),
    )


def parity(inp: Mapping[str, Any]) -> str:
    return "even" if (inp["a"] + inp["b"]) % 2 == 0 else "odd"


register_family(FixtureLatin())
register_verifier("pkfix-sat", SatVerifier)
register_strategy("pkfix-blind", Blind)
register_tool(
    "pkfix-parity",
    {"type": "object", "properties": {"a": {"enum": [0, 1, 2]}, "b": {"type": "boolean"}}},
    parity,
)

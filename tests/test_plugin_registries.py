"""Registering never hides a built-in: a family, verifier, strategy or tool registered before
the first lookup (in a fresh process) leaves every built-in listed, and re-registering a
built-in name raises DuplicateName unless ``replace=True``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from puzzlekit.core.plugins import DuplicateName
from puzzlekit.families import FAMILIES, register_family
from puzzlekit.families.latin import Latin
from puzzlekit.families.tools import TOOLS, register_tool
from puzzlekit.generators import STRATEGIES, register_strategy
from puzzlekit.generators.blind import Blind
from puzzlekit.verifiers.registry import VERIFIERS, register_verifier
from puzzlekit.verifiers.sat.backend import SatVerifier

LIST = """
import json
from puzzlekit.families import FAMILIES
from puzzlekit.families.tools import TOOLS
from puzzlekit.generators import STRATEGIES
from puzzlekit.verifiers.registry import VERIFIERS
print(json.dumps({r.kind: r.names() for r in (FAMILIES, VERIFIERS, STRATEGIES, TOOLS)}))
"""

FIRST = {
    "family": """
        from puzzlekit.families import register_family
        from puzzlekit.families.latin import Latin
        class Early(Latin):
            info = Latin.info.replace(name="early-latin")
        register_family(Early())
    """,
    "verifier": """
        from puzzlekit.verifiers.registry import register_verifier
        register_verifier("early-verifier", lambda **settings: None)
    """,
    "strategy": """
        from puzzlekit.generators import register_strategy
        register_strategy("early-strategy", lambda k: None)
    """,
    "tool": """
        from puzzlekit.families.tools import register_tool
        register_tool("early-tool", {"type": "object", "properties": {}}, lambda inp: "v")
    """,
}


def _listing(prelude: str = "") -> dict[str, list[str]]:
    code = textwrap.dedent(prelude) + LIST
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def builtins() -> dict[str, list[str]]:
    return _listing()


#: the name each prelude registers
NEW = {"family": "early-latin", "verifier": "early-verifier", "strategy": "early-strategy",
       "tool": "early-tool"}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(FIRST))
def test_registering_before_the_first_lookup_keeps_every_builtin(kind, builtins) -> None:
    after = _listing(FIRST[kind])
    for registry, names in builtins.items():
        added = {NEW[kind]} if registry == kind else set()
        assert set(after[registry]) == set(names) | added, registry
    assert len(builtins["family"]) > 10 and "sat" in builtins["verifier"]


@pytest.mark.parametrize(
    ("register", "registry", "name"),
    [
        (lambda: register_family(Latin()), FAMILIES, "latin"),
        (lambda: register_verifier("sat", lambda **s: SatVerifier(**s)), VERIFIERS, "sat"),
        (lambda: register_strategy("blind", lambda k: Blind(k)), STRATEGIES, "blind"),
        (
            lambda: register_tool("shipping-rate", {"type": "object"}, lambda i: "x"),
            TOOLS,
            "shipping-rate",
        ),
    ],
    ids=["family", "verifier", "strategy", "tool"],
)
def test_reregistering_a_builtin_name_raises_duplicate_name(register, registry, name) -> None:
    before = registry.get(name)
    with pytest.raises(DuplicateName, match=f"'{name}' is already registered"):
        register()
    assert registry.get(name) is before

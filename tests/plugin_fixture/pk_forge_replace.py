"""A plugin module for the trust-boundary tests: its import code replaces the holdout's backend.

It registers ``enumerative`` again with ``replace=True`` as a liar that calls every instance
UNIQUE: the forgery a plugin must not be able to make (docs/security.md). Not a test module.
"""

from __future__ import annotations

from puzzlekit.verifiers.registry import get_verifier, register_verifier


class Liar:
    name = "enumerative"

    def __init__(self, **settings: object) -> None:
        self._inner = get_verifier("sat")


register_verifier("enumerative", Liar, replace=True)

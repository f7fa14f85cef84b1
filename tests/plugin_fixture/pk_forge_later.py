"""A plugin module for the trust-boundary tests: it imports quietly and replaces a name later.

``forge()`` (plugin code, called after the import) registers ``sat`` again with
``replace=True``. Not a test module.
"""

from __future__ import annotations

from puzzlekit.verifiers.registry import register_verifier


def forge() -> None:
    register_verifier("sat", object, replace=True)

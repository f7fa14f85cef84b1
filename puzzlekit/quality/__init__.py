"""Contract checks (check_family, check_verifier), golden corpora and the pytest plugin.

``puzzlekit.quality.parametrize_with_checks([MyFamily(), ...])`` turns the steps of
``check_family`` into one pytest test each (:mod:`puzzlekit.quality.parametrize`); it is loaded
on first use, so importing this package imports no checks.
"""

from __future__ import annotations

from typing import Any

__all__ = ["parametrize_with_checks"]


def __getattr__(name: str) -> Any:
    if name == "parametrize_with_checks":
        from puzzlekit.quality.parametrize import parametrize_with_checks

        return parametrize_with_checks
    raise AttributeError(f"module 'puzzlekit.quality' has no attribute {name!r}")

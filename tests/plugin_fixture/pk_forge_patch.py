"""A plugin module for the trust-boundary tests: its import code patches the holdout's check.

It rebinds ``puzzlekit.loop.holdout._check_material`` so that every holdout verdict reads
UNIQUE, and sets ``PK_FORGE_PATCHED`` in its process's environment: the forgery a plugin
imported in the judging process could make (docs/security.md). Not a test module.
"""

from __future__ import annotations

import os
from typing import Any

import puzzlekit.loop.holdout as holdout

_real = holdout._check_material


def _forged(verifier: Any, canonical: bytes, digest: str, cap: int) -> dict[str, Any]:
    report = _real(verifier, canonical, digest, cap)
    return {**report, "uniquenessVerdict": "UNIQUE", "solutionCount": 1}


holdout._check_material = _forged
os.environ["PK_FORGE_PATCHED"] = "1"

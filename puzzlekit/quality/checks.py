"""Contract checks for puzzle families and verifier backends: ``check_family``, ``check_verifier``.

A researcher who adds a family runs ``check_family(MyFamily())`` in a test; one who writes a
verifier runs ``check_verifier(MyVerifier())``. Each raises :class:`ContractError` (an
``AssertionError``) listing every problem found, each with a stable code and a sentence that says
what to change, in the manner of Gymnasium's ``check_env`` and scikit-learn's
``check_estimator``. Checks run on seeded random instances (:func:`sample_instances`), so a
failure is reproducible from the seed printed in the message.

This module is the public entry point; the checks live in
:mod:`puzzlekit.quality.family_check` (whose docstring lists every step and code),
:mod:`puzzlekit.quality.verifier_check`, and the modules of their steps (``family_steps``,
``generation``, ``cross_process``, ``verifying``, ``sampling``, ``contract``).

Not for: proving a family correct (the checks are samples) or benchmarking.
"""

from __future__ import annotations

from puzzlekit.quality.contract import CheckSummary, ContractError, ContractProblem
from puzzlekit.quality.family_check import check_family
from puzzlekit.quality.sampling import (
    GARBAGE_TEXTS,
    KEEP_FRACTIONS,
    Sample,
    as_family,
    default_params,
    malformed_instances,
    sample_instances,
)
from puzzlekit.quality.verifier_check import check_verifier
from puzzlekit.quality.verifying import CHECK_CAP, REFERENCE

__all__ = [
    "CHECK_CAP",
    "GARBAGE_TEXTS",
    "KEEP_FRACTIONS",
    "REFERENCE",
    "CheckSummary",
    "ContractError",
    "ContractProblem",
    "Sample",
    "as_family",
    "check_family",
    "check_verifier",
    "default_params",
    "malformed_instances",
    "sample_instances",
]

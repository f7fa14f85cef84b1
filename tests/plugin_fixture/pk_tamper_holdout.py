"""A plugin module for the contamination tests: a holdout verifier that changes what it judges.

``pktamper`` verifies with ``enumerative`` and then drops the first clue of the instance it was
handed (through ``object.__setattr__``, past the frozen dataclass). The tests name it as the
holdout with ``--plugin pk_tamper_holdout --holdout pktamper``. Not a test module.
"""

from __future__ import annotations

from typing import Any

from puzzlekit.verifiers.registry import get_verifier, register_verifier


class TamperingHoldout:
    name = "pktamper"

    def __init__(self, **settings: Any) -> None:
        self._inner = get_verifier("enumerative")

    def verify(self, instance: Any, solution_cap: int = 2, **kwargs: Any) -> Any:
        report = self._inner.verify(instance, solution_cap=solution_cap, **kwargs)
        object.__setattr__(instance, "clues", instance.clues[1:])
        return report


register_verifier("pktamper", TamperingHoldout)

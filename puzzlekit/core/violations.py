"""What is wrong with an input and where: :class:`Violation` (a stable type, the coordinate and the
field) and :class:`SpecError`, which carries the violations of an INVALID_SPEC report.

Re-exported by :mod:`puzzlekit.core.model`, where the rest of the code imports them from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

Coord: TypeAlias = tuple[Any, ...]

VIOLATION_TYPES = (
    "unknown-family",
    "unknown-tool",
    "unknown-field",
    "out-of-domain",
    "not-enumerable",
    "no-enum-domain",
    "shape-mismatch",
    "duplicate-clue",
    "malformed",
)


@dataclass(frozen=True)
class Violation:
    """What is wrong with an input and where: a stable ``violation_type`` plus readable detail.

    ``coord`` is the grid coordinate when the fault has one (``None`` otherwise); ``field_name``
    names the place in the input: a variable name such as ``r3c5``, or a path such as
    ``params.size`` or ``line[2]``.
    """

    violation_type: str
    coord: Coord | None
    field_name: str
    detail: str

    def __post_init__(self) -> None:
        if self.violation_type not in VIOLATION_TYPES:
            raise ValueError(f"unknown violation type {self.violation_type!r}")

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "violationType": self.violation_type,
            "coord": list(self.coord) if self.coord is not None else None,
            "fieldName": self.field_name,
            "detail": self.detail,
        }

    @classmethod
    def from_json_obj(cls, obj: Mapping[str, Any]) -> Violation:
        coord = obj.get("coord")
        return cls(
            obj["violationType"],
            tuple(coord) if coord is not None else None,
            obj["fieldName"],
            obj["detail"],
        )


class SpecError(ValueError):
    """Raised by parsers and schema builders; carries the violations of an INVALID_SPEC report."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = tuple(violations)
        super().__init__("; ".join(f"{v.field_name}: {v.detail}" for v in self.violations))

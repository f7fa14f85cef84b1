"""Drawing of grids whose cells form groups (cages, regions): text with walls between groups,
and a matplotlib figure with thick walls. Shared by the cage and region families through
:mod:`puzzlekit.families._kit.cages`; not part of the public API, and no family logic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Cell = tuple[int, int]


def render_groups(
    n: int,
    group_of: Mapping[Cell, Any],
    symbols: Mapping[Cell, str],
    marks: Mapping[tuple, str] | None = None,
    legend: Sequence[str] = (),
) -> str:
    """An n×n grid as text with walls between cells of different groups.

    ``symbols`` maps a cell to the character drawn in it (``.`` elsewhere), ``marks`` a cell to a
    one-character mark drawn after it (``?`` ambiguous, ``!`` conflicting), ``legend`` lines are
    appended below. Cells outside every group are drawn as groups of their own.
    """
    marks = marks or {}

    def g(r: int, c: int) -> Any:
        return group_of.get((r, c), ("solo", r, c))

    lines = []
    for r in range(n + 1):
        border = "+"
        for c in range(n):
            wall = r in (0, n) or g(r - 1, c) != g(r, c)
            border += ("---" if wall else "   ") + "+"
        lines.append(border)
        if r == n:
            break
        row = "|"
        for c in range(n):
            row += " " + symbols.get((r, c), ".") + marks.get((r, c), " ")
            row += "|" if c == n - 1 or g(r, c) != g(r, c + 1) else " "
        lines.append(row)
    lines += list(legend)
    return "\n".join(lines)


def render_groups_mpl(
    n: int,
    group_of: Mapping[Cell, Any],
    symbols: Mapping[Cell, str],
    labels: Mapping[Cell, str] | None = None,
    ax: Any = None,
) -> Any:
    """A matplotlib drawing: thin cell lines, thick walls between groups, symbols and labels."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(n * 0.5, n * 0.5))

    def g(r: int, c: int) -> Any:
        return group_of.get((r, c), ("solo", r, c))

    for r in range(n + 1):
        for c in range(n):
            wall = r in (0, n) or g(r - 1, c) != g(r, c)
            ax.plot([c, c + 1], [n - r, n - r], color="black", lw=2 if wall else 0.4)
    for c in range(n + 1):
        for r in range(n):
            wall = c in (0, n) or g(r, c - 1) != g(r, c)
            ax.plot([c, c], [n - r, n - r - 1], color="black", lw=2 if wall else 0.4)
    for (r, c), s in symbols.items():
        ax.text(c + 0.5, n - r - 0.55, s, ha="center", va="center", fontsize=12)
    for (r, c), s in (labels or {}).items():
        ax.text(c + 0.06, n - r - 0.08, s, ha="left", va="top", fontsize=6)
    ax.set_xlim(0, n)
    ax.set_ylim(0, n)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def json_label(data: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(data.items()))

"""Panels of the report's figures: one per schema, arms split by k where they differ in k, and
words where a panel has nothing to draw.

Rows of different schemas never share a panel: clue counts, filter calls and coordinates of a
5×5 KenKen and an 8×8 Nonogram do not measure the same thing. Within a schema, an arm is a
strategy (× k when the schema's rows hold more than one k, × filter when they hold more than one
filter). A panel whose data would draw as a flat grid or a single bar says what it would have
shown in words (:func:`say`).

Not for: the figures themselves (:mod:`puzzlekit.app.plots.figures`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

#: the formats ``puzzlekit report --figure-format`` writes (the first is the default)
FIGURE_FORMATS = ("png", "svg", "pdf")


def by_schema(df: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The rows of each schema label, sorted by label; ``[("", df)]`` without a schema column
    or rows, so a figure of an empty run still has its one (worded) panel."""
    if "schema" not in df or df.empty:
        return [("", df)]
    return [(str(label), grp) for label, grp in df.groupby("schema", sort=True)]


def arm_keys(rows: pd.DataFrame) -> list[str]:
    """The columns that tell one schema's arms apart: strategy, then k where the rows hold
    several, then filter where they hold several."""
    keys = ["strategy"]
    for col in ("k", "filter"):
        if col in rows and rows[col].nunique() > 1:
            keys.append(col)
    return keys


def arm_label(key: Any, keys: Sequence[str]) -> str:
    """``blind k=32/sat`` for the group key of :func:`arm_keys`."""
    values = key if isinstance(key, tuple) else (key,)
    parts = []
    for col, value in zip(keys, values, strict=True):
        text = f"k={value}" if col == "k" else str(value)
        if col == "k" and parts:
            parts[-1] += f" {text}"
        else:
            parts.append(text)
    return "/".join(parts)


def panel_grid(n: int, width: float, height: float, ncols: int = 3) -> tuple[Figure, list[Any]]:
    """A constrained-layout figure (no pyplot) with ``n`` panels, at most ``ncols`` a row, each
    ``width`` × ``height`` inches; the panels in order (spare cells hidden)."""
    cols = max(1, min(n, ncols))
    rows = -(-max(n, 1) // cols)
    fig = Figure(figsize=(width * cols, height * rows), layout="constrained")
    axes = list(fig.subplots(rows, cols, squeeze=False).flat)
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[: max(n, 1)]


def say(ax: Any, text: str) -> None:
    """A panel that states in words that it has nothing to draw (no axes, no colour bar)."""
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, fontsize=9)
    ax.set_axis_off()


def titled(label: str, what: str) -> str:
    """A panel title: the schema label first, when there is one."""
    return f"{label}: {what}" if label else what

"""Panels of the report's figures: one per schema, and one per (schema, k) where the schema's
arms differ in k, and words where a panel has nothing to draw.

Rows of different schemas never share a panel: clue counts, filter calls and coordinates of a
5×5 KenKen and an 8×8 Nonogram do not measure the same thing; nor do rows of one schema started
from different clue counts k (:func:`panel_keys`, titled ``kenken5 k=6``). Within a panel, an arm
is a strategy (× filter when the panel's rows hold more than one filter). The panels of a
figure come from the run's arms, not from the rows the figure draws, so every figure of a run
has the same panels; one with no rows says so. A panel whose data would draw as a flat grid or
a single bar says what it would have shown in words (:func:`say`).

Not for: the figures themselves (:mod:`puzzlekit.app.plots.figures`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from puzzlekit.app.plots.layout import cells

#: the formats ``puzzlekit report --figure-format`` writes (the first is the default)
FIGURE_FORMATS = ("png", "svg", "pdf")


#: a panel: its schema label, and its k where the schema's arms differ in k (else ``None``)
PanelKey = tuple[str, int | None]


def panel_keys(arms: pd.DataFrame) -> list[PanelKey]:
    """The panels of a run's rows ``arms`` (puzzle or attempt rows), sorted: ``(schema, None)``
    for a schema whose rows hold one k, ``(schema, k)`` for each k of one that holds several."""
    if "schema" not in arms or arms.empty:
        return []
    out: list[PanelKey] = []
    for label, grp in arms.groupby("schema", sort=True):
        ks = sorted(int(k) for k in grp["k"].dropna().unique()) if "k" in grp else []
        out += [(str(label), k) for k in ks] if len(ks) > 1 else [(str(label), None)]
    return out


def panel_label(key: PanelKey) -> str:
    """``kenken5 k=6`` for a panel of one k, ``sudoku4`` for a schema's only panel."""
    schema, k = key
    return schema if k is None else f"{schema} k={k}"


def panel_rows(df: pd.DataFrame, key: PanelKey) -> pd.DataFrame:
    """The rows of ``df`` that belong to the panel ``key``."""
    if "schema" not in df:
        return df.iloc[0:0]
    keep = df["schema"] == key[0]
    if key[1] is not None:
        keep &= df["k"] == key[1]
    return df[keep]


def by_panel(df: pd.DataFrame, arms: pd.DataFrame | None = None) -> list[tuple[str, pd.DataFrame]]:
    """``(title label, rows of df)`` for each panel of ``arms`` (default ``df``; pass the run's
    rows when ``df`` is a selection, so a panel without selected rows is still drawn, in
    words); ``[("", df)]`` when there is no panel, so a figure of an empty run still has one."""
    keys = panel_keys(df if arms is None else arms)
    if not keys:
        return [("", df)]
    return [(panel_label(key), panel_rows(df, key)) for key in keys]


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
    """A figure (no pyplot, no layout engine: :func:`~puzzlekit.app.plots.layout.save` fits
    it) with ``n`` panels (at least one), at most ``ncols`` a row, each ``width`` × ``height``
    inches; the panels in order."""
    n = max(n, 1)
    return cells(n, max(1, min(n, ncols)), width, height)


def say(ax: Any, text: str) -> None:
    """A panel that states in words that it has nothing to draw (no axes, no colour bar)."""
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, fontsize=9)
    ax.set_axis_off()


def titled(label: str, what: str) -> str:
    """A panel title: the schema label first, when there is one."""
    return f"{label}: {what}" if label else what

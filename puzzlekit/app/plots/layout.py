"""The report's figures laid out in one pass: margins from the strings the panels hold.

A layout engine (constrained layout) measures every artist with a renderer before a figure is
drawn, and ``bbox_inches="tight"`` draws the figure once more to crop it; drawing a report's
figures went mostly there. Here a figure has no layout engine: :func:`grid` makes the panels,
and once they are drawn into, :func:`fit` sets the subplot margins from the text itself (its
characters times its font size, an upper bound of the advance of DejaVu Sans, matplotlib's
default font), so saving a figure (:func:`save`) draws it once. Titles, axis labels, tick
labels and colour bars keep their room; nothing is cropped. Axes of counts take fixed tick
lists (:func:`log_call_ticks`, :func:`integer_ticks`): no locator to run, no minor ticks.

Not for: what a panel shows (:mod:`~puzzlekit.app.plots.figures`).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

#: the widest advance of a character of the default font, in ems (DejaVu Sans: digits 0.64,
#: lower case about 0.6, a few capitals 0.8); a label is measured by its characters at this
EM_PER_CHAR = 0.64
#: a line of text is this many times its font size tall
LINE = 1.25
#: points in an inch
PT = 72.0
#: room (inches) between a tick label and its axis (tick length and pad), and between a label
#: and its tick labels; and the least margin of a figure edge
TICK_PAD = 0.1
LABEL_PAD = 0.06
EDGE = 0.12
_MATH = re.compile(r"\\mathdefault|\\[a-zA-Z]+|[${}^_]")


def grid(rows: int, cols: int, width: float, height: float) -> tuple[Figure, Any]:
    """A figure (no pyplot, no backend, no layout engine) of ``rows`` × ``cols`` panels, each
    ``width`` × ``height`` inches with its margins; the axes as a 2-D array.

    Titles sit at the top of their axes (``axes.titley`` 1.0, where matplotlib would place them
    too: no panel has ticks above it), so drawing does not measure each axis to place them."""
    fig = Figure(figsize=(width * cols, height * rows))
    with rc_context({"axes.titley": 1.0}):
        return fig, fig.subplots(rows, cols, squeeze=False)


def cells(n: int, cols: int, width: float, height: float) -> tuple[Figure, list[Any]]:
    """A figure as :func:`grid` with ``n`` panels filling ``cols`` columns row by row, each
    ``width`` × ``height`` inches; the axes in order. A row's spare cells stay empty (no
    axes made and hidden)."""
    rows = -(-n // cols)
    fig = Figure(figsize=(width * cols, height * rows))
    spec = fig.add_gridspec(rows, cols)
    with rc_context({"axes.titley": 1.0}):
        return fig, [fig.add_subplot(spec[i // cols, i % cols]) for i in range(n)]


def text_size(text: str, fontsize: float) -> tuple[float, float]:
    """(width, height) in inches that ``text`` at ``fontsize`` points takes at most (mathtext
    markup counts by the characters it shows)."""
    lines = text.split("\n")
    chars = max(len(_MATH.sub("", line)) if "$" in line else len(line) for line in lines)
    return chars * fontsize * EM_PER_CHAR / PT, len(lines) * fontsize * LINE / PT


def _labels(texts: list[Any]) -> list[tuple[float, float, float]]:
    """(width, height, rotation) in inches of each non-empty visible tick label."""
    out = []
    for t in texts:
        if t.get_visible() and t.get_text():
            w, h = text_size(t.get_text(), t.get_fontsize())
            out.append((w, h, math.radians(t.get_rotation())))
    return out


def _extent(texts: list[Any], across: bool) -> float:
    """How far the tick labels reach away from their axis: their widths (a y axis, ``across``)
    or heights (an x axis), turned by their rotation."""
    reach = 0.0
    for w, h, r in _labels(texts):
        if across:
            reach = max(reach, abs(w * math.cos(r)) + abs(h * math.sin(r)))
        else:
            reach = max(reach, abs(w * math.sin(r)) + abs(h * math.cos(r)))
    return reach


def _label(text: Any) -> float:
    return text_size(text.get_text(), text.get_fontsize())[1] + LABEL_PAD if text.get_text() else 0


def margins(fig: Figure) -> dict[str, float]:
    """The room (inches) each panel needs: ``left`` (y tick labels and label), ``right`` (a
    colour bar's tick labels, or the half of an x tick label past the axis end), ``top`` (the
    title), ``bottom`` (x tick labels and label), over the figure's visible axes; ``suptitle``
    the room of the figure's title."""
    need = {"left": 0.0, "right": 0.0, "top": 0.0, "bottom": 0.0, "suptitle": 0.0}
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        if ax.get_title():
            title = ax.title
            need["top"] = max(need["top"], _label(title) + LABEL_PAD)
        if not ax.axison:
            continue
        if getattr(ax, "_colorbar", None) is not None:
            reach = _extent(ax.get_yticklabels(), across=True)
            need["right"] = max(need["right"], reach + TICK_PAD + _label(ax.yaxis.label))
            continue
        left = _extent(ax.get_yticklabels(), across=True) + TICK_PAD + _label(ax.yaxis.label)
        below = _extent(ax.get_xticklabels(), across=False) + TICK_PAD + _label(ax.xaxis.label)
        overhang = max((w / 2 for w, _, _ in _labels(ax.get_xticklabels())), default=0.0)
        need["left"] = max(need["left"], left)
        need["bottom"] = max(need["bottom"], below)
        need["right"] = max(need["right"], overhang)  # the last x tick label's right half
    suptitle = fig._suptitle  # the figure's title, when set (matplotlib keeps it here)
    if suptitle is not None and suptitle.get_text():
        need["suptitle"] = _label(suptitle) + LABEL_PAD
    return need


def fit(fig: Figure) -> Figure:
    """Place the panels of ``fig`` (made by :func:`grid`, drawn into) so that each one's title,
    tick labels, axis labels and colour bar fit in its cell: one margin for every cell, the
    largest any panel needs. Returns ``fig``."""
    shown = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    if not shown:
        return fig
    spec = shown[0].get_subplotspec().get_topmost_subplotspec().get_gridspec()
    rows, cols = spec.get_geometry()
    need = margins(fig)
    width, height = fig.get_size_inches()
    left, right = need["left"] + EDGE, need["right"] + EDGE
    top, bottom = need["top"] + EDGE, need["bottom"] + EDGE
    axis_w = max(0.5, (width - cols * (left + right)) / cols)
    axis_h = max(0.5, (height - need["suptitle"] - rows * (top + bottom)) / rows)
    fig.subplots_adjust(
        left=left / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - (top + need["suptitle"]) / height,
        wspace=(left + right) / axis_w,
        hspace=(top + bottom) / axis_h,
    )
    return fig


#: symlog ticks of a calls axis (1-2-5 steps), so a log axis reads at every decade and between
CALL_TICKS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)


def log_call_ticks(ax: Any, calls: np.ndarray) -> None:
    """The y axis of ``ax`` as a log axis of filter calls: its view from the 1-2-5 step at or
    below the fewest calls to the one at or above the most, each step a tick labelled in plain
    digits (a fixed list: no locator, no minor ticks, no mathtext to lay out)."""
    calls = calls[np.isfinite(calls) & (calls > 0)]
    lo, hi = (float(calls.min()), float(calls.max())) if len(calls) else (1.0, 10.0)
    steps = [m * 10**e for e in range(len(str(int(hi))) + 1) for m in (1, 2, 5)]
    first = max([t for t in steps if t <= lo], default=1)
    ticks = [t for t in steps if t >= first]
    ticks = ticks[: max(2, next(i for i, t in enumerate(ticks) if t >= hi) + 1)]
    if len(ticks) > 9:  # many decades: a tick at each, the ends kept
        ticks = [t for i, t in enumerate(ticks) if i in (0, len(ticks) - 1) or str(t)[0] == "1"]
    ax.set_yscale("log")
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_yticks(ticks, [str(t) for t in ticks])
    ax.set_ylim(ticks[0] / 1.15, ticks[-1] * 1.15)  # a point on a step stays off the edge


def integer_ticks(lo: int, hi: int, most: int = 10) -> list[int]:
    """Ticks at whole numbers from ``lo`` to ``hi`` (a clue-count axis, its points jittered by
    less than half a step), one step of 1, 2, 5, 10, 20, ... so that at most ``most`` show;
    a fixed list, so a panel whose points all share one count reads that count."""
    step = next(m * 10**e for e in range(12) for m in (1, 2, 5) if (hi - lo) // (m * 10**e) < most)
    return list(range(lo + (-lo) % step, hi + 1, step))  # inside the points: no view widened


#: zlib level of a PNG figure: the fastest (level 1 writes a report's PNGs in about two thirds
#: of the time of the default 6, its files a fifth larger); the pixels are the same
PNG_COMPRESS_LEVEL = 1
#: settings while a figure is saved: glyphs loaded without hinting (matplotlib loads every
#: glyph of every string it draws, and hinting is most of that cost: a third of the draw of a
#: report; at 100 dpi the text reads the same)
SAVE_RC = {"text.hinting": "no_hinting"}


def save(fig: Figure, path: Path) -> Figure:
    """:func:`fit` ``fig``, then write it to ``path`` (its format from the suffix) in one draw;
    returns ``fig``."""
    fit(fig)
    png = Path(path).suffix.lower() == ".png"
    extra = {"pil_kwargs": {"compress_level": PNG_COMPRESS_LEVEL}} if png else {}
    with rc_context(SAVE_RC):
        fig.savefig(path, dpi=100, **extra)
    return fig

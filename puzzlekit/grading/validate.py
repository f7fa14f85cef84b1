"""Validation of the grader against Simon Tatham's labelled sets: grade every game ID of a
directory of ``<game>/<label>.txt`` files, cross-tabulate levels by label and report Spearman's
rank correlation; ``python -m puzzlekit.grading.validate --validate DIR`` runs :func:`main`.

Not for grading single puzzles (:func:`puzzlekit.grading.techniques.grade`) or for tests: it
reads whatever the directory holds.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any

#: Tatham's difficulties per game, easiest first (the labels of ``--validate``)
TATHAM_LABELS: dict[str, tuple[str, ...]] = {
    "solo": ("basic", "intermediate", "advanced", "extreme", "unreasonable"),
    "keen": ("easy", "normal", "hard", "extreme", "unreasonable"),
    "towers": ("easy", "hard", "extreme", "unreasonable"),
    "unequal": ("trivial", "easy", "tricky", "extreme", "recursive"),
}


def validate(directory: str) -> tuple[Any, dict[str, float]]:
    """Grade every game ID of ``directory/<game>/<label>.txt`` (``<game>`` a key of
    :data:`TATHAM_LABELS`, ``<label>`` one of its difficulties); the rows and Spearman's rho
    per game."""
    import pathlib

    import pandas as pd

    from puzzlekit.grading.techniques import grade
    from puzzlekit.io.inputs import iter_tatham_items

    rows = []
    for game, labels in TATHAM_LABELS.items():
        for path in sorted((pathlib.Path(directory) / game).glob("*.txt")):
            label = path.stem
            if label not in labels:
                continue
            for item in iter_tatham_items(path.read_text(encoding="utf-8")):
                if item.instance is None:
                    continue
                g = grade(item.instance)
                rows.append(
                    {
                        "game": game,
                        "family": g.family,
                        "label": label,
                        "rank": labels.index(label),
                        "level": g.level,
                        "technique": g.technique,
                        "status": g.status,
                        "satConflicts": g.sat_conflicts,
                        "propagationForced": g.propagation_forced,
                    }
                )
    df = pd.DataFrame(rows)
    rho = {game: spearman(part, "level") for game, part in df.groupby("game")} if rows else {}
    return df, rho


def spearman(df: Any, column: str) -> float:
    """Spearman's rho between Tatham's label rank and ``column`` (pandas, no SciPy needed)."""
    if len(df) < 2:
        return math.nan
    return float(df[["rank", column]].astype(float).corr(method="spearman").iloc[0, 1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m puzzlekit.grading.validate", description=__doc__
    )
    parser.add_argument("--validate", metavar="DIR", required=True, help="labelled game IDs")
    args = parser.parse_args(argv)
    import pandas as pd

    df, rho = validate(args.validate)
    if df.empty:
        print(f"no labelled game IDs in {args.validate}", file=sys.stderr)
        return 2
    for game, part in df.groupby("game", sort=False):
        order = [lab for lab in TATHAM_LABELS[game] if lab in set(part["label"])]
        family = part["family"].iloc[0]
        print(f"## {game} ({family}): puzzles by Tatham label (rows) and level (columns)")
        print(pd.crosstab(part["label"], part["level"]).reindex(order).to_string())
        print()
        summary = part.groupby("label", sort=False).agg(
            puzzles=("level", "size"),
            mean_level=("level", "mean"),
            median_sat_conflicts=("satConflicts", "median"),
            mean_propagation_forced=("propagationForced", "mean"),
        )
        print(summary.reindex(order).round(2).to_string())
        print()
        rho_c = spearman(part, "satConflicts")
        print(f"spearman(level, label) = {rho[game]:.3f} over {len(part)} puzzles")
        print(f"spearman(sat conflicts, label) = {rho_c:.3f}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

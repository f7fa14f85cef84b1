"""Golden corpora, comparing: what changed between a recorded report and a fresh one.

:func:`diff_reports` names each change in one readable line (verdict, solution count, solutions,
coordinates of the reject detail, and any other report field when the same verifier made both);
it is importable from :mod:`puzzlekit.quality.golden.corpus` too.

Not for: re-verifying or rewriting corpora (:mod:`puzzlekit.quality.golden.corpus`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any


def _coords(items: Iterable[Mapping[str, Any]], key: str = "coord") -> list[tuple]:
    return [tuple(i[key]) for i in items if i.get(key) is not None]


def _fmt_coords(coords: Iterable[tuple]) -> str:
    return " ".join(str(list(c)).replace(" ", "") for c in coords) or "-"


def _set_change(label: str, old: Sequence[Any], new: Sequence[Any], fmt: Callable) -> list[str]:
    if list(old) == list(new):
        return []
    gone = [x for x in old if x not in new]
    came = [x for x in new if x not in old]
    if not gone and not came:
        return [f"{label}: same items in another order: {fmt(new)}"]
    parts = []
    if gone:
        parts.append(f"no longer {fmt(gone)}")
    if came:
        parts.append(f"now also {fmt(came)}")
    return [f"{label}: {'; '.join(parts)}"]


def _short(value: Any, width: int = 70) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _count(report: Mapping[str, Any]) -> str:
    more = "+" if report.get("solutionCountIsLowerBound") else ""
    return f"{report.get('solutionCount')}{more}"


def diff_reports(
    expected: Mapping[str, Any], actual: Mapping[str, Any], *, same_verifier: bool = True
) -> list[str]:
    """Readable lines naming what changed between two report contents (empty: nothing did).

    Always compared: verdict, solution count and whether it is a lower bound; below the cap the
    solutions and the reject detail (gap cells, conflict clues and rules, violations, culprits,
    with coordinates). With ``same_verifier`` also every other field (solutions and details at
    the cap, ``cartesianSize``, ``diagnostics``, ...). Another exact backend may pick other
    solutions at the cap and count the search space otherwise, so those are not compared then.
    """
    out = []
    ev, av = expected.get("uniquenessVerdict"), actual.get("uniquenessVerdict")
    if ev != av:
        out.append(f"verdict: {ev} -> {av}")
    if _count(expected) != _count(actual):
        out.append(f"solutionCount: {_count(expected)} -> {_count(actual)}")
    capped = bool(
        expected.get("solutionCountIsLowerBound") or actual.get("solutionCountIsLowerBound")
    )
    if ev != av or (capped and not same_verifier):
        return out
    old_s = [json.dumps(s, sort_keys=True) for s in expected.get("solutions", [])]
    new_s = [json.dumps(s, sort_keys=True) for s in actual.get("solutions", [])]
    if sorted(old_s) != sorted(new_s):
        gone = sum(1 for s in old_s if s not in new_s)
        came = sum(1 for s in new_s if s not in old_s)
        out.append(f"solutions: {gone} no longer found, {came} new")
    elif old_s != new_s and same_verifier:
        out.append("solutions: the same, in another order")
    ed, ad = expected.get("rejectDetail") or {}, actual.get("rejectDetail") or {}
    out += _detail_diff(ed, ad)
    if same_verifier:
        handled = {
            "uniquenessVerdict",
            "solutionCount",
            "solutionCountIsLowerBound",
            "solutions",
            "rejectDetail",
        }
        for key in sorted((set(expected) | set(actual)) - handled):
            if expected.get(key) != actual.get(key):
                out.append(f"{key}: {_short(expected.get(key))} -> {_short(actual.get(key))}")
        if not out and ed != ad:
            out.append(f"rejectDetail: {_short(ed)} -> {_short(ad)}")
    return out


def _detail_diff(ed: Mapping[str, Any], ad: Mapping[str, Any]) -> list[str]:
    out = []
    out += _set_change(
        "discriminativeGap cells",
        _coords(ed.get("discriminativeGap", [])),
        _coords(ad.get("discriminativeGap", [])),
        _fmt_coords,
    )
    ec, ac = ed.get("conflict") or {}, ad.get("conflict") or {}
    if ec or ac:

        def clue_list(c: Mapping[str, Any]) -> list[str]:
            return [
                f"{x['clueId']}@{_fmt_coords(map(tuple, x['coords']))}" for x in c.get("clues", [])
            ]

        def rule_list(c: Mapping[str, Any]) -> list[str]:
            return [r["rule"] for r in c.get("rules", [])]

        out += _set_change("conflict clues", clue_list(ec), clue_list(ac), " ".join)
        out += _set_change("conflict rules", rule_list(ec), rule_list(ac), " ".join)
        if ec.get("minimal") != ac.get("minimal"):
            out.append(f"conflict minimal: {ec.get('minimal')} -> {ac.get('minimal')}")

    def violation_list(d: Mapping[str, Any]) -> list[str]:
        return [
            f"{v['violationType']} at {_fmt_coords([tuple(v['coord'])]) if v.get('coord') else '-'}"
            f" ({v['fieldName']})"
            for v in d.get("violations", [])
        ]

    out += _set_change("violations", violation_list(ed), violation_list(ad), "; ".join)
    out += _set_change(
        "culprits", _coords(ed.get("culprits", [])), _coords(ad.get("culprits", [])), _fmt_coords
    )
    return out

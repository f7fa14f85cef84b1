"""``oracle-plain``, the holdout of the ``toolcall`` family: an independent plain-Python
enumeration that reads the instance's JSON itself (tool, fixed input, givens, domains from the
tool's JSON Schema) with ``itertools.product`` and shares nothing with the family module or the
``oracle`` filter (:mod:`puzzlekit.verifiers.oracle`) but the tool registry and the family's name.
It declines (``NotImplementedError``) instances of other families.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import Instance, Violation
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import FieldCardinality, RejectDetail, Verdict, VerifierReport
from puzzlekit.verifiers.base import (
    DEFAULT_CAP,
    culprits_over,
    invalid_report,
    rank_gap,
    report,
    source,
)
from puzzlekit.verifiers.oracle import DEFAULT_MAX_COMPLETIONS, FAMILY, VERSION, _decline

# --- the independent holdout ------------------------------------------------------------------


def _plain_domain(prop: Any) -> list[Any] | None:
    if not isinstance(prop, dict):
        return None
    if "enum" in prop:
        return list(prop["enum"])
    if "const" in prop:
        return [prop["const"]]
    if prop.get("type") == "boolean":
        return [False, True]
    if prop.get("type") == "integer" and "minimum" in prop and "maximum" in prop:
        return list(range(prop["minimum"], prop["maximum"] + 1))
    return None


def _plain_code(prop: dict, values: list[Any], value: Any) -> int | None:
    """The variable value of a JSON value: the integer itself, else its position (bool 0/1)."""
    if prop.get("type") == "integer" and "enum" not in prop and "const" not in prop:
        return value if value in values and not isinstance(value, bool) else None
    for i, v in enumerate(values):
        if type(v) is type(value) and v == value:
            return i
    return None


class PlainOracleVerifier(protocols.Verifier):
    """Holdout for oracle families: reads the JSON, enumerates with itertools, counts."""

    name = "oracle-plain"
    version = VERSION
    exact = True
    holdout_name = "oracle"

    def accepts(self, instance: Instance) -> bool:
        """Tool-call instances only."""
        return instance.family == FAMILY

    def __init__(self, *, max_completions: int = DEFAULT_MAX_COMPLETIONS) -> None:
        self.max_completions = max_completions

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        from puzzlekit.families.tools import TOOLS

        _decline(instance, self.name)
        src = source(self.name, self.version)
        obj = instance.to_json_obj()
        params, clues = obj["params"], obj["clues"]

        read = _plain_read(params, clues, TOOLS)
        if isinstance(read, Violation):
            return invalid_report(instance, [read], src, solution_cap)
        tool, fixed, props, hidden, doms, codes = read
        size = math.prod(len(codes[k]) for k in hidden)
        if size > self.max_completions:
            return report(
                Verdict.DOMAIN_TOO_LARGE,
                instance,
                src,
                cap=solution_cap,
                detail=_plain_too_large(hidden, list(props), codes, self.max_completions),
                diagnostics=[f"{size} completions"],
            )
        expected = params.get("expectedVerdict")
        dist, errors, found, total = _plain_enumerate(
            tool, fixed, props, hidden, doms, codes, expected
        )
        shown = found[:solution_cap]
        distribution = dict(sorted(dist.items()))
        if len(found) == 1:
            verdict, detail = Verdict.UNIQUE, None
        elif found:
            cells = [((list(props).index(k),), k) for k in hidden]
            gap = tuple(rank_gap(cells, shown, instance.digest))
            detail = RejectDetail(
                Verdict.MULTIPLE, discriminative_gap=gap, verdict_distribution=distribution
            )
            verdict = Verdict.MULTIPLE
        else:
            verdict = Verdict.UNSOLVABLE
            detail = RejectDetail(Verdict.UNSOLVABLE, verdict_distribution=distribution)
        rep = report(
            verdict,
            instance,
            src,
            solutions=shown,
            cap=solution_cap,
            lower_bound=len(shown) >= solution_cap and len(found) > 1,
            completions=total,
            detail=detail,
            diagnostics=[f"{total} completions, {len(found)} give {expected!r}"],
            stats={"nodes": total},
        )
        return replace(rep, dispatch_error_count=errors)


def _plain_too_large(
    hidden: Sequence[str], order: Sequence[str], codes: Mapping[str, Sequence[Any]], limit: int
) -> RejectDetail:
    """DOMAIN_TOO_LARGE of the plain oracle: open fields' cardinalities, culprits over limit."""
    cards = [
        FieldCardinality((order.index(k),), k, len(codes[k])) for k in hidden if len(codes[k]) > 1
    ]
    return RejectDetail(
        Verdict.DOMAIN_TOO_LARGE,
        field_cardinalities=tuple(cards),
        culprits=tuple(culprits_over(cards, math.log10(max(limit, 1)))),
    )


def _bad(kind: str, where: str, detail: str) -> Violation:
    return Violation(kind, None, where, detail)


def _plain_read(
    params: Mapping[str, Any], clues: Sequence[Mapping[str, Any]], tools: Any
) -> tuple[Any, dict[str, Any], dict[str, dict], list[str], dict, dict] | Violation:
    """The holdout's own reading of a toolcall instance's JSON: the tool, the fixed input, the
    tool's properties, the hidden fields, their domains and the codes the givens leave; or the
    first violation found."""
    name = params.get("tool")
    tool = tools.get(name) if isinstance(name, str) and name in tools else None
    if tool is None:
        return _bad("unknown-tool", "params.tool", "no such tool")
    if set(params) - {"tool", "expectedVerdict", "fixedInput"}:
        return _bad("unknown-field", "params", "unknown param")
    fixed = dict(params.get("fixedInput", {}))
    props = {k: dict(v) for k, v in tool.properties.items()}
    if set(fixed) - set(props):
        return _bad("unknown-field", "fixedInput", "unknown field")
    hidden = [k for k in props if k not in fixed]
    doms: dict[str, list[Any]] = {}
    for k in hidden:
        d = _plain_domain(props[k])
        if d is None:
            return _bad("not-enumerable", k, "no finite domain")
        if not d:
            return _bad("no-enum-domain", k, "empty enum")
        doms[k] = d
    codes = {k: list(range(len(d))) for k, d in doms.items()}
    for k in hidden:
        if props[k].get("type") == "integer" and "enum" not in props[k]:
            codes[k] = list(doms[k])
    seen: set[str] = set()
    for c in clues:
        d = c.get("data", {})
        k = d.get("field")
        if c.get("id") in seen:
            coords = c.get("coords") or [None]
            at = tuple(coords[0]) if isinstance(coords[0], list) else None
            return Violation("duplicate-clue", at, f"clue {c.get('id')}", "clue id used twice")
        seen.add(c.get("id"))
        if c.get("kind") != "given" or set(d) != {"field", "value"}:
            return _bad("malformed", f"clue {c.get('id')}", "not a given")
        if k not in doms:
            return _bad("unknown-field", str(k), "no such hidden field")
        if c.get("coords") != [[list(props).index(k)]]:
            return _bad("shape-mismatch", str(k), "coords do not name the field")
        code = _plain_code(props[k], doms[k], d.get("value"))
        if code is None:
            return _bad("out-of-domain", str(k), "value outside the field's domain")
        codes[k] = [x for x in codes[k] if x == code]
    return tool, fixed, props, hidden, doms, codes


def _plain_enumerate(
    tool: Any,
    fixed: Mapping[str, Any],
    props: Mapping[str, Mapping[str, Any]],
    hidden: Sequence[str],
    doms: Mapping[str, list[Any]],
    codes: Mapping[str, list[Any]],
    expected: Any,
) -> tuple[Counter[str], int, list[dict[str, int]], int]:
    """Every completion through the oracle: the verdict counts, the oracle errors, the
    completions giving ``expected`` (as codes) and how many completions there were."""
    dist: Counter[str] = Counter()
    errors = 0
    found: list[dict[str, int]] = []
    total = 0
    for xs in itertools.product(*(codes[k] for k in hidden)):
        total += 1
        inp = dict(fixed)
        for k, x in zip(hidden, xs, strict=True):
            is_int = props[k].get("type") == "integer" and "enum" not in props[k]
            inp[k] = x if is_int else doms[k][x]
        try:
            verdict = tool.oracle({k: inp[k] for k in props if k in inp})
        except Exception:
            errors += 1
            continue
        dist[str(verdict)] += 1
        if verdict == expected:
            found.append(dict(zip(hidden, xs, strict=True)))
    return dist, errors, found, total

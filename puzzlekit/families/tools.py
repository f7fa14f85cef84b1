"""The tool registry of the ``toolcall`` family: tools with a JSON Schema input and an oracle.

A :class:`Tool` is a name, the JSON Schema of its input (``{"type": "object", "properties":
...}``) and an oracle ``fn(input: dict) -> str`` that returns a verdict for one complete input.
Tools come from Python (:func:`register_tool`) or from an MCP ``tools/list`` result read with
:func:`load_mcp_tools`, which takes the schemas from the file and the oracles from Python (an MCP
listing carries no behaviour). :func:`field_domain` says which input fields are enumerable: an
``enum`` (or ``const``), a ``boolean``, or an ``integer`` with ``minimum`` and ``maximum``.

The example tools ship here: ``shipping-rate`` (a small rate table), ``review-kernel`` (the
routing outcome of :func:`puzzlekit.audit.kernel.decide` under the default publish policy) and
``game-verdict`` (:func:`puzzlekit.verifiers.gametree.game_verdict` over a few tic-tac-toe
positions).

Not for: calling tools over MCP; the oracle runs in this process.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

Oracle = Callable[[Mapping[str, Any]], str]

#: largest integer range a bounded integer field may span and still count as enumerable
MAX_INT_RANGE = 10_000


@dataclass(frozen=True)
class Tool:
    """A tool: its name, its input JSON Schema and its oracle."""

    name: str
    input_schema: Mapping[str, Any]
    oracle: Oracle = field(compare=False)
    description: str = ""

    @property
    def properties(self) -> dict[str, Mapping[str, Any]]:
        props = self.input_schema.get("properties", {})
        return dict(props) if isinstance(props, Mapping) else {}

    @property
    def fields(self) -> tuple[str, ...]:
        """Input field names in the schema's order (their position is their coordinate)."""
        return tuple(self.properties)


_TOOLS: dict[str, Tool] = {}


def register_tool(
    name: str, input_schema: Mapping[str, Any], oracle: Oracle, description: str = ""
) -> Tool:
    """Register (or replace) tool ``name``; returns it."""
    tool = Tool(name, dict(input_schema), oracle, description)
    _TOOLS[name] = tool
    return tool


def get_tool(name: str) -> Tool | None:
    """The registered tool ``name``, or None."""
    _load_builtin()
    return _TOOLS.get(name)


def tool_names() -> list[str]:
    _load_builtin()
    return sorted(_TOOLS)


def load_mcp_tools(
    source: str | Path | Mapping[str, Any], oracles: Mapping[str, Oracle]
) -> list[Tool]:
    """Register the tools of an MCP ``tools/list`` result (a file path or the parsed JSON).

    Accepts ``{"tools": [...]}`` or a JSON-RPC response ``{"result": {"tools": [...]}}``; each
    tool's ``inputSchema`` becomes its input schema, and ``oracles[name]`` its oracle. Tools
    without an oracle are skipped. Raises ValueError for a listing of another shape.
    """
    if isinstance(source, str | Path):
        data = json.loads(Path(source).read_text("utf-8"))
    else:
        data = source
    if isinstance(data, Mapping) and "result" in data:
        data = data["result"]
    tools = data.get("tools") if isinstance(data, Mapping) else None
    if not isinstance(tools, list):
        raise ValueError("an MCP tools/list result is an object with a 'tools' array")
    out = []
    for t in tools:
        if not isinstance(t, Mapping) or not isinstance(t.get("name"), str):
            raise ValueError("every MCP tool needs a name")
        schema = t.get("inputSchema", {"type": "object", "properties": {}})
        if t["name"] in oracles:
            out.append(
                register_tool(t["name"], schema, oracles[t["name"]], t.get("description", ""))
            )
    return out


def field_domain(prop: Any) -> list[Any] | None:
    """The finite domain of one input field, or None when it has none (not enumerable).

    ``enum`` (in its order) and ``const`` first, then ``boolean`` (``[False, True]``), then an
    ``integer`` with both bounds (``exclusiveMinimum``/``exclusiveMaximum`` honoured) spanning at
    most :data:`MAX_INT_RANGE` values. An empty ``enum`` gives ``[]`` (the caller reports it).
    """
    if not isinstance(prop, Mapping):
        return None
    if "enum" in prop:
        return list(prop["enum"]) if isinstance(prop["enum"], list) else None
    if "const" in prop:
        return [prop["const"]]
    kind = prop.get("type")
    if kind == "boolean":
        return [False, True]
    if kind == "integer":
        lo = prop.get("minimum", prop.get("exclusiveMinimum"))
        hi = prop.get("maximum", prop.get("exclusiveMaximum"))
        if not isinstance(lo, int) or not isinstance(hi, int):
            return None
        if "minimum" not in prop:
            lo += 1
        if "maximum" not in prop:
            hi -= 1
        if hi - lo + 1 > MAX_INT_RANGE:
            return None
        return list(range(lo, hi + 1))
    return None


# --- example tools ------------------------------------------------------------------------------

SHIPPING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "zone": {"enum": ["domestic", "eu", "world"]},
        "weight_kg": {"type": "integer", "minimum": 1, "maximum": 6},
        "service": {"enum": ["economy", "standard", "express"]},
        "insured": {"type": "boolean"},
        "note": {"type": "string"},
    },
    "required": ["zone", "weight_kg", "service", "insured"],
}


def shipping_rate(inp: Mapping[str, Any]) -> str:
    """The price band of a parcel: ``free``, ``low``, ``mid``, ``high``, or ``refused``."""
    zone, weight, service = inp["zone"], inp["weight_kg"], inp["service"]
    if zone == "world" and service == "economy" and weight > 4:
        return "refused"
    points = {"domestic": 0, "eu": 2, "world": 4}[zone]
    points += {"economy": 0, "standard": 1, "express": 3}[service]
    points += (weight - 1) // 2 + (1 if inp["insured"] else 0)
    if points == 0:
        return "free"
    return "low" if points <= 2 else "mid" if points <= 5 else "high"


REVIEW_KERNEL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "impact": {"enum": ["none", "low", "medium", "high"]},
        "exposure": {"enum": [0.1, 0.5]},
        "reversibility": {"enum": ["reversible", "irreversible", "unknown"]},
        "assurance": {"enum": ["evaluator_supported", "bounded_checked", "formal_verified"]},
        "evidence_count": {"type": "integer", "minimum": 0, "maximum": 2},
        "stale": {"type": "boolean"},
    },
    "required": ["impact", "exposure", "reversibility", "assurance", "evidence_count", "stale"],
}

#: the fixed clock of the ``review-kernel`` oracle (decisions are pure functions of it)
REVIEW_KERNEL_COMPUTED_AT = "2025-01-01T00:00:00Z"


def review_kernel_request(inp: Mapping[str, Any]) -> dict[str, Any]:
    """The ``rbk.request.v1`` a ``review-kernel`` input stands for: a corpus append proposed by
    a deterministic process, with ``evidence_count`` passed exhaustive-enumeration items of the
    given assurance (the first one stale, reason ``target_changed``, when ``stale``)."""
    items = []
    for i in range(inp["evidence_count"]):
        fresh = (
            {"status": "stale", "reasons": ["target_changed"]}
            if inp["stale"] and i == 0
            else {"status": "fresh"}
        )
        items.append(
            {
                "evidence_id": f"ev.{i}",
                "mode": "exhaustive_enumeration",
                "outcome": "passed",
                "assurance": inp["assurance"],
                "freshness": fresh,
            }
        )
    return {
        "schema": "rbk.request.v1",
        "request_id": "req.toolcall",
        "action": {
            "action_id": "act.toolcall",
            "action_kind": "puzzle.corpus_append",
            "proposed_by": {"actor_id": "puzzlekit.toolcall", "actor_kind": "deterministic"},
            "requested_dimensions": ["execute"],
            "reversibility": inp["reversibility"],
            "risk": {"impact": inp["impact"], "exposure": inp["exposure"], "uncertainty": 0.0},
        },
        "evidence_state": {"items": items},
    }


@cache
def _review_outcome(key: str) -> str:
    from puzzlekit.audit.kernel import decide
    from puzzlekit.loop.publish import default_policy

    request = review_kernel_request(json.loads(key))
    decision = decide(default_policy(), request, computed_at=REVIEW_KERNEL_COMPUTED_AT)
    return str(decision["outcome"])


def review_kernel(inp: Mapping[str, Any]) -> str:
    """The routing outcome of the review kernel: ``auto_apply``, ``human_required`` or
    ``incomplete`` (default publish policy, fixed clock)."""
    return _review_outcome(json.dumps(dict(inp), sort_keys=True))


#: the positions of the ``game-verdict`` tool: equal piece counts, so either side may move
GAME_POSITIONS: tuple[str, ...] = (
    ".../.../...",
    "x../.o./...",
    "xo./.../...",
    "xo./.x./..o",
    "xx./oo./...",
    ".../xox/o..",
    ".../oxo/x..",
)

GAME_VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "position": {"enum": list(GAME_POSITIONS)},
        "to_move": {"enum": ["x", "o"]},
    },
    "required": ["position", "to_move"],
}


@cache
def _game_result(position: str, to_move: str) -> str:
    from puzzlekit.families.games.tictactoe import TicTacToe
    from puzzlekit.verifiers.gametree import game_verdict

    game = TicTacToe()
    return game_verdict(game, game.parse(position, to_move)).result


def game_verdict_tool(inp: Mapping[str, Any]) -> str:
    """The value of a tic-tac-toe position for the side to move: ``WIN``, ``LOSS`` or ``DRAW``."""
    return _game_result(inp["position"], inp["to_move"])


_BUILTIN = False


def _load_builtin() -> None:
    global _BUILTIN
    if _BUILTIN:
        return
    _BUILTIN = True
    if "shipping-rate" not in _TOOLS:
        register_tool("shipping-rate", SHIPPING_SCHEMA, shipping_rate, "parcel price band")
    if "review-kernel" not in _TOOLS:
        register_tool(
            "review-kernel", REVIEW_KERNEL_SCHEMA, review_kernel, "review kernel routing outcome"
        )
    if "game-verdict" not in _TOOLS:
        register_tool(
            "game-verdict", GAME_VERDICT_SCHEMA, game_verdict_tool, "tic-tac-toe position value"
        )

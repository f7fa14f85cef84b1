"""The tool registry of the ``toolcall`` family: tools with a JSON Schema input and an oracle.

A :class:`Tool` is a name, the JSON Schema of its input (``{"type": "object", "properties":
...}``) and an oracle ``fn(input: dict) -> str`` that returns a verdict for one complete input.
Tools live in :data:`TOOLS`, a :class:`~puzzlekit.core.plugins.Registry` like the families',
verifiers' and strategies': they come from Python (:func:`register_tool`, from a plugin module
or an installed package's ``puzzlekit.plugins`` entry point) or from an MCP ``tools/list`` result
read with :func:`load_mcp_tools`, which takes the schemas from the file and the oracles from
Python (an MCP listing carries no behaviour). :func:`field_domain` says which input fields are
enumerable: an ``enum`` (or ``const``), a ``boolean``, or an ``integer`` with ``minimum`` and
``maximum``.

One tool is built in: ``shipping-rate`` (a small rate table), the tool of the family's listed
schemas and golden corpora. The example tools that need the upper floors (``review-kernel``,
``game-verdict``) are a plugin of puzzlekit's own: :mod:`puzzlekit.app.example_tools`.

Not for: calling tools over MCP; the oracle runs in this process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlekit.core.jsondata import frozen
from puzzlekit.core.plugins import Registry
from puzzlekit.core.reading import load_json_file

Oracle = Callable[[Mapping[str, Any]], str]

#: largest integer range a bounded integer field may span and still count as enumerable
MAX_INT_RANGE = 10_000


@dataclass(frozen=True)
class Tool:
    """A tool: its name, its input JSON Schema and its oracle.

    The input schema is frozen all the way down (read-only mappings, tuples): a verifier cannot
    change the domain another verifier reads. Replacing a registered tool, or changing its
    schema anyway, changes :func:`tools_state`, which the loop checks around every evaluation."""

    name: str
    input_schema: Mapping[str, Any]
    oracle: Oracle = field(compare=False)
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "input_schema", frozen(self.input_schema))

    @property
    def properties(self) -> dict[str, Mapping[str, Any]]:
        props = self.input_schema.get("properties", {})
        return dict(props) if isinstance(props, Mapping) else {}

    @property
    def fields(self) -> tuple[str, ...]:
        """Input field names in the schema's order (their position is their coordinate)."""
        return tuple(self.properties)


def register_tool(
    name: str,
    input_schema: Mapping[str, Any],
    oracle: Oracle,
    description: str = "",
    *,
    replace: bool = False,
) -> Tool:
    """Register tool ``name``; returns it. A name already registered raises
    :class:`~puzzlekit.core.plugins.DuplicateName` unless ``replace``; TypeError when ``oracle``
    is not callable."""
    if not callable(oracle):
        raise TypeError(f"tool {name!r}: the oracle must be callable, got {oracle!r}")
    return TOOLS.register(name, Tool(name, input_schema, oracle, description), replace=replace)


def tools_state() -> dict[str, int]:
    """Each registered tool's name and a hash of its input schema's content, read now (nothing
    is loaded): a schema changed in place, past its read-only surface, hashes differently."""
    return {name: hash(tool.input_schema) for name, tool in TOOLS.snapshot()}


def get_tool(name: str) -> Tool:
    """The registered tool ``name``; :class:`~puzzlekit.core.plugins.UnknownName` (a LookupError
    naming the closest known tools) otherwise."""
    return TOOLS.get(name)


def tool_names() -> list[str]:
    """Every registered tool, built-ins and plugins."""
    return TOOLS.names()


def load_mcp_tools(
    source: str | Path | Mapping[str, Any],
    oracles: Mapping[str, Oracle],
    *,
    replace: bool = False,
) -> list[Tool]:
    """Register the tools of an MCP ``tools/list`` result (a file path or the parsed JSON).

    Accepts ``{"tools": [...]}`` or a JSON-RPC response ``{"result": {"tools": [...]}}``; each
    tool's ``inputSchema`` becomes its input schema, and ``oracles[name]`` its oracle. Tools
    without an oracle are skipped. Raises ValueError for a listing of another shape, and
    DuplicateName for a tool name already registered (unless ``replace``).
    """
    if isinstance(source, str | Path):
        data = load_json_file(source)  # ReadError is a ValueError
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
                register_tool(
                    t["name"],
                    schema,
                    oracles[t["name"]],
                    t.get("description", ""),
                    replace=replace,
                )
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
        return list(prop["enum"]) if isinstance(prop["enum"], list | tuple) else None
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


# --- the built-in tool ---------------------------------------------------------------------------

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


def _load_builtin() -> None:
    TOOLS.register(
        "shipping-rate", Tool("shipping-rate", SHIPPING_SCHEMA, shipping_rate, "parcel price band")
    )


#: the registered tools by name (the built-in, then plugins)
TOOLS: Registry[Tool] = Registry("tool", _load_builtin)

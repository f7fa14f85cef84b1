"""The arguments of the MCP tools: their limits, and checks that name the field that cannot be used
(:class:`ArgumentError`; :class:`UnknownArgument` for an unknown name), used by
:mod:`puzzlekit.app.mcp.work`; and what every tool declares to its clients
(:func:`declare_tools`: unknown arguments refused, the output schema from the shipped
``schemas/``), used by :mod:`puzzlekit.app.mcp.server`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MAX_CAP = 1000  # solutions in one report at most (a 9x9 solution is about 1 kB of JSON)


@dataclass(frozen=True)
class Limits:
    """What one call may ask for: input size, puzzles per generate call, and seconds."""

    max_input_chars: int = 100_000
    max_count: int = 20
    max_lines: int = 1_000  # puzzles per puzzle_verify_many call
    max_seconds: float = 300.0
    grace_seconds: float = 10.0  # over a verification budget before the worker is stopped

    def default_seconds(self, seconds: float) -> float:
        """A tool's default time limit, clamped to ``max_seconds``: a call that leaves the limit
        out never runs longer than one that names the largest allowed."""
        return min(seconds, self.max_seconds)


class ArgumentError(Exception):
    """A tool argument that cannot be used; the message starts with the field's name."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class UnknownArgument(ArgumentError):
    """An argument naming what no registry here holds (a family, verifier, strategy or game):
    the one kind of ArgumentError that a plugin, once let in, may answer (the worker retries
    the call with the plugins in only for this one)."""


# --- the work (runs in the worker process) -------------------------------------------------------


def _check_size(field: str, value: Any, limit: int) -> None:
    """``value`` passes the reading boundary (:mod:`puzzlekit.core.reading`: bounded nesting,
    numbers canonical JSON can hold, valid Unicode) and is at most ``limit`` characters."""
    from puzzlekit.core.reading import faults

    if value is None:
        return
    found = faults(value, field)
    if found:
        raise ArgumentError(found[0].path, found[0].detail)
    n = len(value) if isinstance(value, str) else len(json.dumps(value, default=str))
    if n > limit:
        raise ArgumentError(field, f"{n} characters, over the limit of {limit}")


def _check_number(field: str, value: Any, *, integer: bool = False) -> None:
    """A number argument of the right type, finite (ranges are checked where it is used)."""
    import math

    kinds = int if integer else int | float
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise ArgumentError(
            field, f"must be {'an integer' if integer else 'a number'}, got {value!r}"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise ArgumentError(field, f"must be finite, got {value!r}")


def _lookup(field: str, registry: Any, name: str) -> Any:
    """``registry.get(name)``; an unknown name is an UnknownArgument of ``field`` whose message is
    the one every command prints (``unknown verifier 'x'; closest: ...``)."""
    from puzzlekit.core.plugins import UnknownName

    try:
        return registry.get(name)
    except UnknownName as exc:
        raise UnknownArgument(field, str(exc)) from None


def _family(field: str, name: str) -> Any:
    from puzzlekit.families import FAMILIES

    return _lookup(field, FAMILIES, name)


def _check_verify_args(
    instance: Any,
    family: Any,
    params: Any,
    text: Any,
    verifier: Any,
    cap: Any,
    budget_seconds: Any,
    budget_nodes: Any,
    limits: Limits,
) -> None:
    """The arguments of :func:`verify_work` through the reading boundary, their types and
    ranges; an ArgumentError naming the first that cannot be used."""
    from puzzlekit.verifiers.registry import VERIFIERS

    for field, value in (("instance", instance), ("params", params), ("text", text)):
        _check_size(field, value, limits.max_input_chars)
    for field, value in (("text", text), ("family", family), ("verifier", verifier)):
        if value is not None and not isinstance(value, str):
            raise ArgumentError(field, f"must be a string, got {type(value).__name__}")
    _check_number("solution_cap", cap, integer=True)
    _check_number("budget_seconds", budget_seconds)
    if budget_nodes is not None:
        _check_number("budget_nodes", budget_nodes, integer=True)
    if instance is not None and text is not None:
        raise ArgumentError("instance", "give either instance or family + text, not both")
    if instance is None and text is None:
        raise ArgumentError("instance", "required (or family + text)")
    if instance is not None and params is not None:
        raise ArgumentError("params", "only with text; an instance carries its own params")
    if not 2 <= cap <= MAX_CAP:
        raise ArgumentError(
            "solution_cap", f"must be in 2..{MAX_CAP} (2: UNIQUE or not), got {cap}"
        )
    if not 0 < budget_seconds <= limits.max_seconds:
        raise ArgumentError(
            "budget_seconds", f"must be in (0, {limits.max_seconds:g}], got {budget_seconds}"
        )
    if budget_nodes is not None and budget_nodes < 1:
        raise ArgumentError("budget_nodes", f"must be at least 1, got {budget_nodes}")
    if verifier is not None:
        _lookup("verifier", VERIFIERS, verifier)


def _check_extras(extras: Any) -> None:
    """``extras``: a list of names of :data:`~puzzlekit.core.protocols.EXTRAS`."""
    from puzzlekit.core.protocols import EXTRAS

    if isinstance(extras, str) or not all(isinstance(n, str) for n in extras):
        raise ArgumentError("extras", "must be a list of extra names")
    for name in extras:
        if name not in EXTRAS:
            known = ", ".join(sorted(EXTRAS))
            raise ArgumentError("extras", f"unknown report extra {name!r}; known: {known}")


#: the limits of a call that names none
DEFAULT_LIMITS = Limits()


def output_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's output schema, from the shipped schemas: ``puzzle_verify`` answers a
    VerifierReport (``schemas/report.schema.json``), ``puzzle_verify_many`` a list of them, the
    others their definition in
    ``schemas/mcp-tools.schema.json``; ``game_verdict`` answers its verdict, or the
    INVALID_SPEC report of a position it cannot play."""
    from importlib import resources

    root = resources.files("puzzlekit").joinpath("schemas")
    report = json.loads(root.joinpath("report.schema.json").read_text("utf-8"))
    tools = json.loads(root.joinpath("mcp-tools.schema.json").read_text("utf-8"))
    out = {"puzzle_verify": report}
    embedded_report = {k: v for k, v in report.items() if k != "$schema"}
    out["puzzle_verify_many"] = {
        "$schema": tools["$schema"],
        "title": "puzzle_verify_many output",
        "type": "object",
        "properties": {"reports": {"type": "array", "items": embedded_report}},
        "required": ["reports"],
        "additionalProperties": False,
    }
    for name, schema in tools["$defs"].items():
        out[name] = {"$schema": tools["$schema"], "title": f"{name} output", **schema}
    if "game_verdict" in out:
        embedded = {k: v for k, v in report.items() if k != "$schema"}  # keeps its $id
        verdict = {k: v for k, v in out["game_verdict"].items() if k not in ("$schema", "title")}
        out["game_verdict"] = {
            "$schema": tools["$schema"],
            "title": "game_verdict output",
            "type": "object",
            "oneOf": [verdict, embedded],
        }
    return out


def declare_tools(server: Any) -> None:
    """Every tool refuses arguments it does not know, by name (its input schema says
    ``additionalProperties: false``), and declares its output schema."""
    from pydantic import ConfigDict

    schemas = output_schemas()
    for name, schema in schemas.items():
        tool = server._tool_manager.get_tool(name)
        if tool is None:  # game_verdict without the games module
            continue
        base = tool.fn_metadata.arg_model
        strict = type(base.__name__, (base,), {"model_config": ConfigDict(extra="forbid")})
        tool.fn_metadata.arg_model = strict
        tool.parameters = strict.model_json_schema(by_alias=True)
        tool.fn_metadata.output_schema = schema
        tool.__dict__.pop("output_schema", None)  # a cached_property of the SDK's Tool

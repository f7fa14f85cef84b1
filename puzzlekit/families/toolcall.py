"""The ``toolcall`` family: which completion of a partial tool input gives the expected verdict?

A schema is a registered tool (:mod:`puzzlekit.families.tools`), the verdict its oracle should
return
(``expectedVerdict``) and optionally ``fixedInput``, values of fields that cannot be enumerated
(free strings, unbounded numbers). Every other input field is a variable at coordinate
``(i,)``, ``i`` its position in the tool's input schema, named after the field; its domain is
the field's finite domain (:func:`puzzlekit.families.tools.field_domain`) encoded as integers: an
enum
value by its index, a boolean as 0/1, a bounded integer as itself. The one rule is an opaque
``Predicate``: the oracle, called on the decoded input, returns ``expectedVerdict`` (an oracle
that raises counts as not returning it). Clues are ``given`` fields (``{"field", "value"}`` with
the JSON value): the partial input; the fields without a clue are the hidden ones.

Only enumerating verifiers can read this family: ``oracle`` (puzzlekit/verifiers/oracle.py, the
default,
with the verdict distribution and dispatch errors), ``oracle-plain`` (its independent holdout)
and ``enumerative``. Not for: tools whose inputs are nested objects or arrays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import (
    Clue,
    Constraint,
    Instance,
    Origin,
    Predicate,
    Schema,
    Solution,
    SpecError,
    Table,
    Variable,
    Violation,
    freeze,
)
from puzzlekit.core.plugins import UnknownName
from puzzlekit.core.protocols import FamilyInfo, Repair
from puzzlekit.families import register_family
from puzzlekit.families.tools import Tool, field_domain, get_tool


@dataclass(frozen=True)
class FieldSpec:
    """One enumerable input field: its name, position and JSON values (index = variable value)."""

    name: str
    position: int
    values: tuple[Any, ...]
    kind: str  # "enum", "boolean" or "integer"

    def encode(self, value: Any) -> int | None:
        if self.kind == "integer":
            ok = isinstance(value, int) and not isinstance(value, bool) and value in self.values
            return value if ok else None
        for i, v in enumerate(self.values):
            if type(v) is type(value) and v == value:
                return i
        return None

    def decode(self, x: int) -> Any:
        return x if self.kind == "integer" else self.values[x]

    def domain(self) -> tuple[int, ...]:
        if self.kind == "integer":
            return tuple(self.values)
        return tuple(range(len(self.values)))


@dataclass(frozen=True)
class CallSpec:
    """A toolcall schema read: the tool, the expected verdict, fixed input and the fields."""

    tool: Tool
    expected: str
    fixed: Mapping[str, Any]
    fields: tuple[FieldSpec, ...]

    def field(self, name: str) -> FieldSpec | None:
        return next((f for f in self.fields if f.name == name), None)

    def decode(self, values: Mapping[str, int]) -> dict[str, Any]:
        """The tool input of an assignment of every field variable."""
        out = dict(self.fixed)
        for f in self.fields:
            out[f.name] = f.decode(values[f.name])
        return {k: out[k] for k in self.tool.fields if k in out}


def _kind(prop: Mapping[str, Any], values: list[Any]) -> str:
    if "enum" in prop or "const" in prop:
        return "enum"
    return "boolean" if prop.get("type") == "boolean" else "integer"


def read_params(params: Mapping[str, Any]) -> CallSpec:
    """The call spec of toolcall params; raises SpecError with every violation found."""
    problems: list[Violation] = []
    unknown = sorted(set(params) - {"tool", "expectedVerdict", "fixedInput"})
    for key in unknown:
        problems.append(Violation("unknown-field", None, f"params.{key}", "not a toolcall param"))
    try:
        tool = get_tool(params.get("tool"))  # a missing or non-string name is unknown too
    except UnknownName as exc:
        problems.append(Violation("unknown-tool", None, "params.tool", str(exc)))
        raise SpecError(problems) from None
    expected = params.get("expectedVerdict")
    if not isinstance(expected, str):
        problems.append(
            Violation("malformed", None, "params.expectedVerdict", "must be a verdict string")
        )
    fixed = params.get("fixedInput", {})
    if not isinstance(fixed, Mapping):
        problems.append(Violation("malformed", None, "params.fixedInput", "must be an object"))
        fixed = {}
    for key in sorted(set(fixed) - set(tool.fields)):
        problems.append(
            Violation("unknown-field", None, f"fixedInput.{key}", f"{tool.name} has no field {key}")
        )
    fields = []
    for i, (fname, prop) in enumerate(tool.properties.items()):
        if fname in fixed:
            continue
        values = field_domain(prop)
        if values is None:
            problems.append(
                Violation(
                    "not-enumerable",
                    (i,),
                    fname,
                    f"hidden field {fname} has no finite domain (enum, boolean or bounded "
                    "integer); give its value in fixedInput",
                )
            )
        elif not values:
            problems.append(Violation("no-enum-domain", (i,), fname, f"{fname} has an empty enum"))
        else:
            fields.append(FieldSpec(fname, i, tuple(values), _kind(prop, values)))
    if problems:
        raise SpecError(problems)
    return CallSpec(tool, str(expected), dict(fixed), tuple(fields))


def _safe(spec: CallSpec) -> Any:
    names = [f.name for f in spec.fields]

    def holds(*xs: int) -> bool:
        # an oracle that raises raises here: Predicate.holds reads it as False, and the
        # enumerative backend counts it as a dispatch error
        return spec.tool.oracle(spec.decode(dict(zip(names, xs, strict=True)))) == spec.expected

    return holds


class ToolCall(protocols.Family):
    """Partial tool inputs whose completions an oracle judges."""

    info = FamilyInfo(
        name="toolcall",
        description="tool-schema puzzles: hidden input fields, an oracle, an expected verdict",
        clue_kinds=("given",),
        listed_params=(
            {"tool": "shipping-rate", "expectedVerdict": "mid", "fixedInput": {"note": ""}},
            {"tool": "shipping-rate", "expectedVerdict": "high", "fixedInput": {"note": "gift"}},
        ),
        default_verifier="oracle",
        golden_verifier="oracle",
        rules_text=(
            "A tool call with hidden inputs: choose a value, from those listed, for every field "
            "marked `?` so that the call returns the result shown. Fixed and given fields stay."
        ),
    )

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        read_params(params)
        out = {"tool": params["tool"], "expectedVerdict": params["expectedVerdict"]}
        if params.get("fixedInput"):
            out["fixedInput"] = dict(params["fixedInput"])
        return out

    def schema_id(self, params: Mapping[str, Any]) -> str:
        return f"toolcall-{params['tool']}-{params['expectedVerdict']}"

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        spec = read_params(params)
        variables = tuple(Variable((f.position,), f.name, f.domain()) for f in spec.fields)
        coords = tuple(v.coord for v in variables)
        rule = Predicate(
            tuple(v.name for v in variables), _safe(spec), Origin("rule", "oracle", coords)
        )
        return Schema(
            self.info.name, freeze(dict(params)), variables, (rule,), self.info.clue_kinds
        )

    def answer_values(self, schema: Schema) -> dict[str, dict[int, Any]]:
        return {f.name: {x: f.decode(x) for x in f.domain()} for f in self.spec(schema).fields}

    def spec(self, schema: Schema) -> CallSpec:
        """The call spec of a toolcall schema."""
        return read_params(schema.params_dict())

    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        spec = self.spec(schema)
        where = f"clue {clue.id}"
        if clue.kind != "given":
            raise SpecError(
                [Violation("malformed", None, where, f"unknown clue kind {clue.kind!r}")]
            )
        data = clue.data_dict()
        if set(data) != {"field", "value"}:
            raise SpecError([Violation("malformed", None, where, "a given is {field, value}")])
        fname = data["field"]
        f = spec.field(fname) if isinstance(fname, str) else None
        if f is None:
            kind = "malformed" if fname in spec.fixed else "unknown-field"
            raise SpecError(
                [
                    Violation(
                        kind, None, str(fname), f"{spec.tool.name} has no hidden field {fname!r}"
                    )
                ]
            )
        if [tuple(c) for c in clue.coords] != [(f.position,)]:
            raise SpecError(
                [
                    Violation(
                        "shape-mismatch",
                        clue.coords[0] if clue.coords else None,
                        fname,
                        f"a given of {fname} has coords [[{f.position}]]",
                    )
                ]
            )
        x = f.encode(data["value"])
        if x is None:
            raise SpecError(
                [
                    Violation(
                        "out-of-domain",
                        (f.position,),
                        fname,
                        f"{data['value']!r} is not one of {list(f.values)}",
                    )
                ]
            )
        return (Table((fname,), frozenset({(x,)}), Origin("clue", clue.id, ((f.position,),))),)

    def given(self, schema: Schema, fname: str, x: int) -> Clue:
        f = self.spec(schema).field(fname)
        assert f is not None
        return Clue.make(fname, "given", {"field": fname, "value": f.decode(x)}, [(f.position,)])

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        return [self.given(schema, v.name, int(solution[v.name])) for v in schema.variables]

    def sample_solution(self, schema: Schema, rng: Any) -> Solution | None:
        """A uniformly drawn completion with the expected verdict (rejection sampling, then the
        generic search when the verdict is rare)."""
        spec = self.spec(schema)
        holds = _safe(spec)
        for _ in range(2000):
            xs = [int(v.domain[int(rng.integers(len(v.domain)))]) for v in schema.variables]
            if holds(*xs):
                return {v.name: x for v, x in zip(schema.variables, xs, strict=True)}
        return None

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        """Reveal the hidden field at ``coord``; if it is given with another value than the
        solution's, change it (the field the verdict distribution points to)."""
        var = schema.var_at(tuple(coord))
        if var is None:
            return []
        true = self.given(schema, var.name, int(solution[var.name]))
        mine = [c for c in instance.clues if c.data_dict().get("field") == var.name]
        if not mine:
            return [Repair("reveal", tuple(coord), add=(true,))]
        if any(c != true for c in mine):
            return [Repair("change", tuple(coord), add=(true,), remove=tuple(c.id for c in mine))]
        return []

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        spec = self.spec(self.schema(instance.params_dict()))
        given = {c.data_dict()["field"]: c.data_dict()["value"] for c in instance.clues}
        lines = [f"{spec.tool.name}(...) should return {spec.expected!r}"]
        for fname in spec.tool.fields:
            if fname in spec.fixed:
                lines.append(f"  {fname} = {spec.fixed[fname]!r} (fixed)")
            elif fname in given:
                lines.append(f"  {fname} = {given[fname]!r}")
            else:
                f = spec.field(fname)
                lines.append(f"  {fname} = ? of {list(f.values) if f else []}")
        return "\n".join(lines)


TOOLCALL = register_family(ToolCall())

__all__ = ["TOOLCALL", "CallSpec", "FieldSpec", "ToolCall", "read_params"]

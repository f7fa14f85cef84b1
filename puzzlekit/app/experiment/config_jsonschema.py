"""The JSON Schema of experiment configs (hence the module name: a ``*_jsonschema`` module holds a
JSON Schema, never a puzzle schema), every structural problem of a config at once, and
``--set key=value`` overrides.

The schema ships as ``puzzlekit/schemas/experiment-config.schema.json`` (``puzzlekit schemas
--config-schema`` prints it) so editors complete and check configs (Even Better TOML reads a
``#:schema PATH`` first line, or a ``[[rule]]`` in ``.taplo.toml``). :func:`structural_problems`
checks a parsed config against it and returns every unknown key (with the closest valid one),
wrong type, out-of-range number and missing key; :mod:`~puzzlekit.app.experiment.config` adds the
checks a schema cannot make (registered names, params, clue counts against the schema's size).

Not for: the parsed config (:class:`~puzzlekit.app.experiment.config.ExperimentConfig`).
"""

from __future__ import annotations

import difflib
import json
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from puzzlekit.core.reading import is_digits

SCHEMA_FILE = "schemas/experiment-config.schema.json"


@cache
def _schema_text() -> str:
    return resources.files("puzzlekit").joinpath(SCHEMA_FILE).read_text("utf-8")


def config_schema() -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of an experiment config."""
    return json.loads(_schema_text())


def key_path(parts: Iterable[Any]) -> str:
    """``["strategies", 0, "clues"]`` as ``strategies[0].clues``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    for kind, name in ((int, "an integer"), (float, "a float"), (str, "a string")):
        if isinstance(value, kind):
            return name
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


_EXPECTED = {
    "number": "a number",
    "integer": "an integer",
    "string": "a string",
    "boolean": "a boolean",
    "object": "a table",
    "array": "an array",
}


def closest(word: str, choices: Sequence[str]) -> str:
    """``"; did you mean X?"`` for the closest of ``choices``, else the list of them."""
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    if near:
        return f"; did you mean {near[0]}?"
    return f"; allowed: {', '.join(choices)}"


def _messages(err: Any) -> list[tuple[str, str]]:
    """(key path, message) pairs of one jsonschema error, worded like the config reader's."""
    path = list(err.absolute_path)
    kind, value = err.validator, err.validator_value
    if kind == "additionalProperties":
        allowed = list(err.schema.get("properties", {}))
        extra = [k for k in err.instance if k not in allowed]
        return [(key_path([*path, k]), "unknown key" + closest(k, allowed)) for k in extra]
    if kind == "required":
        missing = [k for k in value if k not in err.instance]
        return [(key_path([*path, k]), "required") for k in missing]
    if kind == "type":
        return [(key_path(path), f"expected {_EXPECTED[value]}, got {type_name(err.instance)}")]
    if kind == "minimum":
        return [(key_path(path), f"must be at least {value}, got {err.instance}")]
    if kind == "minItems":
        return [(key_path(path), f"needs at least {value} item")]
    if kind == "enum":
        choices = [str(v) for v in value]
        return [
            (key_path(path), f"unknown value {err.instance!r}" + closest(err.instance, choices))
        ]
    if kind == "anyOf":  # clues: an integer or an array of integers
        if isinstance(err.instance, list):
            array_branch = [s for s in err.context if list(s.relative_schema_path)[:1] == [1]]
            return [m for sub in array_branch for m in _messages(sub)]
        return [(key_path(path), f"expected an integer or an array, got {type_name(err.instance)}")]
    return [(key_path(path), err.message)]


def structural_problems(raw: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every (key path, message) of ``raw`` against :func:`config_schema`, in document order."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(config_schema())
    errors = sorted(validator.iter_errors(dict(raw)), key=lambda e: [str(p) for p in e.path])
    out: list[tuple[str, str]] = []
    for err in errors:
        for item in _messages(err):
            if item not in out:
                out.append(item)
    return out


def apply_overrides(raw: dict[str, Any], sets: Sequence[str]) -> dict[str, Any]:
    """``raw`` with each ``key=value`` of ``sets`` applied (``trials=2``, ``budget.max_calls=50``,
    ``strategies[0].clues=[4, 6]``); the value is read as TOML, else taken as a string.
    Raises ValueError naming an override that is not ``key=value`` or whose path is missing."""
    import copy

    out = copy.deepcopy(raw)
    for item in sets:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: expected key=value")
        try:
            value = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = text.strip()
        except ValueError:  # int() of a literal longer than Python reads
            raise ValueError(
                f"--set {key.strip()}: an integer of more than {sys.get_int_max_str_digits()} "
                "digits"
            ) from None
        parts = _parts(key.strip())
        target: Any = out
        for part in parts[:-1]:
            try:
                target = target[part]
            except (KeyError, IndexError, TypeError):
                raise ValueError(f"--set {item!r}: the config has no {key_path(parts)}") from None
        last = parts[-1]
        if isinstance(last, int):
            if not isinstance(target, list) or not -len(target) <= last < len(target):
                raise ValueError(f"--set {item!r}: the config has no {key_path(parts)}")
        elif not isinstance(target, dict):
            raise ValueError(f"--set {item!r}: {key_path(parts[:-1])} is not a table")
        target[last] = value
    return out


def _parts(key: str) -> list[str | int]:
    """``strategies[0].clues`` as ``["strategies", 0, "clues"]``."""
    parts: list[str | int] = []
    for piece in key.split("."):
        name, _, rest = piece.partition("[")
        if name:
            parts.append(name)
        for index in rest.split("[") if rest else ():
            digits = index.rstrip("]")
            if not is_digits(digits) or len(digits) > 9:
                raise ValueError(f"--set {key!r}: bad index [{index}")
            parts.append(int(digits))
    return parts

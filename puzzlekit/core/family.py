"""The defaults behind :class:`~puzzlekit.core.protocols.Family`'s hooks that are not hooks
themselves: the size-limit check, the schema cache, the schema id's parts and where the default
prompt and answer hooks are loaded from.

Not for: the ``Family`` protocol itself (its one home is :mod:`puzzlekit.core.protocols`), nor
any particular family (``puzzlekit/families/``).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import Any

from puzzlekit.core.model import Schema, SpecError, Violation, _thaw

#: where the default prompt and answer hooks live: ``puzzlekit.answers`` sits floors above the
#: families, so it is named (``"module:attr"``, as the registries name entries) and loaded on
#: first use
ANSWERS_HOOKS = "puzzlekit.answers.prompts"


def answers_hook(attr: str) -> Any:
    """The default prompt or answer hook ``attr`` of :data:`ANSWERS_HOOKS`."""
    return getattr(importlib.import_module(ANSWERS_HOOKS), attr)


def check_size_limits(family: Any, params: Mapping[str, Any]) -> None:
    """Refuse params beyond ``family.info.size_limits`` (SpecError, ``out-of-domain``) before a
    family spends time or memory on them."""
    for key, limit in family.info.size_limits.items():
        value = params.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > limit:
            size = value
        elif isinstance(value, list | tuple | str) and len(value) > limit:
            size = len(value)
        else:
            continue
        detail = f"{size} is beyond {family.info.name}'s declared limit of {limit}"
        raise SpecError([Violation("out-of-domain", None, f"params.{key}", detail)])


def id_part(value: Any) -> str:
    """One param's value as a part of a schema id (lists joined by ``x``)."""
    if isinstance(value, list | tuple):
        return "x".join(id_part(v) for v in value)
    return str(value).replace(" ", "").replace("/", "_")


@functools.lru_cache(maxsize=256)
def cached_schema(family: Any, key: str, frozen_params: Any) -> Schema:
    """``key``: :func:`~puzzlekit.core.jsondata.typed_key` of the params, so that params Python
    compares equal but JSON does not (``true`` and ``1``) never share a schema."""
    return family.build_schema({k: _thaw(v) for k, v in frozen_params})

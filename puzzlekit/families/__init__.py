"""Puzzle families: the registry of families, and the names every family module imports.

A family knows one kind of puzzle: its schema for given params, its clue kinds, how a clue turns
into constraints, the true clues of a solution, its customary text format and its renderings.
The table of every hook a family has, required and optional, each with its default, is the base
class ``Family``, with the record ``FamilyInfo`` it declares its facts in, ``Repair`` and
``pick_in_order``: import them from their one home, ``puzzlekit.core.protocols`` (not
re-exported here). Required: ``info = FamilyInfo(name=...)``, ``normalize_params``,
``build_schema``, ``clue_constraints``, ``clues_from_solution``; optional:
``parse_text``/``format_text``, ``render_ascii``/``render_mpl``/``mark_center``,
``place_of``/``validate_clues``, ``sample_solution``, ``initial_clues``, ``repair_moves(..., *,
found=())`` (an override must accept ``found``), ``schema_id``, ``golden_instances``.

This package is part of the ground floor: it imports only :mod:`puzzlekit.core`.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.identity import clue_violations
from puzzlekit.core.model import Instance, Problem, Schema, SpecError, Violation
from puzzlekit.core.plugins import Registry, UnknownName

__all__ = [
    "FAMILIES",
    "canonical_instance",
    "default_params",
    "families",
    "get_family",
    "register_family",
    "registered_schemas",
    "resolve",
    "schema_of",
]


#: the built-in families, each imported on its first lookup (a Sudoku never imports the games);
#: tests/test_startup.py checks this table against the modules of this package
BUILTIN: dict[str, str] = {
    "futoshiki": "puzzlekit.families.futoshiki:FUTOSHIKI",
    "futoshiki-adjacent": "puzzlekit.families.futoshiki_adjacent:FUTOSHIKI_ADJACENT",
    "kakuro": "puzzlekit.families.kakuro:KAKURO",
    "kenken": "puzzlekit.families.kenken:KENKEN",
    "latin": "puzzlekit.families.latin:LATIN",
    "logicgrid": "puzzlekit.families.logicgrid.family:LOGICGRID",
    "nonogram": "puzzlekit.families.nonogram:NONOGRAM",
    "owm-connect": "puzzlekit.families.games.connect:CONNECT",
    "owm-mnk": "puzzlekit.families.games.mnk:MNK",
    "owm-nim": "puzzlekit.families.games.nim:NIM",
    "owm-tictactoe": "puzzlekit.families.games.tictactoe:TICTACTOE",
    "skyscrapers": "puzzlekit.families.skyscrapers:SKYSCRAPERS",
    "starbattle": "puzzlekit.families.starbattle:STARBATTLE",
    "sudoku": "puzzlekit.families.sudoku:SUDOKU",
    "sudoku-jigsaw": "puzzlekit.families.sudoku_jigsaw:SUDOKU_JIGSAW",
    "sudoku-killer": "puzzlekit.families.sudoku_killer:SUDOKU_KILLER",
    "toolcall": "puzzlekit.families.toolcall:TOOLCALL",
}

#: the registered families by name (built-ins, then plugins)
FAMILIES: Registry[protocols.Family] = Registry("family", entries=BUILTIN)


def register_family(family: protocols.Family, *, replace: bool = False) -> protocols.Family:
    """Register a family under its name (third parties call this for their own families).

    A name already registered raises :class:`~puzzlekit.core.plugins.DuplicateName` unless
    ``replace``: a plugin never hides a built-in by accident. TypeError when ``family`` has no
    :class:`~puzzlekit.core.protocols.FamilyInfo` record ``info`` (a plugin registering something
    that is not a family is told so at import), or sets a field of that record as an attribute
    of its own (the message says what to write instead)."""
    old = protocols.declared_outside_info(family)
    if old:
        raise TypeError(protocols.outside_info_message(type(family).__qualname__, old))
    if not isinstance(getattr(family, "info", None), protocols.FamilyInfo):
        raise TypeError(
            f"register_family: {family!r} is not a family (it has no info = FamilyInfo(...))"
        )
    return FAMILIES.register(family.info.name, family, replace=replace)


def get_family(name: str) -> protocols.Family:
    """The registered family ``name``; raises SpecError (``unknown-family``) otherwise, whose
    detail names the closest known families."""
    try:
        return FAMILIES.get(name)
    except UnknownName as exc:
        raise SpecError([Violation("unknown-family", None, "family", str(exc))]) from None


def families() -> list[protocols.Family]:
    """Every registered family, by name."""
    return [fam for _, fam in FAMILIES.items()]


def registered_schemas() -> list[dict[str, Any]]:
    """One row per registered schema: family, params, clue kinds, variables, domain size."""
    return [fam.describe(params) for fam in families() for params in fam.info.listed_params]


def default_params(family: protocols.Family) -> dict[str, Any]:
    """The params a command uses when none are given: ``{}`` when the family completes them
    itself (sudoku: 9x9), else its first listed params (a family with required params: kakuro
    5x5, toolcall its first example tool)."""
    try:
        family.normalize_params({})
    except SpecError:
        return dict(family.info.listed_params[0]) if family.info.listed_params else {}
    return {}


#: what a family's hook raises when data of the right JSON shape holds the wrong kinds of values
#: (an object where a name belongs, a list where a number does): read as a malformed input
MISREAD_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError)
_STRICT = contextvars.ContextVar("puzzlekit_strict_hooks", default=False)


@contextlib.contextmanager
def strict_hooks() -> Iterator[None]:
    """Within it, a family hook that raises anything but SpecError propagates (``check_family``
    uses it to name the bug); outside it, a run answers such an input with a ``malformed``
    violation at the clue and goes on."""
    token = _STRICT.set(True)
    try:
        yield
    finally:
        _STRICT.reset(token)


def hooks_are_strict() -> bool:
    """Whether :func:`strict_hooks` is in force (backends that call hooks directly ask)."""
    return _STRICT.get()


def _misread(family: protocols.Family, field: str, coord: Any, exc: Exception) -> Violation:
    detail = f"{family.info.name} cannot read this ({type(exc).__name__}: {exc})"
    return Violation("malformed", coord, field, detail[:500])


def resolve(instance: Instance) -> Problem:
    """Check an instance against its family and turn its clues into constraints.

    Raises SpecError listing every violation found (not only the first).
    """
    family = get_family(instance.family)
    try:
        schema = family.schema(instance.params_dict())
    except SpecError:
        raise
    except MISREAD_ERRORS as exc:
        if hooks_are_strict():
            raise
        raise SpecError([_misread(family, "params", None, exc)]) from None
    try:
        violations = clue_violations(family, schema, instance.clues)
    except SpecError:
        raise
    except MISREAD_ERRORS as exc:
        if hooks_are_strict():
            raise
        raise SpecError([_misread(family, "clues", None, exc)]) from None
    pairs = []
    for clue in instance.clues:
        try:
            pairs.append((clue.id, tuple(family.clue_constraints(schema, clue))))
        except SpecError as exc:
            violations.extend(exc.violations)
        except MISREAD_ERRORS as exc:
            if hooks_are_strict():
                raise
            at = clue.coords[0] if clue.coords else None
            violations.append(_misread(family, f"clue {clue.id}", at, exc))
    if violations:
        raise SpecError(violations)
    return Problem(instance, schema, tuple(pairs))


def canonical_instance(instance: Instance) -> Instance:
    """The representative of ``instance``'s symmetry class (``Family.canonical_instance``);
    the instance itself for an unknown family or one its family cannot read."""
    try:
        family = get_family(instance.family)
        return family.canonical_instance(instance)
    except (SpecError, *MISREAD_ERRORS):
        return instance


def schema_of(instance: Instance) -> Schema:
    return get_family(instance.family).schema(instance.params_dict())

"""A family's declarative facts live in one record, ``FamilyInfo`` (``family.info``): every
built-in family has one, the record checks its fields, and a family that still sets a field as
an attribute of its own is refused with one line saying what to write instead, in Python and on
the command line (exit 2)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from puzzlekit.core import protocols
from puzzlekit.core.protocols import INFO_FIELDS, Family, FamilyInfo
from puzzlekit.families import FAMILIES, families, register_family
from puzzlekit.families.latin import Latin


@pytest.mark.parametrize("family", families(), ids=lambda f: f.info.name)
def test_every_builtin_family_declares_one_record_under_its_registered_name(family) -> None:
    assert isinstance(family.info, FamilyInfo)
    assert FAMILIES.get(family.info.name) is family
    assert protocols.declared_outside_info(family) == []
    for params in family.info.listed_params:  # each listed schema builds under the record's name
        assert family.schema(params).family == family.info.name


def test_the_record_holds_every_declarative_field_and_nothing_else() -> None:
    assert INFO_FIELDS == tuple(f.name for f in dataclasses.fields(FamilyInfo))
    assert {"name", "description", "clue_kinds", "listed_params", "default_verifier"} <= set(
        INFO_FIELDS
    )
    assert {"golden_verifier", "size_limits", "symmetry_group", "rules_text"} <= set(INFO_FIELDS)
    assert not any(hasattr(Family, f) for f in INFO_FIELDS)  # the base class sets none of them


def test_the_record_has_defaults_and_is_frozen() -> None:
    info = FamilyInfo(name="probe", clue_kinds=["given"], listed_params=[{"size": 4}])
    assert info.clue_kinds == ("given",) and info.listed_params == ({"size": 4},)
    assert (info.default_verifier, info.golden_verifier, info.place_name) == (
        None,
        "enumerative",
        "place",
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.name = "other"  # type: ignore[misc]
    renamed = info.replace(name="other", description="d")
    assert (renamed.name, renamed.description, renamed.clue_kinds) == ("other", "d", ("given",))
    assert info.name == "probe"


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"name": ""}, "FamilyInfo.name"),
        ({"name": 3}, "FamilyInfo.name"),
        ({"name": "p", "clue_kinds": "given"}, "FamilyInfo.clue_kinds of p"),
        ({"name": "p", "clue_kinds": ("given", 1)}, "FamilyInfo.clue_kinds of p"),
        ({"name": "p", "listed_params": {"size": 4}}, "FamilyInfo.listed_params of p"),
    ],
)
def test_a_bad_field_is_named(fields: dict, named: str) -> None:
    with pytest.raises(TypeError, match=named):
        FamilyInfo(**fields)


def test_a_family_class_setting_the_old_attributes_is_refused_with_what_to_write() -> None:
    with pytest.raises(TypeError) as err:

        class Old(Latin):
            name = "old-latin"
            description = "a Latin square"
            default_verifier = "sat"

    message = str(err.value)
    assert "\n" not in message
    assert "family test_a_family_class_setting_the_old_attributes" in message
    assert "sets name, description, default_verifier as attributes of its own" in message
    assert "info = FamilyInfo(name=..., description=..., default_verifier=...)" in message
    assert "from puzzlekit.core.protocols import FamilyInfo" in message


def test_an_old_attribute_from_a_mixin_is_refused_too() -> None:
    class Mixin:
        symmetry_group = "the square's rotations"

    with pytest.raises(TypeError, match="sets symmetry_group as attributes of its own"):

        class Mixed(Mixin, Latin):
            info = Latin.info.replace(name="mixed-latin")


def test_register_family_refuses_an_attribute_set_on_the_object() -> None:
    family = Latin()
    family.name = "renamed"  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match=r"family Latin sets name as attributes of its own"):
        register_family(family)
    assert "renamed" not in FAMILIES


def test_register_family_refuses_an_object_without_a_record() -> None:
    with pytest.raises(TypeError, match=r"is not a family \(it has no info = FamilyInfo"):
        register_family(object())  # type: ignore[arg-type]


OLD_PLUGIN = """
from puzzlekit.core.protocols import Family
from puzzlekit.families import register_family


class OldLatin(Family):
    name = "old-latin"
    clue_kinds = ("given",)


register_family(OldLatin())
"""


def test_a_plugin_with_the_old_attributes_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "old_style_family.py").write_text(textwrap.dedent(OLD_PLUGIN))
    done = subprocess.run(
        [sys.executable, "-m", "puzzlekit", "--plugin", "old_style_family", "schemas"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**_env(), "PYTHONPATH": str(tmp_path)},
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("puzzlekit: plugin 'old_style_family' could not be loaded: ")
    assert "OldLatin sets name, clue_kinds as attributes of its own" in lines[0]
    assert "info = FamilyInfo(name=..., clue_kinds=...)" in lines[0]


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

"""One import path per protocol: each protocol class is bound in ``puzzlekit.core.protocols``
alone (no other module of the package holds it as an attribute, so ``from puzzlekit.families
import Family`` fails), each record its hooks exchange is offered by no other module, and the
``puzzlekit`` facade re-exports none of them (docs/architecture.md, "Protocols")."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import types
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

import puzzlekit as pk
from puzzlekit.core import protocols

HOME = "puzzlekit.core.protocols"
#: the plug points: bound as a module attribute nowhere but their home (importers write
#: ``from puzzlekit.core import protocols`` and ``protocols.Family``)
PROTOCOLS = (
    "Family",
    "Verifier",
    "Strategy",
    "Holdout",
    "Game",
    "UniquenessSession",
    "OrderedRemoval",
)
#: the records the hooks exchange: imported by name where used, re-exported nowhere
RECORDS = ("FamilyInfo", "GameInfo", "GameState", "Repair", "Step", "SearchBudget", "pick_in_order")


def package_modules() -> Iterator[types.ModuleType]:
    for info in pkgutil.walk_packages(pk.__path__, "puzzlekit."):
        if not info.name.endswith("__main__"):  # running it would start the command line
            yield importlib.import_module(info.name)


def exposed_names(module: types.ModuleType) -> set[str]:
    """The names ``module`` offers to importers: its ``__all__``, and every name it imports with
    the explicit re-export idiom ``import X as X`` (a plain import for its own use is not one)."""
    names = set(getattr(module, "__all__", ()))
    path = getattr(module, "__file__", None)
    if path and path.endswith(".py"):
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom | ast.Import):
                names.update(a.asname for a in node.names if a.asname == a.name.split(".")[-1])
    return names


def bound_elsewhere(modules: Iterable[types.ModuleType]) -> list[str]:
    """Every module attribute, outside the home, that is a protocol class: one line each."""
    wanted = {id(getattr(protocols, n)): n for n in PROTOCOLS}
    return [
        f"{module.__name__}.{attr} is {HOME}.{wanted[id(value)]}"
        for module in modules
        if module.__name__ != HOME
        for attr, value in sorted(vars(module).items())
        if id(value) in wanted
    ]


def reexported(modules: Iterable[types.ModuleType]) -> list[str]:
    """Every record offered by a module other than its home (``__all__`` or ``X as X``)."""
    wanted = {id(getattr(protocols, n)): n for n in RECORDS}
    return [
        f"{module.__name__}.{attr} re-exports {HOME}.{wanted[id(value)]}"
        for module in modules
        if module.__name__ != HOME
        for attr in sorted(exposed_names(module))
        if id(value := getattr(module, attr, None)) in wanted
    ]


@pytest.mark.parametrize("name", PROTOCOLS + RECORDS)
def test_each_protocol_and_record_is_defined_in_its_home(name: str) -> None:
    assert getattr(protocols, name).__module__ == HOME


def test_no_other_module_holds_a_protocol_class() -> None:
    found = bound_elsewhere(package_modules())
    assert not found, "a second import path:\n" + "\n".join(found)


def test_no_other_module_reexports_a_record() -> None:
    found = reexported(package_modules())
    assert not found, "a second import path:\n" + "\n".join(found)


def test_the_facade_reexports_no_protocol() -> None:
    assert [n for n in PROTOCOLS + RECORDS if hasattr(pk, n)] == []


def test_a_protocol_imported_by_name_is_a_second_path() -> None:
    probe = types.ModuleType("puzzlekit.probe")
    exec("from puzzlekit.core.protocols import Family, Repair\n", probe.__dict__)  # noqa: S102
    assert bound_elsewhere([probe]) == [f"puzzlekit.probe.Family is {HOME}.Family"]
    through_module = types.ModuleType("puzzlekit.probe2")
    exec("from puzzlekit.core import protocols\n", through_module.__dict__)  # noqa: S102
    assert bound_elsewhere([through_module]) == []


def test_exposed_names_sees_all_and_the_reexport_idiom(tmp_path: Path) -> None:
    source = "from puzzlekit.core.protocols import Repair as Repair\nfrom os import path\n"
    probe = tmp_path / "probe.py"
    probe.write_text(source + "__all__ = ['listed']\n", encoding="utf-8")
    module = types.ModuleType("probe")
    module.__file__, module.__all__ = str(probe), ["listed"]
    assert exposed_names(module) == {"Repair", "listed"}
    module.Repair = protocols.Repair
    assert reexported([module]) == [f"probe.Repair re-exports {HOME}.Repair"]


@pytest.mark.parametrize("old", ["puzzlekit.core.family", "puzzlekit.families"])
def test_family_is_not_importable_from_its_old_places(old: str) -> None:
    with pytest.raises(ImportError):
        exec(f"from {old} import Family", {})  # noqa: S102

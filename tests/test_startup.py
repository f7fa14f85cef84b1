"""Start-up stays cheap: what ``import puzzlekit``, ``puzzlekit --help`` and a Sudoku load.

Each check is a fresh interpreter reading ``sys.modules`` (no timing: figures come from
``python -m benchmarks.startup``). The lazy registries' tables are held to the
modules they name.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: what ``import puzzlekit`` may hold besides itself: the version module, which imports nothing
VERSION = ["puzzlekit.core", "puzzlekit.core.version"]
HEAVY = ("numba", "numpy", "matplotlib", "pandas", "pyarrow", "scipy", "pysat", "gymnasium")


def _loaded(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout.splitlines()[-1])


def _heavy(mods: list[str]) -> list[str]:
    return [m for m in mods if m.split(".")[0] in HEAVY]


def test_import_puzzlekit_loads_no_floor_and_no_heavy_library() -> None:
    mods = _loaded("import puzzlekit")
    assert _heavy(mods) == []
    assert [m for m in mods if m.startswith("puzzlekit.")] == VERSION


def test_help_answers_before_any_floor_loads() -> None:
    code = (
        "import contextlib, io\nfrom puzzlekit.app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n"
        "assert 'verify' in out.getvalue()"
    )
    mods = _loaded(code)
    assert _heavy(mods) == []
    floors = [m for m in mods if m.startswith("puzzlekit.") and not m.startswith("puzzlekit.app")]
    assert floors == VERSION


def test_a_sudoku_loads_its_own_family_and_backend_only() -> None:
    code = (
        "import puzzlekit as pk\n"
        f"line = {'.' * 80 + '1'!r}\n"
        "assert pk.parse('sudoku', line).family == 'sudoku'\n"
        "from puzzlekit.verifiers.registry import default_verifier_name\n"
        "assert default_verifier_name(pk.parse('sudoku', line)) == 'bitmask'"
    )
    mods = _loaded(code)
    from puzzlekit.families import BUILTIN

    family_modules = {entry.split(":")[0] for entry in BUILTIN.values()}
    assert [m for m in mods if m in family_modules] == ["puzzlekit.families.sudoku"]
    assert [m for m in mods if m.startswith("puzzlekit.families.games")] == []
    for lib in ("numba", "matplotlib", "pandas", "pysat", "gymnasium"):
        assert lib not in mods, lib


def test_a_verification_that_may_decline_imports_no_sat_solver() -> None:
    """``verify_or_decline`` (the path of ``puzzlekit verify`` and ``verify_many``) catches a
    SAT backend's ``NotEncodable`` without importing python-sat for a backend that is not SAT."""
    code = (
        "import puzzlekit as pk\n"
        "from puzzlekit.verifiers.registry import get_verifier, verify_or_decline\n"
        "inst = pk.parse('sudoku', '1' + '.' * 15)\n"
        "rep = verify_or_decline(get_verifier('enumerative'), inst, solution_cap=2)\n"
        "assert rep.verdict.value == 'MULTIPLE', rep.verdict"
    )
    mods = _loaded(code)
    assert [m for m in mods if m.split(".")[0] == "pysat"] == []
    assert "puzzlekit.verifiers.sat.encoding" not in mods


def test_not_encodable_is_one_class_wherever_it_is_named() -> None:
    from puzzlekit.verifiers import reports
    from puzzlekit.verifiers.sat import backend as sat
    from puzzlekit.verifiers.sat import encoding as sat_encoding

    assert sat.NotEncodable is sat_encoding.NotEncodable is reports.NotEncodable
    assert issubclass(reports.NotEncodable, TypeError)


@pytest.mark.parametrize(
    "package, table",
    [
        ("puzzlekit.families", "puzzlekit.families:BUILTIN"),
        ("puzzlekit.verifiers", "puzzlekit.verifiers.registry:BUILTIN"),
        ("puzzlekit.generators", "puzzlekit.generators:BUILTIN"),
    ],
)
def test_each_lazy_entry_names_the_object_its_name_is_bound_to(package: str, table: str) -> None:
    module, _, attr = table.partition(":")
    entries = getattr(importlib.import_module(module), attr)
    registry = {
        "puzzlekit.families": "FAMILIES",
        "puzzlekit.verifiers": "VERIFIERS",
        "puzzlekit.generators": "STRATEGIES",
    }[package]
    reg = getattr(importlib.import_module(module), registry)
    for name, target in entries.items():
        mod, _, obj = target.partition(":")
        assert reg.get(name) is getattr(importlib.import_module(mod), obj), name
        assert reg.origin(name) == "puzzlekit", name


def test_every_family_module_of_the_package_is_in_the_table() -> None:
    """A new family module registers on import; the table must name it, or no lookup finds it."""
    import puzzlekit.families as pkg
    from puzzlekit.families import BUILTIN, FAMILIES

    for info in pkgutil.walk_packages(pkg.__path__, prefix="puzzlekit.families."):
        if not info.name.rsplit(".", 1)[1].startswith("_"):
            importlib.import_module(info.name)
    builtin = {name for name in FAMILIES.names() if FAMILIES.origin(name) == "puzzlekit"}
    assert builtin == set(BUILTIN)


def test_the_review_statuses_written_in_the_command_are_the_audit_floors() -> None:
    from puzzlekit.app.commands.review import REVIEW_STATUSES as written
    from puzzlekit.audit.escalation.targets import REVIEW_STATUSES

    assert written == REVIEW_STATUSES


def test_a_lazy_entry_is_imported_on_first_lookup_and_cannot_be_taken_by_a_plugin() -> None:
    from puzzlekit.core.plugins import DuplicateName, Registry

    reg: Registry[object] = Registry("thing", entries={"json-dumps": "json:dumps"})
    assert reg.names() == ["json-dumps"] and reg.snapshot() == ()
    with pytest.raises(DuplicateName):
        reg.register("json-dumps", object())
    assert reg.get("json-dumps") is json.dumps
    reg.register_lazy("loads", "json:loads")
    assert reg.get("loads") is json.loads and reg.origin("loads") == __name__
    with pytest.raises(ValueError, match="module:attr"):
        reg.register_lazy("bad", "json")

"""The one registry mechanism (puzzlekit.core.plugins): names, built-ins first, plugins after,
one-line unknown-name messages, duplicate names refused, plugin modules loaded once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from puzzlekit.core.plugins import (
    DuplicateName,
    PluginError,
    Registry,
    UnknownName,
    unknown_message,
    use_plugins,
)


def _registry() -> Registry[int]:
    reg: Registry[int] = Registry("widget")
    reg._load_builtins = lambda: (reg.register("alpha", 1), reg.register("alphabet", 2))
    return reg


def test_unknown_name_names_the_kind_the_name_and_the_closest_known_names() -> None:
    reg = _registry()
    with pytest.raises(UnknownName) as err:
        reg.get("alpah")
    assert str(err.value) == "unknown widget 'alpah'; closest: alpha, alphabet"
    assert err.value.kind == "widget" and err.value.known == ["alpha", "alphabet"]
    assert "\n" not in str(err.value)


def test_an_unknown_name_far_from_every_known_one_lists_the_known_names() -> None:
    assert unknown_message("widget", "zzz", ["alpha", "beta"]) == (
        "unknown widget 'zzz'; known: alpha, beta"
    )
    assert unknown_message("widget", "zzz", []) == "unknown widget 'zzz'; no widget is registered"


def test_registering_before_the_first_lookup_keeps_every_builtin() -> None:
    reg = _registry()
    reg.register("mine", 3)
    assert reg.names() == ["alpha", "alphabet", "mine"]
    assert reg.origin("alpha") == "puzzlekit" and reg.origin("mine") == __name__


def test_a_taken_name_is_refused_unless_replacing_is_asked_for() -> None:
    reg = _registry()
    with pytest.raises(DuplicateName, match="'alpha' is already registered"):
        reg.register("alpha", 9)
    assert reg.get("alpha") == 1
    reg.register("alpha", 9, replace=True)
    assert reg.get("alpha") == 9


FIXTURE = Path(__file__).parent / "plugin_fixture"


def _cli(*argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(FIXTURE), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "puzzlekit", *argv], capture_output=True, text=True, env=env
    )


def test_bound_says_what_a_name_means_now_without_loading_anything() -> None:
    reg = _registry()
    assert reg.bound("alpha") is None  # nothing loaded yet, and bound loads nothing
    assert reg._builtins_state == "pending"
    assert reg.get("alpha") == 1 and reg.bound("alpha") == 1
    reg.register("alpha", 9, replace=True)
    assert reg.bound("alpha") == 9
    reg.unregister("alpha")
    assert reg.bound("alpha") is None


def test_a_plugin_that_replaces_a_name_at_import_is_refused_naming_both() -> None:
    got = _cli("--plugin", "pk_forge_replace", "schemas")
    assert got.returncode == 2, got.stderr
    assert got.stderr.count("\n") == 1 and "Traceback" not in got.stderr
    assert "plugin 'pk_forge_replace' may not replace verifier 'enumerative'" in got.stderr


def test_a_plugin_that_replaces_a_name_later_is_refused_and_a_session_may_still(
    monkeypatch,
) -> None:
    import puzzlekit.core.plugins as plugins
    from puzzlekit.core.plugins import ReplaceRefused, use_plugins
    from puzzlekit.verifiers.registry import VERIFIERS

    # forgotten after the test: later loop processes would be asked to import it
    monkeypatch.setattr(plugins, "_LOADED", dict(plugins._LOADED))
    sys.path.insert(0, str(FIXTURE))
    try:
        use_plugins(["pk_forge_later"])
    finally:
        sys.path.remove(str(FIXTURE))
    before = VERIFIERS.get("sat")
    with pytest.raises(ReplaceRefused, match="plugin 'pk_forge_later' may not replace verifier"):
        sys.modules["pk_forge_later"].forge()
    assert VERIFIERS.get("sat") is before
    reg = _registry()  # no plugin on the stack: a test or session of one's own may replace
    reg.register("alpha", 9, replace=True)
    assert reg.get("alpha") == 9


def test_builtin_registries_refuse_to_hide_a_builtin() -> None:
    from puzzlekit.families import FAMILIES, get_family, register_family
    from puzzlekit.generators import register_strategy
    from puzzlekit.verifiers.registry import register_verifier

    with pytest.raises(DuplicateName):
        register_verifier("sat", object)
    with pytest.raises(DuplicateName):
        register_strategy("adaptive", object)
    with pytest.raises(DuplicateName):
        register_family(type(get_family("latin"))())
    assert "sudoku" in FAMILIES


def test_a_plugin_module_that_cannot_be_imported_is_one_clear_error() -> None:
    with pytest.raises(PluginError, match="plugin 'no_such_plugin_module' could not be loaded"):
        use_plugins(["no_such_plugin_module"])


def _dist(root: Path, name: str, module: str) -> None:
    info = root / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[puzzlekit.plugins]\n{name} = {module}\n")


def test_entry_point_plugins_load_on_first_lookup_and_a_broken_one_does_not_stop_the_rest(
    tmp_path: Path,
) -> None:
    (tmp_path / "pk_good_plugin.py").write_text(
        textwrap.dedent(
            """
            from puzzlekit.generators import register_strategy
            from puzzlekit.generators.blind import Blind
            register_strategy("blind-again", Blind)
            """
        )
    )
    (tmp_path / "pk_bad_plugin.py").write_text("raise RuntimeError('boom')\n")
    _dist(tmp_path, "pk-good", "pk_good_plugin")
    _dist(tmp_path, "pk-bad", "pk_bad_plugin")
    code = (
        "from puzzlekit.generators import STRATEGIES\n"
        "from puzzlekit.core.plugins import loaded_plugins\n"
        "print([(n, STRATEGIES.origin(n)) for n in STRATEGIES.names()\n"
        "       if STRATEGIES.origin(n) != 'puzzlekit'])\n"
        "print([(p.module, p.source, p.distribution, p.version) for p in loaded_plugins()\n"
        "       if p.module.startswith('pk_')])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    names, records = out.stdout.splitlines()
    assert names == "[('blind-again', 'pk_good_plugin')]"  # the built-ins are puzzlekit's
    assert records == "[('pk_good_plugin', 'entry-point', 'pk-good', '0.1')]"
    assert out.stderr.count("plugin 'pk_bad_plugin' could not be loaded: boom") == 1

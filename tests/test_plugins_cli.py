"""Plugins seen by every command: a module named with ``--plugin`` (or ``plugins = [...]`` in a
config, or an installed entry point) registers a family, a verifier, a strategy and a tool that
schemas, verify, solve, generate, grade, run, regress and the MCP tools use like built-ins; and
an unknown name given as an argument fails the same way in every command.

The plugin is tests/plugin_fixture/pk_fixture_plugin.py, run in subprocesses (``python -m
puzzlekit``) with its folder on PYTHONPATH, so this test process never registers it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.app.cli import main
from puzzlekit.app.experiment import RunError, parse_config, plan
from puzzlekit.app.experiment.manifest import _load_manifest_plugins

FIXTURE = Path(__file__).parent / "plugin_fixture"
PLUGIN = "pk_fixture_plugin"
FAMILY = "pkfix-latin"


def _env(*paths: Path) -> dict[str, str]:
    env = dict(os.environ)
    extra = [str(p) for p in (*paths, FIXTURE)]
    env["PYTHONPATH"] = os.pathsep.join([*extra, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def pk(*args: str, stdin: str = "", paths: tuple[Path, ...] = (), cwd: Path | None = None):
    """``python -m puzzlekit ARGS`` with the fixture folder (and ``paths``) on PYTHONPATH."""
    return subprocess.run(
        [sys.executable, "-m", "puzzlekit", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=_env(*paths),
        cwd=cwd,
        timeout=300,
    )


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> list[dict]:
    """Two puzzles of the plugin family, by the plugin's strategy and verifier (the holdout runs
    in its own worker process, which must load the plugin too)."""
    out = pk(
        "generate", FAMILY, "--params", '{"size": 4}', "--count", "2", "--seed", "3",
        "--strategy", "pkfix-blind", "--filter", "pkfix-sat", "--holdout", "enumerative",
        "--plugin", PLUGIN,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    accepted = [r for r in records if r["status"] == "accepted"]
    assert len(accepted) == 2 and all(r["holdoutVerdict"] == "UNIQUE" for r in accepted)
    assert all(r["instance"]["family"] == FAMILY for r in accepted)
    return accepted


def _instances(records: list[dict]) -> str:
    return "".join(json.dumps(r["instance"]) + "\n" for r in records)


# --- --plugin on every command ------------------------------------------------------------------


def test_schemas_lists_a_plugin_family_only_with_the_plugin() -> None:
    with_plugin = pk("schemas", "--json", "--plugin", PLUGIN)
    assert with_plugin.returncode == 0, with_plugin.stderr
    rows = [json.loads(line) for line in with_plugin.stdout.splitlines()]
    assert [r["params"] for r in rows if r["family"] == FAMILY] == [{"size": 4}, {"size": 5}]
    assert "latin" in {r["family"] for r in rows}  # built-ins stay listed
    # the flag is accepted before the command name too
    before = pk("--plugin", PLUGIN, "schemas", "--json")
    assert before.returncode == 0 and before.stdout == with_plugin.stdout
    without = pk("schemas", "--json")
    assert without.returncode == 0 and FAMILY not in without.stdout


def test_a_plugin_that_cannot_be_imported_is_one_line_exit_2(tmp_path: Path) -> None:
    out = pk("schemas", "--plugin", "pk_no_such_module")
    assert out.returncode == 2 and out.stdout == ""
    assert one_line(out.stderr).startswith(
        "puzzlekit: plugin 'pk_no_such_module' could not be loaded: No module named"
    )
    (tmp_path / "pk_broken.py").write_text("raise RuntimeError('half-written plugin')\n")
    out = pk("verify", "-", "--plugin", "pk_broken", paths=(tmp_path,))
    assert out.returncode == 2
    assert one_line(out.stderr) == (
        "puzzlekit: plugin 'pk_broken' could not be loaded: half-written plugin"
    )


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("import sys\nsys.exit(3)\n", "it called sys.exit(3) on import"),
        (
            "from puzzlekit.generators import register_strategy\nregister_strategy('x', 42)\n",
            "strategy 'x': the factory must be callable, got 42",
        ),
        (
            "from puzzlekit.verifiers.registry import register_verifier\n"
            "register_verifier('v', 'no')\n",
            "verifier 'v': the factory must be callable, got 'no'",
        ),
        (
            "from puzzlekit.families import register_family\nregister_family(7)\n",
            "register_family: 7 is not a family (it has no info = FamilyInfo(...))",
        ),
    ],
)
def test_a_plugin_that_exits_or_registers_a_non_callable_is_one_line_exit_2(
    tmp_path: Path, code: str, message: str
) -> None:
    (tmp_path / "pk_odd.py").write_text(code)
    out = pk("schemas", "--plugin", "pk_odd", paths=(tmp_path,))
    assert out.returncode == 2 and out.stdout == ""
    assert one_line(out.stderr) == f"puzzlekit: plugin 'pk_odd' could not be loaded: {message}"


def test_verify_and_solve_read_a_plugin_family_with_a_plugin_verifier(generated) -> None:
    text = _instances(generated)
    out = pk("verify", "-", "--verifier", "pkfix-sat", "--plugin", PLUGIN, stdin=text)
    assert out.returncode == 0, out.stderr
    verdicts = [json.loads(line)["uniquenessVerdict"] for line in out.stdout.splitlines()]
    assert verdicts == ["UNIQUE", "UNIQUE"]
    out = pk("solve", "-", "--plugin", PLUGIN, stdin=text)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert all(r["uniquenessVerdict"] == "UNIQUE" for r in rows)
    # the solution in the family's text format is the one generate recorded
    solution = generated[0]["solution"]
    line = "".join(str(solution[f"r{r}c{c}"]) for r in range(1, 5) for c in range(1, 5))
    assert rows[0]["solutions"] == [line]


def test_a_plugin_family_named_inside_a_puzzle_without_the_plugin_is_invalid_spec(
    generated,
) -> None:
    out = pk("verify", "-", stdin=_instances(generated[:1]))
    assert out.returncode == 0  # data, not an argument: reported per puzzle
    report = json.loads(out.stdout)
    assert report["uniquenessVerdict"] == "INVALID_SPEC"
    violation = report["rejectDetail"]["violations"][0]
    assert violation["violationType"] == "unknown-family"
    assert f"unknown family '{FAMILY}'; closest: latin" in violation["detail"]


def test_grade_grades_a_plugin_family(generated) -> None:
    out = pk("grade", "-", "--no-search", "--plugin", PLUGIN, stdin=_instances(generated))
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["family"] for r in rows] == [FAMILY, FAMILY]
    assert all(r["status"] == "solved" and isinstance(r["level"], int) for r in rows)


def test_a_plugin_name_is_among_the_closest_names_when_loaded() -> None:
    out = pk("generate", "pkfix-latn", "--plugin", PLUGIN)
    assert out.returncode == 2
    assert one_line(out.stderr).startswith(
        f"puzzlekit: error: unknown family 'pkfix-latn'; closest: {FAMILY}"
    )
    out = pk("generate", "latin", "--strategy", "pkfix-blnd", "--plugin", PLUGIN)
    assert one_line(out.stderr).startswith(
        "puzzlekit: error: unknown strategy 'pkfix-blnd'; closest: pkfix-blind"
    )


# --- one unknown-name failure everywhere --------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["verify", "-", "--family", "sudok"], "unknown family 'sudok'; closest: sudoku"),
        (["verify", "-", "--verifier", "satt"], "unknown verifier 'satt'; closest: sat"),
        (["solve", "-", "--verifier", "enumerativ"], "unknown verifier 'enumerativ'; closest"),
        (["grade", "-", "--family", "latn"], "unknown family 'latn'; closest: latin"),
        (["generate", "sudok"], "unknown family 'sudok'; closest: sudoku"),
        (["generate", "latin", "--strategy", "blnd"], "unknown strategy 'blnd'; closest: blind"),
        (["generate", "latin", "--filter", "satt"], "unknown verifier 'satt'; closest: sat"),
        (["generate", "latin", "--holdout", "minimx"], "unknown verifier 'minimx'; closest"),
        (["regress", "--verifier", "satt"], "unknown verifier 'satt'; closest: sat"),
        (["game-verdict", "tictacto", "..."], "unknown game 'tictacto'; closest: tictactoe"),
        (["escalations", "retry", "--verifier", "satt"], "unknown verifier 'satt'; closest"),
    ],
    ids=lambda v: " ".join(v[:2]) if isinstance(v, list) else None,
)
def test_an_unknown_name_argument_is_one_line_naming_the_closest_exit_2(
    argv, line, capsys, monkeypatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1234........4321\n"))
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert one_line(captured.err).startswith(f"puzzlekit: error: {line}")


def test_an_unknown_name_in_a_publish_gate_config_is_the_same_line(tmp_path, capsys) -> None:
    cfg = tmp_path / "gate.toml"
    cfg.write_text(
        '[publish_gate]\n[[publish_gate.arms]]\nname = "a"\nfilter = "satt"\n'
        'holdout = "enumerative"\n[[publish_gate.schemas]]\nfamily = "latin"\n'
        "params = { size = 4 }\n"
    )
    assert main(["publish-gate", str(cfg)]) == 2
    assert (
        one_line(capsys.readouterr().err)
        == "puzzlekit: error: unknown verifier 'satt'; closest: sat"
    )


# --- experiment configs -------------------------------------------------------------------------

CONFIG = """
name = "plugin-run"
plugins = ["pk_fixture_plugin"]
seed = 5
trials = 2
batch = 1
executor = "local"
workers = 1
grade = false

[budget]
max_calls = 40

[[schemas]]
family = "pkfix-latin"
params = { size = 4 }

[[strategies]]
name = "pkfix-blind"
clues = [6]

[[filters]]
verifier = "pkfix-sat"

[holdout]
verifier = "enumerative"

[preregistration]
hypotheses = ["the plugin's family, strategy and filter run like built-ins"]
metrics = ["accept_rate"]
"""


def test_run_loads_config_plugins_in_every_worker_and_records_them(tmp_path: Path) -> None:
    cfg = tmp_path / "plugin.toml"
    cfg.write_text(CONFIG)
    out = tmp_path / "run"
    # the process pool worker and its holdout worker both need the plugin's family
    res = pk("run", str(cfg), "--out", str(out), "--quiet", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    records = {p["module"]: p for p in manifest["plugins"]}
    assert records[PLUGIN]["source"] == "per-use"
    assert set(records[PLUGIN]) == {"module", "source", "distribution", "version"}
    assert manifest["config"]["plugins"] == [PLUGIN]
    puzzles = pd.read_parquet(out / "puzzles.parquet")
    assert len(puzzles) == 2 and set(puzzles["strategy"]) == {"pkfix-blind"}
    accepted = puzzles[puzzles["status"] == "accepted"]
    assert len(accepted) and set(accepted["holdoutVerdict"]) == {"UNIQUE"}
    # a resumed run loads the manifest's plugins and finds nothing left to do
    again = pk("run", str(cfg), "--out", str(out), "--resume", "--quiet", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert pd.read_parquet(out / "puzzles.parquet").equals(puzzles)


def test_a_config_plugin_that_cannot_be_imported_names_its_entry(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text(CONFIG.replace('plugins = ["pk_fixture_plugin"]', 'plugins = ["pk_nothing"]'))
    res = pk("run", str(cfg), "--out", str(tmp_path / "run"))
    assert res.returncode == 2
    assert "plugins[0]: plugin 'pk_nothing' could not be loaded" in one_line(res.stderr)
    assert not (tmp_path / "run").exists()


def test_a_config_without_its_plugin_names_the_unknown_family_at_its_key(tmp_path) -> None:
    cfg = tmp_path / "noplugin.toml"
    cfg.write_text(CONFIG.replace('plugins = ["pk_fixture_plugin"]\n', ""))
    res = pk("run", str(cfg), "--out", str(tmp_path / "run"))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()  # every unknown name of the config, once each
    assert f"schemas[0].family: unknown family '{FAMILY}'; closest: latin" in lines[0]
    assert len(lines) == len(set(lines)) and "strategies[0].name: unknown strategy" in lines[1]


def test_config_plugins_enter_the_digest_only_when_named() -> None:
    raw = {
        "name": "x",
        "trials": 1,
        "schemas": [{"family": "latin", "params": {"size": 4}}],
        "strategies": [{"name": "blind", "clues": [4]}],
        "filters": [{"verifier": "sat"}],
        "preregistration": {"hypotheses": ["h"], "metrics": ["accept_rate"]},
    }
    plain = parse_config(raw)
    assert "plugins" not in plain.to_json_obj()  # digests of configs without plugins unchanged
    # a module already imported stands in for a plugin here (nothing new is registered)
    named = parse_config({**raw, "plugins": ["puzzlekit.app.example_tools"]})
    assert named.to_json_obj()["plugins"] == ["puzzlekit.app.example_tools"]
    assert named.digest != plain.digest
    assert plan(named)[0].plugins == ("puzzlekit.app.example_tools",)


def test_resuming_a_run_whose_plugin_is_gone_is_a_run_error(tmp_path) -> None:
    manifest = {"plugins": [{"module": "pk_gone_plugin", "source": "per-use"}]}
    with pytest.raises(RunError, match="cannot resume .*'pk_gone_plugin' could not be loaded"):
        _load_manifest_plugins(manifest, tmp_path)


# --- golden corpora of a plugin family ----------------------------------------------------------


@pytest.fixture(scope="module")
def plugin_corpus(tmp_path_factory) -> Path:
    """The corpus of ``pkfix-latin-4x4``, built with ``regress --update --schema``."""
    golden = tmp_path_factory.mktemp("golden")
    sid = f"{FAMILY}-4x4"
    built = pk("regress", "--update", "--golden", str(golden), "--schema", sid, "--plugin", PLUGIN)
    assert built.returncode == 0, built.stderr
    assert f"{sid}: new corpus built" in built.stdout
    return golden / f"{sid}.jsonl"


def test_regress_builds_checks_and_refuses_to_rewrite_a_plugin_corpus(
    plugin_corpus: Path, tmp_path: Path
) -> None:
    entries = [json.loads(line) for line in plugin_corpus.read_text().splitlines()]
    assert {e["instance"]["family"] for e in entries} == {FAMILY}
    assert {"UNIQUE", "MULTIPLE", "UNSOLVABLE"} <= {e["uniquenessVerdict"] for e in entries}
    golden = tmp_path / "golden"
    golden.mkdir()
    corpus = golden / plugin_corpus.name
    shutil.copy(plugin_corpus, corpus)
    ok = pk("regress", "--golden", str(golden), "--plugin", PLUGIN)
    assert ok.returncode == 0 and "0 changed" in ok.stdout
    before = corpus.read_bytes()
    # following a failing test's advice without the plugin: refused, nothing rewritten
    for update in (["--update"], []):
        res = pk("regress", *update, "--golden", str(golden))
        assert res.returncode == 2 and res.stdout == ""
        line = one_line(res.stderr)
        assert line.startswith(
            f"puzzlekit: error: {corpus}: unknown family '{FAMILY}'; closest: latin"
        )
        assert "--plugin MODULE" in line
        assert corpus.read_bytes() == before


def test_the_pytest_plugin_loads_plugins_for_golden_cases(
    plugin_corpus: Path, tmp_path: Path
) -> None:
    (tmp_path / "golden").mkdir()
    shutil.copy(plugin_corpus, tmp_path / "golden" / plugin_corpus.name)
    (tmp_path / "test_corpus.py").write_text(
        "def test_golden(golden_case):\n    golden_case.check()\n"
    )
    # only puzzlekit's pytest plugin (others would only slow the subprocess down)
    env = {**_env(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

    def pytest_run(*extra: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "pytest", "-p", "puzzlekit.quality.pytest_plugin"]
        cmd += ["-p", "no:cacheprovider", "-q", "test_corpus.py", "--puzzlekit-golden", "golden"]
        return subprocess.run(
            [*cmd, *extra], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
        )

    with_flag = pytest_run("--puzzlekit-plugin", PLUGIN)
    assert with_flag.returncode == 0 and "7 passed" in with_flag.stdout, with_flag.stdout
    (tmp_path / "pytest.ini").write_text(f"[pytest]\npuzzlekit_plugins = {PLUGIN}\n")
    assert "7 passed" in pytest_run().stdout
    (tmp_path / "pytest.ini").unlink()
    without = pytest_run()
    assert without.returncode == 1 and "7 failed" in without.stdout
    assert f"unknown family '{FAMILY}'" in without.stdout and "--puzzlekit-plugin" in without.stdout
    broken = pytest_run("--puzzlekit-plugin", "pk_no_such_module")
    assert broken.returncode == pytest.ExitCode.USAGE_ERROR
    assert "plugin 'pk_no_such_module' could not be loaded" in broken.stderr


# --- MCP tools ----------------------------------------------------------------------------------

MCP_SCRIPT = """
import json, sys
from puzzlekit.core.plugins import use_plugins
use_plugins(["pk_fixture_plugin"])
from puzzlekit.app.mcp import server as ms

out = {}
out["families"] = sorted({s["family"] for s in ms.schema_list()["schemas"]})
out["verifiers"] = ms.schema_list()["verifiers"]
gen = ms.generate_work(family="pkfix-latin", params={"size": 4}, strategy="pkfix-blind",
                       filter="pkfix-sat", holdout="enumerative", seed=1)
out["accepted"] = gen["accepted"]
inst = gen["puzzles"][-1]["instance"]
out["verdict"] = ms.verify_work(instance=inst, verifier="pkfix-sat")["report"]["uniquenessVerdict"]
errors = []
for kwargs in ({"instance": inst, "verifier": "pkfix-st"},
               {"family": "pkfix-latn", "text": "1234"}):
    try:
        ms.verify_work(**kwargs)
    except ms.ArgumentError as exc:
        errors.append(str(exc))
try:
    ms.generate_work(family="latin", params={"size": 4}, strategy="pkfix-blnd")
except ms.ArgumentError as exc:
    errors.append(str(exc))
out["errors"] = errors
worker = ms.Worker()  # its own process: loads the plugins this one loaded per use
try:
    call = worker.call("verify", {"instance": inst, "verifier": "pkfix-sat"}, 120)
    out["worker_verdict"] = call["report"]["uniquenessVerdict"]
finally:
    worker.stop()
print(json.dumps(out))
"""


def test_mcp_tools_see_plugin_names_and_name_unknown_ones() -> None:
    res = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(MCP_SCRIPT)],
        capture_output=True, text=True, env=_env(), timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert FAMILY in out["families"] and "latin" in out["families"]
    assert "pkfix-sat" in out["verifiers"] and "sat" in out["verifiers"]
    assert out["accepted"] == 1 and out["verdict"] == out["worker_verdict"] == "UNIQUE"
    expected = [
        "verifier: unknown verifier 'pkfix-st'; closest: pkfix-sat",
        f"family: unknown family 'pkfix-latn'; closest: {FAMILY}",
        "strategy: unknown strategy 'pkfix-blnd'; closest: pkfix-blind",
    ]
    assert len(out["errors"]) == len(expected)
    assert all(e.startswith(x) for e, x in zip(out["errors"], expected, strict=True))


# --- installed plugins (entry points) -----------------------------------------------------------


def test_an_installed_plugin_is_seen_without_a_flag(tmp_path: Path) -> None:
    dist = tmp_path / "pkfix_dist-0.3.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pkfix-dist\nVersion: 0.3\n")
    (dist / "entry_points.txt").write_text(f"[puzzlekit.plugins]\npkfix = {PLUGIN}\n")
    out = pk("schemas", "--json", paths=(tmp_path,))
    assert out.returncode == 0, out.stderr
    assert FAMILY in {json.loads(line)["family"] for line in out.stdout.splitlines()}
    script = (
        "from puzzlekit.generators import STRATEGIES; STRATEGIES.names();"
        "from puzzlekit.core.plugins import loaded_plugins;"
        f"print([p.to_json_obj() for p in loaded_plugins() if p.module == {PLUGIN!r}])"
    )
    res = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=_env(tmp_path)
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == str(
        [
            {
                "module": PLUGIN,
                "source": "entry-point",
                "distribution": "pkfix-dist",
                "version": "0.3",
            }
        ]
    )

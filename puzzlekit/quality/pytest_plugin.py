"""pytest plugin: one test per golden case, from a directory of corpora.

Installed with puzzlekit (entry point ``pytest11``), so any repository that depends on puzzlekit
gets it. Point it at a directory of ``<schema id>.jsonl`` corpora (see
:mod:`puzzlekit.quality.golden.corpus`)
with ``--puzzlekit-golden DIR`` (repeatable) or the ini option ``puzzlekit_golden``, and write a
test that asks for the ``golden_case`` fixture::

    def test_golden(golden_case):
        golden_case.check()  # AssertionError with a readable diff if the report changed

Each case becomes its own test, named ``<schema>:<case>``. ``--puzzlekit-verifier NAME``
re-verifies with another backend than the recorded one. Without a directory the tests that ask
for ``golden_case`` are skipped, with the reason. Corpora of families (or verifiers) that a plugin
module registers need that module loaded: ``--puzzlekit-plugin MODULE`` (repeatable) or the ini
option ``puzzlekit_plugins`` (modules separated by spaces); plugins installed with pip are seen
without either.

Not for: building or updating corpora (``puzzlekit regress --update``), or anything beyond
parametrizing: the plugin imports puzzlekit only when a test asks for ``golden_case``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("puzzlekit", "puzzlekit golden corpora")
    group.addoption(
        "--puzzlekit-golden",
        action="append",
        default=[],
        metavar="DIR",
        help="directory of golden corpora (<schema>.jsonl); one test per case for golden_case",
    )
    group.addoption(
        "--puzzlekit-verifier",
        default=None,
        metavar="NAME",
        help="verify golden cases with this backend instead of the recorded one",
    )
    group.addoption(
        "--puzzlekit-plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first: the families and verifiers it registers are seen (repeatable)",
    )
    parser.addini(
        "puzzlekit_plugins",
        type="args",
        default=[],
        help="plugin modules to import before the golden cases are read (space separated)",
    )
    parser.addini(
        "puzzlekit_golden",
        type="paths",
        default=[],
        help="directories of golden corpora, relative to the ini file",
    )


def _directories(config: pytest.Config) -> list[Path]:
    dirs = [Path(d) for d in config.getoption("puzzlekit_golden")]
    if not dirs:
        dirs = [Path(p) for p in config.getini("puzzlekit_golden")]
    return dirs


def pytest_configure(config: pytest.Config) -> None:
    modules = [*config.getini("puzzlekit_plugins"), *config.getoption("puzzlekit_plugin")]
    if modules:
        from puzzlekit.core.plugins import PluginError, use_plugins

        try:
            use_plugins(modules)
        except PluginError as exc:
            raise pytest.UsageError(f"--puzzlekit-plugin: {exc}") from None
    for d in _directories(config):
        if not d.is_dir():
            raise pytest.UsageError(f"--puzzlekit-golden: no golden directory {d}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "golden_case" not in metafunc.fixturenames:
        return
    dirs = _directories(metafunc.config)
    if not dirs:
        reason = "no golden directory: pass --puzzlekit-golden DIR or set puzzlekit_golden"
        metafunc.parametrize(
            "golden_case", [pytest.param(None, marks=pytest.mark.skip(reason=reason))],
            indirect=True, ids=["no-golden-dir"],
        )  # fmt: skip
        return
    from puzzlekit.quality.golden.corpus import iter_cases

    cases = []
    for d in dirs:
        try:
            cases += iter_cases(d)
        except (FileNotFoundError, ValueError) as exc:
            raise pytest.UsageError(f"--puzzlekit-golden: {exc}") from None
    ids = [c.id for c in cases]
    if len(dirs) > 1:
        ids = [f"{c.path.parent.name}/{c.id}" for c in cases]
    metafunc.parametrize("golden_case", cases, indirect=True, ids=ids)


class _BoundCase:
    """A golden case with the verifier chosen on the command line."""

    def __init__(self, case: Any, verifier: str | None) -> None:
        self._case = case
        self.verifier = verifier

    def __getattr__(self, name: str) -> Any:
        return getattr(self._case, name)

    def check(self, verifier: str | None = None) -> Any:
        return self._case.check(verifier or self.verifier)

    def verify(self, verifier: str | None = None) -> Any:
        return self._case.verify(verifier or self.verifier)

    def __repr__(self) -> str:
        return f"golden_case({self._case.id})"


@pytest.fixture
def golden_case(request: pytest.FixtureRequest) -> Any:
    """One golden case (:class:`puzzlekit.quality.golden.corpus.GoldenCase`): ``.entry``,
    ``.verify()``, ``.check()``; parametrized over every case of the ``--puzzlekit-golden``
    directories."""
    case = getattr(request, "param", None)
    if case is None:
        pytest.skip("no golden directory: pass --puzzlekit-golden DIR or set puzzlekit_golden")
    return _BoundCase(case, request.config.getoption("puzzlekit_verifier"))

"""A report started ahead of its run (``puzzlekit run``) is the report written in place: the
same files, byte for byte; a copy that cannot write it leaves the error to the parent; a copy
that is dropped writes nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from puzzlekit.app.plots import write_report
from puzzlekit.app.report_ahead import ReportAhead
from puzzlekit.core.files import DamagedFile

forking = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")


def _copy_of(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    shutil.rmtree(to / "report", ignore_errors=True)  # another test's figures, if any
    return to


def _files(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((run / "report").iterdir())}


@forking
def test_the_report_drawn_ahead_is_the_report_drawn_here(two_family_run, tmp_path):
    here = _copy_of(two_family_run, tmp_path / "here")
    ahead = _copy_of(two_family_run, tmp_path / "ahead")
    write_report(here, workers=1)
    report = ReportAhead()
    assert report._copy is not None and report._copy.is_alive()  # started before the run ends
    assert report.write(ahead) == ahead / "report" / "report.md"
    assert report._copy is None
    assert _files(ahead) == _files(here) and len(_files(here)) == 10


@forking
def test_a_report_the_copy_cannot_write_raises_its_error_here(two_family_run, tmp_path):
    run = _copy_of(two_family_run, tmp_path / "run")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["rowSchemaVersion"] = "one"
    (run / "manifest.json").write_text(json.dumps(manifest))
    with ReportAhead() as report, pytest.raises(DamagedFile, match="rowSchemaVersion"):
        report.write(run)
    assert not (run / "report" / "report.md").exists()


def test_a_dropped_report_writes_nothing(tmp_path):
    with ReportAhead() as report:
        copy = report._copy
    assert report._copy is None
    if copy is not None:
        assert not copy.is_alive()
    assert list(tmp_path.iterdir()) == []


def test_without_a_copy_the_report_is_written_here(two_family_run, tmp_path):
    run = _copy_of(two_family_run, tmp_path / "run")
    report = ReportAhead(enabled=False)
    assert report._copy is None
    assert report.write(run).read_text(encoding="utf-8").startswith("# Run ")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the copy is forked on Linux")
@pytest.mark.parametrize("how", ["close", "write"])
def test_a_copy_ends_where_its_parent_ignores_sigterm(tmp_path, how):
    """A process that ignores SIGTERM (a disposition its fork inherits) and drops its copy, or
    hands it a run it cannot draw, returns at once: the copy holds no end of the pipe the
    parent closes, and is ended with SIGKILL."""
    code = (
        "import signal, sys\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "from puzzlekit.app.report_ahead import ReportAhead\n"
        "r = ReportAhead()\n"
        f"if {how!r} == 'write':\n"
        "    try:\n"
        "        r.write(sys.argv[1])\n"
        "    except Exception as exc:\n"
        "        print(type(exc).__name__)\n"
        "r.close()\n"
        "print('ended')\n"
    )
    out, err = tmp_path / "out", tmp_path / "err"  # files: a stray copy holds no pipe open
    with out.open("w") as o, err.open("w") as e:
        done = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "no-run")], stdout=o, stderr=e, timeout=60
        )
    assert done.returncode == 0, err.read_text()[-2000:]
    assert out.read_text().splitlines()[-1] == "ended"

"""Audits read what they audit and change nothing: ``ledger verify|show`` open the database
read-only, refuse bodies an append would refuse, and answer bad arguments with one line;
``decide`` answers unreadable documents with one line and goes on past a bad fixture; the kernel
raises only KernelInputError; ``regress`` fails when it checked nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from puzzlekit.app.cli import main
from puzzlekit.audit.ledger import Ledger, compute_entry_hash
from puzzlekit.audit.review.kernel import KernelInputError, decide

FIXTURES = Path(__file__).parent / "data" / "rbk" / "fixtures"
GOLDEN = Path(__file__).parent / "golden"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def ledger_db(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        for i in range(3):
            ledger.append({"i": i})
    return path


def _replace_body(path: Path, seq: int, body_text: str, *, rehash: bool) -> None:
    conn = sqlite3.connect(path)
    (prev,) = conn.execute("SELECT prev_hash FROM ledger_entries WHERE seq = ?", (seq,)).fetchone()
    if rehash:
        new = compute_entry_hash(seq, prev, json.loads(body_text))
        conn.execute(
            "UPDATE ledger_entries SET body = ?, entry_hash = ? WHERE seq = ?",
            (body_text, new, seq),
        )
    else:
        conn.execute("UPDATE ledger_entries SET body = ? WHERE seq = ?", (body_text, seq))
    conn.commit()
    conn.close()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_verify_and_show_leave_the_database_bytes_unchanged(capsys, ledger_db: Path) -> None:
    conn = sqlite3.connect(ledger_db)
    conn.execute("PRAGMA journal_mode=DELETE")  # a database not in WAL mode must stay so
    conn.close()
    before = _sha(ledger_db)
    assert run(capsys, "ledger", "verify", str(ledger_db))[0] == 0
    assert run(capsys, "ledger", "show", str(ledger_db))[0] == 0
    assert run(capsys, "ledger", "checkpoint", str(ledger_db))[0] == 0
    assert _sha(ledger_db) == before


def test_a_body_replaced_by_an_array_and_rehashed_fails_verification(capsys, ledger_db: Path):
    _replace_body(ledger_db, 2, "[1, 2]", rehash=True)
    code, out, _ = run(capsys, "ledger", "verify", str(ledger_db))
    assert code == 1
    assert "broken at seq 2: unreadable-body" in out and "not an object" in out


@pytest.mark.parametrize(
    "body",
    ['{"a": ' + "[" * 3000 + "]" * 3000 + "}", '{"n": ' + "9" * 5000 + "}", '{"s": "\\ud800"}'],
)
def test_bodies_that_cannot_be_read_are_named_not_raised(capsys, ledger_db: Path, body: str):
    _replace_body(ledger_db, 3, body, rehash=False)
    code, out, err = run(capsys, "ledger", "verify", str(ledger_db))
    assert (code, err) == (1, "")
    assert "broken at seq 3: unreadable-body" in out
    code, out, _ = run(capsys, "ledger", "show", str(ledger_db))
    shown = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and shown[2]["body"] is None and shown[2]["bodyError"]


@pytest.mark.parametrize(
    "args",
    [["--from", "99999999999999999999"], ["--from", "0"], ["--limit", "-1"],
     ["--limit", "99999999999999999999"]],
)  # fmt: skip
def test_show_with_unusable_bounds_exits_2_with_one_line(capsys, ledger_db: Path, args):
    code, out, err = run(capsys, "ledger", "show", str(ledger_db), *args)
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and err.startswith("puzzlekit:")


def test_a_file_that_is_not_a_database_exits_2(capsys, tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"\xff" * 4096)
    code, _, err = run(capsys, "ledger", "verify", str(path))
    assert code == 2 and err.startswith("puzzlekit:")


# --- decide and the kernel ------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe\x00 not utf-8", b"[" * 5000, b'{"schema": NaN}', b'{"a": "\\udc00"}'],
)
def test_decide_refuses_an_unreadable_document_with_one_line(capsys, tmp_path, content):
    policy = FIXTURES / "01-auto-apply" / "policy.json"
    request = tmp_path / "request.json"
    request.write_bytes(content)
    code, out, err = run(capsys, "decide", "--policy", str(policy), "--request", str(request))
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and str(request) in err


def test_one_bad_fixture_does_not_stop_validate(capsys, tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, root)
    (root / "02-authority-withheld" / "request.json").write_bytes(b"\xff" + b"[" * 3000)
    (root / "03-incomplete-stale-evidence" / "expected-decision.json").write_text("true")
    code, out, _ = run(capsys, "decide", "--validate", str(root))
    assert code == 1
    assert "FAIL 02-authority-withheld" in out and "FAIL 03-incomplete-stale-evidence" in out
    assert "ok   01-auto-apply" in out and "3 of 5 fixture(s) pass" in out


def _docs() -> tuple[dict, dict]:
    d = FIXTURES / "01-auto-apply"
    return json.loads((d / "policy.json").read_text()), json.loads((d / "request.json").read_text())


def _deep(n: int) -> list:
    value: list = []
    for _ in range(n):
        value = [value]
    return value


@pytest.mark.parametrize(
    "edit",
    [
        lambda p, r: r["action"].update(target=_deep(5000)),
        lambda p, r: p.update(extra=_deep(5000)),
        lambda p, r: r["action"].update(note="\ud800"),
        lambda p, r: p.update(note="\udfff"),
        lambda p, r: r.update(request_id=_deep(3)),
    ],
)
def test_the_kernel_raises_only_kernel_input_error_or_decides_closed(edit) -> None:
    policy, request = _docs()
    edit(policy, request)
    try:
        decision = decide(policy, request, computed_at="2026-01-01T00:00:00Z")
    except KernelInputError:
        return
    assert decision["outcome"] != "auto_apply"


def test_the_kernel_refuses_a_computed_at_that_is_not_a_time() -> None:
    policy, request = _docs()
    for bad in ("nope", None, 5):
        with pytest.raises(KernelInputError, match="computed_at"):
            decide(policy, request, computed_at=bad)  # type: ignore[arg-type]


# --- regress ------------------------------------------------------------------------------------


def test_regress_fails_on_an_empty_directory_and_says_so(capsys, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "regress", "--golden", str(tmp_path))
    assert code == 1 and "nothing was checked (no corpus)" in out


def test_regress_fails_on_an_empty_corpus(capsys, tmp_path: Path) -> None:
    (tmp_path / "sudoku-4x4.jsonl").write_text("\n")
    code, out, _ = run(capsys, "regress", "--golden", str(tmp_path))
    assert code == 1 and "nothing was checked (no case)" in out


def test_regress_fails_when_every_case_is_skipped(capsys, tmp_path: Path) -> None:
    shutil.copy(GOLDEN / "toolcall-shipping-rate-mid.jsonl", tmp_path)
    code, out, _ = run(capsys, "regress", "--golden", str(tmp_path), "--verifier", "gametree")
    assert code == 1 and "nothing was checked (every case was skipped)" in out


def test_regress_still_passes_a_corpus_that_checks(capsys, tmp_path: Path) -> None:
    shutil.copy(GOLDEN / "sudoku-4x4.jsonl", tmp_path)
    code, out, _ = run(capsys, "regress", "--golden", str(tmp_path))
    assert code == 0 and "nothing was checked" not in out


def test_a_corrupt_corpus_line_exits_2(capsys, tmp_path: Path) -> None:
    (tmp_path / "sudoku-4x4.jsonl").write_text("[" * 5000 + "\n")
    code, _, err = run(capsys, "regress", "--golden", str(tmp_path))
    assert code == 2 and "nested deeper" in err

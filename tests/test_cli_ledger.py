from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from puzzlekit.app.cli import main
from puzzlekit.audit.escalation.targets import Dispatcher, EscalationCase, EscalationStore
from puzzlekit.audit.ledger import Ledger, read_checkpoint
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import ReasoningStep, run_stopping_condition
from puzzlekit.core.model import Clue, Instance


def given(r: int, c: int, v: int) -> Clue:
    return Clue.make(f"r{r + 1}c{c + 1}", "given", {"value": v}, [(r, c)])


UNIQUE_LATIN = Instance.make("latin", {"size": 3}, [given(0, 0, 1), given(0, 1, 2), given(1, 0, 2)])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def escalate_into(store: EscalationStore, value: LogicValue, instance: Instance) -> None:
    steps = [ReasoningStep("filter", "filter verdict", value, "budget ran out", "enumerative")]
    out = run_stopping_condition("seq", steps, anchor_to_ledger=True, ledger_anchor_fn=store.ledger)
    case = EscalationCase(
        out.escalation, instance.to_json(), filter_verifier="enumerative", budget_seconds=1.0
    )
    Dispatcher(store).dispatch(case)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "run.sqlite"
    store = EscalationStore(path)
    escalate_into(store, LogicValue.NEITHER, UNIQUE_LATIN)
    escalate_into(store, LogicValue.ZERO, UNIQUE_LATIN)
    store.ledger.close()
    return path


# --- ledger ---------------------------------------------------------------------------------


def test_ledger_verify_ok(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, _ = run(capsys, "ledger", "verify", str(db))
    assert code == 0 and out.startswith("ok: 4 entries, head seq 4 sha256:")


def test_ledger_verify_broken_exits_1_naming_the_first_bad_seq(
    capsys: pytest.CaptureFixture[str], db: Path
) -> None:
    sqlite3.connect(db, isolation_level=None).execute(
        'UPDATE ledger_entries SET body = \'{"type":"forged"}\' WHERE seq = 2'
    )
    code, out, _ = run(capsys, "ledger", "verify", str(db))
    assert code == 1 and out.startswith("broken at seq 2: hash-mismatch")
    code, out, _ = run(capsys, "ledger", "verify", str(db), "--json")
    assert code == 1 and json.loads(out)["first_bad_seq"] == 2


def test_ledger_checkpoint_then_verify_against_it_catches_truncation(
    capsys: pytest.CaptureFixture[str], db: Path, tmp_path: Path
) -> None:
    cp_file = tmp_path / "cp.json"
    code, out, _ = run(capsys, "ledger", "checkpoint", str(db), "--out", str(cp_file))
    assert code == 0 and "seq 4" in out and read_checkpoint(cp_file).seq == 4
    assert run(capsys, "ledger", "verify", str(db), "--checkpoint", str(cp_file))[0] == 0
    sqlite3.connect(db, isolation_level=None).execute("DELETE FROM ledger_entries WHERE seq = 4")
    assert run(capsys, "ledger", "verify", str(db))[0] == 0
    code, out, _ = run(capsys, "ledger", "verify", str(db), "--checkpoint", str(cp_file))
    assert code == 1 and out.startswith("broken at seq 4: checkpoint-beyond-head")


def test_ledger_checkpoint_prints_json(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, _ = run(capsys, "ledger", "checkpoint", str(db))
    obj = json.loads(out)
    assert code == 0 and obj["seq"] == 4 and obj["entry_hash"] == Ledger(db).checkpoint().entry_hash


def test_ledger_show_prints_entries(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, _ = run(capsys, "ledger", "show", str(db), "--from", "2", "--limit", "2")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [e["seq"] for e in lines] == [2, 3]


@pytest.mark.parametrize(
    "argv",
    [
        ["ledger", "verify", "/nonexistent/db.sqlite"],
        ["ledger", "verify", "{db}", "--checkpoint", "/nonexistent/cp.json"],
        ["ledger", "verify", "{db}", "--checkpoint", "{junk}"],
        ["ledger", "verify", "{junk}"],
        ["ledger"],
    ],
)
def test_ledger_unusable_arguments_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], db: Path, tmp_path: Path, argv: list[str]
) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("not json and not a database " * 40)
    argv = [a.format(db=db, junk=junk) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.startswith("puzzlekit: error: ") and err.count("\n") == 1


# --- escalations ----------------------------------------------------------------------------


def test_escalations_list(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, _ = run(capsys, "escalations", "list", "--db", str(db), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and sorted(r["target"] for r in rows) == ["human", "w48-negcap"]
    code, out, _ = run(capsys, "escalations", "list", "--db", str(db), "--holds")
    assert code == 0 and "neither-halt" in out and "held" in out
    assert out.splitlines()[0].split()[5] == "uniquenessVerdict"


def test_escalations_retry_reverifies_with_a_larger_budget(
    capsys: pytest.CaptureFixture[str], db: Path
) -> None:
    code, out, _ = run(capsys, "escalations", "retry", "--db", str(db), "--json")
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert (row["uniquenessVerdict"], row["released"], row["budget_seconds"]) == (
        "UNIQUE",
        True,
        2.0,
    )
    assert "verdict" not in row
    (hold,) = EscalationStore(db, create=False).list_holds()
    assert hold.status == "released" and hold.verdict == "UNIQUE"
    assert run(capsys, "ledger", "verify", str(db))[0] == 0


def test_escalations_db_from_the_environment(
    capsys: pytest.CaptureFixture[str], db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PUZZLEKIT_DB", str(db))
    assert run(capsys, "escalations", "list")[0] == 0


@pytest.mark.parametrize(
    "extra",
    [["--id", "99"], ["--factor", "0"], ["--verifier", "no-such-backend"]],
)
def test_escalations_retry_refuses_unusable_arguments(
    capsys: pytest.CaptureFixture[str], db: Path, extra: list[str]
) -> None:
    code, _, err = run(capsys, "escalations", "retry", "--db", str(db), *extra)
    assert code == 2 and err.startswith("puzzlekit: error: ")


def test_escalations_without_a_database_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PUZZLEKIT_DB", raising=False)
    code, _, err = run(capsys, "escalations", "list")
    assert code == 2 and "--db" in err


# --- review ---------------------------------------------------------------------------------


def test_review_list_accept_and_reject(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, _ = run(capsys, "review", "list", "--db", str(db), "--json")
    (item,) = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and item["status"] == "pending" and "zero-void" in item["reason"]
    rid = str(item["review_id"])
    code, out, _ = run(
        capsys, "review", "accept", rid, "--note", "checked by hand", "--db", str(db)
    )
    assert code == 0 and out.strip() == f"review {rid} accepted: checked by hand"
    assert run(capsys, "review", "list", "--db", str(db))[1].strip() == "(none)"
    code, _, err = run(capsys, "review", "reject", rid, "--note", "again", "--db", str(db))
    assert code == 2 and "already accepted" in err
    ledger = Ledger(db)
    assert ledger.entries()[-1].body["note"] == "checked by hand" and ledger.verify().ok


def test_review_reject_needs_a_note(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    assert run(capsys, "review", "reject", "1", "--db", str(db))[0] == 2
    assert run(capsys, "review", "reject", "1", "--note", " ", "--db", str(db))[0] == 2
    assert run(capsys, "review", "reject", "1", "--note", "bad clue", "--db", str(db))[0] == 0

"""``ledger verify`` flags a trigger or view it did not create (a planted trigger can rewrite
entries as they are written), and a checkpoint file's every field is checked."""

from __future__ import annotations

import json
import sqlite3

import pytest

from puzzlekit.app.cli import main
from puzzlekit.audit.ledger import Checkpoint, Ledger, read_checkpoint


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        ledger.append({"kind": "a"})
        ledger.append({"kind": "b"})
    return path


@pytest.mark.parametrize(
    "sql,name",
    [
        ("CREATE TRIGGER t AFTER INSERT ON ledger_entries BEGIN SELECT 1; END", "trigger 't'"),
        ("CREATE VIEW v AS SELECT seq FROM ledger_entries", "view 'v'"),
    ],
)
def test_a_planted_trigger_or_view_fails_verification(db, sql, name, capsys) -> None:
    conn = sqlite3.connect(db)
    conn.execute(sql)
    conn.commit()
    conn.close()
    with Ledger(db, readonly=True) as ledger:
        result = ledger.verify()
    assert not result.ok and result.problem == "foreign-object"
    assert name in result.detail
    assert main(["ledger", "verify", str(db)]) == 1
    assert name in capsys.readouterr().out


def test_an_exported_checkpoint_reads_back(db, tmp_path) -> None:
    with Ledger(db) as ledger:
        cp = ledger.export_checkpoint(tmp_path / "cp.json")
    assert read_checkpoint(tmp_path / "cp.json") == cp


@pytest.mark.parametrize(
    "edit,word",
    [
        ({"format": "other"}, "format"),
        ({"v": 2}, "v must be 1"),
        ({"v": True}, "v must be 1"),
        ({"ledger": 3}, "ledger must be a string"),
        ({"exported_at": None}, "exported_at must be a string"),
        ({"extra": 1}, "'extra'"),
        ({"seq": -1}, "seq"),
        ({"entry_hash": "sha256:xyz"}, "entry_hash"),
    ],
)
def test_every_checkpoint_field_is_checked(db, tmp_path, edit, word, capsys) -> None:
    with Ledger(db) as ledger:
        ledger.export_checkpoint(tmp_path / "cp.json")
    obj = {**json.loads((tmp_path / "cp.json").read_text()), **edit}
    (tmp_path / "cp.json").write_text(json.dumps(obj))
    with pytest.raises(ValueError, match=word):
        read_checkpoint(tmp_path / "cp.json")
    assert main(["ledger", "verify", str(db), "--checkpoint", str(tmp_path / "cp.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cp.json" in err[0]


def test_a_checkpoint_of_seq_and_hash_alone_still_reads() -> None:
    cp = Checkpoint.from_json_obj({"seq": 0, "entry_hash": "sha256:" + "0" * 64})
    assert cp.seq == 0

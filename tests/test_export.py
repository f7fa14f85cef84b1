"""``puzzlekit export``: one row per accepted puzzle, a dataset card, splits disjoint by canonical
digest, symmetric copies dropped, overlap reported; JSON Lines, Parquet and a DatasetDict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import puzzlekit as pk
from puzzlekit.app.cli import main
from puzzlekit.core.model import Clue, Instance


def _transformed(record: dict) -> dict:
    """The record's puzzle with digits relabelled and the grid transposed (one class)."""
    inst = Instance.from_json_obj(record["instance"])
    perm = [0, 3, 4, 1, 2]
    clues = [
        Clue.make(f"r{c + 1}c{r + 1}", "given", {"value": perm[cl.data_dict()["value"]]}, [(c, r)])
        for cl in inst.clues
        for r, c in cl.coords
    ]
    moved = Instance.make(inst.family, inst.params_dict(), clues)
    sol = {f"r{k[3]}c{k[1]}": perm[v] for k, v in record["solution"].items()}  # r1c2 -> r2c1
    return {**record, "instance": moved.to_json_obj(), "instanceDigest": moved.digest,
            "solution": sol, "text": None}  # fmt: skip


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """Eight accepted 4x4 Sudoku records, then a symmetric copy of the first."""
    path = tmp_path_factory.mktemp("gen") / "gen.jsonl"
    assert main(["generate", "sudoku", "--params", '{"size": 4}', "--count", "8",
                 "--seed", "3", "--quiet", "--out", str(path)]) == 0  # fmt: skip
    records = [json.loads(line) for line in path.read_text().splitlines()]
    accepted = [r for r in records if r["status"] == "accepted"]
    with path.open("a") as fh:
        fh.write(json.dumps(_transformed(accepted[0])) + "\n")
    return path


def _rows(out: Path) -> dict[str, list[dict]]:
    return {
        p.stem: [json.loads(x) for x in p.read_text().splitlines()] for p in out.glob("*.jsonl")
    }


def test_rows_splits_and_card(generated: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "ds"
    code = main(["export", str(generated), "--out", str(out), "--split", "train=0.75,test=0.25"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["duplicates"] == 1  # the symmetric copy is dropped
    rows = _rows(out)
    assert {k: len(v) for k, v in rows.items()} == summary["rows"] == {"train": 6, "test": 2}
    train = {r["canonicalId"] for r in rows["train"]}
    assert not train & {r["canonicalId"] for r in rows["test"]}
    row = rows["train"][0]
    assert set(row) >= {"id", "canonicalId", "family", "params", "prompt", "answer", "solution",
                        "level", "technique", "clueCount", "provenance", "split"}  # fmt: skip
    assert row["family"] == "sudoku" and row["params"]["size"] == 4
    for part in rows.values():
        for r in part:
            puzzle = pk.parse("sudoku", r["text"], params={"size": 4})
            assert puzzle.digest == r["id"] and puzzle.canonical_digest() == r["canonicalId"]
            assert pk.check_answer(puzzle, r["answer"]).verdict is pk.AnswerVerdict.CORRECT
            assert r["provenance"]["holdoutVerdict"] == "UNIQUE"
    made = row["provenance"]  # from the generate record's own provenance
    assert (made["filter"], made["holdout"], made["runSeed"]) == ("bitmask", "sat", "3")
    assert made["filterVersion"] and made["holdoutVersion"] and made["puzzlekitVersion"]
    card = (out / "README.md").read_text()
    assert "train=0.75,test=0.25" in card and "| test | 2 |" in card and "canonicalId" in card


def test_same_seed_same_split_and_overlap_reported(generated: Path, tmp_path: Path, capsys) -> None:
    args = ["export", str(generated), "--split", "train=0.5,test=0.5", "--to", "parquet"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b"), "--check-against", str(tmp_path / "a")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[1])["overlap"] == {str(tmp_path / "a"): 8}
    import pyarrow.parquet as pq

    for split in ("train", "test"):
        a = pq.read_table(tmp_path / "a" / f"{split}.parquet").to_pylist()
        b = pq.read_table(tmp_path / "b" / f"{split}.parquet").to_pylist()
        assert a == b and a and isinstance(a[0]["solution"], str)  # JSON text in Parquet


def test_rows_built_in_processes_are_the_same(generated: Path, tmp_path: Path, monkeypatch) -> None:
    from puzzlekit.app.dataset import export, rows

    monkeypatch.setattr(rows, "CHUNK", 3)  # 9 records: three chunks, two processes
    one = export([generated], tmp_path / "one", split="train=0.5,test=0.5")
    two = export([generated], tmp_path / "two", split="train=0.5,test=0.5", jobs=2)
    assert one["rows"] == two["rows"] and one["duplicates"] == two["duplicates"] == 1
    for name in ("train.jsonl", "test.jsonl"):
        assert (tmp_path / "one" / name).read_text() == (tmp_path / "two" / name).read_text()


def test_a_stale_stored_digest_keeps_its_grade_in_processes_too(
    generated: Path, tmp_path: Path, monkeypatch
) -> None:
    """A row's grade is the one of the instance it reads, whatever digest its record stores,
    with one process or several (each is handed every grade)."""
    from puzzlekit.app.dataset import export, rows

    records = [json.loads(x) for x in generated.read_text().splitlines()]
    accepted = [r for r in records if r["status"] == "accepted"][:4]
    grades = tmp_path / "grades.jsonl"
    grades.write_text(
        "".join(
            json.dumps({"instanceDigest": r["instanceDigest"], "level": i, "technique": f"t{i}"})
            + "\n"
            for i, r in enumerate(accepted)
        )
    )
    stale = {**accepted[0], "instanceDigest": "0" * len(accepted[0]["instanceDigest"])}
    path = tmp_path / "stale.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [stale, *accepted[1:]]))
    monkeypatch.setattr(rows, "CHUNK", 2)  # 4 records: two chunks, two processes
    export([path], tmp_path / "one", grades=grades)
    export([path], tmp_path / "two", grades=grades, jobs=2)
    one, two = _rows(tmp_path / "one")["train"], _rows(tmp_path / "two")["train"]
    assert one == two
    levels = {r["id"]: (r["level"], r["technique"]) for r in two}
    assert levels == {r["instanceDigest"]: (i, f"t{i}") for i, r in enumerate(accepted)}


def test_a_text_line_that_is_not_the_instance_is_not_read(tmp_path: Path, generated: Path) -> None:
    """A record's text is read in place of its instance only when it gives the same digest."""
    from puzzlekit.app.dataset import export

    records = [json.loads(x) for x in generated.read_text().splitlines()]
    accepted = [r for r in records if r["status"] == "accepted"]
    first, second = accepted[0], accepted[1]
    path = tmp_path / "swapped.jsonl"
    path.write_text(json.dumps({**first, "text": second["text"]}) + "\n")
    export([path], tmp_path / "ds")
    (row,) = _rows(tmp_path / "ds")["train"]
    assert row["id"] == first["instanceDigest"] != second["instanceDigest"]


def test_datasets_dict(generated: Path, tmp_path: Path, capsys) -> None:
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "hf"
    assert main(["export", str(generated), "--out", str(out), "--to", "datasets",
                 "--split", "train=0.75,test=0.25"]) == 0  # fmt: skip
    dd = datasets.load_from_disk(str(out))
    assert sorted(dd) == ["test", "train"] and dd["train"].num_rows == 6
    assert (out / "README.md").is_file()


def test_a_run_directory_exports(two_family_run: Path, tmp_path: Path, capsys) -> None:
    assert main(["export", str(two_family_run), "--out", str(tmp_path / "r")]) == 0
    rows = _rows(tmp_path / "r")["train"]
    assert {r["family"] for r in rows} == {"sudoku", "kenken"}
    assert all(r["provenance"]["configDigest"] for r in rows)
    # the arm's label resolved to its verifier through the manifest, with versions
    assert {r["provenance"]["filter"] for r in rows} <= {"sat", "faulty"}
    assert all(r["provenance"]["filterVersion"] and r["provenance"]["puzzlekitVersion"]
               for r in rows)  # fmt: skip
    assert {r["provenance"]["holdout"] for r in rows} == {"enumerative"}
    assert all(r["provenance"]["holdoutVersion"] for r in rows)
    assert all(r["provenance"]["holdoutVerdict"] in (None, "UNIQUE") for r in rows)
    for r in rows:
        puzzle = pk.parse(r["family"], r["text"], params=r["params"])
        assert pk.check_answer(puzzle, r["answer"]).verdict is pk.AnswerVerdict.CORRECT, r


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--split", "train=0.8,test=0.3"], "add up to 1.1"),
        (["--split", "train"], "is not NAME=FRACTION"),
        (["--check-against", "/no/such/thing"], "no such file"),
        (["--jobs", "0"], "--jobs 0: give a number of processes, 1 or more"),
        (["--jobs", "-2"], "--jobs -2: give a number of processes, 1 or more"),
    ],
)
def test_unusable_arguments_exit_2_with_one_line(
    generated: Path, tmp_path: Path, capsys, extra: list[str], message: str
) -> None:
    code = main(["export", str(generated), "--out", str(tmp_path / "x"), *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_full_output_directory_is_refused(generated: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    assert main(["export", str(generated), "--out", str(tmp_path / "full")]) == 2


def test_split_sizes_are_exact() -> None:
    from puzzlekit.app.dataset.rows import assign_splits

    ids = [f"sha256:{i:04d}" for i in range(101)]
    where = assign_splits(ids, [("train", 0.8), ("test", 0.2)], seed=1)
    assert sum(v == "test" for v in where.values()) == 20
    assert where == assign_splits(list(reversed(ids)), [("train", 0.8), ("test", 0.2)], seed=1)

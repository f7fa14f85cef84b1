"""Golden corpora are sealed: ``SEAL.json`` holds every corpus file's digest, ``regress``
refuses a corpus changed outside ``regress --update`` and a verifier that rewrites the corpus it
is checked against (its bytes are put back), and ``--update`` seals what it writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from puzzlekit.app.cli import main
from puzzlekit.core.seal import SEAL_FILE, file_digest, seal_problems
from puzzlekit.quality.golden.corpus import CorpusTampered, read_seal, regress
from puzzlekit.verifiers.registry import VERIFIERS, get_verifier, register_verifier

GOLDEN = Path(__file__).parent / "golden"
TAKUZU = Path(__file__).parent.parent / "examples" / "puzzlekit-takuzu" / "tests" / "golden"


@pytest.mark.parametrize("directory", [GOLDEN, TAKUZU], ids=["builtin", "takuzu"])
def test_the_shipped_corpora_match_their_seal(directory: Path) -> None:
    sealed = read_seal(directory)
    assert sealed is not None
    assert sorted(sealed) == sorted(p.name for p in directory.glob("*.jsonl"))
    assert seal_problems(directory, sealed, [p.name for p in directory.glob("*.jsonl")]) == []


@pytest.fixture
def sealed(tmp_path: Path) -> Path:
    d = tmp_path / "golden"
    d.mkdir()
    for name in ("sudoku-4x4", "latin-4x4"):
        shutil.copy(GOLDEN / f"{name}.jsonl", d / f"{name}.jsonl")
    regress(d, update=True)  # seals
    assert (d / SEAL_FILE).exists()
    return d


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_a_corpus_changed_by_hand_is_refused_naming_the_file(sealed, capsys) -> None:
    path = sealed / "latin-4x4.jsonl"
    lines = path.read_text().splitlines()
    obj = json.loads(lines[0])
    obj["note"] = obj.get("note", "") + " edited"
    lines[0] = json.dumps(obj)
    path.write_text("\n".join(lines) + "\n")
    edited = path.read_bytes()
    assert main(["regress", "--golden", str(sealed)]) == 2
    err = _one_line(capsys.readouterr().err)
    assert str(path) in err and "changed since it was sealed" in err
    assert "sudoku-4x4" not in err
    assert path.read_bytes() == edited  # nothing rewritten
    # --update is the one way to take the change: it reseals, and regress passes again
    assert main(["regress", "--golden", str(sealed), "--update"]) == 0
    assert read_seal(sealed)[path.name] == file_digest(path)
    assert main(["regress", "--golden", str(sealed)]) == 0


def test_a_corpus_added_or_removed_outside_update_is_refused(sealed, capsys) -> None:
    shutil.copy(GOLDEN / "latin-5x5.jsonl", sealed / "latin-5x5.jsonl")
    assert main(["regress", "--golden", str(sealed)]) == 2
    assert "latin-5x5.jsonl: not in the seal" in _one_line(capsys.readouterr().err)
    (sealed / "latin-5x5.jsonl").unlink()
    (sealed / "sudoku-4x4.jsonl").unlink()
    assert main(["regress", "--golden", str(sealed)]) == 2
    assert "sudoku-4x4.jsonl: sealed but missing" in _one_line(capsys.readouterr().err)
    # one schema checked: only its own file is compared with the seal
    assert main(["regress", "--golden", str(sealed), "--schema", "latin-4x4"]) == 0


class _Rewriter:
    """Verifies with ``enumerative`` and rewrites every corpus file it can find beside it."""

    target: Path | None = None

    def __init__(self, **settings) -> None:
        self._inner = get_verifier("enumerative")

    def verify(self, instance, solution_cap: int = 2, **kwargs):
        if _Rewriter.target is not None:
            _Rewriter.target.write_text("")
        return self._inner.verify(instance, solution_cap=solution_cap, **kwargs)


@pytest.fixture
def rewriter():
    register_verifier("seal-test-rewriter", lambda **s: _Rewriter(**s))
    yield "seal-test-rewriter"
    _Rewriter.target = None
    VERIFIERS.unregister("seal-test-rewriter")


def test_a_verifier_that_rewrites_its_corpus_is_refused_and_the_bytes_restored(
    sealed, rewriter, capsys
) -> None:
    path = sealed / "sudoku-4x4.jsonl"
    original = path.read_bytes()
    _Rewriter.target = path
    with pytest.raises(CorpusTampered, match="rewritten by verifier seal-test-rewriter"):
        regress(sealed, verifier=rewriter)
    assert path.read_bytes() == original
    assert main(["regress", "--golden", str(sealed), "--verifier", rewriter]) == 2
    err = _one_line(capsys.readouterr().err)
    assert f"{path}: rewritten by verifier seal-test-rewriter while being checked" in err
    assert path.read_bytes() == original
    _Rewriter.target = None
    assert main(["regress", "--golden", str(sealed)]) == 0  # the next run finds it intact


def test_a_corpus_without_a_seal_is_still_checked(tmp_path: Path) -> None:
    shutil.copy(GOLDEN / "latin-4x4.jsonl", tmp_path / "latin-4x4.jsonl")
    assert regress(tmp_path).ok
    assert not (tmp_path / SEAL_FILE).exists()  # only --update seals

"""A bitmask report builds its solutions and gap when first read, and is otherwise the report
built eagerly: the same fields, wire form, digest, equality and pickled form."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

import puzzlekit as pk
from puzzlekit.core.lazyreport import LazyReport
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.verifiers.bitmask import search as bitmask_search
from puzzlekit.verifiers.bitmask.backend import BitmaskVerifier
from puzzlekit.verifiers.bitmask.compile import ReportView
from puzzlekit.verifiers.reports import outcome_report

DATA = Path(__file__).parent / "data"


def _lines() -> list[str]:
    line = (DATA / "sudoku9_17clue_sample.txt").read_text().split()[0]
    givens = [i for i, ch in enumerate(line) if ch not in ".0"]
    fewer = list(line)
    for i in givens[:3]:
        fewer[i] = "."
    return [line, "".join(fewer)]  # UNIQUE, and MULTIPLE with many solutions


def _eager(text: str, cap: int) -> VerifierReport:
    """The report built as before: every solution mapping and the gap up front."""
    inst = pk.parse("sudoku", text)
    v = BitmaskVerifier()
    cs, dom, _structure, search, cart = v._searched(inst, cap, SearchBudget())
    search.run(dom, None, None)
    stats = {"nodes": search.nodes, "seconds": 0.0}
    view = ReportView(inst, cs.schema)
    return outcome_report(view, v._src, cap, search.solutions(), cart, stats, lambda: None)


@pytest.mark.parametrize("cap", [2, 5, 100])
def test_a_lazy_report_is_the_eager_report(cap: int) -> None:
    verdicts = set()
    for text in _lines():
        rep = pk.verify(pk.parse("sudoku", text), solution_cap=cap)
        assert isinstance(rep, LazyReport)
        eager = _eager(text, cap)
        assert rep.with_stats(seconds=0.0) == eager and eager == rep.with_stats(seconds=0.0)
        assert rep.with_stats(seconds=0.0).to_json() == eager.to_json()
        assert rep.digest() == eager.digest()
        back = pickle.loads(pickle.dumps(pk.verify(pk.parse("sudoku", text), solution_cap=cap)))
        assert type(back) is VerifierReport and back.digest() == eager.digest()
        assert copy.deepcopy(rep) == rep
        verdicts.add(rep.verdict)
    assert verdicts == {Verdict.UNIQUE, Verdict.MULTIPLE}


def test_solutions_and_gap_are_built_only_when_read(monkeypatch) -> None:
    built = []
    real = bitmask_search.solutions_of

    def counting(*args):
        built.append(1)
        return real(*args)

    monkeypatch.setattr(bitmask_search, "solutions_of", counting)
    rep = pk.verify(pk.parse("sudoku", _lines()[1]), solution_cap=5)
    assert rep.verdict is Verdict.MULTIPLE and rep.solution_count == 5 and not built
    assert "reject_detail" not in rep.__dict__
    gap = rep.reject_detail.discriminative_gap  # reading the gap builds the solutions once
    assert gap and built == [1] and len(rep.solutions) == 5 and built == [1]
    with pytest.raises(AttributeError):
        _ = rep.no_such_field

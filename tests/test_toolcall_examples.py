"""toolcall example tools: ``review-kernel`` (the review kernel's routing outcome) and
``game-verdict`` (tic-tac-toe values) give UNIQUE and MULTIPLE instances, and the oracle and its
plain holdout agree on them."""

from __future__ import annotations

import pytest

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.report import Verdict
from puzzlekit.families.tools import get_tool
from puzzlekit.verifiers.registry import get_verifier

KERNEL_AUTO = {"tool": "review-kernel", "expectedVerdict": "auto_apply"}
KERNEL_INCOMPLETE = {"tool": "review-kernel", "expectedVerdict": "incomplete"}
GAME_LOSS = {"tool": "game-verdict", "expectedVerdict": "LOSS"}
GAME_DRAW = {"tool": "game-verdict", "expectedVerdict": "DRAW"}


def given(tool: str, field: str, value: object) -> Clue:
    pos = get_tool(tool).fields.index(field)
    return Clue.make(field, "given", {"field": field, "value": value}, [(pos,)])


def kernel(params: dict, **values: object) -> Instance:
    return Instance.make(
        "toolcall", params, [given("review-kernel", k, v) for k, v in values.items()]
    )


def game(params: dict, **values: object) -> Instance:
    return Instance.make(
        "toolcall", params, [given("game-verdict", k, v) for k, v in values.items()]
    )


def test_review_kernel_oracle_routes_like_the_kernel() -> None:
    oracle = get_tool("review-kernel").oracle
    base = {
        "impact": "low",
        "exposure": 0.1,
        "reversibility": "reversible",
        "assurance": "formal_verified",
        "evidence_count": 2,
        "stale": False,
    }
    assert oracle(base) == "auto_apply"
    assert oracle({**base, "impact": "high"}) == "human_required"
    assert oracle({**base, "evidence_count": 1}) == "incomplete"


def test_review_kernel_unique() -> None:
    inst = kernel(KERNEL_AUTO, impact="low", assurance="formal_verified")
    rep = get_verifier("oracle").verify(inst)
    assert rep.verdict is Verdict.UNIQUE
    assert rep.total_completions_enumerated == 36
    assert rep.dispatch_error_count == 0


def test_review_kernel_multiple_gap_on_the_hidden_fields() -> None:
    inst = kernel(KERNEL_INCOMPLETE, impact="low", exposure=0.1, reversibility="reversible")
    rep = get_verifier("oracle").verify(inst, solution_cap=100)
    rd = rep.reject_detail
    assert rep.verdict is Verdict.MULTIPLE and not rep.solution_count_is_lower_bound
    assert sum(rd.verdict_distribution.values()) == rep.total_completions_enumerated == 18
    assert rd.verdict_distribution["incomplete"] == rep.solution_count > 1
    gap = {g.field_name for g in rd.discriminative_gap}
    assert gap and gap <= {"assurance", "evidence_count", "stale"}
    assert all(0 < g.discriminative_power <= 1 for g in rd.discriminative_gap)


def test_game_verdict_oracle_values() -> None:
    oracle = get_tool("game-verdict").oracle
    assert oracle({"position": ".../.../...", "to_move": "x"}) == "DRAW"
    assert oracle({"position": "xx./oo./...", "to_move": "o"}) == "WIN"
    assert oracle({"position": ".../oxo/x..", "to_move": "o"}) == "LOSS"


def test_game_verdict_unique() -> None:
    rep = get_verifier("oracle").verify(game(GAME_LOSS, to_move="o"))
    assert rep.verdict is Verdict.UNIQUE
    assert rep.total_completions_enumerated == 7


def test_game_verdict_multiple_gap_on_the_right_fields() -> None:
    rep = get_verifier("oracle").verify(game(GAME_DRAW), solution_cap=100)
    rd = rep.reject_detail
    assert rep.verdict is Verdict.MULTIPLE and rep.solution_count == 6
    assert rd.verdict_distribution == {"DRAW": 6, "LOSS": 2, "WIN": 6}
    gap = {g.field_name for g in rd.discriminative_gap}
    assert gap and gap <= {"position", "to_move"}


@pytest.mark.parametrize(
    "inst",
    [
        kernel(KERNEL_AUTO, impact="low", assurance="formal_verified"),
        kernel(KERNEL_INCOMPLETE, impact="low", exposure=0.1, reversibility="reversible"),
        kernel({"tool": "review-kernel", "expectedVerdict": "auto_apply"}, impact="high"),
        game(GAME_LOSS, to_move="o"),
        game(GAME_DRAW),
        game(GAME_LOSS, position="xx./oo./..."),
    ],
    ids=[
        "kernel-unique",
        "kernel-multiple",
        "kernel-unsolvable",
        "game-unique",
        "game-multiple",
        "game-unsolvable",
    ],
)
def test_oracle_and_plain_holdout_agree(inst: Instance) -> None:
    rep = get_verifier("oracle").verify(inst, solution_cap=100)
    plain = get_verifier("oracle-plain").verify(inst, solution_cap=100)
    assert rep.verdict is plain.verdict
    assert rep.solution_count == plain.solution_count
    assert rep.dispatch_error_count == plain.dispatch_error_count == 0
    if rep.reject_detail is not None and rep.reject_detail.verdict_distribution:
        assert rep.reject_detail.verdict_distribution == plain.reject_detail.verdict_distribution

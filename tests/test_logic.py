from __future__ import annotations

import pytest

from puzzlekit.audit import logic
from puzzlekit.audit.logic import LogicValue
from puzzlekit.core.report import Verdict


def test_there_are_exactly_the_eight_values_of_the_design() -> None:
    names = [v.value for v in LogicValue]
    assert names == ["TRUE", "FALSE", "BOTH", "NEITHER", "INFINITY", "ZERO", "FLOWING", "SELF"]
    assert set(logic.MEANING) == set(LogicValue)


@pytest.mark.parametrize(
    ("verdict", "value"),
    [
        (Verdict.UNIQUE, LogicValue.TRUE),
        (Verdict.UNSOLVABLE, LogicValue.FALSE),
        (Verdict.MULTIPLE, LogicValue.BOTH),
        (Verdict.UNDECIDED, LogicValue.NEITHER),
        (Verdict.DOMAIN_TOO_LARGE, LogicValue.INFINITY),
        (Verdict.INVALID_SPEC, LogicValue.ZERO),
    ],
)
def test_each_verifier_verdict_maps_to_its_value(verdict: Verdict, value: LogicValue) -> None:
    assert logic.from_verdict(verdict) is value
    assert logic.from_verdict(verdict.value) is value
    assert logic.from_report({"uniquenessVerdict": verdict.value}) is value


def test_every_verdict_has_a_value() -> None:
    assert set(logic.VERDICT_VALUE) == set(Verdict)


def test_unknown_verdict_is_rejected() -> None:
    with pytest.raises(ValueError):
        logic.from_verdict("MAYBE")


def test_filter_holdout_disagreement_is_both_and_agreement_is_true() -> None:
    assert logic.agreement(Verdict.UNIQUE, Verdict.MULTIPLE) is LogicValue.BOTH
    assert logic.agreement("UNIQUE", "UNIQUE") is LogicValue.TRUE
    assert logic.agreement(Verdict.UNSOLVABLE, Verdict.UNSOLVABLE) is LogicValue.TRUE


def test_replay_with_a_changed_verdict_is_flowing() -> None:
    assert logic.replay([Verdict.UNIQUE, Verdict.UNIQUE, Verdict.MULTIPLE]) is LogicValue.FLOWING
    assert logic.replay(["UNIQUE", "UNIQUE"]) is LogicValue.TRUE


def test_replay_with_nothing_to_compare_is_neither() -> None:
    assert logic.replay([Verdict.UNIQUE]) is LogicValue.NEITHER
    assert logic.replay([]) is LogicValue.NEITHER


def test_holdout_on_the_filter_backend_is_self() -> None:
    assert logic.independence("enumerative", "enumerative") is LogicValue.SELF
    assert logic.independence("enumerative", "sat") is LogicValue.TRUE


def test_value_of_reads_strings_and_names_the_values_when_wrong() -> None:
    assert logic.value_of("FLOWING") is LogicValue.FLOWING
    with pytest.raises(ValueError, match="TRUE FALSE BOTH"):
        logic.value_of("true-ish")

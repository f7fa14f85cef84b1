"""Every backend counts its oracle's raises in ``dispatchErrorCount``, on every path to a verdict.

A tool's oracle that raises on one input is one dispatch error for every verifier that calls it:
the oracle verifiers count the completion, the search backends the input of the opaque rule,
whether the search, the narrowing of a one-field rule's domain or a random restart called it.
A backend that declines the family never calls the oracle and says so (INVALID_SPEC, 0).
"""

from __future__ import annotations

from typing import Any

import pytest

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.report import Verdict
from puzzlekit.families.tools import register_tool
from puzzlekit.verifiers.registry import get_verifier, verifier_names, verify_or_decline

N = {"type": "integer", "minimum": 0, "maximum": 3}


def _one_field(inp: dict[str, Any]) -> str:
    if inp["n"] == 2:
        raise RuntimeError("the backend is down")
    return "ok" if inp["n"] == 1 else "no"


def _two_fields(inp: dict[str, Any]) -> str:
    if inp["n"] == 2 and inp["late"]:
        raise RuntimeError("the backend is down")
    return "ok" if (inp["n"], inp["late"]) == (1, True) else "no"


TOOLS = {
    "raises-one-field": ({"n": N}, _one_field),
    "raises-two-fields": ({"n": N, "late": {"type": "boolean"}}, _two_fields),
}

#: the verdict paths: expected verdict, the given clue's value of n (None: no clue), the verdict
PATHS = {
    "unique": ("ok", None, Verdict.UNIQUE),
    "multiple": ("no", None, Verdict.MULTIPLE),
    "unsolvable": ("ok", 2, Verdict.UNSOLVABLE),
}


def instance(tool: str, path: str) -> Instance:
    props, oracle = TOOLS[tool]
    register_tool(tool, {"type": "object", "properties": props}, oracle, replace=True)
    expected, given, _ = PATHS[path]
    clues = (
        [] if given is None else [Clue.make("n", "given", {"field": "n", "value": given}, [(0,)])]
    )
    return Instance.make("toolcall", {"tool": tool, "expectedVerdict": expected}, clues)


def calls_the_oracle(name: str) -> bool:
    inst = instance("raises-one-field", "unique")
    rep = verify_or_decline(get_verifier(name), inst, solution_cap=10)
    return rep.verdict is not Verdict.INVALID_SPEC


CALLERS = [n for n in verifier_names() if calls_the_oracle(n)]


def test_the_backends_that_call_an_oracle_are_the_expected_ones() -> None:
    assert {"oracle", "oracle-plain", "enumerative", "budgeted", "faulty", "sampling"} <= set(
        CALLERS
    )


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("name", verifier_names())
def test_a_one_field_oracle_that_raised_once_is_one_dispatch_error(name: str, path: str) -> None:
    inst = instance("raises-one-field", path)
    rep = verify_or_decline(get_verifier(name), inst, solution_cap=10)
    if name not in CALLERS:
        assert rep.verdict is Verdict.INVALID_SPEC and rep.dispatch_error_count == 0
        assert rep.reject_detail.violations[0].violation_type == "not-enumerable"
        return
    if get_verifier(name).exact:
        assert rep.verdict is PATHS[path][2]
    assert rep.dispatch_error_count == 1, rep.to_json()


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("name", sorted({"oracle", "oracle-plain", "enumerative", "faulty"}))
def test_exact_searches_count_as_the_oracle_does_over_two_fields(name: str, path: str) -> None:
    inst = instance("raises-two-fields", path)
    oracle = get_verifier("oracle").verify(inst, solution_cap=10)
    rep = get_verifier(name).verify(inst, solution_cap=10)
    assert rep.verdict is oracle.verdict is PATHS[path][2]
    assert rep.dispatch_error_count == oracle.dispatch_error_count == 1


def test_a_second_verification_starts_from_zero() -> None:
    verifier = get_verifier("enumerative")
    assert verifier.verify(instance("raises-one-field", "unique")).dispatch_error_count == 1
    register_tool(
        "never-raises", {"type": "object", "properties": {"n": N}}, lambda i: "ok", replace=True
    )
    clean = Instance.make("toolcall", {"tool": "never-raises", "expectedVerdict": "ok"}, [])
    assert verifier.verify(clean).dispatch_error_count == 0

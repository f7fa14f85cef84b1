"""Fuzzing every input path in-process: hypothesis draws malformed instances, text lines, Tatham
IDs, kernel requests, ledger bodies and MCP arguments from valid seeds (the golden corpora and
test data), and every checked-in reproducer (tests/data/fuzz_corpus) is replayed.

Each case runs through :func:`benchmarks.fuzz.run_case` (the CLI's ``main(argv)`` with
its stdin and files, or the call) and is judged by :func:`~benchmarks.fuzz.judge`: no
traceback, no hang, an exit code in {0, 1, 2}, one ``puzzlekit:`` line for exit 2, and an answer
for every input line. The long run is ``python -m benchmarks.fuzz``
(docs/reliability.md).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from benchmarks.fuzz import judge, load_reproducer, reuse_parser, run_case
from benchmarks.fuzz_break import EVIL_TOKENS, LOOKALIKE_DIGITS, Case, break_json
from benchmarks.fuzz_cases import _lines_answered, load_seeds

TESTS = Path(__file__).parent
DATA = TESTS / "data"
SEEDS = load_seeds(TESTS / "golden", DATA, per_corpus=1)
CORPUS = sorted((DATA / "fuzz_corpus").glob("*.json"))
FAST = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))

reuse_parser()

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=8),
    st.sampled_from(["\ud800", "\u00b2", "\u0663", "\uff13"]),
)
json_values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


def _ok(case: Case) -> None:
    outcome = run_case(case, timeout=120)
    why = judge(case, outcome)
    assert why is None, f"{why}\n{case.argv}\n{outcome.error or outcome.stderr}"


def _set_at(obj, rng: random.Random, value) -> object:
    """``obj`` (a JSON copy) with ``value`` at a random place of it."""
    obj = json.loads(json.dumps(obj))
    parent, key = None, None
    node = obj
    while isinstance(node, dict | list) and node and rng.random() < 0.75:
        parent, key = node, rng.choice(list(node) if isinstance(node, dict) else range(len(node)))
        node = node[key]
    if parent is None:
        return value
    parent[key] = value
    return obj


def _dumps(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")


@FAST
@given(
    instance=st.sampled_from(SEEDS.instances),
    value=json_values,
    rng=st.randoms(use_true_random=False),
    command=st.sampled_from(["verify", "solve", "grade"]),
)
def test_malformed_instances_get_an_answer_per_line(instance, value, rng, command) -> None:
    line = _dumps(_set_at(instance, rng, value))
    good = json.dumps(SEEDS.instances[0]).encode()
    extra = ["--no-search"] if command == "grade" else ["--budget-seconds", "5"]
    _ok(Case(command, [command, "-", *extra], stdin=good + b"\n" + line + b"\n", items=2))


@pytest.mark.parametrize("command", ["verify", "solve"])
def test_an_answer_holding_a_unicode_line_break_is_one_answer(command) -> None:
    """A field named U+0085 (NEXT LINE) is echoed in the violation as it is, valid JSON; the
    answers are counted by "\\n" alone, as JSON Lines are read."""
    line = _dumps({"\x85": None})
    case = Case(command, [command, "-"], stdin=line + b"\n", items=1)
    outcome = run_case(case, timeout=120)
    assert "\x85" in outcome.stdout and len(outcome.stdout.splitlines()) > 1
    assert judge(case, outcome) is None, outcome.error or outcome.stderr


@FAST
@given(instance=st.sampled_from(SEEDS.instances), rng=st.randoms(use_true_random=False))
def test_values_canonical_json_cannot_hold_get_an_answer_per_line(instance, rng) -> None:
    lines = [break_json(rng, instance, rng.randint(1, 3)) for _ in range(3)]
    stdin = (json.dumps(SEEDS.instances[0]) + "\n" + "\n".join(lines) + "\n").encode()
    _ok(Case("verify", ["verify", "-", "--budget-seconds", "5"], stdin=stdin, items=4))


@FAST
@given(
    seed=st.sampled_from(SEEDS.texts),
    junk=st.text(min_size=1, max_size=6) | st.sampled_from(LOOKALIKE_DIGITS),
    where=st.floats(0, 1),
)
def test_malformed_text_lines_get_an_answer_per_line(seed, junk, where) -> None:
    family, line = seed
    i = int(where * len(line))
    data = (line[:i] + junk + line[i:] + "\n" + line + "\n").encode("utf-8", "surrogatepass")
    case = Case("verify", ["verify", "-", "--family", family, "--budget-seconds", "5"], stdin=data)
    case.items = _lines_answered(data)
    _ok(case)


@FAST
@given(
    game_id=st.sampled_from(SEEDS.tatham),
    junk=st.text(max_size=6) | st.sampled_from([*LOOKALIKE_DIGITS, "9" * 5000, "_" * 50]),
    where=st.floats(0, 1),
)
@example(game_id="keen:3:_a_aa_aa,s1m3a6m2", junk="0\r", where=0.0)  # a lone CR ends a line
def test_malformed_tatham_ids_get_an_answer_per_line(game_id, junk, where) -> None:
    i = int(where * len(game_id))
    data = (game_id[:i] + junk + game_id[i:] + "\n").encode("utf-8", "surrogatepass")
    argv = ["verify", "-", "--input-format", "tatham", "--budget-seconds", "5"]
    case = Case("verify", argv, stdin=data)
    case.items = _lines_answered(data, document=False)
    _ok(case)


@FAST
@given(
    docs=st.sampled_from(SEEDS.rbk),
    value=json_values,
    which=st.sampled_from(["policy", "request"]),
    rng=st.randoms(use_true_random=False),
)
def test_the_kernel_answers_malformed_requests_and_policies(docs, value, which, rng) -> None:
    policy, request = docs
    if which == "policy":
        policy = _set_at(policy, rng, value)
    else:
        request = _set_at(request, rng, value)
    kwargs = {"policy": policy, "request": request, "at": "2026-01-01T00:00:00Z"}
    _ok(Case("kernel", call="kernel", kwargs=kwargs))


@FAST
@given(content=st.binary(max_size=64) | json_values.map(_dumps), docs=st.sampled_from(SEEDS.rbk))
def test_decide_answers_malformed_documents(content, docs) -> None:
    files = {"policy.json": json.dumps(docs[0]).encode(), "request.json": content}
    argv = ["decide", "--policy", "{dir}/policy.json", "--request", "{dir}/request.json"]
    _ok(Case("decide", argv + ["--computed-at", "2026-01-01T00:00:00Z"], files=files))


@FAST
@given(
    body=st.text(max_size=20) | json_values.map(lambda v: json.dumps(v)),
    rehash=st.booleans(),
    action=st.sampled_from(["verify", "show", "checkpoint"]),
)
def test_ledger_audits_answer_malformed_bodies(body, rehash, action) -> None:
    mutation = {"seq": 2, "body": body, "rehash": rehash, "flip": False, "truncate": False}
    case = Case(f"ledger-{action}", ["ledger", action, "{dir}/ledger.db"], ledger="ledger.db")
    case.files = {"mutation.json": json.dumps(mutation).encode()}
    _ok(case)


@FAST
@given(instance=st.sampled_from(SEEDS.instances), value=json_values, rng=st.randoms())
def test_mcp_verify_answers_malformed_instances(instance, value, rng) -> None:
    broken = _set_at(instance, rng, value)
    _ok(Case("mcp-verify", call="mcp-verify", kwargs={"instance": broken, "budget_seconds": 5.0}))


@FAST
@given(token=st.sampled_from(EVIL_TOKENS), flag=st.sampled_from(["--params", "--cap"]))
def test_unusable_arguments_exit_2_with_one_line(token, flag) -> None:
    value = '{"size": ' + token + "}" if flag == "--params" else token
    files = {"in.jsonl": json.dumps(SEEDS.instances[0]).encode() + b"\n"}
    _ok(Case("verify-args", ["verify", "{dir}/in.jsonl", flag, value], files=files))


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_every_reproducer_is_answered(path: Path) -> None:
    case, expect = load_reproducer(path, DATA)
    outcome = run_case(case, timeout=120)
    assert judge(case, outcome) is None, outcome.error or outcome.stderr
    assert outcome.code == expect["code"], outcome.stderr
    answers = [line for line in outcome.stdout.splitlines() if line.strip()]
    if "answers" in expect:
        assert len(answers) == expect["answers"]
    if "verdicts" in expect:
        assert [json.loads(a)["uniquenessVerdict"] for a in answers] == expect["verdicts"]
    for needle in expect.get("stdout_contains", []):
        assert needle in outcome.stdout
    if expect["code"] == 2:
        assert outcome.stderr.startswith("puzzlekit:") and outcome.stderr.count("\n") == 1


def test_the_corpus_holds_every_kind_of_reproducer() -> None:
    names = " ".join(p.stem for p in CORPUS)
    for kind in ("nan", "beyond-2-53", "lone-surrogate", "coord-list", "nesting", "5000-digits",
                 "text-", "tatham", "verifier-gametree", "budget-seconds", "kakuro-2000",
                 "dev-zero", "decide-non-utf8", "decide-validate", "ledger-verify",
                 "ledger-show-from-huge", "regress-empty", "regress-all-skipped",
                 "kakuro-superscript", "true-is-not-1"):  # fmt: skip
        assert kind in names, kind


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_hang_whose_alarm_a_finalizer_swallowed_is_a_hang(monkeypatch) -> None:
    """The run's alarm can land in a ``__del__`` or weakref callback: Python prints it as
    "Exception ignored in" (a traceback on stderr) and the case goes on; it is a hang."""
    import time

    import puzzlekit.app.cli
    from benchmarks.fuzz import judge, run_case
    from benchmarks.fuzz_break import Case

    class Slow:
        def __del__(self) -> None:
            time.sleep(0.6)

    def main(argv: list[str]) -> int:
        Slow()  # dropped at once: the alarm fires inside its finalizer
        return 0

    monkeypatch.setattr(puzzlekit.app.cli, "main", main)
    case = Case("verify", ["verify", "-"])
    outcome = run_case(case, timeout=0.2)
    assert outcome.code == 0 and outcome.error is None  # the case went on past its alarm
    assert judge(case, outcome) == "hang"

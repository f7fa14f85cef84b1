"""Malformed inputs for the fuzz run (:mod:`benchmarks.fuzz`): each :class:`Case` is
one command line (with its stdin and files) or one in-process call of an MCP tool's work or of
the review kernel, built from a valid seed and broken on purpose by a seeded ``random.Random``.

Seeds are read from the repository: instances of the golden corpora (``tests/golden``), their
text formats, Tatham game IDs (``tests/data/tatham``) and RBK fixtures (``tests/data/rbk``).
Not for: running the cases or judging their outcomes (that is :mod:`~.fuzz`).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.fuzz_break import Case, break_json, break_text, to_bytes


@dataclass
class Seeds:
    """Valid material to break: instance objects, text lines per family, Tatham IDs, RBK docs."""

    instances: list[dict[str, Any]]
    texts: list[tuple[str, str]]  # (family, line)
    tatham: list[str]
    rbk: list[tuple[dict[str, Any], dict[str, Any]]]  # (policy, request)


def load_seeds(golden: Path, data: Path, per_corpus: int = 2) -> Seeds:
    """Seeds from golden corpora under ``golden`` and test data under ``data``."""
    from puzzlekit.core.model import Instance
    from puzzlekit.families import get_family

    instances, texts = [], []
    for path in sorted(golden.glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for _, line in zip(range(per_corpus), fh, strict=False):
                obj = json.loads(line)["instance"]
                instances.append(obj)
                inst = Instance.from_json_obj(obj)
                try:
                    texts.append((inst.family, get_family(inst.family).format_text(inst)))
                except Exception:  # noqa: BLE001 - a family without a text format has no text seed
                    pass
    tatham = [
        ln.strip()
        for p in sorted((data / "tatham").glob("*.txt"))
        for ln in p.read_text("utf-8").splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    rbk = []
    for d in sorted((data / "rbk" / "fixtures").iterdir()):
        if (d / "policy.json").exists() and (d / "request.json").exists():
            rbk.append(
                (
                    json.loads((d / "policy.json").read_text("utf-8")),
                    json.loads((d / "request.json").read_text("utf-8")),
                )
            )
    return Seeds(instances, texts, tatham, rbk)


# --- breaking values -------------------------------------------------------------------------


VERIFIER_CHOICES = (None, None, None, "sat", "enumerative", "gametree", "oracle", "minimax")
BAD_NUMBERS = ("-1", "0", "nan", "inf", "-inf", "1e308", "99999999999999999999", "x", "٣")


#: a line's end as the streaming commands read it
_LINE_END = re.compile(rb"\r\n|\r|\n")


def _lines_answered(data: bytes, document: bool = True) -> int | None:
    """How many answers a streaming command owes for ``data`` read as lines (None when the
    input may be read as one JSON document, whose item count this does not predict). Lines end
    as :func:`puzzlekit.core.reading.iter_lines` ends them: at ``\\n``, ``\\r\\n`` or a lone
    ``\\r``."""
    count = 0
    first = True
    for number, raw in enumerate(_LINE_END.split(data)):
        if number == 0:
            raw = raw.removeprefix(b"\xef\xbb\xbf")  # the reader skips a byte-order mark
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            count += 1
            first = False
            continue
        if not text or text.startswith("#"):
            continue
        if document and first and text.startswith(("{", "[")):
            return None
        first = False
        count += 1
    return count


def _json_lines(rng: random.Random, seeds: Seeds) -> tuple[bytes, int]:
    """A valid instance line (so the input is read as lines), then instance lines, most of them
    broken; and how many are."""
    lines = []
    bad = 0
    for _ in range(rng.randint(1, 12)):
        obj = rng.choice(seeds.instances)
        broken = rng.random() < 0.8
        bad += broken
        lines.append(break_json(rng, obj, rng.randint(1, 2)) if broken else json.dumps(obj))
    head = json.dumps(rng.choice(seeds.instances)).encode()
    return head + b"\n" + to_bytes(rng, "\n".join(lines) + "\n"), bad


def _stream_case(rng: random.Random, seeds: Seeds, command: str) -> Case:
    extra: list[str] = []
    roll = rng.random()
    if roll < 0.5:
        data, bad = _json_lines(rng, seeds)
        _, _, rest = data.partition(b"\n")
        items = 1 + (_lines_answered(rest, document=False) or 0)
    elif roll < 0.8 and seeds.texts:
        family, line = rng.choice(seeds.texts)
        lines = [break_text(rng, line) for _ in range(rng.randint(1, 6))]
        data = to_bytes(rng, "\n".join(lines) + "\n")
        extra = ["--family", family]
        items = bad = _lines_answered(data)
    else:
        lines = [break_text(rng, rng.choice(seeds.tatham)) for _ in range(rng.randint(1, 6))]
        data = to_bytes(rng, "\n".join(lines) + "\n")
        extra = ["--input-format", "tatham"]
        items = bad = _lines_answered(data)
    if command == "grade":
        extra.append("--no-search")
    else:
        verifier = rng.choice(VERIFIER_CHOICES)
        extra += ["--budget-seconds", "2"] + (["--verifier", verifier] if verifier else [])
    return Case(command, [command, "-", *extra], stdin=data, items=items, bad=max(1, bad or 1))


def _document_case(rng: random.Random, seeds: Seeds) -> Case:
    """One pretty-printed instance or array over several lines (items not predicted), a line
    longer than the reader takes, or a layout far beyond a family's declared limits."""
    roll = rng.random()
    if roll < 0.02:
        data = b"[" * 10 + b"1," * (2_200_000) + b"\n" + json.dumps(seeds.instances[0]).encode()
        return Case("verify", ["verify", "-", "--budget-seconds", "2"], stdin=data, items=2)
    if roll < 0.04:
        layout = ["#" * rng.choice([40, 2000])] * rng.choice([3, 2000])
        obj = {"family": "kakuro", "params": {"layout": layout}, "clues": []}
        return Case("verify", ["verify", "-"], stdin=json.dumps(obj).encode() + b"\n", items=1)
    objs = [rng.choice(seeds.instances) for _ in range(rng.randint(1, 3))]
    doc: Any = objs if len(objs) > 1 or rng.random() < 0.5 else objs[0]
    text = break_json(rng, doc, rng.randint(0, 2)) if rng.random() < 0.8 else json.dumps(doc)
    text = json.dumps(_lenient(text), indent=2) if rng.random() < 0.3 else text
    text = text.replace(", ", ",\n") if rng.random() < 0.7 else text
    return Case("verify", ["verify", "-", "--budget-seconds", "2"], stdin=to_bytes(rng, text))


def _generate_case(rng: random.Random, seeds: Seeds) -> Case:
    family = rng.choice(["sudoku", "latin", "kenken", "nonogram", "owm-nim", "sudok", "٣"])
    argv = ["generate", family, "--count", "1", "--max-calls", "3", "--seed", "1"]
    flag = rng.choice(["--params", "--count", "--seed", "--clues", "--max-calls"])
    if flag == "--params":
        small = {"sudoku": {"size": 4, "box": [2, 2]}, "nonogram": {"rows": 4, "cols": 4}}
        value = break_json(rng, small.get(family, {"size": 4}))
    else:  # not a huge count: generating 10**20 puzzles is a long run, not a hang
        value = rng.choice([v for v in BAD_NUMBERS if len(v) < 10])
    return Case("generate", [*argv, flag, value, "--holdout", "none"])


def _game_case(rng: random.Random, seeds: Seeds) -> Case:
    game, position = rng.choice(
        [("tictactoe", "x.o/.x./..."), ("nim", "3,4,5"), ("mnk", "x.../.o../..../...."),
         ("connect", "..../..../..../xo..")]
    )  # fmt: skip
    argv = ["game-verdict", game, break_text(rng, position), "--budget-seconds", "2"]
    if rng.random() < 0.3:
        argv += [rng.choice(["--k", "--budget-seconds"]), rng.choice(BAD_NUMBERS)]
    return Case("game-verdict", argv)


def _args_case(rng: random.Random, seeds: Seeds) -> Case:
    command = rng.choice(["verify", "solve", "grade"])
    argv = [command, "{dir}/in.jsonl"]
    flag = rng.choice(["--budget-seconds", "--budget-nodes", "--cap", "--params", "--verifier"])
    if command == "grade":
        flag = rng.choice(["--params", "--target", "--family"])
    if flag == "--params":
        value = break_json(rng, {"size": 4, "box": [2, 2]}) if rng.random() < 0.7 else "[1]"
    elif flag == "--verifier":
        value = rng.choice(["gametree", "oracle", "minimax", "sat", "enumerative", "nope"])
    elif flag == "--family":
        value = rng.choice(["sudoku", "solo", "", "٣", "sudoku\x00"])
    else:
        value = rng.choice(BAD_NUMBERS)
    data = json.dumps(rng.choice(seeds.instances)).encode() + b"\n"
    return Case(f"{command}-args", [*argv, flag, value], files={"in.jsonl": data})


def _decide_case(rng: random.Random, seeds: Seeds) -> Case:
    policy, request = rng.choice(seeds.rbk)
    docs = {"policy.json": policy, "request.json": request}
    name = rng.choice(list(docs))
    roll = rng.random()
    if roll < 0.7:
        broken = to_bytes(rng, break_json(rng, docs[name], rng.randint(1, 2)))
    elif roll < 0.85:
        broken = bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
    else:
        broken = to_bytes(rng, break_text(rng, json.dumps(docs[name])))
    files = {k: json.dumps(v).encode() for k, v in docs.items()}
    files[name] = broken
    if rng.random() < 0.3:  # the same documents as a fixture directory under --validate
        files = {f"fx/{k}": v for k, v in files.items()}
        files["fx/expected-decision.json"] = to_bytes(rng, break_json(rng, {"outcome": "x"}))
        ok = {f"ok/{k}": json.dumps(v).encode() for k, v in docs.items()}
        return Case("decide-validate", ["decide", "--validate", "{dir}"], files={**files, **ok})
    at = rng.choice(["2026-01-01T00:00:00Z", "2026-13-45T99:00:00Z", "٣", "1e999"])
    argv = ["decide", "--policy", "{dir}/policy.json", "--request", "{dir}/request.json"]
    return Case("decide", [*argv, "--computed-at", at], files=files)


def _ledger_case(rng: random.Random) -> Case:
    bodies = [
        "[1, 2]",
        "NaN",
        '{"a": NaN}',
        '{"a": ' + "[" * 3000 + "]" * 3000 + "}",
        '{"n": ' + "9" * 5000 + "}",
        '{"s": "\\ud800"}',
        "not json",
        '{"ok": 1}',
    ]
    action = rng.choice(["verify", "show", "checkpoint"])
    argv = ["ledger", action, "{dir}/ledger.db"]
    if action == "show" and rng.random() < 0.5:
        argv += ["--from", rng.choice(["99999999999999999999", "-5", "0", "x"])]
    if action == "show" and rng.random() < 0.3:
        argv += ["--limit", rng.choice(["-1", "99999999999999999999", "0"])]
    mutation = {
        "seq": rng.randint(1, 3),
        "body": rng.choice(bodies),
        "rehash": rng.random() < 0.5,
        "flip": rng.random() < 0.15,
        "truncate": rng.random() < 0.05,
    }
    files = {"mutation.json": json.dumps(mutation).encode()}
    return Case(f"ledger-{action}", argv, files=files, ledger="ledger.db")


def _regress_case(rng: random.Random, seeds: Seeds) -> Case:
    roll = rng.random()
    files: dict[str, bytes] = {}
    if roll < 0.3:
        files["golden/.keep"] = b""
    elif roll < 0.6:
        files["golden/sudoku-4x4.jsonl"] = to_bytes(rng, break_text(rng, "{}\n"))
    else:
        entry = {"case": "unique", "instance": rng.choice(seeds.instances), "report": {}}
        files["golden/x.jsonl"] = to_bytes(rng, break_json(rng, entry, 2) + "\n")
    argv = ["regress", "--golden", "{dir}/golden"]
    if rng.random() < 0.3:
        argv += ["--schema", rng.choice(["sudoku-4x4", "x", "nope"])]
    return Case("regress", argv, files=files)


def _lenient(text: str) -> Any:
    """``text`` parsed the way a JSON-RPC layer might (NaN, big integers and lone surrogates
    accepted); the text itself when even that fails."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _mcp_case(rng: random.Random, seeds: Seeds) -> Case:
    roll = rng.random()
    if roll < 0.6:
        text = break_json(rng, rng.choice(seeds.instances), rng.randint(1, 2))
        kwargs: dict[str, Any] = {"instance": _lenient(text) if rng.random() < 0.6 else text}
    else:
        family, line = rng.choice(seeds.texts)
        kwargs = {"family": family, "text": break_text(rng, line)}
        if rng.random() < 0.2:
            kwargs["params"] = _lenient(break_json(rng, {"size": 4}))
    if rng.random() < 0.2:
        kwargs[rng.choice(["solution_cap", "budget_seconds", "budget_nodes"])] = rng.choice(
            [-1, 0, float("nan"), float("inf"), 10**30, "3", None]
        )
    kwargs.setdefault("budget_seconds", 2.0)
    return Case("mcp-verify", call="mcp-verify", kwargs=kwargs)


def _kernel_case(rng: random.Random, seeds: Seeds) -> Case:
    policy, request = rng.choice(seeds.rbk)
    docs = [policy, request]
    i = rng.randrange(2)
    docs[i] = _lenient(break_json(rng, docs[i], rng.randint(1, 3)))
    at = rng.choice(["2026-01-01T00:00:00Z", "nope", None, 5])
    return Case("kernel", call="kernel", kwargs={"policy": docs[0], "request": docs[1], "at": at})


def _file_case(builder: str) -> Any:
    """A builder of :mod:`.fuzz_files` (configs, run directories, policies, checkpoints), its
    valid material built on first use."""

    def build(rng: random.Random, seeds: Seeds) -> Case:
        from benchmarks import fuzz_files

        if builder == "checkpoint_case":
            return fuzz_files.checkpoint_case(rng)
        return getattr(fuzz_files, builder)(rng, fuzz_files.file_seeds())

    return build


#: command -> (weight, builder)
BUILDERS: dict[str, tuple[int, Any]] = {
    "verify": (20, lambda rng, s: _stream_case(rng, s, "verify")),
    "solve": (8, lambda rng, s: _stream_case(rng, s, "solve")),
    "grade": (8, lambda rng, s: _stream_case(rng, s, "grade")),
    "args": (6, _args_case),
    "document": (3, _document_case),
    "generate": (2, _generate_case),
    "game-verdict": (3, _game_case),
    "decide": (8, _decide_case),
    "ledger": (6, lambda rng, s: _ledger_case(rng)),
    "regress": (2, _regress_case),
    "mcp-verify": (12, _mcp_case),
    "kernel": (10, _kernel_case),
    "config": (3, _file_case("config_case")),
    "rundir": (2, _file_case("rundir_case")),
    "policy": (3, _file_case("policy_case")),
    "checkpoint": (3, _file_case("checkpoint_case")),
}


def make_case(rng: random.Random, seeds: Seeds, kind: str | None = None) -> Case:
    """One case: of ``kind`` (a key of :data:`BUILDERS`), or drawn by weight."""
    if kind is None:
        names = list(BUILDERS)
        kind = rng.choices(names, weights=[BUILDERS[n][0] for n in names])[0]
    return BUILDERS[kind][1](rng, seeds)

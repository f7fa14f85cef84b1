"""The row schema as Arrow types with a description per field, and the one way rows become
DataFrames and Parquet tables.

:data:`ATTEMPT_SCHEMA` and :data:`PUZZLE_SCHEMA` describe ``attempts.parquet`` and
``puzzles.parquet`` column by column: each field carries ``{"description": ...}`` as Parquet
field metadata (nested fields of reject details too), and the schema carries
``puzzlekit.rowSchemaVersion``. :func:`rows_frame` turns builder rows
(:mod:`puzzlekit.loop.rows`) into a DataFrame with one dtype per column (nullable ``Int64`` where
a count may be missing, ``string`` for text, Python lists and dicts for nested columns);
:func:`frame_table` turns a DataFrame back into a table of exactly this schema, refusing a
column that is missing or unknown. :func:`columns_markdown` renders the tables of docs/data.md.

Not for: building rows (:mod:`puzzlekit.loop.rows`) or deciding where files go (the app).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd
import pyarrow as pa

from puzzlekit.loop import rows as R


def _f(name: str, type_: pa.DataType, description: str, nullable: bool = True) -> pa.Field:
    return pa.field(name, type_, nullable=nullable, metadata={"description": description})


COORD = pa.list_(pa.int64())
COORDS = pa.list_(COORD)
_COORD_DOC = "0-based coordinate, e.g. [row, col]"

GAP_ITEM = pa.struct(
    [
        _f("coord", COORD, _COORD_DOC),
        _f("fieldName", pa.string(), "the variable's name (r1c1 is coord [0, 0])"),
        _f("valuesInSolutions", pa.list_(pa.int64()), "its distinct values in the solutions found"),
        _f(
            "discriminativePower",
            pa.float64(),
            "share of the found solutions a clue here (target value) would rule out",
        ),
        _f(
            "tieGroup",
            pa.int64(),
            "rank of discriminativePower in the gap (0: tied for the top); order within a "
            "group drawn from the instance digest",
        ),
    ]
)
CONFLICT_CLUE = pa.struct(
    [
        _f("clueId", pa.string(), "the clue's id"),
        _f("kind", pa.string(), "the clue's kind (given, cage, ...)"),
        _f("coord", COORD, "the clue's first coordinate"),
        _f("fieldName", pa.string(), "the variable at coord"),
        _f("coords", COORDS, "every coordinate the clue touches"),
        _f("data", pa.string(), "the clue's data as canonical JSON text (its shape is per kind)"),
    ]
)
CONFLICT_RULE = pa.struct(
    [
        _f("rule", pa.string(), "the rule's name"),
        _f("coords", COORDS, "the coordinates it constrains"),
    ]
)
CONFLICT = pa.struct(
    [
        _f("clues", pa.list_(CONFLICT_CLUE), "a set of clues that cannot hold together"),
        _f("rules", pa.list_(CONFLICT_RULE), "the rules involved"),
        _f("minimal", pa.bool_(), "dropping any one clue makes the rest satisfiable"),
        _f("conflictKind", pa.string(), "direct (a clash without search), minimum or minimal"),
    ]
)
FIELD_CARDINALITY = pa.struct(
    [
        _f("coord", COORD, _COORD_DOC),
        _f("fieldName", pa.string(), "the variable's name"),
        _f("cardinality", pa.int64(), "how many values it may still take"),
    ]
)
VIOLATION = pa.struct(
    [
        _f("violationType", pa.string(), "stable code: unknown-field, out-of-domain, ..."),
        _f("coord", COORD, "where, when the fault has a coordinate"),
        _f("fieldName", pa.string(), "a variable name or a path in the input"),
        _f("detail", pa.string(), "what is wrong, in words"),
    ]
)
BUDGET = pa.struct(
    [
        _f("resource", pa.string(), "what ran out: nodes or seconds"),
        _f("limit", pa.float64(), "its limit"),
        _f("nodes", pa.int64(), "search nodes spent"),
        _f("seconds", pa.float64(), "seconds spent (a timing)"),
        _f("solutionsFound", pa.int64(), "solutions found before it ran out"),
    ]
)
REJECT_DETAIL = pa.struct(
    [
        _f("case", pa.string(), "equals the verdict"),
        _f("discriminativeGap", pa.list_(GAP_ITEM), "MULTIPLE: cells that differ, most first"),
        _f("conflict", CONFLICT, "UNSOLVABLE: a conflicting set of clues"),
        _f(
            "fieldCardinalities",
            pa.list_(FIELD_CARDINALITY),
            "DOMAIN_TOO_LARGE, UNDECIDED: values left per variable",
        ),
        _f("culprits", pa.list_(FIELD_CARDINALITY), "the variables that blow the product up"),
        _f("violations", pa.list_(VIOLATION), "INVALID_SPEC: what is wrong and where"),
        _f("budget", BUDGET, "UNDECIDED: what ran out"),
        _f(
            "verdictDistribution",
            pa.map_(pa.string(), pa.int64()),
            "oracle families: verdict → completions",
        ),
    ]
)

_KEYS = [
    _f("schema", pa.string(), "schema label of the arm (config [[schemas]] label)", False),
    _f("strategy", pa.string(), "strategy name (generators.STRATEGIES)", False),
    _f("k", pa.int64(), "initial clue count the strategy starts from", False),
    _f("filter", pa.string(), "filter label of the arm (config [[filters]] label)", False),
    _f("trial", pa.int64(), "trial index t; the loop's seed is loop_seed(config seed, t)", False),
    _f("seed", pa.string(), "the loop's seed, decimal (may exceed int64)", False),
]

ATTEMPT_FIELDS = [
    *_KEYS,
    _f("side", pa.string(), "filter (the verifier the strategy reads) or holdout", False),
    _f("attempt", pa.int64(), "0-based index of the filter call; the holdout's is filterCalls"),
    _f("instanceDigest", pa.string(), "sha256 digest of the verified instance"),
    _f("clueCount", pa.int64(), "clues of the verified instance"),
    _f("action", pa.string(), "the strategy step that made the instance (start, reveal, ...)"),
    _f("actionCoord", COORD, "the coordinate that step touched"),
    _f("uniquenessVerdict", pa.string(), "the verifier's verdict, or contaminated"),
    _f("rejectCase", pa.string(), "the reject detail's case; null for UNIQUE"),
    _f("topCoord", COORD, "first gap coord / conflict clue / culprit / violation coord"),
    _f("solutionCount", pa.int64(), "solutions found, up to the solution cap"),
    _f(
        "forcedCells",
        pa.int64(),
        "cells in the report's forcedCells stat (sat on MULTIPLE); null unless the run asked "
        "for the forcedCells extra (config extras, LoopSpec.extras, or a strategy that reads "
        "it): the filter computes it only on request, the holdout never",
    ),
    _f("discriminativeGap", pa.list_(GAP_ITEM), "the whole gap of a MULTIPLE (else null)"),
    _f("conflict", CONFLICT, "the conflict of an UNSOLVABLE: clue ids, coords, rules"),
    _f("culprits", pa.list_(FIELD_CARDINALITY), "culprits of DOMAIN_TOO_LARGE/UNDECIDED"),
    _f("violations", pa.list_(VIOLATION), "the violations of an INVALID_SPEC (else null)"),
    _f("seconds", pa.float64(), "wall time of the call (holdout: pipe included); a timing"),
]

PUZZLE_FIELDS = [
    *_KEYS,
    _f(
        "status",
        pa.string(),
        "accepted, exhausted (budget spent), dropped (by a hook), contaminated-holdout or "
        "strategy-failed",
    ),
    _f("instanceDigest", pa.string(), "sha256 digest of the accepted instance"),
    _f("instance", pa.string(), "the accepted instance as canonical JSON (RFC 8785)"),
    _f("text", pa.string(), "the accepted instance in its family's one-line text format"),
    _f("startClues", pa.int64(), "clues of the loop's first instance", False),
    _f("clueCount", pa.int64(), "clues of the accepted instance"),
    _f("filterCalls", pa.int64(), "filter calls of the loop (minimization apart)", False),
    _f("minimizeCalls", pa.int64(), "verifier calls spent minimizing", False),
    _f("filterVerdict", pa.string(), "the filter's last verdict"),
    _f("filterRejectDetail", REJECT_DETAIL, "the filter's last reject detail (not accepted)"),
    _f("holdout", pa.string(), "the holdout verifier's name; null without a holdout"),
    _f("holdoutVerdict", pa.string(), "the holdout's verdict on the accepted instance"),
    _f("holdoutRejected", pa.bool_(), "filter accepted, holdout did not say UNIQUE", False),
    _f("holdoutRejectCase", pa.string(), "the holdout reject detail's case"),
    _f("holdoutTopCoord", COORD, "the holdout reject's top coordinate (as topCoord)"),
    _f("holdoutCoords", COORDS, "every coordinate the holdout's reject detail names"),
    _f("holdoutRejectDetail", REJECT_DETAIL, "the holdout's full reject detail"),
    _f("stopKind", pa.string(), "stopping-condition kind (all-clear, neither-halt, ...)"),
    _f("escalationTarget", pa.string(), "where the stop was escalated (none, w48-negcap, ...)"),
    _f("kernelOutcome", pa.string(), "review kernel on an all-clear: auto_apply, ..."),
    _f("settleAction", pa.string(), "what settling did (publishable, escalated, ...)"),
    _f("probeVerdict", pa.string(), "sat's verdict on the accepted puzzle minus one seeded clue"),
    _f("probeForcedCells", pa.int64(), "cells that probe still forces (expressive range)"),
    _f("level", pa.int64(), "grade level of the accepted puzzle (graded families)"),
    _f("technique", pa.string(), "its hardest technique (search when stuck)"),
    _f(
        "strategyFailure",
        pa.string(),
        "strategy-failed: what the strategy did (crashed, hung, garbage, impossible-edit)",
    ),
    _f(
        "strategyState",
        pa.string(),
        "a strategy learning across loops: its state after the loop, compact JSON with sorted "
        "keys (null for blind, adaptive); pattern: its table of counts per place "
        "(docs/strategies.md)",
    ),
    _f("holdoutSeconds", pa.float64(), "wall time of the holdout check; a timing"),
    _f("seconds", pa.float64(), "wall time of the loop; a timing", False),
]


def _schema(fields: list[pa.Field], names: Sequence[str], kind: str) -> pa.Schema:
    assert [f.name for f in fields] == list(names), f"{kind} fields out of step with rows.py"
    meta = {"puzzlekit.rowSchemaVersion": str(R.ROW_SCHEMA_VERSION), "puzzlekit.rows": kind}
    return pa.schema(fields, metadata=meta)


ATTEMPT_SCHEMA = _schema(ATTEMPT_FIELDS, R.ATTEMPT_COLUMNS, "attempts")
PUZZLE_SCHEMA = _schema(PUZZLE_FIELDS, R.PUZZLE_COLUMNS, "puzzles")
#: timing columns: everything else in a row depends on the config and seeds alone
TIMINGS = ("seconds", "holdoutSeconds")


def _dtype(field: pa.Field) -> str | None:
    t = field.type
    if pa.types.is_string(t):
        return "string"
    if pa.types.is_int64(t):
        return "Int64" if field.nullable else "int64"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_floating(t):
        return "float64"
    return None  # nested: Python lists and dicts


def rows_frame(rows: Iterable[Mapping[str, Any]], schema: pa.Schema) -> pd.DataFrame:
    """Builder rows as a DataFrame with the schema's columns and dtypes, in its sort order."""
    names = schema.names
    rows = list(rows)
    for i, row in enumerate(rows):
        if list(row) != names:
            extra, missing = set(row) - set(names), set(names) - set(row)
            raise ValueError(
                f"row {i}: not a {schema.metadata[b'puzzlekit.rows'].decode()} row "
                f"(unknown {sorted(extra)}, missing {sorted(missing)})"
            )
    df = pd.DataFrame(rows, columns=names)
    return sort_frame(_typed(df, schema), schema)


def _typed(df: pd.DataFrame, schema: pa.Schema) -> pd.DataFrame:
    for field in schema:
        dtype = _dtype(field)
        if dtype is not None:
            df[field.name] = df[field.name].astype(dtype)
        else:
            df[field.name] = df[field.name].astype(object)
    return df


def sort_frame(df: pd.DataFrame, schema: pa.Schema) -> pd.DataFrame:
    """Rows in one order whatever produced them (filter rows before the holdout row)."""
    kind = schema.metadata[b"puzzlekit.rows"].decode()
    keys = list(R.ATTEMPT_ORDER if kind == "attempts" else R.PUZZLE_ORDER)
    if df.empty:
        return df.reset_index(drop=True)
    return df.sort_values(keys, kind="stable").reset_index(drop=True)


def frame_table(df: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """``df`` as a table of exactly ``schema`` (field descriptions included)."""
    if list(df.columns) != schema.names:
        extra, missing = set(df.columns) - set(schema.names), set(schema.names) - set(df.columns)
        raise ValueError(
            f"columns do not match the row schema (unknown {sorted(extra)}, "
            f"missing {sorted(missing)})"
        )
    return pa.Table.from_pandas(_typed(df.copy(), schema), schema=schema, preserve_index=False)


def _nested(schema: pa.Schema) -> list[str]:
    return [f.name for f in schema if _dtype(f) is None]


def part_schema(schema: pa.Schema) -> pa.Schema:
    """The flat schema of an experiment's part files: nested columns as JSON text.

    Parts are one small file per task, kept for resuming; a nested Parquet schema and the field
    descriptions cost tens of kilobytes of footer per file, JSON text almost nothing (the merged
    files carry the descriptions). :func:`part_frame` reads them back.
    """
    fields = [
        pa.field(f.name, f.type if _dtype(f) is not None else pa.string(), f.nullable)
        for f in schema
    ]
    return pa.schema(fields, metadata={**schema.metadata, b"puzzlekit.part": b"json"})


def part_table(df: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """Rows of ``schema`` as a table of :func:`part_schema`."""
    flat = part_schema(schema)
    df = df.copy()
    for col in _nested(schema):
        df[col] = [
            None if v is None else json.dumps(R._plain(v), separators=(",", ":")) for v in df[col]
        ]
    return frame_table(df, flat)


def part_frame(df: pd.DataFrame, schema: pa.Schema) -> pd.DataFrame:
    """A part file's rows (as pandas reads them) with their nested columns decoded."""
    for col in _nested(schema):
        df[col] = [json.loads(v) if isinstance(v, str) else None for v in df[col]]
    return df


def columns_markdown(schema: pa.Schema | pa.StructType) -> str:
    """A Markdown table of a schema's columns (or a struct's fields): name, type, description."""
    fields = list(schema) if isinstance(schema, pa.Schema) else list(schema)
    head = "column" if isinstance(schema, pa.Schema) else "field"
    lines = [f"| {head} | type | description |", "|---|---|---|"]
    for field in fields:
        desc = field.metadata[b"description"].decode()
        null = "" if field.nullable else ", never null"
        lines.append(f"| `{field.name}` | {_type_text(field.type, field.name)}{null} | {desc} |")
    return "\n".join(lines) + "\n"


#: the nested types by the names docs/data.md gives them (those of puzzlekit.core.report)
STRUCTS = {
    "RejectDetail": REJECT_DETAIL,
    "GapItem": GAP_ITEM,
    "Conflict": CONFLICT,
    "ConflictClue": CONFLICT_CLUE,
    "ConflictRule": CONFLICT_RULE,
    "FieldCardinality": FIELD_CARDINALITY,
    "Violation": VIOLATION,
    "Budget": BUDGET,
}


def _named(t: pa.DataType, name: str) -> str | None:
    if t.equals(COORD) and "oord" in name:  # a list of integers named as a coordinate is one
        return "coord"
    for name, known in STRUCTS.items():
        if t.equals(known):
            return name
    return None


def _type_text(t: pa.DataType, name: str) -> str:
    named = _named(t, name)
    if named is not None:
        return named
    if pa.types.is_list(t):
        return f"list of {_type_text(t.value_type, name)}"
    return str(t)


#: Row schema 1 (before :mod:`puzzlekit.loop.rows`) column names → today's.
LEGACY_NAMES = {
    "instance_digest": "instanceDigest",
    "clue_count": "clueCount",
    "reject_case": "rejectCase",
    "top_coord": "topCoord",
    "solution_count": "solutionCount",
    "forced_cells": "forcedCells",
    "start_clues": "startClues",
    "filter_calls": "filterCalls",
    "minimize_calls": "minimizeCalls",
    "filter_verdict": "filterVerdict",
    "holdout_verdict": "holdoutVerdict",
    "holdout_rejected": "holdoutRejected",
    "holdout_reject_case": "holdoutRejectCase",
    "holdout_top_coord": "holdoutTopCoord",
    "holdout_coords": "holdoutCoords",
    "pipeline_kind": "stopKind",
    "escalation_target": "escalationTarget",
    "kernel_outcome": "kernelOutcome",
    "settle_action": "settleAction",
    "probe_verdict": "probeVerdict",
    "probe_forced_cells": "probeForcedCells",
    "holdout_seconds": "holdoutSeconds",
}
_JSON_COORDS = ("topCoord", "holdoutTopCoord", "holdoutCoords")


#: Row schema 2 column names → today's (3 named an attempt's verdict as ``verify`` does).
RENAMED_IN_3 = {"verdict": "uniquenessVerdict"}


def upgrade_frame(df: pd.DataFrame, version: int) -> pd.DataFrame:
    """Rows read from a run of row schema ``version`` with today's column names, coordinates
    as lists instead of JSON text. Columns an older run never had stay absent."""
    if version >= R.ROW_SCHEMA_VERSION:
        return df
    if version < 2:
        df = df.rename(columns=LEGACY_NAMES)
        for col in _JSON_COORDS:
            if col in df:
                df[col] = [json.loads(v) if isinstance(v, str) else None for v in df[col]]
    if version < 3:
        df = df.rename(columns=RENAMED_IN_3)
    return df


def canonical_identity(
    attempts: pd.DataFrame, puzzles: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows of a run written before an instance's clues were held in one canonical order
    (:mod:`puzzlekit.core.identity`) as today's code writes them: each puzzle row's ``instance``
    in canonical JSON and its ``instanceDigest`` recomputed from it; an attempt row that recorded
    one of the old digests (a loop's last filter call and the holdout's check verify the accepted
    instance) gets the new one. Other attempts keep the digests they recorded (their instances
    are not stored). Rows already canonical, and runs without ``instance`` (row schema 1), are
    returned unchanged."""
    from puzzlekit.core.model import Instance, SpecError

    if "instance" not in puzzles or "instanceDigest" not in puzzles or puzzles.empty:
        return attempts, puzzles
    renamed: dict[str, str] = {}
    texts, digests = list(puzzles["instance"]), list(puzzles["instanceDigest"])
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            continue
        try:
            inst = Instance.from_json(text)
        except SpecError:
            continue
        canonical = inst.to_json()
        if canonical == text and inst.digest == digests[i]:
            continue
        if isinstance(digests[i], str):
            renamed[digests[i]] = inst.digest
        texts[i], digests[i] = canonical, inst.digest
    if not renamed and texts == list(puzzles["instance"]):
        return attempts, puzzles
    puzzles = puzzles.copy()
    puzzles["instance"] = pd.array(texts, dtype=puzzles["instance"].dtype)
    puzzles["instanceDigest"] = pd.array(digests, dtype=puzzles["instanceDigest"].dtype)
    if renamed and "instanceDigest" in attempts:
        attempts = attempts.copy()
        column = attempts["instanceDigest"]
        attempts["instanceDigest"] = column.map(lambda d: renamed.get(d, d)).astype(column.dtype)
    return attempts, puzzles


def schema_markdown() -> str:
    """The column tables of docs/data.md: both files, then each nested type."""
    parts = [
        "### attempts.parquet\n",
        columns_markdown(ATTEMPT_SCHEMA),
        "### puzzles.parquet\n",
        columns_markdown(PUZZLE_SCHEMA),
    ]
    for name, struct in STRUCTS.items():
        parts += [f"### {name}\n", columns_markdown(struct)]
    return "\n".join(parts)


if __name__ == "__main__":  # python -m puzzlekit.loop.row_schema: the tables of docs/data.md
    print(schema_markdown(), end="")

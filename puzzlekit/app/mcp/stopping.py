"""The MCP tool ``stopping_condition_run``: the stopping-condition pipeline for agents.

Steps in (each a claim with one of the eight verdicts, and optional sub-steps), the outcome out
(:meth:`puzzlekit.audit.stopping.StoppingOutcome.to_json_obj`, its one-line ``summary``
included). With ``anchor`` the escalation is anchored in the server's ledger (``puzzlekit mcp
--ledger DB``), chained to the previous escalation of the same ``sequence_id``; a server without a
ledger answers ``{appended: false, reason: "no-anchor-fn"}``, as the pipeline does when anchoring
is asked for without a function. The pipeline is cheap and the ledger is the server's own, so
the call runs in the server process (the ledger write in a thread, through
:func:`~puzzlekit.audit.stopping.run_stopping_condition_async`), not in a worker.

Registered by :func:`puzzlekit.app.mcp.server.build_server`; not for the puzzle tools
(:mod:`puzzlekit.app.mcp.server`).
"""

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from puzzlekit.audit.ledger import Ledger
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import (
    DEFAULT_TARGET,
    ReasoningStep,
    run_stopping_condition_async,
)

__all__ = ["MAX_STEPS", "StepArg", "add_stopping_condition_run", "to_steps"]

#: steps (at every depth) one call may hold at most
MAX_STEPS = 10_000

Verdict8 = Literal["TRUE", "FALSE", "BOTH", "NEITHER", "INFINITY", "ZERO", "FLOWING", "SELF"]


class StepArg(BaseModel):
    """One audit step as the tool reads it (unknown keys are refused by name)."""

    model_config = ConfigDict(extra="forbid")

    step_id: Annotated[str, Field(description="The step's id, e.g. 'holdout'.")]
    claim: Annotated[str, Field(description="What the step claims.")]
    verdict: Annotated[Verdict8, Field(description="The step's eight-valued verdict.")]
    reason: Annotated[str, Field(description="Why the step has this verdict.")] = ""
    source: Annotated[str, Field(description="Who judged it (a verifier, a person, ...).")] = ""
    payload: Annotated[Any, Field(description="Carried through untouched.")] = None
    substeps: Annotated[
        list["StepArg"], Field(description="A sub-sequence audited before this step.")
    ] = []


def _count(steps: list[StepArg]) -> int:
    total, todo = 0, list(steps)
    while todo:
        step = todo.pop()
        total += 1
        todo.extend(step.substeps)
    return total


def to_steps(steps: list[StepArg]) -> list[ReasoningStep]:
    """The pipeline's steps from the tool's arguments."""
    return [
        ReasoningStep(
            s.step_id,
            s.claim,
            LogicValue(s.verdict),
            s.reason,
            s.source,
            s.payload,
            tuple(to_steps(s.substeps)),
        )
        for s in steps
    ]


DESCRIPTION = (
    "Run the stopping-condition pipeline over a sequence of audit steps. Each step has a "
    "`verdict` among TRUE FALSE BOTH NEITHER INFINITY ZERO FLOWING SELF; the first step that is "
    "not TRUE (sub-steps before their step) stops the sequence: NEITHER is a neither-halt sent "
    "to w48-negcap (negative capability: the question is kept open and retried), FALSE a "
    "false-violation sent to external-oracle, ZERO a zero-void sent to human, BOTH, INFINITY, "
    "FLOWING and SELF an other-nondefinite sent to peer-review; all TRUE is all-clear (target "
    "none). Returns the outcome: `summary` (e.g. 'stopping-condition | seq(2/4) | "
    "kind=neither-halt | target=w48-negcap | anchor=ok', the stop's 0-based index among the n "
    "steps), `escalation` (kind, target, boundary, `ledger_anchor` {appended, entryHash, "
    "entrySeq} or {appended: false, reason}), or `error` invalid-input with its `detail`. "
    "`anchor` records the escalation in the server's ledger, linked to the previous escalation "
    "of the same `sequence_id`."
)


def add_stopping_condition_run(server: Any, ledger: Ledger | None) -> None:
    """Register ``stopping_condition_run`` on ``server``, anchoring into ``ledger`` (if any)."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent, ToolAnnotations

    @server.tool(
        name="stopping_condition_run",
        title="Run the stopping-condition pipeline",
        description=DESCRIPTION,
        annotations=ToolAnnotations(
            readOnlyHint=False, idempotentHint=False, destructiveHint=False, openWorldHint=False
        ),
    )
    async def stopping_condition_run(
        steps: Annotated[
            list[StepArg], Field(description="The audit steps, in order.", max_length=MAX_STEPS)
        ],
        sequence_id: Annotated[
            str | None, Field(description="The sequence's id (chains its escalations).")
        ] = None,
        anchor: Annotated[
            bool, Field(description="Anchor the escalation in the server's ledger.")
        ] = False,
        target_override: Annotated[
            str | None,
            Field(
                description="Send a stop here instead of its default target: "
                + ", ".join(sorted(set(DEFAULT_TARGET.values()) - {"none"}))
                + " ('hold' is an alias of w48-negcap), or a target a handler serves."
            ),
        ] = None,
    ) -> CallToolResult:
        if _count(steps) > MAX_STEPS:
            raise ToolError(f"steps: more than {MAX_STEPS} steps at all depths")
        out = await run_stopping_condition_async(
            sequence_id,
            to_steps(steps),
            anchor_to_ledger=anchor,
            ledger_anchor_fn=ledger,
            target_override=target_override,
        )
        obj = out.to_json_obj()
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(obj, ensure_ascii=False))],
            structured_content=obj,
        )

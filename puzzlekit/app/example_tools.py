"""Example tools of the ``toolcall`` family whose oracles use the upper floors: a plugin module.

``review-kernel`` (the routing outcome of :func:`puzzlekit.audit.review.kernel.decide` under the
default publish policy of :mod:`puzzlekit.loop.publish`) and ``game-verdict``
(:func:`puzzlekit.verifiers.gametree.game_verdict` over a few tic-tac-toe positions). The tools
registry sits on the families floor, which may not import the review kernel's policy or the game
solver, so these tools are registered the way a third party registers its own: puzzlekit's
``pyproject.toml`` declares this module under the entry-point group ``puzzlekit.plugins``, and
the first registry lookup in any process (a command, a holdout worker, a Dask worker) imports it.
Importing it registers the tools; the heavy imports wait for the first oracle call.

Not for: the ``shipping-rate`` tool, which the family's listed schemas use and which stays built
in (:mod:`puzzlekit.families.tools`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from puzzlekit.core.clock import FROZEN_AT
from puzzlekit.families.tools import register_tool

REVIEW_KERNEL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "impact": {"enum": ["none", "low", "medium", "high"]},
        "exposure": {"enum": [0.1, 0.5]},
        "reversibility": {"enum": ["reversible", "irreversible", "unknown"]},
        "assurance": {"enum": ["evaluator_supported", "bounded_checked", "formal_verified"]},
        "evidence_count": {"type": "integer", "minimum": 0, "maximum": 2},
        "stale": {"type": "boolean"},
    },
    "required": ["impact", "exposure", "reversibility", "assurance", "evidence_count", "stale"],
}

#: the fixed clock of the ``review-kernel`` oracle (decisions are pure functions of it)
REVIEW_KERNEL_COMPUTED_AT = FROZEN_AT


def review_kernel_request(inp: Mapping[str, Any]) -> dict[str, Any]:
    """The ``rbk.request.v1`` a ``review-kernel`` input stands for: a corpus append proposed by
    a deterministic process, with ``evidence_count`` passed exhaustive-enumeration items of the
    given assurance (the first one stale, reason ``target_changed``, when ``stale``)."""
    items = []
    for i in range(inp["evidence_count"]):
        fresh = (
            {"status": "stale", "reasons": ["target_changed"]}
            if inp["stale"] and i == 0
            else {"status": "fresh"}
        )
        items.append(
            {
                "evidence_id": f"ev.{i}",
                "mode": "exhaustive_enumeration",
                "outcome": "passed",
                "assurance": inp["assurance"],
                "freshness": fresh,
            }
        )
    return {
        "schema": "rbk.request.v1",
        "request_id": "req.toolcall",
        "action": {
            "action_id": "act.toolcall",
            "action_kind": "puzzle.corpus_append",
            "proposed_by": {"actor_id": "puzzlekit.toolcall", "actor_kind": "deterministic"},
            "requested_dimensions": ["execute"],
            "reversibility": inp["reversibility"],
            "risk": {"impact": inp["impact"], "exposure": inp["exposure"], "uncertainty": 0.0},
        },
        "evidence_state": {"items": items},
    }


@cache
def _review_outcome(key: str) -> str:
    from puzzlekit.audit.review.kernel import decide
    from puzzlekit.loop.publish import default_policy

    request = review_kernel_request(json.loads(key))
    decision = decide(default_policy(), request, computed_at=REVIEW_KERNEL_COMPUTED_AT)
    return str(decision["outcome"])


def review_kernel(inp: Mapping[str, Any]) -> str:
    """The routing outcome of the review kernel: ``auto_apply``, ``human_required`` or
    ``incomplete`` (default publish policy, fixed clock)."""
    return _review_outcome(json.dumps(dict(inp), sort_keys=True))


#: the positions of the ``game-verdict`` tool: equal piece counts, so either side may move
GAME_POSITIONS: tuple[str, ...] = (
    ".../.../...",
    "x../.o./...",
    "xo./.../...",
    "xo./.x./..o",
    "xx./oo./...",
    ".../xox/o..",
    ".../oxo/x..",
)

GAME_VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "position": {"enum": list(GAME_POSITIONS)},
        "to_move": {"enum": ["x", "o"]},
    },
    "required": ["position", "to_move"],
}


@cache
def _game_result(position: str, to_move: str) -> str:
    from puzzlekit.families.games.tictactoe import TicTacToe
    from puzzlekit.verifiers.gametree import game_verdict

    game = TicTacToe()
    return game_verdict(game, game.parse(position, to_move)).result


def game_verdict_tool(inp: Mapping[str, Any]) -> str:
    """The value of a tic-tac-toe position for the side to move: ``WIN``, ``LOSS`` or ``DRAW``."""
    return _game_result(inp["position"], inp["to_move"])


register_tool("review-kernel", REVIEW_KERNEL_SCHEMA, review_kernel, "review kernel routing outcome")
register_tool("game-verdict", GAME_VERDICT_SCHEMA, game_verdict_tool, "tic-tac-toe position value")

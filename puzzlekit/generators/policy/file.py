"""The policy file: a trained :class:`~puzzlekit.generators.policy.model.LinearPolicy` with its
provenance, as JSON, and its size-bounded reader.

One JSON object (``format: "puzzlekit-policy"``, ``version: 1``)::

    {"format": "puzzlekit-policy", "version": 1, "kind": "linear-softmax",
     "puzzlekit": "0.1.0", "family": "sudoku", "params": {"box": [2, 2], "size": 4},
     "slots": ["r1c1", ...], "observation": "structured",
     "features": {"toggle": [...], "submit": [...]},
     "weights": {"toggle": [...], "submit": [...], "slot": [...]},
     "env": {"filter": "bitmask", "solution_cap": 2, "max_calls": 20, "start_clues": 0, ...},
     "trainer": {"method": "cem", "population": 16, ...}, "seed": 0,
     "steps": {"budget": 20000, "used": 20412}, "curve": [[steps, mean, best], ...],
     "digest": "sha256:..."}

``digest`` is the sha256 of the canonical JSON (RFC 8785) of every other member: the reader
recomputes it, so a file edited by hand is refused, and it names the policy in rows and reports.
Nothing in it depends on the clock or the machine: one seed gives one file, byte for byte.

:func:`read_policy` reads at most :data:`MAX_POLICY_BYTES` through the reading boundary
(:mod:`puzzlekit.core.reading`) and raises :class:`PolicyFileError`, whose message names the
file and what is wrong with it (the command line prints it as one line, exit 2).

Not for: acting (:mod:`puzzlekit.generators.policy.model`) or training
(:mod:`puzzlekit.envs.train`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from puzzlekit.core.jsondata import canonical_json, sha256_digest
from puzzlekit.core.reading import ReadError, load_json_file
from puzzlekit.generators.policy.model import SUBMIT_FEATURES, TOGGLE_FEATURES, LinearPolicy

FORMAT = "puzzlekit-policy"
VERSION = 1
KIND = "linear-softmax"
#: a policy file is read whole, at most this many bytes (a 9×9 policy is a few kilobytes)
MAX_POLICY_BYTES = 4 * 1024 * 1024
#: the members every policy file holds
MEMBERS: tuple[str, ...] = (
    "format",
    "version",
    "kind",
    "puzzlekit",
    "family",
    "params",
    "slots",
    "observation",
    "features",
    "weights",
    "env",
    "trainer",
    "seed",
    "steps",
    "curve",
    "digest",
)


class PolicyFileError(ValueError):
    """A policy file that cannot be used; the message names the file and the fault."""


@dataclass(frozen=True, eq=False)
class PolicyFile:
    """A policy and its provenance (the members of the file, ``weights`` as a policy)."""

    policy: LinearPolicy
    family: str
    params: Mapping[str, Any]
    slots: tuple[str, ...]
    observation: str
    env: Mapping[str, Any]
    trainer: Mapping[str, Any]
    seed: int
    steps: Mapping[str, int]
    curve: tuple[tuple[float, ...], ...]
    puzzlekit: str
    digest: str = ""

    def body(self) -> dict[str, Any]:
        """Every member but ``digest``, as plain JSON values."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "kind": KIND,
            "puzzlekit": self.puzzlekit,
            "family": self.family,
            "params": _plain(self.params),
            "slots": list(self.slots),
            "observation": self.observation,
            "features": {"toggle": list(TOGGLE_FEATURES), "submit": list(SUBMIT_FEATURES)},
            "weights": {
                "toggle": _floats(self.policy.w_toggle),
                "submit": _floats(self.policy.w_submit),
                "slot": _floats(self.policy.w_slot),
            },
            "env": _plain(self.env),
            "trainer": _plain(self.trainer),
            "seed": self.seed,
            "steps": _plain(self.steps),
            "curve": [_floats(row) for row in self.curve],
        }

    def to_json_obj(self) -> dict[str, Any]:
        body = self.body()
        return {**body, "digest": sha256_digest(canonical_json(body))}

    def dumps(self) -> str:
        """The file's text: one member per line, in :data:`MEMBERS` order."""
        obj = self.to_json_obj()
        lines = [f"  {json.dumps(k)}: {json.dumps(obj[k], sort_keys=True)}" for k in MEMBERS]
        return "{\n" + ",\n".join(lines) + "\n}\n"

    def write(self, path: str | Path) -> str:
        """Write the file atomically; returns its digest."""
        from puzzlekit.core.files import write_text

        text = self.dumps()
        write_text(path, text)
        return str(self.to_json_obj()["digest"])


def _floats(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values, np.float64).ravel()]


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def read_policy(path: str | Path) -> PolicyFile:
    """The policy file at ``path``; :class:`PolicyFileError` naming the file and the fault (not
    found, too large, not JSON, not a puzzlekit policy, another version, a member missing or of
    the wrong shape, a digest that does not match)."""
    try:
        obj = load_json_file(path, MAX_POLICY_BYTES)
    except FileNotFoundError:
        raise PolicyFileError(f"policy {path}: no such file") from None
    except OSError as exc:
        raise PolicyFileError(f"policy {path}: cannot read it ({exc.strerror})") from None
    except ReadError as exc:
        raise PolicyFileError(f"policy {path}: not a policy file ({exc})") from None
    except ValueError as exc:  # not JSON at all
        raise PolicyFileError(f"policy {path}: not JSON ({exc})") from None
    try:
        return _from_json(obj)
    except (KeyError, TypeError, ValueError) as exc:
        detail = f"member {exc.args[0]!r} missing" if isinstance(exc, KeyError) else str(exc)
        raise PolicyFileError(f"policy {path}: {detail}") from None


def _from_json(obj: Any) -> PolicyFile:
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise ValueError(f'not a puzzlekit policy file (no "format": "{FORMAT}")')
    if obj.get("version") != VERSION:
        raise ValueError(f"policy file version {obj.get('version')!r}; this reads {VERSION}")
    if obj.get("kind") != KIND:
        raise ValueError(f"policy kind {obj.get('kind')!r}; this reads {KIND!r}")
    unknown = sorted(set(obj) - set(MEMBERS))
    if unknown:
        raise ValueError(f"unknown member {unknown[0]!r}")
    body = {k: obj[k] for k in MEMBERS if k != "digest"}
    digest = sha256_digest(canonical_json(body))
    if obj["digest"] != digest:
        raise ValueError("its digest does not match its content (the file was changed)")
    feats = _typed(obj["features"], dict, "features")
    if list(feats.get("toggle", ())) != list(TOGGLE_FEATURES) or list(
        feats.get("submit", ())
    ) != list(SUBMIT_FEATURES):
        raise ValueError("its features are not the ones this version computes")
    slots = tuple(_typed(s, str, "slots[]") for s in _typed(obj["slots"], list, "slots"))
    weights = _typed(obj["weights"], dict, "weights")
    vector = [*_weights(weights, "toggle", len(TOGGLE_FEATURES))]
    vector += _weights(weights, "submit", len(SUBMIT_FEATURES))
    vector += _weights(weights, "slot", len(slots))
    observation = _typed(obj["observation"], str, "observation")
    if observation not in ("structured", "scalar"):
        raise ValueError(f"observation {observation!r} is not structured or scalar")
    return PolicyFile(
        policy=LinearPolicy.from_vector(np.array(vector), len(slots)),
        family=_typed(obj["family"], str, "family"),
        params=_typed(obj["params"], dict, "params"),
        slots=slots,
        observation=observation,
        env=_typed(obj["env"], dict, "env"),
        trainer=_typed(obj["trainer"], dict, "trainer"),
        seed=_typed(obj["seed"], int, "seed"),
        steps=_typed(obj["steps"], dict, "steps"),
        curve=tuple(tuple(row) for row in _typed(obj["curve"], list, "curve")),
        puzzlekit=_typed(obj["puzzlekit"], str, "puzzlekit"),
        digest=digest,
    )


def _typed(value: Any, kind: type, name: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"member {name} must be {kind.__name__}, got {type(value).__name__}")
    return value


def _weights(weights: Mapping[str, Any], key: str, n: int) -> list[float]:
    values = weights.get(key)
    if not isinstance(values, list) or len(values) != n:
        raise ValueError(f"weights.{key} must be a list of {n} numbers")
    ok = all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values
    )
    if not ok:
        raise ValueError(f"weights.{key} must hold finite numbers only")
    return [float(v) for v in values]


def check_schema(policy: PolicyFile, family: str, params: Mapping[str, Any], where: str) -> None:
    """PolicyFileError (naming ``where``, the file) unless the policy was trained on
    ``family`` with ``params``."""
    mine, theirs = _plain(dict(policy.params)), _plain(dict(params))
    if policy.family != family or mine != theirs:
        raise PolicyFileError(
            f"policy {where}: trained on {policy.family} {json.dumps(mine, sort_keys=True)}"
            f", not on {family} {json.dumps(theirs, sort_keys=True)}"
        )


def check_slots(policy: PolicyFile, slots: Sequence[str], where: str) -> None:
    """PolicyFileError unless the schema lays out the policy's slots (same clue ids, in order)."""
    if tuple(slots) != policy.slots:
        raise PolicyFileError(
            f"policy {where}: its {len(policy.slots)} slots are not this schema's {len(slots)}"
        )

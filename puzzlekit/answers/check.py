"""Judging a solver's answer against the rules: :func:`check_answer` and :func:`check_answers`.

Correctness is decided by the schema's rules and the instance's clues, never by a stored
solution, so every valid solution of a MULTIPLE puzzle is CORRECT (and, when asked, the report
says the puzzle is not unique). The score is the share of cells that are right: filled, in their
domain, not overwriting a given and in no broken rule. Only-winning-move families take a move
(:mod:`puzzlekit.answers.games`).

Not for reading answers (:mod:`puzzlekit.answers.reading`), partial boards or move sequences
(:mod:`puzzlekit.answers.partial`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from puzzlekit.answers.compiled import Broken, Compiled, as_arrays, compiled
from puzzlekit.answers.reading import Cell, Unreadable, alphabet_of, read_cells
from puzzlekit.answers.report import AnswerReport, AnswerVerdict, AnswerViolation
from puzzlekit.core import protocols
from puzzlekit.core.model import Instance
from puzzlekit.families import get_family


def _is_game(instance: Instance) -> bool:
    from puzzlekit.families import get_family
    from puzzlekit.families.games import OnlyWinningMove

    return isinstance(get_family(instance.family), OnlyWinningMove)


def malformed(instance: Instance, reason: str, cells: int) -> AnswerReport:
    """The report of an answer that could not be read: MALFORMED with the reason."""
    v = AnswerViolation("malformed", None, "answer", reason)
    return AnswerReport(AnswerVerdict.MALFORMED, 0.0, cells, 0, (v,), instance.digest)


def correct_report(comp: Compiled, instance: Instance) -> AnswerReport:
    """The report of a right answer (one object per puzzle: reports are immutable)."""
    if comp.correct is None or comp.correct.instance_digest != instance.digest:
        comp.correct = AnswerReport(AnswerVerdict.CORRECT, 1.0, comp.n, comp.n, (), instance.digest)
    return comp.correct


def _cell_violations(
    comp: Compiled, vals: np.ndarray, outside: list[int], blank: set[int], over: list[int]
) -> list[AnswerViolation]:
    """The out-of-domain values (``outside``: the cells not filled in their domain, ``blank``
    among them unfilled) and the overwritten givens (``over``: their indices) of one answer."""
    out: list[AnswerViolation] = []
    coords, names = comp.coords, comp.names
    for i in outside:
        if i not in blank:
            dom = f"{comp.lo}..{comp.hi}" if comp.mask[i].all() else "its domain"
            out.append(
                AnswerViolation(
                    "out-of-domain",
                    coords[i],
                    names[i],
                    f"{int(vals[i])} is not a value of this cell ({dom})",
                    (coords[i],),
                )
            )
    made = comp.remember()
    for g in over:
        i = int(comp.given_idx[g])
        key = ("given-overwritten", g, int(vals[i]))
        found = made.get(key)
        if found is None:
            found = made[key] = AnswerViolation(
                "given-overwritten",
                coords[i],
                names[i],
                f"the puzzle gives {int(comp.given_val[g])}, the answer has {int(vals[i])}",
                (coords[i],),
                comp.given_clue[g],
            )
        out.append(found)
    return out


def _rule_violation(comp: Compiled, b: Broken) -> AnswerViolation:
    """The violation of one broken constraint (made once per batch and constraint, cells and
    detail: :attr:`Compiled.made`)."""
    coords, rule = comp.coords, comp.origin_ids[b.position]
    first = b.cells[0] if b.cells else None
    return AnswerViolation(
        "rule-broken",
        coords[first] if first is not None else None,
        comp.names[first] if first is not None else rule,
        b.detail if comp.kinds[b.position] == "rule" else f"clue {b.detail}",
        tuple(coords[i] for i in b.cells),
        rule,
    )


def report_of(
    comp: Compiled,
    instance: Instance,
    vals: np.ndarray,
    filled: np.ndarray,
    dom_ok: np.ndarray,
    overwritten: np.ndarray,
    broken: Sequence[Broken],
    *,
    unfilled_is_wrong: bool = True,
    all_in_domain: bool = False,
    none_overwritten: bool = False,
) -> AnswerReport:
    """The report of one answer (its values and filled flags) from what
    :meth:`Compiled.judge` found for it. Only the cells found wrong are visited (a batch of
    wrong answers builds one report each); ``all_in_domain`` and ``none_overwritten``, when
    the caller knows them true, skip looking for such cells."""
    # the unfilled cells are among those outside their domain
    outside = [] if all_in_domain else np.flatnonzero(~dom_ok).tolist()
    over = [] if none_overwritten else np.flatnonzero(overwritten).tolist()
    if not broken and not outside and not over:
        return correct_report(comp, instance)
    blank = [i for i in outside if not filled[i]]
    out = _cell_violations(comp, vals, outside, set(blank), over)
    wrong = set(outside)
    wrong.update(int(comp.given_idx[g]) for g in over)
    made = comp.remember()
    for b in broken:
        wrong.update(b.cells)
        found = made.get(b)
        if found is None:
            found = made[b] = _rule_violation(comp, b)
        out.append(found)
    incorrect = bool(out)
    if blank and unfilled_is_wrong:
        coords, names = comp.coords, comp.names
        out.append(
            AnswerViolation(
                "unfilled",
                coords[blank[0]],
                names[blank[0]],
                f"{len(blank)} cell{'s' if len(blank) != 1 else ''} without a value",
                tuple(coords[i] for i in blank),
            )
        )
    right = comp.n - len(wrong)
    if incorrect:
        verdict = AnswerVerdict.INCORRECT
    elif blank:
        verdict = AnswerVerdict.INCOMPLETE
    else:
        verdict = AnswerVerdict.CORRECT
    score = right / comp.n if comp.n else float(verdict is AnswerVerdict.CORRECT)
    return AnswerReport(verdict, score, comp.n, right, tuple(out), instance.digest)


def default_verdict(instance: Instance, budget: Any = None) -> Any:
    """The verdict of ``instance`` (solution cap 2) by the default backend kept for the process,
    as ``pk.verify`` asks it (``budget``: a SearchBudget, None: the default)."""
    from puzzlekit.verifiers.registry import choice_seconds, default_verifier_name, kept_verifier

    with kept_verifier(default_verifier_name(instance, choice_seconds(budget))) as verifier:
        return verifier.verify(instance, solution_cap=2, budget=budget).verdict


@functools.lru_cache(maxsize=1024)
def _unique(instance: Instance) -> bool | None:
    """Whether the puzzle has one solution (None when the verifier could not decide)."""
    from puzzlekit.core.report import Verdict

    verdict = default_verdict(instance)
    if verdict in (Verdict.UNIQUE, Verdict.MULTIPLE):
        return verdict is Verdict.UNIQUE
    return None


def _with_unique(rep: AnswerReport, instance: Instance) -> AnswerReport:
    from dataclasses import replace

    if rep.verdict is not AnswerVerdict.CORRECT or rep.unique is not None:
        return rep
    unique = _unique(instance)
    note = ("the puzzle is not unique: this is one of its solutions",) if unique is False else ()
    return replace(rep, unique=unique, diagnostics=(*rep.diagnostics, *note))


_GAMES: dict[str, bool] = {}


def _game_family(instance: Instance) -> bool:
    hit = _GAMES.get(instance.family)
    if hit is None:
        hit = _GAMES[instance.family] = _is_game(instance)
    return hit


def check_answer(instance: Instance, answer: Any, *, uniqueness: bool = False) -> AnswerReport:
    """Judge ``answer`` to ``instance`` against its rules (see the module docstring).

    ``answer``: a mapping cell name -> value, a sequence of values (or rows), the family's text
    line, or a model's free text (the last grid in it); for an only-winning-move family, a move.
    ``uniqueness``: also say whether a CORRECT answer is the puzzle's only solution (one
    verification, kept per puzzle). Raises :class:`~puzzlekit.core.model.SpecError` for a
    puzzle that does not resolve; an unreadable answer is a MALFORMED report, never an error.
    """
    if _game_family(instance):
        from puzzlekit.answers.games import check_move

        return check_move(instance, answer)
    comp = compiled(instance)
    if isinstance(answer, str) and comp.plain:
        cells = alphabet_of(comp.problem.schema).plain(answer, comp.n)
        if cells is not None and comp.right(cells):
            rep = correct_report(comp, instance)
            return _with_unique(rep, instance) if uniqueness else rep
    rep = _judge_many(instance, [answer])[0]
    return _with_unique(rep, instance) if uniqueness else rep


def check_answers(
    instances: Instance | Sequence[Instance], answers: Sequence[Any], *, uniqueness: bool = False
) -> list[AnswerReport]:
    """Judge many answers at once: to one puzzle (``instances`` an Instance) or one puzzle each
    (a sequence as long as ``answers``). The same reports as :func:`check_answer`, one per
    answer in order; the rules of each distinct puzzle are judged for all its answers together
    by array operations (:mod:`puzzlekit.answers.compiled`)."""
    if isinstance(instances, Instance):
        puzzles: Sequence[Instance] = [instances] * len(answers)
    else:
        puzzles = list(instances)
        if len(puzzles) != len(answers):
            raise ValueError(f"{len(puzzles)} puzzles for {len(answers)} answers")
    out: list[AnswerReport | None] = [None] * len(answers)
    by_puzzle: dict[str, list[int]] = {}
    for i, inst in enumerate(puzzles):
        by_puzzle.setdefault(inst.digest, []).append(i)
    for rows in by_puzzle.values():
        inst = puzzles[rows[0]]
        if _game_family(inst):
            for i in rows:
                out[i] = check_answer(inst, answers[i])
            continue
        for i, rep in zip(rows, _judge_many(inst, [answers[i] for i in rows]), strict=True):
            out[i] = _with_unique(rep, inst) if uniqueness else rep
    return out  # type: ignore[return-value]


def _read(instance: Instance, schema: Any, answer: Any) -> list[Cell]:
    """The cells of one answer: through the family's own :meth:`Family.parse_answer` when it
    overrides it and the answer is text, else :func:`read_cells`."""
    fam = get_family(instance.family)
    if isinstance(answer, str) and type(fam).parse_answer is not protocols.Family.parse_answer:
        values = fam.parse_answer(answer, instance)
        return [values.get(name) for name in schema.names]
    return read_cells(instance, schema, answer)[0]


def _judge_many(instance: Instance, answers: Sequence[Any]) -> list[AnswerReport]:
    """Every answer to one puzzle: the plain ones (``n`` one-symbol cells) read together by
    table lookup, the rest one by one, then all judged at once."""
    comp = compiled(instance)
    schema = comp.problem.schema
    alphabet = alphabet_of(schema)
    texts = [a if isinstance(a, str) else "" for a in answers]
    fast_rows, fast_vals, fast_filled = alphabet.fast(texts, comp.n)
    done = set(fast_rows.tolist())
    slow_rows: list[int] = []
    slow_cells: list[list[Cell]] = []
    out: list[AnswerReport | None] = [None] * len(answers)
    for k, answer in enumerate(answers):
        if k in done:
            continue
        try:
            slow_cells.append(_read(instance, schema, answer))
            slow_rows.append(k)
        except Unreadable as exc:
            out[k] = malformed(instance, str(exc), comp.n)
    if slow_rows:
        vals, filled = as_arrays(slow_cells, comp.n)
        vals = np.concatenate([fast_vals, vals])
        filled = np.concatenate([fast_filled, filled])
    else:
        vals, filled = fast_vals, fast_filled
    rows = [*fast_rows.tolist(), *slow_rows]
    if rows:
        dom_ok, over, broken = comp.judge(vals, filled)
        in_domain = dom_ok.all(axis=1).tolist()
        kept = (~over.any(axis=1)).tolist()
        right = correct_report(comp, instance)
        for j, k in enumerate(rows):
            if in_domain[j] and kept[j] and j not in broken:
                out[k] = right
            else:
                found = broken.get(j, ())
                out[k] = report_of(
                    comp, instance, vals[j], filled[j], dom_ok[j], over[j], found,
                    all_in_domain=in_domain[j], none_overwritten=kept[j],
                )  # fmt: skip
    return out  # type: ignore[return-value]

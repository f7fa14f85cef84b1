"""puzzlekit-takuzu: an example plugin for puzzlekit, in a package of its own.

Importing this module registers, in puzzlekit's registries:

- the family ``takuzu`` (:class:`~puzzlekit_takuzu.family.Takuzu`),
- the verifier ``takuzu-lines`` (:class:`~puzzlekit_takuzu.verifier.TakuzuLines`),
- the strategies ``random-gap`` and ``rule-out`` (:class:`~puzzlekit_takuzu.strategy.RandomGap`,
  :class:`~puzzlekit_takuzu.strategy.RuleOut`).

Installed, the package declares this module in the entry-point group ``puzzlekit.plugins``, so
every puzzlekit command sees them; uninstalled, name it per use (``--plugin puzzlekit_takuzu``,
or ``plugins = ["puzzlekit_takuzu"]`` in an experiment config). See ``docs/extending.md`` in the
puzzlekit repository for the walk-through.
"""

from __future__ import annotations

from puzzlekit_takuzu.family import TAKUZU, Takuzu
from puzzlekit_takuzu.strategy import RandomGap, RuleOut
from puzzlekit_takuzu.verifier import TakuzuLines

__version__ = "0.1.0"
__all__ = ["TAKUZU", "RandomGap", "RuleOut", "Takuzu", "TakuzuLines"]

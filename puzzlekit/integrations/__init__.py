"""Adapters to the stacks that train and evaluate models on puzzles.

- :mod:`puzzlekit.integrations.reward`: a reward function in the shape TRL's GRPO trainer calls
  (``reward(completions, **columns) -> list[float]``), scored by
  :func:`~puzzlekit.answers.check_answers`; needs nothing beyond puzzlekit;
- :mod:`puzzlekit.integrations.reasoning_gym`: ``register()`` makes every family a
  reasoning-gym dataset ``puzzlekit-<family>`` (the ``reasoning-gym`` extra).

The solver environment ``puzzlekit/Solve-v0`` lives with the other Gymnasium environments
(:mod:`puzzlekit.envs`). docs/models.md walks through the three paths: a dataset for
evaluation, a reward for RL on language models, an environment for agents.

This floor sits beside ``envs`` and ``quality``: it imports the answers floor and the loop
(to make puzzles on demand), and nothing in puzzlekit imports it. Importing this package
imports neither submodule, and no optional package is imported before it is used.
"""

from __future__ import annotations

"""The ``logicgrid`` family (:mod:`.family`): its clue kinds (:mod:`.clues`), the generation
of its puzzles (:mod:`.generate`) and its text format (:mod:`.text`).
"""

"""The contracts every floor builds on: the model (schemas, clues, instances), reports, the
registry of plugins and the protocols of every hook. Imports nothing else of puzzlekit."""

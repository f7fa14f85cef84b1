"""The helpers families are built from: the one-line form of a grid of givens, cages and
their drawing, regions, the dihedral group and symmetry classes of a grid, Star Battle's
layouts.

Private to :mod:`puzzlekit.families`; what other floors share is public beside it
(:mod:`puzzlekit.families.grid`, :mod:`puzzlekit.families.tatham`). Not for family logic.
"""

"""Reading puzzles: input files (one boundary for every kind of bad input) and Tatham's IDs."""

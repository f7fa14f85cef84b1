"""The technique solver and the difficulty grades it gives."""

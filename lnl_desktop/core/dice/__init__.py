"""Dice: the sources of faces (random, scripted, typed at the table) and exact distributions of totals."""

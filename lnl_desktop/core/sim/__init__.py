"""Whole-fight odds: the rest of the fight played thousands of times from the table's state."""

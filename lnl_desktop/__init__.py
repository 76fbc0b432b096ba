"""Laurels & Loot Desktop: a GM's combat table for the tabletop RPG Laurels & Loot."""

__version__ = "0.1.0"

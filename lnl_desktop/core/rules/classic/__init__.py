"""L&L Classic (RULES §11): the earlier edition of Laurels & Loot, a variation of L&L behind the seam."""

from lnl_desktop.core.rules.classic.model import ClassicCombatant, ClassicOptions
from lnl_desktop.core.rules.classic.rules import (
    CLASSIC,
    NONE,
    OPPONENTS,
    PARTY,
    ROLL,
    ClassicRuleset,
    surprise_reading,
)

__all__ = [
    "CLASSIC",
    "NONE",
    "OPPONENTS",
    "PARTY",
    "ROLL",
    "ClassicCombatant",
    "ClassicOptions",
    "ClassicRuleset",
    "surprise_reading",
]

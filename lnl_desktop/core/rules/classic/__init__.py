"""L&L Classic (RULES §11): the earlier edition of Laurels & Loot, a variation of L&L behind the seam.

L&L's capabilities worded by Classic's edition (:mod:`.rules`), with its own surprise round
(:mod:`.rounds`) and sneak attack (:mod:`.attacks`); its stat block and options in :mod:`.model`.
"""

from typing import ClassVar

from lnl_desktop.core.rules.classic.attacks import ClassicAttacks
from lnl_desktop.core.rules.classic.model import ClassicCombatant, ClassicOptions
from lnl_desktop.core.rules.classic.rounds import NONE, OPPONENTS, PARTY, ROLL, ClassicRounds, surprise_reading
from lnl_desktop.core.rules.classic.rules import CLASSIC_RULES, ClassicRules
from lnl_desktop.core.rules.lnl import LnLRuleset


class ClassicRuleset(LnLRuleset):
    name = "classic"
    title = "L&L Classic"
    source = "the Laurels & Loot combat chapter, earlier edition"
    about = "The earlier edition: a surprise round of its own, WIS and Defense Points, all damage to SP first."
    stat_block = ClassicCombatant
    options_model = ClassicOptions
    bestiary_file = "bestiary-classic.json"
    demo_file = "hill-giant-classic.lnl"
    edition: ClassVar[ClassicRules] = CLASSIC_RULES

    def __init__(self) -> None:
        super().__init__()
        self.rounds = ClassicRounds(self.title)
        self.attacks = ClassicAttacks(self.edition)


CLASSIC = ClassicRuleset()

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

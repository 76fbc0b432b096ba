"""L&L Classic's arithmetic (RULES §11): the earlier edition of Laurels & Loot, as the differences from L&L.

Everything of L&L holds except: WIS where L&L has AWA, and Defense Points (DEX + AP) on the sheet; no
10 ft ranged minimum; all damage comes off SP first (no direct damage); no exertion; no precision check;
a sneak attack keeps the magic bonus and may be a Power Attack. Its surprise round is in :mod:`.rounds`,
its own sneak attack in :mod:`.attacks`.
"""

from __future__ import annotations

from lnl_desktop.core.rules.classic.model import ClassicCombatant, ClassicOptions
from lnl_desktop.core.rules.lnl.model import Ability, AttackMeans, AttackMode, LnLFamilyOptions, LnLStats, Weapon
from lnl_desktop.core.rules.lnl.rules import LnlRules


class ClassicRules(LnlRules):
    """L&L's formula with Classic's differences: to SP first, no exertion, no precision check."""

    title = "L&L Classic"
    stat_block = ClassicCombatant
    options_model = ClassicOptions
    perception = Ability.WIS
    ranged_minimum_ft = 0
    has_direct_damage = False
    has_exertion = False
    sneak_may_be_power = True
    shows_defense_points = True
    perception_tip = "WIS bonus: added to ranged damage. May be negative (L&L Classic has no AWA)"
    concealed_tip = (
        "Hidden from view (hiding, invisible). A hidden attacker may sneak attack; "
        "walls that block every line of sight from the target count too. The flag ends after the sneak attack"
    )
    surprised_tip = "Surprised: takes no turn in the other side's surprise round. The surprise d6 sets it"

    def is_direct(self, means: AttackMeans, mode: AttackMode) -> bool:
        return False

    def precision_check(
        self, attacker: LnLStats, target: LnLStats, weapon: Weapon, mode: AttackMode
    ) -> tuple[int, int] | None:
        return None

    def sneak_adds_magic(self, options: LnLFamilyOptions) -> bool:
        return True  # the normal formula, less the target's DEX

    def costs_exertion(self, means: AttackMeans, options: LnLFamilyOptions) -> bool:
        return False


CLASSIC_RULES = ClassicRules()

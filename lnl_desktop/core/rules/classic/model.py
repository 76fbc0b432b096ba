"""The L&L Classic stat block and options (RULES §11): L&L's, with WIS where L&L has AWA and
Defense Points (DEX + AP) on the sheet; its encounters otherwise keep what L&L's keep."""

from __future__ import annotations

from typing import ClassVar

from pydantic import model_validator

from lnl_desktop.core.rules.lnl.model import Ability, Bonus, LnLFamilyOptions, LnLStats


class ClassicCombatant(LnLStats):
    """A combatant of L&L Classic: STR, DEX and WIS; Defense Points = DEX bonus + AP."""

    PERCEPTION: ClassVar[Ability] = Ability.WIS

    wis_bonus: Bonus = 0

    @model_validator(mode="after")
    def _no_direct_damage(self) -> ClassicCombatant:
        for i, spell in enumerate(self.spells):
            if spell.direct:
                raise ValueError(f"spells[{i}].direct: L&L Classic has no direct damage (all damage is SP first)")
        return self

    @property
    def defense_points(self) -> int:
        """DP: what comes off every blow this combatant takes (sneak attacks: AP only)."""
        return self.dex_bonus + self.armor_points


class ClassicOptions(LnLFamilyOptions):
    """The [D] points of L&L Classic: L&L's, less the ones about exertion and direct damage it has not."""

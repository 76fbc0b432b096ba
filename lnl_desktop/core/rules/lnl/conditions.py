"""The L&L family's conditions (RULES §10): the shared menu, and a d20 at or under 10 + the named
ability's bonus at the end of each turn to end one."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.lnl.model import Ability
from lnl_desktop.core.rules.lnl.rules import LnlRules
from lnl_desktop.core.rules.shared import D20Conditions
from lnl_desktop.core.rules.specs import DurationSave, SaveRoll


class LnlConditions(D20Conditions):
    """The conditions' menu and tips; the save each turn is a d20 under an ability's score."""

    def __init__(self, rules: LnlRules, title: str) -> None:
        super().__init__(title)
        self.rules = rules

    def duration_save(self) -> DurationSave:
        # RULES §10: a d20 under the named ability. The family's abilities are bonuses; the score a d20
        # goes under is 10 + the bonus (Knave's reading), so STR +2 is a score of 12.
        abilities = self.rules.stat_block.abilities()
        return DurationSave(
            saves=tuple((a.value, f"{a.value}: a d20 at or under 10 + its {a.value} bonus") for a in abilities),
            needs_save=True,
            needs_dc=False,
            words="a d20 at the end of each of its turns: at or under 10 + the ability's bonus ends it",
        )

    def save(
        self, encounter: Encounter, c: Any, save: str | None, dc: int | None, dice: DiceSource, purpose: str
    ) -> SaveRoll:
        ability = Ability(save or Ability.STR.value)
        score = 10 + c.bonus(ability)
        face = roll_plain(dice, 20, purpose).face
        return SaveRoll(face <= score, face, f"d20 {face} under {ability.value} {score}")

"""Rest between fights in Group d10 (RULES §16): a night's rest restores all HP ([D]); *Wounded* and
lasting wounds stay until the GM clears them. The rules name no short rest, so it has none. And what a
fight leaves behind: HP, the lasting wound, the dead; not a parry, a grapple or a round's marks."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter.conditions import condition_changes
from lnl_desktop.core.rules.d10.model import D10Combatant, D10Options
from lnl_desktop.core.rules.shared import refuse_unknown_rest

NIGHT = "night"
KINDS = ((NIGHT, "Night's rest"),)


class D10Rest:
    """A night's rest's HP, and the fight's own fields ended as a combatant leaves one."""

    def __init__(self, title: str) -> None:
        self.title = title

    def kinds(self) -> tuple[tuple[str, str], ...]:
        return KINDS

    def _known(self, kind: str) -> None:
        refuse_unknown_rest(self.title, kind, KINDS)

    def dice(self, kind: str, options: Any) -> str:
        self._known(kind)
        return ""

    def gains(self, c: D10Combatant, kind: str, options: D10Options, dice: DiceSource) -> tuple[tuple[str, int], ...]:
        self._known(kind)
        if self.dead(c) or not options.night_rest_restores_hp or c.hp >= c.hp_max:
            return ()
        # Only HP: the Wounded condition is a lasting wound, the GM's to clear (RULES §13, §16).
        return (("hp", c.hp_max - c.hp),)

    def dead(self, c: D10Combatant) -> bool:
        return c.dead

    def after_fight(self, c: D10Combatant) -> D10Combatant:
        # RULES §13: a parry or dodge lasts until its next action, a disengage and a stand-up this turn, a lost
        # attack and an overextension name this fight's rounds; a grapple's holder stays in that fight. A weapon
        # a critical knocked away is picked up after it (RULES §16: dropped weapons back in hand).
        copy = c.model_copy(deep=True)
        copy.parrying = copy.disengaged = copy.stood_up = False
        copy.lost_attack_round = copy.overextended_round = None
        if copy.grappled_by is not None:
            copy.drop_condition("grappled")
            copy.grappled_by = None
        copy.weapons = [w.model_copy(update={"dropped": False}) if w.dropped else w for w in copy.weapons]
        return copy

    def summary(self, before: D10Combatant, after: D10Combatant) -> str:
        words = []
        if after.hp != before.hp:
            words.append(f"HP {before.hp} → {after.hp}")
        if after.dead and not before.dead:
            words.append("dead")
        elif before.dead and not after.dead:
            words.append("raised from the dead")
        words += condition_changes(before.conditions, after.conditions)
        was = {w.name: w.dropped for w in before.weapons}
        words += [f"{w.name} dropped" for w in after.weapons if w.dropped and not was.get(w.name, False)]
        return ", ".join(words)

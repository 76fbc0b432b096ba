"""Group d10's conditions (RULES §13: the §12 list): the sheet's menu, what the app does with each
it applies, the save each turn that ends one (a d20 plus the fitting skill), and the states a critical
or a grapple sets (disarmed, grappled)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.conditions import RULES_TABLE
from lnl_desktop.core.rules.d10.model import SKILL_NAMES, SKILLS, D10Combatant
from lnl_desktop.core.rules.shared import D20Conditions
from lnl_desktop.core.rules.specs import DurationSave, SaveRoll

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.model import Encounter

# The condition menu (RULES §13: the §12 list), and what Group d10 does with each it applies.
# "surprised" is not a word on the sheet here: the ambush roll decides surprise.
CONDITIONS = (*(word for word in RULES_TABLE if word != "surprised"), "hidden")
# Set by a Stealth action won; an attack gives it away (the GM removes it when a foe spots it).
HIDDEN = "hidden"
APPLIED = {
    "prone": "Group d10: attackers have advantage against it until it stands (Stand up: its move action)",
    "grappled": "Group d10: Move 0 until it breaks free (an opposed roll on its turn) or its grappler lets go",
    "exhausted": "Group d10: its to-hit rolls are at disadvantage",
    "unconscious": "Group d10: incapacitated, it takes no turns",
    "wounded": "Group d10: the lasting wound of exactly 1 HP; its lasting effect is the GM's",
    "hidden": "Group d10: unseen after a Stealth action: its attack on an unsuspecting foe has advantage, "
    "and gives it away",
}


class D10Conditions(D20Conditions):
    """The menu with what Group d10 applies of each, and a save each turn with the fitting skill."""

    def __init__(self, title: str) -> None:
        super().__init__(title, CONDITIONS)

    def tip(self, condition: str) -> str:
        tip = super().tip(condition)
        extra = APPLIED.get(condition.strip().casefold())
        return f"{tip}. {extra}" if tip and extra else extra or tip

    def duration_save(self) -> DurationSave:
        # RULES §10 and §13: a d20 against the DC the GM sets, plus the fitting skill where one is named.
        return DurationSave(
            saves=tuple((skill, f"{SKILL_NAMES[skill]}: its bonus adds to the d20") for skill in SKILLS),
            needs_save=False,
            needs_dc=True,
            words="a d20 at the end of each of its turns (+ the fitting skill, if named): the DC or more ends it",
        )

    def save(
        self, encounter: Encounter, c: D10Combatant, save: str | None, dc: int | None, dice: DiceSource, purpose: str
    ) -> SaveRoll:
        bonus = c.skill(save) if save else 0
        face = roll_plain(dice, 20, purpose).face
        total = face + bonus
        target = dc or 0
        added = f" {bonus:+d} {SKILL_NAMES[save]} = {total}" if save else ""
        return SaveRoll(total >= target, face, f"d20 {face}{added} vs DC {target}")


def disarm(t: D10Combatant) -> str:
    """Drop ``t``'s weapon in hand (its first one not dropped): the log's words of what happened."""
    weapon = next((w for w in t.weapons if not w.dropped), None)
    if weapon is None:
        return f"{t.name} is disarmed, but holds no weapon to drop"
    index = t.weapons.index(weapon)
    t.weapons[index] = weapon.model_copy(update={"dropped": True})
    return f"{t.name} is disarmed: {weapon.name} is dropped, unusable until a Use / ready an item picks it up"


def set_grapple(grappler: D10Combatant, held: D10Combatant) -> None:
    held.add_condition("grappled")
    held.grappled_by = grappler.id


def release(held: D10Combatant) -> None:
    held.drop_condition("grappled")
    held.grappled_by = None

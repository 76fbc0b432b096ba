"""Group d10's conditions (RULES §13: the §12 list): the sheet's menu, what the app does with each
it applies, and the states a critical or a grapple sets (disarmed, grappled)."""

from __future__ import annotations

from lnl_desktop.core.rules.common import CONDITIONS_TABLE
from lnl_desktop.core.rules.d10.model import D10Combatant

# The condition menu (RULES §13: the §12 list), and what Group d10 does with each it applies.
# "surprised" is not a word on the sheet here: the ambush roll decides surprise.
CONDITIONS = (*(word for word in CONDITIONS_TABLE if word != "surprised"), "hidden")
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

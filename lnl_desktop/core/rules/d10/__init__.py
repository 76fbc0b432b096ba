"""Group d10 (RULES §13): declared actions, a d10 per group each round, advantage and disadvantage,
criticals, weapon tiers, DR and minions; one ruleset package behind the seam."""

from lnl_desktop.core.rules.d10.model import D10Combat, D10Combatant, D10Options, D10Weapon, Tier
from lnl_desktop.core.rules.d10.play import (
    D10Attack,
    Declare,
    Disengage,
    FreeAttack,
    Mishap,
    OpposedRoll,
    ParryDodge,
    SetTimer,
    Sprint,
    UseItem,
    damage_after,
)
from lnl_desktop.core.rules.d10.rules import D10, GroupD10Ruleset

__all__ = [
    "D10",
    "D10Attack",
    "D10Combat",
    "D10Combatant",
    "D10Options",
    "D10Weapon",
    "Declare",
    "Disengage",
    "FreeAttack",
    "GroupD10Ruleset",
    "Mishap",
    "OpposedRoll",
    "ParryDodge",
    "SetTimer",
    "Sprint",
    "Tier",
    "UseItem",
    "damage_after",
]

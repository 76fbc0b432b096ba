"""Group d10 (RULES §13): declared actions, a d10 per group each round, advantage and disadvantage,
criticals, weapon tiers, DR and minions; one ruleset package behind the seam."""

from lnl_desktop.core.rules.d10.model import D10Combat, D10Combatant, D10Options, D10Weapon, Tier
from lnl_desktop.core.rules.d10.play import (
    BreakFree,
    D10Attack,
    Declare,
    Disengage,
    FreeAttack,
    Grapple,
    LetGo,
    Mishap,
    OpposedRoll,
    ParryDodge,
    SavingThrow,
    SetTimer,
    Sprint,
    StandUp,
    UseItem,
    damage_after,
)
from lnl_desktop.core.rules.d10.rules import D10, GroupD10Ruleset

__all__ = [
    "D10",
    "BreakFree",
    "D10Attack",
    "D10Combat",
    "D10Combatant",
    "D10Options",
    "D10Weapon",
    "Declare",
    "Disengage",
    "FreeAttack",
    "Grapple",
    "GroupD10Ruleset",
    "LetGo",
    "Mishap",
    "OpposedRoll",
    "ParryDodge",
    "SavingThrow",
    "SetTimer",
    "Sprint",
    "StandUp",
    "Tier",
    "UseItem",
    "damage_after",
]

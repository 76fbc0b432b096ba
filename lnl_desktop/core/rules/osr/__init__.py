"""Old-School d20 (RULES §12): to-hit rolls against AC, hit points, counter-attacks when leaving
melee, morale and death saves; one ruleset package behind the seam."""

from lnl_desktop.core.rules.osr.model import Kind, OsrCombatant, OsrOptions, OsrWeapon, parse_dice
from lnl_desktop.core.rules.osr.play import (
    Burn,
    Cast,
    Confusion,
    CounterAttack,
    DeathSave,
    Defend,
    MoraleCheck,
    OsrAttack,
    SavingThrow,
    StandUp,
    TakeMove,
    death_save_dc,
    to_hit,
)
from lnl_desktop.core.rules.osr.rules import OSR, OldSchoolRuleset

__all__ = [
    "OSR",
    "Burn",
    "Cast",
    "Confusion",
    "CounterAttack",
    "DeathSave",
    "Defend",
    "Kind",
    "MoraleCheck",
    "OldSchoolRuleset",
    "OsrAttack",
    "OsrCombatant",
    "OsrOptions",
    "OsrWeapon",
    "SavingThrow",
    "StandUp",
    "TakeMove",
    "death_save_dc",
    "parse_dice",
    "to_hit",
]

"""Laurels & Loot, the program's default ruleset (RULES §1-9): its rules, its table handlers, its views."""

from lnl_desktop.core.rules.lnl.rules import (
    LNL,
    MELEE_ENGAGED_FT,
    RANGED_MINIMUM_FT,
    SITUATION_TIPS,
    DamagePlan,
    LnLRuleset,
    dice_count,
    distance_between,
    exertion_cost,
    reverse_ambush_outcome,
)

__all__ = [
    "LNL",
    "MELEE_ENGAGED_FT",
    "RANGED_MINIMUM_FT",
    "SITUATION_TIPS",
    "DamagePlan",
    "LnLRuleset",
    "dice_count",
    "distance_between",
    "exertion_cost",
    "reverse_ambush_outcome",
]

"""Laurels & Loot, the program's default ruleset (RULES §1-9): the Ruleset object the registry names.

It is composed of the family's capabilities, each worded by one edition's arithmetic
(:class:`.rules.LnlRules`: the damage formula, the surprise and initiative dice): what the docks show
(:mod:`.views`), the conditions (:mod:`.conditions`), the round and the turn (:mod:`.rounds`), movement
(:mod:`.movement`), the actions (:mod:`.actions`, handled by :mod:`.play`), the attacks and their
forecast (:mod:`.attacks`, :mod:`.odds`), damage by hand (:mod:`.by_hand`), area effects
(:mod:`.areas`) and the fight odds (:mod:`.sim`, :mod:`.tactic`). Its stat block, options and events are
in :mod:`.model`. L&L Classic (``rules/classic``) varies it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.lnl.actions import LnlActions
from lnl_desktop.core.rules.lnl.areas import LnlAreas
from lnl_desktop.core.rules.lnl.attacks import LnlAttacks, forecast_attack
from lnl_desktop.core.rules.lnl.by_hand import LnlHealth
from lnl_desktop.core.rules.lnl.conditions import LnlConditions
from lnl_desktop.core.rules.lnl.model import EVENTS, LnLStats, RulesOptions, lnl_family_combatant
from lnl_desktop.core.rules.lnl.model import Encounter as LnLEncounter
from lnl_desktop.core.rules.lnl.movement import LnlMovement
from lnl_desktop.core.rules.lnl.rest import LnlRest
from lnl_desktop.core.rules.lnl.rounds import LnlRounds, LnlTurns
from lnl_desktop.core.rules.lnl.rules import (
    LNL_RULES,
    MELEE_ENGAGED_FT,
    RANGED_MINIMUM_FT,
    SITUATION_TIPS,
    DamagePlan,
    LnlRules,
    dice_count,
    exertion_cost,
    reverse_ambush_outcome,
)
from lnl_desktop.core.rules.lnl.sim import LnlFights
from lnl_desktop.core.rules.lnl.views import LnlPrompts, LnlTokens, LnlViews


class LnLRuleset(Ruleset):
    """Laurels & Loot (RULES §1-9). L&L Classic subclasses it with its own edition and what differs."""

    name = "lnl"
    title = "Laurels & Loot"
    source = "the Laurels & Loot combat chapter, current edition"
    about = "No to-hit rolls: exploding damage dice, Stamina worn down before Injuries, sneak attacks by facing."
    stat_block: ClassVar[type[LnLStats]] = LNL_RULES.stat_block
    options_model = RulesOptions
    event_types = EVENTS
    encounter_class = LnLEncounter
    bestiary_file: ClassVar[str] = "bestiary.json"
    demo_file: ClassVar[str | None] = "hill-giant.lnl"
    # The edition whose arithmetic and words the capabilities below take.
    edition: ClassVar[LnlRules] = LNL_RULES

    def __init__(self) -> None:
        rules = self.edition
        self.views = LnlViews(rules)
        self.tokens = LnlTokens(rules)
        self.conditions = LnlConditions(rules, self.title)
        self.rounds = LnlRounds(self.title)
        self.turns = LnlTurns()
        self.movement = LnlMovement()
        self.actions = LnlActions(rules)
        self.attacks = LnlAttacks(rules)
        self.health = LnlHealth(rules)
        self.prompts = LnlPrompts()
        self.areas = LnlAreas(rules)
        self.fights = LnlFights(self)
        self.rest = LnlRest(self.title)

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        return lnl_family_combatant(self.edition, data, source)

    def bestiary(self) -> list[dict[str, Any]]:
        from lnl_desktop.core.rules.bestiary import read_bestiary

        return read_bestiary(self)[0]

    def demo(self) -> str | None:
        return self.demo_file


LNL = LnLRuleset()


__all__ = [
    "LNL",
    "MELEE_ENGAGED_FT",
    "RANGED_MINIMUM_FT",
    "SITUATION_TIPS",
    "DamagePlan",
    "LnLRuleset",
    "dice_count",
    "exertion_cost",
    "forecast_attack",
    "reverse_ambush_outcome",
]

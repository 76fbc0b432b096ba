"""Group d10 (RULES §13): declared actions, a d10 per group each round, advantage and disadvantage,
criticals, weapon tiers, DR and minions; one ruleset package behind the seam.

The ruleset object registered for it is :data:`D10`, made of its capabilities, a module each:
``views`` (what the sheet, the tables and the tokens show), ``conditions``, ``rounds`` (surprise, the d10
per group, declarations), ``turns``, ``movement``, ``actions`` (the Action dock's actions, their checks,
the handlers in ``play``), ``attacks`` (the forecast in ``odds``), ``by_hand`` (health), ``prompts``,
``areas`` and ``sim`` (the fight simulator, its reference in ``tactic``). The arithmetic (advantage, the
to-hit roll, damage and the checks) is in ``rules``; the stat block, options and actions in ``model``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.d10.actions import D10Actions
from lnl_desktop.core.rules.d10.areas import D10Areas, converted_area, dice_count
from lnl_desktop.core.rules.d10.attacks import D10Attacks
from lnl_desktop.core.rules.d10.by_hand import D10Health
from lnl_desktop.core.rules.d10.conditions import D10Conditions
from lnl_desktop.core.rules.d10.model import (
    D10_DICE,
    BreakFree,
    D10Attack,
    D10Combat,
    D10Combatant,
    D10Options,
    D10Weapon,
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
    Stealth,
    Tier,
    UseItem,
)
from lnl_desktop.core.rules.d10.movement import D10Movement
from lnl_desktop.core.rules.d10.prompts import D10Prompts
from lnl_desktop.core.rules.d10.rest import D10Rest
from lnl_desktop.core.rules.d10.rounds import D10Rounds
from lnl_desktop.core.rules.d10.rules import damage_after
from lnl_desktop.core.rules.d10.sim import D10Fights
from lnl_desktop.core.rules.d10.turns import D10Turns
from lnl_desktop.core.rules.d10.views import D10Tokens, D10Views


class GroupD10Ruleset(Ruleset):
    name = "d10"
    title = "Group d10"
    source = "the group-initiative d10 combat chapter"
    about = "Declared actions, a d10 per group each round, advantage and disadvantage, armor as damage reduction."
    stat_block: ClassVar[type[D10Combatant]] = D10Combatant
    options_model = D10Options
    combat_model = D10Combat
    round_seconds: ClassVar[int] = 6
    sight_uses_facing: ClassVar[bool] = False  # Group d10 never reads facing: a creature sees all around
    bestiary_file: ClassVar[str] = "bestiary-d10.json"

    def __init__(self) -> None:
        self.views = D10Views()
        self.tokens = D10Tokens()
        self.conditions = D10Conditions(self.title)
        self.rounds = D10Rounds(self.title)
        self.turns = D10Turns()
        self.movement = D10Movement()
        self.actions = D10Actions()
        self.attacks = D10Attacks(self.movement.provocation_word)
        self.health = D10Health()
        self.prompts = D10Prompts()
        self.areas = D10Areas()
        self.fights = D10Fights()
        self.rest = D10Rest(self.title)

    # -- converting, the bestiary and the demo ------------------------------------------------------

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        kept, notes = super().convert(data, source)
        name = data.get("name", "?")
        if "stamina_max" in data:
            kept["hp_max"] = max(1, int(data["stamina_max"]) + int(data.get("injury_max", 0)))
            kept["hp"] = kept["hp_max"]
            kept["dr"] = int(data.get("armor", 0))
        elif "hp_max" in data:
            kept["hp_max"] = int(data["hp_max"])
            kept["hp"] = int(data.get("hp", data["hp_max"]))
            kept["dr"] = int(data.get("armor_bonus", 0)) // 2
            kept["melee"] = int(data.get("attack_bonus", 0)) + int(data.get("str_mod", 0))
        else:
            kept["hp_max"] = 10
        weapons = []
        for w in data.get("weapons", []):
            die = w.get("die") or ("d" + str(w.get("damage", "1d6")).split("d")[-1].split("+")[0].split("-")[0])
            die = die if die in D10_DICE else "d6"
            kind = {"reach": "reach", "ranged": "ranged", "missile": "ranged", "thrown": "ranged"}.get(
                str(w.get("kind")), "melee"
            )
            weapon = {
                "name": w["name"],
                "die": die,
                "kind": kind,
                "max_range_ft": w.get("max_range_ft") if kind == "ranged" else None,
            }
            weapons.append(weapon | converted_area(w.get("area"), dice_count(w.get("damage"))))
        # An L&L spell with an area strikes it here as an area weapon: its die, N dice by the caster's level.
        taken = {w["name"] for w in weapons}
        for spell in data.get("spells", []):
            area = converted_area(spell.get("area"), (int(data.get("level", 1)) + 1) // 2)
            if area and spell.get("name") not in taken:
                die = spell.get("die") if spell.get("die") in D10_DICE else "d6"
                range_ft = spell.get("range_ft")
                ranged = {"max_range_ft": max(10, int(range_ft))} if range_ft else {}
                weapons.append({"name": spell["name"], "die": die, "kind": "ranged", **ranged, **area})
                taken.add(spell["name"])
                notes.append(f"{name}: the spell {spell['name']} is an area weapon ({weapons[-1]['area_dice']}{die})")
        kept["weapons"] = weapons
        notes.append(f"{name}: HP {kept['hp_max']}, Defense 11, skills 0: check the stat block")
        return kept, notes

    def bestiary(self) -> list[dict[str, Any]]:
        from lnl_desktop.core.rules.bestiary import read_bestiary

        return read_bestiary(self)[0]

    def demo(self) -> str | None:
        return "bandit-mill-d10.lnl"


D10 = GroupD10Ruleset()


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
    "Stealth",
    "Tier",
    "UseItem",
    "damage_after",
]

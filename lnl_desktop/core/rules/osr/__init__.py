"""Old-School d20 (RULES §12): to-hit rolls against AC, hit points, counter-attacks when leaving
melee, morale and death saves; one ruleset package behind the seam.

The ruleset object registered for it is :data:`OSR`, composed of one object per capability: ``views``
(the sheet, the tables, the token), ``conditions``, ``rounds`` (surprise and initiative), ``turns``,
``movement``, ``actions`` (the Action dock and the engine's handlers in ``play``), ``attacks`` (the
forecast in ``odds``), ``health`` (damage by hand), ``prompts``, ``areas`` and ``fights`` (``sim`` and
``tactic``); the arithmetic is in ``rules``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.osr.actions import OsrActions
from lnl_desktop.core.rules.osr.areas import OsrAreas
from lnl_desktop.core.rules.osr.attacks import OsrAttacks
from lnl_desktop.core.rules.osr.by_hand import OsrHealth
from lnl_desktop.core.rules.osr.conditions import OsrConditions
from lnl_desktop.core.rules.osr.model import (
    UNARMED,
    Burn,
    Cast,
    Confusion,
    CounterAttack,
    DeathSave,
    Defend,
    Kind,
    MoraleCheck,
    OsrAttack,
    OsrCombatant,
    OsrOptions,
    OsrWeapon,
    SavingThrow,
    StandUp,
    TakeMove,
    parse_dice,
)
from lnl_desktop.core.rules.osr.movement import OsrMovement
from lnl_desktop.core.rules.osr.prompts import OsrPrompts
from lnl_desktop.core.rules.osr.rest import OsrRest
from lnl_desktop.core.rules.osr.rounds import OsrRounds
from lnl_desktop.core.rules.osr.rules import death_save_dc, to_hit
from lnl_desktop.core.rules.osr.sim import OsrFights
from lnl_desktop.core.rules.osr.turns import OsrTurns
from lnl_desktop.core.rules.osr.views import OsrTokens, OsrViews


class OldSchoolRuleset(Ruleset):
    name = "osr"
    title = "Old-School d20"
    source = "the old-school d20 combat chapter"
    about = "To-hit rolls against AC, HP, counter-attacks when leaving melee, morale and death saves."
    stat_block: ClassVar[type[OsrCombatant]] = OsrCombatant
    options_model = OsrOptions
    round_seconds: ClassVar[int] = 10
    bestiary_file: ClassVar[str] = "bestiary-osr.json"

    def __init__(self) -> None:
        self.views = OsrViews()
        self.tokens = OsrTokens()
        self.conditions = OsrConditions(self.title)
        self.rounds = OsrRounds(self.title)
        self.turns = OsrTurns()
        self.movement = OsrMovement()
        self.actions = OsrActions()
        self.attacks = OsrAttacks(self.movement.provocation_word)
        self.health = OsrHealth()
        self.prompts = OsrPrompts()
        self.areas = OsrAreas()
        self.fights = OsrFights()
        self.rest = OsrRest(self.title)

    # -- converting, the bestiary and the demo ------------------------------------------------------

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        kept, notes = super().convert(data, source)
        name = data.get("name", "?")
        # The L&L family's health as HP: SP + IP, a rough equivalent the GM should look at.
        if "stamina_max" in data and "injury_max" in data:
            kept["hp_max"] = max(1, int(data["stamina_max"]) + int(data["injury_max"]))
            kept["hp"] = max(0, min(kept["hp_max"], int(data.get("stamina", 0)) + int(data.get("injury", 0))))
            kept["level"] = int(data.get("level", 1))
            kept["kind"] = Kind.PC.value if data.get("side") == Side.PARTY.value else Kind.MONSTER.value
            kept["str_mod"] = int(data.get("str_bonus", 0))
            kept["dex_mod"] = int(data.get("dex_bonus", 0))
            kept["weapons"] = [
                {"name": w["name"], "damage": f"1{w['die']}", "kind": _kind_from(w), "max_range_ft": _range_from(w)}
                for w in data.get("weapons", [])
                if w.get("name") != UNARMED
            ]
            areas = _area_spells(data, {w["name"] for w in kept["weapons"]})
            kept["weapons"] += areas
            notes.append(f"{name}: HP {kept['hp_max']} = SP + IP; weapons' damage as one die each; AC 11: check them")
            if areas:
                said = ", ".join(f"{a['name']} {a['damage']}" for a in areas)
                notes.append(f"{name}: area spells as area weapons, save vs Spells (RULES §14): {said}; check them")
        else:
            kept.setdefault("hp_max", 8)
            notes.append(f"{name}: no health to map: HP 8, check the stat block")
        return kept, notes

    def bestiary(self) -> list[dict[str, Any]]:
        from lnl_desktop.core.rules.bestiary import read_bestiary

        return read_bestiary(self)[0]

    def demo(self) -> str | None:
        return "goblin-ambush-osr.lnl"


def _area_spells(data: dict[str, Any], taken: set[str]) -> list[dict[str, Any]]:
    """The L&L family's spells with an area, as weapons that strike it (RULES §14): the spell's die
    rolled as many times as the caster's level gave it there (1 die at levels 1-2, +1 at every odd
    level), not exploding; a spell named as a weapon is left out."""
    count = max(1, (int(data.get("level", 1)) + 1) // 2)
    out = []
    for spell in data.get("spells", []):
        if not spell.get("area") or spell.get("name") in taken or spell.get("name") == UNARMED:
            continue
        out.append({"name": spell["name"], "damage": f"{count}{spell['die']}", "area": spell["area"], "save": "Spells"})
        taken.add(spell["name"])
    return out


def _kind_from(weapon: dict[str, Any]) -> str:
    return {"reach": "reach", "ranged": "missile"}.get(str(weapon.get("kind", "melee")), "melee")


def _range_from(weapon: dict[str, Any]) -> int | None:
    if weapon.get("kind") != "ranged":
        return None
    return int(weapon.get("max_range_ft") or 150)


OSR = OldSchoolRuleset()


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

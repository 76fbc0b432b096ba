"""What Old-School d20 asks the GM (RULES §12): a counter-attack, a death save, a morale check, fire
damage or a confused creature's d6 when one is due; morale checks and saving throws on demand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.osr.actions import GM
from lnl_desktop.core.rules.osr.model import (
    Burn,
    Confusion,
    CounterAttack,
    DeathSave,
    MoraleCheck,
    MoraleResult,
    OsrCombatant,
    SaveCategory,
    SavingThrow,
)
from lnl_desktop.core.rules.osr.morale import morale_eligible
from lnl_desktop.core.rules.shared import NoPrompts
from lnl_desktop.core.rules.specs import PromptChoice, PromptSpec, Setting

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class OsrPrompts(NoPrompts):
    """The calls for a roll the rules make, the Combat menu's and the sheet's rolls, the dice roller's d20s."""

    def prompt(self, engine: Table, item: Any) -> PromptSpec:
        """How to ask the GM for a pending counter-attack, death save, morale check, burn or confusion
        roll; any other item in its own words."""
        index = engine.encounter.combat.pending.index(item)
        if item.kind == "counter-attack":
            striker = engine.combatant(item.who)
            weapon = Setting(
                "weapon", "With", "The weapon the counter-attack swings", "means", striker.best_melee().name
            )
            return PromptSpec(
                "Counter-attack",
                item.text,
                (weapon, *GM),
                (
                    PromptChoice(
                        "Roll the counter-attack",
                        "d20 to hit, damage on a hit",
                        lambda v: CounterAttack(index, str(v.get("weapon") or ""), *_gm_of(v)),
                        rolls=True,
                    ),
                ),
            )
        if item.kind == "death save":
            return PromptSpec(
                "Death save",
                item.text,
                (),
                (
                    PromptChoice(
                        "Roll the death save",
                        "d20 + Poison or Death bonus ≥ DC: unconscious; else dead",
                        lambda v: DeathSave(index),
                        rolls=True,
                    ),
                ),
            )
        if item.kind == "morale":
            return PromptSpec("Morale check", item.text, *morale_inputs(engine, item.who, index))
        if item.kind == "burning":
            return PromptSpec(
                "Burning",
                item.text,
                (),
                (
                    PromptChoice(
                        f"Roll the fire damage ({getattr(engine.encounter.options, 'burning_dice', '1d6')})",
                        "Subtracted from HP, as a hit's damage would be",
                        lambda v: Burn(index),
                        rolls=True,
                    ),
                ),
            )
        if item.kind == "confused":
            return PromptSpec(
                "Confused",
                item.text,
                (),
                (
                    PromptChoice(
                        "Roll the d6",
                        "1: attacks the nearest creature; 2-4: moves randomly; 5-6: does nothing",
                        lambda v: Confusion(index),
                        rolls=True,
                    ),
                ),
            )
        return super().prompt(engine, item)

    def tools(self, engine: Table) -> tuple[PromptSpec, ...]:
        """The Combat menu's morale checks on the GM's demand, one per side that has morale."""
        tools = []
        for side in Side:
            if any(morale_eligible(c) for c in engine.encounter.side(side)):  # type: ignore[arg-type]
                settings, choices = morale_inputs(engine, side.value, -1)
                tools.append(PromptSpec(f"Morale check: {side.value}", "On the GM's demand", settings, choices))
        return tuple(tools)

    def combatant_tools(self, engine: Table, c: OsrCombatant) -> tuple[PromptSpec, ...]:
        """The sheet's saving throw on demand: a category and a DC (11 + a monster's HD, or the GM's)."""
        category = Setting(
            "category",
            "Category",
            "Poison or Death Ray, Paralysis or Petrification, Wands, Dragon Breath, Spells",
            "choice",
            SaveCategory.SPELLS.value,
            choices=tuple(s.value for s in SaveCategory),
        )
        dc = Setting(
            "dc",
            "DC",
            "11 + the monster's HD for a monster's effect; else the GM's (11 + dungeon level)",
            "int",
            11,
            1,
            40,
        )
        choice = PromptChoice(
            "Roll the save",
            "d20 + the category's bonus (+ the GM's modifier) ≥ DC",
            lambda v: SavingThrow(c.id, str(v.get("category")), int(v.get("dc", 11)), "", *_gm_of(v)),
            rolls=True,
        )
        return (
            PromptSpec(
                f"Saving throw: {c.name}", "d20 + the category's bonus against a DC", (category, dc, *GM), (choice,)
            ),
        )

    def quick_rolls(self) -> tuple[tuple[str, str], ...]:
        return (("d20", "d20"), ("Advantage", "2d20kh1"), ("Disadvantage", "2d20kl1"))


def morale_inputs(engine: Table, side: str, index: int) -> tuple[tuple[Setting, ...], tuple[PromptChoice, ...]]:
    members = [c for c in engine.encounter.side(Side(side)) if morale_eligible(c)]  # type: ignore[arg-type]
    who = ", ".join(f"{c.name} {c.morale}" for c in members) or "nobody"  # type: ignore[attr-defined]
    settings = (
        Setting(
            "modifier",
            "Modifier",
            "Situational -2 … +2 (a side clearly winning +1, losing -1); never for morale 2 or 12",
            "int",
            0,
            -2,
            2,
        ),
        Setting("cornered", "Cornered", "A morale-2 creature fights only when cornered", "bool", False),
        Setting(
            "outcome",
            "On a failure",
            "What the creatures that fail do",
            "choice",
            MoraleResult.FLEES.value,
            choices=tuple(m.value for m in MoraleResult),
        ),
    )
    choice = PromptChoice(
        f"Roll 2d6 ({who})",
        "2d6 ≤ morale (+ modifier): stands; above: flees or surrenders. Two passes: no more checks",
        lambda v: MoraleCheck(
            side, int(v.get("modifier", 0)), bool(v.get("cornered", False)), str(v.get("outcome", "flees")), index
        ),
        rolls=True,
    )
    return settings, (choice,)


def _gm_of(values: Mapping[str, Any]) -> tuple[int, str, str]:
    """The GM's modifier, edge and reason from a prompt's inputs."""
    return (
        int(values.get("gm_modifier", 0) or 0),
        str(values.get("gm_edge", "none") or "none"),
        str(values.get("gm_reason", "") or ""),
    )

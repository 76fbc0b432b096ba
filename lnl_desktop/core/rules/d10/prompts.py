"""What Group d10's rules ask the GM (RULES §13): a free attack, a critical failure's mishap, a timer
run out; the GM's tools (an opposed roll, a timer die, a saving throw, letting go of a grapple) and the
dice roller's quick rolls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.rules.d10 import model
from lnl_desktop.core.rules.d10.actions import ON_20
from lnl_desktop.core.rules.d10.conditions import CONDITIONS
from lnl_desktop.core.rules.d10.model import SKILL_NAMES, SKILLS, D10Combatant, WeaponKind
from lnl_desktop.core.rules.shared import NoPrompts
from lnl_desktop.core.rules.specs import PromptChoice, PromptSpec, Setting

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class D10Prompts(NoPrompts):
    """The pending items' prompts and the GM's tools of Group d10."""

    def prompt(self, engine: Table, item: Any) -> PromptSpec:
        """How to ask the GM for a pending free attack, mishap or timer; any other item in its own words."""
        index = engine.encounter.combat.pending.index(item)
        if item.kind == "free attack":
            striker = engine.combatant(item.who)
            melee = [w.name for w in striker.weapons if w.kind is not WeaponKind.RANGED]
            weapon = Setting("weapon", "With", "The weapon the free attack swings", "means", melee[0] if melee else "")
            on_20 = ON_20
            return PromptSpec(
                "Free attack",
                item.text,
                (weapon, on_20),
                (
                    PromptChoice(
                        "Roll the free attack",
                        "d20 + melee against Defense, damage on a hit",
                        lambda v: model.FreeAttack(
                            index, str(v.get("weapon") or ""), str(v.get("on_20", model.ON_20[0]))
                        ),
                        rolls=True,
                    ),
                ),
            )
        if item.kind == "mishap":
            choice = Setting(
                "choice",
                "Mishap",
                "drops weapon: loses its attack next round; trips prone: loses its next attack (getting up is "
                "part of it, its move stays), attackers gain advantage until it is up unless it parries / "
                "dodges; overextended: its foes gain advantage next round",
                "choice",
                "none",
                choices=model.MISHAPS,
            )
            return PromptSpec(
                "Critical failure",
                item.text,
                (choice,),
                (PromptChoice("Apply", "The GM's pick", lambda v: model.Mishap(index, str(v.get("choice", "none")))),),
            )
        if item.kind == "timer":
            return PromptSpec(
                "Timer",
                item.text,
                (),
                (PromptChoice("Noted", "The event happens now: tell the table", lambda v: model.TimerNoted(index)),),
            )
        return super().prompt(engine, item)

    def tools(self, engine: Table) -> tuple[PromptSpec, ...]:
        names = tuple(c.name for c in engine.encounter.combatants)
        if len(names) < 1:
            return ()
        ids = {c.name: c.id for c in engine.encounter.combatants}
        skills = tuple(SKILL_NAMES[s] for s in SKILLS)
        by_label = {SKILL_NAMES[s]: s for s in SKILLS}
        opposed = PromptSpec(
            "Opposed roll",
            "Two combatants roll d20 + a skill each, the higher wins: a grapple (feats of strength), a door shut first",
            (
                Setting(
                    "first", "One", "Who rolls first (the attacker of a grapple)", "choice", names[0], choices=names
                ),
                Setting("first_skill", "with", "Its skill", "choice", "feats of strength", choices=skills),
                Setting("second", "Against", "The other", "choice", names[-1], choices=names),
                Setting("second_skill", "with", "Its skill", "choice", "feats of strength", choices=skills),
                Setting("what", "For", "What is at stake, for the log (grapple, the door)", "text", ""),
                Setting(
                    "stake",
                    "Sets",
                    "grapple: the first grapples the other if it wins (Move 0); break free: the first, held by "
                    "the other, breaks free if it wins; words only: the log says who won",
                    "choice",
                    model.STAKES[0],
                    choices=model.STAKES,
                ),
            ),
            (
                PromptChoice(
                    "Roll both",
                    "d20 + skill each",
                    lambda v: model.OpposedRoll(
                        ids.get(str(v.get("first")), str(v.get("first"))),
                        by_label.get(str(v.get("first_skill")), "strength"),
                        ids.get(str(v.get("second")), str(v.get("second"))),
                        by_label.get(str(v.get("second_skill")), "strength"),
                        str(v.get("what", "")),
                        "" if v.get("stake", model.STAKES[0]) == model.STAKES[0] else str(v.get("stake")),
                    ),
                    rolls=True,
                ),
            ),
        )
        timer = PromptSpec(
            "Timer die",
            "Roll a die: that many rounds until the event; the Turns dock counts them down and announces it",
            (
                Setting(
                    "die", "Die", "The timer's die", "choice", "d6", choices=("d4", "d6", "d8", "d10", "d12", "d20")
                ),
                Setting("event", "Event", "What happens when it runs out (the ceiling collapses)", "text", ""),
            ),
            (
                PromptChoice(
                    "Roll the timer",
                    "Rounds until the event",
                    lambda v: model.SetTimer(str(v.get("die", "d6")), str(v.get("event", ""))),
                    rolls=True,
                ),
            ),
        )
        return (opposed, timer)

    def combatant_tools(self, engine: Table, c: D10Combatant) -> tuple[PromptSpec, ...]:
        """The sheet's saving throw on the GM's call, and letting go of a grapple it holds."""
        by_label = {SKILL_NAMES[s]: s for s in SKILLS}
        low, high = model.SAVE_DC
        save = PromptSpec(
            f"Saving throw: {c.name}",
            "Against a spell or trap: d20 + the fitting skill ≥ the DC the GM sets; a failure brings what is set below",
            (
                Setting("what", "Against", "The spell or trap, for the log (sleep, a dart trap)", "text", ""),
                Setting(
                    "skill",
                    "Skill",
                    "The fitting skill bonus",
                    "choice",
                    SKILL_NAMES["perception"],
                    choices=tuple(SKILL_NAMES[s] for s in SKILLS),
                ),
                Setting("dc", "DC", f"What the roll must reach ({low} to {high})", "int", 11, low, high),
                Setting(
                    "condition",
                    "On a failure",
                    "The condition a failed save brings (sleep: unconscious), or none",
                    "choice",
                    "none",
                    choices=("none", *CONDITIONS),
                ),
                Setting(
                    "damage_die",
                    "Damage",
                    "The damage die a failed save takes (spells and traps never use tiers), or none",
                    "choice",
                    "none",
                    choices=model.SAVE_DICE,
                ),
                Setting("ignores_dr", "Ignores DR", "The effect disregards armor: DR is not taken off", "bool", False),
            ),
            (
                PromptChoice(
                    "Roll the save",
                    "d20 + skill against the DC",
                    lambda v: model.SavingThrow(
                        c.id,
                        by_label.get(str(v.get("skill")), str(v.get("skill"))),
                        int(v.get("dc", 11)),
                        str(v.get("what", "")),
                        "" if v.get("condition", "none") == "none" else str(v.get("condition")),
                        str(v.get("damage_die", "none")),
                        bool(v.get("ignores_dr", False)),
                    ),
                    rolls=True,
                ),
            ),
        )
        tools = [save]
        for other in engine.encounter.combatants:
            held: D10Combatant = other  # type: ignore[assignment]
            if held.holder == c.id:
                tools.append(
                    PromptSpec(
                        f"Let go of {held.name}",
                        f"{c.name} lets its grapple go: {held.name} is no longer grappled",
                        (),
                        (PromptChoice("Let go", "No roll, no action", lambda v, h=held.id: model.LetGo(c.id, h)),),
                    )
                )
        return tuple(tools)

    def quick_rolls(self) -> tuple[tuple[str, str], ...]:
        return (("d10", "d10"), ("d20", "d20"))

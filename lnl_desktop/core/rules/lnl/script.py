"""One call, one action: the L&L family's conveniences for scripts, tests and benchmarks.

Each function takes the engine first (a :class:`~lnl_desktop.core.rules.base.Table`) and looks its
action class up among the engine's ruleset's handlers by name, so a ruleset of the family (Classic)
plays through the same calls; a ruleset without the action refuses it (IllegalAction).
"""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.base import Table
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.lnl.model import AttackMode


def action_class(engine: Table, name: str) -> Any:
    """The engine's ruleset's action called ``name`` (a class in its ``handlers``); IllegalAction if
    the ruleset has none."""
    for action in engine.ruleset.actions.handlers:
        if action.__name__ == name:
            return action
    raise IllegalAction(name, [f"{engine.ruleset.title} has no action {name!r}"])


def _dice(faces: list[int] | None, dice: DiceSource | None) -> DiceSource | None:
    """Scripted faces when given, else the dice handed in (None: the engine's own)."""
    return ScriptedDice(faces) if faces is not None else dice


def attack(
    engine: Table,
    attacker: str,
    target: str,
    weapon: str,
    mode: AttackMode = AttackMode.ATTACK,
    *,
    faces: list[int] | None = None,
    ignore_dex: bool = False,
    override: bool = False,
    dice: DiceSource | None = None,
) -> list[Event]:
    action = action_class(engine, "Attack")(attacker, target, weapon, mode, ignore_dex, override)
    return engine.apply(action, _dice(faces, dice))


def cast(
    engine: Table,
    caster: str,
    target: str,
    spell: str,
    *,
    faces: list[int] | None = None,
    dice: DiceSource | None = None,
) -> list[Event]:
    return engine.apply(action_class(engine, "CastSpell")(caster, target, spell), _dice(faces, dice))


def parry(engine: Table, combatant: str, weapon: str | None = None, *, shield: bool = False) -> list[Event]:
    return engine.apply(action_class(engine, "Parry")(combatant, weapon, shield))


def dash(engine: Table, combatant: str) -> list[Event]:
    return engine.apply(action_class(engine, "Dash")(combatant))


def leap(engine: Table, combatant: str) -> list[Event]:
    return engine.apply(action_class(engine, "Leap")(combatant))


def sneak_checks(engine: Table, attacker: str, target: str, weapon: str) -> list[Check]:
    """RULES §7's eligibility points for a sneak attack, each with its reason: the checks of the
    sections the ruleset adds to an attack with ``weapon``."""
    a, t = engine.combatant(attacker), engine.combatant(target)
    sections = engine.ruleset.attacks.sections(engine.encounter, a, t, a.weapon(weapon))
    return [check for section in sections for check in section.checks]

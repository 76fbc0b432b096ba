"""The rules core: the Laurels & Loot combat rules and the encounter, in pure Python (no Qt).

The small public API a script needs::

    from lnl_desktop.core import Combatant, Weapon, ScriptedDice, resolve_attack

See ``docs/API.md`` for a worked example.
"""

from lnl_desktop.core.actions import Action
from lnl_desktop.core.dice import DiceSource, DieFace, PhysicalDice, RandomDice, ScriptedDice
from lnl_desktop.core.engine import Engine
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.events import AttackResolved, Event
from lnl_desktop.core.grid import DiagonalRule
from lnl_desktop.core.model import (
    Ability,
    Combatant,
    Encounter,
    MapGrid,
    RulesOptions,
    Shield,
    Side,
    Spell,
    SurpriseSituation,
    Token,
    Trait,
    Weapon,
    WeaponKind,
    WeaponState,
    WeaponStyle,
)
from lnl_desktop.core.rules.common import AttackMode, AttackOutcome, Check
from lnl_desktop.core.rules.lnl import LNL, dice_count


def resolve_attack(
    attacker: Combatant,
    target: Combatant,
    weapon: str,
    dice: DiceSource,
    mode: AttackMode = AttackMode.ATTACK,
    options: RulesOptions | None = None,
) -> AttackOutcome:
    """Roll one attack by the L&L rules and say what it does, changing nothing.

    The outcome holds every die, every term of the formula, and the target's SP and IP after
    the blow (``outcome.application.stamina_after`` / ``injury_after``).
    """
    means = attacker.spell(weapon) if mode is AttackMode.SPELL else attacker.weapon(weapon)
    return LNL.resolve_attack(attacker, target, means, mode, dice, options or RulesOptions())


__all__ = [
    "Ability",
    "Action",
    "AttackMode",
    "AttackOutcome",
    "AttackResolved",
    "Check",
    "Combatant",
    "DiagonalRule",
    "DiceSource",
    "DieFace",
    "Encounter",
    "Engine",
    "Event",
    "IllegalAction",
    "MapGrid",
    "PhysicalDice",
    "RandomDice",
    "RulesError",
    "RulesOptions",
    "ScriptedDice",
    "Shield",
    "Side",
    "Spell",
    "SurpriseSituation",
    "Token",
    "Trait",
    "Weapon",
    "WeaponKind",
    "WeaponState",
    "WeaponStyle",
    "dice_count",
    "resolve_attack",
]

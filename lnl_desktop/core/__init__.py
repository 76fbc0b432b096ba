"""The rules core: the combat rules (one package per ruleset) and the encounter, in pure Python (no Qt).

The small public API a script needs::

    from lnl_desktop.core import Combatant, Weapon, ScriptedDice, resolve_attack

See ``docs/API.md`` for a worked example.
"""

from typing import Any

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
from lnl_desktop.core.rules import Ruleset, all_rulesets, get_ruleset
from lnl_desktop.core.rules.classic import ClassicCombatant, ClassicOptions
from lnl_desktop.core.rules.common import AttackMode, AttackOutcome, Check
from lnl_desktop.core.rules.lnl import dice_count


def resolve_attack(
    attacker: Any,
    target: Any,
    weapon: str,
    dice: DiceSource,
    mode: AttackMode = AttackMode.ATTACK,
    options: Any = None,
    *,
    ruleset: str | Ruleset = "lnl",
) -> AttackOutcome:
    """Roll one attack by a ruleset's rules (L&L unless ``ruleset`` says otherwise) and say what it
    does, changing nothing.

    ``attacker`` and ``target`` are that ruleset's stat blocks (``Combatant`` for L&L,
    ``ClassicCombatant`` for ``ruleset="classic"``). The outcome holds every die, every term of the
    formula, and the target's SP and IP after the blow (``outcome.application.stamina_after`` /
    ``injury_after``).
    """
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    for who in (attacker, target):
        if not isinstance(who, rules.stat_block):
            raise RulesError(
                f"{who.name} is a {type(who).__name__}, not a {rules.stat_block.__name__} of {rules.title}"
            )
    means = rules.means(attacker, weapon, spell=mode is AttackMode.SPELL)
    return rules.resolve_attack(  # type: ignore[attr-defined, no-any-return]
        attacker, target, means, mode, dice, options if options is not None else rules.options_model()
    )


__all__ = [
    "Ability",
    "Action",
    "AttackMode",
    "AttackOutcome",
    "AttackResolved",
    "Check",
    "ClassicCombatant",
    "ClassicOptions",
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
    "Ruleset",
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
    "all_rulesets",
    "dice_count",
    "get_ruleset",
    "resolve_attack",
]

"""The rules core: the combat rules (one package per ruleset) and the encounter, in pure Python (no Qt).

The small public API a script needs::

    from lnl_desktop.core import Combatant, Weapon, ScriptedDice, resolve_attack

See ``docs/API.md`` for a worked example.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lnl_desktop.core.dice.rolls import DiceSource, DieFace, PhysicalDice, RandomDice, ScriptedDice
    from lnl_desktop.core.encounter.actions import Action
    from lnl_desktop.core.encounter.events import Event
    from lnl_desktop.core.encounter.map_model import MapGrid, Token
    from lnl_desktop.core.encounter.model import Side, Trait, WeaponKind
    from lnl_desktop.core.engine.engine import Engine
    from lnl_desktop.core.errors import IllegalAction, RulesError
    from lnl_desktop.core.map.grid import DiagonalRule
    from lnl_desktop.core.rules.classic import ClassicCombatant, ClassicOptions
    from lnl_desktop.core.rules.common import Check
    from lnl_desktop.core.rules.lnl import dice_count
    from lnl_desktop.core.rules.lnl.model import (
        Ability,
        AttackMode,
        AttackResolved,
        Combatant,
        Encounter,
        RulesOptions,
        Shield,
        Spell,
        SurpriseSituation,
        Weapon,
        WeaponState,
        WeaponStyle,
    )
    from lnl_desktop.core.rules.lnl.outcome import AttackOutcome
    from lnl_desktop.core.rules.registry import Ruleset, all_rulesets, get_ruleset

# Each name of the public API and the module it lives in (``module:name`` where it is called otherwise
# there), imported on first use (PEP 562): the
# program's start path imports only the models it needs, not every ruleset and action.
_PUBLIC = {
    "Action": "lnl_desktop.core.encounter.actions",
    "DiceSource": "lnl_desktop.core.dice.rolls",
    "DieFace": "lnl_desktop.core.dice.rolls",
    "PhysicalDice": "lnl_desktop.core.dice.rolls",
    "RandomDice": "lnl_desktop.core.dice.rolls",
    "ScriptedDice": "lnl_desktop.core.dice.rolls",
    "Engine": "lnl_desktop.core.engine.engine",
    "IllegalAction": "lnl_desktop.core.errors",
    "RulesError": "lnl_desktop.core.errors",
    "AttackResolved": "lnl_desktop.core.rules.lnl.model",
    "Event": "lnl_desktop.core.encounter.events",
    "DiagonalRule": "lnl_desktop.core.map.grid",
    "Ability": "lnl_desktop.core.rules.lnl.model",
    "Combatant": "lnl_desktop.core.rules.lnl.model",
    "Encounter": "lnl_desktop.core.rules.lnl.model",  # an L&L encounter
    "MapGrid": "lnl_desktop.core.encounter.map_model",
    "RulesOptions": "lnl_desktop.core.rules.lnl.model",
    "Shield": "lnl_desktop.core.rules.lnl.model",
    "Side": "lnl_desktop.core.encounter.model",
    "Spell": "lnl_desktop.core.rules.lnl.model",
    "SurpriseSituation": "lnl_desktop.core.rules.lnl.model",  # the L&L family's words, public as ever
    "Token": "lnl_desktop.core.encounter.map_model",
    "Trait": "lnl_desktop.core.encounter.model",
    "Weapon": "lnl_desktop.core.rules.lnl.model",
    "WeaponKind": "lnl_desktop.core.encounter.model",
    "WeaponState": "lnl_desktop.core.rules.lnl.model",
    "WeaponStyle": "lnl_desktop.core.rules.lnl.model",
    "Ruleset": "lnl_desktop.core.rules.registry",
    "all_rulesets": "lnl_desktop.core.rules.registry",
    "get_ruleset": "lnl_desktop.core.rules.registry",
    "ClassicCombatant": "lnl_desktop.core.rules.classic",
    "ClassicOptions": "lnl_desktop.core.rules.classic",
    "AttackMode": "lnl_desktop.core.rules.lnl.model",
    "AttackOutcome": "lnl_desktop.core.rules.lnl.outcome",
    "Check": "lnl_desktop.core.rules.common",
    "dice_count": "lnl_desktop.core.rules.lnl",
}


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, _, attribute = _PUBLIC[name].partition(":")
    value = getattr(import_module(module), attribute or name)
    globals()[name] = value
    return value


def resolve_attack(
    attacker: Any,
    target: Any,
    weapon: str,
    dice: DiceSource,
    mode: AttackMode | None = None,
    options: Any = None,
    *,
    ruleset: str | Ruleset | None = None,
) -> AttackOutcome:
    """Roll one attack by a ruleset's rules (the default ruleset unless ``ruleset`` says otherwise) and
    say what it does, changing nothing.

    ``attacker`` and ``target`` are that ruleset's stat blocks (its :attr:`Ruleset.stat_block`: the
    public ``Combatant`` for the default ruleset). The outcome holds every die, every term of the
    formula, and the target's SP and IP after the blow (``outcome.application.stamina_after`` /
    ``injury_after``).
    """
    from lnl_desktop.core.errors import RulesError
    from lnl_desktop.core.rules.lnl.model import AttackMode
    from lnl_desktop.core.rules.registry import DEFAULT_RULESET, get_ruleset

    mode = AttackMode.ATTACK if mode is None else mode
    rules = get_ruleset(ruleset or DEFAULT_RULESET) if ruleset is None or isinstance(ruleset, str) else ruleset
    for who in (attacker, target):
        if not isinstance(who, rules.stat_block):
            raise RulesError(
                f"{who.name} is a {type(who).__name__}, not a {rules.stat_block.__name__} of {rules.title}"
            )
    means = rules.actions.means(attacker, weapon, spell=mode is AttackMode.SPELL)
    # The L&L family's edition rolls it (``attacks.rules``: its damage formula).
    return rules.attacks.rules.resolve_attack(  # type: ignore[attr-defined, no-any-return]
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

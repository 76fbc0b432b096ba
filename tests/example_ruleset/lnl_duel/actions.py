"""Duel's actions: the Strike's handler (check, roll, then write) and what the Action dock offers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import AreaEffectResolved, Event, RulesEvent, WentDown
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.base import Handler
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.shared import said_checks
from lnl_desktop.core.rules.specs import ActionResult, ActionSpec, area_result, following
from lnl_duel.model import NAME, DuelStats, Strike
from lnl_duel.rules import die_name, in_reach, land, strike_damage, went_down

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


def strike(engine: Table, a: Strike, dice: DiceSource) -> list[Event]:
    """Check, roll, then write: a refused Strike changes nothing and reads no die."""
    attacker, target = engine.combatant(a.attacker), engine.combatant(a.target)
    title = f"{attacker.name} strikes {target.name}"
    checks = engine.turn_checks(attacker, needs_action=True)
    checks += [
        Check("Another combatant", attacker.id != target.id, "cannot strike itself"),
        Check("Target is up", not target.down, f"{target.name} is already down"),
        Check("Within 5 ft", in_reach(engine.encounter, attacker, target), f"{target.name} is out of reach"),
    ]
    engine.require(title, checks)
    face = roll_plain(dice, attacker.damage_die, f"{attacker.name}'s d{attacker.damage_die}").face
    damage = strike_damage(face, target.defense, engine.encounter.options.minimum_damage)
    engine.use_action(attacker, "strike", f"on {target.name}")
    dealt = land(target, damage)
    rnd = engine.encounter.combat.round
    return [
        RulesEvent(
            round=rnd,
            text=f"{title}: d{attacker.damage_die} {face} - defense {target.defense} = {damage}; "
            f"{target.name} has {target.hp}/{target.hp_max} HP",
            actors=(attacker.id, target.id),
            ruleset=NAME,
            name="strike",
            detail={"face": face, "defense": target.defense, "damage": damage, "hp": target.hp},
        ),
        *went_down(rnd, target, damage - dealt),
    ]


def build_strike(c: str, target: str, means: str | None = None, **toggles: bool) -> Strike:
    """The Action dock's choices as a Strike: it passes every targeted action its means (the damage
    die, which the Strike reads from the striker) and its GM toggles (ignore DEX, override)."""
    return Strike(c, target)


STRIKE = ActionSpec(
    "strike",
    "Strike",
    "Roll your damage die; the target's defense comes off",
    "weapon",  # its means is the striker's damage die: the Forecast dock forecasts it
    build_strike,
    targeted=True,
    button="Strike",
    rolls=True,
)
OTHER = ActionSpec("other", "Something else…", "Anything the GM allows, in words for the log", "text", act.OtherAction)


class DuelActions:
    """A Strike or anything else in words: one action a turn."""

    handlers: Mapping[type, Handler] = {Strike: strike}
    hooks_with_extras: frozenset[str] = frozenset()

    def kinds(self) -> tuple[ActionSpec, ...]:
        return (STRIKE, OTHER)

    def available(self, spec: ActionSpec, c: Any) -> tuple[bool, str]:
        return True, ""

    def choices(self, spec: ActionSpec, c: Any) -> list[tuple[str, str, str]]:
        if spec.key != "strike":
            return []
        return [(die_name(c), f"{die_name(c)}: the damage die", "")]

    def checks(self, encounter: Encounter, spec: ActionSpec, c: DuelStats, means: str | None, text: str,
               target: Any = None, extras: Mapping[str, Any] | None = None) -> list[Any]:  # fmt: skip
        if spec.key == "strike" and target is not None:
            return [
                Check("Target is up", not target.down, f"{target.name} is down"),
                Check("Within 5 ft", in_reach(encounter, c, target), f"{target.name} is out of reach: move closer"),
            ]
        return said_checks(spec, text)

    def notes(self, encounter: Encounter, spec: ActionSpec, c: DuelStats, means: str | None, target: Any,
              extras: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:  # fmt: skip
        if spec.key != "strike" or target is None:
            return []
        least = encounter.options.minimum_damage
        low, high = strike_damage(1, target.defense, least), strike_damage(c.damage_die, target.defense, least)
        return [(f"{target.name}:", f"defense {target.defense}, so {low} to {high} damage; {target.hp} HP left.")]

    def still_open(self, encounter: Encounter, c: Any, kind: str | None = None) -> str:
        return ""

    def opening(self, encounter: Encounter, c: Any) -> str | None:
        return None

    def result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        if isinstance(event, AreaEffectResolved):
            return area_result(event, following(after, (WentDown,)))
        return None

    def means_names(self, c: Any) -> tuple[str, ...]:
        return ()  # no weapons to name: a Strike's die is its only means

    def means(self, c: Any, name: str, spell: bool = False) -> Any:
        """A Strike's means: the striker's damage die, by its name ("d8")."""
        if spell or name != die_name(c):
            raise LookupError(f"{c.name} strikes with its {die_name(c)}, not {name!r}")
        return c.damage_die

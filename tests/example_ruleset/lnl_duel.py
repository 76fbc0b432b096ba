"""Duel: the smallest complete ruleset for Laurels & Loot Desktop (an example, and a test of the seam).

One d6 a round says which side acts first: 1-3 the Opponents, 4-6 the Party. On its turn a
combatant may move and take one action: a Strike (its damage die less the target's defense, at
least the options' minimum) or anything else, in words. At 0 HP a combatant is down.

Everything else, turns, movement, the map, the log, undo, files and the recovery journal, is the
engine's. This module imports only the rules core, never Qt, and no file of ``lnl_desktop``
names it: the ``lnl_desktop.rulesets`` entry point in ``pyproject.toml`` is how it is found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.actions import NextRound, OtherAction, StartCombat
from lnl_desktop.core.encounter.events import Event, RulesEvent, WentDown
from lnl_desktop.core.encounter.model import CombatantBase, Encounter, OptionsBase, Side
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.base import (
    ActionSpec,
    Column,
    Gauge,
    Handler,
    Ruleset,
    SheetRow,
    SheetSpec,
    Situation,
    StartProcedure,
)
from lnl_desktop.core.rules.common import Check, Opening, RoundOrder

if TYPE_CHECKING:
    from lnl_desktop.core.engine.engine import Engine

# -- the stat block and the options ------------------------------------------------------------


class DuelStats(CombatantBase):
    """A duellist: HP, a damage die and a defense, on top of the shared fields (name, side, Move...)."""

    hp: int = Field(ge=0, le=999, description="current HP")
    hp_max: int = Field(ge=1, le=999)
    damage_die: Literal[4, 6, 8, 10, 12] = Field(default=6, description="sides of the die a Strike rolls")
    defense: int = Field(default=0, ge=0, le=20, description="taken off every Strike this combatant takes")

    @model_validator(mode="before")
    @classmethod
    def _fresh(cls, data: Any) -> Any:
        # A new combatant starts unhurt.
        if isinstance(data, dict) and "hp" not in data and "hp_max" in data:
            data = {**data, "hp": data["hp_max"]}
        return data

    @model_validator(mode="after")
    def _within_max(self) -> DuelStats:
        if self.hp > self.hp_max:
            raise ValueError(f"hp: {self.hp} HP is above the maximum of {self.hp_max}")
        return self

    @property
    def down(self) -> bool:
        return self.hp == 0


class DuelOptions(OptionsBase):
    """Duel's one rules decision, next to the shared ones (difficult terrain)."""

    minimum_damage: int = Field(default=1, ge=0, le=5, description="a Strike never does less than this")


# -- the action and its handler ----------------------------------------------------------------


@dataclass(frozen=True)
class Strike:
    """``attacker`` strikes ``target`` with its damage die (ids, like every action)."""

    attacker: str
    target: str


def strike(engine: Engine, a: Strike, dice: DiceSource) -> list[Event]:
    """Check, roll, then write: a refused Strike changes nothing and reads no die."""
    attacker, target = engine.combatant(a.attacker), engine.combatant(a.target)
    title = f"{attacker.name} strikes {target.name}"
    checks = engine.turn_checks(attacker, needs_action=True)
    checks += [
        Check("Another combatant", attacker.id != target.id, "cannot strike itself"),
        Check("Target is up", not target.down, f"{target.name} is already down"),
    ]
    engine.require(title, checks)
    face = roll_plain(dice, attacker.damage_die, f"{attacker.name}'s d{attacker.damage_die}").face
    damage = max(engine.encounter.options.minimum_damage, face - target.defense)
    dealt = min(damage, target.hp)
    engine.use_action(attacker, "strike", f"on {target.name}")
    target.hp -= dealt
    rnd = engine.encounter.combat.round
    events: list[Event] = [
        RulesEvent(
            round=rnd,
            text=f"{title}: d{attacker.damage_die} {face} - defense {target.defense} = {damage}; "
            f"{target.name} has {target.hp}/{target.hp_max} HP",
            actors=(attacker.id, target.id),
            ruleset="duel",
            name="strike",
            detail={"face": face, "defense": target.defense, "damage": damage, "hp": target.hp},
        )
    ]
    if target.down:
        events.append(
            WentDown(
                round=rnd,
                text=f"{target.name} is down",
                actors=(target.id,),
                combatant=target.id,
                overkill=damage - dealt,
            )
        )
    return events


def build_strike(c: str, target: str, means: str | None = None, **toggles: bool) -> Strike:
    """The Action dock's choices as a Strike: it passes every targeted action the means (none here)
    and its GM toggles (ignore DEX, override), which a Strike has no use for."""
    return Strike(c, target)


# -- the ruleset -------------------------------------------------------------------------------

ROLL = "roll"


class DuelRuleset(Ruleset):
    name = "duel"
    title = "Duel (example)"
    source = "the example in tests/example_ruleset of the Laurels & Loot Desktop repository"
    about = "A d6 says which side acts first; a Strike rolls the striker's die less the target's defense."
    stat_block = DuelStats
    options_model = DuelOptions
    handlers: ClassVar[Mapping[type, Handler]] = {Strike: strike}

    # -- what the views show -------------------------------------------------------------------

    def sheet(self) -> SheetSpec:
        return SheetSpec(
            identity=(),
            numbers_title="Health and fighting",
            numbers=(
                SheetRow("HP (now / max)", ("hp", "hp_max"), "Hit points left, and when unhurt; at 0 HP it is down"),
                SheetRow("Damage die", ("damage_die",), "Sides of the die a Strike rolls: 4, 6, 8, 10 or 12", "sides"),
                SheetRow("Defense", ("defense",), "Taken off every Strike this combatant takes"),
            ),
            tips={"surprised": "Duel has no surprise: nobody starts surprised"},
        )

    def columns(self) -> tuple[Column, ...]:
        return (
            Column("HP", "Hit points, now / max", lambda c: f"{c.hp}/{c.hp_max}"),
            Column("Die", "The die a Strike rolls", lambda c: f"d{c.damage_die}", numeric=False),
            Column("Def", "Defense: taken off every Strike", lambda c: c.defense),
        )

    def gauges(self, c: DuelStats) -> tuple[Gauge, ...]:
        return (Gauge("HP", c.hp, c.hp_max, "health"),)

    def gauge_labels(self) -> tuple[str, ...]:
        return ("HP",)

    def new_combatant(self) -> dict[str, Any]:
        return {**super().new_combatant(), "hp_max": 6}

    def summary(self, c: DuelStats) -> str:
        parts = [c.side.value, f"HP {c.hp}/{c.hp_max}", f"d{c.damage_die}", f"defense {c.defense}"]
        return " · ".join([*parts, "down"] if c.down else parts)

    def stat_line(self, c: DuelStats) -> str:
        return f"HP {c.hp_max}  d{c.damage_die}  Def {c.defense}  Move {c.move_ft} ft"

    def action_kinds(self) -> tuple[ActionSpec, ...]:
        return (
            ActionSpec(
                "strike",
                "Strike",
                "Roll your damage die; the target's defense comes off",
                "none",
                build_strike,
                targeted=True,
                button="Strike",
                rolls=True,
            ),
            ActionSpec(
                "other",
                "Something else…",
                "Anything the GM allows, in words for the log",
                "text",
                lambda c, text: OtherAction(c, text),
            ),
        )

    def action_checks(
        self, encounter: Encounter, spec: ActionSpec, c: DuelStats, means: str | None, text: str, target: Any = None
    ) -> list[Check]:
        if spec.key == "strike" and target is not None:
            return [Check("Target is up", not target.down, f"{target.name} is down")]
        return super().action_checks(encounter, spec, c, means, text, target)

    def action_notes(
        self, encounter: Encounter, spec: ActionSpec, c: DuelStats, means: str | None, target: DuelStats | None
    ) -> list[tuple[str, str]]:
        if spec.key != "strike" or target is None:
            return []
        least = encounter.options.minimum_damage
        low, high = max(least, 1 - target.defense), max(least, c.damage_die - target.defense)
        return [(f"{target.name}:", f"defense {target.defense}, so {low} to {high} damage; {target.hp} HP left.")]

    def bestiary(self) -> list[dict[str, Any]]:
        return [
            {"name": "Fencer", "hp_max": 10, "damage_die": 8, "defense": 2},
            {"name": "Brute", "hp_max": 16, "damage_die": 10, "defense": 0, "move_ft": 25},
        ]

    # -- the round -----------------------------------------------------------------------------

    def start_procedure(self) -> StartProcedure:
        return StartProcedure(
            question="Who strikes first?",
            situations=(Situation(ROLL, "Roll a d6", "1-3: the Opponents act first; 4-6: the Party"),),
            die_label="initiative",
            reading=lambda situation, face: self.initiative(face).acts_first,
            by_hand_surprise=False,
        )

    def initiative(self, face: int) -> Side:
        if not 1 <= face <= 6:
            raise IllegalAction("Initiative", [f"{face} is not a face of a d6 (1 to 6)"])
        return Side.OPPONENTS if face <= 3 else Side.PARTY

    def open_combat(self, engine: Engine, a: StartCombat, dice: DiceSource) -> Opening:
        if a.situation != ROLL:
            raise IllegalAction("Start combat", [f"{a.situation!r} is not a situation of {self.title} ({ROLL})"])
        face = a.face if a.face is not None else roll_plain(dice, 6, "initiative").face
        first = self.initiative(face)
        return Opening(ROLL, first, None, f"Round 1: d6 {face}, {first.acts_first}", face=face)

    def round_order(self, engine: Engine, a: NextRound, dice: DiceSource) -> RoundOrder:
        face = a.face if a.face is not None else roll_plain(dice, 6, "initiative").face
        first = self.initiative(face)
        return RoundOrder(first, face, f"d6 {face}, {first.acts_first}")

    # -- converting an encounter of another ruleset --------------------------------------------

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        kept, notes = super().convert(data, source)  # the shared fields, and a note of what was dropped
        hp = int(data.get("stamina_max", 0)) + int(data.get("injury_max", 0)) or 10
        kept["hp_max"] = hp
        notes.append(f"{data.get('name', '?')}: {hp} HP (its SP + IP, or 10)")
        return kept, notes


DUEL = DuelRuleset()

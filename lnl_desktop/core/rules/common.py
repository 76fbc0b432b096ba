"""Value types every ruleset speaks: checks with reasons, surprise outcomes, attack outcomes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from lnl_desktop.core.dice.rolls import DieFace
from lnl_desktop.core.encounter.events import PrecisionCheck
from lnl_desktop.core.encounter.model import Encounter, Pending, Side, TurnSlot
from lnl_desktop.core.errors import IllegalAction

# What an attack is made with: a ruleset's weapon or spell (a type of the ruleset's own).
AttackMeans = Any


class AttackMode(StrEnum):
    ATTACK = "attack"
    POWER = "power attack"
    SNEAK = "sneak attack"
    SNEAK_POWER = "sneak power attack"  # a sneak attack that is also a Power Attack, where the ruleset allows it
    SPELL = "spell"


SNEAK_MODES = frozenset({AttackMode.SNEAK, AttackMode.SNEAK_POWER})
POWER_MODES = frozenset({AttackMode.POWER, AttackMode.SNEAK_POWER})


@dataclass(frozen=True)
class Check:
    """One condition of an action: what it is, whether it holds, and the reason in words."""

    label: str
    ok: bool
    reason: str = ""
    # A check that does not apply in this situation (shown greyed, never blocks).
    applies: bool = True

    @property
    def blocks(self) -> bool:
        return self.applies and not self.ok


@dataclass(frozen=True)
class CheckSection:
    """A heading of checks an attack mode brings beside the attack's own (a sneak attack's points), each
    shown with its reason, and under a check the ways it may be satisfied (``details`` by the check's label)."""

    head: str
    checks: tuple[Check, ...]
    details: Mapping[str, tuple[Check, ...]] = field(default_factory=dict)


def failed(checks: list[Check]) -> list[str]:
    """The reasons of the checks that block, for an :class:`IllegalAction`."""
    return [f"{c.label}: {c.reason}" if c.reason else c.label for c in checks if c.blocks]


def pending_item(encounter: Encounter, index: int, kind: str, title: str) -> Pending:
    """The queued item ``index`` of ``combat.pending`` if it is a ``kind``; refused otherwise (it was
    rolled or skipped already, or the queue moved)."""
    pending = encounter.combat.pending
    if not 0 <= index < len(pending) or pending[index].kind != kind:
        raise IllegalAction(title, [f"no {kind} is waiting there"])
    return pending[index]


@dataclass(frozen=True)
class Opening:
    """How a ruleset reads the start of combat: the first round, who acts first, who is surprised."""

    situation: str
    first_side: Side
    surprised_side: Side | None
    text: str  # the log line: the situation, the dice and what they mean
    face: int | None = None  # the die read for it (None when the GM set it by hand)
    first_round: int = 1  # 0 for a surprise round before round 1
    initiative_face: int | None = None  # the die that set the round's order, when it is another one
    order: tuple[TurnSlot, ...] = ()  # the round's turn order, where the ruleset sets one
    surprised: frozenset[str] = frozenset()  # combatants surprised one by one (not a whole side)


@dataclass(frozen=True)
class RoundOrder:
    """A new round's initiative: who acts first, the die, and the log line."""

    first_side: Side
    face: int | None
    text: str
    order: tuple[TurnSlot, ...] = ()  # the round's turn order, where the ruleset sets one


@dataclass(frozen=True)
class SurpriseOutcome:
    first_side: Side
    surprised_side: Side | None
    text: str


@dataclass
class Application:
    """Where an amount of damage goes on a target, computed without changing it."""

    to_sp: int = 0
    to_ip: int = 0
    overkill: int = 0
    stopped: int = 0
    parried_with: str | None = None
    shield_damage: int = 0
    shield_destroyed: bool = False
    parry_weapon_shattered: str | None = None
    parry_explosions: int | None = None  # new count against a parrying weapon, if it holds
    parry_ends: bool = False
    stamina_after: int = 0
    injury_after: int = 0
    shield_durability_after: int | None = None


@dataclass
class AttackOutcome:
    """Everything an attack rolled and computed; the engine writes it into the encounter."""

    means: str
    mode: AttackMode
    attack_kind: str
    die: str
    dice_count: int  # base dice (N, or 2N for a Power Attack)
    faces: list[DieFace]
    magic_bonus: int
    magic_term: int
    ability: str | None
    ability_term: int
    dex_term: int
    dex_ignored: bool
    ap_term: int
    ap_ignored: bool
    raw: int
    damage: int
    direct: bool
    application: Application
    precision: PrecisionCheck | None = None
    exertion_face: int | None = None
    exertion_cost: int = 0
    breaks_weapon: bool = False
    overrides: list[str] = field(default_factory=list)

    @property
    def dice_total(self) -> int:
        return sum(f.face for f in self.faces)

    @property
    def explosions(self) -> int:
        """How many dice showed their maximum (each counts against a parrying weapon)."""
        return sum(1 for f in self.faces if f.exploded)

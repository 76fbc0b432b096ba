"""The Laurels & Loot ruleset (RULES.md sections 1-9), the program's default.

The checks and the damage are pure functions of the encounter and the dice: nothing there
changes a combatant. The engine asks, then writes what it is told (through :mod:`.play`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.model import Encounter, Side, SurpriseSituation
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.sight import reach_blocker
from lnl_desktop.core.rules.common import (
    SurpriseOutcome,
)
from lnl_desktop.core.rules.lnl.model import (
    Ability,
)

if TYPE_CHECKING:
    pass

RANGED_MINIMUM_FT = 10
MELEE_ENGAGED_FT = 5
# A target's condition (the GM's words): an invisible attacker is not concealed from it (RULES §7).
SEES_INVISIBLE = "sees invisible"

PTY, OPP = Side.PARTY, Side.OPPONENTS

# RULES §2: the first round's d6, read by situation. (first side, surprised side, words)
_SURPRISE: dict[SurpriseSituation, dict[int, tuple[Side, Side | None, str]]] = {
    SurpriseSituation.NOBODY: {
        1: (OPP, PTY, "Party surprised: Opponents act first"),
        2: (OPP, None, "Opponents act first"),
        3: (OPP, None, "Opponents act first"),
        4: (PTY, None, "Party acts first"),
        5: (PTY, None, "Party acts first"),
        6: (PTY, OPP, "Opponents surprised: Party acts first"),
    },
    SurpriseSituation.OPPONENTS_AMBUSH: {
        1: (OPP, PTY, "Ambush succeeds, Party surprised: Opponents act first"),
        2: (OPP, PTY, "Ambush succeeds, Party surprised: Opponents act first"),
        3: (OPP, None, "Opponents act first, no surprise"),
        4: (PTY, None, "Ambush detected: Party acts first"),
        5: (PTY, None, "Party acts first"),
        6: (PTY, None, "Party acts first"),
    },
    SurpriseSituation.PARTY_AMBUSH: {
        1: (OPP, None, "Ambush detected: Opponents act first"),
        2: (OPP, None, "Opponents act first"),
        3: (OPP, None, "Opponents act first"),
        4: (PTY, None, "Party acts first, no surprise"),
        5: (PTY, OPP, "Ambush succeeds, Opponents surprised: Party acts first"),
        6: (PTY, OPP, "Ambush succeeds, Opponents surprised: Party acts first"),
    },
}


def dice_count(level: int) -> int:
    """The Damage Level Multiplier: 1 die at levels 1-2, +1 at every odd level."""
    return (level + 1) // 2


def exertion_cost(face: int, specialized: bool) -> int:
    """A d4 of SP; Weapon Specialization halves it, rounding up."""
    return math.ceil(face / 2) if specialized else face


def reverse_ambush_outcome(first_side: Side, surprised_side: Side | None) -> SurpriseOutcome:
    """A reverse ambush: the GM sets the outcome by hand."""
    if surprised_side is first_side:
        raise IllegalAction("Reverse ambush", ["the side that acts first cannot be the surprised one"])
    words = first_side.acts_first
    if surprised_side is not None:
        words = f"{surprised_side.value} surprised: {words}"
    return SurpriseOutcome(first_side, surprised_side, f"Reverse ambush (GM): {words}")


def wall_between(encounter: Encounter, a: Any, b: Any, reach_ft: float) -> str | None:
    """The wall, wall segment or closed door that bars a melee blow from ``a`` to ``b`` within
    ``reach_ft`` (:func:`sight.reach_blocker`), or None (also when either is not on the map)."""
    ta, tb = encounter.tokens.get(a.id), encounter.tokens.get(b.id)
    if ta is None or tb is None:
        return None
    return reach_blocker(encounter.map, ta.cell, a.size, tb.cell, b.size, reach_ft)


def _feet(value: float) -> str:
    return f"{value:g} ft"


@dataclass(frozen=True)
class DamagePlan:
    """The terms of one attack's damage before the dice: what resolve_attack rolls and the forecast weighs."""

    base: int  # dice rolled (N, or 2N for a Power Attack)
    die: str
    sides: int
    magic_bonus: int
    magic_term: int
    ability: Ability | None
    ability_term: int
    dex_term: int
    dex_ignored: bool
    ap: int  # the target's AP
    ap_ignored: bool  # armour never counts (a spell that ignores it)
    direct: bool
    precision: tuple[int, int] | None  # (bonus, DC) of a d20 check that ignores AP on success
    exertion: bool  # the attacker rolls a d4 of exertion
    attack_kind: str


def damage_after(rolled: int, plan: DamagePlan, ap_term: int, minimum: int) -> tuple[int, int]:
    """RULES §5 after the dice: the rolled total, the magic and ability terms, less the target's DEX
    and ``ap_term`` (its AP, or 0 when ignored); the raw result and the damage, raised to ``minimum``."""
    raw = rolled + plan.magic_term + plan.ability_term - plan.dex_term - ap_term
    return raw, max(minimum, raw)


SITUATION_TIPS = {
    SurpriseSituation.NOBODY: "Nobody set an ambush: the d6 reads the surprise table's first row",
    SurpriseSituation.OPPONENTS_AMBUSH: "The Opponents lie in wait for the Party",
    SurpriseSituation.PARTY_AMBUSH: "The Party lies in wait for the Opponents",
    SurpriseSituation.REVERSE: "The ambushers are ambushed themselves: the GM sets the outcome by hand, no die",
}

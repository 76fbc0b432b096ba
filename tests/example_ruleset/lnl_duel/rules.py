"""Duel's arithmetic, nothing else: who a d6 puts first, what a Strike and an area effect do, reach."""

from __future__ import annotations

from lnl_desktop.core.encounter.events import Event, WentDown
from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.fight import MELEE_FT
from lnl_duel.model import DuelStats


def initiative(face: int) -> Side:
    """The side a d6 puts first: 1-3 the Opponents, 4-6 the Party."""
    if not 1 <= face <= 6:
        raise IllegalAction("Initiative", [f"{face} is not a face of a d6 (1 to 6)"])
    return Side.OPPONENTS if face <= 3 else Side.PARTY


def strike_damage(face: int, defense: int, least: int) -> int:
    """A Strike's damage: the face less the target's defense, never below the options' minimum."""
    return max(least, face - defense)


def area_damage(total: int, defense: int) -> int:
    """An area effect's damage to one target: the roll less its defense, never below 0."""
    return max(0, total - defense)


def in_reach(encounter: Encounter, a: DuelStats, b: DuelStats) -> bool:
    """Whether ``b`` stands within a Strike's 5 ft of ``a`` (off the map: the GM's word, so yes)."""
    feet = encounter.distance_between(a, b)
    return feet is None or feet <= MELEE_FT


def land(t: DuelStats, damage: int) -> int:
    """Take ``damage`` off ``t``'s HP (not below 0); what came off."""
    dealt = min(damage, t.hp)
    t.hp -= dealt
    return dealt


def went_down(rnd: int, t: DuelStats, overkill: int) -> list[Event]:
    """The line that says ``t`` is down, once its HP reach 0."""
    if not t.down:
        return []
    return [WentDown(round=rnd, text=f"{t.name} is down", actors=(t.id,), combatant=t.id, overkill=overkill)]


def die_name(c: DuelStats) -> str:
    """A Strike's means in the Action dock: the striker's damage die ("d8")."""
    return f"d{c.damage_die}"

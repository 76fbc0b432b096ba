"""Melee engagement, shared by the rulesets that punish leaving it (RULES §12 counter-attacks,
§13 free attacks): who has a mover within reach along a path, and who may still strike.

A step of a path *provokes* when it leaves a cell from which the mover is within an enemy's melee
reach; each enemy is named once per path, at the first step that provokes it. The map marks the
same steps while a token is dragged (:meth:`Ruleset.provocations`) that the ruleset queues after
the drop, because both come from :func:`provocations` here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lnl_desktop.core.grid import Cell, token_distance_ft
from lnl_desktop.core.model import Encounter
from lnl_desktop.core.rules.base import Provocation

# How far a combatant strikes in melee, and whether it may make a free attack on ``target`` now.
ReachOf = Callable[[Any], float]
MayStrike = Callable[[Any, Any], bool]


def within_reach(encounter: Encounter, mover: Any, cell: Cell, reach_of: ReachOf, may_strike: MayStrike) -> list[str]:
    """The enemies that have ``mover`` (standing at ``cell``) within their melee reach and may strike it."""
    grid = encounter.map
    found = []
    for other in encounter.combatants:
        if other.side is mover.side or other.id == mover.id:
            continue
        token = encounter.tokens.get(other.id)
        if token is None or not may_strike(other, mover):
            continue
        feet = token_distance_ft(cell, mover.size, token.cell, other.size, grid.diagonal, grid.feet_per_cell)
        if feet <= reach_of(other) + 1e-9:
            found.append(other.id)
    return found


def provocations(
    encounter: Encounter, mover: Any, path: list[Cell], reach_of: ReachOf, may_strike: MayStrike
) -> list[Provocation]:
    """Each step of ``path`` that leaves an enemy's reach-covered cell, with the enemies it provokes
    (each once, at its first such step). The last cell is where the move ends: it provokes nothing."""
    named: set[str] = set()
    steps = []
    for index, cell in enumerate(path[:-1]):
        if path[index + 1] == cell:
            continue
        fresh = [cid for cid in within_reach(encounter, mover, cell, reach_of, may_strike) if cid not in named]
        if fresh:
            named.update(fresh)
            steps.append(Provocation(index, cell, tuple(fresh)))
    return steps


def engaged_by(encounter: Encounter, mover: Any, reach_of: ReachOf, may_strike: MayStrike) -> list[str]:
    """The enemies a combatant is engaged with where it stands (a shot from here provokes them)."""
    token = encounter.tokens.get(mover.id)
    if token is None:
        return []
    return within_reach(encounter, mover, token.cell, reach_of, may_strike)


def free_attack_room(encounter: Encounter, attacker: Any, target: Any, per_round: int) -> bool:
    """Whether ``attacker`` may still make a free attack on ``target`` this round: once per foe,
    and against at most ``per_round`` different foes (a monster's attacks per round)."""
    made = encounter.combat.free_attacks.get(attacker.id, [])
    return target.id not in made and len(made) < per_round


def note_free_attack(encounter: Encounter, attacker: Any, target: Any) -> None:
    encounter.combat.free_attacks.setdefault(attacker.id, []).append(target.id)

"""The map's plan the fight simulator and its engine reference both move by (core.rules.fight):
who fights, on which side, who stands, and how far each must move to stand in melee reach of
each foe, worked out once from the engine's state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map.grid import token_distance_ft
from lnl_desktop.core.map.sight import sees
from lnl_desktop.core.rules.fight import MOST_FIGHTERS, OPPONENTS, PARTY, Battlefield, melee_gaps, turn_boundary
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Fights

np = lazy_module("numpy")


def simulator(ruleset: Any) -> Fights:
    """The ruleset's fight simulator; RulesError for a ruleset that has none (its ``fights`` is None)."""
    fights = ruleset.fights
    if fights is None:
        raise RulesError(f"{ruleset.title} has no fight simulator")
    return fights


def battlefield(engine: Any) -> Battlefield:
    """The plan of the fight from the engine's state: the combatants on the map, in the roster's order."""
    e = engine.encounter
    ruleset = engine.ruleset
    fighters = [c for c in e.combatants if c.id in e.tokens]
    k = len(fighters)
    if k > MOST_FIGHTERS:
        raise RulesError(
            f"{k} combatants are on the map: the fight odds are worked out for up to {MOST_FIGHTERS} (a skirmish, "
            "not a battle)"
        )
    if not any(c.side is Side.PARTY for c in fighters) or not any(c.side is not Side.PARTY for c in fighters):
        raise RulesError("the fight odds need both sides on the map")
    grid = e.map
    rule, fpc = grid.diagonal, grid.feet_per_cell
    side = np.array([PARTY if c.side is Side.PARTY else OPPONENTS for c in fighters], dtype=np.int64)
    standing = np.array([not simulator(ruleset).out(c) for c in fighters], dtype=np.bool_)
    move = np.array([float(c.move_ft) for c in fighters])
    gap = np.full((k, k), np.inf)
    dist = np.full((k, k), np.inf)
    seen = np.zeros((k, k), dtype=np.bool_)
    cells = [e.tokens[c.id].cell for c in fighters]
    for i, c in enumerate(fighters):
        # Distance and sight are mutual (RULES §4; sight.sees): each pair is worked out once.
        for j in range(i + 1, k):
            turn_boundary()  # the GM acting: wait (a worker of the window's); a pair's sight is milliseconds
            f = fighters[j]
            dist[i, j] = dist[j, i] = token_distance_ft(cells[i], c.size, cells[j], f.size, rule, fpc)
            seen[i, j] = seen[j, i] = sees(grid, cells[i], c.size, cells[j], f.size)
        foes = [j for j in range(k) if side[j] != side[i]]
        gap[i, foes] = melee_gaps(engine, c.id, [fighters[j] for j in foes])
    return Battlefield(
        ids=tuple(c.id for c in fighters),
        names=tuple(c.name for c in fighters),
        side=side,
        standing=standing,
        gap_ft=gap,
        dist_ft=dist,
        sees=seen,
        move_ft=move,
    )

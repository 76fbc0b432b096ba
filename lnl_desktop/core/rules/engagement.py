"""Melee engagement, shared by the rulesets that punish leaving it (RULES §12 counter-attacks,
§13 free attacks): who has a mover within reach along a path, and who may still strike.

A step of a path *provokes* when it leaves a cell from which the mover is within an enemy's melee
reach (with no wall, wall segment or closed door between them: :func:`sight.reach_blocker`); each
enemy is named once per path, at the first step that provokes it. The map marks the
same steps while a token is dragged (``ruleset.movement.provocations``) that the ruleset queues after
the drop, because both come from :func:`provocations` here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lnl_desktop.core.encounter.events import Event, Override, RulesEvent
from lnl_desktop.core.encounter.model import Encounter, Pending
from lnl_desktop.core.map.grid import Cell, token_distance_ft
from lnl_desktop.core.map.sight import reach_blocker
from lnl_desktop.core.rules.specs import Provocation

# How far a combatant strikes in melee, and whether it may make a free attack on ``target`` now.
ReachOf = Callable[[Any], float]
MayStrike = Callable[[Any, Any], bool]


def _strikers(encounter: Encounter, mover: Any, reach_of: ReachOf, may_strike: MayStrike) -> list[tuple[Any, ...]]:
    """(id, anchor, size, reach) of every enemy on the map that may strike the mover: asked once per path."""
    found = []
    for other in encounter.combatants:
        if other.side is mover.side or other.id == mover.id:
            continue
        token = encounter.tokens.get(other.id)
        if token is not None and may_strike(other, mover):
            found.append((other.id, token.cell, other.size, reach_of(other)))
    return found


def _in_reach(encounter: Encounter, mover: Any, cell: Cell, striker: tuple[Any, ...]) -> bool:
    grid = encounter.map
    return _reaches(cell, mover.size, striker, grid.feet_per_cell, grid.diagonal, grid)


def _reaches(
    cell: Cell, mover_size: int, striker: tuple[Any, ...], feet_per_cell: int, rule: Any, grid_map: Any
) -> bool:
    _, anchor, size, reach = striker
    # The gap on either axis alone already puts it out of reach: skip the exact distance.
    gap_x = max(anchor[0] - (cell[0] + mover_size - 1), cell[0] - (anchor[0] + size - 1), 0)
    gap_y = max(anchor[1] - (cell[1] + mover_size - 1), cell[1] - (anchor[1] + size - 1), 0)
    if (gap_x if gap_x > gap_y else gap_y) * feet_per_cell > reach + 1e-9:
        return False
    if token_distance_ft(cell, mover_size, anchor, size, rule, feet_per_cell) > reach + 1e-9:
        return False
    # A blow does not reach through a wall: the striker needs a clear line within its reach.
    return reach_blocker(grid_map, anchor, size, cell, mover_size, reach) is None


def within_reach(encounter: Encounter, mover: Any, cell: Cell, reach_of: ReachOf, may_strike: MayStrike) -> list[str]:
    """The enemies that have ``mover`` (standing at ``cell``) within their melee reach and may strike it."""
    strikers = _strikers(encounter, mover, reach_of, may_strike)
    return [s[0] for s in strikers if _in_reach(encounter, mover, cell, s)]


def provocations(
    encounter: Encounter,
    mover: Any,
    path: list[Cell],
    reach_of: ReachOf,
    may_strike: MayStrike,
    leaving: bool = False,
) -> list[Provocation]:
    """Each step of ``path`` that leaves an enemy's reach-covered cell, with the enemies it provokes
    (each once, at its first such step). The last cell is where the move ends: it provokes nothing.
    ``leaving`` (Group d10, RULES §13): only a step from within the enemy's reach to a cell outside
    it provokes; stepping round a foe while staying within its reach does not."""
    left = _strikers(encounter, mover, reach_of, may_strike)
    if not left:
        return []
    grid, size = encounter.map, mover.size
    fpc, rule = grid.feet_per_cell, grid.diagonal
    # Buckets of strikers by area, wide enough that only the 3 x 3 around a cell can reach it.
    span = max(int(reach // fpc) + big for _, _, big, reach in left) + size + 1
    buckets: dict[tuple[int, int], list[tuple[Any, ...]]] = {}
    for striker in left:
        anchor = striker[1]
        buckets.setdefault((anchor[0] // span, anchor[1] // span), []).append(striker)
    named: set[str] = set()
    steps = []
    for index, cell in enumerate(path[:-1]):
        if path[index + 1] == cell:
            continue
        bx, by = cell[0] // span, cell[1] // span
        fresh = [
            striker[0]
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
            for striker in buckets.get((bx + dx, by + dy), ())
            if striker[0] not in named
            and _reaches(cell, size, striker, fpc, rule, grid)
            and not (leaving and _reaches(path[index + 1], size, striker, fpc, rule, grid))
        ]
        if fresh:
            named.update(fresh)
            order = {striker[0]: i for i, striker in enumerate(left)}
            steps.append(Provocation(index, cell, tuple(sorted(fresh, key=order.__getitem__))))
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


def queue(
    encounter: Encounter,
    mover: Any,
    strikers: list[str],
    kind: str,
    offer: Callable[[str], str],
    summary: str,
    ruleset: str,
) -> list[Event]:
    """Queue a free attack (``kind``: "counter-attack", "free attack") from each striker on ``mover``
    for the GM to roll or skip, and count it against the striker's room this round. ``offer(name)``
    words one item; ``summary`` starts the log line ("Tombril moves out of melee")."""
    combat = encounter.combat
    by_id = encounter.by_id()
    names = []
    for sid in strikers:
        striker = by_id[sid]
        note_free_attack(encounter, striker, mover)
        combat.pending.append(
            Pending(kind=kind, who=sid, target=mover.id, text=offer(striker.name), round=combat.round)
        )
        names.append(striker.name)
    if not names:
        return []
    return [
        RulesEvent(
            round=combat.round,
            text=f"{summary}: {kind} from {', '.join(names)} (queued)",
            actors=(mover.id, *strikers),
            ruleset=ruleset,
            name=f"{kind}s queued",
            detail={"mover": mover.id, "from": ", ".join(strikers)},
        )
    ]


def lapse(encounter: Encounter, kind: str, fallen: Any = None) -> list[Event]:
    """Take queued free attacks of ``kind`` off the queue: those by or against ``fallen``, who has just
    gone down, or (no ``fallen``) those left from a round before this one: they were immediate."""
    combat = encounter.combat
    if fallen is not None:
        gone = [p for p in combat.pending if p.kind == kind and fallen.id in (p.who, p.target)]
        head, actors = f"{fallen.name} is down: lapsed", (fallen.id,)
    else:
        gone = [p for p in combat.pending if p.kind == kind and p.round < combat.round]
        head, actors = "Not taken, lapsed", ()
    if not gone:
        return []
    combat.pending = [p for p in combat.pending if p not in gone]
    return [Override(round=combat.round, text=f"{head}: {'; '.join(p.text for p in gone)}", actors=actors)]

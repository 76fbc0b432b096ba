"""Movement on the map: what is left of a turn's move, what bars the way, where a token may go,
the move itself and the facing.

Module functions of the engine (a :class:`Table`): the queries the engine answers for the map
(``feet_left``, ``reach``...) and, in :data:`HANDLERS`, the move and the facing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event, Moved, Turned
from lnl_desktop.core.encounter.map_model import Token
from lnl_desktop.core.encounter.model import CombatantBase, Phase
from lnl_desktop.core.engine.occupancy import rebuilt_blockers
from lnl_desktop.core.engine.words import feet_words
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.map.grid import Cell, cell_distance_ft, direction_deg, footprint, footprint_center, snap_facing
from lnl_desktop.core.map.movement import MoveRules, Reach, cheapest_path, diagonal_steps, path_cost_ft, reachable
from lnl_desktop.core.map.terrain import map_terrain
from lnl_desktop.core.rules.base import Table


def token_of(engine: Table, cid: str) -> Token:
    """``cid``'s token; RulesError when it is off the map."""
    token = engine.encounter.tokens.get(cid)
    if token is None:
        raise RulesError(f"{engine.combatant(cid).name} is not on the map")
    return token


# -- what is left, what bars the way ----------------------------------------------------------


def feet_left(engine: Table, cid: str) -> float | None:
    """Movement left this turn, or None when it is not this combatant's turn."""
    turn = engine.encounter.combat.turn
    if turn is None or turn.combatant != cid:
        return None
    return allowance(engine, engine.combatant(cid)) - turn.feet_used


def allowance(engine: Table, c: Any) -> float:
    """How far ``c`` may move this turn in all: none while a condition holds it or takes its turn."""
    if c.incapacitated_by is not None or c.held_by is not None:
        return 0.0
    return engine.ruleset.movement.allowance(engine, c)


def stopped_by(engine: Table, c: Any) -> str | None:
    """Why ``c`` may not move on its own (RULES §10: stunned, grappled...), or None."""
    word = c.incapacitated_by
    if word is not None:
        return f"{c.name} is {word}: no action and no move, only End turn"
    word = c.held_by
    if word is not None:
        return f"{c.name} is {word}: Move 0"
    return engine.ruleset.movement.refusal(engine, c)


def move_rules(engine: Table, cid: str) -> MoveRules:
    grid, options = engine.encounter.map, engine.encounter.options
    leaping = engine.ruleset.movement.terrain_free(engine, cid)
    return MoveRules(
        rule=grid.diagonal,
        feet_per_cell=grid.feet_per_cell,
        difficult_multiplier=options.difficult_multiplier,
        ignore_difficult=leaping,
        pass_over_walls=leaping,
    )


def blockers(engine: Table, cid: str) -> tuple[frozenset[Cell], frozenset[Cell]]:
    """(enemy cells that cannot be passed, every other token's cells that cannot be ended on).

    An enemy is a token of another side that is not down: a creature that is down no longer bars
    the way, though nobody may stand on it. Read from the engine's occupancy index where it has one."""
    mover = engine.combatant(cid)
    kept = getattr(engine, "occupancy", None)
    index = kept() if kept is not None else None
    if index is None:
        return rebuilt_blockers(engine.encounter, cid)
    return index.blockers(cid, mover.side)


def reach(
    engine: Table, cid: str, budget_ft: float | None = None, allowed: Callable[[Cell], bool] | None = None
) -> Reach:
    """The cells ``cid`` can still move to this turn (or within ``budget_ft``)."""
    token = token_of(engine, cid)
    turn = engine.encounter.combat.turn
    if budget_ft is None:
        left = feet_left(engine, cid)
        budget_ft = left if left is not None else float(engine.combatant(cid).move_ft)
    diagonals = turn.diagonals if turn and turn.combatant == cid else 0
    enemies, occupied = blockers(engine, cid)
    return reachable(
        map_terrain(engine.encounter.map),
        token.cell,
        engine.combatant(cid).size,
        budget_ft,
        move_rules(engine, cid),
        enemies=enemies,
        occupied=occupied,
        allowed=allowed,
        diagonals_before=diagonals,
    )


# -- movement ----------------------------------------------------------------------------


def _move(engine: Table, a: act.Move, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    c = engine.combatant(a.combatant)
    token = token_of(engine, c.id)
    title = f"{'Forced move' if a.forced else 'Move'} of {c.name}"
    combat = e.combat
    turn = combat.turn
    in_turn = turn is not None and turn.combatant == c.id
    free = a.forced or combat.phase is not Phase.FIGHTING
    if not free and not in_turn:
        who = "no turn is under way" if turn is None else f"it is {engine.combatant(turn.combatant).name}'s turn"
        raise IllegalAction(title, [f"{who}; a forced move moves {c.name} without spending movement"])
    if not free and c.down:
        raise IllegalAction(title, [f"{c.name} is down"])
    stopped = None if free else stopped_by(engine, c)
    if stopped is not None:
        raise IllegalAction(title, [f"{stopped}; a forced move moves {c.name} without spending movement"])

    enemies, occupied = blockers(engine, c.id)
    rules = move_rules(engine, c.id)
    terrain = map_terrain(e.map)
    diagonals = turn.diagonals if in_turn and turn else 0
    if free:
        path = list(a.path) if a.path else [token.cell, a.to] if a.to is not None else None
        if path is None:
            raise IllegalAction(title, ["no destination given"])
        if path[0] != token.cell:
            path.insert(0, token.cell)
        end = path[-1]
        problems = end_cell_problems(engine, c, end, occupied)
        if problems:
            raise IllegalAction(title, problems)
        feet = cell_distance_ft(path[0], end, e.map.diagonal, e.map.feet_per_cell)
    else:
        assert turn is not None
        left = allowance(engine, c) - turn.feet_used
        if a.path:
            path = list(a.path)
            if path[0] != token.cell:
                path.insert(0, token.cell)
            try:
                feet = path_cost_ft(
                    terrain, path, c.size, rules, enemies=enemies, occupied=occupied, diagonals_before=diagonals
                )
            except ValueError as error:
                raise IllegalAction(title, [str(error)]) from None
        elif a.to is not None:
            problems = end_cell_problems(engine, c, a.to, occupied)
            if problems:
                raise IllegalAction(title, problems)
            found = cheapest_path(
                terrain,
                token.cell,
                a.to,
                c.size,
                max(left, 0),
                rules,
                enemies=enemies,
                occupied=occupied,
                diagonals_before=diagonals,
            )
            if found is None:
                # Out of reach: search without a budget only to say how far it really is.
                far = cheapest_path(
                    terrain,
                    token.cell,
                    a.to,
                    c.size,
                    float("inf"),
                    rules,
                    enemies=enemies,
                    occupied=occupied,
                    diagonals_before=diagonals,
                )
                if far is None:
                    raise IllegalAction(title, [f"no way through to {a.to}: walls or enemies bar every path"])
                found = far
            path, feet = found
        else:
            raise IllegalAction(title, ["no destination given"])
        if feet > left + 1e-9:
            raise IllegalAction(
                title, [f"needs {feet_words(feet)} but {c.name} has {feet_words(max(left, 0))} of movement left"]
            )
        if turn.action is None:
            turn.feet_before += feet
        else:
            turn.feet_after += feet
        turn.diagonals += diagonal_steps(path)
        turn.path.extend(path[1:])
    if len(path) < 2 or path[-1] == path[0]:
        raise IllegalAction(title, [f"{c.name} is already there"])
    token.cell = path[-1]
    left_after = feet_left(engine, c.id) if in_turn and not a.forced else None
    what = "is forced" if a.forced else "moves"
    tail = f", {feet_words(left_after)} left" if left_after is not None else ""
    cost = "free" if free else feet_words(feet)
    moved: list[Event] = [
        Moved(
            round=combat.round,
            text=f"{c.name} {what} from {path[0]} to {path[-1]} ({cost}{tail})",
            actors=(c.id,),
            combatant=c.id,
            path=path,
            feet=0 if free else feet,
            forced=a.forced,
            feet_left=left_after,
        )
    ]
    # Counter-attacks and free attacks are judged on the path as it was walked.
    return moved + engine.ruleset.movement.after_move(engine, c, path, a.forced or combat.phase is not Phase.FIGHTING)


def end_cell_problems(engine: Table, c: CombatantBase, anchor: Cell, occupied: frozenset[Cell]) -> list[str]:
    grid = engine.encounter.map
    problems: list[str] = []
    for cell in footprint(anchor, c.size):
        x, y = cell
        if not (0 <= x < grid.width and 0 <= y < grid.height):
            problems.append(f"{cell} is off the map")
        elif cell in grid.walls:
            problems.append(f"{cell} is a wall")
        elif cell in occupied:
            other = engine.encounter.occupied_by(exclude=c.id)[cell]
            problems.append(f"{cell} is taken by {engine.combatant(other).name}")
    return problems[:1]


def _face(engine: Table, a: act.Face, dice: DiceSource) -> list[Event]:
    c = engine.combatant(a.combatant)
    token = token_of(engine, c.id)
    new = a.facing % 360
    old = token.facing
    if new == old:
        raise IllegalAction(f"Turn {c.name}", [f"already faces {old} degrees"])
    token.facing = new
    return [
        Turned(
            round=engine.encounter.combat.round,
            text=f"{c.name} turns to face {new} degrees",
            actors=(c.id,),
            combatant=c.id,
            old_facing=old,
            new_facing=new,
        )
    ]


def face_target(engine: Table, events: list[Event], attacker: str, target: str) -> list[Event]:
    """The attacker turns to face its target (part of the attack's undo step), in the 45 degree
    steps the map turns a token by. The line goes after the attack's own line: the undo text
    reads the first event and the status bar the last."""
    e = engine.encounter
    token, aimed = e.tokens.get(attacker), e.tokens.get(target)
    if token is None or aimed is None or attacker == target:
        return events  # off the map: no facing to turn
    c, t = e.combatant(attacker), e.combatant(target)
    me, there = footprint_center(token.cell, c.size), footprint_center(aimed.cell, t.size)
    if me == there:
        return events
    new = snap_facing(direction_deg(me, there), 45)
    old = token.facing
    if new == old:
        return events
    token.facing = new
    turned = Turned(
        round=e.combat.round,
        text=f"{c.name} turns to face {t.name}",
        actors=(c.id,),
        combatant=c.id,
        old_facing=old,
        new_facing=new,
    )
    at = next((i + 1 for i, event in enumerate(events) if attacker in event.actors), min(1, len(events)))
    return [*events[:at], turned, *events[at:]]


HANDLERS: dict[type, Callable[[Table, Any, DiceSource], list[Event]]] = {act.Move: _move, act.Face: _face}
# Where each handler may write (history.Writes): a move its token, its combatant and the combat state
# (the turn's feet and path, counter-attacks queued by the ruleset); a turn its token.
WRITES: dict[type, Callable[[Any], frozenset[tuple[str, ...]]]] = {
    act.Move: lambda a: frozenset({("tokens", a.combatant), ("combatants", a.combatant), ("combat",)}),
    act.Face: lambda a: frozenset({("tokens", a.combatant)}),
}

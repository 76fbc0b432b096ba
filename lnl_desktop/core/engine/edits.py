"""The roster and map edits: combatants added, edited, removed; damage and health set by hand;
tokens placed and taken off; terrain, the map, walls, doors, the fog of war, portraits, options.

Module functions of the engine (a :class:`Table`); :data:`HANDLERS` maps each action to its handler.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import (
    CellsRevealed,
    CombatantAdded,
    CombatantChanged,
    CombatantRemoved,
    DoorChanged,
    Event,
    FogChanged,
    MapChanged,
    Override,
    PortraitChanged,
    RulesEvent,
    TerrainChanged,
    TokenPlaced,
    TokenRemoved,
    VisibilityChanged,
    WallAdded,
    WallRemoved,
    WentDown,
)
from lnl_desktop.core.encounter.map_model import Door, Token, WallSegment
from lnl_desktop.core.encounter.model import MAX_PORTRAIT_CHARS, Encounter
from lnl_desktop.core.encounter.validation import explain
from lnl_desktop.core.engine.lights import map_lights
from lnl_desktop.core.engine.movement import blockers, end_cell_problems, token_of
from lnl_desktop.core.engine.party import roster_version_problem
from lnl_desktop.core.engine.words import describe_change, describe_map_change, describe_option, describe_value
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.terrain import map_terrain, point_words
from lnl_desktop.core.rules.base import Ruleset, Table


def _round(engine: Table) -> int:
    return engine.encounter.combat.round


# -- editing -----------------------------------------------------------------------------


def health_edit(ruleset: Ruleset, c: Any, field: str, value: Any) -> act.Action:
    """The action a change typed into one field of ``c`` is, decided here once (the sheet sends it, the
    engine routes an edit through it): a value the rules watch (``ruleset.health.fields()``) never
    changes without them, so the difference is damage or healing (:class:`SetHealth`); anything else
    is a bare edit."""
    if field in ruleset.health.fields():
        return act.SetHealth(c.id, field, value)
    return act.EditCombatant(c.id, {field: value})


def _edit(engine: Table, a: act.EditCombatant, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    old = engine.combatant(a.combatant)
    if not a.changes:
        raise IllegalAction(f"Edit {old.name}", ["nothing to change"])
    if "id" in a.changes and a.changes["id"] != old.id:
        raise IllegalAction(f"Edit {old.name}", ["id: a combatant's id does not change"])
    if len(a.changes) == 1:
        routed = health_edit(engine.ruleset, old, *next(iter(a.changes.items())))
        if isinstance(routed, act.SetHealth):
            return _set_health(engine, routed, dice)
    data = old.model_dump()
    data.update(a.changes)
    try:
        new = type(old).model_validate(data)
    except ValidationError as error:
        raise RulesError(f"{old.name}: {explain(error)}", explain(error).split("\n")) from None
    index = e.combatants.index(old)
    e.combatants[index] = new
    if new.size != old.size:
        # The id cannot change, so the size is all an edit can break (a bigger token may not fit);
        # the whole check costs a search of the combatants per token, too much for every edit.
        _check_encounter(engine, f"Edit {old.name}")
    events: list[Event] = []
    before, after = old.model_dump(mode="json"), new.model_dump(mode="json")
    for key in a.changes:
        if before.get(key) != after.get(key):
            events.append(
                CombatantChanged(
                    round=engine.encounter.combat.round,
                    text=f"{new.name}: {describe_change(key, before.get(key), after.get(key))}",
                    actors=(new.id,),
                    combatant=new.id,
                    field=key,
                    old=describe_value(before.get(key)),
                    new=describe_value(after.get(key)),
                )
            )
    if not events:
        raise IllegalAction(f"Edit {old.name}", ["the values are the same as before"])
    return events


# -- damage and healing by hand (RULES §10) --------------------------------------------------


def _by_hand(engine: Table, a: act.DamageByHand, dice: DiceSource) -> list[Event]:
    c = engine.combatant(a.combatant)
    title = f"{'Heal' if a.heal else 'Damage'} {c.name}"
    amount = a.amount
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise IllegalAction(title, ["the amount is a whole number, such as 7"])
    if amount < 0:
        raise IllegalAction(
            title,
            [f"the amount is {amount}: type a number above 0 ({'damage' if a.heal else 'heal'} to go the other way)"],
        )
    if amount == 0:
        raise IllegalAction(title, ["the amount is 0: nothing to apply"])
    if amount > 10_000:
        raise IllegalAction(title, [f"{amount} is more than the 10000 a sheet can hold"])
    reason = " ".join(a.reason.split())
    if len(reason) > 200:
        raise IllegalAction(title, ["the reason is longer than 200 characters"])
    kinds = dict(engine.ruleset.health.kinds(a.heal))
    typed = set(engine.ruleset.health.fields().values())
    kind = a.kind or next(iter(kinds), "")
    if kind not in kinds and kind not in typed:
        offered = ", ".join(kinds.values()) or "none"
        raise IllegalAction(
            title,
            [
                f"{engine.ruleset.title} has no such kind of {'healing' if a.heal else 'damage'}: "
                f"{kind!r} (it has: {offered})"
            ],
        )
    return _hand_events(
        engine, c, amount, a.heal, kind, reason, engine.ruleset.health.by_hand(engine, c, amount, a.heal, kind)
    )


def _hand_events(
    engine: Table, c: Any, amount: int, heal: bool, kind: str, reason: str, events: list[Event]
) -> list[Event]:
    """Everything the rules did, said in one line of the log with the GM's reason."""
    actors: list[str] = [c.id]
    for event in events:
        actors += [x for x in event.actors if x not in actors]
    overkill = next((e.overkill for e in events if isinstance(e, WentDown)), 0)
    why = f" ({reason})" if reason else ""
    text = f"By hand{why}: " + "; ".join(e.text for e in events)
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": c.id,
        "amount": amount,
        "heal": heal,
        "damage_kind": kind,
        "reason": reason,
        "overkill": overkill,
        "down": bool(c.down),
    }
    return [
        RulesEvent(
            round=_round(engine),
            text=text,
            actors=tuple(actors),
            ruleset=engine.ruleset.name,
            name="by hand",
            detail=detail,
        )
    ]


def health_label(ruleset: Ruleset, field: str) -> str:
    """A health field's word in the ruleset's own: the label of the sheet row that holds it, without
    its "(now / max)"; the field's name for one the sheet does not show."""
    sheet = ruleset.views.sheet()
    for row in (*sheet.numbers, *sheet.identity):
        if field in row.keys:
            return row.label.split(" (")[0]
    return field.replace("_", " ")


def _set_health(engine: Table, a: act.SetHealth, dice: DiceSource) -> list[Event]:
    c = engine.combatant(a.combatant)
    fields = engine.ruleset.health.fields()
    if a.field not in fields:
        raise IllegalAction(f"Edit {c.name}", [f"{a.field} is not a value the rules watch in {engine.ruleset.title}"])
    value, now = a.value, getattr(c, a.field)
    label = health_label(engine.ruleset, a.field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalAction(f"Edit {c.name}", [f"{label}: type a whole number"])
    if value < 0:
        raise IllegalAction(f"Edit {c.name}", [f"{label}: {value} is below 0"])
    top = getattr(c, f"{a.field}_max", None)
    if top is not None and value > top:
        raise IllegalAction(f"Edit {c.name}", [f"{label}: {value} {label} is above the maximum of {top}"])
    if value == now:
        raise IllegalAction(f"Edit {c.name}", ["the values are the same as before"])
    heal = value > now
    return _by_hand(engine, act.DamageByHand(c.id, abs(value - now), heal, fields[a.field], a.reason), dice)


def _check_encounter(engine: Table, title: str) -> None:
    try:
        Encounter._references_hold(engine.encounter)
    except ValueError as error:
        raise IllegalAction(title, [str(error)]) from None


def _add(engine: Table, a: act.AddCombatant, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    if a.roster_version is not None and (why := roster_version_problem(a.roster_version)):
        raise IllegalAction("New combatant", [why])
    data = dict(a.data)
    first = None
    if isinstance(data.get("name"), str) and data["name"].strip():
        first = e.first_of_kind(data["name"].strip())
        data["name"] = e.new_name(data["name"].strip())
    if "id" not in data or any(c.id == data["id"] for c in e.combatants):
        data["id"] = e.new_id(str(data.get("name", "combatant")))
    try:
        c = engine.ruleset.stat_block.model_validate(data)
    except ValidationError as error:
        raise RulesError(f"New combatant: {explain(error)}", explain(error).split("\n")) from None
    renamed = ""
    if first is not None:
        # A second Goblin joins: the first becomes Goblin 1, in the same step (one undo for both).
        e.combatants[e.combatants.index(first)] = first.model_copy(update={"name": f"{first.name} 1"})
        renamed = f" ({first.name} is now {first.name} 1)"
    e.combatants.append(c)
    roster = ""
    if a.roster_version is not None:
        # A party roster character brought in (RULES §16): linked in the same step as it joins.
        e.party_links[c.id] = a.roster_version
        roster = " from the party roster"
    events: list[Event] = [
        CombatantAdded(
            round=_round(engine),
            text=f"{c.name} joins the {c.side.value}{roster}{renamed}",
            actors=(c.id,),
            combatant=c.id,
        )
    ]
    if a.cell is not None:
        events += _place(engine, act.PlaceToken(c.id, a.cell, a.facing), dice)
    return events


def _remove(engine: Table, a: act.RemoveCombatant, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    c = engine.combatant(a.combatant)
    turn = e.combat.turn
    if turn is not None and turn.combatant == c.id:
        raise IllegalAction(f"Remove {c.name}", [f"it is {c.name}'s turn: end it first"])
    e.combatants.remove(c)
    token = e.tokens.pop(c.id, None)
    e.party_links.pop(c.id, None)  # its link to the party roster goes with it (undo brings both back)
    if any(light.carrier == c.id for light in e.lights):
        # What it carried stays where it stood (or goes with it when it was off the map).
        e.lights = tuple(
            light.model_copy(update={"carrier": None, "cell": token.cell}) if light.carrier == c.id else light
            for light in e.lights
            if light.carrier != c.id or token is not None
        )
    e.combat.acted = [x for x in e.combat.acted if x != c.id]
    e.combat.attacks = [r for r in e.combat.attacks if c.id not in (r.attacker, r.target)]
    e.combat.ranged_hits.pop(c.id, None)
    for shooters in e.combat.ranged_hits.values():
        if c.id in shooters:
            shooters.remove(c.id)
    for slot in e.combat.order:
        if c.id in slot.members:
            slot.members.remove(c.id)
    e.combat.order = [slot for slot in e.combat.order if slot.members]
    e.combat.pending = [p for p in e.combat.pending if c.id not in (p.who, p.target)]
    e.combat.free_attacks.pop(c.id, None)
    for struck in e.combat.free_attacks.values():
        while c.id in struck:
            struck.remove(c.id)
    return [CombatantRemoved(round=_round(engine), text=f"{c.name} leaves the fight", actors=(c.id,), combatant=c.id)]


def _set_hidden(engine: Table, a: act.SetHidden, dice: DiceSource) -> list[Event]:
    c = engine.combatant(a.combatant)
    token = token_of(engine, c.id)
    if token.hidden == a.hidden:
        state = "hidden from" if a.hidden else "shown to"
        raise IllegalAction(
            f"{'Hide' if a.hidden else 'Reveal'} {c.name}", [f"{c.name} is already {state} the players"]
        )
    token.hidden = a.hidden
    return [
        VisibilityChanged(
            round=engine.encounter.combat.round,
            text=f"{c.name} is {'hidden from' if a.hidden else 'revealed to'} the players",
            actors=(c.id,),
            combatant=c.id,
            hidden=a.hidden,
        )
    ]


def _place(engine: Table, a: act.PlaceToken, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    c = engine.combatant(a.combatant)
    if c.id in e.tokens:
        raise IllegalAction(f"Place {c.name}", [f"{c.name} is already on the map"])
    _, occupied = blockers(engine, c.id)
    problems = end_cell_problems(engine, c, a.cell, occupied)
    if problems:
        raise IllegalAction(f"Place {c.name}", problems)
    e.tokens[c.id] = Token(cell=a.cell, facing=a.facing % 360)
    return [
        TokenPlaced(
            round=engine.encounter.combat.round,
            text=f"{c.name} is placed at {a.cell}",
            actors=(c.id,),
            combatant=c.id,
            cell=a.cell,
            facing=a.facing % 360,
        )
    ]


def _remove_token(engine: Table, a: act.RemoveToken, dice: DiceSource) -> list[Event]:
    c = engine.combatant(a.combatant)
    token_of(engine, c.id)
    del engine.encounter.tokens[c.id]
    return [TokenRemoved(round=_round(engine), text=f"{c.name} is taken off the map", actors=(c.id,), combatant=c.id)]


def _paint(engine: Table, a: act.PaintTerrain, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    grid = e.map
    cells = set(a.cells)
    outside = [c for c in cells if not (0 <= c[0] < grid.width and 0 <= c[1] < grid.height)]
    if outside:
        raise IllegalAction(f"Paint {a.layer}", [f"{outside[0]} is off the map"])
    layer: frozenset[Cell] = getattr(grid, a.layer)
    also = ""
    if a.on:
        if a.layer == "walls":
            taken = e.occupied_by()
            under = [c for c in cells if c in taken]
            if under:
                raise IllegalAction("Paint walls", [f"{under[0]} is taken by {engine.combatant(taken[under[0]]).name}"])
        changed = cells - layer
        new_layer = layer | changed
        if a.layer == "walls" and (cleared := grid.start_cells & changed):
            # A wall is no place to start: the party start cells it covers are cleared with it.
            _replace_map(engine, start_cells=grid.start_cells - cleared)
            also = f" ({len(cleared)} party start cell{'' if len(cleared) == 1 else 's'} cleared)"
    else:
        changed = cells & layer
        new_layer = layer - changed
    if not changed:
        raise IllegalAction(f"Paint {a.layer}", ["nothing changes"])
    _replace_map(engine, **{a.layer: frozenset(new_layer)})
    what = "wall" if a.layer == "walls" else "difficult terrain"
    verb = "added" if a.on else "removed"
    return [
        TerrainChanged(
            round=engine.encounter.combat.round,
            text=f"{len(changed)} cell(s) of {what} {verb}{also}",
            layer=a.layer,
            added=sorted(changed) if a.on else [],
            removed=[] if a.on else sorted(changed),
        )
    ]


def _edit_map(engine: Table, a: act.EditMap, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    allowed = {
        "width",
        "height",
        "feet_per_cell",
        "diagonal",
        "background",
        "walls",
        "difficult",
        "segments",
        "doors",
        "lights",
        "start_cells",
    }
    unknown = set(a.changes) - allowed
    if unknown:
        raise IllegalAction("Edit map", [f"{sorted(unknown)[0]}: not a map setting"])
    # Made ahead for this very map (the import's worker thread did it), or made now.
    new = a.ahead_of(e.map)
    if new is None:
        try:
            new = e.map.edited({k: v for k, v in a.changes.items() if k != "lights"})
        except ValidationError as error:
            raise RulesError(f"Map: {explain(error)}", explain(error).split("\n")) from None
    e.map = new
    if "lights" in a.changes:  # an imported map's own lights (RULES §15)
        map_lights(e, a.changes["lights"])
    map_terrain(new)
    _check_encounter(engine, "Edit map")
    explored = e.fog.explored
    if any(not (x < new.width and y < new.height) for x, y in explored):
        e.fog.explored = frozenset((x, y) for x, y in explored if x < new.width and y < new.height)
    changes = ", ".join(_map_change_words(k, v) for k, v in a.changes.items())
    return [MapChanged(round=_round(engine), text=f"Map: {changes}")]


def _map_change_words(key: str, value: Any) -> str:
    """A map change as the log says it; the party's start cells by their count."""
    if key == "start_cells" and isinstance(value, list | tuple | set | frozenset):
        return f"party start cells {len(value)}"
    return describe_map_change(key, value)


# -- walls, doors, fog of war and portraits ---------------------------------------------------


def _replace_map(engine: Table, **changes: Any) -> None:
    """Put a copy of the map with ``changes`` in place (the map is immutable), with its own terrain."""
    e = engine.encounter
    new = e.map.model_copy(update=changes)
    new.__dict__.pop("terrain", None)  # model_copy copies the old map's cached terrain
    map_terrain(new)
    e.map = new


def _line_ends(engine: Table, title: str, a: Any, b: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    """Both ends of a wall as points on the map, or a refusal saying what is wrong with them."""
    grid = engine.encounter.map
    ends = []
    for end in (a, b):
        try:
            x, y = end
        except (TypeError, ValueError):
            raise IllegalAction(title, [f"{end!r} is not a point (x, y)"]) from None
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in (x, y)):
            raise IllegalAction(title, [f"{end!r} is not a point (x, y)"])
        point = (float(x), float(y))
        if not (0 <= point[0] <= grid.width and 0 <= point[1] <= grid.height):
            raise IllegalAction(title, [f"{point_words(point)} is off the {grid.width} x {grid.height} map"])
        ends.append(point)
    return ends[0], ends[1]


def _find_line(engine: Table, a: tuple[float, float], b: tuple[float, float]) -> tuple[str, int] | None:
    """("segments" or "doors", index) of the wall or door with these ends either way round."""
    grid = engine.encounter.map
    for name in ("segments", "doors"):
        for index, line in enumerate(getattr(grid, name)):
            if (line.a, line.b) in ((a, b), (b, a)):
                return name, index
    return None


def _add_wall(engine: Table, a: act.AddWall, dice: DiceSource) -> list[Event]:
    title = "Draw a door" if a.door else "Draw a wall"
    p, q = _line_ends(engine, title, a.a, a.b)
    if p == q:
        raise IllegalAction(title, [f"both ends are {point_words(p)}: a wall needs two different ends"])
    found = _find_line(engine, p, q)
    if found is not None:
        what = "door" if found[0] == "doors" else "wall"
        raise IllegalAction(title, [f"there is already a {what} from {point_words(p)} to {point_words(q)}"])
    grid = engine.encounter.map
    if a.door:
        _replace_map(engine, doors=(*grid.doors, Door(a=p, b=q, open=a.open)))
        state = "open" if a.open else "closed"
        text = f"Door drawn at {point_words(p)}–{point_words(q)} ({state})"
    else:
        _replace_map(engine, segments=(*grid.segments, WallSegment(a=p, b=q)))
        text = f"Wall drawn from {point_words(p)} to {point_words(q)}"
    return [WallAdded(round=_round(engine), text=text, a=p, b=q, door=a.door, open=a.door and a.open)]


def _remove_wall(engine: Table, a: act.RemoveWall, dice: DiceSource) -> list[Event]:
    p, q = _line_ends(engine, "Remove a wall", a.a, a.b)
    found = _find_line(engine, p, q)
    if found is None:
        raise IllegalAction("Remove a wall", [f"there is no wall or door from {point_words(p)} to {point_words(q)}"])
    name, index = found
    lines = getattr(engine.encounter.map, name)
    line = lines[index]
    _replace_map(engine, **{name: lines[:index] + lines[index + 1 :]})
    door = name == "doors"
    if door:
        text = f"Door at {point_words(line.a)}–{point_words(line.b)} removed"
    else:
        text = f"Wall from {point_words(line.a)} to {point_words(line.b)} removed"
    return [WallRemoved(round=_round(engine), text=text, a=line.a, b=line.b, door=door)]


def _set_door(engine: Table, a: act.SetDoor, dice: DiceSource) -> list[Event]:
    title = "Open the door" if a.open else "Close the door"
    p, q = _line_ends(engine, title, a.a, a.b)
    found = _find_line(engine, p, q)
    if found is None:
        raise IllegalAction(title, [f"there is no door at {point_words(p)}–{point_words(q)}"])
    name, index = found
    if name != "doors":
        raise IllegalAction(title, [f"the wall from {point_words(p)} to {point_words(q)} is not a door"])
    doors = engine.encounter.map.doors
    door = doors[index]
    where = f"{point_words(door.a)}–{point_words(door.b)}"
    if door.open == a.open:
        raise IllegalAction(title, [f"the door at {where} is already {'open' if a.open else 'closed'}"])
    changed = Door(a=door.a, b=door.b, open=a.open)
    _replace_map(engine, doors=(*doors[:index], changed, *doors[index + 1 :]))
    return [
        DoorChanged(
            round=_round(engine),
            text=f"Door at {where} {'opened' if a.open else 'closed'}",
            a=door.a,
            b=door.b,
            open=a.open,
        )
    ]


def _set_fog(engine: Table, a: act.SetFog, dice: DiceSource) -> list[Event]:
    fog = engine.encounter.fog
    if fog.enabled == a.enabled:
        raise IllegalAction("Fog of war", [f"fog of war is already {'on' if a.enabled else 'off'}"])
    fog.enabled = a.enabled
    return [FogChanged(round=_round(engine), text=f"Fog of war {'on' if a.enabled else 'off'}", enabled=a.enabled)]


def _reveal(engine: Table, a: act.RevealCells, dice: DiceSource) -> list[Event]:
    title = "Reveal cells" if a.shown else "Hide cells"
    grid = engine.encounter.map
    cells: set[Cell] = set()
    for cell in a.cells:
        ok = (
            isinstance(cell, tuple)
            and len(cell) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
        )
        if not ok:
            raise IllegalAction(title, [f"{cell!r} is not a cell (x, y)"])
        if not (0 <= cell[0] < grid.width and 0 <= cell[1] < grid.height):
            raise IllegalAction(title, [f"{cell} is off the {grid.width} x {grid.height} map"])
        cells.add(cell)
    if not cells:
        raise IllegalAction(title, ["no cells given"])
    fog = engine.encounter.fog
    if a.shown:
        changed = cells - fog.explored
        if not changed:
            raise IllegalAction(title, ["the players see these cells already"])
        fog.explored = fog.explored | changed
        text = f"Cells revealed to the players ({len(changed)})"
    else:
        changed = cells & fog.explored
        if not changed:
            raise IllegalAction(title, ["none of these cells is shown to the players"])
        fog.explored = fog.explored - changed
        text = f"Cells hidden from the players again ({len(changed)})"
    return [CellsRevealed(round=_round(engine), text=text, cells=sorted(changed), shown=a.shown)]


def _set_portrait(engine: Table, a: act.SetPortrait, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    c = engine.combatant(a.combatant)
    title = f"{c.name}'s portrait"
    if a.portrait is None:
        if c.portrait is None:
            raise IllegalAction(title, [f"{c.name} has no portrait"])
    else:
        problem = portrait_problem(a.portrait)
        if problem is not None:
            raise IllegalAction(title, [problem])
        if a.portrait == c.portrait:
            raise IllegalAction(title, [f"{c.name} already has this portrait"])
    e.combatants[e.combatants.index(c)] = c.model_copy(update={"portrait": a.portrait})
    removed = a.portrait is None
    return [
        PortraitChanged(
            round=_round(engine),
            text=f"{c.name}'s portrait {'removed' if removed else 'set'}",
            actors=(c.id,),
            combatant=c.id,
            removed=removed,
        )
    ]


def _edit_options(engine: Table, a: act.EditOptions, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    data = e.options.model_dump()
    data.update(a.changes)
    try:
        e.options = type(e.options).model_validate(data)
    except ValidationError as error:
        raise RulesError(f"Options: {explain(error)}", explain(error).split("\n")) from None
    changes = ", ".join(f"{k.replace('_', ' ')} {describe_option(v)}" for k, v in a.changes.items())
    return [Override(round=_round(engine), text=f"Ruleset options: {changes}")]


_PNG = b"\x89PNG\r\n\x1a\n"


def portrait_problem(data: str) -> str | None:
    """Why ``data`` cannot be a token's portrait (base64 of a square PNG, small enough for the
    file), or None when it can."""
    if not isinstance(data, str):
        return "a portrait is base64 PNG data"
    if len(data) > MAX_PORTRAIT_CHARS:
        return f"the picture is {len(data):,} characters of base64; a portrait holds at most {MAX_PORTRAIT_CHARS:,}"
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "the picture is not base64 data"
    if not raw.startswith(_PNG) or len(raw) < 24 or raw[12:16] != b"IHDR":
        return "the picture is not a PNG image"
    width, height = struct.unpack(">II", raw[16:24])
    if width == 0 or width != height:
        return f"the picture is {width} x {height} pixels: a portrait is square"
    return None


HANDLERS: dict[type, Callable[[Table, Any, DiceSource], list[Event]]] = {
    act.SetHidden: _set_hidden,
    act.EditCombatant: _edit,
    act.DamageByHand: _by_hand,
    act.SetHealth: _set_health,
    act.AddCombatant: _add,
    act.RemoveCombatant: _remove,
    act.PlaceToken: _place,
    act.RemoveToken: _remove_token,
    act.PaintTerrain: _paint,
    act.EditMap: _edit_map,
    act.EditOptions: _edit_options,
    act.AddWall: _add_wall,
    act.RemoveWall: _remove_wall,
    act.SetDoor: _set_door,
    act.SetFog: _set_fog,
    act.RevealCells: _reveal,
    act.SetPortrait: _set_portrait,
}

# Where each handler may write (history.Writes): a token's own, the fog's, or nothing the undo shadow
# keeps (the map is replaced whole, never changed in place).
WRITES: dict[type, Callable[[Any], frozenset[tuple[str, ...]]]] = {
    act.SetHidden: lambda a: frozenset({("tokens", a.combatant)}),
    act.PlaceToken: lambda a: frozenset({("tokens", a.combatant)}),
    act.RemoveToken: lambda a: frozenset({("tokens", a.combatant)}),
    act.AddWall: lambda a: frozenset(),
    act.RemoveWall: lambda a: frozenset(),
    act.SetDoor: lambda a: frozenset(),
    act.SetFog: lambda a: frozenset({("fog",)}),
    act.RevealCells: lambda a: frozenset({("fog",)}),
}

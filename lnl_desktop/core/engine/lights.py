"""The engine's handlers for light on the map (RULES §15): sources placed, taken away, carried or
dropped, and the ambient light. Each checks before it changes; the sources are one immutable tuple
on the encounter, replaced whole, so undo keeps the old one by reference."""

from __future__ import annotations

from pydantic import ValidationError

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event, LightChanged
from lnl_desktop.core.encounter.light import (
    MAX_LIGHTS,
    AmbientLight,
    LightKind,
    LightSource,
    new_light_id,
)
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.encounter.validation import explain
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.base import Table


def _light(engine: Table, lid: str, title: str) -> LightSource:
    found = next((x for x in engine.encounter.lights if x.id == lid), None)
    if found is None:
        raise IllegalAction(title, [f"there is no light {lid!r} on the map"])
    return found


def _round(engine: Table) -> int:
    return engine.encounter.combat.round


def place_light(engine: Table, a: act.PlaceLight, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    title = "Place a light"
    kinds = [k.value for k in LightKind]
    if a.kind not in kinds:
        raise IllegalAction(title, [f"{a.kind!r} is not a light: one of {', '.join(kinds)}"])
    if len(e.lights) >= MAX_LIGHTS:
        raise IllegalAction(title, [f"the map holds at most {MAX_LIGHTS:,} light sources"])
    where = ""
    if a.cell is not None:
        x, y = a.cell
        if not (0 <= x < e.map.width and 0 <= y < e.map.height):
            raise IllegalAction(title, [f"cell ({x}, {y}) is off the {e.map.width} x {e.map.height} map"])
        where = f"at ({x}, {y})"
    if a.carrier is not None:
        holder = next((c for c in e.combatants if c.id == a.carrier), None)
        if holder is None:
            raise IllegalAction(title, [f"there is no combatant {a.carrier!r}"])
        where = f"carried by {holder.name}"
    kind = LightKind(a.kind)
    try:
        light = LightSource(
            id=new_light_id(e.lights, kind),
            kind=kind,
            cell=a.cell,
            carrier=a.carrier,
            bright_ft=a.bright_ft,
            dim_ft=a.dim_ft,
        )
    except ValidationError as error:
        raise IllegalAction(title, explain(error).split("\n")) from None
    e.lights = (*e.lights, light)
    return [LightChanged(round=_round(engine), text=f"A {light.name} {where}", light=light.id, change="placed")]


def remove_light(engine: Table, a: act.RemoveLight, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    light = _light(engine, a.light, "Take the light away")
    e.lights = tuple(x for x in e.lights if x.id != light.id)
    return [
        LightChanged(round=_round(engine), text=f"The {light.name} is taken away", light=light.id, change="removed")
    ]


def carry_light(engine: Table, a: act.CarryLight, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    title = "Carry a light" if a.carrier else "Drop the light"
    light = _light(engine, a.light, title)
    if a.carrier is None:
        if light.carrier is None:
            raise IllegalAction(title, [f"nobody carries the {light.name}"])
        holder = e.combatant(light.carrier)
        token = e.tokens.get(light.carrier)
        if token is None:
            raise IllegalAction(title, [f"{holder.name} is not on the map: place the token first"])
        moved = light.model_copy(update={"carrier": None, "cell": token.cell})
        text = f"{holder.name} drops the {light.name} at ({token.cell[0]}, {token.cell[1]})"
        change = "dropped"
    else:
        holder = next((c for c in e.combatants if c.id == a.carrier), None)
        if holder is None:
            raise IllegalAction(title, [f"there is no combatant {a.carrier!r}"])
        if light.carrier == holder.id:
            raise IllegalAction(title, [f"{holder.name} already carries the {light.name}"])
        moved = light.model_copy(update={"carrier": holder.id, "cell": None})
        text = f"{holder.name} takes the {light.name}"
        change = "carried"
    e.lights = tuple(moved if x.id == light.id else x for x in e.lights)
    return [LightChanged(round=_round(engine), text=text, actors=(holder.id,), light=light.id, change=change)]


def set_ambient(engine: Table, a: act.SetAmbientLight, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    choices = [x.value for x in AmbientLight]
    if a.light not in choices:
        raise IllegalAction("Ambient light", [f"{a.light!r} is not a light: one of {', '.join(choices)}"])
    if e.options.light == a.light:
        raise IllegalAction("Ambient light", [f"the ambient light is already {a.light}"])
    e.options = e.options.model_copy(update={"light": AmbientLight(a.light)})
    return [LightChanged(round=_round(engine), text=f"Ambient light {a.light}", change="ambient")]


def map_lights(encounter: Encounter, lights: object) -> None:
    """A new map's own lights (an imported map file's, ``EditMap``'s ``lights``): they take the place
    of the lights placed on the old map; those carried stay with their carriers. Checked whole first:
    a light that is no light, or too many, is refused in words and nothing changes."""
    title = "Edit map"
    if not isinstance(lights, list | tuple):
        raise IllegalAction(title, ["lights: a list of light sources"])
    carried = tuple(x for x in encounter.lights if x.carrier is not None)
    if len(carried) + len(lights) > MAX_LIGHTS:
        raise IllegalAction(
            title,
            [f"lights: {len(lights):,} on the map and {len(carried):,} carried; a map holds at most {MAX_LIGHTS:,}"],
        )
    try:
        placed = tuple(x if isinstance(x, LightSource) else LightSource.model_validate(x) for x in lights)
    except ValidationError as error:
        raise IllegalAction(title, explain(error).split("\n")) from None
    encounter.lights = (*carried, *placed)


HANDLERS = {
    act.PlaceLight: place_light,
    act.RemoveLight: remove_light,
    act.CarryLight: carry_light,
    act.SetAmbientLight: set_ambient,
}

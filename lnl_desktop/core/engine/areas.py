"""Area templates and area effects at the table (RULES §14): the engine's handlers for laying,
editing and removing a template, and an area effect resolved through the
encounter's ruleset (``ruleset.areas.resolve``). Each handler replaces the encounter's tuple of
templates whole, so the undo history keeps the old tuple by reference (``history._SHARED_PARTS``)."""

from __future__ import annotations

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.areas import MAX_TEMPLATES, Template, area_words, new_template_id
from lnl_desktop.core.encounter.events import Event, TemplateChanged, TemplatePlaced, TemplateRemoved
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.drawings import checked, on_map
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.areas import MAX_AREA_FT, AreaShape, grid_feet, struck_by
from lnl_desktop.core.rules.base import Areas, Table


def area_of(shape: str, origin: tuple[float, float], size_ft: int, direction: float, title: str) -> AreaShape:
    """The shape, with the area's numbers checked (IllegalAction with the reasons)."""
    reasons: list[str] = []
    try:
        kind = AreaShape(shape)
    except ValueError:
        names = ", ".join(s.value for s in AreaShape)
        raise IllegalAction(title, [f"{shape!r} is not a shape: {names}"]) from None
    if not 5 <= size_ft <= MAX_AREA_FT or size_ft % 5:
        reasons.append(f"{size_ft} ft is not a size: 5 to {MAX_AREA_FT} ft, a multiple of 5")
    if not 0 <= direction < 360:
        reasons.append(f"{direction:g}° is not a direction: 0 to 359°")
    if reasons:
        raise IllegalAction(title, reasons)
    return kind


def _find(engine: Table, title: str, template_id: str) -> tuple[int, Template]:
    for index, template in enumerate(engine.encounter.templates):
        if template.id == template_id:
            return index, template
    raise IllegalAction(title, [f"there is no template {template_id!r} on the map"])


def place_template(engine: Table, a: act.PlaceTemplate, dice: DiceSource) -> list[Event]:
    title = "Area template"
    templates = engine.encounter.templates
    if len(templates) >= MAX_TEMPLATES:
        raise IllegalAction(title, [f"the map has {MAX_TEMPLATES} templates already, the most it may have"])
    area_of(a.shape, a.origin, a.size_ft, a.direction, title)
    data = {
        "id": new_template_id(templates),
        "shape": a.shape,
        "origin": a.origin,
        "size_ft": a.size_ft,
        "direction": a.direction,
        "label": a.label,
        "shown": a.shown,
    }
    template = checked(Template, title, data)
    on_map(engine, title, (template.origin,))
    engine.encounter.templates = (*templates, template)
    seen = "" if template.shown else " (GM only)"
    return [
        TemplatePlaced(
            round=engine.encounter.combat.round,
            text=f"GM lays {template.words}{seen}",
            template=template.id,
            shape=template.shape.value,
        )
    ]


def edit_template(engine: Table, a: act.EditTemplate, dice: DiceSource) -> list[Event]:
    title = "Area template"
    index, old = _find(engine, title, a.template)
    data = old.model_dump()
    changes = [
        name
        for name in ("origin", "size_ft", "direction", "label", "shown")
        if getattr(a, name) is not None and getattr(a, name) != data[name]
    ]
    if not changes:
        raise IllegalAction(title, [f"{old.words} is already so: nothing to change"])
    for name in changes:
        data[name] = getattr(a, name)
    area_of(data["shape"], data["origin"], data["size_ft"], data["direction"], title)
    template = checked(Template, title, data)
    on_map(engine, title, (template.origin,))
    templates = list(engine.encounter.templates)
    templates[index] = template
    engine.encounter.templates = tuple(templates)
    return [
        TemplateChanged(
            round=engine.encounter.combat.round,
            text=_change_words(old, template, changes),
            template=old.id,
            changes=changes,
        )
    ]


def _change_words(old: Template, new: Template, changes: list[str]) -> str:
    if changes == ["shown"]:
        return f"GM {'shows the players' if new.shown else 'hides from the players'} {old.words}"
    if changes == ["origin"]:
        return f"GM moves {old.words}"
    if changes == ["size_ft"]:
        return f"GM resizes {old.words} to {area_words(new.shape, new.size_ft).removeprefix('a ')}"
    if changes == ["direction"]:
        return f"GM turns {old.words}"
    words = {"origin": "moved", "size_ft": f"{new.size_ft} ft", "direction": "turned", "label": "named"}
    words["shown"] = "shown to the players" if new.shown else "GM only"
    return f"GM changes {old.words}: {', '.join(words[c] for c in changes)}"


def remove_template(engine: Table, a: act.RemoveTemplate, dice: DiceSource) -> list[Event]:
    index, old = _find(engine, "Remove template", a.template)
    templates = engine.encounter.templates
    engine.encounter.templates = templates[:index] + templates[index + 1 :]
    return [
        TemplateRemoved(
            round=engine.encounter.combat.round, text=f"GM lifts {old.words}", template=old.id, shape=old.shape.value
        )
    ]


def origin_feet(encounter: Encounter, cid: str, origin: tuple[float, float]) -> float | None:
    """How far an area's origin lies from a combatant's footprint, along the grid (None: not on the map)."""
    token = encounter.tokens.get(cid)
    c = next((c for c in encounter.combatants if c.id == cid), None)
    if token is None or c is None:
        return None
    half = c.size / 2
    dx = max(0.0, abs(origin[0] - (token.cell[0] + half)) - half)
    dy = max(0.0, abs(origin[1] - (token.cell[1] + half)) - half)
    return grid_feet(dx, dy, encounter.map.diagonal)


def areas_of(engine: Table, title: str) -> Areas:
    """The ruleset's area effects; IllegalAction for a ruleset that has none (its ``areas`` is None)."""
    areas = engine.ruleset.areas
    if areas is None:
        raise IllegalAction(title, [f"{engine.ruleset.title} has no area effects"])
    return areas


def _out_of_range(engine: Table, a: act.AreaEffect, areas: Areas) -> list[str]:
    """Why the caster's means cannot reach the area's origin (a spell's or a throw's range), if so."""
    c = next((c for c in engine.encounter.combatants if c.id == a.caster), None)
    means = next((m for m in areas.means(c) if m.name == a.means), None) if c is not None else None
    feet = origin_feet(engine.encounter, a.caster, a.origin)
    if c is None or means is None or means.range_ft is None or feet is None or feet <= means.range_ft:
        return []
    return [f"{means.name} reaches {means.range_ft} ft; the area starts {feet:g} ft from {c.name}"]


def area_effect(engine: Table, a: act.AreaEffect, dice: DiceSource) -> list[Event]:
    """Check the area and its targets, let the ruleset resolve it (§14), lift its template if asked."""
    title = f"{a.name or a.means or 'Area effect'}"
    areas = areas_of(engine, title)
    shape = area_of(a.shape, a.origin, a.size_ft, a.direction, title)
    on_map(engine, title, (a.origin,))
    encounter = engine.encounter
    ids = {c.id for c in encounter.combatants}
    reasons: list[str] = []
    if a.caster and a.caster not in ids:
        reasons.append(f"there is no combatant {a.caster!r}")
    if not a.targets:
        reasons.append("nobody is struck: tick at least one target")
    if len(set(a.targets)) != len(a.targets):
        reasons.append("a target is named twice")
    _, struck = struck_by(encounter, shape, a.origin, a.size_ft, a.direction)
    inside = {s.combatant for s in struck}
    for cid in a.targets:
        if cid not in ids:
            reasons.append(f"there is no combatant {cid!r}")
        elif cid not in inside and not a.override:
            name = next(c.name for c in encounter.combatants if c.id == cid)
            reasons.append(f"{name} is not inside {area_words(shape, a.size_ft)} (or a wall shields them)")
    for cid in a.cover:
        if cid not in a.targets:
            reasons.append(f"{cid!r} is under cover but not a target")
    if a.lift:
        if not a.template:
            reasons.append("no template to lift: name the placed template")
        else:
            _find(engine, title, a.template)
    if a.caster and a.means and not a.override:
        reasons += _out_of_range(engine, a, areas)
    if reasons:
        raise IllegalAction(title, reasons)
    events: list[Event] = list(areas.resolve(engine, a, dice))
    if a.lift:
        events += remove_template(engine, act.RemoveTemplate(a.template), dice)
    return events


HANDLERS = {
    act.PlaceTemplate: place_template,
    act.EditTemplate: edit_template,
    act.RemoveTemplate: remove_template,
    act.AreaEffect: area_effect,
}

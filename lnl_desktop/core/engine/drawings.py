"""The engine's handlers for drawings and labels on the map: add, edit (move, restyle, words, shown
to the players) and remove. Each replaces the encounter's tuple of drawings whole, so the undo
history keeps the old tuple by reference (``history._SHARED_PARTS``)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.drawings import MAX_DRAWINGS, Drawing, new_drawing_id
from lnl_desktop.core.encounter.events import DrawingAdded, DrawingChanged, DrawingRemoved, Event
from lnl_desktop.core.encounter.validation import explain
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.base import Table

M = TypeVar("M", bound=BaseModel)


def checked(model: type[M], title: str, data: dict[str, Any]) -> M:
    """``data`` as a ``model`` (a drawing, a template), or IllegalAction with pydantic's reasons in the game's words."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise IllegalAction(title, explain(error).splitlines()) from None


def on_map(engine: Table, title: str, points: tuple[tuple[float, float], ...]) -> None:
    """Refuse a point (in cells) off the encounter's map."""
    grid = engine.encounter.map
    for x, y in points:
        if not (0 <= x <= grid.width and 0 <= y <= grid.height):
            raise IllegalAction(title, [f"({x:g}, {y:g}) is off the {grid.width} x {grid.height} map"])


def _find(engine: Table, title: str, drawing_id: str) -> tuple[int, Drawing]:
    for index, drawing in enumerate(engine.encounter.drawings):
        if drawing.id == drawing_id:
            return index, drawing
    raise IllegalAction(title, [f"there is no drawing {drawing_id!r} on the map"])


def add_drawing(engine: Table, a: act.AddDrawing, dice: DiceSource) -> list[Event]:
    title = "Drawing"
    drawings = engine.encounter.drawings
    if len(drawings) >= MAX_DRAWINGS:
        raise IllegalAction(title, [f"the map has {MAX_DRAWINGS} drawings already, the most it may have"])
    data = {
        "id": new_drawing_id(drawings),
        "kind": a.kind,
        "points": a.points,
        "colour": a.colour,
        "width": a.width,
        "text": a.text,
        "shown": a.shown,
    }
    drawing = checked(Drawing, title, data)
    on_map(engine, title, drawing.points)
    engine.encounter.drawings = (*drawings, drawing)
    return [
        DrawingAdded(
            round=engine.encounter.combat.round,
            text=f"GM draws {drawing.words} ({drawing.who_sees})",
            drawing=drawing.id,
            shape=drawing.kind.value,
        )
    ]


def edit_drawing(engine: Table, a: act.EditDrawing, dice: DiceSource) -> list[Event]:
    title = "Drawing"
    index, old = _find(engine, title, a.drawing)
    data = old.model_dump()
    changes: list[str] = []
    if a.offset is not None and tuple(a.offset) != (0, 0):
        dx, dy = a.offset
        data["points"] = tuple((x + dx, y + dy) for x, y in old.points)
        on_map(engine, title, data["points"])
        changes.append("offset")
    for name in ("colour", "width", "text", "shown"):
        value = getattr(a, name)
        if value is not None and value != data[name]:
            data[name] = value
            changes.append(name)
    if not changes:
        raise IllegalAction(title, [f"{old.words} is already so: nothing to change"])
    drawing = checked(Drawing, title, data)
    if drawing == old:  # a colour written in capitals: the very same drawing
        raise IllegalAction(title, [f"{old.words} is already so: nothing to change"])
    drawings = list(engine.encounter.drawings)
    drawings[index] = drawing
    engine.encounter.drawings = tuple(drawings)
    return [
        DrawingChanged(
            round=engine.encounter.combat.round,
            text=_change_words(old, drawing, changes),
            drawing=old.id,
            changes=changes,
        )
    ]


def _change_words(old: Drawing, new: Drawing, changes: list[str]) -> str:
    if changes == ["shown"]:
        return f"GM {'shows the players' if new.shown else 'hides from the players'} {old.words}"
    if changes == ["offset"]:
        return f"GM moves {old.words}"
    if changes == ["text"]:
        return f"GM rewrites {old.words} as {new.words.removeprefix('the label ')}"
    words = {"offset": "moved", "colour": "colour", "width": "width", "text": "words", "shown": new.who_sees}
    return f"GM changes {old.words}: {', '.join(words[c] for c in changes)}"


def remove_drawing(engine: Table, a: act.RemoveDrawing, dice: DiceSource) -> list[Event]:
    index, old = _find(engine, "Remove drawing", a.drawing)
    drawings = engine.encounter.drawings
    engine.encounter.drawings = drawings[:index] + drawings[index + 1 :]
    return [
        DrawingRemoved(
            round=engine.encounter.combat.round,
            text=f"GM erases {old.words} ({old.who_sees})",
            drawing=old.id,
            shape=old.kind.value,
        )
    ]


HANDLERS = {act.AddDrawing: add_drawing, act.EditDrawing: edit_drawing, act.RemoveDrawing: remove_drawing}

"""The gestures on the battle map, one class each, from a press to its release.

:class:`~lnl_desktop.ui.map.view.MapView` starts a gesture at a press (which one, the tool and the
button say), holds it while it lasts and forwards the mouse and the keys to it; the gesture shows
its preview and ends in at most one undo step handed to ``controller.do``. A gesture ends itself
(:meth:`Gesture.end`) before it applies anything, so the encounter's change finds no gesture
under way. Escape, a tool change or an encounter changed under a preview cancel it
(:meth:`Gesture.cancel`): nothing is applied.

- :class:`Pan`: a drag on empty floor (or on a door, or with the middle button) slides the map;
  a click there deselects, or opens or closes the door.

The others, a module per family: a token's (:mod:`.token_gestures`: move, turn), the map's own edits
(:mod:`.edit_gestures`: cells painted, lines drawn or erased, fog), drawings and lights
(:mod:`.drawing_gestures`), the Measure tool (:mod:`.ruler`) and the Template tool
(:mod:`.template_gestures`).

A right-click during a left-button gesture cancels it (:meth:`Gesture.press`), except where the right
button has a use of its own there (a drag's or a ruler's waypoint).
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QApplication, QMenu

from lnl_desktop.core.encounter.actions import (
    Action,
    PlaceLight,
)
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.map_model import Door, WallSegment
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.map.drag import DragLayer
from lnl_desktop.ui.map.drawings import DrawStyle
from lnl_desktop.ui.map.overlays import CellsItem
from lnl_desktop.ui.map.rules_overlays import RulesOverlays
from lnl_desktop.ui.map.scene import MapScene
from lnl_desktop.ui.map.walls import LinesPreview
from lnl_desktop.ui.plumbing.controller import TableController

PAINT_Z = 45.0  # the gestures' previews: over the cells and tokens' shading, under the drag's route


class MapSurface(Protocol):
    """What a gesture needs of the map view."""

    controller: TableController
    map_scene: MapScene
    overlays: RulesOverlays
    drag_layer: DragLayer
    lines_preview: LinesPreview
    paint_preview: CellsItem
    fog_preview: CellsItem
    context_menu: QMenu | None
    draw_style: DrawStyle

    def tool(self) -> str: ...
    def scene_pos(self, pos: QPointF | QPoint) -> QPointF: ...
    def cell_of(self, pos: QPointF | QPoint) -> Cell: ...
    def on_map(self, cell: Cell) -> bool: ...
    def cell_under_cursor(self) -> Cell | None: ...
    def line_at(self, pos: QPointF | QPoint) -> WallSegment | None: ...
    def say(self, text: str) -> None: ...
    def refuse(self, text: str) -> None: ...
    def do(self, action: Action) -> list[Event] | None: ...
    def refresh_hover(self) -> None: ...
    def update_cursor(self) -> None: ...
    def scroll_by(self, delta: QPoint) -> None: ...
    def toggle_door(self, door: Door) -> list[Event] | None: ...
    def token_menu(self, cid: str) -> QMenu: ...
    def end_gesture(self, gesture: Gesture) -> None: ...
    def ask_text(self, title: str, text: str = "") -> str | None: ...
    def light_to_place(self) -> PlaceLight | None: ...


def left_or_right(event: QMouseEvent) -> bool:
    return event.button() in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton)


class Gesture:
    """One gesture on the map, from the press that began it to the release that ends it.

    The view calls :meth:`start` once it holds the gesture, then forwards every press, move,
    release and key until the gesture ends itself (:meth:`end`) or is cancelled (:meth:`cancel`).
    """

    previews: ClassVar[bool] = True  # a preview the encounter's change makes stale; Escape cancels it
    hovers: ClassVar[bool] = True  # the cursor's cell is hovered as it moves
    keeps_hover: ClassVar[bool] = False  # the cursor leaving the view keeps the hovered cell
    holds_token: ClassVar[bool] = False  # Delete and [ ] wait for the gesture's end

    def __init__(self, view: MapSurface) -> None:
        self.view = view

    def start(self) -> None:
        """The view holds the gesture now: show its first preview."""

    def press(self, event: QMouseEvent) -> None:
        """Another button pressed during the gesture: a right-click cancels it, nothing applied (a
        gesture that uses the right button itself, a drag's waypoint, says otherwise)."""
        if event.button() == Qt.MouseButton.RightButton:
            self.cancel()
            self.view.update_cursor()
            self.view.controller.message.emit("Cancelled with a right-click: nothing changed")

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        """The cursor moved to ``cell`` (of the view's point ``event.position()``)."""

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        """A button released over ``cell``: the gesture may end."""

    def key_press(self, event: QKeyEvent) -> bool:
        """A key pressed during the gesture; True when the gesture took it."""
        return False

    def key_release(self, event: QKeyEvent) -> bool:
        """A key released during the gesture; True when the gesture took it."""
        return False

    def steers(self, key: int) -> bool:
        """Whether ``key`` steers the gesture, before the window's shortcuts see it."""
        return False

    def grabbing(self) -> bool:
        """Whether the cursor is a closed hand (something is being dragged)."""
        return False

    @property
    def dragged_token(self) -> str | None:
        """The token the gesture carries: no hover overlay for it."""
        return None

    def cancel(self) -> None:
        """Drop the gesture: its preview goes, nothing is applied."""
        self.end()

    def end(self) -> None:
        """The view no longer holds the gesture."""
        self.view.end_gesture(self)


# -- panning ---------------------------------------------------------------------------------------


class Pan(Gesture):
    """A drag that slides the map under the cursor; a click instead deselects (``deselect``) or
    opens or closes ``door``."""

    previews = False
    hovers = False

    def __init__(self, view: MapSurface, pos: QPoint, deselect: bool, door: Door | None = None) -> None:
        super().__init__(view)
        self.last = pos
        self.moved = False
        self.deselects = deselect
        self.door = door  # a press on a door: a click toggles it, a drag pans

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        pos = event.position().toPoint()
        delta = pos - self.last
        if not self.moved and delta.manhattanLength() < QApplication.startDragDistance():
            return
        self.moved = True
        self.last = pos
        self.view.scroll_by(delta)  # the map slides under the cursor: the view hovers what is there now
        self.view.update_cursor()

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() not in (Qt.MouseButton.LeftButton, Qt.MouseButton.MiddleButton):
            return
        door = self.door
        if self.deselects and not self.moved:
            self.view.controller.select(None)  # a click on empty space, not a pan
            self.view.map_scene.templates.select(None, None)
        self.end()
        if door is not None and not self.moved:
            self.view.toggle_door(door)

    def grabbing(self) -> bool:
        return self.moved

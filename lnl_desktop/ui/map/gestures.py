"""The gestures on the battle map, one class each, from a press to its release.

:class:`~lnl_desktop.ui.map.view.MapView` starts a gesture at a press (which one, the tool and the
button say), holds it while it lasts and forwards the mouse and the keys to it; the gesture shows
its preview and ends in at most one undo step handed to ``controller.do``. A gesture ends itself
(:meth:`Gesture.end`) before it applies anything, so the encounter's change finds no gesture
under way. Escape, a tool change or an encounter changed under a preview cancel it
(:meth:`Gesture.cancel`): nothing is applied.

- :class:`Pan`: a drag on empty floor (or on a door, or with the middle button) slides the map;
  a click there deselects, or opens or closes the door.
- :class:`MoveToken`: a token dragged along its route, with waypoints (right click or W pins one,
  Backspace drops the last) and Shift for a forced move; a click without a drag begins a turn or
  picks the attack's target.
- :class:`TurnToken`: a right-drag turns a token (Alt: 15 degree steps); a right click that turns
  nothing opens its menu.
- :class:`PaintStroke`: wall or difficult cells painted or erased.
- :class:`DrawLine`: a wall line or a door drawn from one cell corner to another.
- :class:`EraseLines`: the wall lines and doors a drag passes over, erased.
- :class:`FogRect`: a rectangle of cells shown to the players, or hidden from them again.
- :class:`DrawShape`: a freehand line, a line, a rectangle, an ellipse or a label drawn on the map.
- :class:`MoveDrawing`: a drawing picked (a click) and dragged to a new place.

A right-click during a left-button gesture cancels it (:meth:`Gesture.press`), except where the right
button has a use of its own there (a drag's or a ruler's waypoint).
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar, Protocol

from PySide6.QtCore import QLineF, QPoint, QPointF, Qt
from PySide6.QtGui import QCursor, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QApplication, QMenu

from lnl_desktop.core.encounter.actions import (
    Action,
    AddDrawing,
    AddWall,
    BeginTurn,
    EditDrawing,
    Face,
    PaintTerrain,
    PlaceLight,
    RemoveLight,
    RemoveWall,
    RevealCells,
)
from lnl_desktop.core.encounter.drawings import MAX_POINTS, Drawing, DrawingKind
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Door, Phase, WallSegment
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map import grid
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.map.drag import DragLayer, MoveDrag, Route, chebyshev_line
from lnl_desktop.ui.map.drawings import DrawingPreview, DrawStyle, far_enough, offset_between, to_cells
from lnl_desktop.ui.map.geometry import CellMask, footprint_centre
from lnl_desktop.ui.map.overlays import FOG_STYLES, PAINT_STYLES, CellsItem
from lnl_desktop.ui.map.rules_overlays import RulesOverlays
from lnl_desktop.ui.map.scene import MapScene
from lnl_desktop.ui.map.walls import LinesPreview, scene_line, scene_point, snap_corner
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.controller import AttackPlan, TableController

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


def _left_or_right(event: QMouseEvent) -> bool:
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


# -- moving a token --------------------------------------------------------------------------------


class MoveToken(Gesture):
    """A token dragged to where it goes, along the route through its waypoints; the release is one
    Move. Until the cursor has moved a few pixels it is a click, which does what combat needs next
    (:meth:`clicked`)."""

    keeps_hover = True
    holds_token = True
    STEERING_KEYS = (Qt.Key.Key_W, Qt.Key.Key_Backspace, Qt.Key.Key_Escape)

    def __init__(self, view: MapSurface, drag: MoveDrag, press: QPoint, targets: bool) -> None:
        super().__init__(view)
        self.drag = drag
        self.active = False  # moved far enough to be a drag, not a click
        self.pressed_at = press
        self.target: Cell | None = None  # the anchor under the cursor
        self.forced = False
        self.targets = targets  # a click makes the token the plan's target

    @classmethod
    def pressed(cls, view: MapSurface, cid: str, cell: Cell, press: QPoint, targets: bool) -> MoveToken | None:
        """The gesture of a press on ``cid``'s token at ``cell``; None (and why, said) when the
        engine will not say where it may go."""
        token = view.controller.encounter.tokens[cid]
        try:
            drag = MoveDrag(view.controller, cid, grab=(cell[0] - token.cell[0], cell[1] - token.cell[1]))
        except (RulesError, ValueError) as error:
            view.refuse(str(error))
            return None
        return cls(view, drag, press, targets)

    @staticmethod
    def targets_on_click(controller: TableController, cid: str) -> bool:
        """A click on ``cid`` picks the target of the attack being set up (not the active one)."""
        turn = controller.encounter.combat.turn
        plan = controller.plan
        if turn is None or plan is None or plan.attacker != turn.combatant:
            return False
        return cid != turn.combatant or bool(getattr(plan, "allies", False))  # Defend may pick oneself

    def start(self) -> None:
        self.view.overlays.prime(self.drag.cid, self.drag.mover_inputs())

    @property
    def dragged_token(self) -> str | None:
        return self.drag.cid

    def grabbing(self) -> bool:
        return self.active

    def steers(self, key: int) -> bool:
        # W is also "paint walls": during a drag it pins a waypoint instead.
        return key in self.STEERING_KEYS

    def press(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.RightButton and self.active:
            self.pin_waypoint()

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        if not self.active:
            moved = (event.position().toPoint() - self.pressed_at).manhattanLength()
            if moved >= QApplication.startDragDistance():
                self._activate()
        if self.active:
            self.drag_to(cell, bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        clicked = None if self.active else self.drag.cid
        forced = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier) or self.forced
        self._finish(cell, forced)
        if clicked is not None:
            self.clicked(clicked)

    def key_press(self, event: QKeyEvent) -> bool:
        if not self.active:
            return False
        key = event.key()
        if key == Qt.Key.Key_W:
            self.pin_waypoint()
            return True
        if key == Qt.Key.Key_Backspace:
            self.unpin_waypoint()
            return True
        if key == Qt.Key.Key_Shift and self.target is not None:
            self.drag_to(self.view.cell_under_cursor() or self.target, True, again=True)
            return True
        return False

    def key_release(self, event: QKeyEvent) -> bool:
        if event.key() != Qt.Key.Key_Shift or not self.active:
            return False
        if self.target is not None:
            self.drag_to(self.view.cell_under_cursor() or self.target, False, again=True)
        return True

    def _activate(self) -> None:
        view, drag = self.view, self.drag
        self.active = True
        view.drag_layer.show_press(drag)
        view.overlays.set_selected_hidden(True)
        item = view.map_scene.tokens.get(drag.cid)
        if item is not None:
            item.set_dragged(True)
        view.refresh_hover()
        view.update_cursor()

    def drag_to(self, cell: Cell, forced: bool, again: bool = False) -> None:
        """The cursor is over ``cell``: recompute only when the cell or the Shift key changed."""
        view, drag = self.view, self.drag
        target = drag.anchor_for(cell)
        if not again and target == self.target and forced == self.forced:
            return
        self.target = target
        self.forced = forced
        route = drag.route_to(target) if not forced else None
        if route is None:
            route = Route(target, [drag.start, target], True, 0.0, [[drag.start, target]], [True])
        info = view.drag_layer.show_route(drag, route, forced)
        item = view.map_scene.tokens.get(drag.cid)
        if item is not None:
            item.move_to(target)
            item.set_ghost_bad(target != drag.start and drag.end_looks_bad(target, view.map_scene.occupant))
        view.say(info)

    def pin_waypoint(self) -> None:
        if not self.active or self.target is None:
            return
        if self.drag.pin(self.target):
            self.drag_to(self.view.cell_under_cursor() or self.target, self.forced, again=True)

    def unpin_waypoint(self) -> None:
        if self.active and self.drag.unpin() and self.target is not None:
            self.drag_to(self.view.cell_under_cursor() or self.target, self.forced, again=True)

    def _finish(self, cell: Cell, forced: bool) -> None:
        action = None
        if self.active and self.view.on_map(cell):
            action = self.drag.action(self.drag.anchor_for(cell), forced)
        self.end()
        self.view.say("")
        if action is not None:
            self.view.do(action)

    def cancel(self) -> None:
        self.end()
        self.view.say("")

    def end(self) -> None:
        view = self.view
        item = view.map_scene.tokens.get(self.drag.cid)
        if item is not None:
            item.set_dragged(False)
            item.reset_position()
            item.set_ghost_bad(False)
        view.drag_layer.hide()
        view.overlays.set_selected_hidden(False)
        super().end()
        view.refresh_hover()
        view.update_cursor()

    def clicked(self, cid: str) -> None:
        """A press and release on a token without a drag: between turns it begins the turn of one
        who may act now; while an attack is being set up it picks the target."""
        controller = self.view.controller
        engine = controller.engine
        combat = controller.encounter.combat
        if self.targets and combat.turn is not None:
            plan = controller.plan
            controller.set_plan(replace(plan or AttackPlan(combat.turn.combatant), target=cid))
        elif combat.phase is Phase.FIGHTING and combat.turn is None and any(c.id == cid for c in engine.waiting()):
            self.view.do(BeginTurn(cid))


# -- turning a token -------------------------------------------------------------------------------


class TurnToken(Gesture):
    """A right-drag that turns a token to face the cursor; the release is one Face action, or the
    token's menu when it turned nothing."""

    keeps_hover = True
    holds_token = True

    def __init__(self, view: MapSurface, cid: str, name: str, centre: QPointF, facing: int) -> None:
        super().__init__(view)
        self.cid = cid
        self.name = name
        self.centre = centre
        self.facing = facing
        self.preview = facing

    @classmethod
    def pressed(cls, view: MapSurface, cid: str) -> TurnToken | None:
        """The gesture of a right press on ``cid``'s token (selected by it)."""
        token = view.controller.encounter.tokens[cid]
        c = view.controller.combatant(cid)
        if c is None:
            return None
        view.controller.select(cid)
        return cls(view, cid, c.name, footprint_centre(token.cell, c.size), token.facing)

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        point = self.view.scene_pos(event.position())
        fine = bool(event.modifiers() & Qt.KeyboardModifier.AltModifier)
        dx, dy = point.x() - self.centre.x(), point.y() - self.centre.y()
        if dx * dx + dy * dy < (0.3 * style.CELL_PX) ** 2:
            return  # too close to the centre to tell a direction
        bearing = grid.direction_deg((self.centre.x(), self.centre.y()), (point.x(), point.y()))
        facing = grid.snap_facing(bearing, 15 if fine else 45)
        if facing != self.preview:
            self.preview = facing
            item = self.view.map_scene.tokens.get(self.cid)
            if item is not None:
                item.set_preview_facing(facing)
        self.view.say(f"{self.name}: face {facing}°" + ("" if fine else " (Alt: 15° steps)"))

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() != Qt.MouseButton.RightButton:
            return
        view = self.view
        self._end_preview()
        if self.preview != self.facing:
            view.do(Face(self.cid, self.preview))
        else:
            # A right-click that turned nothing: the token's menu.
            view.context_menu = view.token_menu(self.cid)
            view.context_menu.popup(QCursor.pos())

    def cancel(self) -> None:
        self._end_preview()

    def _end_preview(self) -> None:
        self.end()
        item = self.view.map_scene.tokens.get(self.cid)
        if item is not None:
            item.set_preview_facing(None)
        self.view.say("")


# -- painting terrain ------------------------------------------------------------------------------


class PaintStroke(Gesture):
    """Wall or difficult cells painted (left) or erased (right; either button with the erase tool,
    both layers) along the cursor's path; the release is one undo step."""

    def __init__(self, view: MapSurface, button: Qt.MouseButton, cell: Cell) -> None:
        super().__init__(view)
        tool = view.tool()
        if tool == "erase":
            self.layers: tuple[str, ...] = ("walls", "difficult")
            self.on = False
        else:
            self.layers = (tool,)
            self.on = button == Qt.MouseButton.LeftButton
        self.first = cell
        self.last: Cell | None = None
        self.cells: set[Cell] = set()

    def start(self) -> None:
        view = self.view
        view.map_scene.removeItem(view.paint_preview)
        view.paint_preview = CellsItem(PAINT_STYLES[self.layers[0] if self.on else "erase"], PAINT_Z)
        view.map_scene.addItem(view.paint_preview)
        self.stroke_to(self.first)

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        self.stroke_to(cell)

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if _left_or_right(event):
            self.stroke_to(cell)
            self._finish()

    def stroke_to(self, cell: Cell) -> None:
        view = self.view
        cells = chebyshev_line(self.last, cell) if self.last is not None else [cell]
        self.last = cell
        new = [c for c in cells if view.on_map(c) and c not in self.cells]
        if not new:
            return
        self.cells.update(new)
        erase = not self.on
        view.paint_preview.set_cells(CellMask.from_cells(self.cells), self.cells if erase else ())
        verb = "erase" if erase else f"paint {self.layers[0]}"
        view.say(f"{verb}: {len(self.cells)} cell{'s' if len(self.cells) != 1 else ''}")

    def _finish(self) -> None:
        view = self.view
        self.end()
        view.paint_preview.clear()
        view.say("")
        grid_map = view.controller.encounter.map
        actions: list[PaintTerrain] = []
        for layer in self.layers:
            current: frozenset[Cell] = getattr(grid_map, layer)
            # Only what the stroke changes; a stroke that changes nothing is no step in the history.
            changed = self.cells - current if self.on else self.cells & current
            if changed:
                actions.append(PaintTerrain(layer, tuple(sorted(self.cells)), on=self.on))  # type: ignore[arg-type]
        if not actions:  # said, so a stroke that changes nothing is not a click that did nothing
            words = {"walls": "walls", "difficult": "difficult terrain"}
            if self.on:
                view.refuse(f"Those cells are {words[self.layers[0]]} already: nothing to paint")
            else:
                view.refuse(f"No {' or '.join(words[layer] for layer in self.layers)} there to erase")
        elif len(actions) == 1:
            view.do(actions[0])
        else:
            stack = view.controller.undo_stack
            stack.beginMacro("Erase terrain")  # one stroke, one undo step
            try:
                for action in actions:
                    view.do(action)
            finally:
                stack.endMacro()

    def cancel(self) -> None:
        self.end()
        self.view.paint_preview.clear()


# -- wall lines and doors --------------------------------------------------------------------------


class DrawLine(Gesture):
    """A wall line (``door`` False) or a door drawn from the cell corner pressed to the corner under
    the cursor; the release is one AddWall."""

    keeps_hover = True

    def __init__(self, view: MapSurface, pos: QPointF, door: bool) -> None:
        super().__init__(view)
        self.door = door
        self.start_corner = self.end_corner = self._corner(pos)

    def _corner(self, pos: QPointF) -> tuple[int, int]:
        grid_map = self.view.controller.encounter.map
        return snap_corner(self.view.scene_pos(pos), grid_map.width, grid_map.height)

    def start(self) -> None:
        self._show()

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        self._line_to(event.position())

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._line_to(event.position())
            self._finish()

    def _line_to(self, pos: QPointF) -> None:
        corner = self._corner(pos)
        if corner != self.end_corner:
            self.end_corner = corner
            self._show()

    def _show(self) -> None:
        a, b = scene_point(self.start_corner), scene_point(self.end_corner)
        self.view.lines_preview.set_lines([QLineF(a, b)], LinesPreview.DRAW, door=self.door)
        what = "door" if self.door else "wall"
        if self.start_corner == self.end_corner:
            self.view.say(f"{what}: from corner {self.start_corner}; drag to another corner")
        else:
            cells = QLineF(a, b).length() / style.CELL_PX
            self.view.say(
                f"{what}: {self.start_corner} to {self.end_corner}, {cells:.3g} cell{'s' if cells != 1 else ''}"
            )

    def _finish(self) -> None:
        view = self.view
        self.end()
        view.lines_preview.clear()
        view.say("")
        if self.start_corner == self.end_corner:
            view.refuse("Drag from one cell corner to another to draw a wall or a door")
            return
        view.do(AddWall(self.start_corner, self.end_corner, door=self.door))

    def cancel(self) -> None:
        self.end()
        self.view.lines_preview.clear()
        self.view.say("")


class EraseLines(Gesture):
    """The wall lines and doors under a press and its drag, struck through in the order picked; the
    release erases them in one undo step."""

    def __init__(self, view: MapSurface, pos: QPointF) -> None:
        super().__init__(view)
        self.first = pos
        self.picked: list[WallSegment] = []

    def start(self) -> None:
        self._erase_to(self.first)

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        self._erase_to(event.position())

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if _left_or_right(event):
            self._erase_to(event.position())
            self._finish()

    def _erase_to(self, pos: QPointF) -> None:
        line = self.view.line_at(pos)
        if line is None or line in self.picked:
            return
        self.picked.append(line)
        self.view.lines_preview.set_lines([scene_line(picked) for picked in self.picked], LinesPreview.ERASE)
        n = len(self.picked)
        self.view.say(f"erase: {n} wall line{'s' if n != 1 else ''} or door{'s' if n != 1 else ''}")

    def _finish(self) -> None:
        view = self.view
        self.end()
        view.lines_preview.clear()
        view.say("")
        if not self.picked:
            view.refuse("No wall line or door there to erase")
            return
        if len(self.picked) == 1:
            view.do(RemoveWall(self.picked[0].a, self.picked[0].b))
            return
        stack = view.controller.undo_stack
        stack.beginMacro(f"Erase {len(self.picked)} wall lines and doors")  # one drag, one undo step
        try:
            for line in self.picked:
                view.do(RemoveWall(line.a, line.b))
        finally:
            stack.endMacro()

    def cancel(self) -> None:
        self.end()
        self.view.lines_preview.clear()
        self.view.say("")


# -- fog of war ------------------------------------------------------------------------------------


class FogRect(Gesture):
    """A rectangle of cells dragged out to show to the players (left) or hide from them (right);
    the release is one RevealCells of the cells it changes."""

    keeps_hover = True

    def __init__(self, view: MapSurface, button: Qt.MouseButton, cell: Cell) -> None:
        super().__init__(view)
        self.shown = button == Qt.MouseButton.LeftButton
        self.start_cell = self.end_cell = cell

    def cells(self, width: int, height: int) -> set[Cell]:
        x0, x1 = sorted((self.start_cell[0], self.end_cell[0]))
        y0, y1 = sorted((self.start_cell[1], self.end_cell[1]))
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width - 1, x1), min(height - 1, y1)
        return {(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)}

    def start(self) -> None:
        view = self.view
        view.map_scene.removeItem(view.fog_preview)
        view.fog_preview = CellsItem(FOG_STYLES["reveal" if self.shown else "hide"], PAINT_Z)
        view.map_scene.addItem(view.fog_preview)
        self._show()

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        self._fog_to(cell)

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if _left_or_right(event):
            self._fog_to(cell)
            self._finish()

    def _fog_to(self, cell: Cell) -> None:
        if cell != self.end_cell:
            self.end_cell = cell
            self._show()

    def _show(self) -> None:
        view = self.view
        grid_map = view.controller.encounter.map
        cells = self.cells(grid_map.width, grid_map.height)
        view.fog_preview.set_cells(CellMask.from_cells(cells) if cells else None)
        verb = "show the players" if self.shown else "hide from the players"
        view.say(f"{verb}: {len(cells)} cell{'s' if len(cells) != 1 else ''}")

    def _finish(self) -> None:
        view = self.view
        self.end()
        view.fog_preview.clear()
        view.say("")
        encounter = view.controller.encounter
        cells = self.cells(encounter.map.width, encounter.map.height)
        explored = encounter.fog.explored
        # Only what the rectangle changes: a drag that changes nothing is no step in the history.
        changed = cells - explored if self.shown else cells & explored
        if not changed:
            said = "already shown to" if self.shown else "not shown to"
            view.refuse(f"Those cells are {said} the players: nothing to change")
            return
        view.do(RevealCells(tuple(sorted(changed)), shown=self.shown))

    def cancel(self) -> None:
        self.end()
        self.view.fog_preview.clear()
        self.view.say("")


# -- drawings and labels ---------------------------------------------------------------------------


class DrawShape(Gesture):
    """A shape of the Draw tool's style dragged out from the press (a freehand line follows the
    cursor), or a label placed with a click; the release is one AddDrawing."""

    keeps_hover = True
    MIN_CELLS = 0.1  # a drag shorter than this is a click, and a freehand point closer than this is skipped

    def __init__(self, view: MapSurface, pos: QPointF) -> None:
        super().__init__(view)
        self.style = replace(view.draw_style)
        self.points: list[tuple[float, float]] = [self._point(pos)]
        self.preview = DrawingPreview(self.style)

    def _point(self, pos: QPointF) -> tuple[float, float]:
        grid_map = self.view.controller.encounter.map
        x, y = to_cells(self.view.scene_pos(pos))
        return (min(max(x, 0.0), float(grid_map.width)), min(max(y, 0.0), float(grid_map.height)))

    def start(self) -> None:
        if self.style.kind is not DrawingKind.TEXT:
            self.view.map_scene.addItem(self.preview)
            self.view.say(f"{self.style.kind.value}: drag to draw it")

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        if self.style.kind is DrawingKind.TEXT:
            return
        point = self._point(event.position())
        if self.style.kind is DrawingKind.FREEHAND:
            if len(self.points) < MAX_POINTS and far_enough(point, self.points[-1], self.MIN_CELLS):
                self.points.append(point)
        else:
            self.points[1:] = [point]
        self.preview.set_points(tuple(self.points))
        if len(self.points) > 1:
            (x0, y0), (x1, y1) = self.points[0], self.points[-1]
            self.view.say(f"{self.style.kind.value}: {abs(x1 - x0):.3g} x {abs(y1 - y0):.3g} cells")

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.move(event, cell)
            self._finish()

    def _finish(self) -> None:
        view = self.view
        style = self.style
        self.cancel()
        if style.kind is DrawingKind.TEXT:
            text = view.ask_text("Label on the map")
            if text is None:
                return
            view.do(AddDrawing(style.kind.value, (self.points[0],), style.colour, style.width, text, style.shown))
            return
        short = not far_enough(self.points[0], self.points[-1], self.MIN_CELLS)
        if len(self.points) < 2 or (short and style.kind is not DrawingKind.FREEHAND):
            view.refuse(f"Drag on the map to draw a {style.kind.value}")
            return
        view.do(AddDrawing(style.kind.value, tuple(self.points), style.colour, style.width, "", style.shown))

    def cancel(self) -> None:
        self.end()
        if self.preview.scene() is not None:
            self.view.map_scene.removeItem(self.preview)
        self.view.say("")


class MoveDrawing(Gesture):
    """A drawing pressed with the Select tool: selected, and dragged it moves (its cached item slides
    along, nothing is repainted); the release is one EditDrawing by the offset."""

    keeps_hover = True

    def __init__(self, view: MapSurface, drawing: Drawing, pos: QPointF) -> None:
        super().__init__(view)
        self.drawing = drawing
        self.pressed_at = pos
        self.start_point = view.scene_pos(pos)
        self.active = False

    def start(self) -> None:
        self.view.controller.select(None)
        self.view.map_scene.drawings.select(self.drawing.id)
        self.view.say(f"{self.drawing.words} ({self.drawing.who_sees}): drag to move it, Delete to erase it")

    def grabbing(self) -> bool:
        return self.active

    def _item_offset(self, pos: QPointF) -> QPointF:
        return self.view.scene_pos(pos) - self.start_point

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        pos = event.position()
        if not self.active and (pos - self.pressed_at).manhattanLength() < QApplication.startDragDistance():
            return
        self.active = True
        item = self.view.map_scene.drawings.items.get(self.drawing.id)
        if item is not None:
            item.setPos(self._item_offset(pos))
        self.view.update_cursor()

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        active = self.active
        offset = offset_between(self.start_point, self.view.scene_pos(event.position()))
        self.cancel()
        if active and offset != (0.0, 0.0):
            self.view.do(EditDrawing(self.drawing.id, offset=offset))

    def cancel(self) -> None:
        self.end()
        item = self.view.map_scene.drawings.items.get(self.drawing.id)
        if item is not None:
            item.setPos(0, 0)
        self.view.update_cursor()


# -- light sources ---------------------------------------------------------------------------------


class LightAt(Gesture):
    """The Light tool's click: left places the tool's light at the cell (a torch unless another kind
    was chosen), right takes away the light placed there; the release is one PlaceLight or RemoveLight."""

    hovers = False
    previews = False

    def __init__(self, view: MapSurface, button: Qt.MouseButton, cell: Cell) -> None:
        super().__init__(view)
        self.placing = button == Qt.MouseButton.LeftButton
        self.cell = cell

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if not _left_or_right(event):
            return
        view = self.view
        self.end()
        if cell != self.cell or not view.on_map(cell):
            return  # a drag off the pressed cell, or off the map: no light
        if self.placing:
            light = view.light_to_place()
            if light is not None:
                view.do(replace(light, cell=cell))
            return
        here = [x for x in view.controller.encounter.lights if x.cell == cell]
        if not here:
            view.refuse(f"No light is placed at ({cell[0]}, {cell[1]}): nothing to take away")
            return
        view.do(RemoveLight(here[-1].id))

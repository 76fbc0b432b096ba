"""The gestures that draw on the map and light it (:mod:`lnl_desktop.ui.map.gestures` has what they share).

- :class:`DrawShape`: a freehand line, a line, a rectangle, an ellipse or a label drawn on the map.
- :class:`MoveDrawing`: a drawing picked (a click) and dragged to a new place.
- :class:`LightAt`: the Light tool's click: a light placed (left) or taken away (right).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.encounter.actions import (
    AddDrawing,
    EditDrawing,
    RemoveLight,
)
from lnl_desktop.core.encounter.drawings import MAX_POINTS, Drawing, DrawingKind
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.map.drawings import DrawingPreview, far_enough, offset_between, to_cells
from lnl_desktop.ui.map.gestures import Gesture, MapSurface, left_or_right

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
        if not left_or_right(event):
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

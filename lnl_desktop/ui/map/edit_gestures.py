"""The gestures that edit the map itself: its cells, its lines and its fog (:mod:`lnl_desktop.ui.map.gestures`
has what they share).

- :class:`PaintStroke`: wall or difficult cells painted or erased.
- :class:`DrawLine`: a wall line or a door drawn from one cell corner to another.
- :class:`EraseLines`: the wall lines and doors a drag passes over, erased.
- :class:`FogRect`: a rectangle of cells shown to the players, or hidden from them again.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, Qt
from PySide6.QtGui import QMouseEvent

from lnl_desktop.core.encounter.actions import (
    AddWall,
    PaintTerrain,
    RemoveWall,
    RevealCells,
)
from lnl_desktop.core.encounter.map_model import WallSegment
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.map.drag import chebyshev_line
from lnl_desktop.ui.map.geometry import CellMask
from lnl_desktop.ui.map.gestures import PAINT_Z, Gesture, MapSurface, left_or_right
from lnl_desktop.ui.map.overlays import FOG_STYLES, PAINT_STYLES, CellsItem
from lnl_desktop.ui.map.walls import LinesPreview, scene_line, scene_point, snap_corner
from lnl_desktop.ui.plumbing import style

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
        if left_or_right(event):
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
        if left_or_right(event):
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
        if left_or_right(event):
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

"""The battle map widget: zoom and pan, token drags, facing, terrain painting, drops from the docks.

The view turns gestures into actions and hands each one to ``controller.do`` (one undo step); it
decides nothing itself. While a gesture is under way it shows a preview (the route, the reach,
the painted cells) built from the core's own searches, and the engine has the last word at the
release: a refused action leaves the map as it was and the controller says why.

Mouse, select tool: left on a token drags it (right click or W pins a waypoint, Backspace drops
the last one, Escape cancels, Shift makes it a forced move); left on empty space pans, a click
there deselects; a click on a door opens or closes it; right-drag on a token turns it (Alt: 15
degree steps). Walls / difficult tools: left paints, right erases; erase tool: either button
erases both layers. Wall lines / doors tools: a left drag draws a wall (a door) between the cell
corners nearest the press and the release; a right click (or drag) erases the segments or doors
under it; erase lines tool: either button erases them. Fog tool: a left drag over a rectangle
shows its cells to the players, a right drag hides them again. Middle button pans in every tool;
the wheel zooms about the cursor.

The map fits the view (on show, on a resize, when the map changes size, for another encounter)
until the GM zooms or pans by hand; :meth:`MapView.fit_map` (Ctrl+F) fits it again. Whatever
moves the map under a still cursor hovers the cell now under it, so no hover overlay outlives
its token.

In combat a click (no drag) on a token does what the table needs next: between turns, on a
combatant who may act now, it begins that turn; during a turn whose attack is being set up
(``controller.plan``), on another combatant, it makes that one the target (drawn with a target
ring) instead of selecting it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

from PySide6.QtCore import QEvent, QLineF, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QCursor,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShowEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QApplication, QGraphicsView, QMenu, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.encounter.actions import (
    Action,
    AddWall,
    BeginTurn,
    Face,
    Move,
    PaintTerrain,
    PlaceToken,
    RemoveToken,
    RemoveWall,
    RevealCells,
    SetDoor,
    SetFog,
)
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Door, MapGrid, Phase, Side, WallSegment
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map import grid
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.lazy import loaded
from lnl_desktop.ui import style, theme
from lnl_desktop.ui.controller import AttackPlan, TableController
from lnl_desktop.ui.docks.bestiary import creature_for
from lnl_desktop.ui.map.drag import DragLayer, MoveDrag, Route, chebyshev_line
from lnl_desktop.ui.map.geometry import FIT_MARGIN_PX, CellMask, cell_at, fit_scale, footprint_centre
from lnl_desktop.ui.map.overlays import (
    FOG_STYLES,
    MARKER_Z,
    PAINT_STYLES,
    CellsItem,
    MarkerItem,
    cosmetic,
)
from lnl_desktop.ui.map.rules_overlays import RulesOverlays
from lnl_desktop.ui.map.scene import BackgroundCache, MapScene
from lnl_desktop.ui.map.tokens import body_path
from lnl_desktop.ui.map.walls import PICK_PX, LinesPreview, nearest_line, scene_line, scene_point, snap_corner
from lnl_desktop.ui.mime import MIME_COMBATANT, MIME_CREATURE, FileDrops, read_combatant, read_creature

# The map's tools, by the names set_tool takes and toolChanged says.
TOOLS = ("select", "walls", "difficult", "erase", "wall_lines", "doors", "erase_lines", "fog")
LINE_TOOLS = ("wall_lines", "doors", "erase_lines")
MIN_ZOOM = 0.1
MAX_ZOOM = 6.0
STEP_ZOOM = 1.25
PAINT_Z = 45.0
PREPARE_RETRY_MS = 500  # numpy not loaded yet: ask again this much later
TARGET_COLOR = QColor("#CC3311")


class TargetRing(MarkerItem):
    """The attack plan's target: a ring with four ticks (cross-hairs) around its footprint."""

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        rect = self._rect.adjusted(-6, -6, 6, 6)
        c, r = rect.center(), rect.width() / 2
        ticks = [
            QLineF(c.x(), rect.top() - 8, c.x(), rect.top() + 10),
            QLineF(c.x(), rect.bottom() - 10, c.x(), rect.bottom() + 8),
        ]
        ticks += [
            QLineF(rect.left() - 8, c.y(), rect.left() + 10, c.y()),
            QLineF(rect.right() - 10, c.y(), rect.right() + 8, c.y()),
        ]
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for pen in (cosmetic(QColor(255, 255, 255, 235), 7.0), cosmetic(self._color, 3.5)):
            painter.setPen(pen)
            painter.drawEllipse(c, r, r)
            painter.drawLines(ticks)


@dataclass
class _TurnDrag:
    cid: str
    name: str
    centre: QPointF
    facing: int
    preview: int


@dataclass
class _Stroke:
    layers: tuple[str, ...]
    on: bool
    last: Cell | None = None
    cells: set[Cell] = field(default_factory=set)


@dataclass
class _LineDraw:
    """A wall or a door being drawn: from the corner pressed to the corner under the cursor."""

    door: bool
    start: tuple[int, int]
    end: tuple[int, int]


@dataclass
class _LineErase:
    """Segments and doors a press (and its drag) picked to erase, in the order picked."""

    picked: list[WallSegment] = field(default_factory=list)


@dataclass
class _FogRect:
    """A rectangle of cells being shown to (``shown``) or hidden from the players."""

    shown: bool
    start: Cell
    end: Cell

    def cells(self, width: int, height: int) -> set[Cell]:
        x0, x1 = sorted((self.start[0], self.end[0]))
        y0, y1 = sorted((self.start[1], self.end[1]))
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width - 1, x1), min(height - 1, y1)
        return {(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)}


class MapView(QGraphicsView):
    """The battle map. Construct with the table controller; it builds and owns its scene."""

    cellHovered = Signal(int, int)  # (-1, -1) off the map
    dragInfo = Signal(str)  # "Tombril: path 25 ft, 5 ft left" during a drag, "" when it ends
    toolChanged = Signal(str)

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.files_dropped = FileDrops(self)  # files from the desktop: the main window says which
        self.map_scene = MapScene(controller, self)
        self.setScene(self.map_scene)
        self.background_cache = BackgroundCache(self)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.viewport().setMouseTracking(True)
        self.setAcceptDrops(True)
        self.setMinimumSize(200, 150)
        # No scrollbars: the map pans by dragging and zooms with the wheel, and a projected map
        # is better without them.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self._tool = "select"
        self.overlays = RulesOverlays(self.map_scene, controller)
        self.drag_layer = DragLayer(self.map_scene)
        self._paint_preview = CellsItem(PAINT_STYLES["walls"], PAINT_Z)
        self.map_scene.addItem(self._paint_preview)
        self.lines_preview = LinesPreview(PAINT_Z)
        self.map_scene.addItem(self.lines_preview)
        self.fog_preview = CellsItem(FOG_STYLES["reveal"], PAINT_Z)
        self.map_scene.addItem(self.fog_preview)
        self._drop_marker = MarkerItem(QColor("#009E73"), Qt.PenStyle.SolidLine, QColor(0, 158, 115, 60))
        self.map_scene.addItem(self._drop_marker)
        self.target_ring = TargetRing(TARGET_COLOR, Qt.PenStyle.SolidLine)
        self.target_ring.setZValue(MARKER_Z + 1)
        self.map_scene.addItem(self.target_ring)

        self._drag: MoveDrag | None = None
        self._drag_active = False
        self._drag_press: QPoint | None = None
        self._drag_target: Cell | None = None
        self._drag_forced = False
        self._click_targets = False  # the pressed token becomes the plan's target on a click
        self._last_mouse: QPointF | None = None
        self._turn: _TurnDrag | None = None
        self.context_menu: QMenu | None = None  # the last token menu shown (a right-click)
        self.hand_dialog: QWidget | None = None  # the Damage / Heal dialog opened from it
        self._stroke: _Stroke | None = None
        self._line: _LineDraw | None = None
        self._erase: _LineErase | None = None
        self._fog: _FogRect | None = None
        self._pan_from: QPoint | None = None
        self._pan_door: Door | None = None  # a press on a door: a click toggles it, a drag pans
        self._pan_moved = False
        self._pan_deselects = False
        self._hover_cell: Cell | None = None
        self._applying = False  # our own action is being applied: do not cancel gestures
        # Fit mode: the map fits the view (on show, on resize, when the map changes size) until
        # the GM zooms or pans by hand; fit_map (Ctrl+F) comes back to it.
        self._fit_mode = True
        self._fitted_map: tuple[int, int] | None = None  # the map size the view last fitted
        self._info = ""  # the last dragInfo text
        self._prepared_map: MapGrid | None = None  # the map whose search tables a worker built
        self._prepare_waiting = False
        self._ui_scale = 1.0

        self.map_scene.synced.connect(self._on_synced)
        controller.encounterReplaced.connect(self._on_replaced)
        controller.planChanged.connect(self._show_target)
        self._update_cursor()
        self.overlays.refresh()
        self.set_ui_scale(theme.ui_scale())
        self._tell_scale()
        self._prepare_map()

    # -- public API ------------------------------------------------------------------------------

    def tool(self) -> str:
        return self._tool

    def set_tool(self, name: str) -> None:
        if name not in TOOLS:
            raise ValueError(f"unknown map tool {name!r} (tools: {', '.join(TOOLS)})")
        if name == self._tool:
            return
        self.cancel_gesture()
        self._tool = name
        self.overlays.set_hovered(None)
        self.map_scene.set_fog_editing(name == "fog")
        self._update_cursor()
        self.toolChanged.emit(name)

    def set_fog(self, enabled: bool) -> list[Event] | None:
        """Fog of war in the player view on or off: one SetFog action (undoable)."""
        if self.controller.encounter.fog.enabled == enabled:
            return None
        return self._do(SetFog(enabled))

    def toggle_door(self, door: Door) -> list[Event] | None:
        """Open a closed door or close an open one: one SetDoor action."""
        return self._do(SetDoor(door.a, door.b, not door.open))

    def zoom(self) -> float:
        return self.transform().m11()

    def ui_scale(self) -> float:
        return self._ui_scale

    def set_ui_scale(self, factor: float) -> None:
        """The GM's UI scale (1.0 = 100 %, 2.0 = 200 %): token labels, bars, badges, state words and
        the drag's labels grow with it, for a projector or a high-DPI laptop."""
        if factor <= 0:
            raise ValueError(f"UI scale must be positive, not {factor}")
        self._ui_scale = factor
        self.map_scene.set_ui_scale(factor)
        self.drag_layer.set_ui_scale(factor)

    def _tell_scale(self) -> None:
        """Tell the scene the zoom, so tokens keep room for texts of a fixed size on screen."""
        self.map_scene.set_view_scale(self.zoom())

    def zoom_in(self) -> None:
        self._zoom_by(STEP_ZOOM)

    def zoom_out(self) -> None:
        self._zoom_by(1 / STEP_ZOOM)

    def zoom_reset(self) -> None:
        centre = self.mapToScene(self.viewport().rect().center())
        self.setTransform(QTransform())
        self.centerOn(centre)
        self._fit_mode = False
        self._tell_scale()
        self._rehover()

    @property
    def fit_mode(self) -> bool:
        """Whether the map keeps fitting the view (no zoom or pan by hand since the last fit)."""
        return self._fit_mode

    def fit_map(self) -> None:
        """Show the whole map as large as the view allows, centred, and stay in fit mode."""
        rect = self.map_scene.map_rect()
        self._fit_mode = True
        self._fitted_map = (self.controller.encounter.map.width, self.controller.encounter.map.height)
        scale = fit_scale(rect, self.viewport().rect(), FIT_MARGIN_PX, MAX_ZOOM)
        if scale is None:
            return
        self.setTransform(QTransform.fromScale(scale, scale))
        self.centerOn(rect.center())
        self._tell_scale()
        self._rehover()

    def turn_selected(self, step_deg: int) -> list[Event] | None:
        """Turn the selected token by ``step_deg``, snapped to 45 degrees: one Face action."""
        cid = self.controller.selected
        token = self.controller.encounter.tokens.get(cid) if cid else None
        if cid is None or token is None:
            self._refuse("Select a token on the map to turn it")
            return None
        facing = grid.snap_facing(token.facing + step_deg, 45)
        if facing == token.facing:
            return None
        return self._do(Face(cid, facing))

    def remove_selected(self) -> list[Event] | None:
        """Take the selected combatant's token off the map (the combatant stays)."""
        cid = self.controller.selected
        if cid is None or cid not in self.controller.encounter.tokens:
            self._refuse("Select a token on the map to remove it")
            return None
        return self._do(RemoveToken(cid))

    def center_on(self, cid: str) -> None:
        token = self.controller.encounter.tokens.get(cid)
        c = self.controller.combatant(cid)
        if token is not None and c is not None:
            self.centerOn(footprint_centre(token.cell, c.size))
            self._fit_mode = False  # the GM asked for this place: a resize keeps it
            self._rehover()

    def cancel_gesture(self) -> None:
        """Drop whatever drag, turn, stroke or pan is under way; nothing is applied."""
        if self._drag is not None:
            self._end_move_drag()
            self._say("")
        if self._turn is not None:
            item = self.map_scene.tokens.get(self._turn.cid)
            if item is not None:
                item.set_preview_facing(None)
            self._turn = None
            self._say("")
        if self._stroke is not None:
            self._stroke = None
            self._paint_preview.clear()
        if self._line is not None or self._erase is not None:
            self._line = None
            self._erase = None
            self.lines_preview.clear()
            self._say("")
        if self._fog is not None:
            self._fog = None
            self.fog_preview.clear()
            self._say("")
        self._pan_from = None
        self._pan_door = None
        self._update_cursor()

    def _gesture(self) -> bool:
        """Whether a drag, turn, stroke, line or fog rectangle is under way (a pan is not)."""
        return any(g is not None for g in (self._drag, self._turn, self._stroke, self._line, self._erase, self._fog))

    # -- reacting to the encounter ------------------------------------------------------------

    def _on_synced(self) -> None:
        if not self._applying and self._gesture():
            # The encounter changed under a gesture (an undo, another window): its preview is stale.
            self.cancel_gesture()
        self.overlays.invalidate()
        grid_map = self.controller.encounter.map
        if grid_map is not self._prepared_map:
            self._prepare_map()
        if self._fit_mode and self._fitted_map is not None and self._fitted_map != (grid_map.width, grid_map.height):
            self.fit_map()  # the map changed size (Map settings, its undo): fit the new one
        self._refresh_hover()
        self.overlays.refresh()
        self._show_target()

    def _on_replaced(self) -> None:
        self.cancel_gesture()
        self.fit_map()  # another map: show it whole

    def _prepare_again(self) -> None:
        self._prepare_waiting = False
        self._prepare_map()

    def _prepare_map(self) -> None:
        """A map with wall lines came: build its step arrays on a worker before the first drag asks
        (10,000 segments take a tenth of a second or more; 100,000 a second)."""
        grid_map = self.controller.encounter.map
        if grid_map is self._prepared_map:
            return
        if not (grid_map.segments or grid_map.doors):
            self._prepared_map = grid_map
            return
        if not loaded("numpy"):
            # The lazy loader has no lock: numpy is loaded on this thread first (the app's warm-up
            # does it once the window is up), then the worker may use it. One retry waiting at a time.
            if not self._prepare_waiting:
                self._prepare_waiting = True
                QTimer.singleShot(PREPARE_RETRY_MS, self._prepare_again)
            return
        self._prepared_map = grid_map
        terrain = grid.map_terrain(grid_map)
        threading.Thread(target=terrain.build_tables, name="lnl-map-tables", daemon=True).start()

    def _say(self, text: str) -> None:
        """Emit ``dragInfo`` when the text changes (a drag repeats itself cell after cell)."""
        if text != self._info:
            self._info = text
            self.dragInfo.emit(text)

    def _refuse(self, text: str) -> None:
        """Say why the map did nothing, where the engine's refusals are said too (the status bar and
        the plate over the map), so the plate never keeps an older refusal than the status bar."""
        self.controller.message.emit(text)
        self.controller.refused.emit(text)

    def _do(self, action: Action) -> list[Event] | None:
        self._applying = True
        try:
            return self.controller.do(action)
        finally:
            self._applying = False

    # -- zoom ------------------------------------------------------------------------------------

    def _min_zoom(self) -> float:
        rect = self.map_scene.map_rect()
        view = self.viewport().rect()
        if rect.isEmpty() or view.isEmpty():
            return MIN_ZOOM
        fit = min(view.width() / rect.width(), view.height() / rect.height())
        return min(MIN_ZOOM, fit * 0.8)

    def _set_zoom(self, zoom: float, anchor: QPoint | None = None) -> None:
        current = self.zoom()
        zoom = max(self._min_zoom(), min(MAX_ZOOM, zoom))
        if current <= 0 or abs(zoom / current - 1) < 1e-6:
            return
        pivot = anchor if anchor is not None else self.viewport().rect().center()
        before = self.mapToScene(pivot)
        self.scale(zoom / current, zoom / current)
        self._tell_scale()
        # Keep the scene point under the pivot where it was.
        after = self.mapFromScene(before)
        delta = after - pivot
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + delta.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + delta.y())
        self._rehover()

    def _zoom_by(self, factor: float, anchor: QPoint | None = None) -> None:
        self._set_zoom(self.zoom() * factor, anchor)
        self._fit_mode = False

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120.0
        if steps == 0:
            event.ignore()
            return
        self._zoom_by(1.2**steps, event.position().toPoint())
        event.accept()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._fit_mode:
            self.fit_map()

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        self.background_cache.paint(self.map_scene, painter, rect)

    def paintEvent(self, event: QPaintEvent) -> None:
        self._tell_scale()  # a safety net: whatever changed the zoom, the tokens know it before they paint
        super().paintEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._fit_mode:
            self.fit_map()
        else:
            self._rehover()

    # -- the mouse -------------------------------------------------------------------------------

    def _cell(self, pos: QPointF | QPoint) -> Cell:
        return cell_at(self.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos))

    def _on_map(self, cell: Cell) -> bool:
        grid_map = self.controller.encounter.map
        return 0 <= cell[0] < grid_map.width and 0 <= cell[1] < grid_map.height

    def _token_at(self, cell: Cell) -> str | None:
        return self.map_scene.occupant.get(cell)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        button = event.button()
        pos = event.position()
        self._last_mouse = pos
        self._hover(self._cell(pos))  # a press may come without a move first (a touch, a tablet)
        if self._drag is not None:
            if button == Qt.MouseButton.RightButton and self._drag_active:
                self._pin_waypoint()
            event.accept()
            return
        if self._gesture() or self._pan_from is not None:
            event.accept()
            return
        left_or_right = button in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton)
        if button == Qt.MouseButton.MiddleButton:
            self._start_pan(event.position().toPoint(), deselect=False)
        elif self._tool == "select":
            cell = self._cell(pos)
            cid = self._token_at(cell)
            if button == Qt.MouseButton.LeftButton:
                door = self._door_under(pos, cid)
                if door is not None:
                    # A click opens or closes it; a drag from it pans like empty floor.
                    self._start_pan(event.position().toPoint(), deselect=False)
                    self._pan_door = door
                elif cid is None:
                    self._start_pan(event.position().toPoint(), deselect=True)
                else:
                    targets = self._targets_on_click(cid)
                    if not targets:
                        self.controller.select(cid)
                    self._start_move_drag(cid, cell, event.position().toPoint())
                    self._click_targets = targets
            elif button == Qt.MouseButton.RightButton and cid is not None:
                self._start_turn(cid)
        elif self._tool in ("wall_lines", "doors") and button == Qt.MouseButton.LeftButton:
            self._start_line(pos, door=self._tool == "doors")
        elif self._tool in LINE_TOOLS and left_or_right:
            self._erase = _LineErase()
            self._erase_to(pos)
        elif self._tool == "fog" and left_or_right:
            self._start_fog(button, self._cell(pos))
        elif left_or_right:
            self._start_stroke(button, self._cell(pos))
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position()
        self._last_mouse = pos
        cell = self._cell(pos)
        if self._pan_from is not None:
            self._pan_to(event.position().toPoint())  # the map slides under the cursor: hover what is there now
            event.accept()
            return
        self._hover(cell)
        if self._drag is not None:
            if not self._drag_active and self._drag_press is not None:
                moved = (event.position().toPoint() - self._drag_press).manhattanLength()
                if moved >= QApplication.startDragDistance():
                    self._activate_move_drag()
            if self._drag_active:
                self._drag_to(cell, bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
        elif self._turn is not None:
            self._turn_to(
                self.mapToScene(event.position().toPoint()), bool(event.modifiers() & Qt.KeyboardModifier.AltModifier)
            )
        elif self._stroke is not None:
            self._stroke_to(cell)
        elif self._line is not None:
            self._line_to(pos)
        elif self._erase is not None:
            self._erase_to(pos)
        elif self._fog is not None:
            self._fog_to(cell)
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        button = event.button()
        pos = event.position()
        left_or_right = button in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton)
        if self._drag is not None:
            if button == Qt.MouseButton.LeftButton:
                clicked = None if self._drag_active else self._drag.cid
                forced = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier) or self._drag_forced
                self._finish_move_drag(self._cell(pos), forced)
                if clicked is not None:
                    self._token_clicked(clicked)
        elif self._turn is not None:
            if button == Qt.MouseButton.RightButton:
                self._finish_turn()
        elif self._stroke is not None:
            if left_or_right:
                self._stroke_to(self._cell(pos))
                self._finish_stroke()
        elif self._line is not None:
            if button == Qt.MouseButton.LeftButton:
                self._line_to(pos)
                self._finish_line()
        elif self._erase is not None:
            if left_or_right:
                self._erase_to(pos)
                self._finish_erase()
        elif self._fog is not None:
            if left_or_right:
                self._fog_to(self._cell(pos))
                self._finish_fog()
        elif self._pan_from is not None and button in (Qt.MouseButton.LeftButton, Qt.MouseButton.MiddleButton):
            door, self._pan_door = self._pan_door, None
            if self._pan_deselects and not self._pan_moved:
                self.controller.select(None)  # a click on empty space, not a pan
            self._pan_from = None
            if door is not None and not self._pan_moved:
                self.toggle_door(door)
        self._last_mouse = pos
        self._hover(self._cell(pos))
        self._update_cursor()
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.mousePressEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        if self._drag is None and self._turn is None and self._line is None and self._fog is None:
            self._last_mouse = None
            self._hover(None)
        super().leaveEvent(event)

    def _rehover(self) -> None:
        """The map moved under a still cursor (a pan, a zoom, a fit): hover the cell now under it."""
        if self._last_mouse is not None:
            self._hover(self._cell(self._last_mouse))

    def _hover(self, cell: Cell | None) -> None:
        if cell is not None and not self._on_map(cell):
            cell = None
        if cell != self._hover_cell:
            self._hover_cell = cell
            self.cellHovered.emit(*(cell if cell is not None else (-1, -1)))
            self._refresh_hover()
        if not self._gesture() and self._pan_from is None:
            self._update_cursor()

    def _refresh_hover(self) -> None:
        cid = self._token_at(self._hover_cell) if self._hover_cell is not None and self._tool == "select" else None
        if self._drag is not None and cid == self._drag.cid:
            cid = None
        self.overlays.set_hovered(cid)

    def _update_cursor(self) -> None:
        if (self._drag is not None and self._drag_active) or (self._pan_from is not None and self._pan_moved):
            shape = Qt.CursorShape.ClosedHandCursor
        elif self._tool != "select":
            shape = Qt.CursorShape.CrossCursor
        elif (
            self._last_mouse is not None
            and self._hover_cell is not None
            and self._door_under(self._last_mouse, self._token_at(self._hover_cell))
        ):
            shape = Qt.CursorShape.PointingHandCursor  # a click opens or closes the door
        elif self._hover_cell is not None and self._token_at(self._hover_cell) is not None:
            shape = Qt.CursorShape.OpenHandCursor
        else:
            shape = Qt.CursorShape.ArrowCursor
        self.viewport().setCursor(shape)

    # -- panning ---------------------------------------------------------------------------------

    def _start_pan(self, pos: QPoint, deselect: bool) -> None:
        self._pan_from = pos
        self._pan_moved = False
        self._pan_deselects = deselect

    def _pan_to(self, pos: QPoint) -> None:
        assert self._pan_from is not None
        delta = pos - self._pan_from
        if not self._pan_moved and delta.manhattanLength() < QApplication.startDragDistance():
            return
        self._pan_moved = True
        self._fit_mode = False  # panned by hand: a resize keeps this view
        self._pan_from = pos
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
        self._rehover()
        self._update_cursor()

    # -- clicks in combat: begin a turn, pick a target ----------------------------------------

    def _targets_on_click(self, cid: str) -> bool:
        """A click on ``cid`` picks the target of the attack being set up (not the active one)."""
        turn = self.controller.encounter.combat.turn
        plan = self.controller.plan
        if turn is None or plan is None or plan.attacker != turn.combatant:
            return False
        return cid != turn.combatant or bool(getattr(plan, "allies", False))  # Defend may pick oneself

    def _token_clicked(self, cid: str) -> None:
        """A press and release on a token without a drag."""
        targets, self._click_targets = self._click_targets, False
        engine = self.controller.engine
        combat = self.controller.encounter.combat
        if targets and combat.turn is not None:
            plan = self.controller.plan
            self.controller.set_plan(replace(plan or AttackPlan(combat.turn.combatant), target=cid))
        elif combat.phase is Phase.FIGHTING and combat.turn is None and any(c.id == cid for c in engine.waiting()):
            self._do(BeginTurn(cid))

    def _show_target(self) -> None:
        plan = self.controller.plan
        cid = plan.target if plan is not None else None
        token = self.controller.encounter.tokens.get(cid) if cid else None
        c = self.controller.combatant(cid) if cid else None
        if token is None or c is None:
            self.target_ring.hide()
        else:
            self.target_ring.set_about(cid, plan.attacker if plan is not None else None)
            self.target_ring.show_at(token.cell, c.size)

    # -- moving a token --------------------------------------------------------------------------

    def _start_move_drag(self, cid: str, cell: Cell, press: QPoint) -> None:
        token = self.controller.encounter.tokens[cid]
        try:
            drag = MoveDrag(self.controller, cid, grab=(cell[0] - token.cell[0], cell[1] - token.cell[1]))
        except (RulesError, ValueError) as error:
            self._refuse(str(error))
            return
        self._drag = drag
        self.overlays.prime(cid, drag.mover_inputs())
        self._drag_active = False
        self._drag_press = press
        self._drag_target = None
        self._drag_forced = False

    def _activate_move_drag(self) -> None:
        drag = self._drag
        assert drag is not None
        self._drag_active = True
        self.drag_layer.show_press(drag)
        self.overlays.set_selected_hidden(True)
        item = self.map_scene.tokens.get(drag.cid)
        if item is not None:
            item.set_dragged(True)
        self._refresh_hover()
        self._update_cursor()

    def _drag_to(self, cell: Cell, forced: bool, again: bool = False) -> None:
        """The cursor is over ``cell``: recompute only when the cell or the Shift key changed."""
        drag = self._drag
        assert drag is not None
        target = drag.anchor_for(cell)
        if not again and target == self._drag_target and forced == self._drag_forced:
            return
        self._drag_target = target
        self._drag_forced = forced
        route = drag.route_to(target) if not forced else None
        if route is None:
            route = Route(target, [drag.start, target], True, 0.0, [[drag.start, target]], [True])
        info = self.drag_layer.show_route(drag, route, forced)
        item = self.map_scene.tokens.get(drag.cid)
        if item is not None:
            item.move_to(target)
            item.set_ghost_bad(target != drag.start and drag.end_looks_bad(target, self.map_scene.occupant))
        self._say(info)

    def _pin_waypoint(self) -> None:
        drag = self._drag
        if drag is None or not self._drag_active or self._drag_target is None:
            return
        if drag.pin(self._drag_target):
            self._drag_to(self._cell_under_cursor() or self._drag_target, self._drag_forced, again=True)

    def _unpin_waypoint(self) -> None:
        drag = self._drag
        if drag is not None and self._drag_active and drag.unpin() and self._drag_target is not None:
            self._drag_to(self._cell_under_cursor() or self._drag_target, self._drag_forced, again=True)

    def _cell_under_cursor(self) -> Cell | None:
        return self._cell(self._last_mouse) if self._last_mouse is not None else None

    def _finish_move_drag(self, cell: Cell, forced: bool) -> None:
        drag = self._drag
        assert drag is not None
        active = self._drag_active
        action = None
        if active and self._on_map(cell):
            action = drag.action(drag.anchor_for(cell), forced)
        self._end_move_drag()
        self._say("")
        if action is not None:
            self._do(action)

    def _end_move_drag(self) -> None:
        drag = self._drag
        if drag is None:
            return
        item = self.map_scene.tokens.get(drag.cid)
        if item is not None:
            item.set_dragged(False)
            item.reset_position()
            item.set_ghost_bad(False)
        self.drag_layer.hide()
        self.overlays.set_selected_hidden(False)
        self._drag = None
        self._drag_active = False
        self._drag_press = None
        self._drag_target = None
        self._drag_forced = False
        self._refresh_hover()
        self._update_cursor()

    # -- turning a token -------------------------------------------------------------------------

    def _start_turn(self, cid: str) -> None:
        token = self.controller.encounter.tokens[cid]
        c = self.controller.combatant(cid)
        if c is None:
            return
        self.controller.select(cid)
        self._turn = _TurnDrag(cid, c.name, footprint_centre(token.cell, c.size), token.facing, token.facing)

    def _turn_to(self, point: QPointF, fine: bool) -> None:
        turn = self._turn
        assert turn is not None
        dx, dy = point.x() - turn.centre.x(), point.y() - turn.centre.y()
        if dx * dx + dy * dy < (0.3 * style.CELL_PX) ** 2:
            return  # too close to the centre to tell a direction
        bearing = grid.direction_deg((turn.centre.x(), turn.centre.y()), (point.x(), point.y()))
        facing = grid.snap_facing(bearing, 15 if fine else 45)
        if facing != turn.preview:
            turn.preview = facing
            item = self.map_scene.tokens.get(turn.cid)
            if item is not None:
                item.set_preview_facing(facing)
        self._say(f"{turn.name}: face {facing}°" + ("" if fine else " (Alt: 15° steps)"))

    def _finish_turn(self) -> None:
        turn = self._turn
        assert turn is not None
        self._turn = None
        item = self.map_scene.tokens.get(turn.cid)
        if item is not None:
            item.set_preview_facing(None)
        self._say("")
        if turn.preview != turn.facing:
            self._do(Face(turn.cid, turn.preview))
        else:
            # A right-click that turned nothing: the token's menu.
            self.context_menu = self.token_menu(turn.cid)
            self.context_menu.popup(QCursor.pos())

    def token_menu(self, cid: str) -> QMenu:
        """The commands on a token: damage or healing by hand (RULES §10)."""
        from lnl_desktop.ui.docks.sheet import open_damage_heal

        menu = QMenu(self)
        c = self.controller.combatant(cid)
        name = c.name if c is not None else cid
        hand = menu.addAction(f"Damage / Heal {name}…")
        hand.setShortcut(QKeySequence("Ctrl+Shift+D"))
        hand.setEnabled(bool(self.controller.engine.ruleset.hand_kinds(False)))

        def open_hand() -> None:
            self.hand_dialog = open_damage_heal(self.controller, cid, self.window())

        hand.triggered.connect(open_hand)
        return menu

    # -- painting terrain ------------------------------------------------------------------------

    def _start_stroke(self, button: Qt.MouseButton, cell: Cell) -> None:
        if self._tool == "erase":
            stroke = _Stroke(("walls", "difficult"), on=False)
        else:
            stroke = _Stroke((self._tool,), on=button == Qt.MouseButton.LeftButton)
        key = stroke.layers[0] if stroke.on else "erase"
        self._paint_preview = self._restyled_preview(key)
        self._stroke = stroke
        self._stroke_to(cell)

    def _restyled_preview(self, key: str) -> CellsItem:
        self.map_scene.removeItem(self._paint_preview)
        preview = CellsItem(PAINT_STYLES[key], PAINT_Z)
        self.map_scene.addItem(preview)
        return preview

    def _stroke_to(self, cell: Cell) -> None:
        stroke = self._stroke
        assert stroke is not None
        cells = chebyshev_line(stroke.last, cell) if stroke.last is not None else [cell]
        stroke.last = cell
        new = [c for c in cells if self._on_map(c) and c not in stroke.cells]
        if not new:
            return
        stroke.cells.update(new)
        erase = not stroke.on
        self._paint_preview.set_cells(CellMask.from_cells(stroke.cells), stroke.cells if erase else ())
        verb = "erase" if erase else f"paint {stroke.layers[0]}"
        self._say(f"{verb}: {len(stroke.cells)} cell{'s' if len(stroke.cells) != 1 else ''}")

    def _finish_stroke(self) -> None:
        stroke = self._stroke
        assert stroke is not None
        self._stroke = None
        self._paint_preview.clear()
        self._say("")
        grid_map = self.controller.encounter.map
        actions: list[PaintTerrain] = []
        for layer in stroke.layers:
            current: frozenset[Cell] = getattr(grid_map, layer)
            # Only what the stroke changes; a stroke that changes nothing is no step in the history.
            changed = stroke.cells - current if stroke.on else stroke.cells & current
            if changed:
                actions.append(PaintTerrain(layer, tuple(sorted(stroke.cells)), on=stroke.on))  # type: ignore[arg-type]
        if len(actions) == 1:
            self._do(actions[0])
        elif actions:
            stack = self.controller.undo_stack
            stack.beginMacro("Erase terrain")  # one stroke, one undo step
            try:
                for action in actions:
                    self._do(action)
            finally:
                stack.endMacro()

    # -- wall segments and doors -----------------------------------------------------------------

    def _pick_within(self) -> float:
        """How near a line a press must be to pick it, in scene units (a few pixels on screen)."""
        return PICK_PX / max(self.zoom(), 1e-6)

    def line_at(self, pos: QPointF | QPoint) -> WallSegment | None:
        """The wall segment or door nearest the viewport point ``pos``, if one is a few pixels away."""
        grid_map = self.controller.encounter.map
        point = self.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos)
        return nearest_line((*grid_map.segments, *grid_map.doors), point, self._pick_within())

    def door_at(self, pos: QPointF | QPoint) -> Door | None:
        """The door nearest the viewport point ``pos``, if one is a few pixels away."""
        point = self.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos)
        door = nearest_line(self.controller.encounter.map.doors, point, self._pick_within())
        return door if isinstance(door, Door) else None

    def _door_under(self, pos: QPointF | QPoint, cid: str | None) -> Door | None:
        """A door a press at ``pos`` is on, unless it is on a token's body (the token wins there;
        the rim of a cell outside the body goes to the door)."""
        if not self.controller.encounter.map.doors:
            return None
        door = self.door_at(pos)
        if door is None or cid is None:
            return door
        item = self.map_scene.tokens.get(cid)
        if item is None:
            return door
        point = item.mapFromScene(self.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos))
        return None if body_path(item.look.side, item.extent).contains(point) else door

    def _corner(self, pos: QPointF) -> tuple[int, int]:
        grid_map = self.controller.encounter.map
        return snap_corner(self.mapToScene(pos.toPoint()), grid_map.width, grid_map.height)

    def _start_line(self, pos: QPointF, door: bool) -> None:
        corner = self._corner(pos)
        self._line = _LineDraw(door, corner, corner)
        self._show_line()

    def _line_to(self, pos: QPointF) -> None:
        line = self._line
        assert line is not None
        corner = self._corner(pos)
        if corner != line.end:
            line.end = corner
            self._show_line()

    def _show_line(self) -> None:
        line = self._line
        assert line is not None
        a, b = scene_point(line.start), scene_point(line.end)
        self.lines_preview.set_lines([QLineF(a, b)], LinesPreview.DRAW, door=line.door)
        what = "door" if line.door else "wall"
        if line.start == line.end:
            self._say(f"{what}: from corner {line.start}; drag to another corner")
        else:
            cells = QLineF(a, b).length() / style.CELL_PX
            self._say(f"{what}: {line.start} to {line.end}, {cells:.3g} cell{'s' if cells != 1 else ''}")

    def _finish_line(self) -> None:
        line = self._line
        assert line is not None
        self._line = None
        self.lines_preview.clear()
        self._say("")
        if line.start == line.end:
            self._refuse("Drag from one cell corner to another to draw a wall or a door")
            return
        self._do(AddWall(line.start, line.end, door=line.door))

    def _erase_to(self, pos: QPointF) -> None:
        erase = self._erase
        assert erase is not None
        line = self.line_at(pos)
        if line is None or line in erase.picked:
            return
        erase.picked.append(line)
        self.lines_preview.set_lines([scene_line(picked) for picked in erase.picked], LinesPreview.ERASE)
        n = len(erase.picked)
        self._say(f"erase: {n} wall line{'s' if n != 1 else ''} or door{'s' if n != 1 else ''}")

    def _finish_erase(self) -> None:
        erase = self._erase
        assert erase is not None
        self._erase = None
        self.lines_preview.clear()
        self._say("")
        if not erase.picked:
            self._refuse("No wall line or door there to erase")
            return
        if len(erase.picked) == 1:
            self._do(RemoveWall(erase.picked[0].a, erase.picked[0].b))
            return
        stack = self.controller.undo_stack
        stack.beginMacro(f"Erase {len(erase.picked)} wall lines and doors")  # one drag, one undo step
        try:
            for line in erase.picked:
                self._do(RemoveWall(line.a, line.b))
        finally:
            stack.endMacro()

    # -- fog of war ------------------------------------------------------------------------------

    def _start_fog(self, button: Qt.MouseButton, cell: Cell) -> None:
        shown = button == Qt.MouseButton.LeftButton
        self.map_scene.removeItem(self.fog_preview)
        self.fog_preview = CellsItem(FOG_STYLES["reveal" if shown else "hide"], PAINT_Z)
        self.map_scene.addItem(self.fog_preview)
        self._fog = _FogRect(shown, cell, cell)
        self._show_fog()

    def _fog_to(self, cell: Cell) -> None:
        fog = self._fog
        assert fog is not None
        if cell != fog.end:
            fog.end = cell
            self._show_fog()

    def _show_fog(self) -> None:
        fog = self._fog
        assert fog is not None
        grid_map = self.controller.encounter.map
        cells = fog.cells(grid_map.width, grid_map.height)
        self.fog_preview.set_cells(CellMask.from_cells(cells) if cells else None)
        verb = "show the players" if fog.shown else "hide from the players"
        self._say(f"{verb}: {len(cells)} cell{'s' if len(cells) != 1 else ''}")

    def _finish_fog(self) -> None:
        fog = self._fog
        assert fog is not None
        self._fog = None
        self.fog_preview.clear()
        self._say("")
        encounter = self.controller.encounter
        cells = fog.cells(encounter.map.width, encounter.map.height)
        explored = encounter.fog.explored
        # Only what the rectangle changes: a drag that changes nothing is no step in the history.
        changed = cells - explored if fog.shown else cells & explored
        if not changed:
            said = "already shown to" if fog.shown else "not shown to"
            self._refuse(f"Those cells are {said} the players: nothing to change")
            return
        self._do(RevealCells(tuple(sorted(changed)), shown=fog.shown))

    # -- the keyboard ----------------------------------------------------------------------------

    def event(self, event: QEvent) -> bool:
        # During a drag, W, Backspace and Escape steer the drag: they must beat the window's
        # shortcuts (W is also "paint walls"), which Qt would otherwise run first.
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and self._drag is not None
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_W, Qt.Key.Key_Backspace, Qt.Key.Key_Escape)
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if self._drag is not None and self._drag_active:
            if key == Qt.Key.Key_W:
                self._pin_waypoint()
                return
            if key == Qt.Key.Key_Backspace:
                self._unpin_waypoint()
                return
            if key == Qt.Key.Key_Shift and self._drag_target is not None:
                self._drag_to(self._cell_under_cursor() or self._drag_target, True, again=True)
                return
        if key == Qt.Key.Key_Escape:
            if self._gesture():
                self.cancel_gesture()
            else:
                self.controller.select(None)
            return
        if self._drag is None and self._turn is None:
            if key == Qt.Key.Key_Delete:
                self.remove_selected()
                return
            if key == Qt.Key.Key_BracketLeft or event.text() == "[":
                self.turn_selected(-45)
                return
            if key == Qt.Key.Key_BracketRight or event.text() == "]":
                self.turn_selected(45)
                return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Shift and self._drag is not None and self._drag_active:
            if self._drag_target is not None:
                self._drag_to(self._cell_under_cursor() or self._drag_target, False, again=True)
            return
        super().keyReleaseEvent(event)

    # -- drops from the docks --------------------------------------------------------------------

    def _drop_anchor(self, pos: QPointF, size: int) -> Cell | None:
        cell = self._cell(pos)
        if not self._on_map(cell):
            return None
        grid_map = self.controller.encounter.map
        x = min(max(cell[0] - (size - 1) // 2, 0), max(0, grid_map.width - size))
        y = min(max(cell[1] - (size - 1) // 2, 0), max(0, grid_map.height - size))
        return (x, y)

    def _drop_size(self, event: QDropEvent | QDragMoveEvent) -> int | None:
        data = event.mimeData()
        cid = read_combatant(data)
        if cid is not None:
            c = self.controller.combatant(cid)
            return c.size if c is not None else 1
        creature = read_creature(data)
        if creature is not None:
            size = creature.get("size", 1)
            return size if isinstance(size, int) and 1 <= size <= 4 else 1
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        data = event.mimeData()
        if data.hasFormat(MIME_COMBATANT) or data.hasFormat(MIME_CREATURE):
            event.acceptProposedAction()
            self._show_drop(event)
        elif self.files_dropped.accepts(data):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self.files_dropped.accepts(event.mimeData()) or self._show_drop(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._drop_marker.hide()
        event.accept()

    def _show_drop(self, event: QDragMoveEvent) -> bool:
        size = self._drop_size(event)
        anchor = self._drop_anchor(event.position(), size) if size is not None else None
        if anchor is None or size is None:
            self._drop_marker.hide()
            return False
        self._drop_marker.set_about(read_combatant(event.mimeData()))
        self._drop_marker.show_at(anchor, size)
        self._hover(self._cell(event.position()))
        return True

    def dropEvent(self, event: QDropEvent) -> None:
        self._drop_marker.hide()
        data = event.mimeData()
        if self.files_dropped.accepts(data):
            event.acceptProposedAction()
            self.files_dropped.take(data)
            return
        size = self._drop_size(event)
        anchor = self._drop_anchor(event.position(), size) if size is not None else None
        if anchor is None:
            event.ignore()
            return
        event.acceptProposedAction()
        cid = read_combatant(data)
        if cid is not None:
            token = self.controller.encounter.tokens.get(cid)
            if token is not None:
                if token.cell != anchor:
                    self._do(Move(cid, to=anchor, forced=True))
                return
            c = self.controller.combatant(cid)
            facing = self._facing_for(c.side if c is not None else Side.PARTY, anchor, size or 1)
            if self._do(PlaceToken(cid, anchor, facing)) is not None:
                self.controller.select(cid)
            return
        creature = read_creature(data)
        if creature is not None:
            facing = self._facing_for(Side.OPPONENTS, anchor, size or 1)
            self.controller.add_combatant(creature_for(creature), cell=anchor, facing=facing)

    def _facing_for(self, side: Side, anchor: Cell, size: int) -> int:
        """A new token faces the other side's tokens (their centre), in 45 degree steps."""
        encounter = self.controller.encounter
        points = []
        for cid, token in encounter.tokens.items():
            c = self.controller.combatant(cid)
            if c is not None and c.side is not side and not c.down:
                points.append(grid.footprint_center(token.cell, c.size))
        if not points:
            return 90 if side is Side.PARTY else 270
        cx = sum(p[0] for p in points) / len(points)
        cy = sum(p[1] for p in points) / len(points)
        me = grid.footprint_center(anchor, size)
        if (cx, cy) == me:
            return 90 if side is Side.PARTY else 270
        return grid.snap_facing(grid.direction_deg(me, (cx, cy)), 45)

    # -- for tests and tools -----------------------------------------------------------------

    def scene_point_of(self, cell: Cell, size: int = 1) -> QPointF:
        """The scene point at the centre of a cell (or footprint)."""
        return footprint_centre(cell, size)

    def visible_map_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

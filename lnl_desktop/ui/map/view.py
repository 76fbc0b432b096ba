"""The battle map widget: zoom and fit, the gesture under way, hover and menus; its keys
(:mod:`.view_keys`) and the drops from the docks (:mod:`.drops`) are mixins of their own.

The view turns gestures into actions and hands each one to ``controller.do`` (one undo step); it
decides nothing itself. Each gesture is a class of :mod:`lnl_desktop.ui.map.gestures`: the view
starts one at a press (the tool and the button say which), holds it and forwards the mouse and
the keys to it until it ends. While a gesture is under way it shows a preview (the route, the
reach, the painted cells) built from the core's own searches, and the engine has the last word at
the release: a refused action leaves the map as it was and the controller says why.

Mouse, select tool: left on a token drags it (right click or W pins a waypoint, Backspace drops
the last one, Escape cancels, Shift makes it a forced move); left on empty space pans, a click
there deselects; a click on a door opens or closes it; right-drag on a token turns it (Alt: 15
degree steps). Walls / difficult tools: left paints, right erases; erase tool: either button
erases both layers. Wall lines / doors tools: a left drag draws a wall (a door) between the cell
corners nearest the press and the release; a right click (or drag) erases the segments or doors
under it; erase lines tool: either button erases them. Fog tool: a left drag over a rectangle
shows its cells to the players, a right drag hides them again. Draw tool: a left drag draws the
shape of ``draw_style`` (a click places a label); a right click opens the menu of the drawing under
it, elsewhere the tool's shape, colour and width. Template tool: a right click opens the template's
menu, elsewhere its shapes. Measure tool: a left drag measures from the cell or token pressed to
the cursor, with the drag's waypoint keys; it changes nothing (a right click without a ruler says
how). With the select tool a press on a drawing's line (or a label) selects it and a drag moves it;
Delete erases it, a right click opens its menu, a double click edits a label's words; a right click
on a token opens the token's menu (:mod:`~lnl_desktop.ui.map.token_menu`), on bare floor the
floor's. A right click during a left drag cancels it. No right click does nothing: it acts, opens
a menu or says why not. Middle button pans in every tool; the wheel zooms about the cursor.

The map fits the view (on show, on a resize, when the map changes size, for another encounter)
until the GM zooms or pans by hand; :meth:`MapView.fit_map` (Ctrl+F) fits it again. Whatever
moves the map under a still cursor hovers the cell now under it, so no hover overlay outlives
its token.

In combat a click (no drag) on a token does what the table needs next: between turns, on a
combatant who may act now, it begins that turn; during a turn whose attack is being set up
(``controller.plan``), on another combatant, it makes that one the target (drawn with a target
ring) and selects it too: the keys (Ctrl+H, Ctrl+Shift+D, Delete) act on the token the GM clicked last.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QEvent, QLineF, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShowEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsView, QInputDialog, QMenu, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.encounter.actions import (
    Action,
    EditDrawing,
    Face,
    PlaceLight,
    RemoveDrawing,
    RemoveTemplate,
    RemoveToken,
    SetDoor,
    SetFog,
)
from lnl_desktop.core.encounter.drawings import MAX_TEXT, Drawing
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.map_model import Door, MapGrid, WallSegment
from lnl_desktop.core.map import grid
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.terrain import map_terrain
from lnl_desktop.lazy import loaded
from lnl_desktop.ui.map.drag import DragLayer
from lnl_desktop.ui.map.draw_menu import draw_menu
from lnl_desktop.ui.map.drawing_gestures import DrawShape, LightAt, MoveDrawing
from lnl_desktop.ui.map.drawings import DrawStyle, drawing_menu
from lnl_desktop.ui.map.drops import TokenDrops
from lnl_desktop.ui.map.edit_gestures import DrawLine, EraseLines, FogRect, PaintStroke
from lnl_desktop.ui.map.geometry import FIT_MARGIN_PX, cell_at, fit_scale, footprint_centre
from lnl_desktop.ui.map.gestures import PAINT_Z, Gesture, Pan
from lnl_desktop.ui.map.light import LightChoice
from lnl_desktop.ui.map.overlays import (
    FOG_STYLES,
    MARKER_Z,
    PAINT_STYLES,
    CellsItem,
    MarkerItem,
    cosmetic,
)
from lnl_desktop.ui.map.players_frame import DragFrame, PlayersFrame
from lnl_desktop.ui.map.ruler import Measure
from lnl_desktop.ui.map.rules_overlays import RulesOverlays
from lnl_desktop.ui.map.scene import BackgroundCache, MapScene
from lnl_desktop.ui.map.template_gestures import LayTemplate, ShapeTemplate, TemplateCommands, template_shapes_menu
from lnl_desktop.ui.map.templates import TemplateStyle
from lnl_desktop.ui.map.token_gestures import MoveToken, TurnToken
from lnl_desktop.ui.map.tokens import body_path
from lnl_desktop.ui.map.view_keys import MapKeys
from lnl_desktop.ui.map.walls import PICK_PX, LinesPreview, nearest_line
from lnl_desktop.ui.plumbing import theme
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.mime import (
    FileDrops,
)

# The map's tools, by the names set_tool takes and toolChanged says.
TOOLS = (
    "select",
    "walls",
    "difficult",
    "erase",
    "wall_lines",
    "doors",
    "erase_lines",
    "fog",
    "draw",
    "light",
    "template",
    "measure",
)
LINE_TOOLS = ("wall_lines", "doors", "erase_lines")
MIN_ZOOM = 0.1
MAX_ZOOM = 6.0
STEP_ZOOM = 1.25
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


class MapView(TemplateCommands, TokenDrops, MapKeys, QGraphicsView):
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
        self.draw_style = DrawStyle()  # what the Draw tool draws next
        self.template_style = TemplateStyle()  # what the Template tool lays next
        self.area_dialog: QWidget | None = None  # the Area effect dialog last opened
        self.overlays = RulesOverlays(self.map_scene, controller)
        self.drag_layer = DragLayer(self.map_scene)
        self.paint_preview = CellsItem(PAINT_STYLES["walls"], PAINT_Z)
        self.map_scene.addItem(self.paint_preview)
        self.lines_preview = LinesPreview(PAINT_Z)
        self.map_scene.addItem(self.lines_preview)
        self.fog_preview = CellsItem(FOG_STYLES["reveal"], PAINT_Z)
        self.map_scene.addItem(self.fog_preview)
        self._drop_marker = MarkerItem(QColor("#009E73"), Qt.PenStyle.SolidLine, QColor(0, 158, 115, 60))
        self.map_scene.addItem(self._drop_marker)
        self.target_ring = TargetRing(TARGET_COLOR, Qt.PenStyle.SolidLine)
        self.target_ring.setZValue(MARKER_Z + 1)
        self.map_scene.addItem(self.target_ring)

        self.players_frame: PlayersFrame | None = None  # at real size: what the players' screen shows
        self._gesture: Gesture | None = None  # the drag, turn, stroke, line, rectangle or pan under way
        self._last_mouse: QPointF | None = None
        self.context_menu: QMenu | None = None  # the last token menu shown (a right-click)
        self.hand_dialog: QWidget | None = None  # the Damage / Heal dialog opened from it
        self.light_choice = LightChoice()  # what the Light tool places (a torch unless chosen)
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
        self.update_cursor()
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
        self.update_cursor()
        self.toolChanged.emit(name)

    def set_fog(self, enabled: bool) -> list[Event] | None:
        """Fog of war in the player view on or off: one SetFog action (undoable)."""
        if self.controller.encounter.fog.enabled == enabled:
            return None
        return self.do(SetFog(enabled))

    def toggle_door(self, door: Door) -> list[Event] | None:
        """Open a closed door or close an open one: one SetDoor action."""
        return self.do(SetDoor(door.a, door.b, not door.open))

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
        self.rehover()

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
        self.rehover()

    def turn_selected(self, step_deg: int) -> list[Event] | None:
        """Turn the selected token by ``step_deg``, snapped to 45 degrees: one Face action."""
        cid = self.controller.selected
        token = self.controller.encounter.tokens.get(cid) if cid else None
        if cid is None or token is None:
            self.refuse("Select a token on the map to turn it")
            return None
        facing = grid.snap_facing(token.facing + step_deg, 45)
        if facing == token.facing:
            return None
        return self.do(Face(cid, facing))

    def remove_selected(self) -> list[Event] | None:
        """Erase the selected drawing, or take the selected combatant's token off the map (the
        combatant stays)."""
        drawing = self.map_scene.drawings.selected_drawing()
        if drawing is not None:
            return self.do(RemoveDrawing(drawing.id))
        template = self.map_scene.templates.selected_template()
        if template is not None:
            return self.do(RemoveTemplate(template.id))
        cid = self.controller.selected
        if cid is None or cid not in self.controller.encounter.tokens:
            self.refuse("Select a token on the map to remove it")
            return None
        return self.do(RemoveToken(cid))

    def center_on(self, cid: str) -> None:
        token = self.controller.encounter.tokens.get(cid)
        c = self.controller.combatant(cid)
        if token is not None and c is not None:
            self.centerOn(footprint_centre(token.cell, c.size))
            self._fit_mode = False  # the GM asked for this place: a resize keeps it
            self.rehover()

    def cancel_gesture(self) -> None:
        """Drop whatever drag, turn, stroke or pan is under way; nothing is applied."""
        if self._gesture is not None:
            self._gesture.cancel()
        self._gesture = None
        self.update_cursor()

    def _previewing(self) -> bool:
        """Whether a drag, turn, stroke, line or fog rectangle is under way (a pan is not)."""
        return self._gesture is not None and self._gesture.previews

    def _begin(self, gesture: Gesture | None) -> None:
        if gesture is not None:
            self._gesture = gesture
            gesture.start()

    def end_gesture(self, gesture: Gesture) -> None:
        """``gesture`` is over: the view no longer forwards the mouse and keys to it."""
        if self._gesture is gesture:
            self._gesture = None

    # -- reacting to the encounter ------------------------------------------------------------

    def _on_synced(self) -> None:
        if not self._applying and self._previewing():
            # The encounter changed under a gesture (an undo, another window): its preview is stale.
            self.cancel_gesture()
        self.overlays.invalidate()
        grid_map = self.controller.encounter.map
        if grid_map is not self._prepared_map:
            self._prepare_map()
        if self._fit_mode and self._fitted_map is not None and self._fitted_map != (grid_map.width, grid_map.height):
            self.fit_map()  # the map changed size (Map settings, its undo): fit the new one
        self.refresh_hover()
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
        terrain = map_terrain(grid_map)
        threading.Thread(target=terrain.build_tables, name="lnl-map-tables", daemon=True).start()

    def say(self, text: str) -> None:
        """Emit ``dragInfo`` when the text changes (a drag repeats itself cell after cell)."""
        if text != self._info:
            self._info = text
            self.dragInfo.emit(text)

    def refuse(self, text: str) -> None:
        """Say why the map did nothing, where the engine's refusals are said too (the status bar and
        the plate over the map), so the plate never keeps an older refusal than the status bar."""
        self.controller.message.emit(text)
        self.controller.refused.emit(text)

    def do(self, action: Action) -> list[Event] | None:
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
        self.rehover()

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
            self.rehover()

    def scene_pos(self, pos: QPointF | QPoint) -> QPointF:
        """The scene point under the viewport point ``pos``."""
        return self.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos)

    def cell_of(self, pos: QPointF | QPoint) -> Cell:
        """The cell under the viewport point ``pos`` (maybe off the map)."""
        return cell_at(self.scene_pos(pos))

    def on_map(self, cell: Cell) -> bool:
        grid_map = self.controller.encounter.map
        return 0 <= cell[0] < grid_map.width and 0 <= cell[1] < grid_map.height

    def cell_under_cursor(self) -> Cell | None:
        return self.cell_of(self._last_mouse) if self._last_mouse is not None else None

    def _token_at(self, cell: Cell) -> str | None:
        return self.map_scene.occupant.get(cell)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.controller.acting.emit()  # the GM acts: a worker sharing the interpreter steps aside first
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        button = event.button()
        pos = event.position()
        self._last_mouse = pos
        self._hover(self.cell_of(pos))  # a press may come without a move first (a touch, a tablet)
        if self._gesture is not None:
            self._gesture.press(event)
            event.accept()
            return
        left_or_right = button in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton)
        if button == Qt.MouseButton.MiddleButton:
            self._begin(Pan(self, event.position().toPoint(), deselect=False))
        elif self._tool == "select":
            cell = self.cell_of(pos)
            cid = self._token_at(cell)
            zoom = self.transform().m11()
            if button == Qt.MouseButton.LeftButton:
                door = self._door_under(pos, cid)
                if door is not None:
                    # A click opens or closes it; a drag from it pans like empty floor.
                    self._begin(Pan(self, event.position().toPoint(), deselect=False, door=door))
                elif cid is None and (frame := self.players_frame) and frame.grips(self.scene_pos(pos), zoom):
                    self._begin(DragFrame(self, frame, self.scene_pos(pos)))  # what the players' screen shows
                elif cid is None and (template := self.template_handle_at(pos)) is not None:
                    self._begin(ShapeTemplate(self, template, pos, resize=True))
                elif cid is None and (drawing := self.drawing_at(pos)) is not None:
                    self._begin(MoveDrawing(self, drawing, pos))
                elif cid is None and (template := self.template_at(pos)) is not None:
                    self._begin(ShapeTemplate(self, template, pos, resize=False))
                elif cid is None:
                    self._begin(Pan(self, event.position().toPoint(), deselect=True))
                else:
                    # One selection: the token clicked is the one the keys act on, even when the
                    # click also makes it the attack's target.
                    targets = MoveToken.targets_on_click(self.controller, cid)
                    # A newly selected one's rings wait for the release or a hold (MoveToken): a press
                    # that becomes a drag hides them at its first step, and shown for that one frame a
                    # bow's range ring has most of the map repainted twice in both windows.
                    wait = cid != self.controller.selected
                    self.overlays.set_selected_hidden(wait)
                    self.controller.select(cid)
                    gesture = MoveToken.pressed(self, cid, cell, event.position().toPoint(), targets)
                    if gesture is None:
                        self.overlays.set_selected_hidden(False)
                    self._begin(gesture)
            elif button == Qt.MouseButton.RightButton and cid is not None:
                self._begin(TurnToken.pressed(self, cid))
            elif button == Qt.MouseButton.RightButton and (drawing := self.drawing_at(pos)) is not None:
                self.drawing_context_menu(drawing, event.globalPosition().toPoint())
            elif button == Qt.MouseButton.RightButton and (template := self.template_at(pos)) is not None:
                self.template_context_menu(template, event.globalPosition().toPoint())
            elif button == Qt.MouseButton.RightButton:
                self.right_click_floor(pos, event.globalPosition().toPoint())
        elif self._tool == "template" and button == Qt.MouseButton.LeftButton:
            self._begin(LayTemplate(self, pos))
        elif self._tool == "template" and button == Qt.MouseButton.RightButton:
            self.right_click_template(pos, event.globalPosition().toPoint())
        elif self._tool == "draw" and button == Qt.MouseButton.LeftButton:
            self._begin(DrawShape(self, pos))
        elif self._tool == "draw" and button == Qt.MouseButton.RightButton:
            self.right_click_draw(pos, event.globalPosition().toPoint())
        elif self._tool in ("wall_lines", "doors") and button == Qt.MouseButton.LeftButton:
            self._begin(DrawLine(self, pos, door=self._tool == "doors"))
        elif self._tool in LINE_TOOLS and left_or_right:
            self._begin(EraseLines(self, pos))
        elif self._tool == "fog" and left_or_right:
            self._begin(FogRect(self, button, self.cell_of(pos)))
        elif self._tool == "light" and left_or_right:
            self._begin(LightAt(self, button, self.cell_of(pos)))
        elif self._tool == "measure":
            if button == Qt.MouseButton.LeftButton:  # measures only: no button paints or erases
                self._begin(Measure.pressed(self, self.cell_of(pos)))
            elif button == Qt.MouseButton.RightButton:  # a waypoint needs a ruler under way: say how
                self.controller.message.emit(
                    "Measure: drag from a cell or a token; while dragging, right-click or W pins a waypoint"
                )
        elif left_or_right:
            self._begin(PaintStroke(self, button, self.cell_of(pos)))
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position()
        self._last_mouse = pos
        cell = self.cell_of(pos)
        gesture = self._gesture
        if gesture is None or gesture.hovers:  # a pan hovers what slides under the cursor itself
            self._hover(cell)
        if gesture is not None:
            gesture.move(event, cell)
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pos = event.position()
        if self._gesture is not None:
            self._gesture.release(event, self.cell_of(pos))
        self._last_mouse = pos
        self._hover(self.cell_of(pos))
        self.update_cursor()
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        pos = event.position()
        if self._tool == "select" and self._gesture is None and event.button() == Qt.MouseButton.LeftButton:
            drawing = self.drawing_at(pos) if self._token_at(self.cell_of(pos)) is None else None
            if drawing is not None and drawing.text:
                self.edit_words(drawing.id)  # a label: its words
                event.accept()
                return
        self.mousePressEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        if self._gesture is None or not self._gesture.keeps_hover:
            self._last_mouse = None
            self._hover(None)
        super().leaveEvent(event)

    def rehover(self) -> None:
        """The map moved under a still cursor (a pan, a zoom, a fit): hover the cell now under it."""
        if self._last_mouse is not None:
            self._hover(self.cell_of(self._last_mouse))

    def _hover(self, cell: Cell | None) -> None:
        if cell is not None and not self.on_map(cell):
            cell = None
        if cell != self._hover_cell:
            self._hover_cell = cell
            self.cellHovered.emit(*(cell if cell is not None else (-1, -1)))
            self.refresh_hover()
        if self._gesture is None:
            self.update_cursor()

    def refresh_hover(self) -> None:
        cid = self._token_at(self._hover_cell) if self._hover_cell is not None and self._tool == "select" else None
        if self._gesture is not None and cid == self._gesture.dragged_token:
            cid = None
        self.overlays.set_hovered(cid)

    def update_cursor(self) -> None:
        zoom = self.transform().m11()
        if self._gesture is not None and self._gesture.grabbing():
            shape = Qt.CursorShape.ClosedHandCursor
        elif self._tool != "select":
            shape = Qt.CursorShape.CrossCursor
        elif (
            self._last_mouse is not None
            and self._hover_cell is not None
            and self._door_under(self._last_mouse, self._token_at(self._hover_cell))
        ):
            shape = Qt.CursorShape.PointingHandCursor  # a click opens or closes the door
        elif (frame := self.players_frame) and self._last_mouse and frame.grips(self.scene_pos(self._last_mouse), zoom):
            shape = Qt.CursorShape.SizeAllCursor  # the players' frame: a drag moves what they see
        elif self._hover_cell is not None and self._token_at(self._hover_cell) is not None:
            shape = Qt.CursorShape.OpenHandCursor
        else:
            shape = Qt.CursorShape.ArrowCursor
        self.viewport().setCursor(shape)

    def scroll_by(self, delta: QPoint) -> None:
        """Slide the map by ``delta`` viewport pixels (a pan by hand: a resize keeps this view)."""
        self._fit_mode = False
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
        self.rehover()

    # -- the attack's target ---------------------------------------------------------------------

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

    # -- a token's menu --------------------------------------------------------------------------

    def token_menu(self, cid: str) -> QMenu:
        """The commands on a token: its conditions, hide or show, Damage / Heal, a light, off the map."""
        from lnl_desktop.ui.map.token_menu import token_menu  # at the first right-click, not at the start

        return self._keep_menu(token_menu(self, cid))

    def _keep_menu(self, menu: QMenu) -> QMenu:
        """Hold ``menu`` as the last one shown; the one before it goes (a right-click each time)."""
        if self.context_menu is not None and self.context_menu is not menu:
            self.context_menu.deleteLater()
        self.context_menu = menu
        return menu

    def popup_menu(self, menu: QMenu, where: QPoint) -> QMenu:
        self._keep_menu(menu).popup(where)
        return menu

    def right_click_floor(self, pos: QPointF, where: QPoint) -> QMenu:
        """A right-click on the floor with the Select tool: the door there, a light, the fit."""
        from lnl_desktop.ui.map.token_menu import floor_menu

        cell = self.cell_of(pos)
        return self.popup_menu(floor_menu(self, cell if self.on_map(cell) else None, self.door_at(pos)), where)

    def right_click_draw(self, pos: QPointF, where: QPoint) -> QMenu:
        """A right-click with the Draw tool: the menu of the drawing under it, else the tool's own
        choices (shape, colour, width)."""
        drawing = self.drawing_at(pos)
        if drawing is not None:
            return self.drawing_context_menu(drawing, where)
        return self.popup_menu(draw_menu(self, self), where)

    def right_click_template(self, pos: QPointF, where: QPoint) -> QMenu:
        """A right-click with the Template tool: the menu of the template under it, else the shapes."""
        template = self.template_at(pos)
        if template is not None:
            return self.template_context_menu(template, where)
        menu = template_shapes_menu(self, lambda shape: self.lay_template(shape), self.template_style)
        return self.popup_menu(menu, where)

    def light_to_place(self) -> PlaceLight | None:
        """The Light tool's light (its cell set by the click)."""
        return self.light_choice.action()

    # -- drawings and labels ---------------------------------------------------------------------

    def drawing_at(self, pos: QPointF | QPoint) -> Drawing | None:
        """The drawing a press at the viewport point ``pos`` picks (on its line, or on a label)."""
        point = self.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos)
        return self.map_scene.drawings.drawing_at(point, self._pick_within())

    def drawing_context_menu(self, drawing: Drawing, where: QPoint) -> QMenu:
        self.controller.select(None)
        self.map_scene.drawings.select(drawing.id)
        return self.popup_menu(drawing_menu(self, drawing, self.do, lambda: self.edit_words(drawing.id)), where)

    def ask_text(self, title: str, text: str = "") -> str | None:
        """A label's words from the GM (None: cancelled)."""
        words, ok = QInputDialog.getText(self, title, f"Words (at most {MAX_TEXT} characters):", text=text)
        return words if ok else None

    def edit_words(self, did: str) -> list[Event] | None:
        drawing = next((d for d in self.controller.encounter.drawings if d.id == did), None)
        if drawing is None:
            return None
        words = self.ask_text("Edit the label", drawing.text)
        if words is None or words == drawing.text:
            return None
        return self.do(EditDrawing(did, text=words))

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

    # -- for tests and tools -----------------------------------------------------------------

    @property
    def gesture(self) -> Gesture | None:
        """The gesture under way (a drag, a turn, a stroke, a line, a fog rectangle, a pan), if any."""
        return self._gesture

    def scene_point_of(self, cell: Cell, size: int = 1) -> QPointF:
        """The scene point at the centre of a cell (or footprint)."""
        return footprint_centre(cell, size)

    def visible_map_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

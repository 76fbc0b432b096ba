"""The players' screen as a dashed frame on the GM's map, while the player view shows real size.

It outlines exactly the part of the map the players' screen shows (turned or not), and only on the
GM's map: the players' scene never holds it. The GM drags it by its edge or its tab to move what
the players see; the player view snaps it to whole cells, so miniatures stand on whole cells. A
move is a view setting, like the GM's own zoom: no undo step, no encounter change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.ui.map.gestures import Gesture

if TYPE_CHECKING:
    from PySide6.QtGui import QMouseEvent

    from lnl_desktop.core.map.grid import Cell
    from lnl_desktop.ui.map.gestures import MapSurface

FRAME_Z = 95.0  # over the tokens and overlays: the GM must see where the screen's edge cuts
GRIP_PX = 10.0  # how near the edge (screen pixels) a press takes the frame
FRAME_COLOR = QColor(255, 170, 0)
TAB_TEXT_PX = 14.0
FRAME_TIP = (
    "The players' screen at real size: drag its edge or its tab to move what the players see (it "
    "snaps to whole cells). A view setting, like your zoom: no undo step, the encounter is unchanged."
)


def tab_font() -> QFont:
    font = QFont()
    font.setPixelSize(round(TAB_TEXT_PX))
    font.setBold(True)
    return font


class PlayersFrame(QGraphicsObject):
    """A dashed rectangle over ``area`` (scene units): what the players' screen shows now."""

    dragged = Signal(QPointF)  # the top-left the GM asks for (the player view snaps it)

    def __init__(self) -> None:
        super().__init__()
        self.area = QRectF()
        self.rotation_words = ""
        self.setZValue(FRAME_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # the map view's gestures handle the mouse
        self.setToolTip(FRAME_TIP)
        self._scale = 1.0  # the GM view's zoom at the last paint: the tab and the grip in screen pixels

    def set_area(self, area: QRectF, rotation: int = 0) -> None:
        if area == self.area and self.rotation_words == self._turn_words(rotation):
            return
        self.prepareGeometryChange()
        self.area = QRectF(area)
        self.rotation_words = self._turn_words(rotation)
        self.update()

    @staticmethod
    def _turn_words(rotation: int) -> str:
        return f" (turned {rotation}°)" if rotation else ""

    def words(self) -> str:
        return f"Players' screen{self.rotation_words}"

    def tab_rect(self, scale: float | None = None) -> QRectF:
        """The tab with the frame's name, just above its top-left corner (scene units)."""
        s = scale or self._scale or 1.0
        width = QFontMetricsF(tab_font()).horizontalAdvance(self.words()) + 16
        height = TAB_TEXT_PX + 8
        return QRectF(self.area.left(), self.area.top() - height / s, width / s, height / s)

    def boundingRect(self) -> QRectF:
        margin = 2 * GRIP_PX / (self._scale or 1.0)
        return self.area.united(self.tab_rect()).adjusted(-margin, -margin, margin, margin)

    def shape(self) -> QPainterPath:
        """The edge and the tab only: inside, the map is the GM's as ever (tokens, panning)."""
        edge = QPainterPath()
        edge.addRect(self.area)
        stroker = QPainterPathStroker()
        stroker.setWidth(2 * GRIP_PX / (self._scale or 1.0))
        path = stroker.createStroke(edge)
        path.addRect(self.tab_rect())
        return path

    def grips(self, scene_pos: QPointF, scale: float) -> bool:
        """Whether a press at ``scene_pos`` (the GM view at ``scale``) takes the frame."""
        if self.area.isEmpty() or not self.isVisible():
            return False
        if self.tab_rect(scale).contains(scene_pos):
            return True
        band = GRIP_PX / scale
        outer = self.area.adjusted(-band, -band, band, band)
        inner = self.area.adjusted(band, band, -band, -band)
        return outer.contains(scene_pos) and not inner.contains(scene_pos)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        scale = painter.worldTransform().m11() or 1.0
        if abs(scale - self._scale) > 1e-6:
            self.prepareGeometryChange()  # the tab and the grip keep their screen size
            self._scale = scale
        painter.setBrush(Qt.BrushStyle.NoBrush)
        dark = QPen(QColor(0, 0, 0, 200), 5)
        dark.setCosmetic(True)
        painter.setPen(dark)
        painter.drawRect(self.area)
        dashes = QPen(FRAME_COLOR, 3, Qt.PenStyle.DashLine)
        dashes.setCosmetic(True)
        painter.setPen(dashes)
        painter.drawRect(self.area)
        tab = self.tab_rect(scale)
        painter.save()
        painter.translate(tab.topLeft())
        painter.scale(1 / scale, 1 / scale)  # words at their screen size whatever the zoom
        box = QRectF(0, 0, tab.width() * scale, tab.height() * scale)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(FRAME_COLOR))
        painter.drawRect(box)
        painter.setFont(tab_font())
        painter.setPen(QColor(0, 0, 0))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self.words())
        painter.restore()


class DragFrame(Gesture):
    """The GM drags the players' frame: the players' screen follows, cell by cell."""

    previews = False

    def __init__(self, view: MapSurface, frame: PlayersFrame, scene_pos: QPointF) -> None:
        super().__init__(view)
        self.frame = frame
        self.pressed_at = QPointF(scene_pos)
        self.first = frame.area.topLeft()
        self.moved = False

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        delta = self.view.scene_pos(event.position()) - self.pressed_at
        self.moved = True
        self.frame.dragged.emit(self.first + delta)

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        self.end()
        self.view.update_cursor()
        if self.moved:
            self.view.controller.message.emit("The players' screen moved (a view setting: no undo step)")

    def cancel(self) -> None:
        self.frame.dragged.emit(self.first)  # back where it was
        super().cancel()

    def grabbing(self) -> bool:
        return self.moved

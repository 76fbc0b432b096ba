"""The GM's drawings and labels on the map: one cached item each, above the terrain and under the
tokens, kept in step with the encounter's drawings (a tuple replaced whole: an unchanged tuple is
looked at no further). The players' scene holds only the drawings shown to them. An item paints
into its device-coordinate cache once, so a token dragged over a hundred drawings repaints none.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QKeySequence,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPixmapCache,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QMenu,
    QStyleOptionGraphicsItem,
    QWidget,
)

from lnl_desktop.core.encounter.actions import Action, EditDrawing, RemoveDrawing
from lnl_desktop.core.encounter.drawings import Drawing, DrawingKind
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.ui.map.failsafe import fails_closed
from lnl_desktop.ui.plumbing.style import CELL_PX

DRAWING_Z = 6.0  # over the floor, walls and doors; under the fog's shade, the rules overlays and the tokens
SELECTED_COLOR = QColor("#0077BB")
# Colours easy to tell apart for colour-blind eyes too (Paul Tol's vivid scheme), and black.
COLOURS = {
    "Red": "#cc3311",
    "Orange": "#ee7733",
    "Blue": "#0077bb",
    "Cyan": "#33bbee",
    "Teal": "#009988",
    "Magenta": "#ee3377",
    "Black": "#000000",
}
WIDTHS = {"Thin": 2, "Medium": 4, "Thick": 8}


@dataclass
class DrawStyle:
    """What the Draw tool draws next: its shape, colour, width and whether the players see it."""

    kind: DrawingKind = DrawingKind.RECTANGLE
    colour: str = "#cc3311"
    width: int = 4
    shown: bool = False


def to_scene(point: tuple[float, float]) -> QPointF:
    return QPointF(point[0] * CELL_PX, point[1] * CELL_PX)


def to_cells(point: QPointF) -> tuple[float, float]:
    """A scene point in cells, to a hundredth of a cell (a file need not keep more)."""
    return (round(point.x() / CELL_PX, 2), round(point.y() / CELL_PX, 2))


def label_font(width: int) -> QFont:
    """A label's font: its width sets its size (width 4 is a third of a cell high)."""
    font = QFont()
    font.setPixelSize(round(CELL_PX * (0.18 + 0.04 * width)))
    font.setBold(True)
    return font


def shape_path(kind: DrawingKind, points: tuple[tuple[float, float], ...]) -> QPainterPath:
    """The path of a shape drawn through ``points`` (in cells), in scene units; empty for a label."""
    path = QPainterPath()
    if kind is DrawingKind.TEXT or not points:
        return path
    if kind in (DrawingKind.RECTANGLE, DrawingKind.ELLIPSE) and len(points) == 2:
        rect = QRectF(to_scene(points[0]), to_scene(points[1])).normalized()
        if kind is DrawingKind.RECTANGLE:
            path.addRect(rect)
        else:
            path.addEllipse(rect)
        return path
    path.moveTo(to_scene(points[0]))
    for point in points[1:]:
        path.lineTo(to_scene(point))
    return path


def drawing_pen(drawing: Drawing | DrawStyle, gm_only: bool) -> QPen:
    """A drawing's pen: its width in scene pixels at 1:1; dashed on the GM's map when the players
    do not see it."""
    pen = QPen(QColor(drawing.colour), drawing.width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    if gm_only:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


class DrawingItem(QGraphicsRectItem):
    """One drawing or label, painted once into its cache.

    A rect item with no pen, its rect the bounds: Qt asks a cached item's bounds at every repaint
    over it (two hundred drawings along a drag's path: hundreds of times a frame), and a rect
    item's are answered in C++, not by a Python override."""

    def __init__(self, drawing: Drawing, player: bool) -> None:
        super().__init__()
        self.setPen(Qt.PenStyle.NoPen)
        self.player = player
        self.selected = False
        self.setZValue(DRAWING_Z)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # the view's gestures handle the mouse
        self.drawing = drawing
        self._path = QPainterPath()
        self._rect = QRectF()
        self.set_drawing(drawing)

    def set_drawing(self, drawing: Drawing) -> None:
        self.drawing = drawing
        self.setPos(0, 0)
        self._path = shape_path(drawing.kind, drawing.points)
        if drawing.kind is DrawingKind.TEXT:
            metrics = QFontMetricsF(label_font(drawing.width))
            size = metrics.size(0, self.shown_text)
            self._rect = QRectF(to_scene(drawing.points[0]), size).adjusted(-4, -2, 4, 2)
        else:
            half = drawing.width / 2 + 1
            self._rect = self._path.boundingRect().adjusted(-half, -half, half, half)
        self.setRect(self._rect.adjusted(-4, -4, 4, 4))  # room for the selection's frame
        self.update()

    @property
    def shown_text(self) -> str:
        """A label's words as drawn: its lines kept, any other control or bidi character shown as its escape."""
        return visible(self.drawing.text, lines=True)

    def set_selected(self, on: bool) -> None:
        if on != self.selected:
            self.selected = on
            self.update()

    def hit(self, point: QPointF, within: float) -> bool:
        """Whether a press at the scene point ``point`` picks this drawing: on its line (``within``
        scene units of it), or anywhere on a label."""
        point = point - self.pos()
        if not self._rect.adjusted(-within, -within, within, within).contains(point):
            return False
        if self.drawing.kind is DrawingKind.TEXT:
            return True
        stroker = QPainterPathStroker()
        stroker.setWidth(max(self.drawing.width, 2 * within))
        return stroker.createStroke(self._path).contains(point)

    @fails_closed
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        drawing = self.drawing
        gm_only = not self.player and not drawing.shown
        if drawing.kind is DrawingKind.TEXT:
            painter.setFont(label_font(drawing.width))
            rect = self._rect
            painter.fillRect(rect, QColor(255, 255, 255, 170 if gm_only else 215))
            if gm_only:
                painter.setPen(QPen(QColor(drawing.colour), 1, Qt.PenStyle.DashLine))
                painter.drawRect(rect)
            painter.setPen(QColor(drawing.colour))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.shown_text)
        else:
            painter.setPen(drawing_pen(drawing, gm_only))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._path)
        if self.selected:
            frame = QPen(SELECTED_COLOR, 2, Qt.PenStyle.DashLine)
            frame.setCosmetic(True)
            painter.setPen(frame)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self._rect.adjusted(-2, -2, 2, 2))


class DrawingPreview(QGraphicsItem):
    """The shape being drawn, before the release makes it a drawing."""

    def __init__(self, style: DrawStyle) -> None:
        super().__init__()
        self.style = style
        self.setZValue(DRAWING_Z + 40)  # over the tokens while it is drawn
        self._path = QPainterPath()

    def set_points(self, points: tuple[tuple[float, float], ...]) -> None:
        self.prepareGeometryChange()
        self._path = shape_path(self.style.kind, points)
        self.update()

    def boundingRect(self) -> QRectF:
        half = self.style.width / 2 + 2
        return self._path.boundingRect().adjusted(-half, -half, half, half)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(drawing_pen(self.style, not self.style.shown))
        painter.drawPath(self._path)


# Room for the items' device caches (Qt keeps them in QPixmapCache, 10 MB unless told): 200
# drawings at 1:1 take some 30 MB, and a cache too small for them repaints every one at every frame.
PIXMAP_CACHE_KB = 64 * 1024


class DrawingLayer:
    """The scene's drawings: one :class:`DrawingItem` per drawing it shows (the players' scene: the
    shown ones only), the GM's selected one, and whether the layer shows at all."""

    def __init__(self, scene: QGraphicsScene, player: bool) -> None:
        if QPixmapCache.cacheLimit() < PIXMAP_CACHE_KB:
            QPixmapCache.setCacheLimit(PIXMAP_CACHE_KB)
        self.scene = scene
        self.player = player
        self.items: dict[str, DrawingItem] = {}
        self.selected: str | None = None
        self.visible = True
        self._drawings: tuple[Drawing, ...] | None = None

    def sync(self, encounter: Encounter) -> None:
        drawings = encounter.drawings
        if drawings is self._drawings:
            return
        self._drawings = drawings
        wanted = {d.id: d for d in drawings if not self.player or d.shown}
        for did in [did for did in self.items if did not in wanted]:
            self.scene.removeItem(self.items.pop(did))
        for did, drawing in wanted.items():
            item = self.items.get(did)
            if item is None:
                item = self.items[did] = DrawingItem(drawing, self.player)
                item.setVisible(self.visible)
                item.set_selected(did == self.selected)
                self.scene.addItem(item)
            elif item.drawing is not drawing:
                item.set_drawing(drawing)
        if self.selected is not None and self.selected not in self.items:
            self.selected = None

    def reset(self) -> None:
        """A new encounter: every drawing is looked at again."""
        self._drawings = None
        self.select(None)

    def set_visible(self, on: bool) -> None:
        self.visible = on
        for item in self.items.values():
            item.setVisible(on)
        if not on:
            self.select(None)

    def select(self, did: str | None) -> None:
        if did == self.selected:
            return
        for other in (self.selected, did):
            item = self.items.get(other) if other else None
            if item is not None:
                item.set_selected(other == did)
        self.selected = did

    def selected_drawing(self) -> Drawing | None:
        item = self.items.get(self.selected) if self.selected else None
        return item.drawing if item is not None else None

    def drawing_at(self, point: QPointF, within: float) -> Drawing | None:
        """The topmost drawing a press at the scene point ``point`` picks, if the layer shows."""
        if not self.visible:
            return None
        for item in reversed(list(self.items.values())):
            if item.hit(point, within):
                return item.drawing
        return None


def offset_between(start: QPointF, end: QPointF) -> tuple[float, float]:
    """A drag from ``start`` to ``end`` (scene points) in cells, to a hundredth."""
    return (round((end.x() - start.x()) / CELL_PX, 2), round((end.y() - start.y()) / CELL_PX, 2))


def far_enough(a: tuple[float, float], b: tuple[float, float], cells: float) -> bool:
    return math.hypot(a[0] - b[0], a[1] - b[1]) >= cells


def drawing_menu(
    parent: QWidget, drawing: Drawing, do: Callable[[Action], object], edit_words: Callable[[], object]
) -> QMenu:
    """The commands on a drawing (a right-click with the Select tool): shown to the players or not,
    its words, its colour and width, erase it. Each is one undo step."""
    menu = QMenu(parent)
    shown = menu.addAction("&Shown to the players")
    shown.setCheckable(True)
    shown.setChecked(drawing.shown)
    shown.setToolTip("The player view draws it too; else only the GM sees it (dashed)")
    shown.toggled.connect(lambda on: do(EditDrawing(drawing.id, shown=on)))
    if drawing.kind is DrawingKind.TEXT:
        menu.addAction("Edit &words…", edit_words)
    colours = menu.addMenu("&Colour")
    for name, colour in COLOURS.items():
        entry = colours.addAction(name, lambda c=colour: do(EditDrawing(drawing.id, colour=c)))
        entry.setCheckable(True)
        entry.setChecked(colour == drawing.colour)
    widths = menu.addMenu("&Width" if drawing.kind is not DrawingKind.TEXT else "&Size")
    for name, width in WIDTHS.items():
        entry = widths.addAction(name, lambda w=width: do(EditDrawing(drawing.id, width=w)))
        entry.setCheckable(True)
        entry.setChecked(width == drawing.width)
    menu.addSeparator()
    erase = menu.addAction("&Erase drawing", lambda: do(RemoveDrawing(drawing.id)))
    erase.setShortcut(QKeySequence.StandardKey.Delete)
    return menu

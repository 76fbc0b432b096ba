"""Wall segments and doors on the map: their painted shapes, picking one under the cursor, and the
previews of the line tools.

Segments and doors are points in cells (``(0, 0)`` the map's top-left corner); on the scene a
point ``(x, y)`` is ``(x * CELL_PX, y * CELL_PX)``. The scene paints them in ``drawBackground``
from a few paths built once per map (:class:`LineShapes`), so 300 segments cost two strokes, not
300 items. A closed door is a brown bar with a hinge dot at each end; an open one is the leaf
swung a quarter turn about its first end, with the swing's arc and a dashed threshold.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.model import Door, MapGrid, Point, WallSegment
from lnl_desktop.ui.style import CELL_PX

WALL_LINE = QColor("#1b1b1b")
WALL_CASING = QColor(239, 233, 218, 210)  # the floor's parchment: the line reads on a dark picture too
DOOR_WOOD = QColor("#9a5b22")
DOOR_EDGE = QColor("#3a2108")
WALL_WIDTH = 0.11  # of a cell
DOOR_WIDTH = 0.24  # a closed door's bar, of a cell
LEAF_WIDTH = 0.13  # an open door's leaf
HINGE = 0.085  # the hinge dots' radius

PICK_PX = 7.0  # a click this close to a line (on screen) picks it


def scene_point(point: Point) -> QPointF:
    return QPointF(point[0] * CELL_PX, point[1] * CELL_PX)


def scene_line(line: WallSegment) -> QLineF:
    return QLineF(scene_point(line.a), scene_point(line.b))


def same_ends(line: WallSegment, a: Point, b: Point) -> bool:
    """Whether ``line`` runs between ``a`` and ``b``, either way round."""
    return {tuple(line.a), tuple(line.b)} == {tuple(a), tuple(b)}


def snap_corner(point: QPointF, width: int, height: int) -> tuple[int, int]:
    """The cell corner nearest a scene point, kept on the map (corners run 0..width, 0..height)."""
    x = min(max(round(point.x() / CELL_PX), 0), width)
    y = min(max(round(point.y() / CELL_PX), 0), height)
    return (x, y)


def distance_to_line(point: QPointF, line: QLineF) -> float:
    """Scene distance from ``point`` to the segment ``line`` (not the infinite line)."""
    dx, dy = line.dx(), line.dy()
    length2 = dx * dx + dy * dy
    px, py = point.x() - line.x1(), point.y() - line.y1()
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, (px * dx + py * dy) / length2))
    return math.hypot(px - t * dx, py - t * dy)


def nearest_line(lines: Iterable[WallSegment], point: QPointF, within: float) -> WallSegment | None:
    """The segment or door nearest ``point`` (scene units) no farther than ``within``; None if none."""
    best: WallSegment | None = None
    best_d = within
    for line in lines:
        d = distance_to_line(point, scene_line(line))
        if d <= best_d:
            best, best_d = line, d
    return best


def _bar(line: QLineF, width: float) -> QPolygonF:
    """A rectangle ``width`` wide along ``line``."""
    length = line.length()
    if length == 0:
        return QPolygonF()
    nx, ny = -line.dy() / length * width / 2, line.dx() / length * width / 2
    a, b = line.p1(), line.p2()
    return QPolygonF(
        [a + QPointF(nx, ny), b + QPointF(nx, ny), b - QPointF(nx, ny), a - QPointF(nx, ny), a + QPointF(nx, ny)]
    )


@dataclass(frozen=True)
class DoorShape:
    """One door's painted parts, in scene units."""

    door: Door
    bar: QPolygonF  # closed: the bar along the opening; open: the leaf swung about ``door.a``
    hinges: tuple[QPointF, ...]  # closed: both ends; open: the hinge end
    arc: QPainterPath  # open only: the swing from the leaf's tip back to ``door.b``
    threshold: QLineF  # the opening itself


def door_shape(door: Door) -> DoorShape:
    s = CELL_PX
    line = scene_line(door)
    if not door.open:
        return DoorShape(door, _bar(line, DOOR_WIDTH * s), (line.p1(), line.p2()), QPainterPath(), line)
    length = line.length()
    # The leaf turns a quarter about ``a`` (to the left of a -> b); its tip sweeps back to ``b``.
    ux, uy = line.dx() / length, line.dy() / length
    tip = line.p1() + QPointF(uy * length, -ux * length)
    leaf = QLineF(line.p1(), tip)
    arc = QPainterPath()
    box = QRectF(line.x1() - length, line.y1() - length, 2 * length, 2 * length)
    # Qt's angles: 0 = east, counter-clockwise, y up; the scene's y runs down.
    start = math.degrees(math.atan2(-(tip.y() - line.y1()), tip.x() - line.x1()))
    arc.arcMoveTo(box, start)
    arc.arcTo(box, start, -90.0)
    return DoorShape(door, _bar(leaf, LEAF_WIDTH * s), (line.p1(),), arc, line)


class LineShapes:
    """The paths of a map's wall segments and doors, built once per map."""

    def __init__(self, grid_map: MapGrid | None = None) -> None:
        self.walls = QPainterPath()
        self.doors: list[DoorShape] = []
        self._bounds = QRectF()
        if grid_map is not None:
            for line in grid_map.segments:
                self.walls.moveTo(scene_point(line.a))
                self.walls.lineTo(scene_point(line.b))
            self.doors = [door_shape(door) for door in grid_map.doors]

    @property
    def empty(self) -> bool:
        return self.walls.isEmpty() and not self.doors

    def wall_lines(self) -> list[QLineF]:
        """The painted wall segments as scene lines (what tests and tools read back)."""
        path = self.walls
        lines = []
        for i in range(path.elementCount() - 1):
            a, b = path.elementAt(i), path.elementAt(i + 1)
            if b.isLineTo():
                lines.append(QLineF(a.x, a.y, b.x, b.y))
        return lines

    def paint(self, painter: QPainter, scale: float) -> None:
        """Paint every segment and door; ``scale`` is device pixels per scene unit."""
        if self.empty:
            return
        s = CELL_PX
        scale = max(scale, 1e-3)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        width = max(WALL_WIDTH * s, 2.5 / scale)
        cap, join = Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin
        if not self.walls.isEmpty():
            painter.setPen(QPen(WALL_CASING, width + 2.5 / scale, Qt.PenStyle.SolidLine, cap, join))
            painter.drawPath(self.walls)
            painter.setPen(QPen(WALL_LINE, width, Qt.PenStyle.SolidLine, cap, join))
            painter.drawPath(self.walls)
        edge = max(0.03 * s, 1.2 / scale)
        for shape in self.doors:
            if shape.door.open:
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.setPen(QPen(DOOR_EDGE, max(0.025 * s, 1.0 / scale), Qt.PenStyle.DashLine, cap, join))
                painter.drawLine(shape.threshold)
                painter.setPen(QPen(DOOR_WOOD, max(0.025 * s, 1.0 / scale), Qt.PenStyle.DotLine, cap, join))
                painter.drawPath(shape.arc)
            painter.setPen(QPen(DOOR_EDGE, edge, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap, join))
            painter.setBrush(DOOR_WOOD)
            painter.drawPolygon(shape.bar)
            painter.setBrush(DOOR_EDGE)
            painter.setPen(Qt.PenStyle.NoPen)
            r = max(HINGE * s, 2.0 / scale)
            for hinge in shape.hinges:
                painter.drawEllipse(hinge, r, r)
        painter.restore()


# -- the line tools' previews -----------------------------------------------------------------


class LinesPreview(QGraphicsItem):
    """The GM's rubber band while drawing a wall or a door (a line between two corners, a dot on
    each), or the lines a right-drag is about to erase (struck in red). Never shared with the players:
    it is no :class:`~lnl_desktop.ui.map.overlays.Overlay`."""

    DRAW = QColor("#0b5394")
    ERASE = QColor("#CC3311")

    def __init__(self, z: float) -> None:
        super().__init__()
        self._lines: list[QLineF] = []
        self._color = self.DRAW
        self._door = False
        self._bounds = QRectF()
        self.setZValue(z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    @property
    def lines(self) -> list[QLineF]:
        return list(self._lines)

    def set_lines(self, lines: list[QLineF], color: QColor, door: bool = False) -> None:
        self.prepareGeometryChange()
        self._lines = list(lines)
        self._color = color
        self._door = door
        bounds = QRectF()
        for line in self._lines:
            rect = QRectF(line.p1(), line.p2()).normalized()
            bounds = rect if bounds.isNull() else bounds.united(rect)
        pad = CELL_PX
        self._bounds = bounds.adjusted(-pad, -pad, pad, pad) if self._lines else QRectF()
        self.update()

    def clear(self) -> None:
        self.set_lines([], self._color)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform()) or 1.0
        for width, color, dash in (
            (8.0, QColor(255, 255, 255, 230), Qt.PenStyle.SolidLine),
            (4.5, DOOR_WOOD if self._door else self._color, Qt.PenStyle.DashLine),
        ):
            pen = QPen(color, width, dash, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.drawLines(self._lines)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._color)
        r = 5.0 / lod
        for line in self._lines:
            for point in (line.p1(), line.p2()):
                painter.drawEllipse(point, r, r)

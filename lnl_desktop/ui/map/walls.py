"""Wall segments and doors on the map: their painted shapes, picking one under the cursor, and the
previews of the line tools.

Segments and doors are points in cells (``(0, 0)`` the map's top-left corner); on the scene a
point ``(x, y)`` is ``(x * CELL_PX, y * CELL_PX)``. They are no items: the scene paints them in
``drawBackground`` through :class:`~lnl_desktop.ui.map.wall_tiles.LineShapes`, tile by tile. A
closed door is a brown bar with a hinge dot at each end; an open one is the leaf swung a quarter turn
about its first end, with the swing's arc and a dashed threshold.

Picking: the view asks which door is under the cursor on every hover; from :data:`PICK_IN_BULK`
lines, a map's tuple of lines is measured all at once with numpy, its ends kept for the next hover
(:func:`nearest_line`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.encounter.map_model import Door, Point, WallSegment
from lnl_desktop.lazy import lazy_module
from lnl_desktop.ui.plumbing.style import CELL_PX

np = lazy_module("numpy")  # imported at first use: the first window needs none of it

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


def segment_rows(lines: Sequence[WallSegment]) -> np.ndarray:
    """Ends in scene units: (n, 4) of x1, y1, x2, y2."""
    flat = np.fromiter(itertools.chain.from_iterable((*line.a, *line.b) for line in lines), np.float64, 4 * len(lines))
    return flat.reshape(-1, 4) * CELL_PX


PICK_IN_BULK = 64  # from this many lines, picking measures them all at once with numpy


def nearest_line(lines: Iterable[WallSegment], point: QPointF, within: float) -> WallSegment | None:
    """The segment or door nearest ``point`` (scene units) no farther than ``within``; None if none.
    Of lines as near, the last. Every hover over the map asks, so many lines are measured in bulk."""
    if isinstance(lines, tuple) and len(lines) >= PICK_IN_BULK:
        return _nearest_in_bulk(lines, point, within)
    best: WallSegment | None = None
    best_d = within
    for line in lines:
        d = distance_to_line(point, scene_line(line))
        if d <= best_d:
            best, best_d = line, d
    return best


_pick_rows: list[tuple[tuple[WallSegment, ...], np.ndarray]] = []  # the last few tuples picked from


def _nearest_in_bulk(lines: tuple[WallSegment, ...], point: QPointF, within: float) -> WallSegment | None:
    """:func:`nearest_line` with numpy. The ends of the last few tuples are kept: the view picks doors
    from the map's own tuple on every hover."""
    rows = next((rows for kept, rows in _pick_rows if kept is lines), None)
    if rows is None:
        rows = segment_rows(lines)
        _pick_rows.insert(0, (lines, rows))
        del _pick_rows[4:]
    dx, dy = rows[:, 2] - rows[:, 0], rows[:, 3] - rows[:, 1]
    px, py = point.x() - rows[:, 0], point.y() - rows[:, 1]
    length2 = dx * dx + dy * dy
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(length2 == 0, 0.0, np.clip((px * dx + py * dy) / length2, 0.0, 1.0))
    d = np.hypot(px - t * dx, py - t * dy)
    nearest = float(d.min())
    if nearest > within:
        return None
    return lines[int(np.flatnonzero(d == nearest)[-1])]


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

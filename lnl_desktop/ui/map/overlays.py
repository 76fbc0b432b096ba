"""Overlay items: shaded cell sets, a vision cone, a dragged path, labels, cell markers and the
rings of the steps that provoke a free attack.

Each overlay is one item however many cells it covers: a cell set is one QImage (a pixel per
cell, drawn scaled without smoothing) plus one outline path. Lines use cosmetic pens so they keep
their on-screen width at every zoom, which is what a projector needs.

:class:`RulesOverlays` builds the rules overlays of the selected combatant (melee and reach rings,
the too-close ring and max range of a ranged weapon) and of a hovered token (its vision cone and
the cells from which the selected combatant's approach stays outside it), all from the core's
distance functions and the engine's reach, so they agree with what the engine will allow.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from weakref import WeakKeyDictionary

from PySide6.QtCore import QLineF, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core import grid, sight
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.grid import Cell
from lnl_desktop.core.model import MapGrid, Side, WeaponKind
from lnl_desktop.lazy import loaded
from lnl_desktop.ui import style
from lnl_desktop.ui.controller import TableController
from lnl_desktop.ui.map.fog import players_unseen
from lnl_desktop.ui.map.geometry import (
    CellMask,
    cell_rect,
    cross_path,
    footprint_centre,
    hatch_path,
    within_ft,
)

# z values: under the tokens (20) go the shadings; above them the drag's path and labels.
SIGHT_Z = 7.5
RULES_Z = 8.0
CONE_Z = 9.0
REACH_Z = 10.0
SNEAK_Z = 11.0
BLOCKED_Z = 12.0
PATH_Z = 30.0
PROVOKE_Z = 35.0
MARKER_Z = 40.0
LABEL_Z = 50.0

# Cosmetic pens are sized in device pixels; items pad their bounds by this many scene units so
# the pen never paints outside them down to a zoom of about 0.1.
_PAD = 1.0 * style.CELL_PX

_CASING = QColor(255, 255, 255, 235)
LABEL_PX = 20  # a drag's label, in pixels at a UI scale of 100 %


def cosmetic(color: QColor, width: float, dash: Qt.PenStyle = Qt.PenStyle.SolidLine) -> QPen:
    pen = QPen(color, width, dash, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
    pen.setCosmetic(True)
    return pen


@dataclass(frozen=True)
class CellsStyle:
    """How a cell set is drawn. Every set has a line style of its own, not only a colour."""

    fill: QColor | None = None
    outline: QColor | None = None
    outline_width: float = 2.5
    dash: Qt.PenStyle = Qt.PenStyle.SolidLine
    hatch: QColor | None = None
    cross: QColor | None = None


REACH_STYLE = CellsStyle(fill=QColor(0, 158, 115, 64), outline=QColor("#007a59"), outline_width=3.0)
BLOCKED_STYLE = CellsStyle(fill=QColor(204, 51, 17, 70), cross=QColor("#CC3311"))
SNEAK_STYLE = CellsStyle(
    fill=QColor(204, 121, 167, 85), outline=QColor("#8f3f72"), outline_width=3.0, dash=Qt.PenStyle.DashLine
)
MELEE_STYLE = CellsStyle(fill=QColor(0, 114, 178, 38), outline=QColor("#0072B2"), outline_width=3.0)
REACH_WEAPON_STYLE = CellsStyle(outline=QColor("#0072B2"), outline_width=3.0, dash=Qt.PenStyle.DashLine)
TOO_CLOSE_STYLE = CellsStyle(fill=QColor(204, 51, 17, 40), hatch=QColor(204, 51, 17, 200))
MAX_RANGE_STYLE = CellsStyle(outline=QColor("#6a3d9a"), outline_width=2.5, dash=Qt.PenStyle.DashDotLine)
# The cells a hovered foe does not see (its back, and the shadows of walls and closed doors).
BLIND_STYLE = CellsStyle(fill=QColor(20, 20, 45, 60))
PAINT_STYLES = {
    "walls": CellsStyle(fill=QColor(30, 30, 30, 190), outline=QColor("#111111"), outline_width=2.0),
    "difficult": CellsStyle(
        fill=QColor(140, 109, 63, 150), outline=QColor("#5c4420"), outline_width=2.0, hatch=QColor(70, 50, 20, 220)
    ),
    "erase": CellsStyle(
        fill=QColor(255, 255, 255, 120),
        outline=QColor("#CC3311"),
        outline_width=2.0,
        dash=Qt.PenStyle.DashLine,
        cross=QColor("#CC3311"),
    ),
}

# The fog tool's rectangle: what a left drag shows the players, what a right drag hides again.
FOG_STYLES = {
    "reveal": CellsStyle(fill=QColor(255, 255, 220, 110), outline=QColor("#b08800"), outline_width=2.5),
    "hide": CellsStyle(
        fill=QColor(10, 10, 30, 120), outline=QColor("#1a1a40"), outline_width=2.5, dash=Qt.PenStyle.DashLine
    ),
}


_Change = QGraphicsItem.GraphicsItemChange
_TOLD_CHANGES = (
    _Change.ItemPositionChange,  # before: where it was
    _Change.ItemVisibleChange,
    _Change.ItemOpacityChange,
    _Change.ItemPositionHasChanged,  # after: where it is now (nothing while hidden)
    _Change.ItemVisibleHasChanged,
    _Change.ItemOpacityHasChanged,
)


class Overlay(QGraphicsItem):
    """A GM overlay the player view may share: it names whom it tells about.

    ``about`` holds the combatants whose place, reach or sight the overlay shows. The player
    view shares an overlay only while none of them is hidden from the players, and paints it
    with :meth:`paint_for_players`, which an overlay shaped by hidden tokens (a reach that goes
    round a hidden foe) overrides with a shape made as if they were not there.
    """

    def __init__(self) -> None:
        super().__init__()
        self.about: frozenset[str] = frozenset()
        # Moves come to itemChange, so the player view hears where a shared overlay was and is.
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges, True)

    def set_about(self, *cids: str | None) -> None:
        about = frozenset(cid for cid in cids if cid)
        if about != self.about:
            self.about = about
            self._tell_players()  # whether the players may see it can change with whom it is about

    # The player view paints shared overlays over its own map. It repaints only where one changed:
    # every change of an overlay goes through these (the subclasses call update() and
    # prepareGeometryChange() from Python; show, hide and moves come to itemChange), and the GM's
    # scene passes the area on (MapScene.overlaysChanged). Listening to the scene's `changed`
    # instead would make Qt repaint the whole GM view on every drag step.

    def _tell_players(self) -> None:
        scene = self.scene()
        tell = getattr(scene, "overlay_changed", None)
        if tell is not None and self.isVisible():
            tell(self.sceneBoundingRect())

    def update(self, *args: object) -> None:  # type: ignore[override]
        super().update(*args)
        self._tell_players()

    def prepareGeometryChange(self) -> None:
        self._tell_players()  # the area it covered until now
        super().prepareGeometryChange()

    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: object) -> object:
        if change in _TOLD_CHANGES:
            self._tell_players()
        return super().itemChange(change, value)

    def paint_for_players(self, painter: QPainter, option: QStyleOptionGraphicsItem) -> None:
        self.paint(painter, option, None)


class CellsItem(Overlay):
    """One cell set: a translucent fill, an outline, optional hatching and crosses."""

    def __init__(self, look: CellsStyle, z: float, clip: QRectF | None = None) -> None:
        super().__init__()
        self._style = look
        self._clip = clip
        self._image = None
        self._image_rect = QRectF()
        self._outline = QPainterPath()
        self._hatch = QPainterPath()
        self._cross = QPainterPath()
        self._cross_lines: list[QLineF] = []
        self._bounds = QRectF()
        self._mask: CellMask | None = None
        self._players: CellsItem | None = None  # the same set as it looks without hidden tokens
        self.setZValue(z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_cells(
        self,
        mask: CellMask | None,
        crosses: Iterable[Cell] = (),
        players: tuple[CellMask | None, Iterable[Cell]] | None = None,
    ) -> None:
        """Show ``mask`` and ``crosses``; ``players`` is the set worked out without hidden tokens,
        when they change it (None: the players may see it as the GM does)."""
        if players is None:
            self._players = None
        else:
            self._players = CellsItem(self._style, self.zValue(), self._clip)
            self._players.set_cells(*players)
        self.prepareGeometryChange()
        look = self._style
        bounds = QRectF()
        self._image = None
        self._outline = QPainterPath()
        self._hatch = QPainterPath()
        self._mask = mask
        if mask is not None and not mask.empty:
            self._image_rect = mask.scene_rect()
            bounds = self._image_rect
            if look.fill is not None:
                self._image = mask.image(look.fill)
            if look.outline is not None:
                self._outline = mask.outline()
            if look.hatch is not None:
                self._hatch = hatch_path(mask.cells())
        crosses = list(crosses)
        self._cross = cross_path(crosses) if crosses and look.cross is not None else QPainterPath()
        cross = self._cross
        self._cross_lines = [
            QLineF(cross.elementAt(i).x, cross.elementAt(i).y, cross.elementAt(i + 1).x, cross.elementAt(i + 1).y)
            for i in range(0, cross.elementCount() - 1, 2)
        ]
        if not self._cross.isEmpty():
            bounds = bounds.united(self._cross.boundingRect()) if not bounds.isNull() else self._cross.boundingRect()
        self._bounds = bounds.adjusted(-_PAD, -_PAD, _PAD, _PAD) if not bounds.isNull() else QRectF()
        self.update()

    def clear(self) -> None:
        self.set_cells(None)

    def set_clip(self, clip: QRectF | None) -> None:
        self._clip = clip
        if self._players is not None:
            self._players.set_clip(clip)
        self.update()

    def paint_for_players(self, painter: QPainter, option: QStyleOptionGraphicsItem) -> None:
        (self._players if self._players is not None else self).paint(painter, option, None)

    @property
    def is_empty(self) -> bool:
        return self._image is None and self._outline.isEmpty() and not self._cross_lines and self._hatch.isEmpty()

    @property
    def cells(self) -> frozenset[Cell]:
        """The cells of the set shown (crosses aside)."""
        return frozenset(self._mask.cells()) if self._mask is not None else frozenset()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        look = self._style
        cell_on_screen = style.CELL_PX * QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        if self._clip is not None:
            painter.setClipRect(self._clip, Qt.ClipOperation.IntersectClip)  # never wider than the fog's clip
        if self._image is not None:
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
            painter.drawImage(self._image_rect, self._image)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if not self._hatch.isEmpty() and look.hatch is not None and cell_on_screen >= 8:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            hatch = cosmetic(look.hatch, 1.6)
            hatch.setCapStyle(Qt.PenCapStyle.FlatCap)
            painter.setPen(hatch)
            painter.drawPath(self._hatch)
        if not self._outline.isEmpty() and look.outline is not None:
            # Cell edges are axis-aligned: no antialiasing needed, and wide antialiased strokes of
            # a long outline cost tens of milliseconds.
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.setPen(_square(cosmetic(_CASING, look.outline_width + 2)))
            painter.drawPath(self._outline)
            painter.setPen(_square(cosmetic(look.outline, look.outline_width, look.dash)))
            painter.drawPath(self._outline)
        if self._cross_lines and look.cross is not None and cell_on_screen >= 6:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            width = 3.0 if cell_on_screen >= 16 else 2.0
            casing = cosmetic(_CASING, width + 2.5)
            casing.setCapStyle(Qt.PenCapStyle.FlatCap)
            painter.setPen(casing)
            painter.drawLines(self._cross_lines)
            pen = cosmetic(look.cross, width)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            painter.setPen(pen)
            painter.drawLines(self._cross_lines)


def _square(pen: QPen) -> QPen:
    pen.setCapStyle(Qt.PenCapStyle.SquareCap)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen


class ConeItem(Overlay):
    """A vision cone: a translucent wedge from a token's centre, clipped to the map."""

    def __init__(self) -> None:
        super().__init__()
        self._path = QPainterPath()
        self._clip = QRectF()
        self.centre: QPointF | None = None  # the apex, at the token's centre; None when empty
        self.facing: float | None = None
        self.setZValue(CONE_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_cone(self, centre: QPointF, facing: float, vision_deg: float, radius: float, clip: QRectF) -> None:
        self.prepareGeometryChange()
        path = QPainterPath()
        if vision_deg >= 360:
            path.addEllipse(centre, radius, radius)
        else:
            # Qt angles: 0 = east, counter-clockwise; compass: 0 = north, clockwise.
            start = 90.0 - facing - vision_deg / 2.0
            box = QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius)
            path.moveTo(centre)
            path.arcTo(box, start, vision_deg)
            path.closeSubpath()
        self._path = path
        self._clip = clip
        self.centre = QPointF(centre)
        self.facing = facing
        self.update()

    def clear(self) -> None:
        if self._path.isEmpty() and self.centre is None:
            return
        self.prepareGeometryChange()
        self._path = QPainterPath()
        self.centre = None
        self.facing = None
        self.update()

    @property
    def is_empty(self) -> bool:
        return self._path.isEmpty()

    def boundingRect(self) -> QRectF:
        if self._path.isEmpty():
            return QRectF()
        return self._path.boundingRect().adjusted(-_PAD, -_PAD, _PAD, _PAD)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setClipRect(self._clip, Qt.ClipOperation.IntersectClip)  # never wider than the fog's clip
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(style.CONE)
        painter.drawPath(self._path)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(cosmetic(QColor(150, 95, 0, 220), 2.5, Qt.PenStyle.DashLine))
        painter.drawPath(self._path)


class PathItem(Overlay):
    """A dragged route: a polyline through footprint centres, with numbered waypoints."""

    OK = QColor("#1a1a1a")
    TOO_FAR = QColor("#CC3311")
    FORCED = QColor("#6a3d9a")

    def __init__(self) -> None:
        super().__init__()
        self._path = QPainterPath()
        self._broken = QPainterPath()
        self._waypoints: list[QPointF] = []
        self._color = self.OK
        self._dash = Qt.PenStyle.SolidLine
        self._ui_scale = 1.0
        self.setZValue(PATH_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_ui_scale(self, factor: float) -> None:
        """The waypoints' numbered discs grow with the UI scale (1.0 = 100 %)."""
        if factor != self._ui_scale:
            self.prepareGeometryChange()
            self._ui_scale = factor
            self.update()

    def set_route(
        self,
        lines: list[list[QPointF]],
        waypoints: list[QPointF],
        color: QColor,
        dashed: bool = False,
        broken: list[tuple[QPointF, QPointF]] | None = None,
    ) -> None:
        """Solid (or dashed) polylines, dotted red gaps, and the pinned waypoints."""
        self.prepareGeometryChange()
        path = QPainterPath()
        for points in lines:
            if points:
                path.moveTo(points[0])
                for p in points[1:]:
                    path.lineTo(p)
        self._path = path
        gaps = QPainterPath()
        for a, b in broken or ():
            gaps.moveTo(a)
            gaps.lineTo(b)
        self._broken = gaps
        self._waypoints = list(waypoints)
        self._color = color
        self._dash = Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine
        self.update()

    def clear(self) -> None:
        self.set_route([], [], self.OK)

    def boundingRect(self) -> QRectF:
        rect = self._path.boundingRect().united(self._broken.boundingRect())
        for p in self._waypoints:
            # Waypoint discs keep their on-screen size: room for them down to a zoom of about 0.1.
            r = 2.5 * style.CELL_PX * max(1.0, self._ui_scale)
            rect = rect.united(QRectF(p.x() - r, p.y() - r, 2 * r, 2 * r))
        if rect.isNull():
            return QRectF()
        return rect.adjusted(-_PAD, -_PAD, _PAD, _PAD)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        lines = ((self._path, self._color, self._dash), (self._broken, self.TOO_FAR, Qt.PenStyle.DotLine))
        for path, color, dash in lines:
            if path.isEmpty():
                continue
            painter.setPen(cosmetic(_CASING, 9.0))
            painter.drawPath(path)
            painter.setPen(cosmetic(color, 4.5, dash))
            painter.drawPath(path)
        # Cell-centre dots show the steps; bigger numbered dots are the pinned waypoints.
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform()) or 1.0
        if self._path.elementCount() > 1 and style.CELL_PX * lod >= 14:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._color)
            r = 3.5 / lod
            for i in range(self._path.elementCount()):
                e = self._path.elementAt(i)
                painter.drawEllipse(QPointF(e.x, e.y), r, r)
        k = self._ui_scale
        font = QFont()
        font.setBold(True)
        font.setPixelSize(round(16 * k))
        r = 13 * k
        for n, p in enumerate(self._waypoints, start=1):
            painter.save()
            painter.translate(p)
            painter.scale(1 / lod, 1 / lod)  # a fixed on-screen size
            painter.setPen(QPen(_CASING, 2.5))
            painter.setBrush(QColor("#6a3d9a"))
            painter.drawEllipse(QPointF(0, 0), r, r)
            painter.setPen(QColor("white"))
            painter.setFont(font)
            painter.drawText(QRectF(-r, -r, 2 * r, 2 * r), Qt.AlignmentFlag.AlignCenter, str(n))
            painter.restore()


class LabelItem(Overlay):
    """A short text in a rounded box at a fixed on-screen size (e.g. the path's '25 ft')."""

    def __init__(self, z: float = LABEL_Z) -> None:
        super().__init__()
        self._text = ""
        self._players_text: str | None = None
        self._back = QColor(20, 20, 20, 225)
        self._ui_scale = 1.0
        self._font = QFont()
        self._font.setBold(True)
        self._font.setPixelSize(LABEL_PX)
        self._rect = QRectF()
        self.setZValue(z)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    @property
    def font(self) -> QFont:
        return QFont(self._font)

    def set_ui_scale(self, factor: float) -> None:
        """The text grows with the UI scale (1.0 = 100 %)."""
        if factor == self._ui_scale:
            return
        self._ui_scale = factor
        self._font.setPixelSize(max(1, round(LABEL_PX * factor)))
        text, self._text = self._text, ""
        self.set_text(text, None, self._players_text)  # the box again, at the new size

    def set_text(self, text: str, back: QColor | None = None, players: str | None = None) -> None:
        """Show ``text`` (one line or several); ``players`` is what the players' copy says instead
        (a line naming a hidden token left out), None when they may read the same."""
        if text == self._text and (back is None or back == self._back) and players == self._players_text:
            return
        self.prepareGeometryChange()
        self._text = text
        self._players_text = players
        if back is not None:
            self._back = back
        metrics = QFontMetricsF(self._font)
        lines = text.split("\n")
        k = self._ui_scale
        width = max(metrics.horizontalAdvance(line) for line in lines) + 16 * k
        height = metrics.height() + metrics.lineSpacing() * (len(lines) - 1) + 8 * k
        # Up and to the right of the anchor point, clear of the cursor.
        self._rect = QRectF(14 * k, -height - 10 * k, width, height) if text else QRectF()
        self.update()

    def keep_in_view(self) -> None:
        """Slide the box left of the anchor as far as it must not to run off the right of the GM's view
        (a long 'Counter-attack from: …' near the map's right edge), and below it near the top."""
        scene = self.scene()
        if not self._text or scene is None or not scene.views():
            return
        view = scene.views()[0]
        at = view.mapFromScene(self.pos())
        room = view.viewport().width()
        if self._rect.width() > room - 8 and ": " in self._text:
            # Too wide for a small map view: break "Counter-attack from: a, b" after its colon.
            lines = [line.replace(": ", ":\n", 1) if ": " in line else line for line in self._text.split("\n")]
            wrapped = "\n".join(lines)
            if wrapped != self._text:
                self.set_text(wrapped, None, self._players_text)
        width, height = self._rect.width(), self._rect.height()
        k = self._ui_scale
        x = 14.0 * k if at.x() + 14 * k + width <= room else max(room - 4 - width - at.x(), 4 - at.x())
        y = -height - 10 * k if at.y() - height - 10 * k >= 0 else 24.0 * k
        if (x, y) != (self._rect.x(), self._rect.y()):
            self.prepareGeometryChange()
            self._rect = QRectF(x, y, width, height)
            self.update()

    @property
    def text(self) -> str:
        return self._text

    @property
    def players_text(self) -> str:
        """What the players' copy of the label says."""
        return self._text if self._players_text is None else self._players_text

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        self._paint_text(painter, self._text)

    def paint_for_players(self, painter: QPainter, option: QStyleOptionGraphicsItem) -> None:
        self._paint_text(painter, self.players_text)

    def _paint_text(self, painter: QPainter, text: str) -> None:
        if not text:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(_CASING, 2))
        painter.setBrush(self._back)
        painter.drawRoundedRect(self._rect, 7, 7)
        painter.setFont(self._font)
        painter.setPen(QColor("white"))
        painter.drawText(self._rect, Qt.AlignmentFlag.AlignCenter, text)


class MarkerItem(Overlay):
    """An outlined footprint: where a drag started, or where a drop would land."""

    def __init__(self, color: QColor, dash: Qt.PenStyle = Qt.PenStyle.DashLine, fill: QColor | None = None) -> None:
        super().__init__()
        self._rect = QRectF()
        self._color = color
        self._dash = dash
        self._fill = fill
        self.setZValue(MARKER_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.hide()

    def show_at(self, anchor: Cell, size: int = 1, color: QColor | None = None) -> None:
        self.prepareGeometryChange()
        self._rect = cell_rect(anchor, size).adjusted(3, 3, -3, -3)
        if color is not None:
            self._color = color
        self.show()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-_PAD, -_PAD, _PAD, _PAD) if not self._rect.isNull() else QRectF()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(QBrush(self._fill) if self._fill is not None else Qt.BrushStyle.NoBrush)
        painter.setPen(cosmetic(_CASING, 7.0))
        painter.drawRoundedRect(self._rect, 6, 6)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(cosmetic(self._color, 3.5, self._dash))
        painter.drawRoundedRect(self._rect, 6, 6)


class ProvocationItem(Overlay):
    """The steps of a dragged path that give enemies a free attack (a counter-attack): each one a
    ring round the token's body at that step and a "!" badge, so neither colour nor the blocked
    cells' crosses are needed to tell them apart.

    ``players`` are the steps the players may see (those provoked by visible tokens only)."""

    COLOR = QColor("#EE7733")  # orange (Paul Tol's vibrant scheme), apart from the blocked cells' red
    INK = QColor("#1a1a1a")

    def __init__(self) -> None:
        super().__init__()
        self._cells: list[Cell] = []
        self._size = 1
        self._players: list[Cell] | None = None
        self._bounds = QRectF()
        self._ui_scale = 1.0
        self.setZValue(PROVOKE_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_ui_scale(self, factor: float) -> None:
        """The "!" badges grow with the UI scale (1.0 = 100 %)."""
        if factor != self._ui_scale:
            self._ui_scale = factor
            self.set_marks(self._cells, self._size, self._players)

    def set_marks(self, cells: Iterable[Cell], size: int = 1, players: Iterable[Cell] | None = None) -> None:
        """Mark the token's body (``size`` cells wide) with its anchor on each of ``cells``."""
        self.prepareGeometryChange()
        self._cells = list(dict.fromkeys(cells))
        self._size = size
        self._players = None if players is None else list(dict.fromkeys(players))
        bounds = QRectF()
        for cell in self._cells:
            rect = cell_rect(cell, size)
            bounds = rect if bounds.isNull() else bounds.united(rect)
        # The badge keeps its on-screen size: room for it down to a zoom of about 0.1.
        pad = 2 * _PAD * max(1.0, self._ui_scale)
        self._bounds = bounds.adjusted(-pad, -pad, pad, pad) if not bounds.isNull() else QRectF()
        self.update()

    def clear(self) -> None:
        self.set_marks(())

    @property
    def cells(self) -> list[Cell]:
        """The anchors of the marked steps, in path order."""
        return list(self._cells)

    @property
    def players_cells(self) -> list[Cell]:
        return list(self._cells if self._players is None else self._players)

    @property
    def is_empty(self) -> bool:
        return not self._cells

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        self._paint_marks(painter, self._cells)

    def paint_for_players(self, painter: QPainter, option: QStyleOptionGraphicsItem) -> None:
        self._paint_marks(painter, self.players_cells)

    def _paint_marks(self, painter: QPainter, cells: list[Cell]) -> None:
        if not cells:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform()) or 1.0
        k = self._ui_scale
        font = QFont()
        font.setBold(True)
        font.setPixelSize(round(17 * k))
        badge = 11 * k
        inset = 0.12 * style.CELL_PX
        for cell in cells:
            rect = cell_rect(cell, self._size).adjusted(inset, inset, -inset, -inset)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(cosmetic(_CASING, 8.0))
            painter.drawEllipse(rect)
            painter.setPen(cosmetic(self.COLOR, 4.5))
            painter.drawEllipse(rect)
            # The "!" badge on the ring's upper right, at a fixed on-screen size.
            painter.save()
            painter.translate(rect.center() + QPointF(rect.width(), -rect.height()) * 0.3536)
            painter.scale(1 / lod, 1 / lod)
            painter.setPen(QPen(_CASING, 2.5))
            painter.setBrush(self.COLOR)
            painter.drawEllipse(QPointF(0, 0), badge, badge)
            painter.setPen(self.INK)
            painter.setFont(font)
            painter.drawText(QRectF(-badge, -badge, 2 * badge, 2 * badge), Qt.AlignmentFlag.AlignCenter, "!")
            painter.restore()


_hidden: WeakKeyDictionary[TableController, tuple[tuple[int, str | None], frozenset[Cell]]] = WeakKeyDictionary()


def hidden_cells(controller: TableController, but: str | None = None) -> frozenset[Cell]:
    """The cells under tokens the players do not see (hidden, or in the fog; ``but`` one's own):
    what a players' copy of an overlay must not be shaped by. Once per change of the encounter."""
    key = (controller.revision, but)
    kept = _hidden.get(controller)
    if kept is not None and kept[0] == key:
        return kept[1]
    found = _hidden_cells(controller, but)
    _hidden[controller] = (key, found)
    return found


def _hidden_cells(controller: TableController, but: str | None) -> frozenset[Cell]:
    encounter = controller.encounter
    unseen = players_unseen(controller)
    by_id = encounter.by_id() if unseen else {}
    cells: set[Cell] = set()
    for cid in unseen:
        token = encounter.tokens.get(cid)
        c = by_id.get(cid) if cid != but else None
        if c is not None and token is not None:
            cells.update(grid.footprint(token.cell, c.size))
    return frozenset(cells)


@dataclass(frozen=True)
class MoverInputs:
    """The inputs of ``Engine.reach`` for one combatant, so a search can run again without the engine."""

    start: Cell
    size: int
    budget_ft: float
    rules: grid.MoveRules
    enemies: frozenset[Cell]
    occupied: frozenset[Cell]
    diagonals: int

    @classmethod
    def of(cls, controller: TableController, cid: str) -> MoverInputs:
        # Exactly what Engine.reach(cid) uses (tests check that both find the same cells).
        engine = controller.engine
        encounter = controller.encounter
        c = encounter.combatant(cid)
        token = encounter.tokens.get(cid)
        if token is None:
            raise RulesError(f"{c.name} is not on the map")
        left = engine.feet_left(cid)
        turn = encounter.combat.turn
        enemies, occupied = engine.blockers(cid)
        return cls(
            start=token.cell,
            size=c.size,
            budget_ft=left if left is not None else float(c.move_ft),
            rules=engine.move_rules(cid),
            enemies=enemies,
            occupied=occupied,
            diagonals=turn.diagonals if turn is not None and turn.combatant == cid else 0,
        )

    def without(self, cells: frozenset[Cell]) -> MoverInputs:
        """The same search as if nothing stood on ``cells`` (hidden tokens, for the players' copy)."""
        return replace(self, enemies=self.enemies - cells, occupied=self.occupied - cells)

    def reach(self, terrain: grid.Terrain, allowed: Callable[[Cell], bool] | None = None) -> grid.Reach:
        return grid.reachable(
            terrain,
            self.start,
            self.size,
            self.budget_ft,
            self.rules,
            enemies=self.enemies,
            occupied=self.occupied,
            allowed=allowed,
            diagonals_before=self.diagonals,
        )


_STALE = object()  # an overlay key no state has: the next refresh rebuilds


# A hovered creature's view is worked out on a worker when its map has this many cells (below,
# with thousands of wall lines, a view takes 0.1-5 ms; on 300 x 300, 3-40 ms).
VIEW_LATER_CELLS = 20_000


class _ViewReady(QObject):
    """Tells the GUI thread that a worker has worked out a hovered creature's view."""

    ready = Signal()


class RulesOverlays:
    """The rules overlays of the selected combatant and of the token under the cursor."""

    CONE_RADIUS_CELLS = 8

    def __init__(self, scene: QGraphicsScene, controller: TableController) -> None:
        self.controller = controller
        self.melee = CellsItem(MELEE_STYLE, RULES_Z)
        self.reach_weapon = CellsItem(REACH_WEAPON_STYLE, RULES_Z)
        self.too_close = CellsItem(TOO_CLOSE_STYLE, RULES_Z)
        self.max_range = CellsItem(MAX_RANGE_STYLE, RULES_Z)
        self.cone = ConeItem()
        self.sneak = CellsItem(SNEAK_STYLE, SNEAK_Z)
        self.blind = CellsItem(BLIND_STYLE, SIGHT_Z)  # what a hovered foe does not see
        self._selected_items = (self.melee, self.reach_weapon, self.too_close, self.max_range)
        for item in (*self._selected_items, self.cone, self.sneak, self.blind):
            scene.addItem(item)
        self._selected_key: object = _STALE
        self._hover_key: object = _STALE
        self.hovered: str | None = None
        self._hide_selected = False
        self._state = 0  # bumped whenever the encounter may have changed
        self._mover: tuple[tuple[str, int], MoverInputs] | None = None
        self._views_pending: set[tuple[int, Cell, int]] = set()
        self._view_ready = _ViewReady()
        self._view_ready.ready.connect(self._on_view_ready)

    def items(self) -> list[QGraphicsItem]:
        return [*self._selected_items, self.cone, self.sneak, self.blind]

    def _view_later(self, grid_map: MapGrid, cell: Cell, size: int) -> bool:
        """Whether the hovered creature's view is still to be worked out: if so, a worker does it (on a
        walled map a view takes 5-40 ms, more than a frame mid-drag) and the hover is refreshed when
        it is done. Views once worked out are kept, so the next hover over it is at once."""
        if grid_map.width * grid_map.height < VIEW_LATER_CELLS:
            return False  # a view of a small map costs a few milliseconds at most: at once
        if not (grid_map.segments or grid_map.doors or grid_map.walls) or not loaded("numpy"):
            return False  # an open map's view costs little; and the lazy loader has no lock
        if not (0 <= cell[0] < grid_map.width and 0 <= cell[1] < grid_map.height):
            return False  # off the map: it sees nothing there, said at once
        if sight.view_known(grid_map, cell, size):
            return False
        key = (id(grid_map), cell, size)
        if key not in self._views_pending:
            self._views_pending.add(key)

            def work() -> None:
                with contextlib.suppress(ValueError):
                    sight.visible_mask(grid_map, cell, size)
                self._views_pending.discard(key)
                self._view_ready.ready.emit()  # queued to the GUI thread: the receiver lives there

            threading.Thread(target=work, name="lnl-hover-view", daemon=True).start()
        return True

    def _on_view_ready(self) -> None:
        self._hover_key = _STALE
        self._refresh_hover()

    def invalidate(self) -> None:
        """The encounter changed: rebuild on the next refresh."""
        # The selected combatant's rings keep their key: it holds all they are made of (its cell,
        # size and weapons, the ruleset, the map's measures), so another token's move redraws none.
        # Not None: that is the key of "nothing hovered", whose shading must still be cleared.
        self._hover_key = _STALE
        self._state += 1
        self._mover = None

    def prime(self, cid: str, inputs: MoverInputs) -> None:
        """Reuse what a drag's press already asked the engine for ``cid`` (until the next change)."""
        self._mover = ((cid, self._state), inputs)

    def _mover_inputs(self, cid: str) -> MoverInputs:
        """What ``engine.reach(cid)`` searches with, asked once per state of the encounter.

        ``engine.blockers`` looks every token up by id, which grows with the square of the token
        count (20 ms for 500 tokens): too slow to ask again for every hovered target.
        """
        key = (cid, self._state)
        if self._mover is None or self._mover[0] != key:
            self._mover = (key, MoverInputs.of(self.controller, cid))
        return self._mover[1]

    def set_selected_hidden(self, hidden: bool) -> None:
        """Hide the selected combatant's rings (while its token is being dragged)."""
        self._hide_selected = hidden
        for item in self._selected_items:
            item.setVisible(not hidden)

    def refresh(self) -> None:
        self._refresh_selected()
        self._refresh_hover()

    def set_hovered(self, cid: str | None) -> None:
        if cid != self.hovered:
            self.hovered = cid
            self._refresh_hover()

    # -- the selected combatant ----------------------------------------------------------------

    def _refresh_selected(self) -> None:
        encounter = self.controller.encounter
        cid = self.controller.selected
        c = self.controller.combatant(cid) if cid else None
        token = encounter.tokens.get(cid) if cid else None
        key = None
        if c is not None and token is not None:
            key = (
                cid,
                token.cell,
                c.size,
                tuple(getattr(c, "weapons", ())),
                self.controller.engine.ruleset.name,
                encounter.map.width,
                encounter.map.height,
                encounter.map.diagonal,
                encounter.map.feet_per_cell,
            )
        if key == self._selected_key:
            return
        self._selected_key = key
        for item in self._selected_items:
            item.clear()
            item.set_about(cid if c is not None else None)
        if c is None or token is None:
            return
        grid_map = encounter.map
        args = (grid_map.diagonal, grid_map.feet_per_cell, grid_map.width, grid_map.height)
        anchor = token.cell
        self.melee.set_cells(within_ft(anchor, c.size, 5, *args))
        weapons = getattr(c, "weapons", ())
        reach_ft = max((w.reach for w in weapons if w.kind is WeaponKind.REACH), default=0)
        if reach_ft > 5:
            self.reach_weapon.set_cells(within_ft(anchor, c.size, reach_ft, *args))
        ranged = [w for w in weapons if w.kind is WeaponKind.RANGED]
        if ranged:
            # The ruleset's ranged minimum (10 ft in L&L; none in L&L Classic).
            least = getattr(self.controller.engine.ruleset, "ranged_minimum_ft", 0)
            if least:
                self.too_close.set_cells(within_ft(anchor, c.size, least, *args, closer_than=True))
            longest = [w.max_range_ft for w in ranged]
            if all(r is not None for r in longest):
                limit = max(r for r in longest if r is not None)
                # Past the map's edge too: the outline then shows the real limit, clipped to the map.
                self.max_range.set_clip(QRectF(0, 0, grid_map.width * style.CELL_PX, grid_map.height * style.CELL_PX))
                self.max_range.set_cells(within_ft(anchor, c.size, limit, *args, on_map=False))

    # -- the hovered token ---------------------------------------------------------------------

    def blind_cells(self, anchor: Cell, size: int, facing: int, vision_deg: int) -> CellMask:
        """The map's cells a token on ``anchor`` does not see (behind it, where the ruleset reads
        facing, and in the shadow of walls and closed doors), by the core's own sight."""
        grid_map = self.controller.encounter.map
        cone = self.controller.engine.ruleset.sight_uses_facing
        seen = sight.visible_mask(grid_map, anchor, size, facing if cone else None, vision_deg)
        return CellMask(0, 0, ~seen)

    def _refresh_hover(self) -> None:
        encounter = self.controller.encounter
        target_id = self.hovered
        selected_id = self.controller.selected
        if target_id == selected_id:
            target_id = None
        t = self.controller.combatant(target_id) if target_id else None
        t_token = encounter.tokens.get(target_id) if target_id else None
        key = None
        if t is not None and t_token is not None:
            s_token = encounter.tokens.get(selected_id) if selected_id else None
            turn = encounter.combat.turn
            key = (
                target_id,
                t_token.cell,
                t_token.facing,
                t.vision_deg,
                t.size,
                selected_id,
                s_token.cell if s_token else None,
                turn.feet_used if turn else None,
                id(encounter.map),
            )
        if key == self._hover_key:
            return
        self._hover_key = key
        self.cone.clear()
        self.sneak.clear()
        self.blind.clear()
        self.cone.set_about(target_id if t is not None else None)
        self.sneak.set_about(target_id if t is not None else None, selected_id)
        self.blind.set_about(target_id if t is not None else None)
        if t is None or t_token is None:
            return
        grid_map = encounter.map
        map_rect = QRectF(0, 0, grid_map.width * style.CELL_PX, grid_map.height * style.CELL_PX)
        radius = max(self.CONE_RADIUS_CELLS, t.size * 3) * style.CELL_PX
        self.cone.set_cone(footprint_centre(t_token.cell, t.size), t_token.facing, t.vision_deg, radius, map_rect)
        s = self.controller.combatant(selected_id) if selected_id else None
        foe = t.side is not Side.PARTY if s is None else s.side is not t.side
        if foe and not t.down and self._view_later(grid_map, t_token.cell, t.size):
            return  # the cone now; what it cannot see once a worker has worked out what it sees
        if foe and not t.down:
            with contextlib.suppress(ValueError):  # a token off the map (theatre of the mind) sees nothing on it
                self.blind.set_cells(self.blind_cells(t_token.cell, t.size, t_token.facing, t.vision_deg))
        if s is None or selected_id not in encounter.tokens or s.side is t.side or t.down:
            return
        if t.vision_deg >= 360 and not (grid_map.segments or grid_map.doors or grid_map.walls):
            return  # it sees all around and nothing hides anyone from it
        # Out of its sight: outside its cone or behind a wall, as the sneak attack's rule reads it.
        outside = sight.cells_unseen(grid_map, t_token.cell, t.size, t_token.facing, t.vision_deg, s.size)
        inputs = self._mover_inputs(s.id)
        try:
            reach = inputs.reach(grid_map.terrain, allowed=outside)
            # A hidden foe in the way leaves a hole the players must not see: their copy is
            # searched as if it were not there.
            hidden = hidden_cells(self.controller, but=s.id)
            players = inputs.without(hidden) if hidden & (inputs.enemies | inputs.occupied) else None
            player_reach = players.reach(grid_map.terrain, allowed=outside) if players is not None else None
        except (RulesError, ValueError):
            return
        self.sneak.set_cells(
            CellMask.from_cells(reach.cells()).grown(s.size),
            players=(CellMask.from_cells(player_reach.cells()).grown(s.size), ()) if player_reach is not None else None,
        )

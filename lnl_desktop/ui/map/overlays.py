"""Overlay items: shaded cell sets, a vision cone, a dragged path, labels, cell markers and the
rings of the steps that provoke a free attack.

Each overlay is one item however many cells it covers: a cell set is one QImage (a pixel per
cell, drawn scaled without smoothing) plus one outline path. Lines use cosmetic pens so they keep
their on-screen width at every zoom, which is what a projector needs.

Every :class:`Overlay` tells its scene where it changed, so the player view repaints only there.
:mod:`lnl_desktop.ui.map.rules_overlays` decides what the rules overlays show.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.map.geometry import (
    CellMask,
    cell_rect,
    cross_path,
    hatch_path,
)
from lnl_desktop.ui.plumbing import style

# z values: under the tokens (20) go the shadings; above them the drag's path and labels.
SIGHT_Z = 7.5
RULES_Z = 8.0
CONE_Z = 9.0
REACH_Z = 10.0
UNSEEN_APPROACH_Z = 11.0
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
# The cells the selected combatant may reach out of a hovered foe's sight (its unseen approach).
UNSEEN_APPROACH_STYLE = CellsStyle(
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
        self._bounds = _united(
            bounds.adjusted(-_PAD, -_PAD, _PAD, _PAD) if not bounds.isNull() else QRectF(),
            self._players.boundingRect() if self._players is not None else QRectF(),
        )
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


def _united(a: QRectF, b: QRectF) -> QRectF:
    """Both rects (a players' copy may lie outside the GM's shape: the player view repaints there)."""
    if a.isNull():
        return QRectF(b)
    return a if b.isNull() else a.united(b)


def _square(pen: QPen) -> QPen:
    pen.setCapStyle(Qt.PenCapStyle.SquareCap)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen


class ConeItem(Overlay):
    """A vision cone: a translucent wedge from a token's centre, clipped to the map."""

    def __init__(self) -> None:
        super().__init__()
        self._path = QPainterPath()
        self._bounds = QRectF()  # kept, not worked out at each of Qt's many asks during a paint
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
        self._bounds = path.boundingRect().adjusted(-_PAD, -_PAD, _PAD, _PAD)
        self._clip = clip
        self.centre = QPointF(centre)
        self.facing = facing
        self.update()

    def clear(self) -> None:
        if self._path.isEmpty() and self.centre is None:
            return
        self.prepareGeometryChange()
        self._path = QPainterPath()
        self._bounds = QRectF()
        self.centre = None
        self.facing = None
        self.update()

    @property
    def is_empty(self) -> bool:
        return self._path.isEmpty()

    def boundingRect(self) -> QRectF:
        return self._bounds

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
    """A dragged route: a polyline through footprint centres, with numbered waypoints.

    Its players' copy is the route searched as if hidden tokens were not there (set with
    :meth:`set_players_route`), so a bend round a foe they cannot see does not give it away."""

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
        self._players: PathItem | None = None  # the route as it goes without hidden tokens
        self._bounds = QRectF()  # kept, not worked out at each of Qt's many asks during a paint
        self.setZValue(PATH_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_ui_scale(self, factor: float) -> None:
        """The waypoints' numbered discs grow with the UI scale (1.0 = 100 %)."""
        if factor != self._ui_scale:
            self.prepareGeometryChange()
            self._ui_scale = factor
            if self._players is not None:
                self._players.set_ui_scale(factor)
            self._bounds = self._all_bounds()
            self.update()

    def set_route(
        self,
        lines: list[list[QPointF]],
        waypoints: list[QPointF],
        color: QColor,
        dashed: bool = False,
        broken: list[tuple[QPointF, QPointF]] | None = None,
    ) -> None:
        """Solid (or dashed) polylines, dotted red gaps, and the pinned waypoints; the players see
        the same until :meth:`set_players_route` says otherwise."""
        self.prepareGeometryChange()
        self._players = None
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
        self._bounds = self._all_bounds()
        self.update()

    def set_players_route(
        self,
        lines: list[list[QPointF]],
        waypoints: list[QPointF],
        color: QColor,
        dashed: bool = False,
        broken: list[tuple[QPointF, QPointF]] | None = None,
    ) -> None:
        """What the players' copy shows instead (after :meth:`set_route`, which forgets it)."""
        self.prepareGeometryChange()
        players = PathItem()
        players._ui_scale = self._ui_scale
        players.set_route(lines, waypoints, color, dashed, broken)
        self._players = players
        self._bounds = self._all_bounds()
        self.update()

    @property
    def route(self) -> list[list[tuple[float, float]]]:
        """The scene points of the polylines the GM sees."""
        lines: list[list[tuple[float, float]]] = []
        for i in range(self._path.elementCount()):
            e = self._path.elementAt(i)
            if e.isMoveTo() or not lines:
                lines.append([])
            lines[-1].append((e.x, e.y))
        return lines

    @property
    def players_route(self) -> list[list[tuple[float, float]]]:
        """The scene points of the players' copy's polylines (the GM's when they see the same)."""
        return (self._players if self._players is not None else self).route

    def paint_for_players(self, painter: QPainter, option: QStyleOptionGraphicsItem) -> None:
        (self._players if self._players is not None else self).paint(painter, option, None)

    def clear(self) -> None:
        self.set_route([], [], self.OK)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def _all_bounds(self) -> QRectF:
        return _united(self._own_bounds(), self._players._own_bounds() if self._players is not None else QRectF())

    def _own_bounds(self) -> QRectF:
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
    """A short text in a rounded box at a fixed on-screen size (e.g. the path's '25 ft').

    Its players' copy may say something else in another colour (the cost of the route as it goes
    without hidden tokens, a line naming a hidden attacker left out): a box of its own, laid out
    and kept in view by the same rules, at the same anchor."""

    def __init__(self, z: float = LABEL_Z) -> None:
        super().__init__()
        self._text = ""
        self._players: LabelItem | None = None  # what the players read instead; None: the same
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
        self.prepareGeometryChange()
        self._ui_scale = factor
        self._font.setPixelSize(max(1, round(LABEL_PX * factor)))
        self._lay_out(self._text)  # the box again, at the new size
        if self._players is not None:
            self._players.set_ui_scale(factor)
        self.update()

    def set_text(
        self, text: str, back: QColor | None = None, players: str | None = None, players_back: QColor | None = None
    ) -> None:
        """Show ``text`` (one line or several); ``players`` (in ``players_back``) is what the players'
        copy says instead, None (and no colour of its own) when they may read the same."""
        twin = self._players
        same_twin = (
            twin is None
            if players is None and players_back is None
            else twin is not None
            and twin._text == (text if players is None else players)
            and twin._back == (players_back or back or self._back)
        )
        if text == self._text and (back is None or back == self._back) and same_twin:
            return
        self.prepareGeometryChange()
        if back is not None:
            self._back = back
        if players is None and players_back is None:
            self._players = None
        else:
            twin = LabelItem(self.zValue())
            twin._ui_scale = self._ui_scale
            twin._font = QFont(self._font)
            twin._back = QColor(players_back or self._back)
            twin._lay_out(text if players is None else players)
            self._players = twin
        self._lay_out(text)
        self.update()

    def _lay_out(self, text: str) -> None:
        self._text = text
        self._rect = self._box(text)

    def _box(self, text: str) -> QRectF:
        """The box for ``text``: up and to the right of the anchor point, clear of the cursor."""
        if not text:
            return QRectF()
        metrics = QFontMetricsF(self._font)
        lines = text.split("\n")
        k = self._ui_scale
        width = max(metrics.horizontalAdvance(line) for line in lines) + 16 * k
        height = metrics.height() + metrics.lineSpacing() * (len(lines) - 1) + 8 * k
        return QRectF(14 * k, -height - 10 * k, width, height)

    def keep_in_view(self) -> None:
        """Slide the box left of the anchor as far as it must not to run off the right of the GM's view
        (a long 'Counter-attack from: …' near the map's right edge), and below it near the top."""
        scene = self.scene()
        if not self._text or scene is None or not scene.views():
            return
        view = scene.views()[0]
        at = view.mapFromScene(self.pos())
        room = view.viewport().width()
        own = self._fitted(at.x(), at.y(), room)
        # The players' box by the same rules, as it would be placed if it were the GM's.
        twin = self._players._fitted(at.x(), at.y(), room) if self._players is not None else None
        if own == (self._text, self._rect) and (
            twin is None or self._players is None or twin == (self._players._text, self._players._rect)
        ):
            return
        self.prepareGeometryChange()
        self._text, self._rect = own
        if twin is not None and self._players is not None:
            self._players._text, self._players._rect = twin
        self.update()

    def _fitted(self, x0: float, y0: float, room: int) -> tuple[str, QRectF]:
        """The text and box for an anchor at (x0, y0) on a view ``room`` pixels wide."""
        text, rect = self._text, self._rect
        if not text:
            return text, rect
        if rect.width() > room - 8 and ": " in text:
            # Too wide for a small map view: break "Counter-attack from: a, b" after its colon.
            text = "\n".join(line.replace(": ", ":\n", 1) if ": " in line else line for line in text.split("\n"))
            rect = self._box(text)
        width, height = rect.width(), rect.height()
        k = self._ui_scale
        x = 14.0 * k if x0 + 14 * k + width <= room else max(room - 4 - width - x0, 4 - x0)
        y = -height - 10 * k if y0 - height - 10 * k >= 0 else 24.0 * k
        return text, QRectF(x, y, width, height)

    @property
    def text(self) -> str:
        return self._text

    @property
    def players_text(self) -> str:
        """What the players' copy of the label says."""
        return self._text if self._players is None else self._players._text

    @property
    def players_back(self) -> QColor:
        """The colour of the players' copy's box."""
        return QColor(self._back if self._players is None else self._players._back)

    def boundingRect(self) -> QRectF:
        own = self._rect.adjusted(-2, -2, 2, 2)
        return _united(own, self._players.boundingRect()) if self._players is not None else own

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        self._paint_text(painter)

    def paint_for_players(self, painter: QPainter, option: QStyleOptionGraphicsItem) -> None:
        (self._players if self._players is not None else self)._paint_text(painter)

    def _paint_text(self, painter: QPainter) -> None:
        if not self._text:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(_CASING, 2))
        painter.setBrush(self._back)
        painter.drawRoundedRect(self._rect, 7, 7)
        painter.setFont(self._font)
        painter.setPen(QColor("white"))
        painter.drawText(self._rect, Qt.AlignmentFlag.AlignCenter, self._text)


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

    ``players`` are the steps the players may see: those of the route they see (searched as if
    hidden tokens were not there) that visible tokens provoke."""

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
        for cell in {*self._cells, *(self._players or ())}:  # the players' steps may lie elsewhere
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

"""Area templates on the map (RULES §14): a circle, cone, line or square laid from its origin, the
cells it strikes shaded (a wall's shadow left clear), every creature inside ringed for the GM (a
Group d10 target under cover marked so), moved, resized and turned by hand.

The players' scene draws the shown templates only, under its fog of war (so a template shows only
where the players see) and never the rings: nothing there tells of a hidden token. Placing one asks
the core which cells it strikes on every mouse move (:func:`core.map.areas.strike`: a window round
the origin, the walls in its box), the rings from the tokens on the struck cells.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.encounter.areas import Template, area_words
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.map.areas import CONE_DEG, AreaShape, Strike, Struck, strike, struck_by
from lnl_desktop.ui.map.drawings import DRAWING_Z
from lnl_desktop.ui.map.failsafe import fails_closed
from lnl_desktop.ui.map.geometry import CellMask, cell_rect
from lnl_desktop.ui.plumbing.style import CELL_PX

if TYPE_CHECKING:
    pass

TEMPLATE_Z = DRAWING_Z + 0.5  # over the floor and the drawings, under the fog (the players'), overlays and tokens
RINGS_Z = 39.0  # over the tokens, under the markers and labels
PREVIEW_Z = 38.0
RING_COLOR = QColor("#EE7733")
COVER_COLOR = QColor("#0077BB")
SELECTED_COLOR = QColor("#0077BB")
HANDLE_PX = 7  # the resize handle's radius on screen
SHAPE_KEYS = {
    AreaShape.CIRCLE: "&Circle",
    AreaShape.CONE: "C&one",
    AreaShape.LINE: "&Line",
    AreaShape.SQUARE: "&Square",
}


@dataclass
class TemplateStyle:
    """What the Template tool lays next: its shape, and a fixed size when it is a caster's means."""

    shape: AreaShape = AreaShape.CIRCLE
    fixed_size: int | None = None  # a spell's or a breath's own size: the drag only turns it
    label: str = ""
    caster: str = ""
    means: str = ""
    last_size: int = 20
    last_direction: float = 90.0


def to_scene(point: tuple[float, float]) -> QPointF:
    return QPointF(point[0] * CELL_PX, point[1] * CELL_PX)


def to_cells(point: QPointF) -> tuple[float, float]:
    return (point.x() / CELL_PX, point.y() / CELL_PX)


def _unit(direction: float) -> tuple[float, float]:
    rad = math.radians(direction)
    return (math.sin(rad), -math.cos(rad))


def template_path(shape: AreaShape, origin: tuple[float, float], size_ft: int, direction: float) -> QPainterPath:
    """The template's outline in scene units (the shape as drawn; the shaded cells are what it strikes)."""
    r = size_ft / 5 * CELL_PX
    o = to_scene(origin)
    path = QPainterPath()
    if shape is AreaShape.CIRCLE:
        path.addEllipse(o, r, r)
    elif shape is AreaShape.CONE:
        qt_angle = 90.0 - direction  # Qt: 0 at 3 o'clock, counter-clockwise
        path.moveTo(o)
        path.arcTo(QRectF(o.x() - r, o.y() - r, 2 * r, 2 * r), qt_angle - CONE_DEG / 2, CONE_DEG)
        path.closeSubpath()
    elif shape is AreaShape.LINE:
        ux, uy = _unit(direction)
        px, py = -uy * CELL_PX / 2, ux * CELL_PX / 2
        ex, ey = o.x() + ux * r, o.y() + uy * r
        path.moveTo(o.x() + px, o.y() + py)
        path.lineTo(ex + px, ey + py)
        path.lineTo(ex - px, ey - py)
        path.lineTo(o.x() - px, o.y() - py)
        path.closeSubpath()
    else:
        ux, uy = _unit(direction)
        sx = r if ux >= 0 else -r
        sy = r if uy >= 0 else -r
        path.addRect(QRectF(o, QPointF(o.x() + sx, o.y() + sy)).normalized())
    return path


def far_end(shape: AreaShape, origin: tuple[float, float], size_ft: int, direction: float) -> tuple[float, float]:
    """Where the template's handle is (cells): the end of its axis, a circle's edge, a square's far corner."""
    n = size_ft / 5
    ux, uy = _unit(direction)
    if shape is AreaShape.SQUARE:
        return (origin[0] + (n if ux >= 0 else -n), origin[1] + (n if uy >= 0 else -n))
    return (origin[0] + ux * n, origin[1] + uy * n)


def _label_font() -> QFont:
    font = QFont()
    font.setPointSizeF(11)
    font.setBold(True)
    return font


class TemplateItem(QGraphicsItem):
    """One template: the struck cells shaded, its outline, its size and name written beside it."""

    def __init__(self, player: bool, z: float = TEMPLATE_Z) -> None:
        super().__init__()
        self.player = player
        self.setZValue(z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # the view's gestures handle the mouse
        self.template: Template | None = None
        self.strike: Strike | None = None
        self.selected = False
        self._path = QPainterPath()
        self._shade = QRectF()
        self._image: QImage | None = None
        self._rect = QRectF()
        self._text = ""
        self._text_at = QPointF()

    def set_template(self, template: Template, strike: Strike) -> None:
        self.prepareGeometryChange()
        self.template = template
        self.strike = strike
        self._path = template_path(template.shape, template.origin, template.size_ft, template.direction)
        mask = CellMask(strike.x0, strike.y0, strike.struck)
        colour = QColor(template.colour)
        colour.setAlpha(70)
        self._image = mask.image(colour) if strike.struck.size else None
        self._shade = mask.scene_rect()
        words = area_words(template.shape, template.size_ft).removeprefix("a ")
        self._text = f"{visible(template.label)} · {words}" if template.label else words
        end = to_scene(far_end(template.shape, template.origin, template.size_ft, template.direction))
        self._text_at = end + QPointF(8, -8)
        size = QFontMetricsF(_label_font()).size(0, self._text)
        text_rect = QRectF(self._text_at - QPointF(0, size.height()), size).adjusted(-4, -2, 4, 2)
        self._rect = self._path.boundingRect().united(self._shade).united(text_rect).adjusted(-12, -12, 12, 12)
        self.update()

    def set_selected(self, on: bool) -> None:
        if on != self.selected:
            self.selected = on
            self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def hit(self, point: QPointF) -> bool:
        return self._path.contains(point)

    @fails_closed
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        template = self.template
        if template is None:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if self._image is not None:
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
            painter.drawImage(self._shade, self._image)
        colour = QColor(template.colour)
        gm_only = not self.player and not template.shown
        pen = QPen(colour, 2.5, Qt.PenStyle.DashLine if gm_only else Qt.PenStyle.SolidLine)
        pen.setCosmetic(True)
        painter.setPen(pen)
        fill = QColor(colour)
        fill.setAlpha(22)
        painter.setBrush(fill)
        painter.drawPath(self._path)
        painter.setFont(_label_font())
        metrics = QFontMetricsF(painter.font())
        box = QRectF(self._text_at - QPointF(0, metrics.height()), metrics.size(0, self._text)).adjusted(-4, -2, 4, 2)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(255, 255, 255, 215))
        painter.drawRoundedRect(box, 4, 4)
        painter.setPen(colour.darker(140))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self._text)
        if self.selected and not self.player:
            frame = QPen(SELECTED_COLOR, 2, Qt.PenStyle.DotLine)
            frame.setCosmetic(True)
            painter.setPen(frame)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._path)
            end = to_scene(far_end(template.shape, template.origin, template.size_ft, template.direction))
            scale = max(painter.worldTransform().m11(), 1e-6)
            radius = HANDLE_PX / scale
            painter.setBrush(QColor("#ffffff"))
            painter.setPen(frame)
            painter.drawEllipse(end, radius, radius)
            painter.drawEllipse(to_scene(template.origin), radius * 0.6, radius * 0.6)


class StruckRings(QGraphicsItem):
    """The GM's rings round every creature an area strikes; one under cover gets a blue dashed ring
    and the word "cover" (Group d10: half damage)."""

    def __init__(self) -> None:
        super().__init__()
        self.setZValue(RINGS_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.rings: list[tuple[QRectF, bool]] = []
        self._rect = QRectF()

    def set_rings(self, encounter: Encounter, struck: list[Struck]) -> None:
        sizes = {c.id: c.size for c in encounter.combatants}
        rings: list[tuple[QRectF, bool]] = []
        for s in struck:
            token = encounter.tokens.get(s.combatant)
            if token is not None:
                rings.append((cell_rect(token.cell, sizes.get(s.combatant, 1)), s.cover))
        if rings == self.rings:
            return
        self.prepareGeometryChange()
        self.rings = rings
        rect = QRectF()
        for r, _ in rings:
            rect = rect.united(r)
        self._rect = rect.adjusted(-16, -28, 16, 16)
        self.update()

    def clear(self) -> None:
        if self.rings:
            self.prepareGeometryChange()
            self.rings = []
            self._rect = QRectF()

    def boundingRect(self) -> QRectF:
        return self._rect

    @fails_closed
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        font = QFont()
        font.setPointSizeF(9)
        font.setBold(True)
        painter.setFont(font)
        for rect, cover in self.rings:
            pen = QPen(
                COVER_COLOR if cover else RING_COLOR, 3.5, Qt.PenStyle.DashLine if cover else Qt.PenStyle.SolidLine
            )
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.drawEllipse(rect.adjusted(-5, -5, 5, 5))
            if cover:
                box = QRectF(rect.center().x() - 24, rect.top() - 24, 48, 16)
                painter.fillRect(box, QColor(255, 255, 255, 220))
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, "cover")


class TemplateLayer:
    """The scene's templates: one :class:`TemplateItem` each (the players' scene: the shown ones),
    the GM's selected one with the rings round whom it strikes."""

    def __init__(self, scene: QGraphicsScene, player: bool, cover_matters: Callable[[], bool]) -> None:
        self.scene = scene
        self.player = player
        self.cover_matters = cover_matters
        self.items: dict[str, TemplateItem] = {}
        self.selected: str | None = None
        self.rings = StruckRings()
        if not player:
            scene.addItem(self.rings)
        self._templates: tuple[Template, ...] | None = None
        self._map: object = None
        self._strikes: dict[str, tuple[Template, Strike]] = {}

    def strike_of(self, encounter: Encounter, template: Template) -> Strike:
        kept = self._strikes.get(template.id)
        if kept is not None and kept[0] is template:
            return kept[1]
        grid = encounter.map  # the cells only: who stands on them is the rings' (the selected template's)
        strike_ = strike(grid, template.shape, template.origin, template.size_ft, template.direction, grid.diagonal)
        self._strikes[template.id] = (template, strike_)
        return strike_

    def sync(self, encounter: Encounter) -> None:
        templates = encounter.templates
        if templates is not self._templates or encounter.map is not self._map:
            if encounter.map is not self._map:
                self._strikes.clear()
            self._templates = templates
            self._map = encounter.map
            wanted = {t.id: t for t in templates if not self.player or t.shown}
            for tid in [tid for tid in self.items if tid not in wanted]:
                self.scene.removeItem(self.items.pop(tid))
                self._strikes.pop(tid, None)
            for tid, template in wanted.items():
                item = self.items.get(tid)
                if item is None:
                    item = self.items[tid] = TemplateItem(self.player)
                    self.scene.addItem(item)
                if item.template is not template:
                    item.set_template(template, self.strike_of(encounter, template))
                item.set_selected(tid == self.selected)
            if self.selected is not None and self.selected not in self.items:
                self.selected = None
        self._ring_selected(encounter)

    def _ring_selected(self, encounter: Encounter) -> None:
        item = self.items.get(self.selected) if self.selected else None
        if self.player or item is None or item.template is None:
            self.rings.clear()
            return
        t = item.template
        struck = struck_by(encounter, t.shape, t.origin, t.size_ft, t.direction, cover_counts=self.cover_matters())[1]
        self.rings.set_rings(encounter, struck)

    def reset(self) -> None:
        self._templates = None
        self._strikes.clear()
        self.select(None, None)

    def select(self, tid: str | None, encounter: Encounter | None) -> None:
        if tid != self.selected:
            for other in (self.selected, tid):
                item = self.items.get(other) if other else None
                if item is not None:
                    item.set_selected(other == tid)
            self.selected = tid
        if encounter is not None:
            self._ring_selected(encounter)
        elif tid is None:
            self.rings.clear()

    def selected_template(self) -> Template | None:
        item = self.items.get(self.selected) if self.selected else None
        return item.template if item is not None else None

    def template_at(self, point: QPointF) -> Template | None:
        for item in reversed(list(self.items.values())):
            if item.isVisible() and item.hit(point):
                return item.template
        return None

    def handle_at(self, point: QPointF, within: float) -> Template | None:
        """The selected template when ``point`` is on its resize handle (``within`` scene units)."""
        t = self.selected_template()
        if t is None:
            return None
        end = to_scene(far_end(t.shape, t.origin, t.size_ft, t.direction))
        return t if math.hypot(point.x() - end.x(), point.y() - end.y()) <= within else None

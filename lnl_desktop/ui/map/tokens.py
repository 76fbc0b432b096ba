"""Token items: one per placed combatant, painted as vectors so they stay crisp at any zoom.

An item keeps only its combatant's id and a :class:`TokenLook`, a frozen snapshot of what it shows;
the scene builds a fresh look from the encounter after every action and repaints an item only when
its look changed. Shape as well as colour tells the sides apart (Party round, Opponents square).

Where the texts go is one function, :func:`token_layout`, of the look, the zoom and the UI scale;
painting and the item's bounds both read it. A token under :data:`SMALL_TOKEN_PX` on screen (a
laptop's map) shows its label (unique over the encounter: :mod:`lnl_desktop.ui.map.labels`) on a
plate of a readable size instead of in letters too small to read; its full name is its tooltip.
Every text a token shows is :func:`visible`'s: a control or bidi character a name was typed with is
shown as its escape (``TokenLook.name`` keeps the name as typed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.map.failsafe import fails_closed
from lnl_desktop.ui.map.markers import Marker, marker_at, marker_height, paint_markers, place_markers
from lnl_desktop.ui.map.token_look import TokenLook
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.portraits import pixmap_bucket, portrait_pixmap

TOKEN_Z = 20.0
FRAMED_Z = 19.5  # a token with a turn ring or selection marks: under its neighbours, whose labels stay read
DRAGGED_Z = 35.0
MARGIN = 0.08  # of a cell: room outside the footprint for the turn ring and selection marks

_OUTLINE = QColor(20, 20, 20)
_WHITE = QColor(255, 255, 255)
_TURN = QColor("#F0E442")  # yellow, bright on every side colour and on the floor
_SELECT = QColor("#111111")
_BAR_BACK = QColor(25, 25, 25, 230)
_PLATE = QColor(25, 25, 25)  # opaque: nothing under a word shows through it

# Sizes on screen, in device pixels at a UI scale of 100 % (the UI scale multiplies them).
SMALL_TOKEN_PX = 24.0  # a token smaller than this shows its label on a plate of its own
TINY_TOKEN_PX = 7.0  # smaller than this, shape and colour only: plates would cover each other
LABEL_PX = 11.0  # the letters of a small token's label
LABEL_MIN_PX = 10.0  # ... and no smaller, to fit it to its token
PLATE_OVERFLOW = 1.3  # a small token's plate is at most this many times as wide as the token, if the floor allows
WORD_PX = 11.0  # the least height of a state word ("flees")
CONDITION_PX = 12.0  # the least height of a condition word in the player view ("badly hurt")
LABEL_HEIGHT = 0.34  # a full-size token's label: its share of the token's height (at 100 %)


def body_path(side: Side, extent: float, inflate: float = 0.0) -> QPainterPath:
    """The token's body for a footprint of ``extent`` scene units: a disc (Party) or rounded square."""
    path = QPainterPath()
    c = extent / 2
    if side is Side.PARTY:
        r = 0.41 * extent + inflate
        path.addEllipse(QPointF(c, c), r, r)
    else:
        half = 0.37 * extent + inflate
        corner = 0.12 * extent + inflate
        path.addRoundedRect(QRectF(c - half, c - half, 2 * half, 2 * half), corner, corner)
    return path


@lru_cache(maxsize=4096)
def _text_path(label: str, extent: float, width: float = 0.60, height: float = 0.34) -> QPainterPath:
    """The label as an outline path centred on (0, 0), fitted to ``width`` x ``height`` of the token."""
    font = QFont()
    font.setBold(True)
    font.setPixelSize(100)
    raw = QPainterPath()
    raw.addText(0, 0, font, label)
    box = raw.boundingRect()
    if box.isEmpty():
        return raw
    scale = min(width * extent / box.width(), height * extent / box.height())
    path = QPainterPath()
    path.addPath(raw)
    # Centre, then scale: translated() and a transform keep it a single cached path.
    path.translate(-box.center())
    return QTransform.fromScale(scale, scale).map(path)


@lru_cache(maxsize=128)
def bold_font(px: int, condensed: bool = False) -> QFont:
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(1, px))
    if condensed:  # a small token's label: narrower letters overlap its neighbours less
        font.setStretch(QFont.Stretch.SemiCondensed)
    return font


@lru_cache(maxsize=4096)
def _text_size(text: str, px: int, condensed: bool = False) -> tuple[float, float]:
    """(advance, line height) of ``text`` in a bold font of ``px`` pixels."""
    metrics = QFontMetricsF(bold_font(px, condensed))
    return metrics.horizontalAdvance(text), metrics.height()


def _plate_px(label: str, on_screen: float, ui_scale: float) -> int:
    """The letters of a small token's label: :data:`LABEL_PX` times the UI scale, smaller (down to a
    readable floor) when the plate would be much wider than the token and cover its neighbours."""
    px = round(LABEL_PX * ui_scale)
    floor = min(px, round(LABEL_MIN_PX * _grow(ui_scale, 1.5)))
    advance, _ = _text_size(label, px, True)
    width = advance + 0.3 * px
    room = PLATE_OVERFLOW * on_screen
    if width > room:
        px = max(floor, int(px * room / width))
    return px


def _grow(k: float, at_double: float) -> float:
    """A factor that is 1 at 100 % and ``at_double`` at 200 % (and beyond)."""
    return 1.0 + (at_double - 1.0) * (min(max(k, 1.0), 2.0) - 1.0)


@dataclass(frozen=True)
class TokenLayout:
    """Where a token's texts go at one zoom (``lod``: device pixels per scene unit) and UI scale, in
    the item's own units. ``paint`` draws from it and the item's bounds hold it.

    ``mode`` is "shape" (too small for any text: shape and colour), "plate" (under
    :data:`SMALL_TOKEN_PX` on screen at 100 %: the label on a plate of its own, larger than the
    token if it must) or "full" (the label on the token, bars, badges).
    """

    lod: float
    mode: str
    label_px: float  # the label's letters on screen, in pixels
    plate: QRectF  # the label's plate in "plate" mode; empty otherwise
    word_px: float
    word_plate: QRectF  # the ruleset's state word above the token; empty without one
    condition_px: float
    condition_plate: QRectF  # the players' condition word at the token's foot; empty without one
    frame: QRectF  # what the turn ring and the selection marks go round
    bounds: QRectF
    bars: tuple[QRectF, ...] = ()  # the ruleset's bars (SP, IP) in "full" mode, top first
    badge_radius: float = 0.0  # the state badges' ("surprised", "guard") in "full" mode
    markers: tuple[Marker, ...] = ()  # the condition markers round the edge in "full" mode


def _bars(look: TokenLook, s: float, ui_scale: float) -> tuple[QRectF, ...]:
    """The rects of the first two bars, near the token's foot; taller and wider with the UI scale."""
    unit = style.CELL_PX  # bars keep one cell's proportions on big tokens
    width = min(0.66 * _grow(ui_scale, 1.2), 0.8) * unit if look.size == 1 else 0.55 * s
    height = 0.085 * unit * _grow(ui_scale, 1.5)
    gap = 0.025 * unit
    left = (s - width) / 2
    top = s / 2 + 0.43 * s - 2 * height - gap - 0.02 * unit
    if look.size > 1:
        top = s * 0.80 - 2 * (height - 0.085 * unit)
    return tuple(QRectF(left, top + i * (height + gap), width, height) for i in range(min(2, len(look.gauges))))


def token_layout(look: TokenLook, lod: float, ui_scale: float = 1.0) -> TokenLayout:
    """The layout of ``look`` at a zoom of ``lod`` and a UI scale of ``ui_scale`` (1.0 = 100 %)."""
    lod = max(lod, 1e-3)
    unit = style.CELL_PX
    s = look.size * unit
    on_screen = s * lod
    f = max(0.5, ui_scale)
    m = MARGIN * unit
    bounds = QRectF(-m, -m, s + 2 * m, s + 2 * m)
    if on_screen < TINY_TOKEN_PX:
        mode = "shape"
    elif on_screen < SMALL_TOKEN_PX * f:
        mode = "plate"
    else:
        mode = "full"
    plate = QRectF()
    frame = QRectF(0, 0, s, s)
    label_px = 0.0
    text_bottom = s / 2  # where the label ends, so the condition word goes below it
    if mode == "plate":
        px = _plate_px(look.label, on_screen, f)
        label_px = float(px)
        advance, height = _text_size(look.label, px, True)
        h = height + 0.1 * px
        w = max(advance + 0.3 * px, h)
        plate = QRectF(s / 2 - w / 2 / lod, s / 2 - h / 2 / lod, w / lod, h / lod)
        frame = frame.united(plate)
        text_bottom = plate.bottom()
        ring = 8.0 / lod  # the turn ring and the selection marks round the plate, in pixels
        bounds = bounds.united(frame.adjusted(-ring, -ring, ring, ring))
    elif mode == "full":
        grow = _label_grow(f)
        label_px = LABEL_HEIGHT * grow * on_screen
        text_bottom = s * _label_centre(f) + LABEL_HEIGHT * grow * s / 2
    word_plate = QRectF()
    word_px = 0.0
    if look.word:
        px = round(max(WORD_PX * f, 0.22 * unit * lod))
        word_px = float(px)
        advance, height = _text_size(look.word, px)
        w = max(on_screen * 0.9, advance + height * 0.6)
        h = height * 1.15
        bottom = min(-0.04 * unit, frame.top() - 3 / lod)  # above the token, and above a plate
        word_plate = QRectF(s / 2 - w / 2 / lod, bottom - h / lod, w / lod, h / lod)
        pen = 2 / lod
        bounds = bounds.united(word_plate.adjusted(-pen, -pen, pen, pen))
    condition_plate = QRectF()
    condition_px = 0.0
    if look.condition and mode != "shape":
        px = round(max(CONDITION_PX * f, 0.2 * unit * lod))
        condition_px = float(px)
        advance, _ = _text_size(look.condition, px)
        h = px * 1.4
        w = max(on_screen + 0.12 * unit * lod, advance + 0.6 * px)
        top = max(s - 0.02 * unit - h / lod, text_bottom + 1 / lod)  # at the foot, clear of the label
        condition_plate = QRectF(s / 2 - w / 2 / lod, top, w / lod, h / lod)
        bounds = bounds.united(condition_plate.adjusted(-1 / lod, -1 / lod, 1 / lod, 1 / lod))
    bars: tuple[QRectF, ...] = ()
    badge_radius = 0.0
    if mode == "full":
        if not look.condition:
            bars = _bars(look, s, f)
        badge_radius = 0.19 * unit * (1 + 0.35 * (look.size - 1)) * _grow(f, 1.3)
    markers: tuple[Marker, ...] = ()
    if mode == "full" and look.markers:
        keep_clear = (_label_box(look, s, f), *_badge_boxes(look, s, badge_radius), *bars)
        keep_clear += tuple(r for r in (word_plate, condition_plate) if not r.isEmpty())
        markers = place_markers(look.markers, s, marker_height(look.size, unit, f, lod), keep_clear)
        for marker in markers:
            bounds = bounds.united(marker.rect.adjusted(-2 / lod, -2 / lod, 2 / lod, 2 / lod))
    return TokenLayout(
        lod,
        mode,
        label_px,
        plate,
        word_px,
        word_plate,
        condition_px,
        condition_plate,
        frame,
        bounds,
        bars,
        badge_radius,
        markers,
    )


def _label_box(look: TokenLook, s: float, f: float) -> QRectF:
    """Where a full-size token's label is drawn, with its outline."""
    text = _text_path(look.label, s, round(0.60 * _grow(f, 1.25), 3), round(LABEL_HEIGHT * _label_grow(f), 3))
    pen = 0.03 * s
    return text.boundingRect().translated(s / 2, s * _label_centre(f)).adjusted(-pen, -pen, pen, pen)


def _state_badges(look: TokenLook) -> list[str]:
    flags = (look.surprised, look.guard, look.concealed, look.broken)
    return [name for name, on in zip(("surprised", "guard", "concealed", "broken"), flags, strict=True) if on]


def _badge_slots(s: float, r: float) -> list[tuple[float, float]]:
    k = 0.7 * r  # in the corners, clear of the label as far as a small token allows
    return [(k, k), (s - k, k), (k, s / 2), (s - k, s / 2)]


def _badge_boxes(look: TokenLook, s: float, r: float) -> list[QRectF]:
    slots = _badge_slots(s, r)[: len(_state_badges(look))]
    return [QRectF(x - r, y - r, 2 * r, 2 * r) for x, y in slots]


def _label_grow(ui_scale: float) -> float:
    """How much taller a full-size token's label is at this UI scale: up to 1.3 times at 200 %."""
    return _grow(ui_scale, 1.3)


def _label_centre(ui_scale: float) -> float:
    """The label's centre, as a share of the token's height: a little higher when it grows."""
    return 0.42 - 0.03 * (min(max(ui_scale, 1.0), 2.0) - 1.0)


class TokenItem(QGraphicsRectItem):
    """A combatant's token: body, label, facing wedge, SP and IP bars, badges, turn ring, selection.

    Texts that must be read keep a size on screen (the label's plate on a small token, the state
    word, the players' condition word), so the item is told the view's zoom (:meth:`set_scales`)
    and keeps its bounds round them; the UI scale (1.0 = 100 %) enlarges them and the bars and badges.
    """

    def __init__(self, look: TokenLook, view_scale: float = 1.0, ui_scale: float = 1.0) -> None:
        super().__init__()
        self.cid = look.cid
        self._look = look
        self._view_scale = view_scale
        self._ui_scale = ui_scale
        self._preview_facing: int | None = None
        self._ghost_bad = False  # a drag's ghost over a cell it cannot end on
        self._dragged = False
        self._bounds = self._bounds_for(look)
        # A rect item, its rect the token's bounds and no pen: Qt reads the bounds in C++, not through
        # a Python call per token each time a repaint or the scene's index asks (thousands a frame).
        self.setPen(Qt.PenStyle.NoPen)
        self.setRect(self._bounds)
        # Repaints from a pixmap cache at the current device scale: crisp, and cheap for 500 tokens.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # the view handles the mouse
        self._apply(look)

    # -- state ---------------------------------------------------------------------------------

    @property
    def look(self) -> TokenLook:
        return self._look

    @property
    def ui_scale(self) -> float:
        return self._ui_scale

    @property
    def view_scale(self) -> float:
        return self._view_scale

    def set_look(self, look: TokenLook) -> None:
        if look == self._look:
            return
        self._look = look
        self._set_bounds(self._bounds_for(look))
        self._apply(look)
        self.update()

    def set_scales(self, view_scale: float, ui_scale: float) -> None:
        """The view's zoom (device pixels per scene unit) and the UI scale: what texts are sized by."""
        if (view_scale, ui_scale) == (self._view_scale, self._ui_scale):
            return
        repaint = ui_scale != self._ui_scale
        self._view_scale = view_scale
        self._ui_scale = ui_scale
        self._set_bounds(self._bounds_for(self._look))
        if repaint:
            self.update()

    def layout(self, lod: float | None = None) -> TokenLayout:
        """Where the texts go at ``lod`` (the view's zoom when None)."""
        return token_layout(self._look, self._view_scale if lod is None else lod, self._ui_scale)

    def _bounds_for(self, look: TokenLook) -> QRectF:
        # Room for the zoom the view said and a little farther out, so a zoom step not yet told
        # (the view tells before it paints) still fits.
        lod = self._view_scale
        s = look.size * style.CELL_PX
        if (
            not look.word
            and not look.condition
            and not look.markers
            and (s * lod / 1.3 >= SMALL_TOKEN_PX * self._ui_scale or s * lod < TINY_TOKEN_PX)
        ):
            m = MARGIN * style.CELL_PX  # no text of a fixed size: the footprint and the rings' margin
            return QRectF(-m, -m, s + 2 * m, s + 2 * m)
        near = token_layout(look, lod, self._ui_scale).bounds
        far = token_layout(look, lod / 1.3, self._ui_scale).bounds
        return near.united(far)

    def _set_bounds(self, bounds: QRectF) -> None:
        if bounds != self._bounds:
            self._bounds = bounds
            self.setRect(bounds)  # tells the scene's index, or it would find the item where it was

    def _apply(self, look: TokenLook) -> None:
        if not self._dragged:  # a dragged token's ghost goes where the view puts it
            self.setPos(look.cell[0] * style.CELL_PX, look.cell[1] * style.CELL_PX)
        self.setToolTip(look.tooltip)
        if self._dragged:
            self.setZValue(DRAGGED_Z)
            self.setOpacity(0.9)
        else:
            self.setZValue(FRAMED_Z if look.has_turn or look.selected else TOKEN_Z)
            self.setOpacity(0.45 if look.hidden else 1.0)

    def set_dragged(self, dragged: bool) -> None:
        """Lift the token over everything while it is dragged; put it back as its look says after."""
        if dragged != self._dragged:
            self._dragged = dragged
            self._apply(self._look)

    @property
    def dragged(self) -> bool:
        return self._dragged

    def move_to(self, anchor: Cell) -> None:
        """Show the token on another anchor (a drag's ghost); the look keeps the real cell."""
        self.setPos(anchor[0] * style.CELL_PX, anchor[1] * style.CELL_PX)

    def reset_position(self) -> None:
        self.setPos(self._look.cell[0] * style.CELL_PX, self._look.cell[1] * style.CELL_PX)

    def set_preview_facing(self, facing: int | None) -> None:
        if facing != self._preview_facing:
            self._preview_facing = facing
            self.update()

    def set_ghost_bad(self, bad: bool) -> None:
        if bad != self._ghost_bad:
            self._ghost_bad = bad
            self.update()

    @property
    def extent(self) -> float:
        return self._look.size * style.CELL_PX

    def marker_at(self, scene_pos: QPointF) -> Marker | None:
        """The condition marker under a point of the scene at the view's zoom (a hover's), if any."""
        return marker_at(self.layout().markers, self.mapFromScene(scene_pos))

    # -- geometry ------------------------------------------------------------------------------

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(QRectF(0, 0, self.extent, self.extent))
        return path

    # -- painting ------------------------------------------------------------------------------

    @fails_closed
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        look = self._look
        s = self.extent
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        layout = token_layout(look, lod, self._ui_scale)
        on_screen = s * lod  # token size in device pixels
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        facing = self._preview_facing if self._preview_facing is not None else look.facing
        fill = QColor(style.DOWN if look.down else style.side_color(look.side))
        body = body_path(look.side, s)

        if layout.mode == "full":
            if look.has_turn:
                self._paint_turn_ring(painter, look, s, lod)
            if look.selected:
                self._paint_selection(painter, s, lod)

        if layout.mode == "shape":
            # Far away: shape and colour only.
            if look.has_turn:
                self._paint_turn_ring(painter, look, s, lod)
            if look.selected:
                self._paint_selection(painter, s, lod)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawPath(body)
            if look.word:
                self._paint_word(painter, look.word, layout)
            return

        # Body: dark outline outside a white rim, so it stands out on any floor or picture.
        if look.concealed:
            fill.setAlpha(150)
        painter.setPen(QPen(_OUTLINE, max(0.07 * s, 2.5 / lod)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(body)
        rim = QPen(_WHITE, max(0.035 * s, 1.2 / lod))
        if look.concealed:
            rim.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(rim)
        painter.setBrush(fill)
        painter.drawPath(body)
        if look.portrait and on_screen >= 10:
            self._paint_portrait(painter, look, s, on_screen)
        if on_screen >= 10:
            self._paint_facing(painter, s, facing, lod)

        if layout.mode == "plate":
            # Small on screen: the label on a plate of its own, the turn ring and selection round it.
            if look.down:
                self._paint_down(painter, s)  # under the plate, which is grey and struck through
            self._paint_plate(painter, look, layout)
            if look.has_turn:
                self._paint_frame_ring(painter, layout.frame, lod)
            if look.selected:
                self._paint_frame_marks(painter, layout.frame, lod)
        else:
            f = self._ui_scale
            grow = _label_grow(f)
            text = _text_path(look.label, s, round(0.60 * _grow(f, 1.25), 3), round(LABEL_HEIGHT * grow, 3))
            painter.save()
            painter.translate(s / 2, s * _label_centre(f))
            painter.strokePath(
                text,
                QPen(_OUTLINE, 0.06 * s, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin),
            )
            painter.fillPath(text, _WHITE)
            painter.restore()
            self._paint_bars(painter, look, layout)
            self._paint_badges(painter, look, s, layout.badge_radius)
            if look.down:
                self._paint_down(painter, s)
            paint_markers(painter, layout.markers, lod)  # over the cross: a condition must still be read
        if look.condition:
            # Over the cross of a down creature: the word "down" must be read, not crossed out.
            self._paint_condition(painter, look.condition, layout)
        if look.word:
            self._paint_word(painter, look.word, layout)
        if self._ghost_bad:
            self._paint_down(painter, s, QColor("#CC3311"))

    def _paint_portrait(self, painter: QPainter, look: TokenLook, s: float, on_screen: float) -> None:
        """The picture inside the body, inset so a ring of the side's colour stays round it; faded
        when the combatant is down or concealed (the cross and the dashed rim still tell which)."""
        assert look.portrait is not None
        inset = 0.1 * s  # the side's ring: the rim's white and a band of colour show outside the picture
        extent = s - 2 * inset
        shape = 0.82 if look.side is Side.PARTY else 0.74  # the body's share of the footprint
        side_px = extent * shape
        pixmap = portrait_pixmap(look.portrait, pixmap_bucket(on_screen * shape), look.side)
        if pixmap.isNull():
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        if look.down:
            painter.setOpacity(0.45)
        elif look.concealed:
            painter.setOpacity(0.6)
        target = QRectF(s / 2 - side_px / 2, s / 2 - side_px / 2, side_px, side_px)
        painter.drawPixmap(target, pixmap, QRectF(pixmap.rect()))
        painter.restore()

    def _paint_turn_ring(self, painter: QPainter, look: TokenLook, s: float, lod: float) -> None:
        ring = body_path(look.side, s, inflate=0.085 * s)
        width = max(0.07 * s, 3.0 / lod)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(_OUTLINE, width + max(0.04 * s, 2.0 / lod)))
        painter.drawPath(ring)
        painter.setPen(QPen(_TURN, width))
        painter.drawPath(ring)

    def _paint_selection(self, painter: QPainter, s: float, lod: float) -> None:
        # Corner brackets around the footprint: a different shape from the turn ring.
        m = 0.06 * s / max(1, self._look.size) * 1.0
        arm = 0.26 * s / max(1, self._look.size) + 0.05 * s
        width = max(0.05 * s / self._look.size, 3.0 / lod)
        self._paint_brackets(painter, QRectF(-m, -m, s + 2 * m, s + 2 * m), arm, width)

    def _paint_brackets(self, painter: QPainter, rect: QRectF, arm: float, width: float) -> None:
        left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
        path = QPainterPath()
        for x, y, dx, dy in ((left, top, 1, 1), (right, top, -1, 1), (left, bottom, 1, -1), (right, bottom, -1, -1)):
            path.moveTo(x + dx * arm, y)
            path.lineTo(x, y)
            path.lineTo(x, y + dy * arm)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(_WHITE, width * 2.0, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap))
        painter.drawPath(path)
        painter.setPen(QPen(_SELECT, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap))
        painter.drawPath(path)

    def _paint_plate(self, painter: QPainter, look: TokenLook, layout: TokenLayout) -> None:
        """The label on a plate of the side's colour (grey and struck through when down), its
        letters a fixed size on screen."""
        lod = layout.lod
        plate = layout.plate
        back = QColor(style.DOWN if look.down else style.side_color(look.side)).darker(115)
        radius = min(plate.height(), plate.width()) * 0.3
        painter.setPen(QPen(_OUTLINE, 2.6 / lod))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(plate, radius, radius)
        painter.setPen(QPen(_WHITE, 1.3 / lod, Qt.PenStyle.DashLine if look.concealed else Qt.PenStyle.SolidLine))
        painter.setBrush(back)
        painter.drawRoundedRect(plate, radius, radius)
        font = QFont(bold_font(round(layout.label_px), True))
        font.setStrikeOut(look.down)
        self._paint_text(painter, plate, look.label, font, _WHITE)

    def _paint_text(self, painter: QPainter, rect: QRectF, text: str, font: QFont, ink: QColor) -> None:
        """``text`` centred in ``rect`` (item units) in ``font`` sized in device pixels."""
        t = painter.worldTransform()
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(t) or 1.0
        painter.save()
        painter.translate(rect.center())
        painter.scale(1 / lod, 1 / lod)
        w, h = rect.width() * lod, rect.height() * lod
        painter.setFont(font)
        painter.setPen(ink)
        painter.drawText(QRectF(-w / 2, -h / 2, w, h), Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

    def _paint_frame_ring(self, painter: QPainter, frame: QRectF, lod: float) -> None:
        """The turn ring of a small token: round its plate, a fixed width on screen."""
        rect = frame.adjusted(-2.5 / lod, -2.5 / lod, 2.5 / lod, 2.5 / lod)
        radius = min(rect.width(), rect.height()) * 0.3
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(_OUTLINE, 4.5 / lod))
        painter.drawRoundedRect(rect, radius, radius)
        painter.setPen(QPen(_TURN, 2.5 / lod))
        painter.drawRoundedRect(rect, radius, radius)

    def _paint_frame_marks(self, painter: QPainter, frame: QRectF, lod: float) -> None:
        """The selection's corner brackets round a small token's plate."""
        rect = frame.adjusted(-5 / lod, -5 / lod, 5 / lod, 5 / lod)
        arm = min(rect.width(), rect.height()) * 0.3
        self._paint_brackets(painter, rect, arm, 1.6 / lod)

    def _paint_facing(self, painter: QPainter, s: float, facing: int, lod: float) -> None:
        c = s / 2
        rad = math.radians(facing)
        ux, uy = math.sin(rad), -math.cos(rad)  # compass bearing: 0 = up, clockwise
        px, py = -uy, ux
        tip = 0.53 * s
        base = 0.33 * s
        half = 0.13 * s
        wedge = QPolygonF(
            [
                QPointF(c + ux * tip, c + uy * tip),
                QPointF(c + ux * base + px * half, c + uy * base + py * half),
                QPointF(c + ux * base - px * half, c + uy * base - py * half),
            ]
        )
        painter.setPen(
            QPen(
                _OUTLINE,
                max(0.03 * s, 1.5 / lod),
                Qt.PenStyle.SolidLine,
                Qt.PenCapStyle.RoundCap,
                Qt.PenJoinStyle.RoundJoin,
            )
        )
        painter.setBrush(_WHITE)
        painter.drawPolygon(wedge)

    def _paint_bars(self, painter: QPainter, look: TokenLook, layout: TokenLayout) -> None:
        if not layout.bars:
            return
        gap = 0.025 * style.CELL_PX
        plate = QRectF()
        for bar in layout.bars:
            plate = plate.united(bar) if not plate.isNull() else QRectF(bar)
        plate.adjust(-gap, -gap, gap, gap)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_BAR_BACK)
        painter.drawRoundedRect(plate, gap * 1.5, gap * 1.5)
        tints = {"reserve": style.RESERVE_BAR, "wound": style.WOUND_BAR}
        for bar, gauge in zip(layout.bars, look.gauges, strict=False):
            fraction = 0.0 if gauge.most <= 0 else max(0.0, min(1.0, gauge.now / gauge.most))
            painter.setBrush(QColor(90, 90, 90))
            painter.drawRect(bar)
            if fraction > 0:
                painter.setBrush(tints.get(gauge.tint, style.RESERVE_BAR))
                painter.drawRect(QRectF(bar.left(), bar.top(), bar.width() * fraction, bar.height()))

    def _paint_condition(self, painter: QPainter, condition: str, layout: TokenLayout) -> None:
        """The condition word on a dark plate across the token's foot, large enough to read from
        across a table: at least :data:`CONDITION_PX` pixels (times the UI scale) on screen."""
        plate = layout.condition_plate
        if plate.isEmpty():
            return
        painter.setPen(QPen(_WHITE, 1.0 / layout.lod))
        painter.setBrush(_PLATE)
        radius = plate.height() * 0.22
        painter.drawRoundedRect(plate, radius, radius)
        self._paint_text(painter, plate, condition, bold_font(round(layout.condition_px)), _WHITE)

    def _paint_word(self, painter: QPainter, word: str, layout: TokenLayout) -> None:
        """The ruleset's state word on a bright plate just above the token: at least
        :data:`WORD_PX` pixels (times the UI scale) high on screen however far the map is zoomed out."""
        plate = layout.word_plate
        lod = layout.lod
        painter.setPen(QPen(_OUTLINE, max(0.03 * style.CELL_PX, 1 / lod)))
        painter.setBrush(QColor("#F0E442"))
        radius = plate.height() * 0.25
        painter.drawRoundedRect(plate, radius, radius)
        self._paint_text(painter, plate, word, bold_font(round(layout.word_px)), QColor(20, 20, 20))

    def _paint_badges(self, painter: QPainter, look: TokenLook, s: float, r: float) -> None:
        badges = _state_badges(look)
        if not badges:
            return
        for name, (x, y) in zip(badges, _badge_slots(s, r), strict=False):
            _paint_badge(painter, name, QPointF(x, y), r)

    def _paint_down(self, painter: QPainter, s: float, color: QColor | None = None) -> None:
        a, b = 0.2 * s, 0.8 * s
        cross = QPainterPath()
        cross.moveTo(a, a)
        cross.lineTo(b, b)
        cross.moveTo(b, a)
        cross.lineTo(a, b)
        cap = Qt.PenCapStyle.RoundCap
        painter.setPen(QPen(_WHITE, 0.16 * s, Qt.PenStyle.SolidLine, cap))
        painter.drawPath(cross)
        painter.setPen(QPen(color or _OUTLINE, 0.09 * s, Qt.PenStyle.SolidLine, cap))
        painter.drawPath(cross)


def _paint_badge(painter: QPainter, name: str, centre: QPointF, r: float) -> None:
    """A round badge with a drawn glyph; glyphs, not colours, tell them apart."""
    back = QColor("#F0E442") if name == "surprised" else QColor(30, 30, 30)
    ink = QColor(20, 20, 20) if name == "surprised" else _WHITE
    painter.setPen(QPen(_WHITE, r * 0.18))
    painter.setBrush(back)
    painter.drawEllipse(centre, r, r)
    x, y = centre.x(), centre.y()
    pen = QPen(ink, r * 0.22, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    glyph = QPainterPath()
    if name == "surprised":  # "!"
        glyph.moveTo(x, y - r * 0.55)
        glyph.lineTo(x, y + r * 0.15)
        painter.drawPath(glyph)
        painter.setBrush(ink)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawEllipse(QPointF(x, y + r * 0.52), r * 0.14, r * 0.14)
    elif name == "guard":  # a shield: a guard in force (a parry)
        glyph.moveTo(x - r * 0.5, y - r * 0.5)
        glyph.lineTo(x + r * 0.5, y - r * 0.5)
        glyph.lineTo(x + r * 0.5, y)
        glyph.quadTo(x + r * 0.45, y + r * 0.45, x, y + r * 0.62)
        glyph.quadTo(x - r * 0.45, y + r * 0.45, x - r * 0.5, y)
        glyph.closeSubpath()
        painter.setBrush(ink)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawPath(glyph)
    elif name == "concealed":  # an eye, struck through
        glyph.moveTo(x - r * 0.62, y)
        glyph.quadTo(x, y - r * 0.62, x + r * 0.62, y)
        glyph.quadTo(x, y + r * 0.62, x - r * 0.62, y)
        painter.drawPath(glyph)
        painter.setBrush(ink)
        painter.drawEllipse(QPointF(x, y), r * 0.12, r * 0.12)
        strike = QPainterPath()
        strike.moveTo(x - r * 0.55, y + r * 0.55)
        strike.lineTo(x + r * 0.55, y - r * 0.55)
        painter.drawPath(strike)
    else:  # broken weapon: a blade snapped in two
        glyph.moveTo(x - r * 0.6, y + r * 0.6)
        glyph.lineTo(x - r * 0.12, y + r * 0.12)
        glyph.moveTo(x + r * 0.12, y - r * 0.12)
        glyph.lineTo(x + r * 0.6, y - r * 0.6)
        glyph.moveTo(x - r * 0.62, y + r * 0.25)
        glyph.lineTo(x - r * 0.25, y + r * 0.62)
        painter.drawPath(glyph)

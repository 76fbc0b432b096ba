"""Token items: one per placed combatant, painted as vectors so they stay crisp at any zoom.

An item keeps only its combatant's id and a :class:`TokenLook`, a frozen snapshot of what it shows;
the scene builds a fresh look from the encounter after every action and repaints an item only when
its look changed. Shape as well as colour tells the sides apart (Party round, Opponents square).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF, QTransform
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.grid import Cell
from lnl_desktop.core.model import Side, Token, WeaponKind, WeaponState
from lnl_desktop.core.rules import Ruleset, get_ruleset
from lnl_desktop.core.rules.base import Gauge
from lnl_desktop.ui import style

TOKEN_Z = 20.0
DRAGGED_Z = 35.0
MARGIN = 0.08  # of a cell: room outside the footprint for the turn ring and selection marks

_OUTLINE = QColor(20, 20, 20)
_WHITE = QColor(255, 255, 255)
_TURN = QColor("#F0E442")  # yellow, bright on every side colour and on the floor
_SELECT = QColor("#111111")
_BAR_BACK = QColor(25, 25, 25, 230)


@dataclass(frozen=True)
class TokenLook:
    """Everything a token shows; equal looks paint the same."""

    cid: str
    name: str
    label: str
    side: Side
    size: int
    cell: Cell
    facing: int
    gauges: tuple[Gauge, ...]  # the ruleset's bars (SP and IP in L&L); none for a secret Opponent
    down: bool
    concealed: bool
    parrying: bool
    surprised: bool
    broken: bool
    has_turn: bool
    selected: bool
    tooltip: str
    hidden: bool = False  # hidden from the players: the GM's map shows it faded
    condition: str = ""  # in the player view, an Opponent's condition word instead of its bars
    word: str = ""  # the ruleset's word for a state the token must show ("flees", "dead")

    @classmethod
    def of(
        cls,
        c: Any,
        token: Token,
        label: str,
        has_turn: bool,
        selected: bool,
        player: bool = False,
        badly_hurt_below: float = 0.5,
        ruleset: Ruleset | None = None,
    ) -> TokenLook:
        """The look of a token; ``player`` gives the players' look, which tells no Opponent's numbers."""
        ruleset = ruleset or get_ruleset("lnl")
        gauges = ruleset.gauges(c)
        secret = player and c.side is not Side.PARTY
        condition = condition_word(c, badly_hurt_below, gauges) if secret else ""
        return cls(
            cid=c.id,
            name=c.name,
            label=label,
            side=c.side,
            size=c.size,
            cell=(token.cell[0], token.cell[1]),
            facing=token.facing,
            gauges=() if secret else gauges,
            down=c.down,
            concealed=c.concealed,
            parrying=getattr(c, "parry", None) is not None,
            surprised=c.surprised,
            broken=any(getattr(w, "state", None) is WeaponState.BROKEN for w in getattr(c, "weapons", ())),
            has_turn=has_turn,
            selected=selected,
            tooltip=player_tooltip(c, condition) if secret else tooltip(c, token, has_turn, gauges, ruleset),
            hidden=token.hidden,
            condition=condition,
            word=ruleset.token_word(c),
        )


def condition_word(c: Any, badly_hurt_below: float = 0.5, gauges: tuple[Gauge, ...] | None = None) -> str:
    """What the players may know of a creature's state: unhurt, wounded, badly hurt or down.

    "badly hurt" below ``badly_hurt_below`` of its bars together (L&L: SP and IP; a setting),
    "wounded" below all.
    """
    if c.down:
        return "down"
    if gauges is None:
        gauges = get_ruleset("lnl").gauges(c)
    total = sum(g.most for g in gauges)
    fraction = 1.0 if total <= 0 else sum(g.now for g in gauges) / total
    if fraction >= 1.0:
        return "unhurt"
    return "badly hurt" if fraction < badly_hurt_below else "wounded"


def player_tooltip(c: Any, condition: str) -> str:
    return f"<b>{_html(c.name)}</b><br><i>{condition}</i>"


def tooltip(
    c: Any, token: Token, has_turn: bool, gauges: tuple[Gauge, ...] = (), ruleset: Ruleset | None = None
) -> str:
    level = f", level {c.level}" if hasattr(c, "level") else ""
    numbers = [f"{g.label} {g.now}/{g.most}" for g in gauges]
    if hasattr(c, "armor_points"):
        numbers.append(f"AP {c.armor_points}")
    numbers.append(f"Move {c.move_ft} ft")
    lines = [f"<b>{_html(c.name)}</b> ({c.side.value}{level})", " &middot; ".join(numbers)]
    for w in getattr(c, "weapons", ()):
        extra = ""
        if w.kind is WeaponKind.REACH:
            extra = f", reach {w.reach} ft"
        elif w.kind is WeaponKind.RANGED and w.max_range_ft:
            extra = f", range {w.max_range_ft} ft"
        state = getattr(w, "state", WeaponState.READY)  # the L&L family's weapons break; others have no state
        state = "" if state is WeaponState.READY else f" [{state.value}]"
        lines.append(f"&bull; {_html(w.label)}{extra}{state}")
    status = (["its turn"] if has_turn else []) + [_html(word) for word in c.status_words()]
    if status:
        lines.append("<i>" + ", ".join(status) + "</i>")
    for word in c.conditions:  # what each condition means, as the ruleset words it
        tip = ruleset.condition_tip(word) if ruleset is not None else ""
        if tip:
            lines.append(f"<i>{_html(word)}</i>: {_html(tip)}")
    lines.append(f"at ({token.cell[0]}, {token.cell[1]}), facing {token.facing}&deg;")
    return "<br>".join(lines)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


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
def _text_path(label: str, extent: float) -> QPainterPath:
    """The label as an outline path centred on (0, 0), fitted to the token."""
    font = QFont()
    font.setBold(True)
    font.setPixelSize(100)
    raw = QPainterPath()
    raw.addText(0, 0, font, label)
    box = raw.boundingRect()
    if box.isEmpty():
        return raw
    scale = min(0.60 * extent / box.width(), 0.34 * extent / box.height())
    path = QPainterPath()
    path.addPath(raw)
    # Centre, then scale: translated() and a transform keep it a single cached path.
    path.translate(-box.center())
    return QTransform.fromScale(scale, scale).map(path)


class TokenItem(QGraphicsItem):
    """A combatant's token: body, label, facing wedge, SP and IP bars, badges, turn ring, selection."""

    def __init__(self, look: TokenLook) -> None:
        super().__init__()
        self.cid = look.cid
        self._look = look
        self._preview_facing: int | None = None
        self._ghost_bad = False  # a drag's ghost over a cell it cannot end on
        self._bounds = QRectF()
        self.setZValue(TOKEN_Z)
        # Repaints from a pixmap cache at the current device scale: crisp, and cheap for 500 tokens.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # the view handles the mouse
        self._apply(look)

    # -- state ---------------------------------------------------------------------------------

    @property
    def look(self) -> TokenLook:
        return self._look

    def set_look(self, look: TokenLook) -> None:
        if look == self._look:
            return
        old = self._look
        self._look = look
        if old.size != look.size:
            self.prepareGeometryChange()
        self._apply(look)
        self.update()

    def _apply(self, look: TokenLook) -> None:
        # Qt asks for the bounds several times per repaint: keep them ready, not computed.
        m = MARGIN * style.CELL_PX
        s = look.size * style.CELL_PX
        # A state word's plate may be wider than the token, the more so zoomed out (it keeps 11 px).
        wide = 2.5 * style.CELL_PX if look.word else 0.0
        tall = 1.2 * style.CELL_PX if look.word else 0.0
        self._bounds = QRectF(-m - wide, -m - tall, s + 2 * (m + wide), s + 2 * m + tall)
        self.setPos(look.cell[0] * style.CELL_PX, look.cell[1] * style.CELL_PX)
        self.setToolTip(look.tooltip)
        self.setOpacity(0.45 if look.hidden else 1.0)

    def move_to(self, anchor: Cell) -> None:
        """Show the token on another anchor (a drag's ghost); the look keeps the real cell."""
        self.setPos(anchor[0] * style.CELL_PX, anchor[1] * style.CELL_PX)

    def reset_position(self) -> None:
        self._apply(self._look)

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

    # -- geometry ------------------------------------------------------------------------------

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(QRectF(0, 0, self.extent, self.extent))
        return path

    # -- painting ------------------------------------------------------------------------------

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        look = self._look
        s = self.extent
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        on_screen = s * lod  # token size in device pixels
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        facing = self._preview_facing if self._preview_facing is not None else look.facing
        fill = QColor(style.DOWN if look.down else style.side_color(look.side))
        body = body_path(look.side, s)

        if look.has_turn:
            self._paint_turn_ring(painter, look, s, lod)
        if look.selected:
            self._paint_selection(painter, s, lod)

        if on_screen < 10:
            # Far away: shape and colour only.
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawPath(body)
            if look.word:
                self._paint_word(painter, look.word, s, lod)
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

        self._paint_facing(painter, s, facing, lod)
        if on_screen < 16:
            # Too small for words and bars; a down creature must still read as down.
            if look.down:
                self._paint_down(painter, s)
            if look.word:
                self._paint_word(painter, look.word, s, lod)
            return

        text = _text_path(look.label, s)
        painter.save()
        painter.translate(s / 2, s * 0.42)
        painter.strokePath(
            text, QPen(_OUTLINE, 0.06 * s, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
        )
        painter.fillPath(text, _WHITE)
        painter.restore()

        if look.condition:
            self._paint_condition(painter, look, s)
        else:
            self._paint_bars(painter, look, s)
        self._paint_badges(painter, look, s)
        if look.down:
            self._paint_down(painter, s)
        if look.word:
            self._paint_word(painter, look.word, s, lod)
        if self._ghost_bad:
            self._paint_down(painter, s, QColor("#CC3311"))

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
        left, top, right, bottom = -m, -m, s + m, s + m
        path = QPainterPath()
        for x, y, dx, dy in ((left, top, 1, 1), (right, top, -1, 1), (left, bottom, 1, -1), (right, bottom, -1, -1)):
            path.moveTo(x + dx * arm, y)
            path.lineTo(x, y)
            path.lineTo(x, y + dy * arm)
        width = max(0.05 * s / self._look.size, 3.0 / lod)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(_WHITE, width * 2.0, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap))
        painter.drawPath(path)
        painter.setPen(QPen(_SELECT, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap))
        painter.drawPath(path)

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

    def _paint_bars(self, painter: QPainter, look: TokenLook, s: float) -> None:
        if not look.gauges:
            return
        unit = style.CELL_PX  # bars keep one cell's proportions on big tokens
        width = 0.66 * unit if look.size == 1 else 0.55 * s
        height = 0.085 * unit
        gap = 0.025 * unit
        left = (s - width) / 2
        top = s / 2 + 0.43 * s - 2 * height - gap - 0.02 * unit
        if look.size > 1:
            top = s * 0.80
        plate = QRectF(left - gap, top - gap, width + 2 * gap, 2 * height + 3 * gap)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_BAR_BACK)
        painter.drawRoundedRect(plate, gap * 1.5, gap * 1.5)
        tints = {"stamina": style.STAMINA, "injury": style.INJURY}
        for i, (value, maximum, color) in enumerate(
            (g.now, g.most, tints.get(g.tint, style.STAMINA)) for g in look.gauges[:2]
        ):
            y = top + i * (height + gap)
            fraction = 0.0 if maximum <= 0 else max(0.0, min(1.0, value / maximum))
            painter.setBrush(QColor(90, 90, 90))
            painter.drawRect(QRectF(left, y, width, height))
            if fraction > 0:
                painter.setBrush(color)
                painter.drawRect(QRectF(left, y, width * fraction, height))

    def _paint_condition(self, painter: QPainter, look: TokenLook, s: float) -> None:
        """The condition word on a dark plate across the token's foot, large enough to read from across a table."""
        unit = style.CELL_PX
        font = QFont()
        font.setBold(True)
        font.setPixelSize(max(8, round(0.2 * unit)))
        plate = QRectF(-0.06 * unit, s - 0.3 * unit, s + 0.12 * unit, 0.28 * unit)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_BAR_BACK)
        painter.drawRoundedRect(plate, 0.05 * unit, 0.05 * unit)
        painter.setFont(font)
        painter.setPen(_WHITE)
        painter.drawText(plate, Qt.AlignmentFlag.AlignCenter, look.condition)

    def _paint_word(self, painter: QPainter, word: str, s: float, lod: float) -> None:
        """The ruleset's state word on a bright plate just above the token:
        at least 11 pixels high on screen however far the map is zoomed out, so it can be read."""
        unit = style.CELL_PX
        font = QFont()
        font.setBold(True)
        font.setPixelSize(max(9, round(0.22 * unit), round(11 / max(lod, 1e-3))))
        metrics = QFontMetricsF(font)
        width = max(s * 0.9, metrics.horizontalAdvance(word) + metrics.height() * 0.6)
        height = metrics.height() * 1.15
        plate = QRectF(s / 2 - width / 2, -height - 0.04 * unit, width, height)  # above, the label stays seen
        painter.setPen(QPen(_OUTLINE, max(0.03 * unit, 1 / max(lod, 1e-3))))
        painter.setBrush(QColor("#F0E442"))
        painter.drawRoundedRect(plate, height * 0.25, height * 0.25)
        painter.setFont(font)
        painter.setPen(QColor(20, 20, 20))
        painter.drawText(plate, Qt.AlignmentFlag.AlignCenter, word)

    def _paint_badges(self, painter: QPainter, look: TokenLook, s: float) -> None:
        badges = []
        if look.surprised:
            badges.append("surprised")
        if look.parrying:
            badges.append("parrying")
        if look.concealed:
            badges.append("concealed")
        if look.broken:
            badges.append("broken")
        if not badges:
            return
        r = 0.19 * style.CELL_PX * (1 + 0.35 * (look.size - 1))
        k = 0.7 * r  # in the corners, clear of the label as far as a small token allows
        slots = [(k, k), (s - k, k), (k, s / 2), (s - k, s / 2)]
        for name, (x, y) in zip(badges, slots, strict=False):
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
    elif name == "parrying":  # a shield
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

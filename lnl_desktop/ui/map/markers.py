"""Condition markers: each condition a token's combatant has as a small coloured letter badge round
the token's edge ("P" prone, "St" stunned), readable at the projector.

One table, :data:`MARKERS`, gives each condition word (as the rulesets' menus spell it) its letters
and colours; a word of the GM's own gets a neutral badge and its first letters. :func:`place_markers`
finds the badges' places round the edge, clear of what the token must keep legible (its label, its
bars, its state badges, its words), and :func:`paint_markers` draws them as part of the token item,
so they are cached with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QTransform

from lnl_desktop.core.encounter.durations import condition_label
from lnl_desktop.core.encounter.model import CombatantBase

MAX_MARKERS = 6  # beyond this, the last place holds a "+N" badge
MARKER_HEIGHT = 0.22  # of a cell, at a UI scale of 100 %
MARKER_MIN_PX = 12.0  # and no smaller on screen (times the UI scale)
OUTSIDE = 0.25  # how much of a badge lies outside the token's footprint ...
FAR_OUTSIDE = 0.7  # ... or, where a crowded token (a large UI scale) leaves no room, this much

_BLACK = "#141414"
_WHITE = "#FFFFFF"

# condition word -> (letters, badge, ink). High-contrast pairs; no two conditions alike in both
# letters and colour, and the letters alone tell them apart for those who do not see the colours.
MARKERS: dict[str, tuple[str, str, str]] = {
    "blinded": ("Bl", "#3B3B3B", _WHITE),
    "bound": ("Bd", "#5D4037", _WHITE),
    "burning": ("Bu", "#D55E00", _WHITE),
    "casting": ("Ca", "#1F4E9E", _WHITE),
    "charmed": ("Ch", "#CC79A7", _BLACK),
    "confused": ("Co", "#AA4499", _WHITE),
    "deafened": ("De", "#6C6C6C", _WHITE),
    "diseased": ("Di", "#6B8E23", _WHITE),
    "disarmed": ("Da", "#8C564B", _WHITE),
    "dropped weapon": ("DW", "#8C564B", _WHITE),
    "exhausted": ("Ex", "#E69F00", _BLACK),
    "frightened": ("Fr", "#7B2CBF", _WHITE),
    "gagged": ("Gg", "#2F4F4F", _WHITE),
    "grappled": ("G", "#0072B2", _WHITE),
    "hidden": ("Hd", "#4B5563", _WHITE),
    "incapacitated": ("In", "#882255", _WHITE),
    "invisible": ("Iv", "#88CCEE", _BLACK),
    "paralyzed": ("Pa", "#332288", _WHITE),
    "petrified": ("Pe", "#A8A8A8", _BLACK),
    "poisoned": ("Po", "#009E73", _WHITE),
    "prone": ("P", "#F0E442", _BLACK),
    "restrained": ("R", "#117733", _WHITE),
    "silenced": ("Si", "#44AA99", _BLACK),
    "stunned": ("St", "#CC3311", _WHITE),
    "surprised": ("Su", "#FFFFFF", _BLACK),
    "unconscious": ("U", "#000000", _WHITE),
    "wounded": ("W", "#AA0000", _WHITE),
}
NEUTRAL = ("#DDDDDD", _BLACK)  # a word of the GM's own
MORE = ("#262626", _WHITE)  # the "+N" badge
_OUTLINE = QColor(20, 20, 20)
_RIM = QColor(255, 255, 255)


@dataclass(frozen=True)
class Marker:
    """One badge: where it goes (the item's units), its letters and colours, and the conditions it
    stands for (one, or those a "+N" badge holds)."""

    rect: QRectF
    letters: str
    back: str
    ink: str
    words: tuple[str, ...]

    @property
    def name(self) -> str:
        return ", ".join(self.words)


def marker_style(word: str) -> tuple[str, str, str]:
    """(letters, badge colour, ink) for a condition as a ruleset words it: "frightened of Ogre" is
    frightened, "exhausted 2" is exhausted with its level; a word of the GM's own is neutral."""
    text = " ".join(word.split())
    key = text.casefold()
    for known, (letters, back, ink) in MARKERS.items():
        if key == known:
            return letters, back, ink
        if key.startswith(known + " "):
            rest = key[len(known) + 1 :]
            return (letters + rest if rest.isdigit() and len(rest) <= 2 else letters), back, ink
    parts = text.split()
    if not parts:
        return "?", *NEUTRAL
    if len(parts) >= 2:  # initials: "held by rope" is HB
        return (parts[0][0] + parts[1][0]).upper(), *NEUTRAL
    return parts[0][:1].upper() + parts[0][1:2].lower(), *NEUTRAL


def marker_height(size: int, unit: float, ui_scale: float, lod: float) -> float:
    """A badge's height in the item's units: a share of the cell, more on a large token and with the
    UI scale, and at least :data:`MARKER_MIN_PX` (times the UI scale) on screen."""
    f = max(0.5, ui_scale)
    grow = 1.0 + 0.3 * (min(max(f, 1.0), 2.0) - 1.0)
    h = MARKER_HEIGHT * unit * (1 + 0.3 * (size - 1)) * grow
    return max(h, MARKER_MIN_PX * f / max(lod, 1e-3))


def _width(letters: str, h: float) -> float:
    return max(h, h * (0.3 + 0.42 * len(letters)))


# Where badges may go, in order: a point on the footprint's edge as shares of its side (0 and 1
# are the edges); a badge there lies OUTSIDE of itself beyond the edge, the rest inside.
_EDGE = (
    (1.0, 0.0),
    (0.0, 0.0),
    (1.0, 1.0),
    (0.0, 1.0),
    (1.0, 0.5),
    (0.0, 0.5),
    (0.5, 0.0),
    (1.0, 0.28),
    (0.0, 0.28),
    (1.0, 0.72),
    (0.0, 0.72),
    (0.3, 0.0),
    (0.7, 0.0),
)
_PLACES = (
    tuple((x, y, OUTSIDE) for x, y in _EDGE)
    + tuple((x, y, FAR_OUTSIDE) for x, y in _EDGE[:7])
    + tuple((x, y, 1.05) for x, y in _EDGE[:6])  # just beyond the edge: the last resort
)


def _rect_at(place: tuple[float, float, float], s: float, w: float, h: float) -> QRectF:
    outside = place[2]

    def centre(share: float, extent: float) -> float:
        if share <= 0.0:
            return (0.5 - outside) * extent
        if share >= 1.0:
            return s - (0.5 - outside) * extent
        return share * s

    cx, cy = centre(place[0], w), centre(place[1], h)
    return QRectF(cx - w / 2, cy - h / 2, w, h)


def place_markers(words: tuple[str, ...], s: float, h: float, keep_clear: tuple[QRectF, ...]) -> tuple[Marker, ...]:
    """The badges of ``words`` round a token of ``s`` units, each ``h`` high, none over another nor
    over ``keep_clear`` (the label, the bars, ...). What does not fit goes into a last "+N" badge."""
    if not words:
        return ()
    styles = [marker_style(word) for word in words]
    more_w = h  # "+N" squeezed into a square: it fits wherever a one-letter badge does
    taken: list[QRectF] = []
    placed: list[Marker] = []

    def free(rect: QRectF) -> bool:
        return not any(rect.intersects(other) for other in (*keep_clear, *taken))

    def find(w: float) -> QRectF | None:
        for place in _PLACES:
            rect = _rect_at(place, s, w, h)
            if free(rect):
                return rect
        return None

    for i, (word, (letters, back, ink)) in enumerate(zip(words, styles, strict=True)):
        left = len(words) - i
        if len(placed) == MAX_MARKERS - 1 and left > 1:
            break  # the last place is the "+N" badge's
        rect = find(_width(letters, h))
        if rect is None:
            break
        taken.append(rect)
        placed.append(Marker(rect, letters, back, ink, (word,)))
    rest = words[len(placed) :]
    if rest:
        rect = find(more_w)
        if rect is not None:
            placed.append(Marker(rect, f"+{len(rest)}", *MORE, tuple(rest)))
        elif placed:  # no room left: the last badge's place holds the "+N" instead
            gone = placed.pop()
            rest = (*gone.words, *rest)
            placed.append(Marker(gone.rect, f"+{len(rest)}", *MORE, tuple(rest)))
        # else no room at all (a tiny token): its tooltip still names them
    return tuple(placed)


@lru_cache(maxsize=512)
def _letters_path(letters: str) -> QPainterPath:
    """The letters as an outline centred on (0, 0), one unit high (cap height)."""
    font = QFont()
    font.setBold(True)
    font.setPixelSize(100)
    raw = QPainterPath()
    raw.addText(0, 0, font, letters)
    box = raw.boundingRect()
    if box.isEmpty():
        return raw
    raw.translate(-box.center())
    scale = 1.0 / max(box.height(), 1e-6)
    return QTransform.fromScale(scale, scale).map(raw)


def paint_markers(painter: QPainter, markers: tuple[Marker, ...], lod: float) -> None:
    """Each badge: a dark outline, a white rim, its colour, and its letters in bold."""
    for marker in markers:
        rect = marker.rect
        h = rect.height()
        radius = h * 0.3
        painter.setPen(QPen(_OUTLINE, max(0.16 * h, 2.0 / lod)))
        painter.setBrush(QColor(marker.back))
        painter.drawRoundedRect(rect, radius, radius)
        painter.setPen(QPen(_RIM, max(0.07 * h, 1.0 / lod)))
        painter.drawRoundedRect(rect, radius, radius)
        path = _letters_path(marker.letters)
        box = path.boundingRect()
        scale = min(0.62 * h / max(box.height(), 1e-6), 0.8 * rect.width() / max(box.width(), 1e-6))
        painter.save()
        painter.translate(rect.center())
        painter.scale(scale, scale)
        painter.fillPath(path, QColor(marker.ink))
        painter.restore()


def marker_at(markers: tuple[Marker, ...], point: QPointF) -> Marker | None:
    """The badge under ``point`` (the item's units), if any."""
    for marker in markers:
        if marker.rect.contains(point):
            return marker
    return None


def markers_tooltip(
    words: tuple[str, ...], c: CombatantBase | None = None, names: Mapping[str, str] | None = None
) -> str:
    """A line for the token's tooltip that names each badge: "Markers: P prone · St stunned"; given
    the combatant ``c``, a condition that ends by itself says what is left of it, one badge a line
    ("St stunned · 1 round left"). ``names`` maps ids to names (whose turn ends one)."""
    if not words:
        return ""
    shown = [condition_label(c, w, names) if c is not None else w for w in words]
    named = [f"<b>{_html(marker_style(w)[0])}</b> {_html(text)}" for w, text in zip(words, shown, strict=True)]
    if shown == list(words):
        return "Markers: " + " &middot; ".join(named)
    return "Markers:<br>" + "<br>".join(named)  # "·" already parts a condition from what is left


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

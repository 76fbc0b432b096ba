"""Fog of war: what the players see, on their map and, faintly, on the GM's.

With ``encounter.fog.enabled`` the player view shows the cells some Party token sees now
(:func:`lnl_desktop.core.sight.party_view`) as they are, the cells explored before or revealed by
the GM (``fog.explored``) dimmed, and the rest black; an Opponent standing where the Party does
not see now is not on their map at all (:func:`players_unseen`). The GM's map shades what the
players do not see now (a faint hatch where they see nothing), so the GM knows what is shown.

:class:`FogItem` is one item whatever the map's size: an image with one pixel per cell drawn
scaled without smoothing, plus, on the GM's map, a hatch clipped to a region of the black cells.
It is no :class:`~lnl_desktop.ui.map.overlays.Overlay`, so it is never shared with the players.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBitmap, QBrush, QColor, QImage, QPainter, QPainterPath, QRegion, QTransform
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core import sight
from lnl_desktop.core.grid import Cell, footprint
from lnl_desktop.core.model import Encounter, MapGrid, Side
from lnl_desktop.lazy import lazy_module
from lnl_desktop.ui.controller import TableController
from lnl_desktop.ui.style import CELL_PX

np = lazy_module("numpy")  # imported at first use: the first window needs none of it

PLAYERS_FOG_Z = 18.0  # over the floor, walls and doors, under the tokens (Party tokens always show)
GM_FOG_Z = 7.0  # under the rules overlays: a faint reminder, not a cover

PLAYERS_DARK = QColor(0, 0, 0)  # never seen
PLAYERS_DIM = QColor(0, 0, 0, 128)  # explored, not seen now: half dark
GM_UNSEEN = QColor(20, 24, 60, 62)  # the players see nothing here
GM_EXPLORED = QColor(20, 24, 60, 30)  # the players see it dimmed (explored, not in sight now)
GM_HATCH = QColor(20, 24, 60, 90)


# -- what the players see -----------------------------------------------------------------------

_Key = tuple[MapGrid, str, tuple[tuple[object, ...], ...]]


class _Sight:
    """The Party's sight for one state: as cells and as a ``(height, width)`` mask."""

    __slots__ = ("cells", "key", "mask")

    def __init__(self, key: _Key, mask: np.ndarray) -> None:
        self.key = key
        self.mask = mask
        ys, xs = np.nonzero(mask)
        self.cells = frozenset(zip(xs.tolist(), ys.tolist(), strict=True))


_cache: WeakKeyDictionary[TableController, _Sight] = WeakKeyDictionary()


def _sight_key(encounter: Encounter) -> _Key:
    party = []
    for c in encounter.combatants:
        token = encounter.tokens.get(c.id)
        if token is not None and c.side is Side.PARTY:
            party.append((c.id, token.cell, token.facing, token.hidden, c.size, c.down, c.vision_deg))
    return (encounter.map, encounter.ruleset, tuple(party))


def _party_sight(controller: TableController) -> _Sight:
    encounter = controller.encounter
    key = _sight_key(encounter)
    kept = _cache.get(controller)
    if kept is not None and kept.key[0] is key[0] and kept.key[1:] == key[1:]:
        return kept
    found = _Sight(key, sight.party_view_mask(encounter))
    _cache[controller] = found
    return found


def party_sight(controller: TableController) -> frozenset[Cell]:
    """The cells some visible, not-down Party token sees now (:func:`sight.party_view`), worked
    out once per state of the map and the Party's tokens, however many views and tokens ask."""
    return _party_sight(controller).cells


def players_unseen(controller: TableController) -> frozenset[str]:
    """The combatants whose tokens the players must not see: those the GM hid, and, with fog of
    war on, every one not of the Party that stands where no Party token sees now."""
    encounter = controller.encounter
    unseen = {cid for cid, token in encounter.tokens.items() if token.hidden}
    if not encounter.fog.enabled:
        return frozenset(unseen)
    seen = party_sight(controller)
    for c in encounter.combatants:
        token = encounter.tokens.get(c.id)
        if token is None or c.side is Side.PARTY or c.id in unseen:
            continue
        if not any(cell in seen for cell in footprint(token.cell, c.size)):
            unseen.add(c.id)
    return frozenset(unseen)


def _cells_grid(cells: frozenset[Cell], width: int, height: int) -> np.ndarray:
    grid = np.zeros((height, width), dtype=np.bool_)
    if cells:
        coords = np.fromiter((v for c in cells for v in c), dtype=np.intp, count=2 * len(cells)).reshape(-1, 2)
        inside = (coords[:, 0] >= 0) & (coords[:, 0] < width) & (coords[:, 1] >= 0) & (coords[:, 1] < height)
        coords = coords[inside]
        grid[coords[:, 1], coords[:, 0]] = True
    return grid


def _premultiplied(color: QColor) -> np.uint32:
    a = color.alpha()
    r, g, b = (round(v * a / 255) for v in (color.red(), color.green(), color.blue()))
    return np.uint32((a << 24) | (r << 16) | (g << 8) | b)


class FogItem(QGraphicsItem):
    """The fog over a map: black and dimmed cells for the players, a faint shade for the GM."""

    def __init__(self, controller: TableController, player: bool) -> None:
        super().__init__()
        self.controller = controller
        self.player = player
        self.editing = False  # the GM's fog tool is in hand: shade even while the fog is off
        self._key: tuple[_Sight, frozenset[Cell]] | None = None
        self._image = QImage()
        self._hatch = QPainterPath()
        self._rect = QRectF()
        self.seen: frozenset[Cell] = frozenset()  # the players' sight now (empty while no fog is shown)
        self.region = QPainterPath()  # the scene area the players see at all (seen or explored)
        self.setZValue(PLAYERS_FOG_Z if player else GM_FOG_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.hide()

    @property
    def active(self) -> bool:
        """Whether the fog is drawn (the players' fog is on; on the GM's map, or the fog tool is in hand)."""
        enabled = self.controller.encounter.fog.enabled
        return enabled or (self.editing and not self.player)

    def set_editing(self, on: bool) -> None:
        if on != self.editing:
            self.editing = on
            self.refresh()

    def refresh(self) -> None:
        """Bring the fog in line with the encounter (cheap when nothing it shows changed)."""
        encounter = self.controller.encounter
        if not self.active:
            if self.isVisible() or self._key is not None:
                self._key = None
                self.seen = frozenset()
                self.region = QPainterPath()
                self.hide()
            return
        party = _party_sight(self.controller)
        grid_map = encounter.map
        explored = encounter.fog.explored
        key = (party, explored)
        if self._key is not None and self.isVisible():
            kept_party, kept_explored = self._key
            if kept_party is party and (kept_explored is explored or kept_explored == explored):
                return
        self._key = key
        self.seen = party.cells
        w, h = grid_map.width, grid_map.height
        now = party.mask
        before = _cells_grid(explored, w, h) & ~now
        never = ~(now | before)
        pixels = np.zeros((h, w), dtype=np.uint32)
        if self.player:
            pixels[never] = _premultiplied(PLAYERS_DARK)
            pixels[before] = _premultiplied(PLAYERS_DIM)
        else:
            pixels[never] = _premultiplied(GM_UNSEEN)
            pixels[before] = _premultiplied(GM_EXPLORED)
        self._image = QImage(pixels.data, w, h, 4 * w, QImage.Format.Format_ARGB32_Premultiplied).copy()
        scale = QTransform.fromScale(CELL_PX, CELL_PX)
        self.region = QPainterPath()
        self.region.addRegion(scale.map(_region(~never)))
        self._hatch = QPainterPath()
        if not self.player:
            self._hatch.addRegion(scale.map(_region(never)))
        self.prepareGeometryChange()
        self._rect = QRectF(0, 0, w * CELL_PX, h * CELL_PX)
        self.show()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if self._image.isNull():
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        painter.drawImage(self._rect, self._image)
        if not self._hatch.isEmpty():
            # A pattern brush keeps its fine lines a few pixels apart at every zoom.
            painter.fillPath(self._hatch, QBrush(GM_HATCH, Qt.BrushStyle.BDiagPattern))


def _region(mask: np.ndarray) -> QRegion:
    """The cells of ``mask`` (rows, columns) as a region of one unit per cell."""
    h, w = mask.shape
    if not mask.any():
        return QRegion()
    if mask.all():
        return QRegion(0, 0, w, h)
    # A mono image: a set bit (1) for each cell in the mask, then a bitmap Qt makes a region of.
    bits = np.packbits(mask, axis=1, bitorder="big")
    stride = (w + 31) // 32 * 4
    padded = np.zeros((h, stride), dtype=np.uint8)
    padded[:, : bits.shape[1]] = bits
    image = QImage(padded.data, w, h, stride, QImage.Format.Format_Mono).copy()
    image.setColorTable([0xFFFFFFFF, 0xFF000000])
    return QRegion(QBitmap.fromImage(image))

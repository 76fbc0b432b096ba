"""Fog of war: what the players see, on their map and, faintly, on the GM's.

With ``encounter.fog.enabled`` the player view shows the cells some Party token sees now
(:func:`lnl_desktop.core.engine.party_view.party_view`) as they are, the cells explored before or revealed by
the GM (``fog.explored``) dimmed, and the rest black; an Opponent standing where the Party does
not see now is not on their map at all (:func:`players_unseen`). The GM's map shades what the
players do not see now (a faint hatch where they see nothing), so the GM knows what is shown.

:class:`FogItem` is one item whatever the map's size: an image with one pixel per cell drawn
scaled without smoothing, plus, on the GM's map, a hatch clipped to a region of the black cells.
It is no :class:`~lnl_desktop.ui.map.overlays.Overlay`, so it is never shared with the players.

It works from masks, never from the explored cells' tuples: the Party's view of the state
(:func:`lnl_desktop.core.engine.party_view.party_sight`, shared with the engine and the other window) and the
explored cells' mask the core keeps beside their set (:func:`lnl_desktop.core.map.explored.explored_mask`).
A refresh compares them with the ones it shows and redoes the pixels and the regions within the
bounding box of the cells that changed; the repaint covers the tiles of :data:`REPAINT_TILE` cells that
hold a changed cell (a step past a wall moves the edges of the Party's view across the map: a few
tiles along them, not the box round them). The shade is drawn from its image wherever a view repaints,
and so is the GM's hatch, a pattern clipped to the part of a region of the black cells that the repaint
exposes (:class:`_HatchItem`). Kept as pixels, the hatch was drawn again over the box round the cells
whose exploring changed it (Qt joins an item's updates into their bounding box): the table's first
Party move on a 300 x 300 map repainted 219 kpx of the GM's map where its tiles are 74.
"""

from __future__ import annotations

import contextlib
import math
import operator
from collections.abc import Set as AbstractSet
from weakref import WeakKeyDictionary

from PySide6.QtCore import QRect, QRectF, Qt, QTimer
from PySide6.QtGui import QBitmap, QBrush, QColor, QImage, QPainter, QRegion, QTransform
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.engine import party_view
from lnl_desktop.core.map import sight_index
from lnl_desktop.core.map.explored import explored_mask
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.lazy import lazy_module
from lnl_desktop.ui.map.failsafe import fails_closed
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX

np = lazy_module("numpy")  # imported at first use: the first window needs none of it

PLAYERS_FOG_Z = 18.0  # over the floor, walls and doors, under the tokens (Party tokens always show)
GM_FOG_Z = 7.0  # under the rules overlays: a faint reminder, not a cover

PLAYERS_DARK = QColor(0, 0, 0)  # never seen
PLAYERS_DIM = QColor(0, 0, 0, 128)  # explored, not seen now: half dark
GM_UNSEEN = QColor(20, 24, 60, 62)  # the players see nothing here
GM_EXPLORED = QColor(20, 24, 60, 30)  # the players see it dimmed (explored, not in sight now)
GM_HATCH = QColor(20, 24, 60, 90)


# -- what the players see -----------------------------------------------------------------------


def party_sight(controller: TableController) -> AbstractSet[Cell]:
    """The cells some visible, not-down Party token sees now (:func:`party_view.party_view`), worked
    out once per state of the map and the Party's tokens, however many views and tokens ask
    (a set over the core's mask: a look-up costs the same however much the Party sees)."""
    return party_view.party_sight(controller.encounter).cells


_unseen: WeakKeyDictionary[TableController, tuple[tuple[object, ...], frozenset[str]]] = WeakKeyDictionary()


def players_unseen(controller: TableController) -> frozenset[str]:
    """The combatants whose tokens the players must not see: those the GM hid, and, with fog of
    war on, every one not of the Party that stands where no Party token sees now.

    Worked out once per change of the encounter (``controller.revision``), however many scenes,
    overlays and banners ask after an action: each asking is a pass over every token."""
    encounter = controller.encounter
    key = (controller.revision, encounter, encounter.fog.enabled)
    kept = _unseen.get(controller)
    if kept is not None and kept[0][0] == key[0] and kept[0][1] is key[1] and kept[0][2] == key[2]:
        return kept[1]
    found = _players_unseen(controller)
    _unseen[controller] = (key, found)
    return found


def _players_unseen(controller: TableController) -> frozenset[str]:
    return controller.engine.players_unseen()  # from the tokens' table the engine keeps per change


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
        self._key: tuple[sight_index.PartyView, AbstractSet[Cell]] | None = None
        # What is shown, as ``(height, width)`` masks: the Party's sight, and the cells seen or explored.
        self._now: np.ndarray | None = None
        self._known: np.ndarray | None = None
        self._pixels: np.ndarray | None = None  # the image's own buffer: patched where cells changed
        self._image = QImage()
        self._known_cells = QRegion()  # the cells seen or explored, one unit per cell
        self._hatch = QRegion()  # scene units: the black cells (GM's map only)
        self._region: QRegion | None = None
        self._rect = QRectF()
        self.seen: AbstractSet[Cell] = frozenset()  # the players' sight now (empty while no fog is shown)
        self.setZValue(PLAYERS_FOG_Z if player else GM_FOG_Z)
        self.hatch_item = None if player else _HatchItem(self)  # the GM's hatch over what the players never saw
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)  # the exposed rect, for paint
        self.hide()

    @property
    def active(self) -> bool:
        """Whether the fog is drawn (the players' fog is on; on the GM's map, or the fog tool is in hand)."""
        enabled = self.controller.encounter.fog.enabled
        return enabled or (self.editing and not self.player)

    @property
    def region(self) -> QRegion:
        """The scene area the players see at all (seen or explored), in scene units (cells scaled by
        CELL_PX: whole numbers); made when first asked after a change. A region, not a path: a
        painter clips to it a rectangle at a time under a zoom, where a path clip is rasterised into
        a mask on every paint (10 ms over a well-explored map)."""
        if self._region is None:
            self._region = QRegion()
            if self._now is not None:
                # QRegion(...): PySide answers an empty region's mapping with a polygon.
                self._region = QRegion(QTransform.fromScale(CELL_PX, CELL_PX).map(self._known_cells))
        return self._region

    def set_editing(self, on: bool) -> None:
        if on != self.editing:
            self.editing = on
            self.refresh()

    def refresh(self) -> None:
        """Bring the fog in line with the encounter (cheap when nothing it shows changed; else the
        work and the repaint cover the cells that changed)."""
        encounter = self.controller.encounter
        if not self.active:
            if self.isVisible() or self._key is not None:
                self._key = None
                self._now = self._known = self._pixels = None
                self._image = QImage()
                self._known_cells = self._hatch = QRegion()
                self._region = None
                self.seen = frozenset()
                self.hide()
            return
        party = party_view.party_sight(encounter)
        explored = encounter.fog.explored
        key = (party, explored)
        if self._key is not None and self.isVisible() and self._key[0] is party and self._key[1] is explored:
            return
        self._key = key
        self.seen = party.cells
        grid_map = encounter.map
        w, h = grid_map.width, grid_map.height
        now = party.mask
        known = _known_of(party, explored, w, h)
        if self._now is None or self._known is None or self._now.shape != (h, w) or not self.isVisible():
            self._redo(now, known, 0, 0, w, h)
            self.prepareGeometryChange()
            if self.hatch_item is not None:
                self.hatch_item.prepareGeometryChange()
            self._rect = QRectF(0, 0, w * CELL_PX, h * CELL_PX)
            self.show()
            self.update()
            if self.hatch_item is not None:
                self.hatch_item.update()
            return
        change = _change_of(self._now, self._known, now, known)
        if change is None:
            return
        (x0, y0, x1, y1), tiles = change
        self._redo(now, known, x0, y0, x1, y1)
        # The scene's area, tile by tile: an item's own updates are joined into their bounding box. The
        # GM's hatch, drawn where a view repaints, changes only where the shade does: in these tiles.
        scene = self.scene()
        for tx, ty, tw, th in tiles:
            area = QRectF(tx * CELL_PX, ty * CELL_PX, tw * CELL_PX, th * CELL_PX)
            if scene is not None:
                scene.update(area)
            else:
                self.update(area)

    def _redo(self, now: np.ndarray, known: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> bool:
        """The pixels and regions of the cells ``[x0, x1) x [y0, y1)`` from the masks (all of them
        when the window is the whole map, on a new buffer); whether the cells seen or explored changed."""
        h, w = now.shape
        whole = (x0, y0, x1, y1) == (0, 0, w, h)
        win = np.s_[y0:y1, x0:x1]
        seen_win, known_win = now[win], known[win]
        pixels = np.zeros((h, w), dtype=np.uint32) if whole or self._pixels is None else self._pixels
        dark, dim = (PLAYERS_DARK, PLAYERS_DIM) if self.player else (GM_UNSEEN, GM_EXPLORED)
        pixels[win] = np.where(known_win, np.where(seen_win, 0, _premultiplied(dim)), _premultiplied(dark))
        self._pixels = pixels
        # A new image on the same buffer: no copy, and a new cache key for whoever caches images.
        self._image = QImage(pixels.data, w, h, 4 * w, QImage.Format.Format_ARGB32_Premultiplied)
        known_changed = whole or self._known is None or bool((known_win != self._known[win]).any())
        self._now, self._known = now, known
        if not known_changed:
            return False
        if whole:
            self._known_cells = _region(known)
        else:
            patch = _region(known_win).translated(x0, y0)
            self._known_cells = self._known_cells.subtracted(QRegion(x0, y0, x1 - x0, y1 - y0)).united(patch)
        self._region = None
        if not self.player:
            scale = QTransform.fromScale(CELL_PX, CELL_PX)
            self._hatch = QRegion(scale.map(QRegion(0, 0, w, h).subtracted(self._known_cells)))
        return True

    def boundingRect(self) -> QRectF:
        return self._rect

    @fails_closed
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if self._image.isNull():
            return
        # Only the cells the paint exposes (a token's move repaints a few): the image's part under them.
        area = self.exposed_cells(option)
        if area is None:
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        x0, y0 = area.x() // CELL_PX, area.y() // CELL_PX
        painter.drawImage(QRectF(area), self._image, QRectF(x0, y0, area.width() // CELL_PX, area.height() // CELL_PX))

    def exposed_cells(self, option: QStyleOptionGraphicsItem) -> QRect | None:
        """The whole cells a paint exposes, in scene units (None when none of the map's)."""
        w, h = self._image.width(), self._image.height()
        exposed = option.exposedRect  # type: ignore[attr-defined]
        x0 = min(max(math.floor(exposed.left() / CELL_PX), 0), w)
        y0 = min(max(math.floor(exposed.top() / CELL_PX), 0), h)
        x1 = min(max(math.ceil(exposed.right() / CELL_PX), 0), w)
        y1 = min(max(math.ceil(exposed.bottom() / CELL_PX), 0), h)
        if x1 <= x0 or y1 <= y0:
            return None
        return QRect(x0 * CELL_PX, y0 * CELL_PX, (x1 - x0) * CELL_PX, (y1 - y0) * CELL_PX)


class _HatchItem(QGraphicsItem):
    """The GM's hatch over the cells the players never saw (a pattern clipped to a region of thousands
    of rectangles) as a child of the fog, drawn where a view repaints: the region cut to the exposed
    cells first (a token's repaint clips to a few of its rectangles)."""

    def __init__(self, fog: FogItem) -> None:
        super().__init__(fog)
        self.fog = fog
        self._primed = False  # the first update of a part of it asked (ask_part_update_soon)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)  # the exposed rect, for paint

    def boundingRect(self) -> QRectF:
        return self.fog.boundingRect()

    @fails_closed
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        fog = self.fog
        if fog._image.isNull():
            return
        if not self._primed:
            self._primed = True
            ask_part_update_soon(self)
        area = fog.exposed_cells(option)
        if area is None:
            return
        # The region cut to the exposed cells before it becomes a clip, which costs per rectangle.
        hatch = fog._hatch.intersected(area)
        if not hatch.isEmpty():
            # A pattern brush keeps its fine lines a few pixels apart at every zoom.
            painter.save()
            painter.setClipRegion(hatch, Qt.ClipOperation.IntersectClip)
            painter.fillRect(QRectF(hatch.boundingRect()), QBrush(GM_HATCH, Qt.BrushStyle.BDiagPattern))
            painter.restore()


REPAINT_TILE = 16  # cells: a fog change repaints the tiles of this size holding a changed cell

# The latest cells seen or explored, (the Party's view, explored, their mask), and the latest change
# between two states, (the four masks, its box and tiles or None): both windows' fogs show the same
# state after each change, so the second one takes what the first worked out.
_known_kept: tuple[sight_index.PartyView, AbstractSet[Cell], np.ndarray] | None = None
_change_kept: (
    tuple[tuple[np.ndarray, ...], tuple[tuple[int, int, int, int], list[tuple[int, int, int, int]]] | None] | None
) = None


def _known_of(party: sight_index.PartyView, explored: AbstractSet[Cell], w: int, h: int) -> np.ndarray:
    """The cells seen or explored as a read-only mask, shared by both windows' fogs."""
    global _known_kept
    kept = _known_kept
    if kept is not None and kept[0] is party and kept[1] is explored and kept[2].shape == (h, w):
        return kept[2]
    known = explored_mask(explored, w, h) | party.mask
    known.flags.writeable = False
    _known_kept = (party, explored, known)
    return known


def _change_of(
    was_now: np.ndarray, was_known: np.ndarray, now: np.ndarray, known: np.ndarray
) -> tuple[tuple[int, int, int, int], list[tuple[int, int, int, int]]] | None:
    """The box ``(x0, y0, x1, y1)`` of the cells whose look changed from the masks ``was_now``,
    ``was_known`` to ``now``, ``known``, and the tiles to repaint (:func:`changed_tiles`); None when
    none did. Kept for the other window's fog, which makes the same step."""
    global _change_kept
    masks = (was_now, was_known, now, known)
    kept = _change_kept
    if kept is not None and all(map(operator.is_, kept[0], masks)):
        return kept[1]
    changed = (now != was_now) | (known != was_known)
    rows = np.flatnonzero(changed.any(axis=1))
    if not rows.size:
        found = None
    else:
        cols = np.flatnonzero(changed.any(axis=0))
        box = (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)
        found = (box, changed_tiles(changed))
    _change_kept = (masks, found)
    return found


def changed_tiles(changed: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The cells of the ``(height, width)`` mask ``changed`` as rectangles ``(x, y, width, height)``
    in cells: per row of tiles of :data:`REPAINT_TILE` cells, each run of touching tiles holding a
    changed cell, cut to the box of the changed cells in it (each tile's box worked out at once)."""
    h, w = changed.shape
    t = REPAINT_TILE
    rows, cols = -(-h // t), -(-w // t)
    padded = np.zeros((rows * t, cols * t), dtype=np.bool_)
    padded[:h, :w] = changed
    blocks = padded.reshape(rows, t, cols, t)
    in_rows = blocks.any(axis=3)  # (rows, t, cols): a changed cell in that row of the tile
    in_cols = blocks.any(axis=1)  # (rows, cols, t)
    hit = in_rows.any(axis=1)
    top, bottom = in_rows.argmax(axis=1).tolist(), (t - 1 - in_rows[:, ::-1].argmax(axis=1)).tolist()
    left, right = in_cols.argmax(axis=2).tolist(), (t - 1 - in_cols[:, :, ::-1].argmax(axis=2)).tolist()
    out = []
    for ty in np.flatnonzero(hit.any(axis=1)).tolist():
        row = hit[ty].tolist()
        tx = 0
        while tx < cols:
            if not row[tx]:
                tx += 1
                continue
            first, y0, y1 = tx, top[ty][tx], bottom[ty][tx]
            while tx + 1 < cols and row[tx + 1]:
                tx += 1
                y0, y1 = min(y0, top[ty][tx]), max(y1, bottom[ty][tx])
            x0, x1 = first * t + left[ty][first], tx * t + right[ty][tx] + 1
            out.append((x0, ty * t + y0, x1 - x0, y1 - y0 + 1))
            tx += 1
    return out


def ask_part_update_soon(item: QGraphicsItem) -> None:
    """Qt repaints the whole of an item at the first update of a part of it after its first paint (the
    fog's: a Party move's few cells repainted both maps whole, the table's first move). A map-sized item
    asks that first update, of a cell, at the next pass of the event loop after its first paint, when
    the whole was just painted anyway."""

    def ask() -> None:
        with contextlib.suppress(RuntimeError):  # the item went with its scene meanwhile
            if item.isVisible():
                item.update(QRectF(0, 0, CELL_PX, CELL_PX))

    QTimer.singleShot(0, ask)


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

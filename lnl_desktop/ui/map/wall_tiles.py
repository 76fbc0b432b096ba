"""How the scene paints the walls and doors (:mod:`lnl_desktop.ui.map.walls` has their shapes).

Painting costs what is exposed on screen, not how many lines the map has (imported maps bring tens
of thousands; stroking them all as one path took seconds a repaint):

- **Index.** :class:`LineShapes` keeps every segment's and door's ends and bounding box in numpy
  arrays (built at the first paint, so a map without lines never loads numpy). "Which lines reach
  this rect" is one vectorised filter; a tile strokes only those, each cut to the tile (plus the
  stroke's reach) first, so a line across the whole map costs its length inside the tile.
- **Tiles.** What a view shows is cut into tiles of ``TILE_PX`` device pixels, anchored where the
  view's device offset puts them, keyed by (lineage, device scale, view scale, fractional offset in
  1/1024 px, column, row). Panning at one zoom reuses them; the fractional offset in the key keeps
  tiles on whole device pixels, so a blit puts every pixel where a direct paint would. A tile is a
  transparent premultiplied image rendered once: casings, then lines, then doors, as before. Each
  line is its own stroke (Qt's time to fill one path of many overlapping round-capped lines grows
  faster than their number), added up in a layer per pen so that overlaps come out as one path's
  fill made them (see :func:`_stroke_layer`): the tiles match the old single-path painting within
  a few levels. An open door's dashes are outlined unclipped and filled, since Qt's dasher shifts
  the dashes after a part it clips away. An empty tile is remembered as such, without an image.
- **Budget.** :data:`tile_cache` is shared by every scene (the GM's and the players' views of one
  map at one zoom use the same tiles), least recently used first, within ``TILE_BUDGET_BYTES``; a
  paint needing more than three quarters of it, a turned view or a stale :class:`LineShapes` is
  painted uncached, in pieces. On screen, a paint renders missing tiles until their estimated cost
  passes ``PAINT_BUDGET_US`` and asks the widget for another paint for the rest: a new zoom on a
  huge map fills in over a few frames instead of freezing the window; the first paint of a map's
  lines on screen (the window opening) renders a frame's worth (``FIRST_PAINT_BUDGET_US``).
  Pictures (``render``, a print) get every tile at once.
- **Edits.** The map is immutable: a wall drawn or erased, a door opened gives a new map whose
  tuples hold mostly the same line objects. :meth:`LineShapes.for_map` compares the tuples' object
  ids (vectorised) to find the changed run, reuses the other rows, and drops only the tiles the
  removed and added lines reach; the new shapes take over the old ones' tiles (their lineage). The
  other scene showing the same map gets the very same :class:`LineShapes`.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRect, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPainterPathStroker, QPen, QTransform
from PySide6.QtWidgets import QWidget

from lnl_desktop.core.encounter.map_model import Door, MapGrid, WallSegment
from lnl_desktop.lazy import lazy_module
from lnl_desktop.ui.map.walls import (
    DOOR_EDGE,
    DOOR_WIDTH,
    DOOR_WOOD,
    HINGE,
    WALL_CASING,
    WALL_LINE,
    WALL_WIDTH,
    DoorShape,
    door_shape,
    scene_line,
    segment_rows,
)
from lnl_desktop.ui.plumbing.style import CELL_PX

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


# -- the tile cache --------------------------------------------------------------------------------


TILE_PX = 256  # a tile's side, in device pixels
TILE_BUDGET_BYTES = 64 << 20  # all scenes' tiles together
EMPTY_TILE_BYTES = 1024  # an empty tile keeps no image, but its entry counts against the budget
OFFSET_STEPS = 1024  # a view's fractional device offset is keyed (and drawn) to 1/1024 px
CHUNK_PX = 512  # an uncached paint renders its area in pieces no larger than this
_REBUILD_OVER = 20_000  # an edit changing more lines than this renders every tile anew
# A paint on screen renders missing tiles until their estimated cost passes this, then asks for
# another paint. The estimate (from timings of short, long and unit walls at fit and 1:1 zoom, within
# a factor of 1.5 either way): a tile TILE_US, a wall segment's two strokes LINE_US plus LINE_PX_US
# per device pixel of length, a door DOOR_US.
PAINT_BUDGET_US = 60_000.0
# The first paint on screen of a map's lines (the window opening, a file opened) renders a frame's
# worth: the window is up at once and the rest of the walls follow in the next frames.
FIRST_PAINT_BUDGET_US = 16_000.0
TILE_US = 500.0
LINE_US = 4.0
LINE_PX_US = 1.0
DOOR_US = 20.0

# (lineage, device scale, view scale, x offset, y offset in 1/OFFSET_STEPS px): one zoom of one map
Level = tuple[int, float, float, int, int]
_MISSING = object()


class TileCache:
    """Rendered wall tiles of every scene, least recently used first, within a byte budget."""

    def __init__(self, budget: int = TILE_BUDGET_BYTES) -> None:
        self.budget = budget
        self.bytes = 0
        self.rendered = 0  # tiles rendered since the start: what tests count
        self._tiles: OrderedDict[tuple[Level, int, int], QImage | None] = OrderedDict()
        self._levels: dict[Level, set[tuple[int, int]]] = {}

    def __len__(self) -> int:
        return len(self._tiles)

    def entries(self) -> list[tuple[Level, int, int]]:
        """Every cached tile's (level, column, row), least recently used first."""
        return list(self._tiles)

    @property
    def max_tiles(self) -> int:
        """The most tiles one paint may ask for: three quarters of the budget (a 4K screen's worth of
        the default), so a paint never evicts its own and another view keeps some."""
        return self.budget // (TILE_PX * TILE_PX * 4) * 3 // 4

    def get(self, level: Level, col: int, row: int) -> object:
        """The tile (an image, or None for an empty one), or ``_MISSING``."""
        key = (level, col, row)
        tile = self._tiles.get(key, _MISSING)
        if tile is not _MISSING:
            self._tiles.move_to_end(key)
        return tile

    def put(self, level: Level, col: int, row: int, tile: QImage | None) -> None:
        self._pop((level, col, row))
        self._tiles[(level, col, row)] = tile
        self._levels.setdefault(level, set()).add((col, row))
        self.bytes += _tile_bytes(tile)
        while self.bytes > self.budget and self._tiles:
            self._pop(next(iter(self._tiles)))

    def _pop(self, key: tuple[Level, int, int]) -> None:
        tile = self._tiles.pop(key, _MISSING)
        if tile is _MISSING:
            return
        self.bytes -= _tile_bytes(tile)  # type: ignore[arg-type]
        level, col, row = key
        cells = self._levels[level]
        cells.discard((col, row))
        if not cells:
            del self._levels[level]

    def drop_lineage(self, lineage: int) -> None:
        for level in [level for level in self._levels if level[0] == lineage]:
            for col, row in list(self._levels.get(level, ())):
                self._pop((level, col, row))

    def invalidate(self, lineage: int, boxes: np.ndarray) -> None:
        """Drop the lineage's tiles that any of ``boxes`` (scene lo_x, lo_y, hi_x, hi_y, unpadded) meets."""
        for level in [level for level in self._levels if level[0] == lineage]:
            cells = np.array(sorted(self._levels[level]), dtype=np.int64).reshape(-1, 2)
            if len(cells) * len(boxes) > 4_000_000:
                self.drop_lineage(lineage)
                return
            _, sd, scale, qx, qy = level
            pad = _pad(scale, sd)
            # The tile range each padded box reaches, in the level's anchored device grid.
            c0 = np.floor(((boxes[:, 0] - pad) * sd + qx / OFFSET_STEPS) / TILE_PX)
            c1 = np.floor(((boxes[:, 2] + pad) * sd + qx / OFFSET_STEPS) / TILE_PX)
            r0 = np.floor(((boxes[:, 1] - pad) * sd + qy / OFFSET_STEPS) / TILE_PX)
            r1 = np.floor(((boxes[:, 3] + pad) * sd + qy / OFFSET_STEPS) / TILE_PX)
            col, row = cells[:, :1], cells[:, 1:]
            hit = ((col >= c0) & (col <= c1) & (row >= r0) & (row <= r1)).any(axis=1)
            for c, r in cells[hit].tolist():
                self._pop((level, c, r))

    def clear(self) -> None:
        self._tiles.clear()
        self._levels.clear()
        self.bytes = 0


def _tile_bytes(tile: QImage | None) -> int:
    return EMPTY_TILE_BYTES if tile is None else tile.sizeInBytes()


tile_cache = TileCache()  # shared by every scene: the GM's and the players' views of one map reuse tiles

_serials = itertools.count(1)
_heads: dict[int, int] = {}  # lineage -> serial of its newest LineShapes, the only one that may use its tiles
_by_map: dict[tuple[int, int], weakref.ref[LineShapes]] = {}  # (id(segments), id(doors)) -> its LineShapes


def _forget(lineage: int, serial: int, key: tuple[int, int]) -> None:
    """A LineShapes is gone: if it was its lineage's newest, nobody can use that lineage's tiles again."""
    if _heads.get(lineage) == serial:
        del _heads[lineage]
        tile_cache.drop_lineage(lineage)
    ref = _by_map.get(key)
    if ref is not None and ref() is None:
        del _by_map[key]


def _paint_later(widget: QWidget) -> None:
    """Ask ``widget`` for another paint once the events waiting now are handled. All of it: a pan in
    between scrolls the picture, the part still missing walls with it."""
    QTimer.singleShot(0, widget, widget.update)


Later = Callable[[], None]  # asks the screen for another paint, for the tiles a paint left out


def _pad(scale: float, device_scale: float) -> float:
    """How far (scene units) the ink of a line or door reaches past its ends' box, plus 2 device px for
    antialiasing: a tile draws every line whose box padded by this meets it."""
    s = CELL_PX
    width = max(WALL_WIDTH * s, 2.5 / scale)
    casing = (width + 2.5 / scale) / 2
    door = DOOR_WIDTH * s / 2 + max(0.03 * s, 1.2 / scale)
    hinge = max(HINGE * s, 2.0 / scale)
    return max(casing, door, hinge) + 2.0 / device_scale


def _split(offset: float) -> tuple[int, int]:
    """A device offset as whole pixels and 1/OFFSET_STEPS steps."""
    whole = math.floor(offset)
    steps = round((offset - whole) * OFFSET_STEPS)
    if steps == OFFSET_STEPS:
        return whole + 1, 0
    return whole, steps


def _ids(items: Sequence[object]) -> np.ndarray:
    return np.fromiter(map(id, items), dtype=np.uint64, count=len(items))


def _door_rows(doors: Sequence[Door]) -> np.ndarray:
    """Ends in scene units and whether open: (n, 5)."""
    flat = np.fromiter(
        itertools.chain.from_iterable((*door.a, *door.b, door.open) for door in doors), np.float64, 5 * len(doors)
    )
    rows = flat.reshape(-1, 5)
    rows[:, :4] *= CELL_PX
    return rows


def _boxes(rows: np.ndarray) -> np.ndarray:
    """Each line's box (lo_x, lo_y, hi_x, hi_y); an open door's spans its leaf's whole swing about ``a``."""
    lo = np.minimum(rows[:, 0:2], rows[:, 2:4])
    hi = np.maximum(rows[:, 0:2], rows[:, 2:4])
    if rows.shape[1] == 5:
        swung = rows[:, 4] > 0
        if swung.any():
            reach = np.hypot(rows[:, 2] - rows[:, 0], rows[:, 3] - rows[:, 1])[swung, None]
            lo[swung] = rows[swung, 0:2] - reach
            hi[swung] = rows[swung, 0:2] + reach
    return np.hstack((lo, hi))


def _clip(rows: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """The parts of the segments ``rows`` inside the rect (Liang-Barsky), ends kept exact where inside.

    A tile strokes only what crosses it: a line across the whole map costs its length in the tile."""
    ax, ay, bx, by = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    dx, dy = bx - ax, by - ay
    t0 = np.zeros(len(rows))
    t1 = np.ones(len(rows))
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
            t = q / p
            t0 = np.where(p < 0, np.maximum(t0, t), t0)
            t1 = np.where(p > 0, np.minimum(t1, t), t1)
    keep = t0 <= t1
    out = np.column_stack(
        (
            np.where(t0 > 0, ax + t0 * dx, ax),
            np.where(t0 > 0, ay + t0 * dy, ay),
            np.where(t1 < 1, ax + t1 * dx, bx),
            np.where(t1 < 1, ay + t1 * dy, by),
        )
    )
    return out[keep]


@dataclass(frozen=True)
class _Rows:
    """One kind of line (segments or doors) as arrays: ids for diffs, ends, boxes."""

    ids: np.ndarray
    rows: np.ndarray
    boxes: np.ndarray

    @classmethod
    def of(cls, items: Sequence[WallSegment], rows_of: Callable[..., np.ndarray]) -> _Rows:
        rows = rows_of(items)
        return cls(_ids(items), rows, _boxes(rows))

    def splice(
        self, old_items: Sequence[WallSegment], items: Sequence[WallSegment], rows_of: Callable[..., np.ndarray]
    ) -> tuple[_Rows, np.ndarray, np.ndarray, slice]:
        """The rows of ``items``, reusing these of the unchanged head and tail (an edit adds, removes or
        replaces lines in one place); the boxes removed and added, and where the removed were."""
        if items is old_items:
            return self, self.boxes[:0], self.boxes[:0], slice(0, 0)
        new_ids = _ids(items)
        n_old, n_new = len(self.ids), len(new_ids)
        m = min(n_old, n_new)
        same = self.ids[:m] == new_ids[:m]
        head = m if same.all() else int(np.argmin(same))
        rest = m - head
        same_end = (self.ids[n_old - rest :] == new_ids[n_new - rest :])[::-1]
        tail = rest if same_end.all() else int(np.argmin(same_end))
        added = rows_of(items[head : n_new - tail])
        added_boxes = _boxes(added)
        rows = np.concatenate((self.rows[:head], added, self.rows[n_old - tail :]))
        boxes = np.concatenate((self.boxes[:head], added_boxes, self.boxes[n_old - tail :]))
        return _Rows(new_ids, rows, boxes), self.boxes[head : n_old - tail], added_boxes, slice(head, n_old - tail)


def _bounds(boxes: np.ndarray, also: QRectF | None = None) -> QRectF:
    """The rect holding ``boxes`` (and ``also``)."""
    if not len(boxes):
        return also if also is not None else QRectF()
    lo, hi = boxes[:, :2].min(axis=0), boxes[:, 2:].max(axis=0)
    rect = QRectF(QPointF(lo[0], lo[1]), QPointF(hi[0], hi[1]))
    return rect if also is None or also.isNull() else rect.united(also)


class LineShapes:
    """A map's wall segments and doors, painted from tiles rendered once (see the module's docstring).

    Build with :meth:`for_map` to share one with the other scenes showing the same map and to carry
    the previous map's tiles over an edit."""

    def __init__(self, grid_map: MapGrid | None = None, previous: LineShapes | None = None) -> None:
        self._segments: tuple[WallSegment, ...] = grid_map.segments if grid_map is not None else ()
        self._doors: tuple[Door, ...] = grid_map.doors if grid_map is not None else ()
        self._shapes: dict[int, DoorShape] = {}  # id(door) -> its shape, built at first paint
        # (dash width, device scale) -> id(door) -> (door, threshold, arc outlines), for two zooms
        self._dashes: dict[tuple[float, float], dict[int, tuple[Door, QPainterPath, QPainterPath]]] = {}
        # Built at first use (numpy waits for it): ends and boxes in scene units, ids for diffs.
        self._seg: _Rows | None = None
        self._door: _Rows | None = None
        self._bounds = QRectF()  # holds every line's box (after an erase it may be larger: harmless)
        self._serial = next(_serials)
        self._lineage = self._serial
        # No paint on screen yet (of these lines, or of those they follow: an edit of lines shown is none).
        self._first = previous is None or previous._first
        if previous is not None and not self.empty:
            self._follow(previous)
        _heads[self._lineage] = self._serial
        key = (id(self._segments), id(self._doors))
        _by_map[key] = weakref.ref(self)
        weakref.finalize(self, _forget, self._lineage, self._serial, key)

    @classmethod
    def for_map(cls, grid_map: MapGrid, previous: LineShapes | None = None) -> LineShapes:
        """The shapes of ``grid_map``: those another scene built for the very same lines if any (their
        tiles are shared), else new ones that keep ``previous``'s tiles the edit left untouched."""
        ref = _by_map.get((id(grid_map.segments), id(grid_map.doors)))
        found = ref() if ref is not None else None
        if (
            found is not None
            and found._segments is grid_map.segments
            and found._doors is grid_map.doors
            and _heads.get(found._lineage) == found._serial
        ):
            return found
        return cls(grid_map, previous)

    @property
    def empty(self) -> bool:
        return not self._segments and not self._doors

    @property
    def doors(self) -> list[DoorShape]:
        """Every door's painted shape, in the map's order."""
        return [self._shape(door) for door in self._doors]

    def wall_lines(self) -> list[QLineF]:
        """The painted wall segments as scene lines (what tests and tools read back)."""
        return [scene_line(line) for line in self._segments]

    def _shape(self, door: Door) -> DoorShape:
        shape = self._shapes.get(id(door))
        if shape is None or shape.door is not door:
            shape = self._shapes[id(door)] = door_shape(door)
        return shape

    def _build(self) -> tuple[_Rows, _Rows]:
        if self._seg is None or self._door is None:
            self._seg = _Rows.of(self._segments, segment_rows)
            self._door = _Rows.of(self._doors, _door_rows)
            self._bounds = _bounds(np.vstack((self._seg.boxes, self._door.boxes)))
        return self._seg, self._door

    def _follow(self, previous: LineShapes) -> None:
        """Take over ``previous``'s tiles (its lineage) and drop only those the changed lines touch.

        Works on ids: an edit makes a new tuple of mostly the very same line objects, so the diff is
        a few vectorised passes, no Python work per line."""
        if previous._seg is None or previous._door is None or _heads.get(previous._lineage) != previous._serial:
            return
        self._seg, seg_out, seg_in, _ = previous._seg.splice(previous._segments, self._segments, segment_rows)
        self._door, door_out, door_in, gone = previous._door.splice(previous._doors, self._doors, _door_rows)
        changed = np.vstack((seg_out, seg_in, door_out, door_in))
        self._bounds = _bounds(np.vstack((seg_in, door_in)), previous._bounds)
        self._shapes = dict(previous._shapes)
        self._dashes = {key: dict(kept) for key, kept in previous._dashes.items()}
        for door in previous._doors[gone]:
            self._shapes.pop(id(door), None)
            for kept in self._dashes.values():
                kept.pop(id(door), None)
        if len(changed) > _REBUILD_OVER:
            return  # a new lineage: every tile anew
        self._lineage = previous._lineage
        if len(changed):
            tile_cache.invalidate(self._lineage, changed)

    # -- painting ----------------------------------------------------------------------------------

    def paint(self, painter: QPainter, scale: float, exposed: QRectF | None = None, later: Later | None = None) -> None:
        """Paint the segments and doors that meet ``exposed`` (scene; None: all of them); ``scale`` is
        the view's pixels per scene unit, which sets the lines' widths.

        A paint on screen renders missing tiles up to a budget and calls ``later`` for the rest (a
        view painting its background cache passes one); without it, a paint on a widget asks that
        widget to paint again, and a picture gets every tile at once."""
        if self.empty:
            return
        self._build()
        scale = max(scale, 1e-3)
        device = painter.deviceTransform()
        axis_aligned = abs(device.m12()) < 1e-12 and abs(device.m21()) < 1e-12
        device_scale = min(math.hypot(device.m11(), device.m12()), math.hypot(device.m21(), device.m22()))
        if device_scale <= 0:
            return
        pad = _pad(scale, device_scale)
        area = self._bounds.adjusted(-pad, -pad, pad, pad)
        if exposed is not None:
            area = area.intersected(exposed)
        if area.isEmpty():
            return
        painter.save()
        # World coordinates = device pixels from here: tiles land on whole pixels, unscaled. Exactly
        # the identity when nothing lies between world and device: Qt then blits without resampling.
        world = painter.worldTransform()
        painter.setWorldTransform(QTransform() if world == device else device.inverted()[0] * world)
        if (
            axis_aligned
            and device.m11() > 0
            and abs(device.m11() - device.m22()) <= 1e-9 * device.m11()
            and _heads.get(self._lineage) == self._serial
        ):
            self._paint_tiles(painter, device, scale, area, later)
        else:
            self._paint_uncached(painter, device, scale, area)
        painter.restore()

    def _paint_tiles(
        self, painter: QPainter, device: QTransform, scale: float, area: QRectF, later: Later | None
    ) -> None:
        sd = device.m11()
        ix, qx = _split(device.dx())
        iy, qy = _split(device.dy())
        fx, fy = qx / OFFSET_STEPS, qy / OFFSET_STEPS
        # The whole device pixels the area touches, and the tiles (anchored at the offset) holding them.
        px0 = math.floor(area.left() * sd + device.dx())
        py0 = math.floor(area.top() * sd + device.dy())
        px1 = math.ceil(area.right() * sd + device.dx())
        py1 = math.ceil(area.bottom() * sd + device.dy())
        c0, c1 = (px0 - ix) // TILE_PX, (px1 - 1 - ix) // TILE_PX
        r0, r1 = (py0 - iy) // TILE_PX, (py1 - 1 - iy) // TILE_PX
        if px1 <= px0 or py1 <= py0:
            return
        if (c1 - c0 + 1) * (r1 - r0 + 1) > tile_cache.max_tiles:
            self._paint_uncached(painter, device, scale, area)
            return
        level: Level = (self._lineage, sd, scale, qx, qy)
        tiles: list[tuple[int, int, QImage]] = []
        missing: list[tuple[int, int]] = []
        for row in range(r0, r1 + 1):
            for col in range(c0, c1 + 1):
                tile = tile_cache.get(level, col, row)
                if tile is _MISSING:
                    missing.append((col, row))
                elif tile is not None:
                    tiles.append((col, row, tile))  # type: ignore[arg-type]
        if missing:
            # One pass over every line for all the missing tiles, then each tile looks at those only.
            left = min(c for c, _ in missing) * TILE_PX - fx
            top = min(r for _, r in missing) * TILE_PX - fy
            right = (max(c for c, _ in missing) + 1) * TILE_PX - fx
            bottom = (max(r for _, r in missing) + 1) * TILE_PX - fy
            near = self._select(QRectF(left / sd, top / sd, (right - left) / sd, (bottom - top) / sd), scale, sd)
            # On a widget, a paint renders tiles up to a work budget and asks for another paint for the
            # rest: a new zoom on a huge map fills in over a few frames instead of freezing the window.
            widget = painter.device()
            if later is None and isinstance(widget, QWidget):
                later = lambda: _paint_later(widget)  # noqa: E731
            budget = math.inf if later is None else FIRST_PAINT_BUDGET_US if self._first else PAINT_BUDGET_US
            self._first = self._first and later is None
            spent = 0.0
            deferred = False
            for col, row in missing:
                x, y = col * TILE_PX - fx, row * TILE_PX - fy
                if spent >= budget:
                    deferred = True
                    continue
                rect = QRectF(x / sd, y / sd, TILE_PX / sd, TILE_PX / sd)
                to_tile = QTransform(sd, 0, 0, sd, -x, -y)
                tile, cost = self._render(TILE_PX, TILE_PX, to_tile, scale, sd, rect, near)
                spent += cost
                tile_cache.rendered += 1
                tile_cache.put(level, col, row, tile)
                if tile is not None:
                    tiles.append((col, row, tile))
            if deferred and later is not None:
                later()
        clip = QRect(px0, py0, px1 - px0, py1 - py0)
        for col, row, tile in tiles:
            x, y = col * TILE_PX + ix, row * TILE_PX + iy
            part = QRect(x, y, TILE_PX, TILE_PX).intersected(clip)
            painter.drawImage(part, tile, part.translated(-x, -y))

    def _paint_uncached(self, painter: QPainter, device: QTransform, scale: float, area: QRectF) -> None:
        """Render the area's lines in device-pixel pieces and draw them at once, keeping nothing: for a
        turned or skewed view, a shapes object an edit has replaced, or an area too big to cache."""
        sd = min(math.hypot(device.m11(), device.m12()), math.hypot(device.m21(), device.m22()))
        bounds = device.mapRect(area).toAlignedRect()
        back = device.inverted()[0]
        near = self._select(area, scale, sd)
        for y in range(bounds.top(), bounds.bottom() + 1, CHUNK_PX):
            for x in range(bounds.left(), bounds.right() + 1, CHUNK_PX):
                chunk = QRect(x, y, CHUNK_PX, CHUNK_PX).intersected(bounds)
                rect = back.mapRect(QRectF(chunk)).intersected(area)
                to_chunk = device * QTransform.fromTranslate(-x, -y)
                image, _ = self._render(chunk.width(), chunk.height(), to_chunk, scale, sd, rect, near)
                if image is not None:
                    painter.drawImage(chunk.topLeft(), image)

    def _select(
        self, rect: QRectF, scale: float, sd: float, near: tuple[np.ndarray, np.ndarray] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The indices of the segments and doors whose padded boxes meet ``rect`` (among ``near``)."""
        segments, doors = self._build()
        pad = _pad(scale, sd)
        x0, y0 = rect.left() - pad, rect.top() - pad
        x1, y1 = rect.right() + pad, rect.bottom() + pad
        found = []
        for boxes, among in zip((segments.boxes, doors.boxes), near or (None, None), strict=True):
            if among is not None:
                boxes = boxes[among]
            hit = (boxes[:, 2] >= x0) & (boxes[:, 0] <= x1) & (boxes[:, 3] >= y0) & (boxes[:, 1] <= y1)
            index = np.flatnonzero(hit)
            found.append(index if among is None else among[index])
        return found[0], found[1]

    def _render(
        self,
        width: int,
        height: int,
        to_image: QTransform,
        scale: float,
        sd: float,
        rect: QRectF,
        near: tuple[np.ndarray, np.ndarray],
    ) -> tuple[QImage | None, float]:
        """A transparent image of the lines and doors over ``rect`` (scene), or None if none reach it,
        and an estimate of its cost in microseconds."""
        rows = self._build()[0].rows
        segments, doors = self._select(rect, scale, sd, near)
        if not len(segments) and not len(doors):
            return None, 0.0
        cost = TILE_US + DOOR_US * len(doors)
        image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setTransform(to_image)
        s = CELL_PX
        width_scene = max(WALL_WIDTH * s, 2.5 / scale)
        if len(segments):
            ends = self._pieces(rows[segments], rect, scale, sd)
            lengths = np.hypot(ends[:, 2] - ends[:, 0], ends[:, 3] - ends[:, 1])
            # The lines first: where they cover a pixel wholly, the casing under it cannot show, and
            # a casing stroke that would only reach such pixels is left out.
            lines = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
            drawn = _stroke_layer(lines, to_image, ends, width_scene, WALL_LINE)
            covered = _covered(lines) if len(ends) > _SATURATE_FROM else None
            casing = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
            drawn += _stroke_layer(casing, to_image, ends, width_scene + 2.5 / scale, WALL_CASING, covered)
            cost += (LINE_US * float(drawn.sum()) + LINE_PX_US * float((lengths * drawn).sum()) * sd) / 2
            painter.resetTransform()
            painter.drawImage(0, 0, casing)
            painter.drawImage(0, 0, lines)
            painter.setTransform(to_image)
        if len(doors):
            shapes = [self._shape(self._doors[i]) for i in doors.tolist()]
            self._paint_doors(painter, scale, sd, shapes, self._dash_outlines(scale, sd))
        painter.end()
        return image, cost

    @staticmethod
    def _pieces(rows: np.ndarray, rect: QRectF, scale: float, sd: float) -> np.ndarray:
        """The parts of the segments ``rows`` (scene ends) inside ``rect`` and the ink's reach round
        it: what a tile strokes. A line across the whole map is cut to each tile it crosses, once,
        and a tile keeps none of the lines whose boxes meet it but which pass it by."""
        pad = _pad(scale, sd)
        return _clip(rows, rect.left() - pad, rect.top() - pad, rect.right() + pad, rect.bottom() + pad)

    def _dash_outlines(self, scale: float, sd: float) -> DashOutlines:
        """Open doors' dash outlines at this zoom, each made once: a long door's arc crosses many tiles."""
        key = (_thin(scale), sd)
        kept = self._dashes.get(key)
        if kept is None:
            if len(self._dashes) >= 2:  # this zoom and the last
                del self._dashes[next(iter(self._dashes))]
            kept = self._dashes[key] = {}
        make = _door_dashes(*key)

        def outlines(shape: DoorShape) -> tuple[QPainterPath, QPainterPath]:
            found = kept.get(id(shape.door))
            if found is None or found[0] is not shape.door:
                found = kept[id(shape.door)] = (shape.door, *make(shape))
            return found[1], found[2]

        return outlines

    @staticmethod
    def _paint_doors(
        painter: QPainter, scale: float, sd: float, shapes: list[DoorShape], dashes: DashOutlines | None = None
    ) -> None:
        s = CELL_PX
        join = Qt.PenJoinStyle.RoundJoin
        edge = max(0.03 * s, 1.2 / scale)
        r = max(HINGE * s, 2.0 / scale)
        outlines = dashes or _door_dashes(_thin(scale), sd)
        for shape in shapes:
            if shape.door.open:
                threshold, arc = outlines(shape)
                painter.fillPath(threshold, DOOR_EDGE)
                painter.fillPath(arc, DOOR_WOOD)
            painter.setPen(QPen(DOOR_EDGE, edge, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap, join))
            painter.setBrush(DOOR_WOOD)
            painter.drawPolygon(shape.bar)
            painter.setBrush(DOOR_EDGE)
            painter.setPen(Qt.PenStyle.NoPen)
            for hinge in shape.hinges:
                painter.drawEllipse(hinge, r, r)


DashOutlines = Callable[[DoorShape], tuple[QPainterPath, QPainterPath]]  # an open door -> (threshold, arc)


def _thin(scale: float) -> float:
    """The width of an open door's dashed threshold and dotted arc, at this zoom."""
    return max(0.025 * CELL_PX, 1.0 / scale)


def _door_dashes(width: float, device_scale: float) -> DashOutlines:
    """An open door's dashes outlined, to be filled rather than stroked with a dashed pen: Qt's dasher
    skips the parts outside the paint device in a way that shifts the dashes after them, so a dashed
    pen would draw them differently in each tile (and in each view)."""
    dashes, dots = (_dasher(width, style, device_scale) for style in (Qt.PenStyle.DashLine, Qt.PenStyle.DotLine))

    def outlines(shape: DoorShape) -> tuple[QPainterPath, QPainterPath]:
        threshold = QPainterPath(shape.threshold.p1())
        threshold.lineTo(shape.threshold.p2())
        return dashes.createStroke(threshold), dots.createStroke(shape.arc)

    return outlines


def _dasher(width: float, style: Qt.PenStyle, device_scale: float) -> QPainterPathStroker:
    """Outlines a dashed pen's stroke, curves flattened as finely as QPainter does at this zoom."""
    stroker = QPainterPathStroker()
    stroker.setWidth(width)
    stroker.setCapStyle(Qt.PenCapStyle.RoundCap)
    stroker.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    stroker.setDashPattern(style)
    stroker.setCurveThreshold(0.25 / device_scale)
    return stroker


_SATURATE_FROM = 512  # from this many strokes in a layer, strokes that could change nothing are left out
_SATURATE_BATCH = 256  # strokes drawn before the first look at what the layer covers wholly, twice as many
# before each next one


def _stroke_layer(
    layer: QImage,
    to_image: QTransform,
    ends: np.ndarray,
    width: float,
    color: QColor,
    covered: np.ndarray | None = None,
) -> np.ndarray:
    """Fill ``layer`` with the segments ``ends`` ((n, 4) scene x1, y1, x2, y2) stroked ``width`` wide
    (round caps) in ``color``, as one path's stroke would be; which segments were stroked (a bool
    per row).

    Each segment is stroked on its own: Qt fills a path of many overlapping round-capped lines in time
    that grows faster than their number. A path's fill adds up the coverage of its overlapping parts
    (clamped to full), so where strokes overlap their antialiased edges add up, and a translucent
    casing is laid down once. Here each stroke adds half its coverage (the Plus mode: added at full,
    an edge would be blended, not added), the sum is doubled, and the colour put where the coverage
    is (SourceIn): the same pixels, within a level or two where several edges meet.

    Many strokes (long walls across the map cross every tile, hundreds of them) are drawn in batches
    each twice the last, and between two a stroke is left out when every pixel it could reach is already wholly covered
    (half coverage added up: doubled, full), or ``covered`` (a ``(height, width)`` bool array: pixels
    whose colour this layer cannot change). The sum is clamped to full, so the pixels are the same."""
    layer.fill(0)
    drawn = np.zeros(len(ends), dtype=np.bool_)
    painter = QPainter(layer)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Plus)
    painter.setTransform(to_image)
    painter.setPen(QPen(QColor(0, 0, 0, 128), width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    line = QLineF()  # one line object reset per segment: building 10,000 QLineF costs more
    if len(ends) <= _SATURATE_FROM:
        for x1, y1, x2, y2 in ends.tolist():
            line.setLine(x1, y1, x2, y2)
            painter.drawLine(line)
        drawn[:] = True
    else:
        boxes = _device_boxes(ends, to_image, width, layer.width(), layer.height())
        start, size = 0, _SATURATE_BATCH
        while start < len(ends):
            batch = np.arange(start, min(start + size, len(ends)))
            if start or covered is not None:
                done = _full(layer) if covered is None else _full(layer) | covered
                batch = batch[_open(done, boxes[batch])]
            for x1, y1, x2, y2 in ends[batch].tolist():
                line.setLine(x1, y1, x2, y2)
                painter.drawLine(line)
            drawn[batch] = True
            start, size = start + size, 2 * size  # a few looks a tile, however many lines cross it
    painter.resetTransform()
    painter.drawImage(0, 0, layer.copy())
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    painter.fillRect(layer.rect(), color)
    painter.end()
    return drawn


def _alpha(layer: QImage) -> np.ndarray:
    """The alpha channel of a premultiplied ARGB32 image, ``(height, width)`` (a copy)."""
    row = layer.bytesPerLine() // 4
    pixels = np.frombuffer(layer.constBits(), dtype=np.uint32, count=row * layer.height()).reshape(-1, row)
    return (pixels[:, : layer.width()] >> 24).astype(np.uint8)


def _full(layer: QImage) -> np.ndarray:
    """The pixels of a layer being stroked (half coverage per stroke) that doubling makes full."""
    return _alpha(layer) >= 128


def _covered(lines: QImage) -> np.ndarray:
    """The pixels a finished, opaque wall-line layer covers wholly: nothing under them shows."""
    return _alpha(lines) == 255


def _device_boxes(ends: np.ndarray, to_image: QTransform, width: float, w: int, h: int) -> np.ndarray:
    """Each stroke's reach on the image: (n, 4) whole pixels x0, y0, x1, y1 (inclusive), clamped to
    it; its ink and antialiasing stay inside, round caps and all."""
    m11, m12, m21, m22 = to_image.m11(), to_image.m12(), to_image.m21(), to_image.m22()
    xs = ends[:, 0::2] * m11 + ends[:, 1::2] * m21 + to_image.dx()
    ys = ends[:, 0::2] * m12 + ends[:, 1::2] * m22 + to_image.dy()
    reach = width / 2 * max(math.hypot(m11, m12), math.hypot(m21, m22)) + 2.0
    x0 = np.clip(np.floor(xs.min(axis=1) - reach), 0, w - 1)
    x1 = np.clip(np.ceil(xs.max(axis=1) + reach), 0, w - 1)
    y0 = np.clip(np.floor(ys.min(axis=1) - reach), 0, h - 1)
    y1 = np.clip(np.ceil(ys.max(axis=1) + reach), 0, h - 1)
    return np.column_stack((x0, y0, x1, y1)).astype(np.int64)


def _open(done: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Which ``boxes`` hold a pixel not ``done`` (a summed-area table of those not done)."""
    table = np.zeros((done.shape[0] + 1, done.shape[1] + 1), dtype=np.int64)
    np.cumsum(np.cumsum(~done, axis=0), axis=1, out=table[1:, 1:])
    x0, y0, x1, y1 = boxes[:, 0], boxes[:, 1], boxes[:, 2] + 1, boxes[:, 3] + 1
    count = table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0]
    return count > 0

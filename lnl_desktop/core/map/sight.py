"""Line of sight on the battle map: who sees whom, what a creature sees, what the Party sees.

Pure Python plus numpy, no Qt. Coordinates as in :mod:`lnl_desktop.core.map.grid`: cells ``(x, y)``,
points in cell units with ``(0, 0)`` the map's top-left corner and a cell's centre at ``+0.5``.

**What blocks a line.** Lines run from cell centre to cell centre. Two things block one:

- a *wall cell* whose open interior the line passes through; the two cells at the line's ends
  never block, and a line that only grazes a wall cell's corner passes (this is what
  ``grid.line_of_sight`` meant, made exact: it sampled the line every quarter cell);
- a *barrier* (a drawn wall segment, or a door while it is closed) that the line meets at all:
  crossing it, touching one of its ends, or running along it (:func:`terrain.segments_cross`, the
  same test that bars a step, so "a wall between two adjacent cells" means the same to sight, to
  movement and to melee). A barrier through a creature's very centre therefore blinds it.

**Who sees whom.** A token sees another when the line between some cell of the one and some cell
of the other is clear (:func:`sees`); :func:`blocker` names what stops the most direct line when
none is clear. :func:`visible_cells` is every cell whose centre some cell of the creature sees,
narrowed to its field of vision when its facing is given (the bearing from the footprint's centre,
as :func:`grid.outside_cone` reads it); the creature's own cells are always among them.

**Speed.** :func:`visible_cells` tests every cell of the map at once. Per map it keeps the
blockers as segments (barriers, and the two open diagonals of each wall cell that is not buried
in other wall cells: a line enters a square's open interior exactly when it crosses one of them
inside the square) and a table of the angle and distance of every cell offset. Per viewing
point it sorts the blockers into angular bins (8 per cell of the map's longer side), with a
lower bound of how near any of them comes in each bin and an upper bound of how far the nearest
one that spans the whole bin reaches: a cell nearer than the first is seen, farther than the
second is hidden, and only the few cells in between are tested exactly, against the blockers of
their bin, with the same arithmetic as :func:`sees`.

A map never changes, and a door opened or a wall drawn makes a new one: its tables take over
what did not change from the last map of its size (the offsets table is shared by all maps of
one size, the wall cells' diagonals by those with the same wall cells); only the barriers are
new. Each creature's view is cached on its map, as bits (bounded; only the latest few maps keep
theirs), so the Party's view (:func:`eyes_sight`, worked out once per state for the engine and
every window) after a move costs the moved token's view and an OR; and the fog of war's
explored cells are kept as a mask beside their set (:mod:`.explored`).
"""

from __future__ import annotations

import contextlib
import math
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Set
from dataclasses import dataclass
from numbers import Integral
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.map.grid import (
    _EPS,
    Cell,
    ConePredicate,
    DiagonalRule,
    cell_distance_ft,
    footprint,
    footprint_center,
)
from lnl_desktop.core.map.terrain import (
    Barrier,
    GridMap,
    Terrain,
    _boxes,
    _footprint_any,
    _orient,
    _segments_cross_many,
    _window_slice,
    map_terrain,
    segments_cross,
)
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as _numpy
    import numpy.typing as npt

    from lnl_desktop.core.map.grid import BoolArray

    FloatArray = npt.NDArray[_numpy.float64]
    IntArray = npt.NDArray[_numpy.int64]
    UInt8Array = npt.NDArray[_numpy.uint8]

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


_ANGLE_EPS = 1e-9  # radians: a blocker is filed in every bin within this of its ends
_REL = 1e-9  # relative margin on the distance bounds: near a bound, test exactly
_BUCKET = 8  # cells per side of the buckets that file barriers for single lines


def wall_words(cell: Cell) -> str:
    """'the wall at (6, 11)': a wall cell, as the reasons name it."""
    return f"the wall at ({cell[0]}, {cell[1]})"


# --------------------------------------------------------------------------------------------
# Per-map index
# --------------------------------------------------------------------------------------------


@dataclass
class _Blockers:
    """Segments that block lines, as parallel arrays: barriers (closed) first, then wall diagonals (open)."""

    ax: FloatArray
    ay: FloatArray
    bx: FloatArray
    by: FloatArray
    closed: BoolArray
    owner: IntArray  # flat index y * width + x of a diagonal's wall cell; -1 for a barrier


class _Offsets:
    """Angle bin and distance of every cell offset: depends on the map's size only, so every map
    of one size shares one (a door opened or a wall drawn makes a new map, not new offsets)."""

    __slots__ = ("__weakref__", "_bearing", "_edges", "bin_width", "bins", "dist", "nbins")

    def __init__(self, w: int, h: int) -> None:
        # Angular bins per viewing point: fewer bins file each blocker in fewer places, more leave
        # fewer cells between the bounds; 8 per cell of the map's longer side balances the two.
        self.nbins = nbins = min(4096, max(256, 8 * max(w, h)))
        self.bin_width = 2.0 * math.pi / nbins
        # Angle (radians, atan2 in screen axes), distance and bin of every cell offset.
        dy = np.arange(-(h - 1), h, dtype=np.float64)[:, np.newaxis]
        dx = np.arange(-(w - 1), w, dtype=np.float64)[np.newaxis, :]
        angle = np.arctan2(dy, dx)
        self.dist: FloatArray = np.hypot(dx, dy)
        self.bins: IntArray = (np.floor((angle + math.pi) / self.bin_width).astype(np.int64)) % nbins
        self._bearing: FloatArray | None = None
        self._edges: tuple[FloatArray, FloatArray] | None = None

    def edges(self) -> tuple[FloatArray, FloatArray]:
        """Cosine and sine of each bin's edges: bin ``i`` runs from edge ``i`` to edge ``i + 1``."""
        if self._edges is None:
            theta = np.arange(self.nbins + 1, dtype=np.float64) * self.bin_width - math.pi
            self._edges = (np.cos(theta), np.sin(theta))
        return self._edges

    def bearing(self) -> FloatArray:
        """Compass bearing (degrees, 0 north, 90 east) of every offset, made when first needed:
        with the same arithmetic as :meth:`grid.ConePredicate.mask`, whose offsets from an odd-sized
        creature's centre are these whole numbers, so a cone cut from it is exactly that mask."""
        if self._bearing is None:
            h, w = self.dist.shape
            dy = np.arange(-(h // 2), h // 2 + 1, dtype=np.float64)[:, np.newaxis]
            dx = np.arange(-(w // 2), w // 2 + 1, dtype=np.float64)[np.newaxis, :]
            self._bearing = np.degrees(np.arctan2(dx, -dy)) % 360.0
        return self._bearing


# Weak values: a size's offsets live as long as some map of that size keeps its index.
_OFFSETS: weakref.WeakValueDictionary[tuple[int, int], _Offsets] = weakref.WeakValueDictionary()


def _offsets(w: int, h: int) -> _Offsets:
    found = _OFFSETS.get((w, h))
    if found is None:
        found = _OFFSETS[(w, h)] = _Offsets(w, h)
    return found


class _WallDiagonals:
    """The two diagonals of wall cells (flat cell index and corners): what a map's wall cells put
    in the way of lines. Shared by the maps whose wall cells are the same."""

    __slots__ = ("_all", "edge", "wall_grid")

    def __init__(self, wall_grid: BoolArray) -> None:
        self.wall_grid = wall_grid
        # Only those not buried among walls on all 8 sides (a line reaches a buried one only
        # through another wall cell), or, for a viewer standing on a wall itself, every one.
        self.edge = np.nonzero(wall_grid & ~_buried(wall_grid))
        self._all: tuple[IntArray, IntArray] | None = None

    def every(self) -> tuple[IntArray, IntArray]:
        if self._all is None:
            self._all = np.nonzero(self.wall_grid)
        return self._all


# The last index built per map size (weakly): the next map of that size (a door opened, a wall
# drawn) takes over what did not change instead of building it again.
_LATEST: weakref.WeakValueDictionary[tuple[int, int], _Index] = weakref.WeakValueDictionary()

_VIEW_BYTES = 16 << 20  # per map: cached views of single creatures (as bits), _VIEW_MIN to _VIEW_MAX of them
_VIEW_MIN = 64  # a big Party on a big map still keeps every member's view
_VIEW_MAX = 2048
_PARTY_KEEP = 4  # Party views kept per map: the state now and a few before (undo, redo)
_MAPS_CACHING = 3  # maps whose views stay cached (the undo history holds many maps)
_caching: list[weakref.ref[_Index]] = []  # the maps with cached views, latest first


class _Index:
    """What sight needs of one terrain, built once and kept on it."""

    def __init__(self, terrain: Terrain) -> None:
        self.width = w = terrain.width
        self.height = h = terrain.height
        self.terrain = terrain
        self.walls = terrain.walls
        self.barriers = terrain.barriers
        self.bar = terrain.barrier_lines
        offsets = _offsets(w, h)
        self.offsets = offsets
        self.nbins, self.bin_width = offsets.nbins, offsets.bin_width
        self.dist, self.bins = offsets.dist, offsets.bins
        previous = _LATEST.get((w, h))
        if previous is not None and (previous.walls is terrain.walls or previous.walls == terrain.walls):
            self.wall_cells = previous.wall_cells  # only barriers changed: the diagonals stay
        else:
            self.wall_cells = _WallDiagonals(terrain.wall_grid)
        self.wall_grid = self.wall_cells.wall_grid
        self._edge_walls = self._diagonals(self.wall_cells.edge)
        self._all_walls: _Blockers | None = None
        self._buckets: tuple[list[int], list[int], int] | None = None
        # Single creatures' views, (cell, size[, facing, vision]) -> read-only bits, least recent first.
        self.views: OrderedDict[tuple[object, ...], UInt8Array] = OrderedDict()
        self.view_limit = max(_VIEW_MIN, min(_VIEW_MAX, _VIEW_BYTES // max(1, h * ((w + 7) // 8))))
        self.party: OrderedDict[tuple[str, tuple[object, ...]], PartyView] = OrderedDict()
        _LATEST[(w, h)] = self

    def _diagonals(self, cells: tuple[IntArray, IntArray]) -> _Blockers:
        ys, xs = cells[0].astype(np.float64), cells[1].astype(np.float64)
        nb = self.bar.shape[0]
        ax = np.concatenate((self.bar[:, 0], xs, xs + 1))
        ay = np.concatenate((self.bar[:, 1], ys, ys))
        bx = np.concatenate((self.bar[:, 2], xs + 1, xs))
        by = np.concatenate((self.bar[:, 3], ys + 1, ys + 1))
        owner_cells = (ys * self.width + xs).astype(np.int64)
        owner = np.concatenate((np.full(nb, -1, dtype=np.int64), owner_cells, owner_cells))
        closed = np.zeros(ax.shape, dtype=np.bool_)
        closed[:nb] = True
        return _Blockers(ax, ay, bx, by, closed, owner)

    def blockers(self, viewer_on_wall: bool) -> _Blockers:
        if not viewer_on_wall:
            return self._edge_walls
        if self._all_walls is None:
            self._all_walls = self._diagonals(self.wall_cells.every())
        return self._all_walls

    def bucket(self, bx: int, by: int) -> list[int]:
        """Indices of the barriers whose bounding boxes touch the 8 x 8 bucket ``(bx, by)``."""
        if self._buckets is None:
            self._buckets = _bucketed(self.bar, self.width, self.height)
        starts, items, columns = self._buckets
        if not (0 <= bx < columns and 0 <= by < (len(starts) - 1) // columns):
            return []
        k = by * columns + bx
        return items[starts[k] : starts[k + 1]]

    def view(self, key: tuple[object, ...]) -> UInt8Array | None:
        found = self.views.get(key)
        if found is not None:
            # A worker (the window's, working out a hovered creature's view) may have dropped it since.
            with contextlib.suppress(KeyError):
                self.views.move_to_end(key)
        return found

    def keep_view(self, key: tuple[object, ...], mask: UInt8Array) -> None:
        mask.flags.writeable = False  # shared by every caller: nobody may change it
        self.views[key] = mask
        while len(self.views) > self.view_limit:
            self.views.popitem(last=False)
        if not _caching or _caching[0]() is not self:
            # Only the latest few maps keep views: older ones (the undo history's) drop theirs.
            _caching[:] = [weakref.ref(self)] + [r for r in _caching if r() not in (None, self)]
            for ref in _caching[_MAPS_CACHING:]:
                old = ref()
                if old is not None:
                    old.views.clear()
                    old.party.clear()
            del _caching[_MAPS_CACHING:]


def _bucketed(bar: FloatArray, w: int, h: int) -> tuple[list[int], list[int], int]:
    """Barrier indices by the 8 x 8 buckets they cross, in barrier order within a bucket: (start of
    each bucket's run, the runs, buckets per row). With numpy: a few ms for thousands of barriers, so
    a map with a door opened builds its own rather than patch another's.

    A barrier is filed in the buckets it passes through (column by column, the rows it spans in
    each), not in every bucket of its box: a line across the whole map crosses two dozen buckets of
    a 100 x 100 map where its box holds a hundred and fifty, and a thousand of them on the biggest map
    would otherwise fill the index with millions of entries."""
    columns = (w + _BUCKET - 1) // _BUCKET + 1  # a barrier may end on the map's far edge
    rows = (h + _BUCKET - 1) // _BUCKET + 1
    count = columns * rows
    if bar.shape[0] == 0:
        return [0] * (count + 1), [], columns
    line, cx, cy = _crossed_buckets(bar / _BUCKET, columns, rows)
    key = cy * columns + cx
    order = np.lexsort((line, key))  # by bucket, then barrier order within it
    starts = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(key, minlength=count), out=starts[1:])
    return starts.tolist(), line[order].tolist(), columns


def _crossed_buckets(ends: FloatArray, columns: int, rows: int) -> tuple[IntArray, IntArray, IntArray]:
    """Every (line index, column, row) of the buckets each line ``ends`` (in bucket units) meets,
    clamped to the ``columns`` x ``rows`` buckets as its box would be: a superset of the buckets its
    points lie in (a hair more at each column's edges, against rounding)."""
    ax, ay, bx, by = ends[:, 0], ends[:, 1], ends[:, 2], ends[:, 3]
    lo_x, hi_x = np.minimum(ax, bx), np.maximum(ax, bx)
    lo_y, hi_y = np.minimum(ay, by), np.maximum(ay, by)
    c0 = np.clip(np.floor(lo_x), 0, columns - 1).astype(np.int64)
    c1 = np.clip(np.floor(hi_x), 0, columns - 1).astype(np.int64)
    r_lo = np.clip(np.floor(lo_y), 0, rows - 1).astype(np.int64)
    r_hi = np.clip(np.floor(hi_y), 0, rows - 1).astype(np.int64)
    counts = c1 - c0 + 1
    line = np.repeat(np.arange(len(ends)), counts)
    col = c0[line] + (np.arange(line.size) - np.repeat(np.cumsum(counts) - counts, counts))
    # The stretch of x in this column (the line's own ends in its first and last), and y there.
    xs = np.where(col == c0[line], lo_x[line], col)
    xe = np.where(col == c1[line], hi_x[line], col + 1)
    dx = (bx - ax)[line]
    slope = np.divide((by - ay)[line], dx, out=np.zeros(line.size), where=dx != 0)
    ys = ay[line] + (xs - ax[line]) * slope
    ye = ay[line] + (xe - ax[line]) * slope
    flat = dx == 0
    y_lo = np.where(flat, lo_y[line], np.minimum(ys, ye))
    y_hi = np.where(flat, hi_y[line], np.maximum(ys, ye))
    margin = 1e-9 * (1.0 + np.abs(y_lo) + np.abs(y_hi))
    r0 = np.maximum(np.clip(np.floor(y_lo - margin), 0, rows - 1).astype(np.int64), r_lo[line])
    r1 = np.minimum(np.clip(np.floor(y_hi + margin), 0, rows - 1).astype(np.int64), r_hi[line])
    r1 = np.maximum(r1, r0)
    which, cx, cy = _boxes(col, col, r0, r1)
    return line[which], cx, cy


def _buried(walls: BoolArray) -> BoolArray:
    """Wall cells with walls on all 8 sides (off the map counts as wall: no line goes there)."""
    h, w = walls.shape
    padded = np.ones((h + 2, w + 2), dtype=np.bool_)
    padded[1:-1, 1:-1] = walls
    out = walls.copy()
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            out &= padded[1 + dy : h + 1 + dy, 1 + dx : w + 1 + dx]
    return out


def _index(terrain: Terrain) -> _Index:
    found = terrain.__dict__.get("_sight_index")
    if found is None:
        found = _Index(terrain)
        terrain.__dict__["_sight_index"] = found  # a frozen dataclass still has a __dict__
    assert isinstance(found, _Index)
    return found


# --------------------------------------------------------------------------------------------
# One line
# --------------------------------------------------------------------------------------------


def _crossed_cells(a: Cell, b: Cell) -> list[Cell]:
    """The cells whose open interior the line between the centres of ``a`` and ``b`` passes
    through, from ``a`` on, the two end cells left out. Integer arithmetic: a line through a
    corner exactly steps diagonally and enters neither cell beside the corner."""
    nx, ny = abs(b[0] - a[0]), abs(b[1] - a[1])
    sx = 1 if b[0] > a[0] else -1
    sy = 1 if b[1] > a[1] else -1
    x, y = a
    ix = iy = 0
    out: list[Cell] = []
    while ix < nx or iy < ny:
        # The next vertical grid line is crossed at t = (2 ix + 1) / (2 nx), the next horizontal
        # one at (2 iy + 1) / (2 ny): compare them without dividing.
        left = (1 + 2 * ix) * ny
        right = (1 + 2 * iy) * nx
        if left == right:
            x, y, ix, iy = x + sx, y + sy, ix + 1, iy + 1
        elif left < right:
            x, ix = x + sx, ix + 1
        else:
            y, iy = y + sy, iy + 1
        out.append((x, y))
    if out:
        out.pop()  # the far end's own cell
    return out


def _barrier_hits(ix: _Index, p: tuple[float, float], q: tuple[float, float]) -> list[tuple[float, Barrier]]:
    """(where along the line, 0 to 1) of each barrier the closed line ``p``-``q`` meets."""
    if not ix.barriers:
        return []
    lo_x, hi_x = sorted((p[0], q[0]))
    lo_y, hi_y = sorted((p[1], q[1]))
    bx0, bx1 = int(lo_x // _BUCKET), int(hi_x // _BUCKET)
    by0, by1 = int(lo_y // _BUCKET), int(hi_y // _BUCKET)
    if (bx1 - bx0 + 1) * (by1 - by0 + 1) <= 9:
        found: set[int] = set()
        for bx in range(bx0, bx1 + 1):
            for by in range(by0, by1 + 1):
                found.update(ix.bucket(bx, by))
        candidates = sorted(found)
        hits = [i for i in candidates if segments_cross(p, q, ix.barriers[i].a, ix.barriers[i].b)]
    else:
        bar = ix.bar
        mask = _segments_cross_many(p[0], p[1], q[0], q[1], bar[:, 0], bar[:, 1], bar[:, 2], bar[:, 3])
        hits = np.nonzero(mask)[0].tolist()
    return [(_where(p, q, ix.barriers[i]), ix.barriers[i]) for i in hits]


def _where(p: tuple[float, float], q: tuple[float, float], b: Barrier) -> float:
    """How far along ``p``-``q`` (0 to 1) it first meets the barrier ``b`` (which it meets)."""
    op = _orient(b.a[0], b.a[1], b.b[0], b.b[1], p[0], p[1])
    oq = _orient(b.a[0], b.a[1], b.b[0], b.b[1], q[0], q[1])
    if op != oq:
        return float(op / (op - oq))
    rx, ry = q[0] - p[0], q[1] - p[1]
    rr = rx * rx + ry * ry
    da = ((b.a[0] - p[0]) * rx + (b.a[1] - p[1]) * ry) / rr
    db = ((b.b[0] - p[0]) * rx + (b.b[1] - p[1]) * ry) / rr
    return max(0.0, min(da, db))


def _line_blocker(ix: _Index, a: Cell, b: Cell) -> str | None:
    """What first blocks the line from the centre of ``a`` to the centre of ``b``, or None."""
    if a == b:
        return None
    p = (a[0] + 0.5, a[1] + 0.5)
    q = (b[0] + 0.5, b[1] + 0.5)
    first: tuple[float, str] | None = None
    for t, barrier in _barrier_hits(ix, p, q):
        if first is None or t < first[0]:
            first = (t, barrier.name)
    if ix.walls:
        rx, ry = q[0] - p[0], q[1] - p[1]
        rr = rx * rx + ry * ry
        for cell in _crossed_cells(a, b):
            if cell in ix.walls:
                # Where the line is nearest the wall cell's centre: enough to order it among the hits.
                t = ((cell[0] + 0.5 - p[0]) * rx + (cell[1] + 0.5 - p[1]) * ry) / rr
                if first is None or t < first[0]:
                    first = (t, wall_words(cell))
                break  # the cells come in order along the line
    return None if first is None else first[1]


def _pairs(a: Cell, a_size: int, b: Cell, b_size: int) -> list[tuple[Cell, Cell]]:
    """Every (cell of a, cell of b), the nearest pairs first (the most direct lines)."""
    pairs = [(ca, cb) for ca in footprint(a, a_size) for cb in footprint(b, b_size)]
    pairs.sort(key=lambda pr: (pr[0][0] - pr[1][0]) ** 2 + (pr[0][1] - pr[1][1]) ** 2)
    return pairs


# --------------------------------------------------------------------------------------------
# Public: who sees whom
# --------------------------------------------------------------------------------------------


def blocker(grid_map: GridMap, a: Cell, a_size: int, b: Cell, b_size: int) -> str | None:
    """None when a token at ``a`` sees one at ``b`` (some line between their cells is clear);
    else what blocks the most direct line, in words: 'the wall from (10, 0) to (10, 5)',
    'the closed door at (4, 2)–(5, 2)', 'the wall at (6, 11)'."""
    return terrain_blocker(map_terrain(grid_map), a, a_size, b, b_size)


def sees(grid_map: GridMap, a: Cell, a_size: int, b: Cell, b_size: int) -> bool:
    """Whether a token of ``a_size`` at ``a`` sees one of ``b_size`` at ``b`` (and the other way
    round: sight is mutual). Walls, wall segments and closed doors block; the field of vision is
    not considered (see :func:`visible_cells`)."""
    return terrain_blocker(map_terrain(grid_map), a, a_size, b, b_size) is None


def terrain_blocker(terrain: Terrain, a: Cell, a_size: int, b: Cell, b_size: int) -> str | None:
    """:func:`blocker` on a :class:`terrain.Terrain`."""
    ix = _index(terrain)
    if not ix.walls and not ix.barriers:
        return None
    first: str | None = None
    for ca, cb in _pairs(a, a_size, b, b_size):
        found = _line_blocker(ix, ca, cb)
        if found is None:
            return None
        first = first or found
    return first


def reach_blocker(
    grid_map: GridMap,
    a: Cell,
    a_size: int,
    b: Cell,
    b_size: int,
    reach_ft: float,
) -> str | None:
    """What bars a melee blow from a token at ``a`` to one at ``b`` within ``reach_ft``, or None.

    The blow needs a pair of cells, one of each, within reach (by the map's distances) with a
    clear line between their centres: for two adjacent cells that is exactly "no barrier crosses
    the step between them", as in movement. None too when no pair is within reach at all (the
    distance check says that)."""
    terrain = map_terrain(grid_map)
    ix = _index(terrain)
    if not ix.walls and not ix.barriers:
        return None
    rule, feet = DiagonalRule(grid_map.diagonal), grid_map.feet_per_cell
    first: str | None = None
    for ca, cb in _pairs(a, a_size, b, b_size):
        if cell_distance_ft(ca, cb, rule, feet) > reach_ft + 1e-9:
            continue
        step = (cb[0] - ca[0], cb[1] - ca[1])
        if max(abs(step[0]), abs(step[1])) == 1:
            # Adjacent: the line is a step's, which no wall cell can block.
            barrier = terrain.barrier_across(ca, step)
            found = None if barrier is None else barrier.name
        else:
            found = _line_blocker(ix, ca, cb)
        if found is None:
            return None
        first = first or found
    return first


# --------------------------------------------------------------------------------------------
# Public: what a creature sees
# --------------------------------------------------------------------------------------------


def visible_cells(
    grid_map: GridMap,
    cell: Cell,
    size: int = 1,
    facing: float | None = None,
    vision_deg: float = 360,
) -> frozenset[Cell]:
    """Every cell a creature of ``size`` at ``cell`` (its anchor) sees: cells whose centre some
    cell of its own sees past the walls, wall segments and closed doors; with ``facing``, only
    those inside its field of vision of ``vision_deg`` degrees (:func:`grid.outside_cone`). Its
    own cells are always seen."""
    return _cells(visible_mask(grid_map, cell, size, facing, vision_deg))


def visible_mask(
    grid_map: GridMap,
    cell: Cell,
    size: int = 1,
    facing: float | None = None,
    vision_deg: float = 360,
) -> BoolArray:
    """:func:`visible_cells` as a ``(height, width)`` boolean array indexed ``[y, x]`` (cheaper to
    combine and to paint than a set)."""
    return terrain_visible_mask(map_terrain(grid_map), cell, size, facing, vision_deg)


def view_known(grid_map: GridMap, cell: Cell, size: int = 1) -> bool:
    """Whether what a creature of ``size`` at ``cell`` sees all round is already worked out on this
    map (its field of vision is cut from that in a millisecond): the window works an unknown one
    out on a worker thread rather than while the GM drags. The views' cache takes one at a time."""
    return (cell, size) in _index(map_terrain(grid_map)).views


def terrain_visible_mask(
    terrain: Terrain,
    cell: Cell,
    size: int = 1,
    facing: float | None = None,
    vision_deg: float = 360,
) -> BoolArray:
    """:func:`visible_mask` on a :class:`terrain.Terrain`."""
    return _view(_index(terrain), cell, size, facing, vision_deg)


def _view(ix: _Index, cell: Cell, size: int, facing: float | None, vision_deg: float) -> BoolArray:
    """:func:`terrain_visible_mask` from the map's cache of views (a new array: the caller's own)."""
    return _unpacked(_packed_view(ix, cell, size, facing, vision_deg), ix.width)


def _packed_view(ix: _Index, cell: Cell, size: int, facing: float | None, vision_deg: float) -> UInt8Array:
    """:func:`terrain_visible_mask` as bits (``np.packbits`` along rows), cached per map: a Party move
    works out the moved token's view only, and a hover asks the same creature's view many times.
    Bits, not booleans: an eighth of the memory, and a Party's views OR eight cells at a time."""
    cone = facing is not None and vision_deg < 360
    key: tuple[object, ...] = (cell, size, float(facing), float(vision_deg)) if cone else (cell, size)
    found = ix.view(key)
    if found is not None:
        return found
    w, h = ix.width, ix.height
    own = [c for c in footprint(cell, size) if 0 <= c[0] < w and 0 <= c[1] < h]
    if not own:
        raise ValueError(f"{cell} puts a size-{size} creature off the {w} x {h} map")
    if cone:
        assert facing is not None
        seen = _view(ix, cell, size, None, 360) & ~_outside_cone(ix, cell, size, float(facing), float(vision_deg))
    else:
        seen = np.zeros((h, w), dtype=np.bool_)
        for c in own:
            seen |= _point_view(ix, c)
    for x, y in own:
        seen[y, x] = True
    packed = np.packbits(seen, axis=1)
    ix.keep_view(key, packed)
    return packed


def _unpacked(packed: UInt8Array, width: int) -> BoolArray:
    out: BoolArray = np.unpackbits(packed, axis=1, count=width).view(np.bool_)
    return out


def _outside_cone(ix: _Index, cell: Cell, size: int, facing: float, vision_deg: float) -> BoolArray:
    """The cells whose centre is outside the field of vision of a creature of ``size`` at ``cell``
    (:meth:`grid.ConePredicate.mask` over the map), from the offsets' bearings when its centre is
    a cell's centre on the map (an odd size): no arctangent per cell."""
    w, h = ix.width, ix.height
    vx, vy = cell[0] + (size - 1) // 2, cell[1] + (size - 1) // 2
    if size % 2 == 0 or not (0 <= vx < w and 0 <= vy < h):
        return ConePredicate(footprint_center(cell, size), facing, vision_deg, 1).mask(0, 0, w, h)
    bearing = ix.offsets.bearing()[h - 1 - vy : 2 * h - 1 - vy, w - 1 - vx : 2 * w - 1 - vx]
    diff = np.abs(bearing - facing)
    if not 0.0 <= facing < 360.0:
        diff %= 360.0  # for a facing in [0, 360) the difference already is below 360: same values
    diff = np.minimum(diff, 360.0 - diff)
    out: BoolArray = diff > vision_deg / 2.0 + _EPS
    out[vy, vx] = False  # the creature's own centre is never outside
    return out


def _cells(mask: BoolArray) -> frozenset[Cell]:
    ys, xs = np.nonzero(mask)
    return frozenset(zip(xs.tolist(), ys.tolist(), strict=True))


def _point_view(ix: _Index, cell: Cell) -> BoolArray:
    """``(height, width)``: the cells whose centre the centre of ``cell`` sees (no cone)."""
    w, h = ix.width, ix.height
    vx, vy = cell
    seen = np.zeros((h, w), dtype=np.bool_)
    seen[vy, vx] = True
    blockers = ix.blockers(bool(ix.wall_grid[vy, vx]))
    own = vy * w + vx
    keep = blockers.owner != own  # a line's own end cells never block
    ax, ay, bx, by = blockers.ax[keep], blockers.ay[keep], blockers.bx[keep], blockers.by[keep]
    closed, owner = blockers.closed[keep], blockers.owner[keep]
    if ax.size == 0:
        return np.ones((h, w), dtype=np.bool_)
    px, py = vx + 0.5, vy + 0.5
    dist = ix.dist[h - 1 - vy : 2 * h - 1 - vy, w - 1 - vx : 2 * w - 1 - vx]
    on = (
        closed
        & (_orient(ax, ay, bx, by, px, py) == 0)
        & (np.minimum(ax, bx) <= px)
        & (px <= np.maximum(ax, bx))
        & (np.minimum(ay, by) <= py)
        & (py <= np.maximum(ay, by))
    )
    if on.any():
        return seen  # a barrier through the viewer's centre meets every line from it

    nbins, bin_width = ix.nbins, ix.bin_width
    # Each blocker's angular interval [lo, hi] as seen from the viewer (less than half a turn).
    rax, ray, rbx, rby = ax - px, ay - py, bx - px, by - py
    alpha_a = np.arctan2(ray, rax)
    alpha_b = np.arctan2(rby, rbx)
    turn = (alpha_b - alpha_a + math.pi) % (2 * math.pi) - math.pi
    lo = np.where(turn >= 0, alpha_a, alpha_b)
    hi = lo + np.abs(turn)
    b0 = np.floor((lo - _ANGLE_EPS + math.pi) / bin_width).astype(np.int64)
    b1 = np.floor((hi + _ANGLE_EPS + math.pi) / bin_width).astype(np.int64)
    counts = b1 - b0 + 1
    j = np.repeat(np.arange(counts.size), counts)
    k = np.arange(j.size) - np.repeat(np.cumsum(counts) - counts, counts)
    b = b0[j] + k
    theta0 = b * bin_width - math.pi
    theta1 = theta0 + bin_width
    # A blocker spans a bin when every ray of the bin meets its open interior.
    full = (lo[j] < theta0 - _ANGLE_EPS) & (theta1 + _ANGLE_EPS < hi[j])

    # Nearest any blocker comes: to the segment at all (a safe bound) ...
    sx, sy = bx - ax, by - ay
    ss = sx * sx + sy * sy
    u = np.clip(-(rax * sx + ray * sy) / ss, 0.0, 1.0)
    dseg = np.hypot(rax + u * sx, ray + u * sy)
    near = dseg[j] * (1 - _REL) - _REL
    far = np.full(j.shape, np.inf)
    bins = b % nbins
    if full.any():
        # ... and where it spans the bin, exactly: along a ray at angle t the line is met at
        # h(t) = cross(a, s) / cross(u_t, s), convex in t; least at the foot of the perpendicular.
        # What depends on the blocker alone is worked out per blocker, the bins' edges come from
        # a table: no trigonometry per (blocker, bin) pair (rounding differs by far less than _REL).
        cross_b = rax * sy - ray * sx
        along = -(rax * sx + ray * sy) / ss  # the perpendicular's foot on the line
        foot_b = np.arctan2(ray + along * sy, rax + along * sx)
        perp_b = np.abs(cross_b) / np.sqrt(ss)
        fj, fb = j[full], bins[full]
        cos, sin = ix.offsets.edges()
        cross_as, fsx, fsy = cross_b[fj], sx[fj], sy[fj]
        h0 = cross_as / (cos[fb] * fsy - sin[fb] * fsx)
        h1 = cross_as / (cos[fb + 1] * fsy - sin[fb + 1] * fsx)
        # The foot's bin, or both bins when it is on their common edge (taking the foot's distance
        # for a bin it is not in only lowers a lower bound).
        foot_lo = np.floor((foot_b - _ANGLE_EPS + math.pi) / bin_width).astype(np.int64) % nbins
        foot_hi = np.floor((foot_b + _ANGLE_EPS + math.pi) / bin_width).astype(np.int64) % nbins
        inside = (fb == foot_lo[fj]) | (fb == foot_hi[fj])
        least = np.minimum(np.minimum(h0, h1), np.where(inside, perp_b[fj], np.inf))
        near[full] = np.maximum(near[full], least * (1 - _REL) - _REL)
        far[full] = np.maximum(h0, h1) * (1 + _REL) + _REL
    nearest = np.full(nbins, np.inf)
    np.minimum.at(nearest, bins, near)
    cover = np.full(nbins, np.inf)
    np.minimum.at(cover, bins[full], far[full])

    tb = ix.bins[h - 1 - vy : 2 * h - 1 - vy, w - 1 - vx : 2 * w - 1 - vx]
    seen |= dist < np.take(nearest, tb)
    unsure = ~seen & (dist <= np.take(cover, tb))
    ys, xs = np.nonzero(unsure)
    if ys.size:
        # The cells between the bounds: each against every blocker filed in its bin.
        order = np.argsort(bins.astype(np.int16), kind="stable")  # small integers: a radix sort
        per_bin = np.bincount(bins, minlength=nbins)
        first = np.cumsum(per_bin) - per_bin
        tbin = tb[ys, xs]
        n = per_bin[tbin]
        ti = np.repeat(np.arange(ys.size), n)
        pos = np.arange(ti.size) - np.repeat(np.cumsum(n) - n, n) + np.repeat(first[tbin], n)
        bj = j[order[pos]]
        tx, ty = xs[ti] + 0.5, ys[ti] + 0.5
        hit = _blocks(px, py, tx, ty, ax[bj], ay[bj], bx[bj], by[bj], closed[bj])
        hit &= owner[bj] != ys[ti] * w + xs[ti]
        hidden = np.bincount(ti[hit], minlength=ys.size) > 0
        seen[ys[~hidden], xs[~hidden]] = True
    return seen


def _blocks(
    px: float,
    py: float,
    qx: Any,
    qy: Any,
    ax: Any,
    ay: Any,
    bx: Any,
    by: Any,
    closed: BoolArray,
) -> BoolArray:
    """Whether each line ``p``-``q`` is blocked by its blocker: a closed barrier when they meet
    at all (as :func:`terrain.segments_cross`), an open wall diagonal only when they cross inside
    both (or run along each other for a stretch)."""
    meets = _segments_cross_many(px, py, qx, qy, ax, ay, bx, by)
    o1 = np.sign(_orient(ax, ay, bx, by, px, py))
    o2 = np.sign(_orient(ax, ay, bx, by, qx, qy))
    o3 = np.sign(_orient(px, py, qx, qy, ax, ay))
    o4 = np.sign(_orient(px, py, qx, qy, bx, by))
    rx, ry = qx - px, qy - py
    da = (ax - px) * rx + (ay - py) * ry
    db = (bx - px) * rx + (by - py) * ry
    along = (o1 == 0) & (o2 == 0) & (np.maximum(da, db) > 0) & (np.minimum(da, db) < rx * rx + ry * ry)
    crosses = ((o1 * o2) < 0) & ((o3 * o4) < 0)
    out: BoolArray = np.where(closed, meets, crosses | along)
    return out


def points_seen(
    grid_map: GridMap, origin: tuple[float, float], xs: FloatArray, ys: FloatArray, chunk: int = 200_000
) -> BoolArray:
    """Whether the point ``origin`` sees each point ``(xs[i], ys[i])`` (cell units): no barrier
    meets the line and no wall cell's open interior lies across it, with :func:`sees`'s arithmetic.
    An area effect's origin may lie on a cell's corner or edge, so a line starts a hair's breadth
    from it towards its end: a wall the origin sits on stops what lies beyond it, not what lies on
    the origin's side. Only the blockers inside the box round the origin and the points are tested
    (an area is small beside a map), ``chunk`` pairs at a time."""
    terrain = map_terrain(grid_map)
    ix = _index(terrain)
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    out = np.ones(xs.shape, dtype=np.bool_)
    if xs.size == 0:
        return out
    ox, oy = float(origin[0]), float(origin[1])
    w = ix.width
    on_wall = False
    for cx in {math.floor(ox), math.ceil(ox) - 1}:
        for cy in {math.floor(oy), math.ceil(oy) - 1}:
            if 0 <= cx < w and 0 <= cy < ix.height and ix.wall_grid[cy, cx]:
                on_wall = True
    blockers = ix.blockers(on_wall)
    lo_x, hi_x = min(ox, float(xs.min())), max(ox, float(xs.max()))
    lo_y, hi_y = min(oy, float(ys.min())), max(oy, float(ys.max()))
    near = (
        (np.maximum(blockers.ax, blockers.bx) >= lo_x - _EPS)
        & (np.minimum(blockers.ax, blockers.bx) <= hi_x + _EPS)
        & (np.maximum(blockers.ay, blockers.by) >= lo_y - _EPS)
        & (np.minimum(blockers.ay, blockers.by) <= hi_y + _EPS)
    )
    if not near.any():
        return out
    ax, ay, bx, by = blockers.ax[near], blockers.ay[near], blockers.bx[near], blockers.by[near]
    closed, owner = blockers.closed[near], blockers.owner[near]
    # The origin's own cells (those it lies in or on the edge of) never block it, as a viewer's own cell.
    mine = [cy * w + cx for cx in {math.floor(ox), math.ceil(ox) - 1} for cy in {math.floor(oy), math.ceil(oy) - 1}]
    keep = ~np.isin(owner, mine)
    ax, ay, bx, by, closed, owner = ax[keep], ay[keep], bx[keep], by[keep], closed[keep], owner[keep]
    if ax.size == 0:
        return out
    length = np.hypot(xs - ox, ys - oy)
    safe = np.where(length > 0, length, 1.0)
    px = ox + (xs - ox) / safe * 1e-6
    py = oy + (ys - oy) / safe * 1e-6
    target_cell = np.floor(ys).astype(np.int64) * w + np.floor(xs).astype(np.int64)
    step = max(1, chunk // ax.size)
    for start in range(0, xs.size, step):
        sl = slice(start, start + step)
        hit = _blocks(
            px[sl, None], py[sl, None], xs[sl, None], ys[sl, None], ax[None], ay[None], bx[None], by[None], closed[None]
        )
        hit &= owner[None] != target_cell[sl, None]
        out[sl] = ~hit.any(axis=1)
    out[length == 0] = True
    return out


# --------------------------------------------------------------------------------------------
# Public: what the Party sees, and where a creature is out of another's sight
# --------------------------------------------------------------------------------------------


class MaskCells(Set[Cell]):
    """The cells of a ``(height, width)`` mask as a read-only set: membership costs one look-up,
    however many cells there are; iterating makes the cells."""

    __slots__ = ("_len", "mask")

    def __init__(self, mask: BoolArray) -> None:
        self.mask = mask
        self._len: int | None = None

    def __contains__(self, cell: object) -> bool:
        if not isinstance(cell, tuple) or len(cell) != 2:
            return False
        x, y = cell
        if not isinstance(x, Integral) or not isinstance(y, Integral):
            return False  # as in a set of cells: only whole numbers can be there
        h, w = self.mask.shape
        return 0 <= x < w and 0 <= y < h and bool(self.mask[y, x])

    def __iter__(self) -> Iterator[Cell]:
        ys, xs = np.nonzero(self.mask)
        return iter(zip(xs.tolist(), ys.tolist(), strict=True))

    def __len__(self) -> int:
        if self._len is None:
            self._len = int(np.count_nonzero(self.mask))
        return self._len

    def __repr__(self) -> str:
        return f"MaskCells({len(self)} cells)"


class PartyView:
    """What the Party sees in one state (:func:`party_sight`): a read-only mask, and its cells."""

    __slots__ = ("cells", "mask")

    def __init__(self, mask: BoolArray) -> None:
        mask.flags.writeable = False
        self.mask = mask
        self.cells = MaskCells(mask)


Eye = tuple[str, Cell, float, bool, int, bool, int]
"""One creature's eyes for :func:`eyes_sight`: (id, cell, facing, hidden, size, down, vision in degrees)."""


def eyes_sight(grid_map: GridMap, eyes: tuple[Eye, ...], cones: bool) -> PartyView:
    """What a group of creatures sees together on ``grid_map`` (the Party's eyes: :mod:`core.engine.party_view`),
    worked out once per state of the map and the eyes however many ask. The mask is the OR of each
    creature's cached view, so a move works out the moved creature's view only. A hidden or down
    creature sees nothing for the group; ``cones``: each sees within its field of vision (facing)."""
    # The index lives on the map's terrain: keyed there, the state's map is the map itself.
    ix = _index(map_terrain(grid_map))
    key = (cones, eyes)
    found = ix.party.get(key)
    if found is not None:
        ix.party.move_to_end(key)
        return found
    bits = np.zeros((ix.height, (ix.width + 7) // 8), dtype=np.uint8)
    for _cid, cell, facing, hidden, size, down, vision_deg in eyes:
        if not hidden and not down:
            bits |= _packed_view(ix, cell, size, facing if cones else None, vision_deg)
    found = PartyView(_unpacked(bits, ix.width))
    ix.party[key] = found
    while len(ix.party) > _PARTY_KEEP:
        ix.party.popitem(last=False)
    return found


def mask_cells(mask: BoolArray) -> frozenset[Cell]:
    """The cells a ``(height, width)`` mask holds."""
    return _cells(mask)


@dataclass(frozen=True)
class UnseenPredicate(ConePredicate):
    """``allowed`` predicate for :func:`movement.reachable`: anchors where a mover of ``mover_size``
    is out of a viewer's sight, outside its field of vision or behind walls, segments and closed
    doors (what a sneak attack's approach needs at every point of the path, where the ruleset checks it)."""

    terrain: Terrain | None = None
    viewer_anchor: Cell = (0, 0)
    viewer_size: int = 1

    def __call__(self, cell: Cell) -> bool:
        if super().__call__(cell):
            return True
        assert self.terrain is not None
        return terrain_blocker(self.terrain, self.viewer_anchor, self.viewer_size, cell, self.mover_size) is not None

    def mask(self, x0: int, y0: int, width: int, height: int) -> BoolArray:
        out = super().mask(x0, y0, width, height)
        assert self.terrain is not None
        view = _view(_index(self.terrain), self.viewer_anchor, self.viewer_size, None, 360)
        m = self.mover_size
        seen = _footprint_any(_window_slice(view, x0, y0, width + m - 1, height + m - 1, False), m)
        result: BoolArray = out | ~seen
        return result


def cells_unseen(
    grid_map: GridMap,
    viewer_anchor: Cell,
    viewer_size: int,
    facing_deg: float,
    fov_deg: float,
    mover_size: int,
) -> UnseenPredicate:
    """Like :func:`movement.cells_outside_cone`, and anchors hidden from the viewer by walls, wall
    segments and closed doors count too (the sneak attack's "out of the target's sight")."""
    return UnseenPredicate(
        footprint_center(viewer_anchor, viewer_size),
        facing_deg,
        fov_deg,
        mover_size,
        map_terrain(grid_map),
        viewer_anchor,
        viewer_size,
    )


def out_of_sight(
    grid_map: GridMap,
    viewer_anchor: Cell,
    viewer_size: int,
    cells: Iterable[Cell],
    mover_size: int,
) -> list[str | None]:
    """For each anchor, what hides a mover of ``mover_size`` there from the viewer (None: seen)."""
    terrain = map_terrain(grid_map)
    return [terrain_blocker(terrain, viewer_anchor, viewer_size, c, mover_size) for c in cells]

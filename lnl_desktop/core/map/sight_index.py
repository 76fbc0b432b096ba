"""What sight keeps per map: the blockers, the offsets' angles and distances, and the views it
worked out (each creature's, and a group's), so a move costs the moved creature's view only.

Pure Python plus numpy, no Qt; :mod:`.sight` (one line) and :mod:`.visibility` (what a creature
sees) read it. Per map it keeps the blockers as segments (barriers, and the two open diagonals of
each wall cell that is not buried in other wall cells: a line enters a square's open interior
exactly when it crosses one of them inside the square), a table of the angle and distance of every
cell offset (filled round the viewers asked about, a tile at a time), and the barriers filed by
the 8 x 8 buckets they cross (for single lines).

A map never changes, and a door opened or a wall drawn makes a new one: its tables take over
what did not change from the last map of its size (the offsets table is shared by all maps of
one size, the wall cells' diagonals by those with the same wall cells); only the barriers are
new. Each creature's view is cached on its map, as bits (bounded; only the latest few maps keep
theirs), and so is the Party's (:class:`PartyView`, a few states of it).
"""

from __future__ import annotations

import contextlib
import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Set
from dataclasses import dataclass
from numbers import Integral
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.terrain import Terrain, _boxes
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as _numpy
    import numpy.typing as npt

    from lnl_desktop.core.map.grid import BoolArray

    FloatArray = npt.NDArray[_numpy.float64]
    IntArray = npt.NDArray[_numpy.int64]
    Int16Array = npt.NDArray[_numpy.int16]
    UInt8Array = npt.NDArray[_numpy.uint8]

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


_BUCKET = 8  # cells per side of the buckets that file barriers for single lines


@dataclass
class _Blockers:
    """Segments that block lines, as parallel arrays: barriers (closed) first, then wall diagonals (open)."""

    ax: FloatArray
    ay: FloatArray
    bx: FloatArray
    by: FloatArray
    closed: BoolArray
    owner: IntArray  # flat index y * width + x of a diagonal's wall cell; -1 for a barrier


_TILE = 128  # rows and columns per tile of the offsets' tables, filled as viewers first need them
# Tables up to this many offsets (a 600 x 600 map; 20-30 ms) are filled whole at the first view, at
# the opening's first fog: a tile filled at a Party move instead was a 10-20 ms stall on that move.
_WHOLE = 1_500_000


class _Tiles:
    """One table over every cell offset of a ``w`` x ``h`` map (``(2h - 1, 2w - 1)``, offset
    ``(0, 0)`` at ``[h - 1, w - 1]``), filled a tile at a time when a viewer's window first needs
    it: the 1999 x 1999 offsets of a 1000 x 1000 map cost a second to work out whole, and the
    Party's first views need the tiles round one window of them. ``fill(dy, dx, out)`` writes the
    values of the offsets ``dy`` (a column) by ``dx`` (a row) into ``out``, each value from its
    own offset alone, so a tile holds what the whole table would."""

    __slots__ = ("_done", "_fill", "_lock", "height", "table", "width")

    def __init__(self, w: int, h: int, dtype: type, fill: Callable[[FloatArray, FloatArray, Any], None]) -> None:
        self.width, self.height = w, h
        # Untouched pages of an empty array take no memory: only the tiles worked out do.
        self.table: Any = np.empty((2 * h - 1, 2 * w - 1), dtype=dtype)
        self._done = np.zeros(((2 * h - 2) // _TILE + 1, (2 * w - 2) // _TILE + 1), dtype=np.bool_)
        self._fill = fill
        self._lock = threading.Lock()  # a worker may work a view out while the GUI thread does another

    def window(self, vx: int, vy: int) -> Any:
        """The ``(h, w)`` slice of the table a viewer at ``(vx, vy)`` reads: ``[y, x]`` is the offset
        from the viewer to the cell ``(x, y)``."""
        w, h = self.width, self.height
        r0, c0 = h - 1 - vy, w - 1 - vx
        ty0, ty1 = r0 // _TILE, (r0 + h - 1) // _TILE
        tx0, tx1 = c0 // _TILE, (c0 + w - 1) // _TILE
        if self.table.size <= _WHOLE:  # filled whole at the first view: no tile left for a later move to fill
            ty0, ty1, tx0, tx1 = 0, self._done.shape[0] - 1, 0, self._done.shape[1] - 1
        if not self._done[ty0 : ty1 + 1, tx0 : tx1 + 1].all():
            with self._lock:
                for ty in range(ty0, ty1 + 1):
                    self._fill_band(ty, tx0, tx1)
        return self.table[r0 : r0 + h, c0 : c0 + w]

    def _fill_band(self, ty: int, tx0: int, tx1: int) -> None:
        """The missing tiles of row band ``ty`` from column tile ``tx0`` to ``tx1``, each run of
        them in one go."""
        done = self._done[ty]
        tx = tx0
        while tx <= tx1:
            if done[tx]:
                tx += 1
                continue
            end = tx
            while end + 1 <= tx1 and not done[end + 1]:
                end += 1
            rows = slice(ty * _TILE, min((ty + 1) * _TILE, self.table.shape[0]))
            cols = slice(tx * _TILE, min((end + 1) * _TILE, self.table.shape[1]))
            dy = np.arange(rows.start - (self.height - 1), rows.stop - (self.height - 1), dtype=np.float64)
            dx = np.arange(cols.start - (self.width - 1), cols.stop - (self.width - 1), dtype=np.float64)
            self._fill(dy[:, np.newaxis], dx[np.newaxis, :], self.table[rows, cols])
            done[tx : end + 1] = True  # only once written: another thread reads a tile marked done
            tx = end + 1


class _Offsets:
    """Angle bin and distance of every cell offset: depends on the map's size
    only, so every map of one size shares one (a door opened or a wall drawn makes a new map, not
    new offsets). Each table is filled round the viewers that ask (:class:`_Tiles`)."""

    __slots__ = ("__weakref__", "_bins", "_dist", "_edges", "bin_width", "nbins", "size")

    def __init__(self, w: int, h: int) -> None:
        self.size = (w, h)
        # Angular bins per viewing point: fewer bins file each blocker in fewer places, more leave
        # fewer cells between the bounds; 8 per cell of the map's longer side balances the two.
        self.nbins = nbins = min(4096, max(256, 8 * max(w, h)))
        self.bin_width = bin_width = 2.0 * math.pi / nbins

        def distance(dy: FloatArray, dx: FloatArray, out: FloatArray) -> None:
            np.hypot(dx, dy, out=out)

        def angle_bin(dy: FloatArray, dx: FloatArray, out: Int16Array) -> None:
            # The angle (radians, atan2 in screen axes) and its bin; at most 4096 bins: int16.
            angle = np.arctan2(dy, dx)
            angle += math.pi
            angle /= bin_width
            np.floor(angle, out=angle)
            out[...] = angle
            out %= nbins

        self._dist = _Tiles(w, h, np.float64, distance)
        self._bins = _Tiles(w, h, np.int16, angle_bin)
        self._edges: tuple[FloatArray, FloatArray] | None = None

    # Offsets depend on the map's size only and are shared by every map of it: a copy of a map (a
    # deep copy of an encounter) shares them too, and a pickled one finds them again by its size
    # (their tiles' lock is not to be copied).
    def __deepcopy__(self, memo: dict[int, Any]) -> _Offsets:
        return self

    def __copy__(self) -> _Offsets:
        return self

    def __reduce__(self) -> tuple[Any, tuple[int, int]]:
        return _offsets, self.size

    def dist(self, vx: int, vy: int) -> FloatArray:
        """``(h, w)``: the distance (cells, centre to centre) from the viewer at ``(vx, vy)`` to each cell."""
        found: FloatArray = self._dist.window(vx, vy)
        return found

    def bins(self, vx: int, vy: int) -> Int16Array:
        """``(h, w)``: the angular bin of each cell as the viewer at ``(vx, vy)`` sees it."""
        found: Int16Array = self._bins.window(vx, vy)
        return found

    def edges(self) -> tuple[FloatArray, FloatArray]:
        """Cosine and sine of each bin's edges: bin ``i`` runs from edge ``i`` to edge ``i + 1``."""
        if self._edges is None:
            theta = np.arange(self.nbins + 1, dtype=np.float64) * self.bin_width - math.pi
            self._edges = (np.cos(theta), np.sin(theta))
        return self._edges


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
    """What the Party sees in one state (:func:`visibility.eyes_sight`): a read-only mask, and its cells."""

    __slots__ = ("cells", "mask")

    def __init__(self, mask: BoolArray) -> None:
        mask.flags.writeable = False
        self.mask = mask
        self.cells = MaskCells(mask)


# A block taken and given back untouched (warm_heap): bigger than a 1000 x 1000 map's float64 arrays, under
# the most glibc takes as its mmap threshold (32 MB, the block's own bookkeeping counted); and the heap's
# pages faulted in ahead, kept by the C library for the next arrays (under its trim threshold, twice that).
_HEAP_BLOCK = 16 * 1024 * 1024
_HEAP_TOUCHED = 8 * 1024 * 1024
_heap_warmed = False


def warm_heap() -> None:
    """Once, at an idle moment: the C library's malloc made to serve the map's big arrays from pages of
    its heap faulted in now. glibc hands out a block over its mmap threshold (128 kB at first) as a fresh
    mapping whose pages fault in one by one at first touch and go back to the system when freed; it
    raises the threshold to the largest such block freed (32 MB at most). Until a block as big as a
    view's temporaries (hundreds of kB each on a 300 x 300 map) had come and gone, each of them did so:
    the first Party move of a table on an open 300 x 300 map worked its view out in 4.3 ms instead of
    1.7 (10.5 to 8 ms CPU the move). A block taken and freed untouched raises the threshold; one of
    8 MB written to and freed leaves that much of the heap faulted in, kept for the next arrays.
    Elsewhere (another C library) two blocks taken and freed, harmless."""
    global _heap_warmed
    if _heap_warmed:
        return
    _heap_warmed = True
    block = np.empty(_HEAP_BLOCK, dtype=np.uint8)  # never touched: no page of it is ever faulted in
    del block
    block = np.ones(_HEAP_TOUCHED, dtype=np.uint8)  # from the heap now, every page written
    del block

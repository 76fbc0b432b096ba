"""The map's terrain: wall cells, difficult cells, and barriers (wall lines and closed doors).

Pure Python plus numpy, no Qt; coordinates as in :mod:`lnl_desktop.core.map.grid`.

Walls come in two kinds. Wall *cells* are filled squares that nobody enters (a Leap passes over
them). *Barriers* are lines between points in cell units (drawn wall segments and closed doors):
a step between two cells is blocked when the barrier crosses the straight line between the two
cells' centres, ends and touching points included (:func:`segments_cross`), so a diagonal step
round the very end of a wall, or through a doorway's jamb, is blocked and takes two orthogonal
steps instead. A token moves as a block: a step of a larger token is blocked when any of its
cells' steps is. Barriers block even a Leap: they are walls between rooms, not rubble. The
per-direction "blocked step" masks are computed once per terrain (:attr:`Terrain.barrier_steps`).
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from lnl_desktop.core.map.grid import Cell, DiagonalRule
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy.typing as npt

    from lnl_desktop.core.map.grid import BoolArray, FloatArray

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


def _cells_to_grid(cells: Collection[Cell], width: int, height: int) -> BoolArray:
    grid = np.zeros((height, width), dtype=np.bool_)
    # fromiter over the flattened pairs is several times faster than np.array(list(...)).
    flat = itertools.chain.from_iterable(cells)
    coords = np.fromiter(flat, dtype=np.intp, count=2 * len(cells)).reshape(-1, 2)
    if coords.size:
        # Cells outside the map cannot matter to movement; drop them instead of failing.
        keep = (coords[:, 0] >= 0) & (coords[:, 0] < width) & (coords[:, 1] >= 0) & (coords[:, 1] < height)
        coords = coords[keep]
        grid[coords[:, 1], coords[:, 0]] = True
    grid.flags.writeable = False  # shared by every search on this terrain
    return grid


Point = tuple[float, float]

# The four steps whose reverse is the other four: a step and its reverse cross the same line.
_HALF_STEPS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, 1), (1, -1))


def point_words(p: Point) -> str:
    """A point as the log writes it: ``(3, 0)``, ``(2.5, 4)``."""
    return f"({p[0]:g}, {p[1]:g})"


def _boxes(
    x0: npt.NDArray[np.int64], x1: npt.NDArray[np.int64], y0: npt.NDArray[np.int64], y1: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every (box index, x, y) of the boxes ``[x0, x1] x [y0, y1]`` (empty boxes give nothing)."""
    nx = np.maximum(x1 - x0 + 1, 0)
    ny = np.maximum(y1 - y0 + 1, 0)
    counts = nx * ny
    box = np.repeat(np.arange(len(counts)), counts)
    if not box.size:
        empty = np.zeros(0, dtype=np.int64)
        return box, empty, empty
    first = np.cumsum(counts) - counts
    k = np.arange(box.size) - first[box]
    return box, x0[box] + k % nx[box], y0[box] + k // nx[box]


@dataclass(frozen=True)
class Barrier:
    """A line that blocks steps and sight: a wall segment, or a door while it is closed.

    Points are in cells: ``(0, 0)`` is the map's top-left corner, a cell's centre is at ``+0.5``.
    """

    a: Point
    b: Point
    door: bool = False

    @property
    def name(self) -> str:
        """'the wall from (3, 0) to (3, 5)' or 'the closed door at (4, 2)–(5, 2)'."""
        if self.door:
            return f"the closed door at {point_words(self.a)}–{point_words(self.b)}"
        return f"the wall from {point_words(self.a)} to {point_words(self.b)}"


class Barriers(Sequence[Barrier]):
    """Barriers kept as one read-only ``(n, 4)`` array of their ends ``(ax, ay, bx, by)`` and which
    rows are doors: a map's 100,000 wall segments need no 100,000 objects. A :class:`Barrier` is
    made when one is asked for (to name the wall a step or a sight line meets). Equal to the tuple
    of its barriers, and sliced and joined (``+``) as a tuple is."""

    __slots__ = ("_items", "_made", "doors", "lines")

    def __init__(self, lines: FloatArray, doors: BoolArray) -> None:
        lines.flags.writeable = False  # shared with the terrain's barrier_lines
        doors.flags.writeable = False
        self.lines = lines
        self.doors = doors
        self._items: tuple[Barrier, ...] | None = None
        self._made: dict[int, Barrier] = {}  # those asked for one by one (a sight line's candidates, again and again)

    def __len__(self) -> int:
        return int(self.lines.shape[0])

    def _item(self, index: int) -> Barrier:
        made = self._made.get(index)
        if made is None:
            ax, ay, bx, by = self.lines[index].tolist()  # Python floats, as float() makes them
            made = self._made[index] = Barrier((ax, ay), (bx, by), door=bool(self.doors[index]))
        return made

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            if index.step in (None, 1):
                return Barriers(self.lines[index], self.doors[index])
            return tuple(self)[index]
        index = range(len(self))[index]  # IndexError and negative indices as a tuple's
        return self._items[index] if self._items is not None else self._item(index)

    def __iter__(self) -> Iterator[Barrier]:
        if self._items is None:  # every one wanted: made once
            self._items = tuple(self._item(i) for i in range(len(self)))
            self._made = {}
        return iter(self._items)

    @staticmethod
    def of(barriers: Sequence[Barrier]) -> Barriers:
        """``barriers`` (Barriers, or a tuple of them) as Barriers."""
        if isinstance(barriers, Barriers):
            return barriers
        return Barriers(_lines(barriers), np.array([b.door for b in barriers], dtype=np.bool_))

    def __add__(self, other: Sequence[Barrier]) -> Barriers:
        if not isinstance(other, Barriers | tuple):
            return NotImplemented
        other = Barriers.of(other)
        return Barriers(np.concatenate((self.lines, other.lines)), np.concatenate((self.doors, other.doors)))

    def __radd__(self, other: Sequence[Barrier]) -> Barriers:
        if not isinstance(other, tuple):
            return NotImplemented
        return Barriers.of(other) + self

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Barriers):
            return bool(np.array_equal(self.lines, other.lines) and np.array_equal(self.doors, other.doors))
        if isinstance(other, tuple | list):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Barriers({len(self)} lines, {int(self.doors.sum())} doors)"


ARRAY_BARRIERS = 1000  # from this many barriers, kept as arrays (Barriers); fewer, as a tuple, without numpy


def barriers_of(segments: Iterable[Any], doors: Iterable[Any] = ()) -> Sequence[Barrier]:
    """The barriers of a map's wall segments and doors (objects with ``a``, ``b``; doors ``open``):
    every segment, and every door that is closed. A tuple of :class:`Barrier`, or from
    :data:`ARRAY_BARRIERS` of them, :class:`Barriers` (equal to that tuple)."""
    segments = segments if isinstance(segments, Sequence) else list(segments)
    closed = [d for d in doors if not d.open]
    count = len(segments) + len(closed)
    if count < ARRAY_BARRIERS:  # a small map's: no numpy (the first window does not load it)

        def point(p: Any) -> Point:
            return (float(p[0]), float(p[1]))

        lines = [Barrier(point(s.a), point(s.b)) for s in segments]
        lines += [Barrier(point(d.a), point(d.b), door=True) for d in closed]
        return tuple(lines)
    ends = itertools.chain.from_iterable((s.a[0], s.a[1], s.b[0], s.b[1]) for s in itertools.chain(segments, closed))
    lines = np.fromiter(ends, np.float64, 4 * count).reshape(count, 4)
    door = np.zeros(count, dtype=np.bool_)
    door[len(segments) :] = True
    return Barriers(lines, door)


# The last terrain built per map size (weakly): the next map of that size, usually the same map
# with a door opened or a wall drawn, takes over what did not change (:meth:`Terrain.take_over`).
class GridMap(Protocol):
    """What the map's searches read of an encounter's map (``core.encounter.model.MapGrid``): the map
    sits below the encounter and names it by what it reads."""

    width: int
    height: int
    feet_per_cell: int
    diagonal: DiagonalRule
    walls: frozenset[Cell]
    difficult: frozenset[Cell]
    segments: tuple[Any, ...]
    doors: tuple[Any, ...]


_LATEST_TERRAIN: weakref.WeakValueDictionary[tuple[int, int], Terrain] = weakref.WeakValueDictionary()


def map_terrain(grid_map: GridMap) -> Terrain:
    """The terrain of a map (a ``model.MapGrid``) with its barriers, cached on the map.

    ``MapGrid.terrain`` caches its terrain in the map's ``__dict__``; this puts one with the map's
    segments and closed doors there (once per map: maps are immutable), so every search of the
    map, the engine's and the views', respects them. A door opened or a wall drawn makes a new map:
    its terrain takes over from the last one of the same size what did not change.
    """
    kept = grid_map.__dict__
    cached = kept.get("terrain")
    # A map never changes, but ``model_copy`` copies the cached terrain into the copy: only a
    # terrain built for this very map object (while it lives, no other object has its id) is its own.
    if isinstance(cached, Terrain) and kept.get("_terrain_of") == id(grid_map):
        return cached
    previous = _LATEST_TERRAIN.get((grid_map.width, grid_map.height))
    segments = grid_map.segments
    theirs = previous.__dict__ if previous is not None else {}
    # A door opened or closed keeps the map's segments (the same tuple): so do their barriers.
    ahead = kept.get("_barriers_ahead")
    if theirs.get("_segments") is segments:
        walls = theirs["_segment_barriers"]
    elif ahead is not None and ahead[0] is segments:
        walls = ahead[1]
    else:
        walls = barriers_of(segments)
    terrain = Terrain(
        grid_map.width,
        grid_map.height,
        grid_map.walls,
        grid_map.difficult,
        walls + barriers_of((), grid_map.doors),
    )
    terrain.__dict__["_segments"] = segments
    terrain.__dict__["_segment_barriers"] = walls
    if previous is not None:
        terrain.take_over(previous)
    _LATEST_TERRAIN[(terrain.width, terrain.height)] = terrain
    kept["terrain"] = terrain
    kept["_terrain_of"] = id(grid_map)
    return terrain


def barriers_ahead(grid_map: Any) -> None:
    """Make the barriers of a map's segments now, for :func:`map_terrain` to take when it builds the
    map's terrain: a worker thread that made a map with many walls calls this, so the window's
    thread does not. Kept on the map with its segments (a copy of the map with other segments
    does not take them); touches nothing shared, so any thread may call it."""
    grid_map.__dict__["_barriers_ahead"] = (grid_map.segments, barriers_of(grid_map.segments))


def _orient(ax: Any, ay: Any, bx: Any, by: Any, px: Any, py: Any) -> Any:
    """Twice the signed area of the triangle a, b, p (> 0: p left of a->b in y-down screen
    terms, 0: collinear). Works on floats and numpy arrays alike, with the same operations, so a
    scalar test and a vectorised one can never disagree."""
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


def _sign(v: float) -> int:
    return (v > 0) - (v < 0)


def segments_cross(p: Point, q: Point, a: Point, b: Point) -> bool:
    """Whether the closed segments ``p``-``q`` and ``a``-``b`` meet: crossing, touching at an end
    or along a common stretch all count."""
    o1 = _sign(_orient(a[0], a[1], b[0], b[1], p[0], p[1]))
    o2 = _sign(_orient(a[0], a[1], b[0], b[1], q[0], q[1]))
    o3 = _sign(_orient(p[0], p[1], q[0], q[1], a[0], a[1]))
    o4 = _sign(_orient(p[0], p[1], q[0], q[1], b[0], b[1]))
    if o1 * o2 > 0 or o3 * o4 > 0:
        return False
    if o1 == 0 and o2 == 0:  # all four on one line: do the stretches overlap?
        rx, ry = q[0] - p[0], q[1] - p[1]
        da = (a[0] - p[0]) * rx + (a[1] - p[1]) * ry
        db = (b[0] - p[0]) * rx + (b[1] - p[1]) * ry
        return max(da, db) >= 0 and min(da, db) <= rx * rx + ry * ry
    return True


def _segments_cross_many(px: Any, py: Any, qx: Any, qy: Any, ax: Any, ay: Any, bx: Any, by: Any) -> BoolArray:
    """:func:`segments_cross` over numpy arrays (broadcast), with the same arithmetic."""
    o1 = np.sign(_orient(ax, ay, bx, by, px, py))
    o2 = np.sign(_orient(ax, ay, bx, by, qx, qy))
    o3 = np.sign(_orient(px, py, qx, qy, ax, ay))
    o4 = np.sign(_orient(px, py, qx, qy, bx, by))
    meet = (o1 * o2 <= 0) & (o3 * o4 <= 0)
    rx, ry = qx - px, qy - py
    da = (ax - px) * rx + (ay - py) * ry
    db = (bx - px) * rx + (by - py) * ry
    overlap = (np.maximum(da, db) >= 0) & (np.minimum(da, db) <= rx * rx + ry * ry)
    out: BoolArray = meet & (((o1 != 0) | (o2 != 0)) | overlap)
    return out


_PATCH_LINES = 64  # more barriers changed than this: step arrays built afresh rather than patched


def _lines(barriers: Sequence[Barrier]) -> FloatArray:
    """``(n, 4)``: the ends ``(ax, ay, bx, by)`` of each barrier."""
    return np.array([(*b.a, *b.b) for b in barriers], dtype=np.float64).reshape(-1, 4)


def _changed_lines(old: FloatArray, new: FloatArray) -> FloatArray:
    """The rows of ``old`` not in ``new`` and of ``new`` not in ``old`` (barriers that went or came)."""
    return np.concatenate((_rows_missing(old, new), _rows_missing(new, old))).reshape(-1, 4)


def _rows_missing(rows: FloatArray, among: FloatArray) -> FloatArray:
    """The rows of ``rows`` that are not rows of ``among``, compared as bytes. By sorting and
    searching, not ``np.isin``: that goes through ``np.unique``, which numpy 2 makes import
    ``numpy.ma``, a part the offline bundle leaves out."""
    if among.shape[0] == 0 or rows.shape[0] == 0:
        return rows
    row = np.dtype((np.void, 4 * rows.itemsize))
    mine = np.ascontiguousarray(rows).view(row).ravel()
    theirs = np.sort(np.ascontiguousarray(among).view(row).ravel())
    at = np.minimum(np.searchsorted(theirs, mine), theirs.size - 1)
    out: FloatArray = rows[theirs[at] != mine]
    return out


_BAND_CHUNK = 400_000  # candidate cells tested at once: bounds the temporary arrays (~100 MB)
_BAND_ROWS = 5  # cells across a slanted line's band, per cell along it


def _band(lines: FloatArray) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every (line index, x, y) of the cells from which a step of one cell could meet each line. A
    superset: the exact test decides.

    A step from cell ``(x, y)`` stays inside ``[x - 0.5, x + 1.5] x [y - 0.5, y + 1.5]``, so only the
    cells whose box meets the line's are candidates. For a slanted line that box holds the square
    of its length: there a band along it is taken instead. Along its major axis a line moves at most
    one cell across per cell, so in each column (row) it meets the step boxes of five cells at most,
    those within two cells of where it crosses the column's middle."""
    ax, ay, bx, by = lines[:, 0], lines[:, 1], lines[:, 2], lines[:, 3]
    x0 = np.ceil(np.minimum(ax, bx) - 1.5).astype(np.int64)
    x1 = np.floor(np.maximum(ax, bx) + 0.5).astype(np.int64)
    y0 = np.ceil(np.minimum(ay, by) - 1.5).astype(np.int64)
    y1 = np.floor(np.maximum(ay, by) + 0.5).astype(np.int64)
    nx, ny = x1 - x0 + 1, y1 - y0 + 1
    steep = np.abs(by - ay) > np.abs(bx - ax)  # the slope, not the boxes' sizes: at most 1 along u
    long_side = np.where(steep, ny, nx)
    by_box = nx * ny <= _BAND_ROWS * long_side
    boxed = np.flatnonzero(by_box)
    box_line, box_x, box_y = _boxes(x0[boxed], x1[boxed], y0[boxed], y1[boxed])
    banded = np.flatnonzero(~by_box)
    if not banded.size:
        return boxed[box_line], box_x, box_y
    # Along the major axis: u along it, v across it.
    steep = steep[banded]
    ua = np.where(steep, ay[banded], ax[banded])
    va = np.where(steep, ax[banded], ay[banded])
    ub = np.where(steep, by[banded], bx[banded])
    vb = np.where(steep, bx[banded], by[banded])
    u0 = np.where(steep, y0[banded], x0[banded])
    counts = long_side[banded]
    line = np.repeat(np.arange(banded.size), counts)
    first = np.cumsum(counts) - counts
    u = u0[line] + (np.arange(line.size) - first[line])
    # Where the line crosses the middle of column u (held to its ends beyond them): the step boxes
    # it meets there are those of v in [mid - 2.5, mid + 1.5].
    span = (ub - ua)[line]
    t = np.clip(np.divide(u + 0.5 - ua[line], span, out=np.zeros(line.size), where=span != 0), 0, 1)
    v0 = np.ceil(va[line] + t * (vb - va)[line] - 2.5 - 1e-9).astype(np.int64)
    line = np.repeat(line, _BAND_ROWS)
    u = np.repeat(u, _BAND_ROWS)
    v = np.repeat(v0, _BAND_ROWS) + np.tile(np.arange(_BAND_ROWS), v0.size)
    across = steep[line]
    return (
        np.concatenate((boxed[box_line], banded[line])),
        np.concatenate((box_x, np.where(across, v, u))),
        np.concatenate((box_y, np.where(across, u, v))),
    )


def _step_masks(
    lines: FloatArray,
    w: int,
    h: int,
    base: dict[tuple[int, int], BoolArray] | None = None,
    windows: Sequence[tuple[int, int, int, int]] = (),
) -> dict[tuple[int, int], BoolArray]:
    """:attr:`Terrain.barrier_steps` for the barriers ``lines``: built, or ``base``'s arrays with the
    source cells in each window ``(x0, x1, y0, y1)`` (inclusive) worked out again."""
    ax, ay, bx, by = lines[:, 0], lines[:, 1], lines[:, 2], lines[:, 3]
    line, cx, cy = _band(lines)
    keep = (cx >= 0) & (cx < w) & (cy >= 0) & (cy < h)
    if windows:
        inside = np.zeros(line.shape, dtype=np.bool_)
        for wx0, wx1, wy0, wy1 in windows:
            inside |= (cx >= wx0) & (cx <= wx1) & (cy >= wy0) & (cy <= wy1)
        keep &= inside
    line, cx, cy = line[keep], cx[keep], cy[keep]
    out: dict[tuple[int, int], BoolArray] = {}
    for dx, dy in _HALF_STEPS:
        if base is None:
            mask = np.zeros((h, w), dtype=np.bool_)
        else:
            mask = base[(dx, dy)].copy()
            for wx0, wx1, wy0, wy1 in windows:
                mask[wy0 : wy1 + 1, wx0 : wx1 + 1] = False
        # Source cells whose step stays on the map.
        ok = (cx >= max(0, -dx)) & (cx <= w - 1 - max(0, dx)) & (cy >= max(0, -dy)) & (cy <= h - 1 - max(0, dy))
        sl, sx, sy = line[ok], cx[ok], cy[ok]
        for i in range(0, sl.size, _BAND_CHUNK):
            j, x, y = sl[i : i + _BAND_CHUNK], sx[i : i + _BAND_CHUNK], sy[i : i + _BAND_CHUNK]
            px, py = x + 0.5, y + 0.5
            hit = _segments_cross_many(px, py, px + dx, py + dy, ax[j], ay[j], bx[j], by[j])
            mask[y[hit], x[hit]] = True
        back = np.zeros((h, w), dtype=np.bool_)
        # The step back from the target cell crosses the same line.
        back[max(0, dy) : h + min(0, dy), max(0, dx) : w + min(0, dx)] = mask[
            max(0, -dy) : h - max(0, dy), max(0, -dx) : w - max(0, dx)
        ]
        mask.flags.writeable = False
        back.flags.writeable = False
        out[(dx, dy)] = mask
        out[(-dx, -dy)] = back
    return out


@dataclass(frozen=True)
class Terrain:
    """The static map: its size, walls (block movement) and difficult terrain (costs double), and
    barriers (wall segments and closed doors: lines that block the steps they cross)."""

    width: int
    height: int
    walls: frozenset[Cell] = frozenset()
    difficult: frozenset[Cell] = frozenset()
    barriers: Sequence[Barrier] = ()  # a tuple, or Barriers (arrays) for a map with many: see barriers_of

    def inside(self, c: Cell) -> bool:
        """Whether a cell lies on the map."""
        return 0 <= c[0] < self.width and 0 <= c[1] < self.height

    @classmethod
    def from_rows(cls, rows: Iterable[str]) -> Terrain:
        """Build a terrain from text rows: ``#`` wall, ``~`` difficult, anything else floor."""
        lines = list(rows)
        walls: set[Cell] = set()
        difficult: set[Cell] = set()
        for y, line in enumerate(lines):
            for x, ch in enumerate(line):
                if ch == "#":
                    walls.add((x, y))
                elif ch == "~":
                    difficult.add((x, y))
        width = max((len(line) for line in lines), default=0)
        return cls(width, len(lines), frozenset(walls), frozenset(difficult))

    # cached_property writes to the instance __dict__, which a frozen dataclass allows; the grids
    # are built once per terrain so repeated searches (hovering in the UI) skip the conversion.
    @cached_property
    def wall_grid(self) -> BoolArray:
        """Read-only ``(height, width)`` boolean array of walls, indexed ``[y, x]``."""
        return _cells_to_grid(self.walls, self.width, self.height)

    @cached_property
    def difficult_grid(self) -> BoolArray:
        """Read-only ``(height, width)`` boolean array of difficult terrain, indexed ``[y, x]``."""
        return _cells_to_grid(self.difficult, self.width, self.height)

    @cached_property
    def barrier_lines(self) -> FloatArray:
        """Read-only ``(n, 4)`` array of the barriers' ends ``(ax, ay, bx, by)``, in their order."""
        if isinstance(self.barriers, Barriers):
            return self.barriers.lines
        lines = _lines(self.barriers)
        lines.flags.writeable = False
        return lines

    @cached_property
    def barrier_steps(self) -> dict[tuple[int, int], BoolArray] | None:
        """Per step ``(dx, dy)`` of the 8, a read-only ``(height, width)`` array, indexed ``[y, x]``:
        whether the step FROM that cell crosses a barrier. None when the terrain has no barriers.

        Built once per terrain: each barrier is tested against the steps of the cells around it
        only (its bounding box and one cell more), all barriers at once with numpy. A terrain that
        took over from the one before an edit (:meth:`take_over`) patches that one's arrays around
        the barriers that came or went instead."""
        base = self.__dict__.pop("_steps_base", None)
        if not self.barriers:
            return None
        lines = self.barrier_lines
        if base is not None:
            old_lines, old_steps, prefix = base  # the first ``prefix`` rows are the same in both
            changed = _changed_lines(old_lines[prefix:], lines[prefix:])
            if changed.shape[0] <= _PATCH_LINES:
                # Only the cells around the changed barriers can step differently: recompute those.
                x0 = np.clip(np.floor(np.minimum(changed[:, 0], changed[:, 2])) - 2, 0, self.width - 1)
                x1 = np.clip(np.ceil(np.maximum(changed[:, 0], changed[:, 2])) + 1, 0, self.width - 1)
                y0 = np.clip(np.floor(np.minimum(changed[:, 1], changed[:, 3])) - 2, 0, self.height - 1)
                y1 = np.clip(np.ceil(np.maximum(changed[:, 1], changed[:, 3])) + 1, 0, self.height - 1)
                windows = [tuple(int(v) for v in box) for box in zip(x0, x1, y0, y1, strict=True)]
                return _step_masks(lines, self.width, self.height, old_steps, windows)
        return _step_masks(lines, self.width, self.height)

    def build_tables(self) -> None:
        """Build now the arrays every search of this terrain uses (the wall and difficult grids,
        the barriers' step arrays), so the first drag or hover does not wait for them. numpy
        does most of the work outside the GIL: the window calls this on a worker thread when
        a map with barriers comes (``cached_property`` holds a lock while it builds in 3.11)."""
        _ = self.wall_grid, self.difficult_grid, self.barrier_steps

    def take_over(self, previous: Terrain) -> None:
        """Take from ``previous`` (the terrain of the map before an edit, of the same size) what it
        built and this one would build the same: the wall and difficult grids when those cells are
        the same, and the barriers' step arrays, to patch where barriers came or went. Only built
        arrays are taken (shared: they are read-only), never ``previous`` itself, so no chain of
        old maps stays alive."""
        if (self.width, self.height) != (previous.width, previous.height):
            return
        theirs, mine = previous.__dict__, self.__dict__
        if "wall_grid" in theirs and (previous.walls is self.walls or previous.walls == self.walls):
            mine["wall_grid"] = theirs["wall_grid"]
        same_difficult = previous.difficult is self.difficult or previous.difficult == self.difficult
        if "difficult_grid" in theirs and same_difficult:
            mine["difficult_grid"] = theirs["difficult_grid"]
        # Barriers from the same segments (a door toggled): their lines are the same rows, and only
        # the doors' rows after them can differ.
        shared = mine.get("_segment_barriers")
        same_walls = shared is not None and theirs.get("_segment_barriers") is shared
        if same_walls and "barrier_lines" in theirs and shared is not None:
            lines = np.concatenate((theirs["barrier_lines"][: len(shared)], _lines(self.barriers[len(shared) :])))
            lines.flags.writeable = False
            mine["barrier_lines"] = lines
        if theirs.get("barrier_steps") is not None:
            mine["_steps_base"] = (
                previous.barrier_lines,
                theirs["barrier_steps"],
                len(shared or ()) if same_walls else 0,
            )
        elif "_steps_base" in theirs:
            old_lines, old_steps, prefix = theirs["_steps_base"]  # never built there: from the one before it
            mine["_steps_base"] = (old_lines, old_steps, prefix if same_walls else 0)

    def barrier_across(self, cell: Cell, step: tuple[int, int]) -> Barrier | None:
        """The barrier the step from ``cell`` along ``step`` crosses (the first listed), or None."""
        steps = self.barrier_steps
        x, y = cell
        if steps is None or not self.inside(cell) or not steps[step][y, x]:
            return None
        px, py = x + 0.5, y + 0.5
        lines = self.barrier_lines  # all at once: no Barrier made but the one found
        hit = _segments_cross_many(px, py, px + step[0], py + step[1], *lines.T)
        first = np.flatnonzero(hit)
        return self.barriers[int(first[0])] if first.size else None


# Windows of a map's grids, for the movement and sight searches.


def _footprint_any(cells: BoolArray, size: int) -> BoolArray:
    """For each anchor, whether any cell of its ``size x size`` footprint is set.

    ``cells`` covers the anchors plus ``size - 1`` extra rows and columns; OR-ing shifted slices
    per axis keeps this at ``2 * size`` numpy operations.
    """
    if size == 1:
        return cells
    h = cells.shape[0] - size + 1
    w = cells.shape[1] - size + 1
    rows = cells[:, 0:w].copy()
    for k in range(1, size):
        rows |= cells[:, k : k + w]
    out = rows[0:h].copy()
    for k in range(1, size):
        out |= rows[k : k + h]
    return out


def _window_slice(grid: BoolArray, x0: int, y0: int, w: int, h: int, fill: bool) -> BoolArray:
    """A ``(h, w)`` copy of ``grid`` from ``(x0, y0)``; cells off the map are ``fill``."""
    gh, gw = grid.shape
    out = np.full((h, w), fill, dtype=np.bool_)
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(gw, x0 + w), min(gh, y0 + h)
    if cx0 < cx1 and cy0 < cy1:
        out[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0] = grid[cy0:cy1, cx0:cx1]
    return out

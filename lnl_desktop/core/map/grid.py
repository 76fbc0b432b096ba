"""Grid geometry for Laurels & Loot: distances in feet, movement, facing and field of vision.

Pure Python plus numpy, no Qt. Coordinates are ``(x, y)`` cells with ``x`` growing right and ``y``
growing DOWN (screen coordinates). A token of size ``n`` covers an ``n x n`` block of cells whose
top-left cell is its *anchor*; movement is expressed as a sequence of anchors.

Movement costs are counted in cells and converted to feet at the end. Under the default 5-10-5
rule diagonals alternate between one and two cells, and the alternation carries across a turn's
moves, so the movement search runs over ``(anchor, diagonal parity)`` states: reaching a cell more
cheaply with the "wrong" parity is not necessarily the better way to continue.

Performance: ``reachable`` must stay well under 5 ms for a 120 ft move on a 200 x 200 map. It
works on a window of anchors no farther than the budget allows and relaxes all states at once with
numpy shifts (a bounded Bellman-Ford): a path within budget has at most ``budget / 1 cell`` steps,
so that many sweeps are enough.

Walls come in two kinds. Wall *cells* are filled squares that nobody enters (a Leap passes over
them). *Barriers* are lines between points in cell units (drawn wall segments and closed doors):
a step between two cells is blocked when the barrier crosses the straight line between the two
cells' centres, ends and touching points included (:func:`segments_cross`), so a diagonal step
round the very end of a wall, or through a doorway's jamb, is blocked and takes two orthogonal
steps instead. A token moves as a block: a step of a larger token is blocked when any of its
cells' steps is. Barriers block even a Leap: they are walls between rooms, not rubble. The
per-direction "blocked step" masks are computed once per terrain (:attr:`Terrain.barrier_steps`).

Angles are compass bearings in degrees: 0 = north (-y), 90 = east (+x), clockwise.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any

from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as _numpy
    import numpy.typing as npt

    BoolArray = npt.NDArray[_numpy.bool_]
    FloatArray = npt.NDArray[_numpy.float64]

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


Cell = tuple[int, int]


_INF = math.inf
# "Unreachable" in int32 cost tables; sums of a few of these still fit in 31 bits.
_BIG = 2**28
# Float tolerance for budget and equality checks: Euclidean costs are sums of sqrt(2).
_EPS = 1e-9
_SQRT2 = math.sqrt(2.0)

# (dx, dy) of the 8 neighbours, orthogonals first so path reconstruction prefers straight steps.
_ORTHOGONAL: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL: tuple[tuple[int, int], ...] = ((1, 1), (-1, 1), (1, -1), (-1, -1))
_STEPS = _ORTHOGONAL + _DIAGONAL


class DiagonalRule(StrEnum):
    """How much a diagonal step costs."""

    ALTERNATING = "5-10-5"  # 1st diagonal of the turn costs 1 cell, 2nd costs 2, 3rd 1, ...
    FIVE = "5"  # every diagonal costs 1 cell (Chebyshev)
    EUCLIDEAN = "euclidean"  # true distance, sqrt(2) cells per diagonal


# --------------------------------------------------------------------------------------------
# Distances
# --------------------------------------------------------------------------------------------


def distance_ft(dx: int, dy: int, rule: DiagonalRule, feet_per_cell: int = 5) -> float:
    """Straight-line distance in feet for an offset of ``dx, dy`` cells (signs ignored).

    Under every rule an adjacent cell, diagonals included, is one cell away: RULES §4 lets melee
    reach it, so the Euclidean 7.07 ft of a diagonal neighbour counts as 5 ft.
    """
    ax, ay = abs(dx), abs(dy)
    if rule is DiagonalRule.EUCLIDEAN:
        if ax <= 1 and ay <= 1:
            return float(max(ax, ay) * feet_per_cell)
        return math.hypot(ax, ay) * feet_per_cell
    diagonals = min(ax, ay)
    straight = max(ax, ay) - diagonals
    if rule is DiagonalRule.FIVE:
        return float((straight + diagonals) * feet_per_cell)
    return float((straight + diagonals + diagonals // 2) * feet_per_cell)


def cell_distance_ft(a: Cell, b: Cell, rule: DiagonalRule, feet_per_cell: int = 5) -> float:
    """Distance in feet between two cells."""
    return distance_ft(b[0] - a[0], b[1] - a[1], rule, feet_per_cell)


def footprint(anchor: Cell, size: int) -> list[Cell]:
    """Cells covered by a token of ``size`` whose top-left cell is ``anchor`` (row by row)."""
    if size == 1:  # most tokens: asked for hundreds of them after every action
        return [(anchor[0], anchor[1])]
    ax, ay = anchor
    return [(ax + i, ay + j) for j in range(size) for i in range(size)]


def _axis_gap(a: int, a_size: int, b: int, b_size: int) -> int:
    # Cells between the nearest edges of two spans on one axis (0 when they overlap).
    return max(0, b - (a + a_size - 1), a - (b + b_size - 1))


def token_distance_ft(
    a: Cell,
    a_size: int,
    b: Cell,
    b_size: int,
    rule: DiagonalRule,
    feet_per_cell: int = 5,
) -> float:
    """Distance in feet between the nearest occupied cells of two tokens.

    The nearest pair of cells is found per axis (the gap between the two spans), so this is O(1)
    whatever the token sizes.
    """
    gap_x = _axis_gap(a[0], a_size, b[0], b_size)
    gap_y = _axis_gap(a[1], a_size, b[1], b_size)
    return distance_ft(gap_x, gap_y, rule, feet_per_cell)


def footprint_center(anchor: Cell, size: int) -> tuple[float, float]:
    """Centre of a token's footprint in cell units, e.g. ``(0, 0), 1 -> (0.5, 0.5)``."""
    return (anchor[0] + size / 2.0, anchor[1] + size / 2.0)


# --------------------------------------------------------------------------------------------
# Terrain and movement rules
# --------------------------------------------------------------------------------------------


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
_LATEST_TERRAIN: weakref.WeakValueDictionary[tuple[int, int], Terrain] = weakref.WeakValueDictionary()


def map_terrain(grid_map: Any) -> Terrain:
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


@dataclass(frozen=True)
class MoveRules:
    """How a move is costed and what it may cross."""

    rule: DiagonalRule = DiagonalRule.ALTERNATING
    feet_per_cell: int = 5
    difficult_multiplier: int = 2
    ignore_difficult: bool = False  # a Leap: difficult terrain at normal cost
    pass_over_walls: bool = False  # a Leap: may pass over walls but never END on one

    def __post_init__(self) -> None:
        if self.feet_per_cell <= 0:
            raise ValueError(f"feet_per_cell must be positive, got {self.feet_per_cell}")
        if self.difficult_multiplier < 1:
            raise ValueError(f"difficult_multiplier must be at least 1, got {self.difficult_multiplier}")


def diagonal_steps(path: list[Cell]) -> int:
    """Number of diagonal steps in a path (to carry the 5-10-5 alternation across moves)."""
    return sum(1 for (x0, y0), (x1, y1) in itertools.pairwise(path) if x0 != x1 and y0 != y1)


# --------------------------------------------------------------------------------------------
# Reachability
# --------------------------------------------------------------------------------------------


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


def _offmap(x0: int, y0: int, w: int, h: int, terrain: Terrain) -> BoolArray:
    out = np.ones((h, w), dtype=np.bool_)
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(terrain.width, x0 + w), min(terrain.height, y0 + h)
    if cx0 < cx1 and cy0 < cy1:
        out[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0] = False
    return out


def _mark(cells: frozenset[Cell], skip: set[Cell], x0: int, y0: int, w: int, h: int) -> BoolArray:
    out = np.zeros((h, w), dtype=np.bool_)
    for x, y in cells:
        if (x, y) not in skip and x0 <= x < x0 + w and y0 <= y < y0 + h:
            out[y - y0, x - x0] = True
    return out


class Reach:
    """Result of :func:`reachable`: cheapest costs to every anchor within the budget.

    Internally a window of anchors (global origin ``_x0, _y0``) padded by one ring of
    unreachable states, with one distance layer per diagonal parity under 5-10-5.
    """

    def __init__(
        self,
        *,
        start: Cell,
        budget_ft: float,
        feet_per_cell: int,
        x0: int,
        y0: int,
        dist: FloatArray,
        ortho_cost: FloatArray,
        diag_cost: FloatArray,
        diag_penalty: dict[tuple[int, int], FloatArray] | None,
        end: BoolArray,
        passable: BoolArray,
        map_width: int,
        map_height: int,
        ortho_penalty: dict[tuple[int, int], FloatArray] | None = None,
    ) -> None:
        self.start = start
        self.budget_ft = budget_ft
        self.feet_per_cell = feet_per_cell
        self._x0 = x0 - 1  # padded index 0 is one ring outside the window
        self._y0 = y0 - 1
        self._dist = dist  # (layers, h + 2, w + 2) cost in cells, inf when beyond budget
        self._best = dist.min(axis=0)
        self._ortho = ortho_cost
        self._diag = diag_cost  # (layers, h + 2, w + 2) by SOURCE layer
        self._penalty = diag_penalty  # inf where a diagonal would squeeze between walls or cross a barrier
        self._ortho_penalty = ortho_penalty  # inf where an orthogonal step would cross a barrier
        self._end = end  # padded bool: legal END anchor
        self._passable = passable  # padded bool: physically enterable (for blocked())
        self._map_w = map_width
        self._map_h = map_height

    # -- lookups ---------------------------------------------------------------------------

    def _index(self, cell: Cell) -> tuple[int, int] | None:
        py, px = cell[1] - self._y0, cell[0] - self._x0
        if 0 <= py < self._best.shape[0] and 0 <= px < self._best.shape[1]:
            return py, px
        return None

    def cost_ft(self, cell: Cell) -> float | None:
        """Cheapest feet to END with the anchor on ``cell``; None if unreachable or illegal.

        The start itself costs 0.
        """
        if cell == self.start:
            return 0.0
        idx = self._index(cell)
        if idx is None or not self._end[idx]:
            return None
        cost = float(self._best[idx])
        if cost == _INF:
            return None
        return cost * self.feet_per_cell

    def cells(self) -> frozenset[Cell]:
        """All legal END anchors within budget, the start excluded."""
        return self._cells

    @cached_property
    def _cells(self) -> frozenset[Cell]:
        ys, xs = np.nonzero(self._end & (self._best < _INF))
        x0, y0 = self._x0, self._y0
        found = frozenset(zip((xs + x0).tolist(), (ys + y0).tolist(), strict=True))
        return found - {self.start}

    def costs_ft(self) -> dict[Cell, float]:
        """Every legal END anchor within budget (start excluded) with its cost in feet."""
        ys, xs = np.nonzero(self._end & (self._best < _INF))
        feet = (self._best[ys, xs] * self.feet_per_cell).tolist()
        x0, y0 = self._x0, self._y0
        out = {(x + x0, y + y0): f for x, y, f in zip(xs.tolist(), ys.tolist(), feet, strict=True)}
        out.pop(self.start, None)
        return out

    def blocked(self) -> frozenset[Cell]:
        """On-map anchors next to the reached area that cannot be entered (wall, enemy, edge)."""
        return self._blocked

    @cached_property
    def _blocked(self) -> frozenset[Cell]:
        reached = self._best < _INF
        near = reached.copy()
        # Dilate by one cell in all 8 directions (the padding ring is never reached).
        near[1:, :] |= reached[:-1, :]
        near[:-1, :] |= reached[1:, :]
        grown = near.copy()
        grown[:, 1:] |= near[:, :-1]
        grown[:, :-1] |= near[:, 1:]
        ys, xs = np.nonzero(grown & ~self._passable)
        x0, y0 = self._x0, self._y0
        return frozenset(
            (x + x0, y + y0)
            for x, y in zip(xs.tolist(), ys.tolist(), strict=True)
            if 0 <= x + x0 < self._map_w and 0 <= y + y0 < self._map_h
        )

    def path_to(self, cell: Cell) -> list[Cell] | None:
        """Cheapest anchors from the start to ``cell`` inclusive; None if not a legal end."""
        if cell == self.start:
            return [self.start]
        if self.cost_ft(cell) is None:
            return None
        idx = self._index(cell)
        assert idx is not None  # cost_ft found it
        py, px = idx
        dist = self._dist
        layers = dist.shape[0]
        layer = int(np.argmin(dist[:, py, px]))
        cost = float(dist[layer, py, px])
        rev: list[Cell] = [cell]
        # Walk back along tight edges: a predecessor state whose cost plus the step equals ours.
        # Every step costs at least one cell, so the cost strictly falls and the walk ends at 0.
        while cost > _EPS:
            step = self._predecessor(py, px, layer, cost, layers)
            if step is None:  # pragma: no cover - would mean an inconsistent distance table
                raise RuntimeError(f"no predecessor for {cell} while rebuilding the path")
            py, px, layer, cost = step
            rev.append((px + self._x0, py + self._y0))
        rev.reverse()
        return rev

    def _predecessor(
        self, py: int, px: int, layer: int, cost: float, layers: int
    ) -> tuple[int, int, int, float] | None:
        dist = self._dist
        step = float(self._ortho[py, px])
        barred = self._ortho_penalty
        for d in _ORTHOGONAL:
            dx, dy = d
            prev = float(dist[layer, py - dy, px - dx])
            extra = 0.0 if barred is None else float(barred[d][py, px])
            if abs(prev + step + extra - cost) <= _EPS:
                return py - dy, px - dx, layer, prev
        # A diagonal flips the parity under 5-10-5 (with one layer, (layers-1) - 0 == 0).
        src_layer = layers - 1 - layer
        penalty = self._penalty
        for d in _DIAGONAL:
            dx, dy = d
            step = float(self._diag[src_layer, py, px])
            if penalty is not None:
                step += float(penalty[d][py, px])
            prev = float(dist[src_layer, py - dy, px - dx])
            if abs(prev + step - cost) <= _EPS:
                return py - dy, px - dx, src_layer, prev
        return None


def _allowed_mask(allowed: Callable[[Cell], bool], candidates: BoolArray, x0: int, y0: int) -> BoolArray:
    """Evaluate ``allowed`` over a window of anchors, vectorised when the predicate can."""
    h, w = candidates.shape
    mask_fn = getattr(allowed, "mask", None)
    if callable(mask_fn):
        return np.asarray(mask_fn(x0, y0, w, h), dtype=np.bool_)
    out = np.zeros((h, w), dtype=np.bool_)
    ys, xs = np.nonzero(candidates)  # only where the footprint is legal: fewer Python calls
    for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
        if allowed((x + x0, y + y0)):
            out[y, x] = True
    return out


def _as_float(costs: npt.NDArray[np.generic], never: float) -> FloatArray:
    out = costs.astype(np.float64)
    out[costs >= never] = _INF
    return out


def _cheapest_source(
    src: Mapping[Cell, npt.NDArray[np.generic]],
    steps: Sequence[Cell],
    penalty: Mapping[Cell, npt.NDArray[np.generic]] | None,
    box: tuple[slice, slice],
) -> npt.NDArray[np.generic]:
    """The cheapest way into each anchor of the box by one of ``steps``, each step's penalty
    (walls squeezed, barriers crossed) added when there is one."""
    if penalty is None:
        best = np.minimum(src[steps[0]], src[steps[1]])
        for d in steps[2:]:
            np.minimum(best, src[d], out=best)
        return best
    best = src[steps[0]] + penalty[steps[0]][box]
    for d in steps[1:]:
        np.minimum(best, src[d] + penalty[d][box], out=best)
    return best


def _relax(
    dist: npt.NDArray[np.generic],
    ortho: npt.NDArray[np.generic],
    diag: npt.NDArray[np.generic],
    penalty: dict[tuple[int, int], npt.NDArray[np.generic]] | None,
    start: tuple[int, int],
    max_sweeps: int,
    ortho_penalty: dict[tuple[int, int], npt.NDArray[np.generic]] | None = None,
) -> None:
    """Bounded Bellman-Ford over all ``(layer, anchor)`` states at once, in place.

    ``dist`` is ``(layers, h + 2, w + 2)`` with an unreachable padding ring; ``ortho`` and
    ``diag[source layer]`` give the cost of stepping INTO each anchor; ``penalty`` (per diagonal
    direction) forbids squeezing between walls and crossing barriers, ``ortho_penalty`` (per
    orthogonal direction) crossing barriers. A diagonal moves to the other layer.
    """
    _, hp, wp = dist.shape
    spy, spx = start
    flipped = dist[::-1]  # target layer of a diagonal; reversing a one-layer axis is a no-op
    sweep = 0
    while sweep < max_sweeps:
        sweep += 1
        # After k sweeps every state whose best path has <= k steps is exact, and such states
        # lie within k cells of the start: relax only that box (cheaper early sweeps).
        ty0, ty1 = max(1, spy - sweep), min(hp - 1, spy + sweep + 1)
        tx0, tx1 = max(1, spx - sweep), min(wp - 1, spx + sweep + 1)
        whole = ty0 == 1 and tx0 == 1 and ty1 == hp - 1 and tx1 == wp - 1
        before = dist.copy() if whole else None

        src = {(dx, dy): dist[:, ty0 - dy : ty1 - dy, tx0 - dx : tx1 - dx] for dx, dy in _STEPS}

        # The cost depends only on the target, so take the cheapest source first: 5 array
        # operations for the 4 orthogonal steps instead of 8.
        box = (slice(ty0, ty1), slice(tx0, tx1))
        best = _cheapest_source(src, _ORTHOGONAL, ortho_penalty, box)
        best += ortho[ty0:ty1, tx0:tx1]
        target = dist[:, ty0:ty1, tx0:tx1]
        np.minimum(target, best, out=target)

        best = _cheapest_source(src, _DIAGONAL, penalty, box)
        best += diag[:, ty0:ty1, tx0:tx1]
        target = flipped[:, ty0:ty1, tx0:tx1]
        np.minimum(target, best, out=target)

        if before is not None and np.array_equal(before, dist):
            break  # converged (only checked once the box covers the window)


def _crossed_steps(
    terrain: Terrain, x0: int, y0: int, w: int, h: int, size: int
) -> dict[tuple[int, int], BoolArray] | None:
    """Per step direction, a padded ``(h + 2, w + 2)`` array over the window's anchors, indexed by
    the step's TARGET: whether a token of ``size`` stepping into it crosses a barrier (any of its
    cells' steps does). None when no barrier bars a step in the window."""
    steps = terrain.barrier_steps
    if steps is None:
        return None
    cw, ch = w + size - 1, h + size - 1
    out: dict[tuple[int, int], BoolArray] = {}
    found = False
    for d in _STEPS:
        dx, dy = d
        from_a = _footprint_any(_window_slice(steps[d], x0, y0, cw, ch, False), size)
        into = np.zeros((h + 2, w + 2), dtype=np.bool_)
        into[1 + dy : h + 1 + dy, 1 + dx : w + 1 + dx] = from_a
        found = found or bool(from_a.any())
        out[d] = into
    return out if found else None


def reachable(
    terrain: Terrain,
    start: Cell,
    size: int,
    budget_ft: float,
    rules: MoveRules = MoveRules(),  # frozen, so a shared default is safe
    *,
    enemies: frozenset[Cell] = frozenset(),
    occupied: frozenset[Cell] = frozenset(),
    allowed: Callable[[Cell], bool] | None = None,
    diagonals_before: int = 0,
) -> Reach:
    """Every anchor a token of ``size`` can end on from ``start`` within ``budget_ft``.

    ``enemies`` cells can be neither entered nor passed; ``occupied`` cells (everyone else,
    allies and enemies) may be passed but not ended on; ``allowed``, when given, must hold for
    every anchor after the start; ``diagonals_before`` carries the 5-10-5 alternation.
    Cells of the mover's own starting footprint never count as enemies or occupied.

    An ``allowed`` predicate may also offer ``mask(x0, y0, width, height)`` returning a
    ``(height, width)`` boolean array for the anchors from ``(x0, y0)`` (as
    :class:`ConePredicate` does); it is then evaluated with numpy instead of once per cell.
    ``budget_ft`` may be ``math.inf`` (a whole-map search, much slower).
    """
    if size < 1:
        raise ValueError(f"token size must be at least 1, got {size}")
    sx, sy = start
    if not (0 <= sx <= terrain.width - size and 0 <= sy <= terrain.height - size):
        raise ValueError(f"start {start} puts a size-{size} token outside the map")
    if math.isnan(budget_ft):
        raise ValueError("budget_ft is NaN")
    feet = rules.feet_per_cell
    budget_cells = max(0.0, budget_ft) / feet + _EPS
    alternating = rules.rule is DiagonalRule.ALTERNATING
    layers = 2 if alternating else 1

    # Every step costs at least one cell, so no path within budget has more steps than this,
    # and no anchor farther than this (Chebyshev) can be reached.
    if math.isinf(budget_cells):
        reach = max(terrain.width, terrain.height)
        max_sweeps = layers * terrain.width * terrain.height  # Bellman-Ford bound
    else:
        reach = int(budget_cells)
        max_sweeps = reach

    # Window of anchors: the reachable square plus one ring, for blocked(); clipped to the map.
    x0 = max(0, sx - reach - 1)
    y0 = max(0, sy - reach - 1)
    x1 = min(terrain.width, sx + reach + 2)
    y1 = min(terrain.height, sy + reach + 2)
    w, h = x1 - x0, y1 - y0
    cw, ch = w + size - 1, h + size - 1  # cells under the window's footprints

    own = set(footprint(start, size))
    offmap_a = _footprint_any(_offmap(x0, y0, cw, ch, terrain), size)
    wall_c = _window_slice(terrain.wall_grid, x0, y0, cw, ch, False)
    wall_a = _footprint_any(wall_c, size)
    enemy_a = _footprint_any(_mark(enemies, own, x0, y0, cw, ch), size)
    occ_a = _footprint_any(_mark(occupied, own, x0, y0, cw, ch), size)

    passable = ~(offmap_a | enemy_a)
    if not rules.pass_over_walls:
        passable &= ~wall_a
    enter = passable
    if allowed is not None:
        enter = passable & _allowed_mask(allowed, passable, x0, y0)
    end = enter & ~wall_a & ~occ_a

    # 5-10-5 and 5-ft diagonals cost whole cells: int32 arithmetic is about twice as fast as
    # float64 on these small arrays. Euclidean costs need floats.
    integral = rules.rule is not DiagonalRule.EUCLIDEAN
    dtype = np.int32 if integral else np.float64
    never: float = _BIG if integral else _INF  # "unreachable" in this dtype

    mult = np.ones((h, w), dtype=dtype)
    if not rules.ignore_difficult and rules.difficult_multiplier != 1 and terrain.difficult:
        diff_a = _footprint_any(_window_slice(terrain.difficult_grid, x0, y0, cw, ch, False), size)
        mult[diff_a] = min(rules.difficult_multiplier, _BIG)  # keep int32 sums from overflowing

    # Padded (h + 2, w + 2) arrays: a ring of impassable states makes every shift a plain slice.
    # A step's cost depends only on the target anchor (and, for diagonals, the parity).
    ortho = np.full((h + 2, w + 2), never, dtype=dtype)
    inner = (slice(1, h + 1), slice(1, w + 1))
    ortho[inner] = np.where(enter, mult, never)
    if alternating:
        # From parity 0 the next diagonal is odd-numbered and costs 1; from parity 1 it costs 2.
        diag = np.stack((ortho, np.minimum(2 * ortho, never)))
    elif integral:
        diag = ortho[np.newaxis]
    else:
        diag = (_SQRT2 * ortho)[np.newaxis]

    crossed = _crossed_steps(terrain, x0, y0, w, h, size)
    penalty: dict[tuple[int, int], npt.NDArray[np.generic]] | None = None
    squeezes = size == 1 and not rules.pass_over_walls and bool(terrain.walls)
    if squeezes or crossed is not None:
        # A diagonal may not squeeze between two walls. For the step into target t along
        # (dx, dy) the squeezed cells are t - (0, dy) and t - (dx, 0).
        ring = _window_slice(terrain.wall_grid, x0 - 1, y0 - 1, w + 2, h + 2, False) if squeezes else None
        penalty = {}
        for dx, dy in _DIAGONAL:
            barred = np.zeros((h + 2, w + 2), dtype=np.bool_)
            if ring is not None:
                barred[inner] = ring[1 - dy : h + 1 - dy, 1 : w + 1] & ring[1 : h + 1, 1 - dx : w + 1 - dx]
            if crossed is not None:
                barred |= crossed[(dx, dy)]
            penalty[(dx, dy)] = np.where(barred, never, 0).astype(dtype)
    # Barriers bar orthogonal steps too, per direction (the cost of a step otherwise depends only
    # on its target, which keeps the common case at one addition per sweep).
    ortho_penalty: dict[tuple[int, int], npt.NDArray[np.generic]] | None = None
    if crossed is not None:
        ortho_penalty = {d: np.where(crossed[d], never, 0).astype(dtype) for d in _ORTHOGONAL}

    dist = np.full((layers, h + 2, w + 2), never, dtype=dtype)
    spy, spx = sy - y0 + 1, sx - x0 + 1
    start_layer = diagonals_before % 2 if alternating else 0
    dist[start_layer, spy, spx] = 0
    _relax(dist, ortho, diag, penalty, (spy, spx), max_sweeps, ortho_penalty)

    # Hand the Reach float tables with inf for "unreachable" and for "beyond the budget".
    distf = dist.astype(np.float64)
    distf[(dist >= never) | (distf > budget_cells)] = _INF
    orthof = _as_float(ortho, never)
    diagf = _as_float(diag, never)
    penaltyf = None if penalty is None else {d: _as_float(p, never) for d, p in penalty.items()}
    ortho_penaltyf = None if ortho_penalty is None else {d: _as_float(p, never) for d, p in ortho_penalty.items()}
    end_p = np.zeros((h + 2, w + 2), dtype=np.bool_)
    end_p[inner] = end
    passable_p = np.zeros((h + 2, w + 2), dtype=np.bool_)
    passable_p[inner] = passable
    return Reach(
        start=start,
        budget_ft=budget_ft,
        feet_per_cell=feet,
        x0=x0,
        y0=y0,
        dist=distf,
        ortho_cost=orthof,
        diag_cost=diagf,
        diag_penalty=penaltyf,
        ortho_penalty=ortho_penaltyf,
        end=end_p,
        passable=passable_p,
        map_width=terrain.width,
        map_height=terrain.height,
    )


def cheapest_path(
    terrain: Terrain,
    start: Cell,
    goal: Cell,
    size: int,
    budget_ft: float,
    rules: MoveRules = MoveRules(),  # frozen, so a shared default is safe
    *,
    enemies: frozenset[Cell] = frozenset(),
    occupied: frozenset[Cell] = frozenset(),
    allowed: Callable[[Cell], bool] | None = None,
    diagonals_before: int = 0,
) -> tuple[list[Cell], float] | None:
    """Cheapest legal path (anchors, start and goal included) to ``goal`` and its cost in feet.

    None when ``goal`` is not a legal end within the budget. Runs the same bounded search as
    :func:`reachable`, so both always agree on the cost.
    """
    reach = reachable(
        terrain,
        start,
        size,
        budget_ft,
        rules,
        enemies=enemies,
        occupied=occupied,
        allowed=allowed,
        diagonals_before=diagonals_before,
    )
    cost = reach.cost_ft(goal)
    path = reach.path_to(goal)
    if cost is None or path is None:
        return None
    return path, cost


def path_cost_ft(
    terrain: Terrain,
    path: list[Cell],
    size: int,
    rules: MoveRules = MoveRules(),  # frozen, so a shared default is safe
    *,
    enemies: frozenset[Cell] = frozenset(),
    occupied: frozenset[Cell] = frozenset(),
    diagonals_before: int = 0,
) -> float:
    """Cost in feet of an explicit path of anchors (e.g. one dragged by the user).

    Raises ValueError naming the offending step if a step is not to an adjacent anchor, leaves
    the map, enters a wall (allowed mid-path only with ``pass_over_walls``), squeezes diagonally
    between two walls, crosses a barrier (naming it), or enters an enemy; also if the path ends
    on a wall or an occupied cell.
    The budget is not checked here: compare the result with what the token has left.
    """
    if not path:
        raise ValueError("path is empty")
    own = set(footprint(path[0], size))
    walls = terrain.walls
    steps = terrain.barrier_steps
    total = 0.0
    diagonals = diagonals_before
    last = len(path) - 1
    for i in range(1, len(path)):
        (ax, ay), (bx, by) = path[i - 1], path[i]
        dx, dy = bx - ax, by - ay
        where = f"step {i} from {path[i - 1]} to {path[i]}"
        if max(abs(dx), abs(dy)) != 1:
            raise ValueError(f"{where} is not a move to an adjacent cell")
        cells = footprint(path[i], size)
        if not all(terrain.inside(c) for c in cells):
            raise ValueError(f"{where} leaves the map")
        if any(c in enemies and c not in own for c in cells):
            raise ValueError(f"{where} enters a cell held by an enemy")
        if any(c in walls for c in cells):
            if i == last:
                raise ValueError(f"{where} ends on a wall")
            if not rules.pass_over_walls:
                raise ValueError(f"{where} enters a wall")
        diagonal = dx != 0 and dy != 0
        if diagonal and size == 1 and not rules.pass_over_walls and (ax + dx, ay) in walls and (ax, ay + dy) in walls:
            raise ValueError(f"{where} squeezes diagonally between two walls")
        if steps is not None:
            for cx, cy in footprint(path[i - 1], size):
                if steps[(dx, dy)][cy, cx]:
                    barrier = terrain.barrier_across((cx, cy), (dx, dy))
                    raise ValueError(f"{where} crosses {barrier.name if barrier else 'a wall'}")
        if not diagonal:
            step = 1.0
        elif rules.rule is DiagonalRule.ALTERNATING:
            step = 1.0 if diagonals % 2 == 0 else 2.0  # odd-numbered diagonals of the turn cost 1
            diagonals += 1
        elif rules.rule is DiagonalRule.FIVE:
            step = 1.0
        else:
            step = _SQRT2
        if not rules.ignore_difficult and any(c in terrain.difficult for c in cells):
            step = step * rules.difficult_multiplier
        total += step
    if last > 0 and any(c in occupied and c not in own for c in footprint(path[-1], size)):
        raise ValueError(f"step {last} from {path[-2]} to {path[-1]} ends on an occupied cell")
    return total * rules.feet_per_cell


# --------------------------------------------------------------------------------------------
# Facing and field of vision
# --------------------------------------------------------------------------------------------


def direction_deg(frm: tuple[float, float], to: tuple[float, float]) -> float:
    """Compass bearing from ``frm`` to ``to`` in [0, 360): 0 = north (-y), 90 = east (+x)."""
    dx, dy = to[0] - frm[0], to[1] - frm[1]
    if dx == 0 and dy == 0:
        return 0.0
    deg = math.degrees(math.atan2(dx, -dy)) % 360.0
    return 0.0 if deg >= 360.0 else deg  # a tiny negative angle rounds up to 360.0


def angle_between_deg(a: float, b: float) -> float:
    """Smallest absolute difference between two bearings, in [0, 180]."""
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


def snap_facing(deg: float, step: float = 45) -> int:
    """Nearest multiple of ``step`` (halves round up), normalised to [0, 360)."""
    snapped = math.floor(deg / step + 0.5) * step
    return round(snapped) % 360


def outside_cone(
    viewer_center: tuple[float, float],
    facing_deg: float,
    fov_deg: float,
    point: tuple[float, float],
) -> bool:
    """Whether ``point`` is outside the viewer's field of vision.

    True when the bearing to the point differs from the facing by MORE than ``fov / 2``; a field
    of 360 degrees or more sees everything, and the viewer's own centre is never outside.
    """
    if fov_deg >= 360.0 or point == viewer_center:
        return False
    bearing = direction_deg(viewer_center, point)
    # The tolerance keeps points exactly on the edge of the cone inside despite rounding.
    return angle_between_deg(facing_deg, bearing) > fov_deg / 2.0 + _EPS


def path_outside_cone(
    viewer_anchor: Cell,
    viewer_size: int,
    facing_deg: float,
    fov_deg: float,
    path: list[Cell],
    mover_size: int,
) -> bool:
    """Whether the mover's footprint centre stays outside the cone at every anchor of ``path``."""
    center = footprint_center(viewer_anchor, viewer_size)
    return all(outside_cone(center, facing_deg, fov_deg, footprint_center(p, mover_size)) for p in path)


@dataclass(frozen=True)
class ConePredicate:
    """``allowed`` predicate for :func:`reachable`: anchors whose centre is outside a cone.

    Besides ``__call__`` it offers ``mask``, which :func:`reachable` uses to test a whole window
    of anchors with numpy instead of calling back once per cell.
    """

    viewer_center: tuple[float, float]
    facing_deg: float
    fov_deg: float
    mover_size: int

    def __call__(self, cell: Cell) -> bool:
        center = footprint_center(cell, self.mover_size)
        return outside_cone(self.viewer_center, self.facing_deg, self.fov_deg, center)

    def mask(self, x0: int, y0: int, width: int, height: int) -> BoolArray:
        """``(height, width)`` booleans for the anchors from ``(x0, y0)``, indexed ``[y, x]``."""
        if self.fov_deg >= 360.0:
            return np.zeros((height, width), dtype=np.bool_)
        half = self.mover_size / 2.0
        dx = (np.arange(x0, x0 + width) + half - self.viewer_center[0])[np.newaxis, :]
        dy = (np.arange(y0, y0 + height) + half - self.viewer_center[1])[:, np.newaxis]
        bearing = np.degrees(np.arctan2(dx, -dy)) % 360.0
        diff = np.abs(bearing - self.facing_deg) % 360.0
        diff = np.minimum(diff, 360.0 - diff)
        out: BoolArray = diff > self.fov_deg / 2.0 + _EPS
        out &= (dx != 0) | (dy != 0)  # the viewer's own centre is never outside
        return out


def cells_outside_cone(
    terrain: Terrain,
    viewer_anchor: Cell,
    viewer_size: int,
    facing_deg: float,
    fov_deg: float,
    mover_size: int,
) -> ConePredicate:
    """Predicate, usable as ``allowed``, for anchors where the mover is outside the cone.

    ``terrain`` is accepted for symmetry with the other helpers; the cone is pure geometry.
    """
    del terrain  # geometry only
    return ConePredicate(footprint_center(viewer_anchor, viewer_size), facing_deg, fov_deg, mover_size)


def _segment_clear(a: tuple[float, float], b: tuple[float, float], walls: frozenset[Cell]) -> bool:
    """Whether the straight line between two points (in cells) crosses no wall cell on its way.

    The line is sampled at a quarter of a cell or finer, enough to catch every cell it passes
    through except along a corner's very tip; the cells of its ends never block."""
    (ax, ay), (bx, by) = a, b
    steps = max(1, int(4 * max(abs(bx - ax), abs(by - ay))) + 1)
    start, end = (math.floor(ax), math.floor(ay)), (math.floor(bx), math.floor(by))
    for i in range(1, steps):
        t = i / steps
        cell = (math.floor(ax + (bx - ax) * t), math.floor(ay + (by - ay) * t))
        if cell in walls and cell != start and cell != end:
            return False
    return True


def line_of_sight(a: Cell, a_size: int, b: Cell, b_size: int, walls: frozenset[Cell]) -> bool:
    """Whether any occupied cell of one token sees any of the other's, centre to centre, past the walls.

    Wall cells only, sampled: the rules read :func:`lnl_desktop.core.map.sight.sees`, which adds wall
    segments and closed doors and is exact along a corner's tip."""
    if not walls:
        return True
    for ca in footprint(a, a_size):
        for cb in footprint(b, b_size):
            if _segment_clear((ca[0] + 0.5, ca[1] + 0.5), (cb[0] + 0.5, cb[1] + 0.5), walls):
                return True
    return False

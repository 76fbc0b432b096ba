"""What a creature sees on the battle map, and what a group of them sees together.

Pure Python plus numpy, no Qt. :func:`visible_cells` is every cell whose centre some cell of the
creature sees past walls, wall segments and closed doors (the lines of :mod:`.sight`), narrowed to
its field of vision when its facing is given (the bearing from the footprint's centre, as
:func:`grid.outside_cone` reads it); the creature's own cells are always among them.
:func:`eyes_sight` is what the Party sees, the OR of its members' views; :func:`points_seen` what
an area effect's origin sees.

**Speed.** :func:`visible_cells` tests every cell of the map at once, from the tables the map's
index keeps (:mod:`.sight_index`). Per viewing point it sorts the blockers into angular bins (8 per
cell of the map's longer side), with a lower bound of how near any of them comes in each bin and
an upper bound of how far the nearest one that spans the whole bin reaches: a cell nearer than the
first is seen, farther than the second is hidden, and only the few cells in between are tested
exactly, against the blockers of their bin, with the same arithmetic as :func:`sight.sees`. Each
creature's view is cached on its map as bits, so the Party's view (worked out once per state for
the engine and every window) after a move costs the moved token's view and an OR; and the fog of
war's explored cells are kept as a mask beside their set (:mod:`.explored`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.map.grid import _EPS, Cell, footprint, footprint_center
from lnl_desktop.core.map.sight_index import _PARTY_KEEP, PartyView, _Index, _index
from lnl_desktop.core.map.terrain import GridMap, Terrain, _orient, _segments_cross_many, map_terrain
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as _numpy
    import numpy.typing as npt

    from lnl_desktop.core.map.grid import BoolArray

    FloatArray = npt.NDArray[_numpy.float64]
    UInt8Array = npt.NDArray[_numpy.uint8]

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


_ANGLE_EPS = 1e-9  # radians: a blocker is filed in every bin within this of its ends
_REL = 1e-9  # relative margin on the distance bounds: near a bound, test exactly
_CULL_FROM = 1024  # blockers: with more, those wholly behind the nearest _CULL_BY are dropped first
_CULL_BY = 256


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


def view_known(
    grid_map: GridMap, cell: Cell, size: int = 1, facing: float | None = None, vision_deg: float = 360
) -> bool:
    """Whether what a creature of ``size`` at ``cell`` sees (all round, or facing ``facing`` with
    ``vision_deg`` of vision) is already worked out on this map: the window works an unknown one out
    on a worker thread rather than while the GM drags. The views' cache takes one at a time."""
    return _view_key(cell, size, facing, vision_deg) in _index(map_terrain(grid_map)).views


def _view_key(cell: Cell, size: int, facing: float | None, vision_deg: float) -> tuple[object, ...]:
    """A single creature's view in the map's cache: all round, or cut to its field of vision."""
    if facing is not None and vision_deg < 360:
        return (cell, size, float(facing), float(vision_deg))
    return (cell, size)


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
    key = _view_key(cell, size, facing, vision_deg)
    found = ix.view(key)
    if found is not None:
        return found
    w, h = ix.width, ix.height
    own = [c for c in footprint(cell, size) if 0 <= c[0] < w and 0 <= c[1] < h]
    if not own:
        raise ValueError(f"{cell} puts a size-{size} creature off the {w} x {h} map")
    if cone:
        assert facing is not None
        seen = _view(ix, cell, size, None, 360)
        ys, xs = np.nonzero(seen)
        out = _outside_cone(cell, size, float(facing), float(vision_deg), xs, ys)
        seen[ys[out], xs[out]] = False
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


def _outside_cone(cell: Cell, size: int, facing: float, vision_deg: float, xs: Any, ys: Any) -> BoolArray:
    """Whether the centre of each cell ``(xs[i], ys[i])`` is outside the field of vision of a
    creature of ``size`` at ``cell``: :meth:`grid.ConePredicate.mask`'s arithmetic on those cells
    alone (a cone is cut from the cells seen all round, a few thousand of a million)."""
    cx, cy = footprint_center(cell, size)
    dx = np.asarray(xs, dtype=np.float64) + 0.5 - cx  # to each cell's centre
    dy = np.asarray(ys, dtype=np.float64) + 0.5 - cy
    # ``degrees(atan2) % 360`` and ``abs(bearing - facing) % 360`` to the last bit, in place, each
    # remainder taken only where it changes a value: a remainder is a slow pass over every cell
    # (a token's first view on an open 300 x 300 map spent 3 of its 4 ms on them).
    bearing = np.arctan2(dx, -dy)
    np.degrees(bearing, out=bearing)
    bearing[bearing < 0.0] += 360.0  # the remainder by 360 of a bearing in [-180, 0)
    diff = np.subtract(bearing, facing, out=bearing)
    np.abs(diff, out=diff)
    over = diff >= 360.0  # only with a facing outside [0, 360)
    if over.any():
        diff[over] %= 360.0
    np.minimum(diff, 360.0 - diff, out=diff)
    out: BoolArray = diff > vision_deg / 2.0 + _EPS
    out &= (dx != 0) | (dy != 0)  # the creature's own centre is never outside
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
    dist = ix.offsets.dist(vx, vy)
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

    if ax.size > _CULL_FROM:
        # Blockers wholly behind nearer ones change no bound and block no line the bounds leave
        # in doubt: dropped first (in a walled dungeon, most of them).
        keep = _in_front(ix, px, py, ax, ay, bx, by)
        ax, ay, bx, by, closed, owner = ax[keep], ay[keep], bx[keep], by[keep], closed[keep], owner[keep]
    nbins = ix.nbins
    j, bins, nearest, cover = _filed(ix, px, py, ax, ay, bx, by)

    tb = ix.offsets.bins(vx, vy)
    # Indexed, not np.take: take would first copy the int16 bins as 64-bit indices.
    seen |= dist < nearest[tb]
    unsure = ~seen & (dist <= cover[tb])
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


def _spans(ix: _Index, px: float, py: float, ax: Any, ay: Any, bx: Any, by: Any) -> tuple[Any, Any, Any, Any, Any]:
    """Per blocker as the point ``(px, py)`` sees it: its angular interval ``[lo, hi]`` (less than
    half a turn), the first and last angular bins it is filed in (``b0`` may be -1, ``b1`` past
    ``nbins``: taken modulo), and how near it comes."""
    bin_width = ix.bin_width
    rax, ray, rbx, rby = ax - px, ay - py, bx - px, by - py
    alpha_a = np.arctan2(ray, rax)
    alpha_b = np.arctan2(rby, rbx)
    turn = (alpha_b - alpha_a + math.pi) % (2 * math.pi) - math.pi
    lo = np.where(turn >= 0, alpha_a, alpha_b)
    hi = lo + np.abs(turn)
    b0 = np.floor((lo - _ANGLE_EPS + math.pi) / bin_width).astype(np.int64)
    b1 = np.floor((hi + _ANGLE_EPS + math.pi) / bin_width).astype(np.int64)
    sx, sy = bx - ax, by - ay
    u = np.clip(-(rax * sx + ray * sy) / (sx * sx + sy * sy), 0.0, 1.0)
    dseg = np.hypot(rax + u * sx, ray + u * sy)
    return lo, hi, b0, b1, dseg


def _filed(ix: _Index, px: float, py: float, ax: Any, ay: Any, bx: Any, by: Any) -> tuple[Any, Any, Any, Any]:
    """The blockers filed in the angular bins round ``(px, py)``: (blocker and bin of each pair,
    the lower bound of how near any blocker comes in each bin, the upper bound of how far the
    nearest one spanning the whole bin reaches)."""
    nbins, bin_width = ix.nbins, ix.bin_width
    rax, ray = ax - px, ay - py
    lo, hi, b0, b1, dseg = _spans(ix, px, py, ax, ay, bx, by)
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
    return j, bins, nearest, cover


def _in_front(ix: _Index, px: float, py: float, ax: Any, ay: Any, bx: Any, by: Any) -> BoolArray:
    """The blockers not wholly behind the nearest few as ``(px, py)`` sees them: a blocker whose
    nearest point lies beyond what those cover in every bin it is filed in is farther than any
    cell left in doubt there (so blocks none of their lines) and lowers no bin's bounds (the
    blocker that covers a bin, never dropped itself, is nearer)."""
    _, _, b0, b1, dseg = _spans(ix, px, py, ax, ay, bx, by)
    few = np.argpartition(dseg, _CULL_BY)[:_CULL_BY]
    cover = _filed(ix, px, py, ax[few], ay[few], bx[few], by[few])[3]
    keep: BoolArray = dseg * (1 - _REL) - _REL < _range_max(cover, b0, b1)
    return keep


def _range_max(values: FloatArray, first: Any, last: Any) -> FloatArray:
    """The largest of ``values`` (one per angular bin) from bin ``first[i]`` to ``last[i]`` (taken
    round the circle; from -1 to under twice the bins): a sparse table, two look-ups a range."""
    n = values.size
    row = np.concatenate((values, values, values))  # bin i at i + n
    start, end = first + n, last + n
    length = end - start + 1
    level = np.frexp(length.astype(np.float64))[1] - 1  # floor(log2(length)), exactly
    out = np.empty(start.size, dtype=np.float64)
    span = 1
    for k in range(int(level.max()) + 1 if level.size else 0):
        if k:
            row = np.maximum(row[:-span], row[span:])  # row[i] = the largest of values[i : i + 2**k]
            span *= 2
        at = level == k
        if at.any():
            out[at] = np.maximum(row[start[at]], row[end[at] - span + 1])
    return out


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
    meets the line and no wall cell's open interior lies across it, with :func:`sight.sees`'s arithmetic.
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
# Public: what a group of creatures sees
# --------------------------------------------------------------------------------------------


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

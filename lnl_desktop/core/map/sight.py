"""Line of sight on the battle map: who sees whom, and what blocks the line between them.

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
none is clear, :func:`reach_blocker` what bars a melee blow. What a creature sees all round, and
what the Party sees, is :mod:`.visibility`'s; both read the map's index (:mod:`.sight_index`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lnl_desktop.core.map.grid import Cell, ConePredicate, DiagonalRule, cell_distance_ft, footprint, footprint_center
from lnl_desktop.core.map.sight_index import _BUCKET, _Index, _index
from lnl_desktop.core.map.terrain import (
    Barrier,
    GridMap,
    Terrain,
    _footprint_any,
    _orient,
    _segments_cross_many,
    _window_slice,
    map_terrain,
    segments_cross,
)
from lnl_desktop.core.map.visibility import _view
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.map.grid import BoolArray

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


def wall_words(cell: Cell) -> str:
    """'the wall at (6, 11)': a wall cell, as the reasons name it."""
    return f"the wall at ({cell[0]}, {cell[1]})"


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
    not considered (see :func:`visibility.visible_cells`)."""
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
# Public: where a creature is out of another's sight
# --------------------------------------------------------------------------------------------


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

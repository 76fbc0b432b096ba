"""Grid geometry for the battle map: cells, distances in feet, footprints, facing, vision cones, sight past wall cells.

Pure Python, no Qt (numpy only for a cone over a window of anchors). Coordinates are ``(x, y)``
cells with ``x`` growing right and ``y`` growing DOWN (screen coordinates). A token of size ``n``
covers an ``n x n`` block of cells whose top-left cell is its *anchor*; movement is expressed as a
sequence of anchors. The map's walls and barriers are in :mod:`lnl_desktop.core.map.terrain`, the
movement search over them in :mod:`lnl_desktop.core.map.movement`.

Under the default 5-10-5 rule diagonals alternate between one and two cells
(:class:`DiagonalRule`).

Angles are compass bearings in degrees: 0 = north (-y), 90 = east (+x), clockwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as _numpy
    import numpy.typing as npt

    BoolArray = npt.NDArray[_numpy.bool_]
    FloatArray = npt.NDArray[_numpy.float64]

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


Cell = tuple[int, int]


# Float tolerance for budget and equality checks: Euclidean costs are sums of sqrt(2).
_EPS = 1e-9


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

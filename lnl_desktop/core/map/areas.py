"""Which cells an area effect strikes (RULES §14), and which a wall shields.

Pure Python plus numpy. Points in cell units as in :mod:`.grid` (a cell's centre at +0.5),
directions as compass bearings (0 = north, clockwise). The decided readings of §14:

- A cell is *inside* when its centre is inside the shape. Circles and cones measure along the grid
  in the encounter's diagonal rule: an offset from the origin counts the cells stepped through on
  each axis (a centre half a cell from a corner origin is one step away), so a 15 ft circle round a
  cell's centre on 5-10-5 is that grid's 15 ft reach. A cone is 90° wide; a line is 5 ft wide and
  measured straight; a square is laid from a corner.
- A cell is *struck* when it is inside and the origin sees its centre (:func:`visibility.points_seen`:
  walls and closed doors stop the effect as they stop sight).
- *Cover* (Group d10): a creature is under cover when the origin sees some but not all of its
  footprint's four corners (each taken a twentieth of a cell inside, so a wall along its edge on the
  far side is not counted).

Placing a template asks these on every mouse move: only a window round the origin is looked at,
and only the blockers in its box are tested.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from lnl_desktop.core.map.grid import _EPS, Cell, DiagonalRule
from lnl_desktop.core.map.visibility import points_seen
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lnl_desktop.core.map.grid import BoolArray
    from lnl_desktop.core.map.terrain import GridMap

np = lazy_module("numpy")

MAX_AREA_FT = 200  # the largest size: a 200 ft cone already covers most of a big map
CONE_DEG = 90.0  # RULES §14 [D]: a cone is 90° wide
_CORNER_INSET = 0.05  # cells: a creature's corners, taken just inside its footprint


class AreaShape(StrEnum):
    """RULES §14's shapes, as virtual tabletops draw them."""

    CIRCLE = "circle"  # a radius from a point (a cell's corner or centre)
    CONE = "cone"  # 90° wide, a length, from the caster's cell edge
    LINE = "line"  # 5 ft wide, a length
    SQUARE = "square"  # a side, placed by a corner


def snap_origin(shape: AreaShape, point: tuple[float, float]) -> tuple[float, float]:
    """Where a template's origin goes for a point the GM pressed: a circle's to the nearest cell
    corner or centre, a cone's and a line's to the nearest corner, edge middle or centre (a caster's
    cell edge), a square's to the nearest corner."""
    x, y = point
    if shape is AreaShape.SQUARE:
        return (float(round(x)), float(round(y)))
    halves = (round(x * 2) / 2, round(y * 2) / 2)
    if shape is not AreaShape.CIRCLE:
        return halves
    # Corners (both whole) and centres (both halves): the nearer of the two lattices.
    corner = (float(round(x)), float(round(y)))
    centre = (math.floor(x) + 0.5, math.floor(y) + 0.5)
    if (x - corner[0]) ** 2 + (y - corner[1]) ** 2 <= (x - centre[0]) ** 2 + (y - centre[1]) ** 2:
        return corner
    return centre


def _steps(d: float) -> int:
    """Cells stepped through along one axis to an offset ``d`` (cells) from the origin."""
    return math.ceil(abs(d) - 1e-9)


def grid_feet(dx: float, dy: float, rule: DiagonalRule) -> float:
    """The distance along the grid in ``rule`` to an offset of ``dx, dy`` cells from an origin
    (each axis counted in whole cells stepped through)."""
    ax, ay = _steps(dx), _steps(dy)
    return float(_rule_cells(np.array([ax]), np.array([ay]), rule)[0] * 5)


def _rule_cells(ax: object, ay: object, rule: DiagonalRule) -> object:
    """Cells along the grid for steps ``ax, ay`` (arrays), as :func:`grid.distance_ft` counts them."""
    hi, lo = np.maximum(ax, ay), np.minimum(ax, ay)
    if rule is DiagonalRule.FIVE:
        return hi
    if rule is DiagonalRule.EUCLIDEAN:
        return np.where(hi <= 1, hi, np.hypot(ax, ay))
    return hi + lo // 2


def snap_size(feet: float) -> int:
    """A dragged size to the nearest 5 ft, at least 5 ft."""
    return max(5, math.floor(feet / 5 + 0.5) * 5)


def drag_size(shape: AreaShape, origin: tuple[float, float], point: tuple[float, float], rule: DiagonalRule) -> int:
    """The size a drag from ``origin`` to ``point`` asks for, in feet, snapped to 5 ft: a circle's
    radius and a cone's length along the grid (so a cursor on a cell's centre reads that cell's
    distance), a line's straight, a square's side the larger of the two offsets."""
    dx, dy = point[0] - origin[0], point[1] - origin[1]
    if shape is AreaShape.LINE:
        return snap_size(math.hypot(dx, dy) * 5)
    if shape is AreaShape.SQUARE:
        return snap_size(max(abs(dx), abs(dy)) * 5)
    return snap_size(grid_feet(dx, dy, rule))


def _unit(direction: float) -> tuple[float, float]:
    rad = math.radians(direction)
    return (math.sin(rad), -math.cos(rad))


@dataclass(frozen=True)
class Strike:
    """The cells of a window of the map, ``(x0, y0)`` its top-left cell: ``inside`` the shape, and
    ``struck`` (inside and seen from the origin), boolean arrays indexed ``[y, x]``."""

    x0: int
    y0: int
    inside: BoolArray
    struck: BoolArray

    def cells(self, which: str = "struck") -> list[Cell]:
        ys, xs = np.nonzero(self.struck if which == "struck" else self.inside)
        return list(zip((xs + self.x0).tolist(), (ys + self.y0).tolist(), strict=True))

    def shielded(self) -> list[Cell]:
        ys, xs = np.nonzero(self.inside & ~self.struck)
        return list(zip((xs + self.x0).tolist(), (ys + self.y0).tolist(), strict=True))

    def hits(self, anchor: Cell, size: int) -> bool:
        """Whether a creature of ``size`` at ``anchor`` has any cell struck."""
        h, w = self.struck.shape
        x0, y0 = anchor[0] - self.x0, anchor[1] - self.y0
        xa, ya = max(0, x0), max(0, y0)
        xb, yb = min(w, x0 + size), min(h, y0 + size)
        return xa < xb and ya < yb and bool(self.struck[ya:yb, xa:xb].any())


def inside_window(
    shape: AreaShape,
    origin: tuple[float, float],
    size_ft: int,
    direction: float,
    width: int,
    height: int,
    rule: DiagonalRule,
) -> tuple[int, int, BoolArray]:
    """The cells of a ``width`` x ``height`` map whose centre is inside the shape: ``(x0, y0,
    mask)``, the mask over the window round the origin that can hold any."""
    ox, oy = origin
    reach = size_ft / 5.0
    x0 = max(0, math.floor(ox - reach) - 1)
    y0 = max(0, math.floor(oy - reach) - 1)
    x1 = min(width, math.ceil(ox + reach) + 1)
    y1 = min(height, math.ceil(oy + reach) + 1)
    if x1 <= x0 or y1 <= y0:
        return x0, y0, np.zeros((0, 0), dtype=np.bool_)
    dx = (np.arange(x0, x1, dtype=np.float64) + 0.5 - ox)[np.newaxis, :]
    dy = (np.arange(y0, y1, dtype=np.float64) + 0.5 - oy)[:, np.newaxis]
    dx, dy = np.broadcast_arrays(dx, dy)
    n = size_ft // 5
    if shape is AreaShape.SQUARE:
        ux, uy = _unit(direction)
        sx = 1 if ux >= 0 else -1
        sy = 1 if uy >= 0 else -1
        inside = (dx * sx > 0) & (dx * sx < n) & (dy * sy > 0) & (dy * sy < n)
        return x0, y0, inside
    if shape is AreaShape.LINE:
        ux, uy = _unit(direction)
        along = dx * ux + dy * uy
        across = dx * uy - dy * ux
        # 5 ft wide: half a cell each side, one side's edge in (a line along cell edges takes one row).
        inside = (along > _EPS) & (along <= n + _EPS) & (across > -0.5 + _EPS) & (across <= 0.5 + _EPS)
        return x0, y0, inside
    ax = np.ceil(np.abs(dx) - 1e-9)
    ay = np.ceil(np.abs(dy) - 1e-9)
    inside = _rule_cells(ax, ay, rule) <= n + _EPS
    if shape is AreaShape.CONE:
        bearing = np.degrees(np.arctan2(dx, -dy)) % 360.0
        diff = np.abs(bearing - direction) % 360.0
        diff = np.minimum(diff, 360.0 - diff)
        inside &= diff <= CONE_DEG / 2 + 1e-6
        inside &= (np.abs(dx) > _EPS) | (np.abs(dy) > _EPS)  # not the cell the cone starts from
    return x0, y0, inside


def strike(
    grid_map: GridMap,
    shape: AreaShape,
    origin: tuple[float, float],
    size_ft: int,
    direction: float,
    rule: DiagonalRule,
) -> Strike:
    """The cells a template strikes on ``grid_map``: inside it and seen from its origin."""
    x0, y0, inside = inside_window(shape, origin, size_ft, direction, grid_map.width, grid_map.height, rule)
    struck = inside.copy()
    ys, xs = np.nonzero(inside)
    if ys.size:
        seen = points_seen(grid_map, origin, xs + x0 + 0.5, ys + y0 + 0.5)
        struck[ys[~seen], xs[~seen]] = False
    return Strike(x0, y0, inside, struck)


def corners_seen(grid_map: GridMap, origin: tuple[float, float], anchor: Cell, size: int) -> int:
    """How many of the four corners of a creature's footprint the origin sees (0 to 4)."""
    x, y = anchor
    lo, hi = _CORNER_INSET, size - _CORNER_INSET
    xs = np.array([x + lo, x + hi, x + lo, x + hi])
    ys = np.array([y + lo, y + lo, y + hi, y + hi])
    return int(points_seen(grid_map, origin, xs, ys).sum())


def under_cover(grid_map: GridMap, origin: tuple[float, float], anchor: Cell, size: int) -> bool:
    """RULES §14 [D], Group d10: some but not all of the creature's corners seen from the origin."""
    return 0 < corners_seen(grid_map, origin, anchor, size) < 4


@dataclass(frozen=True)
class Struck:
    """A combatant an area strikes: whether the origin sees only part of it (Group d10's cover)."""

    combatant: str
    cover: bool


class Placed(Protocol):
    """What :func:`struck_by` reads of an encounter: its map, its roster and their tokens."""

    @property
    def map(self) -> Any: ...  # the encounter's map grid, read as a GridMap
    @property
    def combatants(self) -> Sequence[Any]: ...
    @property
    def tokens(self) -> Mapping[str, Any]: ...


def struck_by(
    encounter: Placed,
    shape: AreaShape,
    origin: tuple[float, float],
    size_ft: int,
    direction: float,
    *,
    cover_counts: bool = True,
) -> tuple[Strike, list[Struck]]:
    """Who a template strikes: the cells an area strikes and every combatant on the map with a cell
    among them, in the roster's order (friends too: RULES §14 spares nobody), each with whether it is
    under cover. ``cover_counts`` False (a ruleset where cover changes nothing): nobody is."""
    grid = encounter.map
    area = strike(grid, shape, origin, size_ft, direction, grid.diagonal)
    out: list[Struck] = []
    for c in encounter.combatants:
        token = encounter.tokens.get(c.id)
        if token is None or not area.hits(token.cell, c.size):
            continue
        out.append(Struck(c.id, cover_counts and under_cover(grid, origin, token.cell, c.size)))
    return area, out


def cover_counts(areas: Any) -> bool:
    """Whether cover changes anything in a ruleset's area effects (its ``areas`` capability, None
    for a ruleset without area effects: then nobody's cover counts)."""
    return areas is not None and bool(areas.spec().cover)

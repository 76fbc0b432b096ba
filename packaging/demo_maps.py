"""Battle-map pictures for the demo encounters, painted procedurally and kept in each .lnl file.

    .venv/bin/python packaging/demo_maps.py            # repaint all four demos
    .venv/bin/python packaging/demo_maps.py --check    # paint, write nothing, print the sizes

Each demo's picture follows its map: wall cells (and wall segments) are stone masonry with a
shadow, doors are wood, difficult cells are water shallows where they run to the map's edge (the
ford's river, the mill's stream, the brook below the tower) and thickets elsewhere; floors,
roads and the mill's wheel are placed by the plan of each demo below, in cells. The painting is
numpy arrays (value noise, distance fields), seeded from the file's name, so a re-run writes the
same bytes; Qt only encodes the JPEG. The picture goes into the file through core.storage as an
imported map's does (``Background`` with ``data``), lined up with the grid: ``cell_px`` pixels a
cell, offsets 0. Nothing else in the encounter changes.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import sys
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from lnl_desktop.core.encounter.map_model import Background, MapGrid  # noqa: E402
from lnl_desktop.core.encounter.model import Encounter  # noqa: E402
from lnl_desktop.core.files import storage  # noqa: E402

ENCOUNTERS = ROOT / "resources" / "encounters"
CELL_PX = 64  # picture pixels a grid cell: the map's own scene units, so the picture is drawn 1:1
JPEG_QUALITY = 85
MAX_FILE_BYTES = 1_000_000

Array = np.ndarray
Rgb = tuple[float, float, float]
CellXY = tuple[float, float]


@dataclass(frozen=True)
class Plan:
    """What a demo's map shows beyond its walls and difficult cells, in cells (x right, y down)."""

    # x0, y0, x1, y1 inclusive, and "flagstones", "tower" (paved in rings) or "planks"
    floors: tuple[tuple[int, int, int, int, str], ...] = ()
    roads: tuple[tuple[CellXY, ...], ...] = ()  # dirt roads as polylines through cell coordinates
    fords: tuple[tuple[CellXY, ...], ...] = ()  # stepping stones along these lines where they cross water
    wheel: tuple[float, float, float, float] | None = None  # a mill wheel's box: x0, y0, x1, y1
    millstone: CellXY | None = None
    sacks: tuple[CellXY, ...] = ()
    rubble: tuple[CellXY, ...] = ()  # centres of scattered fallen stones


TOWER = Plan(
    floors=((11, 0, 16, 2, "tower"),),
    roads=(((-1.0, 7.6), (4.0, 7.2), (8.5, 6.4), (12.0, 5.0), (13.8, 3.4), (14.2, 2.0)),),
    rubble=((13.2, 3.6), (16.8, 3.3), (9.4, 2.6), (21.3, 2.4), (7.4, 12.4), (18.7, 13.2), (15.8, 1.2)),
)
PLANS: dict[str, Plan] = {
    "hill-giant": TOWER,
    "hill-giant-classic": TOWER,
    "goblin-ambush-osr": Plan(
        floors=((9, 1, 14, 3, "flagstones"),),
        roads=(
            ((-1.0, 8.3), (5.0, 8.1), (9.0, 8.6), (11.9, 8.5), (15.0, 8.0), (19.0, 7.4), (25.0, 7.0)),
            ((6.2, 8.2), (7.6, 6.0), (9.8, 4.6), (11.5, 3.6)),
        ),
        fords=(((10.6, 8.55), (13.4, 8.45)),),
        rubble=((7.5, 3.4), (16.3, 1.6), (3.0, 11.0), (21.6, 11.6), (15.6, 4.3)),
    ),
    "bandit-mill-d10": Plan(
        floors=((10, 3, 14, 6, "planks"),),
        roads=(
            ((-1.0, 8.6), (5.0, 8.3), (9.5, 7.8), (12.5, 6.9)),
            ((12.5, 7.4), (16.0, 8.4), (20.0, 9.0), (21.5, 11.0), (22.3, 14.0)),
        ),
        fords=(((21.9, 13.6), (22.6, 16.4)),),
        wheel=(15.55, 2.7, 16.6, 6.3),
        millstone=(12.5, 3.8),
        sacks=((10.35, 5.3), (10.4, 5.75), (13.7, 3.35)),
        rubble=((4.5, 11.4), (18.6, 12.3)),
    ),
}


# -- noise and shapes ------------------------------------------------------------------------------


def _smooth(t: Array) -> Array:
    return t * t * (3 - 2 * t)


def _step(edge0: float, edge1: float, x: Array) -> Array:
    return _smooth(np.clip((x - edge0) / (edge1 - edge0), 0.0, 1.0))


def _blur(a: Array, r: int) -> Array:
    """A box blur of radius ``r`` pixels, twice (close to a Gaussian), edges held."""
    for _ in range(2):
        for axis in (0, 1):
            pad = [(0, 0), (0, 0)]
            pad[axis] = (r + 1, r)
            c = np.cumsum(np.pad(a, pad, mode="edge"), axis=axis, dtype=np.float64)
            n = a.shape[axis]
            hi = np.take(c, np.arange(2 * r + 1, 2 * r + 1 + n), axis=axis)
            lo = np.take(c, np.arange(0, n), axis=axis)
            a = ((hi - lo) / (2 * r + 1)).astype(np.float32)
    return a


class Canvas:
    """The picture being painted: RGB floats, and the pixel coordinates in cells."""

    def __init__(self, width: int, height: int, px: int, seed: int) -> None:
        self.px = px
        self.h, self.w = height * px, width * px
        self.cells = (width, height)
        self.rng = np.random.default_rng(seed)
        self.x = ((np.arange(self.w, dtype=np.float32) + 0.5) / px)[None, :]
        self.y = ((np.arange(self.h, dtype=np.float32) + 0.5) / px)[:, None]
        self.rgb = np.zeros((self.h, self.w, 3), np.float32)

    # Noise scales are in cells, so a picture painted at another cell_px shows the same map.
    def noise(self, sy: float, sx: float | None = None) -> Array:
        """Value noise in 0..1 with features ``sy`` x ``sx`` cells."""
        sx = sy if sx is None else sx
        v = (self.y[:, 0] / sy).astype(np.float32)
        u = (self.x[0] / sx).astype(np.float32)
        grid = self.rng.random((int(v[-1]) + 3, int(u[-1]) + 3), dtype=np.float32)
        j, i = v.astype(int), u.astype(int)
        tv, tu = _smooth(v - j)[:, None], _smooth(u - i)[None, :]
        a, b = grid[np.ix_(j, i)], grid[np.ix_(j, i + 1)]
        c, d = grid[np.ix_(j + 1, i)], grid[np.ix_(j + 1, i + 1)]
        top = a + (b - a) * tu
        return top + (c + (d - c) * tu - top) * tv

    def fbm(self, scale: float, octaves: int = 4, stretch: float = 1.0) -> Array:
        total = np.zeros((self.h, self.w), np.float32)
        weight = 0.0
        for k in range(octaves):
            amp = 0.5**k
            s = scale / 2**k
            total += amp * self.noise(s, s * stretch)
            weight += amp
        return total / weight

    def grain(self) -> Array:
        return self.rng.random((self.h, self.w), dtype=np.float32)

    def cells_mask(self, cells: Iterable[tuple[int, int]]) -> Array:
        """1 on the given cells, 0 elsewhere, per pixel, hard-edged."""
        width, height = self.cells
        grid = np.zeros((height, width), np.float32)
        for x, y in cells:
            grid[y, x] = 1.0
        return np.repeat(np.repeat(grid, self.px, axis=0), self.px, axis=1)

    def cells_field(self, cells: Iterable[tuple[int, int]]) -> Array:
        """The given cells as a smooth field: 1 at their centres, 0.5 on their outer edges."""
        width, height = self.cells
        grid = np.zeros((height + 2, width + 2), np.float32)
        for x, y in cells:
            grid[y + 1, x + 1] = 1.0
        # Cells off the map repeat the edge, so a river runs out of the picture rather than ending.
        grid[0], grid[-1] = grid[1], grid[-2]
        grid[:, 0], grid[:, -1] = grid[:, 1], grid[:, -2]
        v = np.clip(self.y[:, 0] + 0.5, 0, height + 1)
        u = np.clip(self.x[0] + 0.5, 0, width + 1)
        j = np.minimum(v.astype(int), height)
        i = np.minimum(u.astype(int), width)
        tv, tu = (v - j)[:, None], (u - i)[None, :]
        a, b = grid[np.ix_(j, i)], grid[np.ix_(j, i + 1)]
        c, d = grid[np.ix_(j + 1, i)], grid[np.ix_(j + 1, i + 1)]
        top = a + (b - a) * tu
        return top + (c + (d - c) * tu - top) * tv

    def distance_to(self, points: Sequence[CellXY]) -> Array:
        """Distance in cells from each pixel to the polyline through ``points``."""
        best = np.full((self.h, self.w), np.inf, np.float32)
        for (ax, ay), (bx, by) in itertools.pairwise(points):
            dx, dy = bx - ax, by - ay
            t = np.clip(((self.x - ax) * dx + (self.y - ay) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
            best = np.minimum(best, np.hypot(self.x - ax - t * dx, self.y - ay - t * dy))
        return best

    def lay(self, mask: Array, color: Array | Rgb) -> None:
        """Paint ``color`` where ``mask`` is 1, blended where it is between."""
        m = np.clip(mask, 0.0, 1.0)[..., None]
        self.rgb += (np.asarray(color, np.float32) - self.rgb) * m

    def shade(self, factor: Array) -> None:
        self.rgb *= factor[..., None]


def _mix(a: Rgb, b: Rgb, t: Array) -> Array:
    a_, b_ = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return a_ + (b_ - a_) * np.clip(t, 0.0, 1.0)[..., None]


# -- textures --------------------------------------------------------------------------------------


def _grass(c: Canvas) -> Array:
    broad = c.fbm(5.0, 4)
    dry = c.fbm(3.0, 3)
    # Light and soft: the grid's thin dark lines must read over it.
    color = _mix((0.45, 0.53, 0.32), (0.56, 0.62, 0.38), _step(0.3, 0.7, broad))
    straw = np.asarray((0.66, 0.64, 0.43), np.float32)
    color = color + (straw - color) * (_step(0.55, 0.75, dry) * 0.6)[..., None]  # drier patches
    tufts = c.noise(0.09, 0.05)
    blades = 0.9 + 0.12 * tufts + 0.08 * (c.grain() - 0.5) + 0.08 * (c.fbm(0.6, 2) - 0.5)
    return color * blades[..., None]


def _dirt(c: Canvas) -> Array:
    tone = c.fbm(1.5, 4)
    color = _mix((0.50, 0.41, 0.29), (0.63, 0.53, 0.38), tone)
    pebbles = _step(0.78, 0.82, c.noise(0.07)) * 0.12
    return color * (0.94 + 0.08 * (c.grain() - 0.5) - pebbles)[..., None] + pebbles[..., None] * 0.5


def _courses(c: Canvas, height: float, lengths: tuple[float, float], gap: float) -> tuple[Array, Array]:
    """Stones (or planks) laid in courses: per pixel, a tone for its stone (0..1) and 1 in the joints."""
    tone = np.zeros((c.h, c.w), np.float32)
    joint = np.zeros((c.h, c.w), np.float32)
    px = c.px
    y = 0.0
    while y < c.h:
        h = height * px * c.rng.uniform(0.85, 1.15)
        y0, y1 = round(y), round(y + h)
        x = -c.rng.uniform(0, lengths[1]) * px
        while x < c.w:
            length = c.rng.uniform(*lengths) * px
            x0, x1 = max(0, round(x)), min(c.w, round(x + length))
            if x1 > x0:
                tone[y0:y1, x0:x1] = c.rng.random()
                g = max(1, round(gap * px))
                joint[y0:y1, x0 : min(x1, x0 + g)] = 1.0
            x += length
        joint[y0 : min(y1, y0 + max(1, round(gap * px))), :] = 1.0
        y += h
    return tone, joint


def _flagstones(c: Canvas) -> Array:
    tone, joint = _courses(c, 0.42, (0.35, 0.8), 0.035)
    wear = c.fbm(0.8, 3)
    color = _mix((0.52, 0.50, 0.46), (0.68, 0.66, 0.60), 0.55 * tone + 0.45 * wear)
    color = color * (0.95 + 0.07 * (c.grain() - 0.5))[..., None]
    joints = _blur(joint, 1)
    return color * (1 - 0.45 * joints)[..., None]


def _round_paving(c: Canvas, centre: CellXY) -> Array:
    """A tower's floor: stones laid in rings round ``centre``."""
    dx, dy = c.x - centre[0], c.y - centre[1]
    r = np.hypot(dx, dy)
    ring = np.floor(r / 0.45)
    # Stones about 0.55 cells along each ring; every ring starts at its own angle.
    angle = (np.arctan2(dy, dx) / (2 * np.pi) + 0.5 + ring * 0.37) % 1.0
    count = np.maximum(6, np.round(2 * np.pi * (ring + 0.5) * 0.45 / 0.55))
    seg = np.floor(angle * count)
    tone = np.sin(ring * 12.9898 + seg * 78.233) * 43758.5453 % 1.0  # a fixed tone per stone
    along = np.minimum(angle * count - seg, 1 - (angle * count - seg)) * 2 * np.pi * np.maximum(r, 0.1) / count
    across = np.minimum(r / 0.45 - ring, 1 - (r / 0.45 - ring)) * 0.45
    joint = ((along < 0.025) | (across < 0.02)).astype(np.float32)
    color = _mix((0.52, 0.50, 0.46), (0.68, 0.66, 0.60), 0.55 * np.abs(tone) + 0.45 * c.fbm(0.8, 3))
    color = color * (0.95 + 0.07 * (c.grain() - 0.5))[..., None] * (1 - 0.45 * _blur(joint, 1))[..., None]
    keystone = _step(0.42, 0.38, r)  # one round stone at the heart, a little paler
    return color * (1 + 0.1 * keystone)[..., None]


def _planks(c: Canvas) -> Array:
    tone, joint = _courses(c, 0.25, (1.4, 3.4), 0.025)
    grain = c.noise(0.03, 0.9) * 0.6 + c.noise(0.015, 0.4) * 0.4
    color = _mix((0.50, 0.35, 0.21), (0.66, 0.49, 0.31), 0.6 * tone + 0.4 * grain)
    color = color * (0.94 + 0.06 * (c.grain() - 0.5))[..., None]
    return color * (1 - 0.55 * _blur(joint, 1))[..., None]


def _masonry(c: Canvas) -> Array:
    tone, joint = _courses(c, 0.3, (0.35, 0.7), 0.045)
    color = _mix((0.50, 0.49, 0.46), (0.70, 0.68, 0.63), 0.6 * tone + 0.4 * c.fbm(0.5, 3))
    return color * (1 - 0.5 * _blur(joint, 1))[..., None]


# -- the map's parts -------------------------------------------------------------------------------


def _regions(cells: frozenset[tuple[int, int]]) -> list[set[tuple[int, int]]]:
    """Connected groups of cells (side by side)."""
    left = set(cells)
    groups = []
    while left:
        todo = [left.pop()]
        group = set(todo)
        while todo:
            x, y = todo.pop()
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in left:
                    left.remove(n)
                    group.add(n)
                    todo.append(n)
        groups.append(group)
    return groups


def _touches_edge(group: set[tuple[int, int]], width: int, height: int) -> bool:
    return any(x in (0, width - 1) or y in (0, height - 1) for x, y in group)


def _water(c: Canvas, cells: set[tuple[int, int]]) -> Array:
    """Shallows on ``cells``: banks of mud and pebbles at their edges, ripples along the flow."""
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    along_y = (max(ys) - min(ys)) >= (max(xs) - min(xs))
    f = c.cells_field(cells)
    wobble = c.fbm(1.2, 3) - 0.5
    level = f + 0.3 * wobble
    water = _step(0.5, 0.56, level)
    bank = _step(0.36, 0.5, level) * (1 - water)
    mud = _mix((0.36, 0.31, 0.22), (0.46, 0.40, 0.29), c.fbm(0.4, 2))
    c.lay(bank * 0.85, mud)
    depth = _step(0.55, 0.95, level)
    color = _mix((0.46, 0.64, 0.66), (0.27, 0.50, 0.60), depth * (0.75 + 0.5 * c.fbm(1.5, 2)))
    stones = _step(0.62, 0.7, c.fbm(0.25, 2)) * (1 - depth) * 0.35  # the bed showing through
    color = color + (np.asarray((0.55, 0.55, 0.45), np.float32) - color) * stones[..., None]
    ripple = c.noise(0.9, 0.06) if along_y else c.noise(0.06, 0.9)
    fine = c.noise(0.35, 0.03) if along_y else c.noise(0.03, 0.35)
    glint = _step(0.72, 0.8, 0.6 * ripple + 0.4 * fine)
    color = color * (0.93 + 0.12 * ripple)[..., None] + glint[..., None] * 0.16
    foam = _step(0.5, 0.53, level) * (1 - _step(0.53, 0.6, level)) * 0.5  # a pale line where water meets bank
    color = color + foam[..., None] * 0.25
    c.lay(water, color)
    return water


def _bank_stones(c: Canvas, cells: set[tuple[int, int]]) -> None:
    """Rocks on the banks, along the edges of the water's cells that face dry ground."""
    width, height = c.cells
    for x, y in sorted(cells):
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (x + dx, y + dy)
            if n in cells or not (0 <= n[0] < width and 0 <= n[1] < height) or c.rng.random() < 0.55:
                continue
            along = c.rng.uniform(0.15, 0.85)
            at = (x + 0.5 + dx * 0.5 + abs(dy) * (along - 0.5), y + 0.5 + dy * 0.5 + abs(dx) * (along - 0.5))
            _stones(c, at, 2, 0.07, (0.05, 0.11))


def _thicket(c: Canvas, cells: set[tuple[int, int]]) -> None:
    """Brambles and bushes filling ``cells``: round shrubs lit from the top left."""
    x0, x1 = min(x for x, _ in cells), max(x for x, _ in cells) + 1
    y0, y1 = min(y for _, y in cells), max(y for _, y in cells) + 1
    ground = c.cells_field(cells)
    c.lay(_step(0.35, 0.6, ground + 0.2 * (c.fbm(0.6, 2) - 0.5)) * 0.8, (0.30, 0.30, 0.18))
    leaves = c.fbm(0.12, 2)
    n = int((x1 - x0) * (y1 - y0) * 3)
    for _ in range(n):
        bx, by = c.rng.uniform(x0 + 0.2, x1 - 0.2), c.rng.uniform(y0 + 0.2, y1 - 0.2)
        if (int(bx), int(by)) not in cells:
            continue
        r = c.rng.uniform(0.28, 0.42)
        d = np.hypot(c.x - bx, c.y - by) / r
        edge = 1 + 0.25 * (leaves - 0.5)
        bush = _step(edge, edge - 0.12, d)
        shadow = _step(1.25, 0.9, np.hypot(c.x - bx - 0.08, c.y - by - 0.1) / r) * 0.45
        c.shade(1 - shadow * (1 - bush))
        lit = np.clip(1 - np.hypot(c.x - bx + 0.35 * r, c.y - by + 0.35 * r) / (1.4 * r), 0, 1)
        color = _mix((0.17, 0.27, 0.13), (0.38, 0.50, 0.22), 0.65 * lit + 0.35 * leaves)
        c.lay(bush, color)


def _stones(c: Canvas, centre: CellXY, count: int, spread: float, size: tuple[float, float]) -> None:
    """A few loose stones around ``centre``, with their shadows."""
    for _ in range(count):
        sx = centre[0] + c.rng.normal(0, spread)
        sy = centre[1] + c.rng.normal(0, spread)
        r = c.rng.uniform(*size)
        d = np.hypot((c.x - sx) / 1.2, c.y - sy) / r
        c.shade(1 - 0.35 * _step(1.3, 0.9, np.hypot((c.x - sx - 0.4 * r) / 1.2, c.y - sy - 0.5 * r) / r))
        lit = np.clip(1 - np.hypot(c.x - sx + 0.4 * r, c.y - sy + 0.4 * r) / (1.6 * r), 0, 1)
        tone = c.rng.uniform(0.45, 0.6)
        c.lay(_step(1.0, 0.85, d), _mix((tone, tone * 0.98, tone * 0.94), (0.78, 0.77, 0.72), lit))


def _walls(c: Canvas, grid: MapGrid) -> None:
    """Wall cells and wall segments as stone masonry casting a shadow; doors as planks."""
    mask = c.cells_mask(grid.walls)
    for segment in grid.segments:
        mask = np.maximum(mask, _step(0.14, 0.1, c.distance_to((segment.a, segment.b))))
    if not mask.any():
        return
    r = max(2, c.px // 10)
    shadow = np.roll(np.roll(_blur(mask, r), c.px // 9, axis=0), c.px // 12, axis=1)
    c.shade(1 - 0.5 * shadow * (1 - mask))
    soft = _blur(mask, max(1, c.px // 24))
    gy, gx = np.gradient(soft)
    light = np.clip((gx + gy) * c.px / 3, -1, 1)  # lit on the top-left faces, dark bottom-right
    stone = _masonry(c) * (1 + 0.35 * light)[..., None] * (0.8 + 0.2 * soft)[..., None]
    c.lay(mask, stone)
    for door in grid.doors:
        d = c.distance_to((door.a, door.b))
        offset = ((door.a[0] + 0.06, door.a[1] + 0.08), (door.b[0] + 0.06, door.b[1] + 0.08))
        c.shade(1 - 0.3 * _step(0.2, 0.1, c.distance_to(offset)))
        wood = _mix((0.42, 0.27, 0.14), (0.60, 0.42, 0.24), c.noise(0.03, 0.6))
        c.lay(_step(0.11, 0.08, d), (0.22, 0.14, 0.08))
        c.lay(_step(0.085, 0.06, d), wood)


def _floor(c: Canvas, x0: int, y0: int, x1: int, y1: int, kind: str) -> None:
    cells = [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    f = c.cells_field(cells)
    if kind == "tower":
        texture = _round_paving(c, ((x0 + x1 + 1) / 2, (y0 + y1 + 1) / 2 - 0.3))
    else:
        texture = _flagstones(c) if kind == "flagstones" else _planks(c)
    # Old stones are broken at the open edges and grown over; a floor of planks ends square.
    broken = kind != "planks"
    edge = _step(0.42, 0.62, f + 0.3 * (c.fbm(0.7, 3) - 0.5)) if broken else c.cells_mask(cells)
    c.lay(edge, texture)


def _road(c: Canvas, points: Sequence[CellXY]) -> None:
    d = c.distance_to(points) + 0.18 * (c.fbm(1.0, 3) - 0.5)
    c.shade(1 - 0.12 * _step(0.95, 0.6, d))  # trodden grass at its sides
    c.lay(_step(0.62, 0.45, d), _dirt(c))


def _ford(c: Canvas, points: Sequence[CellXY], water: Array) -> None:
    """Flat stepping stones across the water along ``points``."""
    (ax, ay), (bx, by) = points[0], points[-1]
    steps = max(2, int(np.hypot(bx - ax, by - ay) / 0.38))
    for k in range(steps + 1):
        t = k / steps
        sx = ax + (bx - ax) * t + c.rng.normal(0, 0.04)
        sy = ay + (by - ay) * t + c.rng.normal(0, 0.08)
        r = c.rng.uniform(0.13, 0.19)
        iy, ix = int(min(c.h - 1, max(0, sy * c.px))), int(min(c.w - 1, max(0, sx * c.px)))
        if water[iy, ix] < 0.5:
            continue
        d = np.hypot(c.x - sx, (c.y - sy) * 1.15) / r
        c.shade(1 - 0.3 * _step(1.25, 0.95, np.hypot(c.x - sx - 0.05, (c.y - sy - 0.06) * 1.15) / r))
        lit = np.clip(1 - np.hypot(c.x - sx + 0.4 * r, c.y - sy + 0.4 * r) / (1.6 * r), 0, 1)
        c.lay(_step(1.0, 0.88, d), _mix((0.48, 0.47, 0.42), (0.72, 0.70, 0.64), lit))


def _wheel(c: Canvas, box: tuple[float, float, float, float]) -> None:
    """A mill wheel seen from above against the wall: paddles between two rims, on an axle, in its race."""
    x0, y0, x1, y1 = box
    inside = (c.x >= x0) & (c.x <= x1) & (c.y >= y0) & (c.y <= y1)
    race = (c.x >= x0 - 0.05) & (c.x <= x1 + 0.08) & (c.y >= y0 - 0.2) & (c.y <= y1 + 0.2)
    c.shade(1 - 0.45 * _blur(race.astype(np.float32), max(1, c.px // 8)) * (1 - race))
    c.lay(race.astype(np.float32), _mix((0.16, 0.26, 0.28), (0.24, 0.36, 0.38), c.noise(0.2, 0.05)))
    paddle = ((c.y - y0) / 0.3) % 1.0
    wood = _mix((0.40, 0.27, 0.15), (0.62, 0.45, 0.26), c.noise(0.02, 0.5) * 0.5 + 0.5 * _step(0.0, 0.5, paddle))
    boards = inside & (paddle < 0.62)
    c.lay(boards.astype(np.float32), wood)
    rim = inside & ((c.x - x0 < 0.1) | (x1 - c.x < 0.1))
    c.lay(rim.astype(np.float32), (0.30, 0.20, 0.11))
    axle = (np.abs(c.y - (y0 + y1) / 2) < 0.08) & (c.x > x0 - 0.5) & (c.x < x1 + 0.05)
    c.lay(axle.astype(np.float32), (0.25, 0.22, 0.20))


def _millstone(c: Canvas, centre: CellXY) -> None:
    cx, cy = centre
    d = np.hypot(c.x - cx, c.y - cy)
    c.shade(1 - 0.4 * _step(0.72, 0.55, np.hypot(c.x - cx - 0.07, c.y - cy - 0.09)))
    angle = np.arctan2(c.y - cy, c.x - cx)
    furrows = _step(0.8, 0.9, np.abs(np.sin(angle * 9 + d * 6)))
    lit = np.clip(1 - np.hypot(c.x - cx + 0.25, c.y - cy + 0.25) / 1.1, 0, 1)
    stone = _mix((0.50, 0.49, 0.46), (0.72, 0.71, 0.67), lit) * (1 - 0.18 * furrows)[..., None]
    c.lay(_step(0.56, 0.52, d), (0.35, 0.34, 0.32))
    c.lay(_step(0.52, 0.49, d), stone)
    c.lay(_step(0.1, 0.07, d), (0.18, 0.17, 0.16))


def _sack(c: Canvas, centre: CellXY) -> None:
    cx, cy = centre
    d = np.hypot((c.x - cx) / 1.25, c.y - cy)
    c.shade(1 - 0.3 * _step(0.22, 0.14, np.hypot((c.x - cx - 0.04) / 1.25, c.y - cy - 0.05)))
    lit = np.clip(1 - np.hypot(c.x - cx + 0.06, c.y - cy + 0.06) / 0.3, 0, 1)
    c.lay(_step(0.17, 0.15, d), _mix((0.55, 0.47, 0.33), (0.80, 0.72, 0.55), lit))


def paint(grid: MapGrid, plan: Plan, seed: int, cell_px: int = CELL_PX) -> Array:
    """The picture of ``grid`` by ``plan``: an RGB uint8 array of (height, width) x cell_px pixels."""
    c = Canvas(grid.width, grid.height, cell_px, seed)
    c.rgb[:] = _grass(c)
    for x, y in ((c.rng.uniform(0, grid.width), c.rng.uniform(0, grid.height)) for _ in range(grid.width // 2)):
        _stones(c, (x, y), 2, 0.15, (0.05, 0.1))  # a few pebbles in the grass
    for points in plan.roads:
        _road(c, points)
    water = np.zeros((c.h, c.w), np.float32)
    for group in _regions(grid.difficult):
        if _touches_edge(group, grid.width, grid.height):
            water = np.maximum(water, _water(c, group))
            _bank_stones(c, group)
        else:
            _thicket(c, group)
    for points in plan.fords:
        _ford(c, points, water)
    for x0, y0, x1, y1, kind in plan.floors:
        _floor(c, x0, y0, x1, y1, kind)
    for centre in plan.rubble:
        _stones(c, centre, 5, 0.35, (0.07, 0.16))
    if plan.millstone is not None:
        _millstone(c, plan.millstone)
    for centre in plan.sacks:
        _sack(c, centre)
    if plan.wheel is not None:
        _wheel(c, plan.wheel)
    _walls(c, grid)
    # A soft vignette: the board's edge reads as an edge.
    edge = np.minimum(np.minimum(c.x, grid.width - c.x), np.minimum(c.y, grid.height - c.y))
    c.shade(0.86 + 0.14 * _step(0.0, 2.5, edge))
    return (np.clip(c.rgb, 0.0, 1.0) * 255 + 0.5).astype(np.uint8)


def jpeg(pixels: Array, quality: int = JPEG_QUALITY) -> bytes:
    """``pixels`` (RGB uint8) as a baseline JPEG."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage

    h, w, _ = pixels.shape
    data = np.ascontiguousarray(pixels)
    image = QImage(data.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
    out = QByteArray()
    buffer = QBuffer(out)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "JPG", quality):
        raise RuntimeError("Qt could not write a JPEG (no jpeg image plugin)")
    buffer.close()
    return bytes(out.data())


def seed_of(name: str) -> int:
    return zlib.crc32(name.encode("utf-8"))


def picture_for(encounter: Encounter, name: str, cell_px: int = CELL_PX) -> bytes:
    """The JPEG for the demo called ``name`` (its file's stem)."""
    return jpeg(paint(encounter.map, PLANS.get(name, Plan()), seed_of(name), cell_px))


def background_for(encounter: Encounter, name: str, cell_px: int = CELL_PX) -> Background:
    """The demo's picture kept in the file, lined up with the grid: ``cell_px`` a cell, offsets 0."""
    data = base64.b64encode(picture_for(encounter, name, cell_px)).decode("ascii")
    return Background(image=f"{name}.jpg", cell_px=cell_px, data=data)


def with_picture(text: str, background: Background, source: str) -> str:
    """The encounter file ``text`` with ``background`` as its map's picture and nothing else
    changed: the demos stay the file versions they are (tests read older files through them),
    so only ``encounter.map.background`` of the file's own JSON is set, then the whole is read back
    through core.storage and must be the same encounter but for its picture."""
    document = json.loads(text)
    document["encounter"]["map"]["background"] = background.model_dump(mode="json")
    new_text = json.dumps(document, indent=1, ensure_ascii=False)
    before, after = storage.loads(text, source), storage.loads(new_text, source)
    if after.map.background != background or after.model_dump(exclude={"map": {"background"}}) != before.model_dump(
        exclude={"map": {"background"}}
    ):
        raise ValueError(f"{source}: the encounter would change beyond its picture")
    return new_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="demo .lnl files (default: all in resources/encounters)")
    parser.add_argument("--check", action="store_true", help="paint and report, write nothing")
    args = parser.parse_args(argv)
    files = args.files or sorted(ENCOUNTERS.glob("*.lnl"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        background = background_for(storage.load(path), path.stem)
        try:
            new_text = with_picture(text, background, path.name)
        except ValueError as error:
            print(f"{error}; not written", file=sys.stderr)
            return 1
        size = len(new_text.encode("utf-8"))
        if size >= MAX_FILE_BYTES:
            print(f"{path.name}: {size:,} bytes, over {MAX_FILE_BYTES:,}; not written", file=sys.stderr)
            return 1
        if not args.check and new_text != text:
            storage.write_text_atomic(path, new_text)
        grid = storage.loads(new_text, path.name).map
        print(f"{path.name}: {grid.width * CELL_PX} x {grid.height * CELL_PX} px, {size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

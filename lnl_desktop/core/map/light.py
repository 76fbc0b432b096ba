"""How lit each cell of the map is (RULES §15): the best of the ambient light and every source.

Levels are numbers, brighter is more: 0 dark, 1 dim, 2 normal (bright). A source lights the cells
within its radii that it sees: walls and closed doors stop light as they stop sight, so what a source
at a cell lights is :func:`visibility.visible_mask` from that cell cut to its radii, measured as the map
measures distances (its diagonal rule). Each source's lit window is cached per map, cell and radii,
so a carried torch back on a cell it stood on, or a map repainted, costs an OR of a few windows.
"""

from __future__ import annotations

import math
import weakref
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lnl_desktop.core.map.grid import Cell, DiagonalRule
from lnl_desktop.core.map.terrain import GridMap, Terrain, map_terrain
from lnl_desktop.core.map.visibility import terrain_visible_mask
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
else:
    np = lazy_module("numpy")

DARK, DIM, BRIGHT = 0, 1, 2


@dataclass(frozen=True)
class Shine:
    """A light source where it shines from: the anchor cell and size of what holds it (1 for a
    placed light), feet of bright light and feet of dim light beyond."""

    cell: Cell
    size: int
    bright_ft: int
    dim_ft: int


@dataclass(frozen=True)
class _Window:
    """What one source lights: levels in a window of the map whose top-left cell is ``x0, y0``."""

    x0: int
    y0: int
    levels: NDArray[np.uint8]


_CACHE: OrderedDict[tuple[object, ...], tuple[weakref.ref[Terrain], _Window]] = OrderedDict()
_CACHE_LIMIT = 512


def _window(terrain: Terrain, grid_map: GridMap, shine: Shine) -> _Window:
    key = (id(terrain), shine)
    found = _CACHE.get(key)
    if found is not None and found[0]() is terrain:
        _CACHE.move_to_end(key)
        return found[1]
    window = _lit(terrain, grid_map, shine)
    _CACHE[key] = (weakref.ref(terrain), window)
    while len(_CACHE) > _CACHE_LIMIT:
        _CACHE.popitem(last=False)
    return window


def _lit(terrain: Terrain, grid_map: GridMap, shine: Shine) -> _Window:
    fpc = max(1, grid_map.feet_per_cell)
    reach = math.ceil((shine.bright_ft + shine.dim_ft) / fpc)
    (cx, cy), size = shine.cell, shine.size
    w, h = grid_map.width, grid_map.height
    x0, y0 = max(0, cx - reach), max(0, cy - reach)
    x1, y1 = min(w, cx + size + reach), min(h, cy + size + reach)
    if x0 >= x1 or y0 >= y1:
        return _Window(0, 0, np.zeros((0, 0), dtype=np.uint8))
    seen = terrain_visible_mask(terrain, shine.cell, size)[y0:y1, x0:x1]
    xs = np.arange(x0, x1)
    ys = np.arange(y0, y1)
    # Cells from the nearest cell of the footprint, as token distances are measured.
    dx = np.maximum(0, np.maximum(cx - xs, xs - (cx + size - 1)))[None, :]
    dy = np.maximum(0, np.maximum(cy - ys, ys - (cy + size - 1)))[:, None]
    feet = _feet(dx, dy, grid_map.diagonal, fpc)
    bright = (feet <= shine.bright_ft) if shine.bright_ft > 0 else np.zeros(feet.shape, dtype=bool)
    levels = np.where(bright, BRIGHT, np.where(feet <= shine.bright_ft + shine.dim_ft, DIM, DARK))
    levels = np.where(seen, levels, DARK).astype(np.uint8)
    levels.flags.writeable = False
    return _Window(x0, y0, levels)


def _feet(dx: NDArray[np.int64], dy: NDArray[np.int64], rule: DiagonalRule, fpc: int) -> NDArray[np.float64]:
    """:func:`grid.distance_ft` over arrays of offsets."""
    if rule is DiagonalRule.EUCLIDEAN:
        near = (dx <= 1) & (dy <= 1)
        return np.where(near, np.maximum(dx, dy) * fpc, np.hypot(dx, dy) * fpc)
    diagonals = np.minimum(dx, dy)
    straight = np.maximum(dx, dy) - diagonals
    if rule is DiagonalRule.FIVE:
        return ((straight + diagonals) * fpc).astype(float)
    return ((straight + diagonals + diagonals // 2) * fpc).astype(float)


def light_levels(grid_map: GridMap, ambient: int, shines: Iterable[Shine]) -> NDArray[np.uint8]:
    """Every cell's light as a ``(height, width)`` array indexed ``[y, x]``: the best of ``ambient``
    and each source that reaches it. A new array, the caller's own."""
    terrain = map_terrain(grid_map)
    levels = np.full((grid_map.height, grid_map.width), ambient, dtype=np.uint8)
    if ambient >= BRIGHT:
        return levels
    for shine in shines:
        window = _window(terrain, grid_map, shine)
        h, w = window.levels.shape
        if h and w:
            part = levels[window.y0 : window.y0 + h, window.x0 : window.x0 + w]
            np.maximum(part, window.levels, out=part)
    return levels


def light_at(grid_map: GridMap, ambient: int, shines: Iterable[Shine], cell: Cell) -> int:
    """One cell's light (:func:`light_levels` for a single cell, without the whole map)."""
    best = ambient
    if best >= BRIGHT:
        return best
    terrain = map_terrain(grid_map)
    x, y = cell
    for shine in shines:
        window = _window(terrain, grid_map, shine)
        h, w = window.levels.shape
        if window.x0 <= x < window.x0 + w and window.y0 <= y < window.y0 + h:
            best = max(best, int(window.levels[y - window.y0, x - window.x0]))
            if best >= BRIGHT:
                break
    return best

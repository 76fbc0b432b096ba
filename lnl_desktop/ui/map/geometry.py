"""Cells, scene coordinates and cell masks for the battle map.

A cell ``(x, y)`` covers the scene rect ``(x * CELL_PX, y * CELL_PX, CELL_PX, CELL_PX)``. Sets of
cells (reach, blocked cells, a rules overlay) are handled as numpy masks over a window, then turned
into one scaled QImage for the fill and one QPainterPath for the outline: a few items whatever the
number of cells.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRect, QRectF
from PySide6.QtGui import QColor, QImage, QPainterPath

from lnl_desktop.core.map.grid import Cell, DiagonalRule
from lnl_desktop.lazy import lazy_module
from lnl_desktop.ui.plumbing.style import CELL_PX

if TYPE_CHECKING:
    import numpy as _numpy
    import numpy.typing as npt

    BoolArray = npt.NDArray[_numpy.bool_]

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


def cell_at(point: QPointF) -> Cell:
    """The cell under a scene point (may lie off the map)."""
    return (math.floor(point.x() / CELL_PX), math.floor(point.y() / CELL_PX))


def cell_rect(cell: Cell, size: int = 1) -> QRectF:
    """Scene rect of a token footprint (or one cell)."""
    return QRectF(cell[0] * CELL_PX, cell[1] * CELL_PX, size * CELL_PX, size * CELL_PX)


def footprint_centre(anchor: Cell, size: int = 1) -> QPointF:
    """Scene point at the centre of a footprint."""
    return QPointF((anchor[0] + size / 2) * CELL_PX, (anchor[1] + size / 2) * CELL_PX)


class CellMask:
    """A boolean mask of cells: ``mask[y - y0, x - x0]`` says whether cell ``(x, y)`` is in."""

    __slots__ = ("mask", "x0", "y0")

    def __init__(self, x0: int, y0: int, mask: BoolArray) -> None:
        self.x0 = x0
        self.y0 = y0
        self.mask = mask

    @classmethod
    def from_cells(cls, cells: Iterable[Cell]) -> CellMask:
        cells = list(cells)
        if not cells:
            return cls(0, 0, np.zeros((0, 0), dtype=np.bool_))
        coords = np.fromiter((v for c in cells for v in c), dtype=np.intp, count=2 * len(cells)).reshape(-1, 2)
        x0, y0 = coords.min(axis=0)
        x1, y1 = coords.max(axis=0)
        mask = np.zeros((int(y1 - y0 + 1), int(x1 - x0 + 1)), dtype=np.bool_)
        mask[coords[:, 1] - y0, coords[:, 0] - x0] = True
        return cls(int(x0), int(y0), mask)

    @property
    def empty(self) -> bool:
        return not self.mask.any()

    def grown(self, size: int) -> CellMask:
        """The cells covered by a size-``size`` token on any of these anchors."""
        if size <= 1 or self.mask.size == 0:
            return self
        h, w = self.mask.shape
        out = np.zeros((h + size - 1, w + size - 1), dtype=np.bool_)
        for j in range(size):
            for i in range(size):
                out[j : j + h, i : i + w] |= self.mask
        return CellMask(self.x0, self.y0, out)

    def scene_rect(self) -> QRectF:
        h, w = self.mask.shape
        return QRectF(self.x0 * CELL_PX, self.y0 * CELL_PX, w * CELL_PX, h * CELL_PX)

    def cells(self) -> list[Cell]:
        ys, xs = np.nonzero(self.mask)
        return list(zip((xs + self.x0).tolist(), (ys + self.y0).tolist(), strict=True))

    def image(self, color: QColor) -> QImage:
        """One pixel per cell, ``color`` where set and transparent elsewhere (draw it unsmoothed)."""
        h, w = self.mask.shape
        argb = np.uint32(_premultiplied(color))
        pixels = np.where(self.mask, argb, np.uint32(0)).astype(np.uint32)
        return QImage(pixels.data, w, h, 4 * w, QImage.Format.Format_ARGB32_Premultiplied).copy()

    def outline(self) -> QPainterPath:
        """The boundary of the set as straight segments along cell edges, in scene units."""
        path = QPainterPath()
        if self.mask.size == 0:
            return path
        padded = np.pad(self.mask, 1)
        # Horizontal edges: between rows r-1 and r (r = 0..h), for each column.
        horizontal = padded[1:, 1:-1] != padded[:-1, 1:-1]
        for r, start, end in runs_by_row(horizontal):
            y = (self.y0 + r) * CELL_PX
            path.moveTo((self.x0 + start) * CELL_PX, y)
            path.lineTo((self.x0 + end) * CELL_PX, y)
        vertical = padded[1:-1, 1:] != padded[1:-1, :-1]
        for c, start, end in runs_by_row(vertical.T):
            x = (self.x0 + c) * CELL_PX
            path.moveTo(x, (self.y0 + start) * CELL_PX)
            path.lineTo(x, (self.y0 + end) * CELL_PX)
        return path


def runs_by_row(flags: BoolArray) -> list[tuple[int, int, int]]:
    """(row, start, end) of every run of True in every row, ``[start, end)``, row by row and left to
    right: all rows at once (an outline costs a few array operations, not a few per row: a bow's
    range ring on a press, the light's edges on a 300 x 300 map after a move)."""
    if flags.size == 0 or not flags.any():
        return []
    rim = np.zeros((flags.shape[0], 1), dtype=np.int8)
    steps = np.diff(np.concatenate((rim, flags.astype(np.int8), rim), axis=1), axis=1)
    # Row-major order: in each row the k-th rise pairs with the k-th fall.
    rows, starts = np.nonzero(steps == 1)
    _, ends = np.nonzero(steps == -1)
    return list(zip(rows.tolist(), starts.tolist(), ends.tolist(), strict=True))


def _premultiplied(color: QColor) -> int:
    a = color.alpha()
    r, g, b = (round(v * a / 255) for v in (color.red(), color.green(), color.blue()))
    return (a << 24) | (r << 16) | (g << 8) | b


def hatch_path(cells: Iterable[Cell]) -> QPainterPath:
    """Diagonal '/' hatching for each cell; the stripes line up across neighbouring cells."""
    path = QPainterPath()
    s = CELL_PX
    for x, y in cells:
        left, top = x * s, y * s
        path.moveTo(left + s / 2, top)
        path.lineTo(left, top + s / 2)
        path.moveTo(left + s, top)
        path.lineTo(left, top + s)
        path.moveTo(left + s, top + s / 2)
        path.lineTo(left + s / 2, top + s)
    return path


def cross_path(cells: Iterable[Cell], inset: float = 0.3) -> QPainterPath:
    """A cross in each cell (cells that cannot be entered)."""
    path = QPainterPath()
    s = CELL_PX
    a, b = inset * s, (1 - inset) * s
    for x, y in cells:
        left, top = x * s, y * s
        path.moveTo(left + a, top + a)
        path.lineTo(left + b, top + b)
        path.moveTo(left + b, top + a)
        path.lineTo(left + a, top + b)
    return path


def polyline(points: list[QPointF]) -> QPainterPath:
    path = QPainterPath()
    if points:
        path.moveTo(points[0])
        for point in points[1:]:
            path.lineTo(point)
    return path


# -- fitting the map to a view ------------------------------------------------------------------

FIT_MARGIN_PX = 6  # room round a fitted map for its edge line: no more grey than the aspect ratio needs


def fit_scale(map_rect: QRectF, viewport: QRect | QRectF, margin_px: float, max_zoom: float) -> float | None:
    """The zoom that shows ``map_rect`` whole in ``viewport`` with ``margin_px`` on every side, filling
    it in one dimension (capped at ``max_zoom``); None while either is empty."""
    if map_rect.isEmpty() or viewport.isEmpty():
        return None
    room_w = max(1.0, viewport.width() - 2 * margin_px)
    room_h = max(1.0, viewport.height() - 2 * margin_px)
    return min(room_w / map_rect.width(), room_h / map_rect.height(), max_zoom)


# -- distances, the core's own numbers over a window ------------------------------------------


# Per rule and feet per cell, one table from (0, 0) out to the farthest gap asked for yet; a window
# takes its corner. Grown by whole blocks: a press or a hover must not build one cell by cell.
_TABLES: dict[tuple[DiagonalRule, int], npt.NDArray[np.float64]] = {}
_TABLE_BLOCK = 64


def _distance_table(rule: DiagonalRule, feet_per_cell: int, gap_x: int, gap_y: int) -> npt.NDArray[np.float64]:
    """Feet for every gap ``[0, gap_y] x [0, gap_x]`` (indexed ``[gy, gx]``), read-only."""
    key = (rule, feet_per_cell)
    table = _TABLES.get(key)
    if table is None or table.shape[0] <= max(gap_x, gap_y):
        side = (max(gap_x, gap_y) // _TABLE_BLOCK + 1) * _TABLE_BLOCK
        table = _TABLES[key] = _distances(rule, feet_per_cell, side)
    return table[: gap_y + 1, : gap_x + 1]


def _distances(rule: DiagonalRule, feet_per_cell: int, side: int) -> npt.NDArray[np.float64]:
    """:func:`core.map.grid.distance_ft` for every gap up to ``side`` cells on each axis, with its very
    numbers (the same integer sums; the same ``math.hypot``), worked out over arrays."""
    gaps = np.arange(side, dtype=np.int64)
    ax, ay = gaps[np.newaxis, :], gaps[:, np.newaxis]
    longer, diagonals = np.maximum(ax, ay), np.minimum(ax, ay)
    if rule is DiagonalRule.EUCLIDEAN:
        hypot = np.frompyfunc(math.hypot, 2, 1)(ax, ay).astype(np.float64) * feet_per_cell
        table = np.where(longer <= 1, (longer * feet_per_cell).astype(np.float64), hypot)
    elif rule is DiagonalRule.FIVE:
        table = (longer * feet_per_cell).astype(np.float64)
    else:
        table = ((longer + diagonals // 2) * feet_per_cell).astype(np.float64)
    table.flags.writeable = False
    return table


def within_ft(
    anchor: Cell,
    size: int,
    feet: float,
    rule: DiagonalRule,
    feet_per_cell: int,
    width: int,
    height: int,
    *,
    closer_than: bool = False,
    on_map: bool = True,
) -> CellMask:
    """On-map cells whose distance from the token (nearest occupied cells) is within ``feet``.

    The token's own cells are left out. ``closer_than`` makes the test strict (``< feet``).
    ``on_map=False`` keeps cells past the map's edge, so an outline shows the true limit there
    rather than the edge of the map.
    Distances are those of :func:`lnl_desktop.core.map.grid.token_distance_ft` for a size-1 target.
    """
    reach = max(0, math.ceil(feet / feet_per_cell))
    ax, ay = anchor
    x0, y0 = ax - reach, ay - reach
    x1, y1 = ax + size + reach, ay + size + reach
    # Off the map, one ring of cells is enough to keep the outline off the map's edge.
    pad = 0 if on_map else 1
    x0, y0 = max(-pad, x0), max(-pad, y0)
    x1, y1 = min(width + pad, x1), min(height + pad, y1)
    if x0 >= x1 or y0 >= y1:
        return CellMask(0, 0, np.zeros((0, 0), dtype=np.bool_))
    xs = np.arange(x0, x1)
    ys = np.arange(y0, y1)
    # Gap between the spans on each axis, as token_distance_ft measures it.
    gap_x = np.maximum(0, np.maximum(xs - (ax + size - 1), ax - xs))
    gap_y = np.maximum(0, np.maximum(ys - (ay + size - 1), ay - ys))
    table = _distance_table(rule, feet_per_cell, int(gap_x.max()), int(gap_y.max()))
    dist = table[gap_y[:, np.newaxis], gap_x[np.newaxis, :]]
    inside = dist < feet - 1e-9 if closer_than else dist <= feet + 1e-9
    own = (gap_x[np.newaxis, :] == 0) & (gap_y[:, np.newaxis] == 0)
    return CellMask(x0, y0, inside & ~own)

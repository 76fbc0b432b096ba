"""The outlines of cell sets (the reach and range rings, the light's edges) are worked out for every row
at once: the same segments, in the same order, as walking the mask row by row and column by column."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QLineF
from PySide6.QtGui import QPainterPath

from lnl_desktop.ui.map import geometry, light
from lnl_desktop.ui.plumbing.style import CELL_PX


def runs_one_row_at_a_time(flags: np.ndarray) -> list[tuple[int, int, int]]:
    """The reference: each row walked cell by cell."""
    found = []
    for r, row in enumerate(flags.tolist()):
        start = None
        for c, on in enumerate([*row, False]):
            if on and start is None:
                start = c
            elif not on and start is not None:
                found.append((r, start, c))
                start = None
    return found


def masks() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    made = [
        np.zeros((0, 0), dtype=bool),
        np.zeros((4, 6), dtype=bool),
        np.ones((3, 5), dtype=bool),
        np.eye(7, dtype=bool),
    ]
    ring = np.ones((9, 9), dtype=bool)
    ring[3:6, 3:6] = False  # a hole: an inner outline too
    made.append(ring)
    made += [rng.random((h, w)) < p for h, w, p in ((1, 30, 0.5), (30, 1, 0.5), (40, 25, 0.3), (61, 61, 0.7))]
    return made


@pytest.mark.parametrize("mask", masks(), ids=lambda m: f"{m.shape[0]}x{m.shape[1]}-{int(m.sum())}")
def test_every_run_of_every_row_as_walking_each_row(mask: np.ndarray) -> None:
    assert geometry.runs_by_row(mask) == runs_one_row_at_a_time(mask)
    assert geometry.runs_by_row(mask.T) == runs_one_row_at_a_time(mask.T)


def reference_outline(cells: geometry.CellMask) -> list[tuple[float, float, float, float]]:
    padded = np.pad(cells.mask, 1)
    lines = []
    for r, a, b in runs_one_row_at_a_time(padded[1:, 1:-1] != padded[:-1, 1:-1]):
        y = (cells.y0 + r) * CELL_PX
        lines.append(((cells.x0 + a) * CELL_PX, y, (cells.x0 + b) * CELL_PX, y))
    for c, a, b in runs_one_row_at_a_time((padded[1:-1, 1:] != padded[1:-1, :-1]).T):
        x = (cells.x0 + c) * CELL_PX
        lines.append((x, (cells.y0 + a) * CELL_PX, x, (cells.y0 + b) * CELL_PX))
    return lines


def segments(path: QPainterPath) -> list[tuple[float, float, float, float]]:
    points = [(path.elementAt(i).x, path.elementAt(i).y) for i in range(path.elementCount())]
    return [(*points[i], *points[i + 1]) for i in range(0, len(points), 2)]


@pytest.mark.parametrize("mask", masks(), ids=lambda m: f"{m.shape[0]}x{m.shape[1]}-{int(m.sum())}")
def test_an_outline_is_every_edge_between_a_cell_in_and_one_out(mask: np.ndarray) -> None:
    cells = geometry.CellMask(3, -2, mask)
    assert segments(cells.outline()) == reference_outline(cells)


def test_a_ring_outline_goes_round_the_outside_and_the_hole() -> None:
    ring = np.ones((3, 3), dtype=bool)
    ring[1, 1] = False
    s = CELL_PX
    lines = segments(geometry.CellMask(0, 0, ring).outline())
    assert lines == [
        (0, 0, 3 * s, 0),
        (s, s, 2 * s, s),
        (s, 2 * s, 2 * s, 2 * s),
        (0, 3 * s, 3 * s, 3 * s),
        (0, 0, 0, 3 * s),
        (s, s, s, 2 * s),
        (2 * s, s, 2 * s, 2 * s),
        (3 * s, 0, 3 * s, 3 * s),
    ]


@pytest.mark.parametrize("mask", masks()[1:], ids=lambda m: f"{m.shape[0]}x{m.shape[1]}-{int(m.sum())}")
def test_the_light_edges_are_the_outline_in_cells(mask: np.ndarray) -> None:
    expected = [
        QLineF(x0 / CELL_PX, y0 / CELL_PX, x1 / CELL_PX, y1 / CELL_PX)
        for x0, y0, x1, y1 in reference_outline(geometry.CellMask(0, 0, mask))
    ]
    assert light.edges(mask) == expected

"""The map's reach and range outlines read their distances from one table per diagonal rule, worked
out over arrays: every entry is the engine's own number (core.map.grid.distance_ft), however far the
table has grown and in whatever order the windows asked for it."""

from __future__ import annotations

import pytest

from lnl_desktop.core.map.grid import DiagonalRule, distance_ft
from lnl_desktop.ui.map import geometry


@pytest.mark.parametrize("rule", list(DiagonalRule))
@pytest.mark.parametrize("feet_per_cell", [5, 10])
def test_every_distance_of_the_table_is_the_engines(rule: DiagonalRule, feet_per_cell: int) -> None:
    geometry._TABLES.clear()
    small = geometry._distance_table(rule, feet_per_cell, 3, 7)
    assert small.shape == (8, 4)
    table = geometry._distance_table(rule, feet_per_cell, 140, 90)  # grows past the first block
    assert table.shape == (91, 141)
    for gy in range(91):
        for gx in range(141):
            assert table[gy, gx] == distance_ft(gx, gy, rule, feet_per_cell), (gx, gy)
    assert (geometry._distance_table(rule, feet_per_cell, 3, 7) == small).all()
    assert not table.flags.writeable


def test_a_bow_range_outline_keeps_the_cells_within_its_feet() -> None:
    mask = geometry.within_ft((50, 50), 1, 60, DiagonalRule.ALTERNATING, 5, 100, 100)
    cells = {(mask.x0 + x, mask.y0 + y) for y, x in zip(*mask.mask.nonzero(), strict=True)}
    expected = {
        (x, y)
        for x in range(100)
        for y in range(100)
        if (x, y) != (50, 50) and distance_ft(x - 50, y - 50, DiagonalRule.ALTERNATING, 5) <= 60
    }
    assert cells == expected

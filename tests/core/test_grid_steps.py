"""The barriers' step arrays (which steps of one cell a wall line blocks) against a plain reading
of the rule: a step is blocked when the line between the two cells' centres meets a barrier.

The arrays are built from the cells in a band along each line (not its bounding box), so long
slanted walls, short ones, lines off the map's grid and lines past its edge are all tried."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lnl_desktop.core.map.terrain import Barrier, Terrain, segments_cross

STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]


def blocked_by_rule(terrain: Terrain, x: int, y: int, dx: int, dy: int) -> bool:
    p = (x + 0.5, y + 0.5)
    q = (x + dx + 0.5, y + dy + 0.5)
    return any(segments_cross(p, q, b.a, b.b) for b in terrain.barriers)


coordinate = st.one_of(
    st.integers(min_value=-1, max_value=13).map(float),
    st.floats(min_value=-1.5, max_value=13.5, allow_nan=False).map(lambda v: round(v, 2)),
    st.integers(min_value=-2, max_value=27).map(lambda v: v / 2),
)


@settings(max_examples=150, deadline=None)
@given(
    width=st.integers(min_value=1, max_value=12),
    height=st.integers(min_value=1, max_value=12),
    lines=st.lists(st.tuples(coordinate, coordinate, coordinate, coordinate), min_size=1, max_size=8),
)
def test_every_step_is_blocked_exactly_when_the_rule_says(
    width: int, height: int, lines: list[tuple[float, float, float, float]]
) -> None:
    barriers = tuple(Barrier((ax, ay), (bx, by)) for ax, ay, bx, by in lines if (ax, ay) != (bx, by))
    terrain = Terrain(width, height, barriers=barriers)
    steps = terrain.barrier_steps
    if not barriers:
        assert steps is None
        return
    assert steps is not None
    for dx, dy in STEPS:
        for y in range(height):
            for x in range(width):
                if not (0 <= x + dx < width and 0 <= y + dy < height):
                    continue
                assert bool(steps[(dx, dy)][y, x]) == blocked_by_rule(terrain, x, y, dx, dy), (
                    f"step ({dx}, {dy}) from ({x}, {y})"
                )


def test_a_long_slanted_wall_blocks_the_steps_across_it_and_no_others() -> None:
    # Corner to corner of a 40 x 30 map: the steps across the diagonal, nowhere else.
    terrain = Terrain(40, 30, barriers=(Barrier((0.0, 0.0), (40.0, 30.0)),))
    steps = terrain.barrier_steps
    assert steps is not None
    for dx, dy in STEPS:
        for y in range(30):
            for x in range(40):
                if 0 <= x + dx < 40 and 0 <= y + dy < 30:
                    assert bool(steps[(dx, dy)][y, x]) == blocked_by_rule(terrain, x, y, dx, dy)

"""Wall segments, doors, line of sight and the fog of war.

Movement: a wall segment or a closed door blocks a step when it meets the line between the two
cells' centres, ends included; the searches go round it. Sight: the same lines block sight, wall
cells as before. The engine draws and removes walls, opens doors, keeps the fog of war's explored
cells and portraits, all undoable. The rules read sight: an approach behind a wall is unseen, a
target behind a wall cannot be shot, a creature behind a wall is hidden from Classic's sneak attack.

Reference searches here are written straight from the rules with exact fractions, so they share
no arithmetic with the vectorised code they check.
"""

from __future__ import annotations

import base64
import heapq
import math
import struct
import zlib
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lnl_desktop.core import (
    AttackMode,
    Engine,
    IllegalAction,
    ScriptedDice,
    Side,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import (
    CellsRevealed,
    DoorChanged,
    FogChanged,
    PortraitChanged,
    RulesEvent,
    WallAdded,
    WallRemoved,
)
from lnl_desktop.core.encounter.map_model import Door, MapGrid, Token, WallSegment
from lnl_desktop.core.engine.party_view import party_view
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.grid import Cell, DiagonalRule, footprint, line_of_sight, outside_cone
from lnl_desktop.core.map.movement import MoveRules, path_cost_ft, reachable
from lnl_desktop.core.map.sight import blocker, cells_unseen, reach_blocker, sees
from lnl_desktop.core.map.terrain import Barrier, Terrain, map_terrain
from lnl_desktop.core.map.visibility import visible_cells
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.core.rules.lnl.model import Attack, AttackResolved
from lnl_desktop.core.rules.osr import OsrAttack
from lnl_desktop.core.rules.registry import get_ruleset

PTY, OPP = Side.PARTY, Side.OPPONENTS
NORTH, EAST, SOUTH, WEST = 0, 90, 180, 270
LNL, CLASSIC, OSR, D10 = (get_ruleset(n) for n in ("lnl", "classic", "osr", "d10"))
WALL = "the wall from (3, 0) to (3, 5)"


# -- exact references ------------------------------------------------------------------------------

F = Fraction
Pt = tuple[Fraction, Fraction]


def _cross(u: Pt, v: Pt) -> Fraction:
    return u[0] * v[1] - u[1] * v[0]


def _sub(u: Pt, v: Pt) -> Pt:
    return (u[0] - v[0], u[1] - v[1])


def meets(p: tuple[float, float], q: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether the closed segments meet, solved exactly for the two parameters (or, parallel, by overlap)."""
    p0, q0, a0, b0 = ((F(x), F(y)) for x, y in (p, q, a, b))
    r, s, ap = _sub(q0, p0), _sub(b0, a0), _sub(a0, p0)
    denom = _cross(r, s)
    if denom == 0:
        if _cross(ap, r) != 0:
            return False  # parallel, apart
        rr = r[0] * r[0] + r[1] * r[1]
        t0 = (ap[0] * r[0] + ap[1] * r[1]) / rr
        t1 = ((b0[0] - p0[0]) * r[0] + (b0[1] - p0[1]) * r[1]) / rr
        return max(t0, t1) >= 0 and min(t0, t1) <= 1
    t, u = _cross(ap, s) / denom, _cross(ap, r) / denom
    return 0 <= t <= 1 and 0 <= u <= 1


def through_square(p: Cell, q: Cell, square: Cell) -> bool:
    """Whether the line between two cell centres passes through a square's open interior (clipping)."""
    lo, hi = F(0), F(1)
    for axis in (0, 1):
        start, d = F(p[axis]) + F(1, 2), F(q[axis] - p[axis])
        low, high = F(square[axis]), F(square[axis] + 1)
        if d == 0:
            if not low < start < high:
                return False
            continue
        t0, t1 = (low - start) / d, (high - start) / d
        lo, hi = max(lo, min(t0, t1)), min(hi, max(t0, t1))
    return lo < hi


def clear_line(grid_map: MapGrid, p: Cell, q: Cell) -> bool:
    """The rules of sight, one line: no barrier met, no wall cell but the ends passed through."""
    if p == q:
        return True
    pc, qc = (p[0] + 0.5, p[1] + 0.5), (q[0] + 0.5, q[1] + 0.5)
    lines = [*grid_map.segments, *(d for d in grid_map.doors if not d.open)]
    if any(meets(pc, qc, line.a, line.b) for line in lines):
        return False
    return not any(through_square(p, q, w) for w in grid_map.walls if w not in (p, q))


def sees_reference(grid_map: MapGrid, a: Cell, a_size: int, b: Cell, b_size: int) -> bool:
    return any(clear_line(grid_map, ca, cb) for ca in footprint(a, a_size) for cb in footprint(b, b_size))


def step_crosses(terrain: Terrain, anchor: Cell, d: tuple[int, int], size: int) -> bool:
    for x, y in footprint(anchor, size):
        p, q = (x + 0.5, y + 0.5), (x + d[0] + 0.5, y + d[1] + 0.5)
        if any(meets(p, q, b.a, b.b) for b in terrain.barriers):
            return True
    return False


def reference_costs(terrain: Terrain, start: Cell, size: int, budget_ft: float, rules: MoveRules) -> dict[Cell, float]:
    """Dijkstra over (anchor, 5-10-5 parity), straight from the rules, barriers tested exactly."""
    best = {(start, 0): 0.0}
    heap = [(0.0, start, 0)]
    while heap:
        cost, (x, y), parity = heapq.heappop(heap)
        if cost > best.get(((x, y), parity), math.inf):
            continue
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                nxt = (x + dx, y + dy)
                cells = footprint(nxt, size)
                if (dx, dy) == (0, 0) or not all(terrain.inside(c) for c in cells):
                    continue
                if any(c in terrain.walls for c in cells) or step_crosses(terrain, (x, y), (dx, dy), size):
                    continue
                diagonal = dx != 0 and dy != 0
                if diagonal and size == 1 and (x + dx, y) in terrain.walls and (x, y + dy) in terrain.walls:
                    continue
                step, new_parity = 1.0, parity
                if diagonal and rules.rule is DiagonalRule.ALTERNATING:
                    step, new_parity = (1.0 if parity == 0 else 2.0), 1 - parity
                elif diagonal and rules.rule is DiagonalRule.EUCLIDEAN:
                    step = math.sqrt(2.0)
                total = cost + step
                if total * rules.feet_per_cell <= budget_ft + 1e-9 and total < best.get((nxt, new_parity), math.inf):
                    best[(nxt, new_parity)] = total
                    heapq.heappush(heap, (total, nxt, new_parity))
    out: dict[Cell, float] = {}
    for (cell, _), cost in best.items():
        if cell != start:
            out[cell] = min(out.get(cell, math.inf), cost * rules.feet_per_cell)
    return out


@st.composite
def maps(draw: st.DrawFn, max_side: int = 10) -> MapGrid:
    """A small map with wall cells, wall segments and doors, their ends on half cells."""
    width, height = draw(st.integers(2, max_side)), draw(st.integers(2, max_side))
    walls = draw(st.frozensets(st.tuples(st.integers(0, width - 1), st.integers(0, height - 1)), max_size=8))
    point = st.tuples(st.integers(0, 2 * width).map(lambda v: v / 2), st.integers(0, 2 * height).map(lambda v: v / 2))
    ends = st.tuples(point, point).filter(lambda e: e[0] != e[1])
    segments = tuple(WallSegment(a=a, b=b) for a, b in draw(st.lists(ends, max_size=6)))
    doors = tuple(Door(a=a, b=b, open=o) for (a, b), o in draw(st.lists(st.tuples(ends, st.booleans()), max_size=3)))
    return MapGrid(width=width, height=height, walls=walls, segments=segments, doors=doors)


# -- building encounters ---------------------------------------------------------------------------


def lnl_fighter(name: str, side: Side = PTY, **fields: Any) -> dict[str, Any]:
    return {"name": name, "side": side.value, "level": 1, "stamina_max": 20, "injury_max": 10} | fields


def engine_of(ruleset: Any, placed: list[tuple[dict[str, Any], Cell, int]], **grid: Any) -> Engine:
    """An engine of ``ruleset`` on a 12 x 10 map (unless told), with scripted dice only."""
    grid = {"width": 12, "height": 10} | grid
    encounter = ruleset.new_encounter(
        map=MapGrid(**grid),
        combatants=[data for data, _, _ in placed],
        tokens={data["name"].lower(): Token(cell=cell, facing=facing) for data, cell, facing in placed},
    )
    return Engine(encounter, dice=ScriptedDice([]))


def fight(engine: Engine, first: Side = PTY) -> None:
    if engine.ruleset is CLASSIC:
        engine.start_combat("no surprise", initiative_face=4 if first is PTY else 2)
    elif engine.ruleset is OSR:
        engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([20, 1]))
    else:
        engine.start_combat("nobody ambushes", face=4 if first is PTY else 2)


def refused(engine: Engine, action: Any, dice: Any = None) -> list[str]:
    """Apply an action that must be refused: the reasons, and the encounter exactly as before."""
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction) as caught:
        engine.apply(action, dice)
    assert engine.encounter.model_dump() == before
    return caught.value.reasons


def png(width: int, height: int) -> str:
    """A real PNG, base64, made without an imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = (b"\x00" + b"\x80\x40\x20" * width) * height
    raw = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(raw).decode("ascii")


# -- movement: a wall segment stops a step, the path goes round ----------------------------------------


def test_a_wall_segment_stops_a_step_and_the_cheapest_path_goes_round_its_end() -> None:
    terrain = Terrain(10, 10, barriers=(Barrier((3.0, 0.0), (3.0, 5.0)),))
    with pytest.raises(ValueError, match=r"step 1 from \(2, 2\) to \(3, 2\) crosses the wall from \(3, 0\) to"):
        path_cost_ft(terrain, [(2, 2), (3, 2)], 1)
    reach = reachable(terrain, (2, 2), 1, 100)
    path = reach.path_to((3, 2))
    assert path is not None and path[0] == (2, 2) and path[-1] == (3, 2)
    assert any(y >= 5 for _, y in path)  # round the end of the wall at y = 5
    assert reach.cost_ft((3, 2)) == path_cost_ft(terrain, path, 1) == 35.0  # 3 down, 1 across, 3 up
    assert Terrain(10, 10).barrier_steps is None and reachable(Terrain(10, 10), (2, 2), 1, 100).cost_ft((3, 2)) == 5


def test_touching_a_wall_s_end_blocks_a_diagonal_step_and_two_orthogonal_steps_go_round() -> None:
    terrain = Terrain(10, 10, barriers=(Barrier((3.0, 0.0), (3.0, 5.0)),))
    # (2, 4) -> (3, 5): the line between the centres passes exactly through the wall's end (3, 5).
    with pytest.raises(ValueError, match="crosses the wall from"):
        path_cost_ft(terrain, [(2, 4), (3, 5)], 1)
    assert path_cost_ft(terrain, [(2, 4), (2, 5), (3, 5)], 1) == 10.0
    assert path_cost_ft(terrain, [(2, 5), (3, 6)], 1) == 5.0  # the line passes below the end
    assert reachable(terrain, (2, 4), 1, 30).cost_ft((3, 5)) == 10.0
    # An L-shaped corner of two segments seals the diagonal through the corner too.
    corner = Terrain(10, 10, barriers=(Barrier((3.0, 0.0), (3.0, 5.0)), Barrier((3.0, 5.0), (8.0, 5.0))))
    with pytest.raises(ValueError, match="crosses the wall"):
        path_cost_ft(corner, [(2, 5), (3, 4)], 1)
    assert path_cost_ft(corner, [(3, 6), (2, 5)], 1) == 5.0


def test_a_segment_along_the_grid_lines_blocks_the_orthogonal_and_diagonal_steps_across_it() -> None:
    terrain = Terrain(6, 6, barriers=(Barrier((0.0, 3.0), (6.0, 3.0)),))  # wall right across the map
    reach = reachable(terrain, (2, 1), 1, 200)
    assert {y for _, y in reach.cells()} == {0, 1, 2}
    assert reach.cost_ft((2, 4)) is None and (2, 4) not in reach.blocked()  # a line, not a blocked cell


def test_a_size_2_token_moves_as_a_block_and_stops_when_one_of_its_cells_would_cross() -> None:
    # The wall is in front of the token's right column only.
    terrain = Terrain(10, 10, barriers=(Barrier((3.0, 4.0), (4.0, 4.0)),))
    with pytest.raises(ValueError, match=r"crosses the wall from \(3, 4\) to \(4, 4\)"):
        path_cost_ft(terrain, [(2, 2), (2, 3)], 2)
    assert path_cost_ft(terrain, [(4, 2), (4, 3)], 2) == 5.0  # both cells pass beside it
    reach = reachable(terrain, (2, 2), 2, 60)
    path = reach.path_to((2, 5))
    assert path is not None
    assert reach.cost_ft((2, 5)) == pytest.approx(path_cost_ft(terrain, path, 2)) and reach.cost_ft((2, 5)) > 15


def test_a_leap_passes_over_wall_cells_but_never_through_a_wall_segment() -> None:
    leap = MoveRules(pass_over_walls=True)
    cells = Terrain(6, 3, walls=frozenset({(2, 0), (2, 1), (2, 2)}))
    assert path_cost_ft(cells, [(1, 1), (2, 1), (3, 1)], 1, leap) == 10.0
    line = Terrain(6, 3, barriers=(Barrier((2.0, 0.0), (2.0, 3.0)),))
    with pytest.raises(ValueError, match="crosses the wall"):
        path_cost_ft(line, [(1, 1), (2, 1)], 1, leap)
    assert reachable(line, (1, 1), 1, 100, leap).cost_ft((3, 1)) is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(maps(max_side=9), st.integers(0, 80), st.sampled_from([1, 1, 2]), st.sampled_from(list(DiagonalRule)))
def test_reachable_respects_segments_exactly_as_the_reference_search(
    grid_map: MapGrid, seed: int, size: int, rule: DiagonalRule
) -> None:
    terrain = map_terrain(grid_map)
    free = [
        (x, y)
        for x in range(grid_map.width - size + 1)
        for y in range(grid_map.height - size + 1)
        if not set(footprint((x, y), size)) & grid_map.walls
    ]
    if not free:
        return
    start = free[seed % len(free)]
    rules = MoveRules(rule)
    reach = reachable(terrain, start, size, 40.0, rules)
    expected = reference_costs(terrain, start, size, 40.0, rules)
    assert reach.costs_ft() == pytest.approx(expected)
    for cell in reach.cells():
        path = reach.path_to(cell)
        assert path is not None
        assert path_cost_ft(terrain, path, size, rules) == pytest.approx(expected[cell])


# -- doors: closed they block, open they do not; undo closes them again ----------------------------------


def door_engine() -> Engine:
    """Ana in a room closed by a wall at x = 5 with a door in it between y = 4 and 5; an Orc beyond."""
    engine = engine_of(
        LNL,
        [(lnl_fighter("Ana", move_ft=30), (3, 4), EAST), (lnl_fighter("Orc", OPP), (10, 8), WEST)],
        segments=(WallSegment(a=(5, 0), b=(5, 4)), WallSegment(a=(5, 5), b=(5, 10))),
        doors=(Door(a=(5, 4), b=(5, 5)),),
    )
    fight(engine)
    engine.begin_turn("ana")
    return engine


def test_a_closed_door_blocks_until_it_is_opened_and_undo_closes_it_again() -> None:
    engine = door_engine()
    reasons = refused(engine, act.Move("ana", path=((3, 4), (4, 4), (5, 4))))
    assert reasons == ["step 2 from (4, 4) to (5, 4) crosses the closed door at (5, 4)–(5, 5)"]
    assert "no way through to (6, 4)" in refused(engine, act.Move("ana", (6, 4)))[0]
    assert not sees(engine.encounter.map, (3, 4), 1, (6, 4), 1)

    opened = engine.apply(act.SetDoor((5, 5), (5, 4), True))  # either way round
    assert isinstance(opened[0], DoorChanged) and opened[0].text == "Door at (5, 4)–(5, 5) opened"
    assert sees(engine.encounter.map, (3, 4), 1, (6, 4), 1)
    moved = engine.move("ana", (6, 4))
    assert moved[0].text == "Ana moves from (3, 4) to (6, 4) (15 ft, 15 ft left)"

    engine.undo()  # the move
    engine.undo()  # the door
    assert engine.encounter.map.doors == (Door(a=(5, 4), b=(5, 5), open=False),)
    assert engine.encounter.tokens["ana"].cell == (3, 4)
    assert "no way through" in refused(engine, act.Move("ana", (6, 4)))[0]
    engine.redo()
    assert engine.encounter.map.doors[0].open


def test_a_door_through_a_doorway_is_entered_straight_the_jambs_block_the_diagonals() -> None:
    engine = door_engine()
    engine.apply(act.SetDoor((5, 4), (5, 5), True))
    terrain = map_terrain(engine.encounter.map)
    assert path_cost_ft(terrain, [(4, 4), (5, 4)], 1) == 5.0
    with pytest.raises(ValueError, match=r"crosses the wall from \(5, 0\) to \(5, 4\)"):
        path_cost_ft(terrain, [(4, 4), (5, 3)], 1)
    with pytest.raises(ValueError, match=r"crosses the wall from \(5, 5\) to \(5, 10\)"):
        path_cost_ft(terrain, [(4, 4), (5, 5)], 1)


# -- line of sight ---------------------------------------------------------------------------------------


def test_sight_is_blocked_by_a_segment_and_by_a_closed_door_and_each_is_named() -> None:
    grid_map = MapGrid(
        width=12,
        height=12,
        walls=frozenset({(6, 11)}),
        segments=(WallSegment(a=(10, 0), b=(10, 5)),),
        doors=(Door(a=(4, 2), b=(5, 2)), Door(a=(4, 8), b=(5, 8), open=True)),
    )
    assert blocker(grid_map, (8, 2), 1, (11, 2), 1) == "the wall from (10, 0) to (10, 5)"
    assert not sees(grid_map, (8, 2), 1, (11, 2), 1)
    assert blocker(grid_map, (4, 0), 1, (4, 4), 1) == "the closed door at (4, 2)–(5, 2)"
    assert sees(grid_map, (4, 6), 1, (4, 10), 1)  # the open door
    assert blocker(grid_map, (6, 9), 1, (6, 11), 1) is None  # a wall cell at the end is seen
    assert blocker(grid_map, (5, 11), 1, (7, 11), 1) == "the wall at (6, 11)"
    assert sees(grid_map, (8, 6), 1, (11, 6), 1)  # below the segment's end
    # A size-2 token is seen when any of its cells is.
    assert sees(grid_map, (8, 4), 1, (10, 4), 2)
    assert blocker(grid_map, (8, 2), 1, (10, 2), 2) == "the wall from (10, 0) to (10, 5)"


def test_a_line_through_a_corner_between_two_wall_cells_passes_as_before() -> None:
    walls = frozenset({(1, 0), (0, 1)})
    grid_map = MapGrid(width=3, height=3, walls=walls)
    assert sees(grid_map, (0, 0), 1, (2, 2), 1) and line_of_sight((0, 0), 1, (2, 2), 1, walls)
    assert not sees(grid_map, (0, 0), 1, (2, 1), 1) and not line_of_sight((0, 0), 1, (2, 1), 1, walls)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(maps(), st.integers(0, 99), st.integers(0, 99), st.sampled_from([1, 1, 2]), st.sampled_from([1, 2]))
def test_sees_matches_the_exact_reference(grid_map: MapGrid, i: int, j: int, a_size: int, b_size: int) -> None:
    def anchor(k: int, size: int) -> Cell:
        return (k % (grid_map.width - size + 1), (k // 7) % (grid_map.height - size + 1))

    if a_size > min(grid_map.width, grid_map.height) or b_size > min(grid_map.width, grid_map.height):
        return
    a, b = anchor(i, a_size), anchor(j, b_size)
    expected = sees_reference(grid_map, a, a_size, b, b_size)
    assert sees(grid_map, a, a_size, b, b_size) is expected
    assert (blocker(grid_map, a, a_size, b, b_size) is None) is expected
    assert sees(grid_map, b, b_size, a, a_size) is expected  # sight is mutual


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(maps(max_side=11), st.integers(0, 120), st.sampled_from([1, 1, 2]))
def test_visible_cells_are_exactly_the_cells_the_reference_sees(grid_map: MapGrid, k: int, size: int) -> None:
    if size > min(grid_map.width, grid_map.height):
        return
    cell = (k % (grid_map.width - size + 1), (k // 11) % (grid_map.height - size + 1))
    expected = {
        (x, y)
        for x in range(grid_map.width)
        for y in range(grid_map.height)
        if (x, y) in footprint(cell, size) or sees_reference(grid_map, cell, size, (x, y), 1)
    }
    assert visible_cells(grid_map, cell, size) == expected


def test_visible_cells_behind_walls_and_in_a_cone() -> None:
    grid_map = MapGrid(width=9, height=9, segments=(WallSegment(a=(0, 3), b=(4, 3)),))
    everything = visible_cells(grid_map, (2, 5))
    assert (2, 1) not in everything and (2, 4) in everything and (7, 1) in everything
    assert {(x, y) for x in range(9) for y in range(3) if x <= 3} & everything == set()
    # Facing east with a 90 degree field: only the cells within 45 degrees of east, and its own.
    cone = visible_cells(grid_map, (2, 5), facing=EAST, vision_deg=90)
    assert (6, 0) in everything and (7, 1) in cone  # 39 degrees from east, 51 degrees: outside
    assert (2, 5) in cone and (6, 5) in cone and (2, 7) not in cone and (6, 0) not in cone
    assert cone == {c for c in everything if not outside_cone((2.5, 5.5), EAST, 90, (c[0] + 0.5, c[1] + 0.5))}
    assert visible_cells(grid_map, (2, 5), facing=EAST, vision_deg=360) == everything
    with pytest.raises(ValueError, match="off the 9 x 9 map"):
        visible_cells(grid_map, (9, 2))


def test_a_size_2_creature_sees_from_every_one_of_its_cells() -> None:
    grid_map = MapGrid(width=8, height=8, segments=(WallSegment(a=(0, 4), b=(3, 4)),))
    one = visible_cells(grid_map, (2, 4))
    both = visible_cells(grid_map, (2, 4), 2)
    # (4, 1): the wall's end hides it from (2, 4), not from the block's top-right cell (3, 4).
    assert (4, 1) not in one and (4, 1) in both
    assert both >= one and set(footprint((2, 4), 2)) <= both


def test_the_party_view_is_what_the_visible_and_standing_party_tokens_see() -> None:
    grid_map = {"segments": (WallSegment(a=(6, 0), b=(6, 10)),)}
    engine = engine_of(
        LNL,
        [
            (lnl_fighter("Ana"), (2, 2), SOUTH),
            (lnl_fighter("Bo"), (9, 2), SOUTH),
            (lnl_fighter("Orc", OPP), (3, 8), NORTH),
        ],
        **grid_map,
    )
    e = engine.encounter
    ana = visible_cells(e.map, (2, 2), facing=SOUTH, vision_deg=120)
    bo = visible_cells(e.map, (9, 2), facing=SOUTH, vision_deg=120)
    assert party_view(e) == ana | bo
    engine.apply(act.SetHidden("bo", True))
    assert party_view(e) == ana  # hidden from the players: not their eyes
    engine.apply(act.EditCombatant("ana", {"injury": 0}))  # down
    assert e.combatant("ana").down and party_view(e) == frozenset()
    # A ruleset that never reads facing: a creature sees all around.
    d10 = engine_of(D10, [({"name": "Ana", "side": "Party", "hp": 8, "hp_max": 8}, (2, 2), SOUTH)], **grid_map)
    assert party_view(d10.encounter) == visible_cells(d10.encounter.map, (2, 2))


def test_cells_unseen_adds_the_cells_behind_walls_to_the_cells_outside_the_cone() -> None:
    grid_map = MapGrid(width=10, height=10, segments=(WallSegment(a=(7, 1), b=(7, 5)),))
    unseen = cells_unseen(grid_map, (5, 5), 1, NORTH, 120, 1)
    assert unseen((8, 2)) and not unseen((6, 2)) and unseen((5, 8))
    mask = unseen.mask(0, 0, 10, 10)
    assert {(x, y) for y in range(10) for x in range(10) if mask[y, x]} == {
        (x, y) for x in range(10) for y in range(10) if unseen((x, y))
    }


# -- the engine: walls, doors, fog, portraits; refusals change nothing ------------------------------------


def plain_engine(**grid: Any) -> Engine:
    return engine_of(LNL, [(lnl_fighter("Tombril"), (1, 1), SOUTH), (lnl_fighter("Orc", OPP), (9, 8), NORTH)], **grid)


def test_walls_and_doors_are_drawn_and_removed_in_the_game_s_words_and_undone() -> None:
    engine = plain_engine()
    old_map = engine.encounter.map
    (drawn,) = engine.apply(act.AddWall((3, 0), (3, 5)))
    assert isinstance(drawn, WallAdded) and drawn.text == "Wall drawn from (3, 0) to (3, 5)"
    (door,) = engine.apply(act.AddWall((4, 2), (5, 2), door=True))
    assert door.text == "Door drawn at (4, 2)–(5, 2) (closed)" and door.door and not door.open
    assert engine.encounter.map.segments == (WallSegment(a=(3, 0), b=(3, 5)),)
    assert map_terrain(engine.encounter.map).barriers == (
        Barrier((3.0, 0.0), (3.0, 5.0)),
        Barrier((4.0, 2.0), (5.0, 2.0), door=True),
    )
    assert engine.encounter.map.terrain is map_terrain(engine.encounter.map)  # what the views search too
    (closed,) = engine.apply(act.SetDoor((4, 2), (5, 2), True))
    assert closed.text == "Door at (4, 2)–(5, 2) opened"
    (gone,) = engine.apply(act.RemoveWall((3, 5), (3, 0)))
    assert isinstance(gone, WallRemoved) and gone.text == "Wall from (3, 0) to (3, 5) removed"
    (gone_door,) = engine.apply(act.RemoveWall((4, 2), (5, 2)))
    assert gone_door.text == "Door at (4, 2)–(5, 2) removed" and gone_door.door
    for _ in range(5):
        engine.undo()
    assert engine.encounter.map is old_map


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (act.AddWall((3, 3), (3, 3)), "both ends are (3, 3): a wall needs two different ends"),
        (act.AddWall((3, 0), (13, 0)), "(13, 0) is off the 12 x 10 map"),
        (act.AddWall((-1, 0), (3, 0)), "(-1, 0) is off the 12 x 10 map"),
        (act.AddWall((math.nan, 0), (3, 0)), "(nan, 0) is not a point (x, y)"),
        (act.AddWall((1, 0), (1, 3)), "there is already a wall from (1, 0) to (1, 3)"),
        (act.AddWall((2, 5), (2, 4), door=True), "there is already a door from (2, 5) to (2, 4)"),
        (act.RemoveWall((1, 1), (2, 2)), "there is no wall or door from (1, 1) to (2, 2)"),
        (act.SetDoor((1, 0), (1, 3), True), "the wall from (1, 0) to (1, 3) is not a door"),
        (act.SetDoor((7, 7), (8, 7), True), "there is no door at (7, 7)–(8, 7)"),
        (act.SetDoor((2, 4), (2, 5), False), "the door at (2, 4)–(2, 5) is already closed"),
        (act.SetFog(False), "fog of war is already off"),
        (act.RevealCells(((12, 0),)), "(12, 0) is off the 12 x 10 map"),
        (act.RevealCells(()), "no cells given"),
        (act.RevealCells(((1, 1),), shown=False), "none of these cells is shown to the players"),
        (act.SetPortrait("tombril", None), "Tombril has no portrait"),
        (act.SetPortrait("tombril", "not base64!"), "the picture is not base64 data"),
        (act.SetPortrait("tombril", base64.b64encode(b"GIF89a" + bytes(30)).decode()), "is not a PNG image"),
        (act.SetPortrait("tombril", png(4, 3)), "the picture is 4 x 3 pixels: a portrait is square"),
        (act.SetPortrait("tombril", "A" * 400_004), "a portrait holds at most 400,000"),
    ],
)
def test_bad_input_is_refused_with_its_reason_and_changes_nothing(action: Any, reason: str) -> None:
    engine = plain_engine(segments=(WallSegment(a=(1, 0), b=(1, 3)),), doors=(Door(a=(2, 4), b=(2, 5)),))
    reasons = refused(engine, action)
    assert len(reasons) == 1 and reason in reasons[0]
    assert not engine.can_undo


def test_a_portrait_is_set_and_removed_in_one_undoable_step_each() -> None:
    engine = plain_engine()
    picture = png(8, 8)
    (set_,) = engine.apply(act.SetPortrait("tombril", picture))
    assert isinstance(set_, PortraitChanged) and set_.text == "Tombril's portrait set" and not set_.removed
    assert engine.combatant("tombril").portrait == picture
    assert "already has this portrait" in refused(engine, act.SetPortrait("tombril", picture))[0]
    (removed,) = engine.apply(act.SetPortrait("tombril", None))
    assert removed.text == "Tombril's portrait removed" and engine.combatant("tombril").portrait is None
    engine.undo()
    assert engine.combatant("tombril").portrait == picture
    engine.undo()
    assert engine.combatant("tombril").portrait is None
    saved = storage.loads(storage.dumps(engine.encounter))
    assert saved.combatant("tombril").portrait is None


def test_fog_of_war_grows_with_every_party_move_in_the_same_undo_step() -> None:
    engine = engine_of(
        LNL,
        [(lnl_fighter("Ana", move_ft=60), (1, 1), EAST), (lnl_fighter("Orc", OPP), (10, 8), WEST)],
        segments=(WallSegment(a=(6, 0), b=(6, 10)),),
    )
    e = engine.encounter
    (on,) = engine.apply(act.SetFog(True))
    assert isinstance(on, FogChanged) and on.text == "Fog of war on" and e.fog.enabled
    first = e.fog.explored
    assert first == party_view(e) and (5, 1) in first and (7, 1) not in first  # the wall at x = 6

    fight(engine)
    engine.begin_turn("ana")
    engine.move("ana", (1, 8))
    assert e.fog.explored == first | party_view(e) and len(e.fog.explored) > len(first)
    engine.undo()
    assert e.fog.explored == first  # one undo takes the move and what it showed back
    engine.redo()
    assert e.fog.explored == first | party_view(e)
    engine.end_turn()

    engine.begin_turn("orc")
    before = e.fog.explored
    engine.move("orc", (9, 8))  # an Opponent's move shows the players nothing
    assert e.fog.explored is before
    engine.end_turn()

    engine.apply(act.SetFog(False))
    engine.apply(act.Move("ana", (3, 3), forced=True))
    assert e.fog.explored is before  # fog off: nothing is recorded


def test_opening_a_door_shows_the_party_the_room_beyond() -> None:
    engine = door_engine()
    e = engine.encounter
    engine.apply(act.SetFog(True))
    assert (8, 4) not in e.fog.explored
    engine.apply(act.SetDoor((5, 4), (5, 5), True))
    assert (8, 4) in e.fog.explored
    engine.undo()
    assert (8, 4) not in e.fog.explored and not e.map.doors[0].open
    engine.apply(act.SetDoor((5, 4), (5, 5), True))
    closing = e.fog.explored
    engine.apply(act.SetDoor((5, 4), (5, 5), False))
    assert e.fog.explored == closing  # explored cells stay explored


def test_the_gm_reveals_and_hides_cells_and_forced_moves_and_placing_explore_too() -> None:
    engine = plain_engine()
    e = engine.encounter
    (shown,) = engine.apply(act.RevealCells(((5, 5), (5, 6), (5, 5))))
    assert isinstance(shown, CellsRevealed) and shown.text == "Cells revealed to the players (2)"
    assert shown.cells == [(5, 5), (5, 6)] and e.fog.explored == {(5, 5), (5, 6)}
    assert refused(engine, act.RevealCells(((5, 5),))) == ["the players see these cells already"]
    (hidden,) = engine.apply(act.RevealCells(((5, 6), (7, 7)), shown=False))
    assert hidden.text == "Cells hidden from the players again (1)" and e.fog.explored == {(5, 5)}
    engine.undo()
    assert e.fog.explored == {(5, 5), (5, 6)}

    engine.apply(act.SetFog(True))
    engine.apply(act.RemoveToken("tombril"))
    before = e.fog.explored
    engine.apply(act.PlaceToken("tombril", (8, 1), SOUTH))
    assert e.fog.explored == before | party_view(e) and (8, 3) in e.fog.explored
    engine.apply(act.Move("tombril", (1, 8), forced=True))
    assert (1, 9) in e.fog.explored
    saved = storage.loads(storage.dumps(e))
    assert saved.fog == e.fog


def test_a_smaller_map_drops_the_walls_doors_and_explored_cells_that_fall_off_it() -> None:
    engine = plain_engine(
        segments=(WallSegment(a=(1, 0), b=(1, 3)), WallSegment(a=(11, 0), b=(11, 3))),
        doors=(Door(a=(10, 9), b=(11, 9)),),
    )
    engine.apply(act.RevealCells(((1, 1), (11, 9))))
    engine.apply(act.EditMap({"width": 10, "height": 10}))
    e = engine.encounter
    assert e.map.segments == (WallSegment(a=(1, 0), b=(1, 3)),) and e.map.doors == ()
    assert e.fog.explored == {(1, 1)}
    assert map_terrain(e.map).barriers == (Barrier((1.0, 0.0), (1.0, 3.0)),)
    engine.undo()
    assert len(e.map.segments) == 2 and e.fog.explored == {(1, 1), (11, 9)}


def test_a_map_with_walls_doors_and_fog_saves_and_loads_and_plays_the_same() -> None:
    engine = door_engine()
    engine.apply(act.SetFog(True))
    loaded = Engine(storage.loads(storage.dumps(engine.encounter)), dice=ScriptedDice([]))
    assert loaded.encounter.map == engine.encounter.map and loaded.encounter.fog == engine.encounter.fog
    assert "no way through" in refused(loaded, act.Move("ana", (6, 4)))[0]


# -- the rules read sight ----------------------------------------------------------------------------------


def test_melee_across_a_wall_is_refused_with_the_wall_named() -> None:
    engine = engine_of(
        LNL,
        [
            (lnl_fighter("Ana", weapons=[{"name": "Sword", "die": "d6"}]), (2, 2), EAST),
            (lnl_fighter("Orc", OPP, weapons=[{"name": "Spear", "die": "d6", "kind": "reach"}]), (3, 2), WEST),
        ],
        segments=(WallSegment(a=(3, 0), b=(3, 5)),),
    )
    fight(engine)
    engine.begin_turn("ana")
    reasons = refused(engine, Attack("ana", "orc", "Sword"), ScriptedDice([4]))
    assert reasons == [f"No wall between: {WALL} stands between Ana and Orc"]
    assert reach_blocker(engine.encounter.map, (2, 2), 1, (3, 2), 1, 10) == WALL
    assert reach_blocker(engine.encounter.map, (2, 5), 1, (3, 5), 1, 5) is None  # past the wall's end
    engine.apply(act.Move("ana", (2, 5), forced=True))
    engine.apply(act.Move("orc", (3, 5), forced=True))
    assert isinstance(script.attack(engine, "ana", "orc", "Sword", faces=[4])[0], AttackResolved)


def test_an_ally_across_a_wall_does_not_engage_the_target() -> None:
    engine = engine_of(
        LNL,
        [(lnl_fighter("Ana"), (2, 2), EAST), (lnl_fighter("Orc", OPP), (3, 2), WEST), (lnl_fighter("Bo"), (9, 9), 0)],
        segments=(WallSegment(a=(3, 0), b=(3, 5)),),
    )
    orc, bo = engine.combatant("orc"), engine.combatant("bo")
    assert LNL.attacks.engaged_with(engine.encounter, bo, orc) is None
    engine.apply(act.RemoveWall((3, 0), (3, 5)))
    assert LNL.attacks.engaged_with(engine.encounter, bo, orc) is engine.combatant("ana")


def sneak_engine(ruleset: Any, rogue_at: Cell, **grid: Any) -> Engine:
    """The Ogre at (5, 5) facing north (120 degrees); the Rogue (Move 40, a club, a bow) where told."""
    weapons = [{"name": "Club", "die": "d6"}, {"name": "Bow", "die": "d6", "kind": "ranged"}]
    rogue = lnl_fighter("Rogue", move_ft=40, weapons=weapons)
    ogre = lnl_fighter("Ogre", OPP, stamina_max=30)
    engine = engine_of(ruleset, [(rogue, rogue_at, SOUTH), (ogre, (5, 5), NORTH)], **grid)
    fight(engine)
    engine.begin_turn("rogue")
    return engine


# Beside the Ogre's front, east of a wall it cannot see through; round the wall's end to its flank.
BEHIND_WALL = [(8, 2), (8, 3), (8, 4), (8, 5), (7, 6), (6, 5)]


def test_a_sneak_approach_behind_a_wall_counts_as_hidden_with_the_wall_named() -> None:
    engine = sneak_engine(LNL, (8, 2), segments=(WallSegment(a=(7, 1), b=(7, 5)),))
    grid_map = engine.encounter.map
    assert not outside_cone((5.5, 5.5), NORTH, 120, (8.5, 2.5))  # the start is inside its view...
    assert blocker(grid_map, (5, 5), 1, (8, 2), 1) == "the wall from (7, 1) to (7, 5)"  # ...but behind the wall
    engine.move("rogue", path=BEHIND_WALL)
    _, unseen, _ = engine.concealment_details("rogue", "ogre")
    assert unseen.ok
    assert unseen.reason == (
        "whole approach stayed out of Ogre's sight: outside its 120 degree view "
        "or behind the wall from (7, 1) to (7, 5)"
    )
    assert [c.reason for c in script.sneak_checks(engine, "rogue", "ogre", "Club") if not c.ok] == []
    hit = script.attack(engine, "rogue", "ogre", "Club", AttackMode.SNEAK, faces=[5])[0]
    assert isinstance(hit, AttackResolved) and hit.mode == "sneak attack"


def test_the_same_approach_without_the_wall_crosses_the_ogre_s_view() -> None:
    engine = sneak_engine(LNL, (8, 2))
    engine.move("rogue", path=BEHIND_WALL)
    _, unseen, _ = engine.concealment_details("rogue", "ogre")
    assert not unseen.ok and unseen.reason == "path crossed Ogre's 120 degree view"
    assert (
        "not concealed (path crossed Ogre's 120 degree view)"
        in refused(engine, Attack("rogue", "ogre", "Club", AttackMode.SNEAK), ScriptedDice([5]))[0]
    )


def test_behind_a_closed_door_even_a_creature_that_sees_all_around_is_approached_unseen() -> None:
    engine = sneak_engine(
        LNL,
        (5, 2),
        segments=(WallSegment(a=(0, 4), b=(5, 4)), WallSegment(a=(6, 4), b=(12, 4))),
        doors=(Door(a=(5, 4), b=(6, 4)),),
    )
    engine.apply(act.EditCombatant("ogre", {"vision_deg": 360}))
    _, unseen, _ = engine.concealment_details("rogue", "ogre")
    assert unseen.ok
    assert unseen.reason == "whole position stayed out of Ogre's sight, behind the closed door at (5, 4)–(6, 4)"
    engine.apply(act.SetDoor((5, 4), (6, 4), True))
    _, unseen, _ = engine.concealment_details("rogue", "ogre")
    assert not unseen.ok and unseen.reason == "Ogre sees all around (360 degrees)"


def test_a_classic_sneak_from_full_concealment_works_behind_a_wall_segment() -> None:
    engine = sneak_engine(CLASSIC, (5, 0), segments=(WallSegment(a=(2, 2), b=(9, 2)),))
    hidden, out_of_sight, _, _ = engine.concealment_details("rogue", "ogre")
    assert not hidden.ok
    assert out_of_sight.ok
    assert out_of_sight.reason == "Rogue is behind the wall from (2, 2) to (9, 2): no line of sight from Ogre"
    (check, _) = script.sneak_checks(engine, "rogue", "ogre", "Bow")
    assert check.ok and check.reason == out_of_sight.reason
    hit = script.attack(engine, "rogue", "ogre", "Bow", AttackMode.SNEAK, faces=[4])[0]
    assert isinstance(hit, AttackResolved) and hit.mode == "sneak attack" and hit.dex_ignored


def test_a_classic_sneak_is_refused_once_the_wall_is_gone() -> None:
    engine = sneak_engine(CLASSIC, (5, 0), segments=(WallSegment(a=(2, 2), b=(9, 2)),))
    engine.apply(act.RemoveWall((2, 2), (9, 2)))
    _, out_of_sight, _, _ = engine.concealment_details("rogue", "ogre")
    assert not out_of_sight.ok and out_of_sight.reason == "Ogre has a line of sight to Rogue"


def osr_engine(**grid: Any) -> Engine:
    archer = {
        "name": "Tombril",
        "side": "Party",
        "kind": "PC",
        "hp_max": 14,
        "attack_bonus": 3,
        "weapons": [
            {"name": "Longsword", "damage": "1d8"},
            {"name": "Bow", "damage": "1d6", "kind": "missile"},  # no maximum range
        ],
    }
    goblin = {
        "name": "Goblin",
        "side": "Opponents",
        "hp_max": 6,
        "ac_typed": 12,
        "attack_bonus": 1,
        "morale": 7,
        "weapons": [{"name": "Spear", "damage": "1d6"}],
    }
    engine = engine_of(OSR, [(archer, (1, 4), EAST), (goblin, (8, 4), WEST)], **grid)
    fight(engine)
    engine.begin_turn("tombril")
    return engine


def test_a_target_behind_a_wall_cannot_be_shot_under_old_school_d20() -> None:
    engine = osr_engine(doors=(Door(a=(5, 0), b=(5, 10)),))
    reasons = refused(engine, OsrAttack("tombril", "goblin", "Bow", "ranged"), ScriptedDice([20, 6]))
    assert reasons == [
        "Not in full cover: Goblin is behind the closed door at (5, 0)–(5, 10): full cover, it cannot be shot"
    ]
    engine.apply(act.SetDoor((5, 0), (5, 10), True))
    events = engine.apply(OsrAttack("tombril", "goblin", "Bow", "ranged"), ScriptedDice([20, 6]))
    assert isinstance(events[0], RulesEvent) and "Goblin" in events[0].text


def test_old_school_d20_melee_and_counter_attacks_do_not_reach_through_a_wall() -> None:
    engine = osr_engine(segments=(WallSegment(a=(3, 0), b=(3, 10)),))
    engine.apply(act.Move("goblin", (3, 4), forced=True))
    engine.apply(act.Move("tombril", (2, 4), forced=True))
    reasons = refused(engine, OsrAttack("tombril", "goblin", "Longsword"), ScriptedDice([20, 6]))
    assert reasons == ["No wall between: the wall from (3, 0) to (3, 10) stands between Tombril and Goblin"]
    moved = engine.move("tombril", (1, 4))  # leaves the goblin's reach, but the wall is between them
    assert not engine.encounter.combat.pending and len(moved) == 1
    assert OSR.movement.provocations(engine, "tombril", [(1, 4), (2, 4), (1, 4)]) == []


def test_barriers_are_filed_in_the_buckets_they_cross_not_every_bucket_of_their_box() -> None:
    """The single-line index files a barrier where it passes: every point of it is found in its
    bucket, and a line across the whole map is filed in a few dozen buckets, not its box's hundreds."""
    import random

    import numpy as np

    from lnl_desktop.core.map import sight_index

    rng = random.Random(4)
    size = 100
    lines = [
        (rng.uniform(-3, size + 3), rng.uniform(-3, size + 3), rng.uniform(-3, size + 3), rng.uniform(-3, size + 3))
        for _ in range(300)
    ]
    lines += [(10.0, 5.0, 10.0, 90.0), (4.0, 16.0, 95.0, 16.0), (0.0, 0.0, 100.0, 100.0), (8.0, 8.0, 16.0, 8.0)]
    bar = np.array(lines)
    starts, items, columns = sight_index._bucketed(bar, size, size)
    rows = (len(starts) - 1) // columns
    filed: dict[int, set[int]] = {}
    for k in range(len(starts) - 1):
        for i in items[starts[k] : starts[k + 1]]:
            filed.setdefault(i, set()).add(k)
    for i, (ax, ay, bx, by) in enumerate(lines):
        for t in np.linspace(0.0, 1.0, 2001):
            x, y = ax + t * (bx - ax), ay + t * (by - ay)
            col = min(max(int(x // sight_index._BUCKET), 0), columns - 1)
            row = min(max(int(y // sight_index._BUCKET), 0), rows - 1)
            assert row * columns + col in filed[i], (i, x, y)
    diagonal = filed[len(lines) - 2]
    assert len(diagonal) <= 3 * columns  # its box: every bucket of the map
    # Within a bucket, the barriers keep their order.
    for k in range(len(starts) - 1):
        run = items[starts[k] : starts[k + 1]]
        assert run == sorted(run)

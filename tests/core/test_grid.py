"""Tests for lnl_desktop.core.map.grid and .movement: distances, movement, leaps, facing and vision cones."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lnl_desktop.core.map.grid import (
    Cell,
    DiagonalRule,
    angle_between_deg,
    cell_distance_ft,
    direction_deg,
    distance_ft,
    footprint,
    footprint_center,
    outside_cone,
    path_outside_cone,
    snap_facing,
    token_distance_ft,
)
from lnl_desktop.core.map.movement import (
    MoveRules,
    cells_outside_cone,
    cheapest_path,
    diagonal_steps,
    path_cost_ft,
    reachable,
)
from lnl_desktop.core.map.terrain import Terrain

ALT = DiagonalRule.ALTERNATING
FIVE = DiagonalRule.FIVE
EUC = DiagonalRule.EUCLIDEAN


def open_map(width: int = 15, height: int = 15) -> Terrain:
    return Terrain(width, height)


# --------------------------------------------------------------------------------------------
# Reference search: a plain Dijkstra over (anchor, parity) written straight from the rules,
# used as an oracle for the vectorised implementation.
# --------------------------------------------------------------------------------------------


def oracle_costs(
    terrain: Terrain,
    start: Cell,
    size: int,
    budget_ft: float,
    rules: MoveRules,
    enemies: frozenset[Cell] = frozenset(),
    occupied: frozenset[Cell] = frozenset(),
    allowed: Callable[[Cell], bool] | None = None,
    diagonals_before: int = 0,
) -> dict[Cell, float]:
    own = set(footprint(start, size))

    def can_enter(anchor: Cell) -> bool:
        cells = footprint(anchor, size)
        if not all(terrain.inside(c) for c in cells):
            return False
        if any(c in enemies and c not in own for c in cells):
            return False
        if not rules.pass_over_walls and any(c in terrain.walls for c in cells):
            return False
        return allowed is None or allowed(anchor)

    def can_end(anchor: Cell) -> bool:
        cells = footprint(anchor, size)
        return not any(c in terrain.walls or (c in occupied and c not in own) for c in cells)

    best: dict[tuple[Cell, int], float] = {}
    first = (start, diagonals_before % 2)
    best[first] = 0.0
    heap: list[tuple[float, Cell, int]] = [(0.0, start, diagonals_before % 2)]
    while heap:
        cost, (x, y), parity = heapq.heappop(heap)
        if cost > best.get(((x, y), parity), math.inf):
            continue
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx == 0 and dy == 0:
                    continue
                nxt = (x + dx, y + dy)
                if not can_enter(nxt):
                    continue
                diagonal = dx != 0 and dy != 0
                if (
                    diagonal
                    and size == 1
                    and not rules.pass_over_walls
                    and (x + dx, y) in terrain.walls
                    and (x, y + dy) in terrain.walls
                ):
                    continue
                new_parity = parity
                if not diagonal:
                    step = 1.0
                elif rules.rule is ALT:
                    step = 1.0 if parity == 0 else 2.0
                    new_parity = 1 - parity
                elif rules.rule is FIVE:
                    step = 1.0
                else:
                    step = math.sqrt(2.0)
                if not rules.ignore_difficult and any(c in terrain.difficult for c in footprint(nxt, size)):
                    step *= rules.difficult_multiplier
                total = cost + step
                if total * rules.feet_per_cell > budget_ft + 1e-9:
                    continue
                if total < best.get((nxt, new_parity), math.inf) - 1e-12:
                    best[(nxt, new_parity)] = total
                    heapq.heappush(heap, (total, nxt, new_parity))
    out: dict[Cell, float] = {}
    for (cell, _), cost in best.items():
        if cell != start and can_end(cell):
            out[cell] = min(out.get(cell, math.inf), cost * rules.feet_per_cell)
    return out


# --------------------------------------------------------------------------------------------
# Distances
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dx", "dy", "rule", "feet"),
    [
        (0, 0, ALT, 0),
        (1, 0, ALT, 5),
        (1, 1, ALT, 5),
        (2, 2, ALT, 15),
        (3, 3, ALT, 20),
        (4, 4, ALT, 30),
        (4, 1, ALT, 20),
        (-3, 3, ALT, 20),
        (3, 3, FIVE, 15),
        (5, -2, FIVE, 25),
        (3, 4, EUC, 25),
        (-3, -4, EUC, 25),
    ],
)
def test_distance_ft(dx: int, dy: int, rule: DiagonalRule, feet: float) -> None:
    result = distance_ft(dx, dy, rule)
    assert isinstance(result, float)
    assert result == pytest.approx(feet)


def test_distance_ft_uses_feet_per_cell() -> None:
    assert distance_ft(3, 3, ALT, feet_per_cell=10) == 40.0
    assert cell_distance_ft((1, 1), (4, 4), ALT) == 20.0
    assert cell_distance_ft((4, 4), (1, 1), FIVE) == 15.0


@given(st.integers(-30, 30), st.integers(-30, 30))
def test_alternating_is_between_five_and_ten_per_diagonal(dx: int, dy: int) -> None:
    five = distance_ft(dx, dy, FIVE)
    alt = distance_ft(dx, dy, ALT)
    euc = distance_ft(dx, dy, EUC)
    assert five <= alt
    assert five <= euc + 1e-9
    assert alt == distance_ft(dy, dx, ALT)  # symmetric in the axes


def test_footprint_and_center() -> None:
    assert footprint((2, 3), 1) == [(2, 3)]
    assert sorted(footprint((0, 0), 2)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert len(footprint((5, 5), 3)) == 9
    assert footprint_center((0, 0), 1) == (0.5, 0.5)
    assert footprint_center((2, 4), 2) == (3.0, 5.0)


def test_token_distance_nearest_cells() -> None:
    assert token_distance_ft((0, 0), 1, (1, 0), 1, ALT) == 5.0
    assert token_distance_ft((0, 0), 1, (1, 1), 1, ALT) == 5.0  # diagonal neighbours
    assert token_distance_ft((0, 0), 2, (2, 0), 1, ALT) == 5.0
    assert token_distance_ft((2, 0), 1, (0, 0), 2, ALT) == 5.0
    assert token_distance_ft((0, 0), 2, (3, 3), 1, ALT) == 15.0  # gap (2, 2)
    assert token_distance_ft((0, 0), 3, (10, 1), 2, ALT) == 40.0  # gap (8, 0)
    assert token_distance_ft((0, 0), 3, (1, 1), 1, ALT) == 0.0  # overlapping


@given(
    st.tuples(st.integers(-6, 6), st.integers(-6, 6)),
    st.integers(1, 4),
    st.tuples(st.integers(-6, 6), st.integers(-6, 6)),
    st.integers(1, 4),
    st.sampled_from(list(DiagonalRule)),
)
def test_token_distance_matches_brute_force(a: Cell, a_size: int, b: Cell, b_size: int, rule: DiagonalRule) -> None:
    brute = min(cell_distance_ft(ca, cb, rule) for ca in footprint(a, a_size) for cb in footprint(b, b_size))
    assert token_distance_ft(a, a_size, b, b_size, rule) == pytest.approx(brute)


# --------------------------------------------------------------------------------------------
# Terrain
# --------------------------------------------------------------------------------------------


def test_terrain_inside_and_from_rows() -> None:
    t = Terrain.from_rows(["..#", ".~.", "#.."])
    assert (t.width, t.height) == (3, 3)
    assert t.walls == {(2, 0), (0, 2)}
    assert t.difficult == {(1, 1)}
    assert t.inside((0, 0)) and t.inside((2, 2))
    assert not t.inside((3, 0)) and not t.inside((0, -1))
    assert t.wall_grid[0, 2] and t.wall_grid[2, 0] and not t.wall_grid[0, 0]
    assert t.difficult_grid[1, 1]


def test_terrain_ignores_cells_outside_the_map_in_its_grids() -> None:
    t = Terrain(3, 3, walls=frozenset({(5, 5), (1, 1)}))
    assert t.wall_grid.sum() == 1
    with pytest.raises(ValueError):
        t.wall_grid[0, 0] = True  # shared and read-only


def test_move_rules_validation() -> None:
    with pytest.raises(ValueError, match="feet_per_cell"):
        MoveRules(feet_per_cell=0)
    with pytest.raises(ValueError, match="difficult_multiplier"):
        MoveRules(difficult_multiplier=0)


# --------------------------------------------------------------------------------------------
# Reachability
# --------------------------------------------------------------------------------------------


def test_open_field_costs_match_distance() -> None:
    t = open_map(21, 21)
    start = (10, 10)
    for rule in DiagonalRule:
        reach = reachable(t, start, 1, 60, MoveRules(rule))
        for x in range(21):
            for y in range(21):
                if (x, y) == start:
                    continue
                dx, dy = abs(x - 10), abs(y - 10)
                d, s = min(dx, dy), max(dx, dy) - min(dx, dy)
                # The grid walks octile paths: Euclidean is s + d * sqrt 2, not the hypotenuse.
                expected = (s + d * math.sqrt(2)) * 5 if rule is EUC else distance_ft(dx, dy, rule)
                got = reach.cost_ft((x, y))
                if expected <= 60 + 1e-9:
                    assert got == pytest.approx(expected), (rule, x, y)
                    assert (x, y) in reach.cells()
                else:
                    assert got is None
                    assert (x, y) not in reach.cells()


def test_start_costs_nothing_and_is_not_listed() -> None:
    reach = reachable(open_map(), (3, 3), 1, 30)
    assert reach.cost_ft((3, 3)) == 0.0
    assert reach.path_to((3, 3)) == [(3, 3)]
    assert (3, 3) not in reach.cells()


def test_budget_respected_and_exact_budget_included() -> None:
    reach = reachable(open_map(), (0, 0), 1, 15)
    assert reach.cost_ft((3, 0)) == 15.0
    assert reach.cost_ft((4, 0)) is None
    assert reach.cost_ft((2, 2)) == 15.0
    assert reach.cost_ft((3, 3)) is None  # 20 ft
    assert all(c <= 15 for c in reach.costs_ft().values())
    assert reachable(open_map(), (0, 0), 1, 0).cells() == frozenset()
    assert reachable(open_map(), (0, 0), 1, 4.9).cells() == frozenset()
    assert reachable(open_map(), (0, 0), 1, -5).cells() == frozenset()


def test_walls_block_and_are_never_reached() -> None:
    t = Terrain.from_rows(
        [
            ".....",
            ".###.",
            ".#.#.",
            ".#...",
            ".....",
        ]
    )
    reach = reachable(t, (0, 0), 1, 200)
    assert not (reach.cells() & t.walls)
    # (2, 2) is boxed in except from below-right: the way round costs more than 10 ft.
    assert reach.cost_ft((2, 2)) is not None
    assert reach.cost_ft((2, 2)) > cell_distance_ft((0, 0), (2, 2), ALT)
    path = reach.path_to((2, 2))
    assert path is not None and not (set(path) & t.walls)
    assert reach.blocked() >= {(1, 1), (2, 1), (3, 1), (1, 2), (3, 2), (1, 3)}


def test_diagonal_cannot_squeeze_between_two_walls() -> None:
    t = Terrain.from_rows([".#", "#."])
    assert reachable(t, (0, 0), 1, 100).cost_ft((1, 1)) is None
    leap = MoveRules(pass_over_walls=True)
    assert reachable(t, (0, 0), 1, 100, leap).cost_ft((1, 1)) == 5.0
    # One wall is not a squeeze.
    t2 = Terrain.from_rows([".#", ".."])
    assert reachable(t2, (0, 0), 1, 100).cost_ft((1, 1)) == 5.0
    with pytest.raises(ValueError, match=r"step 1 .*squeezes"):
        path_cost_ft(t, [(0, 0), (1, 1)], 1)


def test_difficult_terrain_costs_double_unless_ignored() -> None:
    t = Terrain.from_rows([".~.."])
    assert reachable(t, (0, 0), 1, 30).cost_ft((1, 0)) == 10.0
    assert reachable(t, (0, 0), 1, 30).cost_ft((2, 0)) == 15.0
    leap = MoveRules(ignore_difficult=True)
    assert reachable(t, (0, 0), 1, 30, leap).cost_ft((1, 0)) == 5.0
    triple = MoveRules(difficult_multiplier=3)
    assert reachable(t, (0, 0), 1, 30, triple).cost_ft((1, 0)) == 15.0
    # Leaving difficult terrain costs normally: it is the cell entered that counts.
    assert reachable(t, (1, 0), 1, 30).cost_ft((2, 0)) == 5.0


def test_difficult_diagonal_doubles_the_alternating_cost() -> None:
    t = Terrain.from_rows(["...", ".~.", "..~"])
    reach = reachable(t, (0, 0), 1, 100)
    assert reach.cost_ft((1, 1)) == 10.0  # first diagonal (5 ft) doubled
    assert path_cost_ft(t, [(0, 0), (1, 1), (2, 2)], 1) == 30.0  # 5*2 + 10*2


def test_allies_may_be_passed_but_not_ended_on() -> None:
    t = Terrain.from_rows(["#####", ".....", "#####"])
    ally = frozenset({(2, 1)})
    reach = reachable(t, (0, 1), 1, 30, occupied=ally)
    assert reach.cost_ft((2, 1)) is None
    assert (2, 1) not in reach.cells()
    assert reach.path_to((2, 1)) is None
    assert reach.cost_ft((3, 1)) == 15.0
    assert reach.path_to((3, 1)) == [(0, 1), (1, 1), (2, 1), (3, 1)]
    assert (2, 1) not in reach.blocked()


def test_enemies_block_movement() -> None:
    t = Terrain.from_rows(["#####", ".....", "#####"])
    enemy = frozenset({(2, 1)})
    reach = reachable(t, (0, 1), 1, 30, enemies=enemy, occupied=enemy)
    assert reach.cost_ft((2, 1)) is None
    assert reach.cost_ft((3, 1)) is None
    assert reach.cells() == {(1, 1)}
    assert (2, 1) in reach.blocked()


def test_enemies_block_even_when_not_listed_as_occupied() -> None:
    t = open_map(3, 1)
    reach = reachable(t, (0, 0), 1, 30, enemies=frozenset({(1, 0)}))
    assert reach.cells() == frozenset()


def test_large_token_needs_room_for_its_whole_footprint() -> None:
    t = Terrain.from_rows(
        [
            "......",
            "......",
            "...#..",
            "......",
        ]
    )
    reach = reachable(t, (0, 0), 2, 100)
    assert (4, 0) in reach.cells()
    assert (5, 0) not in reach.cells()  # footprint would leave the map
    assert (0, 3) not in reach.cells()
    for anchor in [(2, 1), (3, 1), (2, 2), (3, 2)]:
        assert anchor not in reach.cells()  # each covers the wall at (3, 2)
    for cell in reach.cells():
        assert not (set(footprint(cell, 2)) & t.walls)


def test_own_footprint_never_counts_as_occupied() -> None:
    t = open_map(6, 6)
    own = frozenset(footprint((1, 1), 2))
    reach = reachable(t, (1, 1), 2, 10, enemies=own, occupied=own)
    assert reach.cost_ft((2, 1)) == 5.0  # overlaps the start footprint
    assert reach.cost_ft((2, 2)) == 5.0
    assert path_cost_ft(t, [(1, 1), (2, 1)], 2, enemies=own, occupied=own) == 5.0


def test_large_token_against_occupied_cells() -> None:
    t = open_map(6, 6)
    ally = frozenset({(3, 3)})
    reach = reachable(t, (0, 0), 2, 100, occupied=ally)
    assert (2, 2) not in reach.cells() and (3, 3) not in reach.cells()
    assert (4, 4) in reach.cells()


def test_parity_cheaper_is_not_always_better() -> None:
    # (1, 1) is reached for 5 ft by one diagonal, or for 10 ft by two straight steps.
    # The only way into the difficult T = (2, 2) is a diagonal from (1, 1): after the cheap
    # diagonal it is a 2nd diagonal (10 ft doubled = 20), after the straight steps a 1st one
    # (5 ft doubled = 10). Best total: 10 + 10 = 20 ft, not 5 + 20 = 25 ft.
    t = Terrain.from_rows(["..#", "..#", "#.~"])
    enemy = frozenset({(1, 2)})
    reach = reachable(t, (0, 0), 1, 100, enemies=enemy)
    assert reach.cost_ft((1, 1)) == 5.0
    assert reach.cost_ft((2, 2)) == 20.0
    path = reach.path_to((2, 2))
    assert path is not None and path[-2:] == [(1, 1), (2, 2)]
    assert diagonal_steps(path) == 1
    assert path_cost_ft(t, path, 1, enemies=enemy) == 20.0
    found = cheapest_path(t, (0, 0), (2, 2), 1, 100, enemies=enemy)
    assert found is not None and found[1] == 20.0


def test_parity_carried_by_diagonals_before() -> None:
    t = open_map(10, 10)
    assert reachable(t, (5, 5), 1, 30, diagonals_before=0).cost_ft((6, 6)) == 5.0
    assert reachable(t, (5, 5), 1, 30, diagonals_before=1).cost_ft((6, 6)) == 10.0
    assert reachable(t, (5, 5), 1, 30, diagonals_before=2).cost_ft((6, 6)) == 5.0
    # Two diagonals cost 15 ft either way; three cost 20 or 25.
    assert reachable(t, (5, 5), 1, 30, diagonals_before=1).cost_ft((7, 7)) == 15.0
    assert reachable(t, (2, 2), 1, 30, diagonals_before=0).cost_ft((5, 5)) == 20.0
    assert reachable(t, (2, 2), 1, 30, diagonals_before=1).cost_ft((5, 5)) == 25.0
    assert path_cost_ft(t, [(5, 5), (6, 6)], 1, diagonals_before=1) == 10.0
    # Other rules ignore the parity.
    five = MoveRules(FIVE)
    assert reachable(t, (5, 5), 1, 30, five, diagonals_before=1).cost_ft((6, 6)) == 5.0


def test_feet_per_cell() -> None:
    rules = MoveRules(feet_per_cell=10)
    reach = reachable(open_map(), (0, 0), 1, 30, rules)
    assert reach.cost_ft((3, 0)) == 30.0
    assert reach.cost_ft((2, 2)) == 30.0
    assert reach.cost_ft((4, 0)) is None


def test_leap_passes_over_walls_but_never_ends_on_one() -> None:
    t = Terrain.from_rows(["..#..", "..#..", "..#.."])
    plain = reachable(t, (0, 1), 1, 100)
    assert plain.cost_ft((3, 1)) is None
    leap = reachable(t, (0, 1), 1, 100, MoveRules(pass_over_walls=True))
    assert leap.cost_ft((3, 1)) == 15.0
    assert (2, 1) not in leap.cells()
    assert leap.cost_ft((2, 1)) is None
    assert (2, 1) not in leap.blocked()  # a leap may cross it
    path = leap.path_to((3, 1))
    assert path == [(0, 1), (1, 1), (2, 1), (3, 1)]
    assert path_cost_ft(t, path, 1, MoveRules(pass_over_walls=True)) == 15.0
    with pytest.raises(ValueError, match=r"step 2 from \(1, 1\) to \(2, 1\) enters a wall"):
        path_cost_ft(t, path, 1)
    with pytest.raises(ValueError, match=r"step 2 .*ends on a wall"):
        path_cost_ft(t, path[:3], 1, MoveRules(pass_over_walls=True))


def test_leap_still_cannot_pass_enemies() -> None:
    t = Terrain.from_rows(["#", ".", "#", ".", "#", "#"])  # wall, floor, wall, ...
    enemy = frozenset({(0, 3)})
    leap = MoveRules(pass_over_walls=True, ignore_difficult=True)
    reach = reachable(t, (0, 1), 1, 100, leap, enemies=enemy, occupied=enemy)
    assert reach.cells() == frozenset()  # the wall at (0, 2) may be crossed, the enemy not
    clear = reachable(t, (0, 1), 1, 100, leap)
    assert clear.cells() == {(0, 3)}


def test_reachable_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="size"):
        reachable(open_map(), (0, 0), 0, 30)
    with pytest.raises(ValueError, match="outside"):
        reachable(open_map(5, 5), (4, 4), 2, 30)
    with pytest.raises(ValueError, match="outside"):
        reachable(open_map(5, 5), (-1, 0), 1, 30)


def test_unlimited_budget() -> None:
    t = Terrain.from_rows(
        [
            ".#........",
            ".#.######.",
            ".#.#....#.",
            ".#.#.##.#.",
            ".#.#..#.#.",
            ".#.####.#.",
            ".#......#.",
            ".########.",
            "..........",
        ]
    )
    reach = reachable(t, (0, 0), 1, math.inf)
    oracle = oracle_costs(t, (0, 0), 1, math.inf, MoveRules())
    assert reach.costs_ft() == pytest.approx(oracle)
    assert reach.cost_ft((5, 4)) is not None


def test_blocked_lists_only_impassable_cells_next_to_reached_ones() -> None:
    t = Terrain.from_rows(["....", "...#", "...."])
    reach = reachable(t, (0, 0), 1, 5)
    assert reach.blocked() == frozenset()  # nothing reached within 5 ft touches the wall
    reach = reachable(t, (0, 0), 1, 10)
    assert reach.blocked() == {(3, 1)}
    size2 = reachable(open_map(4, 4), (0, 0), 2, 10)
    # Anchors on the last row/column would push a 2x2 token off the map; (2, 2) costs 15 ft,
    # so (3, 3) touches nothing reached.
    assert size2.blocked() == {(3, 0), (3, 1), (3, 2), (0, 3), (1, 3), (2, 3)}


# --------------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------------


def test_path_to_unreachable_is_none() -> None:
    t = Terrain.from_rows(["..#.."])
    reach = reachable(t, (0, 0), 1, 100)
    assert reach.path_to((4, 0)) is None
    assert reach.path_to((2, 0)) is None
    assert reach.path_to((50, 50)) is None
    assert reach.cost_ft((50, 50)) is None
    assert cheapest_path(t, (0, 0), (4, 0), 1, 100) is None


def test_cheapest_path_matches_reachable() -> None:
    t = Terrain.from_rows(
        [
            "........",
            ".~~~##..",
            ".~..#...",
            "....#.~.",
            "........",
        ]
    )
    reach = reachable(t, (0, 0), 1, 60, diagonals_before=1)
    for cell in reach.cells():
        found = cheapest_path(t, (0, 0), cell, 1, 60, diagonals_before=1)
        assert found is not None
        path, cost = found
        assert cost == reach.cost_ft(cell)
        assert path[0] == (0, 0) and path[-1] == cell
        assert path_cost_ft(t, path, 1, diagonals_before=1) == cost
    assert cheapest_path(t, (0, 0), (0, 0), 1, 60) == ([(0, 0)], 0.0)


def test_path_cost_ft_basic_and_alternation() -> None:
    t = open_map(10, 10)
    path = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 3)]
    assert path_cost_ft(t, path, 1) == 25.0  # 5 + 10 + 5 + 5
    assert path_cost_ft(t, path, 1, diagonals_before=1) == 30.0  # 10 + 5 + 10 + 5
    assert path_cost_ft(t, path, 1, MoveRules(FIVE)) == 20.0
    assert path_cost_ft(t, path, 1, MoveRules(EUC)) == pytest.approx(5 + 15 * math.sqrt(2))
    assert path_cost_ft(t, [(4, 4)], 1) == 0.0
    assert diagonal_steps(path) == 3
    assert diagonal_steps([(0, 0)]) == 0
    assert diagonal_steps([]) == 0


def test_path_cost_ft_errors_name_the_step() -> None:
    t = Terrain.from_rows(["...#", "....", "...."])
    with pytest.raises(ValueError, match="empty"):
        path_cost_ft(t, [], 1)
    with pytest.raises(ValueError, match=r"step 2 from \(1, 0\) to \(3, 0\).*adjacent"):
        path_cost_ft(t, [(0, 0), (1, 0), (3, 0)], 1)
    with pytest.raises(ValueError, match=r"step 1 .*adjacent"):
        path_cost_ft(t, [(0, 0), (0, 0)], 1)
    with pytest.raises(ValueError, match=r"step 2 from \(0, 1\) to \(-1, 1\).*leaves the map"):
        path_cost_ft(t, [(0, 0), (0, 1), (-1, 1)], 1)
    with pytest.raises(ValueError, match=r"step 1 .*leaves the map"):
        path_cost_ft(t, [(1, 1), (1, 2)], 2)  # a 2x2 at (1, 2) would cover row 3
    with pytest.raises(ValueError, match=r"step 3 from \(2, 1\) to \(3, 0\).*wall"):
        path_cost_ft(t, [(0, 1), (1, 1), (2, 1), (3, 0), (3, 1)], 1)
    enemy = frozenset({(2, 1)})
    with pytest.raises(ValueError, match=r"step 2 from \(1, 1\) to \(2, 1\).*enemy"):
        path_cost_ft(t, [(0, 1), (1, 1), (2, 1), (3, 1)], 1, enemies=enemy)
    ally = frozenset({(2, 1)})
    assert path_cost_ft(t, [(0, 1), (1, 1), (2, 1), (3, 1)], 1, occupied=ally) == 15.0
    with pytest.raises(ValueError, match=r"step 2 .*occupied"):
        path_cost_ft(t, [(0, 1), (1, 1), (2, 1)], 1, occupied=ally)


# --------------------------------------------------------------------------------------------
# Facing and vision
# --------------------------------------------------------------------------------------------


def test_direction_deg_compass() -> None:
    c = (5.0, 5.0)
    assert direction_deg(c, (5, 0)) == 0.0  # north is -y
    assert direction_deg(c, (9, 5)) == 90.0
    assert direction_deg(c, (5, 9)) == 180.0
    assert direction_deg(c, (1, 5)) == 270.0
    assert direction_deg(c, (6, 4)) == pytest.approx(45.0)
    assert direction_deg(c, (4, 4)) == pytest.approx(315.0)
    assert direction_deg(c, c) == 0.0
    assert 0.0 <= direction_deg(c, (5 - 1e-17, 0)) < 360.0


def test_angle_between_and_snap() -> None:
    assert angle_between_deg(350, 10) == 20
    assert angle_between_deg(10, 350) == 20
    assert angle_between_deg(0, 180) == 180
    assert angle_between_deg(90, 450) == 0
    assert angle_between_deg(-90, 270) == 0
    assert snap_facing(22.4) == 0
    assert snap_facing(22.5) == 45
    assert snap_facing(350) == 0
    assert snap_facing(-10) == 0
    assert snap_facing(200) == 180
    assert snap_facing(359.9) == 0
    assert snap_facing(100, 90) == 90
    assert isinstance(snap_facing(44.0), int)


def test_outside_cone() -> None:
    c = (0.0, 0.0)

    def at(deg: float) -> tuple[float, float]:
        return (math.sin(math.radians(deg)) * 3, -math.cos(math.radians(deg)) * 3)

    assert outside_cone(c, 0, 120, (0, 5))  # due south of a viewer facing north
    assert not outside_cone(c, 0, 120, at(59))
    assert outside_cone(c, 0, 120, at(61))
    assert not outside_cone(c, 0, 120, at(-59))
    assert outside_cone(c, 0, 120, at(-61))
    assert not outside_cone(c, 0, 360, (0, 5))
    assert not outside_cone(c, 0, 400, (0, 5))
    assert not outside_cone(c, 0, 120, c)
    assert not outside_cone(c, 0, 90, (1, -1))  # exactly on the edge (45 deg) is inside
    assert outside_cone(c, 180, 120, (0, -5))
    assert not outside_cone(c, 90, 120, (5, 1))


def test_path_outside_cone() -> None:
    viewer = (5, 5)  # centre (5.5, 5.5), facing north
    behind = [(3, 7), (4, 7), (5, 7), (6, 6)]
    assert path_outside_cone(viewer, 1, 0, 120, behind, 1)
    assert not path_outside_cone(viewer, 1, 0, 120, [(3, 7), (5, 2)], 1)
    assert not path_outside_cone(viewer, 1, 0, 120, [(5, 2), (3, 7)], 1)  # start counts too
    assert not path_outside_cone(viewer, 1, 0, 360, behind, 1)
    # A 2x2 mover at (4, 6) is centred at (5, 7): due south of a viewer at (4, 5) size 2.
    assert path_outside_cone((4, 3), 2, 0, 120, [(4, 6)], 2)


def test_reachable_path_stays_outside_the_cone() -> None:
    t = open_map(15, 15)
    viewer, facing, fov = (7, 7), 0.0, 120.0
    allowed = cells_outside_cone(t, viewer, 1, facing, fov, 1)
    start = (7, 10)  # due south, behind the viewer
    occupied = frozenset({viewer})
    reach = reachable(t, start, 1, 60, occupied=occupied, enemies=occupied, allowed=allowed)
    assert reach.cells()
    for cell in reach.cells():
        assert allowed(cell)
        path = reach.path_to(cell)
        assert path is not None
        assert path_outside_cone(viewer, 1, facing, fov, path, 1)
    assert reach.cost_ft((7, 3)) is None  # in front of the viewer
    # Beside the viewer at 90 degrees is outside a 120-degree cone.
    assert reach.cost_ft((8, 7)) is not None
    # A plain predicate (no vectorised mask) gives the same result.
    plain = reachable(t, start, 1, 60, occupied=occupied, enemies=occupied, allowed=lambda c: allowed(c))
    assert plain.costs_ft() == reach.costs_ft()


@given(
    st.tuples(st.integers(0, 12), st.integers(0, 12)),
    st.integers(1, 3),
    st.floats(0, 359.99),
    st.sampled_from([60.0, 90.0, 120.0, 180.0, 270.0, 360.0]),
    st.integers(1, 3),
)
def test_cone_mask_matches_predicate(
    viewer: Cell, viewer_size: int, facing: float, fov: float, mover_size: int
) -> None:
    t = open_map(16, 16)
    pred = cells_outside_cone(t, viewer, viewer_size, facing, fov, mover_size)
    mask = pred.mask(-1, 2, 14, 12)
    for y in range(12):
        for x in range(14):
            assert bool(mask[y, x]) == pred((x - 1, y + 2))


# --------------------------------------------------------------------------------------------
# Property tests against the reference search
# --------------------------------------------------------------------------------------------


@st.composite
def scenarios(draw: st.DrawFn, max_side: int = 9) -> dict[str, object]:
    width = draw(st.integers(2, max_side))
    height = draw(st.integers(2, max_side))
    size = draw(st.sampled_from([1, 1, 1, 2, 3]))
    assume(size <= width and size <= height)
    cells = [(x, y) for x in range(width) for y in range(height)]
    kind = st.sampled_from("....#~EA")
    marks = {c: draw(kind) for c in cells}
    start = (draw(st.integers(0, width - size)), draw(st.integers(0, height - size)))
    own = set(footprint(start, size))
    for c in own:
        marks[c] = "."
    walls = frozenset(c for c, m in marks.items() if m == "#")
    difficult = frozenset(c for c, m in marks.items() if m == "~")
    enemies = frozenset(c for c, m in marks.items() if m == "E")
    allies = frozenset(c for c, m in marks.items() if m == "A")
    rules = MoveRules(
        rule=draw(st.sampled_from(list(DiagonalRule))),
        feet_per_cell=draw(st.sampled_from([5, 5, 10])),
        difficult_multiplier=draw(st.sampled_from([2, 2, 3])),
        ignore_difficult=draw(st.booleans()),
        pass_over_walls=draw(st.booleans()),
    )
    return {
        "terrain": Terrain(width, height, walls, difficult),
        "start": start,
        "size": size,
        "budget": float(draw(st.integers(0, 12)) * 5),
        "rules": rules,
        "enemies": enemies,
        "occupied": enemies | allies,
        "diagonals_before": draw(st.integers(0, 3)),
    }


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.one_of(scenarios(), scenarios(max_side=24)))
def test_reachable_matches_reference_search(sc: dict[str, object]) -> None:
    terrain = sc["terrain"]
    assert isinstance(terrain, Terrain)
    start, size, budget = sc["start"], sc["size"], sc["budget"]
    rules, enemies, occupied = sc["rules"], sc["enemies"], sc["occupied"]
    before = sc["diagonals_before"]
    assert isinstance(start, tuple) and isinstance(size, int) and isinstance(budget, float)
    assert isinstance(rules, MoveRules) and isinstance(before, int)
    assert isinstance(enemies, frozenset) and isinstance(occupied, frozenset)

    reach = reachable(
        terrain,
        start,
        size,
        budget,
        rules,
        enemies=enemies,
        occupied=occupied,
        diagonals_before=before,
    )
    oracle = oracle_costs(terrain, start, size, budget, rules, enemies, occupied, None, before)
    assert reach.cells() == set(oracle)
    assert reach.costs_ft() == pytest.approx(oracle)
    for cell in reach.cells():
        cost = reach.cost_ft(cell)
        assert cost is not None and cost <= budget + 1e-9
        assert not (set(footprint(cell, size)) & (terrain.walls | occupied))
        path = reach.path_to(cell)
        assert path is not None and path[0] == start and path[-1] == cell
        replay = path_cost_ft(
            terrain,
            path,
            size,
            rules,
            enemies=enemies,
            occupied=occupied,
            diagonals_before=before,
        )
        assert replay == pytest.approx(cost)
    for blocked in reach.blocked():
        assert terrain.inside(blocked)
        assert blocked not in reach.cells()


@settings(max_examples=100, deadline=None)
@given(scenarios(), st.floats(0, 359), st.sampled_from([90.0, 120.0, 200.0]))
def test_reachable_with_cone_matches_reference(sc: dict[str, object], facing: float, fov: float) -> None:
    terrain = sc["terrain"]
    assert isinstance(terrain, Terrain)
    start, size, budget = sc["start"], sc["size"], sc["budget"]
    rules, enemies, occupied = sc["rules"], sc["enemies"], sc["occupied"]
    assert isinstance(start, tuple) and isinstance(size, int) and isinstance(budget, float)
    assert isinstance(rules, MoveRules)
    assert isinstance(enemies, frozenset) and isinstance(occupied, frozenset)
    viewer = (terrain.width // 2, terrain.height // 2)
    allowed = cells_outside_cone(terrain, viewer, 1, facing, fov, size)
    reach = reachable(terrain, start, size, budget, rules, enemies=enemies, occupied=occupied, allowed=allowed)
    oracle = oracle_costs(terrain, start, size, budget, rules, enemies, occupied, allowed)
    assert reach.costs_ft() == pytest.approx(oracle)
    for cell in reach.cells():
        path = reach.path_to(cell)
        assert path is not None
        assert path_outside_cone(viewer, 1, facing, fov, path[1:], size)

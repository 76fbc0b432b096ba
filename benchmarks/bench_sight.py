"""Line of sight and walls benchmarks, medians of many runs on a generated 100 x 100 map
with 300 wall segments (a tenth of them doors, half of those closed):

- what a creature sees from one cell (``visibility.visible_cells``): budget 5 ms;
- the fog of war's update after a Party move (the engine's Move with fog on: the move itself, the
  Party's view of 5 tokens and the explored cells grown): budget 16 ms;
- a 120 ft movement reach on the same map with the 300 segments and without them (for comparison;
  ``benchmarks/bench_grid.py`` holds the reach's own budget of 5 ms on a 200 x 200 map).

Run with ``python3 dev.py bench`` (or ``python benchmarks/bench_sight.py``); never part of the test suite.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, if not installed

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import Door, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine import party_view
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.map import sight, visibility
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.movement import MoveRules, reachable
from lnl_desktop.core.map.terrain import map_terrain
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.lazy import load_now

SIZE = 100
SEGMENTS = 300
RUNS = 60
SIGHT_BUDGET = 0.005
FOG_BUDGET = 0.016
REACH_BUDGET = 0.005
MOVE_FT = 120.0


def build_map(seed: int = 14) -> MapGrid:
    """300 straight walls from 2 to 10 cells long between cell corners, mostly along the grid lines,
    some diagonal; every tenth a door (half of them open)."""
    rng = random.Random(seed)
    segments: list[WallSegment] = []
    doors: list[Door] = []
    while len(segments) + len(doors) < SEGMENTS:
        x, y = rng.randint(0, SIZE), rng.randint(0, SIZE)
        length = rng.randint(2, 10)
        dx, dy = rng.choice([(1, 0), (0, 1), (1, 0), (0, 1), (1, 1), (1, -1)])
        end = (min(SIZE, max(0, x + dx * length)), min(SIZE, max(0, y + dy * length)))
        if end == (x, y):
            continue
        if (len(segments) + len(doors)) % 10 == 9:
            doors.append(Door(a=(x, y), b=end, open=len(doors) % 2 == 0))
        else:
            segments.append(WallSegment(a=(x, y), b=end))
    return MapGrid(width=SIZE, height=SIZE, segments=tuple(segments), doors=tuple(doors))


def median_seconds(fn: Callable[[], object], runs: int = RUNS) -> float:
    fn()  # warm-up: numpy's first calls, the map's cached tables
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def report(what: str, seconds: float, budget: float | None) -> None:
    if budget is None:
        print(f"{what}: median {seconds * 1e3:.2f} ms")
        return
    verdict = "within budget" if seconds <= budget else "OVER BUDGET"
    print(f"{what}: median {seconds * 1e3:.2f} ms (budget {budget * 1e3:g} ms) {verdict}")


def party_encounter(grid_map: MapGrid, cells: list[Cell]) -> Encounter:
    lnl = get_ruleset("lnl")
    party = [
        {"name": f"Hero {i}", "side": "Party", "level": 1, "stamina_max": 10, "injury_max": 5, "move_ft": 200}
        for i in range(len(cells))
    ]
    return lnl.new_encounter(
        map=grid_map,
        combatants=party,
        tokens={f"hero-{i}": Token(cell=cell, facing=90 * i % 360) for i, cell in enumerate(cells)},
    )


def main() -> None:
    grid_map = build_map()
    load_now("numpy")  # the program loads it once its window is up: not part of the tables' cost
    t0 = time.perf_counter()
    terrain = map_terrain(grid_map)
    visibility.visible_cells(grid_map, (SIZE // 2, SIZE // 2))
    _ = terrain.barrier_steps
    print(f"per-map tables (built once per map): {(time.perf_counter() - t0) * 1e3:.2f} ms")

    rng = random.Random(7)
    spots = [(rng.randrange(SIZE), rng.randrange(SIZE)) for _ in range(RUNS)]
    where = f"{SIZE}x{SIZE}, {SEGMENTS} segments"

    samples = []
    for spot in spots:
        start = time.perf_counter()
        visibility.visible_cells(grid_map, spot)
        samples.append(time.perf_counter() - start)
    report(f"visible_cells from one cell, {where} ({RUNS} cells)", statistics.median(samples), SIGHT_BUDGET)
    print(f"  slowest of those: {max(samples) * 1e3:.2f} ms")
    report(
        f"visible_cells in a 120 degree cone, {where}",
        median_seconds(lambda: visibility.visible_cells(grid_map, (50, 50), facing=45, vision_deg=120)),
        SIGHT_BUDGET,
    )
    report(
        f"sees() between two tokens 40 cells apart, {where}",
        median_seconds(lambda: sight.sees(grid_map, (30, 30), 1, (70, 60), 1)),
        None,
    )

    # The fog of war after a Party move: the engine's whole Move with fog on, 5 Party tokens.
    heroes = [(20, 20), (24, 20), (20, 26), (60, 60), (64, 62)]
    engine = Engine(party_encounter(grid_map, heroes), dice=ScriptedDice([]))
    engine.apply(act.SetFog(True))
    seen = median_seconds(lambda: party_view.party_view(engine.encounter))
    report(f"party_view, 5 Party tokens, {where}", seen, None)
    moves = [(22, 23), (20, 20)]
    samples = []
    for i in range(RUNS):
        engine.apply(act.Move("hero-0", moves[i % 2], forced=True))  # the GM's hand: free, any distance
        start = time.perf_counter()
        engine.undo()
        engine.redo()  # the move again: the same Move, fog update and all
        samples.append(time.perf_counter() - start)
    undo_redo = statistics.median(samples)
    samples = []
    for i in range(RUNS):
        start = time.perf_counter()
        engine.apply(act.Move("hero-0", moves[i % 2], forced=True))
        samples.append(time.perf_counter() - start)
    report(f"Move of a Party token with fog of war on (5 tokens), {where}", statistics.median(samples), FOG_BUDGET)
    print(f"  undo + redo of that move: {undo_redo * 1e3:.2f} ms")

    # Movement reach on the same map, with and without the segments.
    bare = map_terrain(MapGrid(width=SIZE, height=SIZE))
    rules = MoveRules()
    start_cell = (SIZE // 2, SIZE // 2)
    with_walls = median_seconds(lambda: reachable(terrain, start_cell, 1, MOVE_FT, rules))
    without = median_seconds(lambda: reachable(bare, start_cell, 1, MOVE_FT, rules))
    report(f"reachable {MOVE_FT:g} ft, {where}", with_walls, REACH_BUDGET)
    report(f"reachable {MOVE_FT:g} ft, {SIZE}x{SIZE}, no segments", without, REACH_BUDGET)
    report(
        f"reachable {MOVE_FT:g} ft 2x2 token, {where}",
        median_seconds(lambda: reachable(terrain, start_cell, 2, MOVE_FT, rules)),
        REACH_BUDGET,
    )


if __name__ == "__main__":
    main()

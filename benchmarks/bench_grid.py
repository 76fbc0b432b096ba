"""Benchmark for ``lnl_desktop.core.map.movement.reachable`` (a plain script, not collected by pytest).

Run with ``python benchmarks/bench_grid.py``. The UI recomputes reachable cells whenever a token
is picked up or hovered, so a 120 ft move on a large 200 x 200 map must take under 5 ms.
"""

from __future__ import annotations

import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lnl_desktop.core.map.grid import Cell
    from lnl_desktop.core.map.terrain import Terrain

SIZE = 200
RUNS = 50
BUDGET_MS = 5.0
MOVE_FT = 120.0


def load_movement() -> ModuleType:
    """Import the movement module, from this checkout if the package is not installed."""
    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module("lnl_desktop.core.map.movement")


def build_terrain(seed: int = 1234) -> Terrain:
    """A 200 x 200 map with 10% random walls and 10% difficult terrain (seeded)."""
    from lnl_desktop.core.map.terrain import Terrain  # importable once load_movement() found the package

    rng = random.Random(seed)
    centre = (SIZE // 2, SIZE // 2)
    walls: set[Cell] = set()
    difficult: set[Cell] = set()
    for y in range(SIZE):
        for x in range(SIZE):
            if (x, y) == centre:
                continue  # the mover stands here
            r = rng.random()
            if r < 0.10:
                walls.add((x, y))
            elif r < 0.20:
                difficult.add((x, y))
    terrain = Terrain(SIZE, SIZE, frozenset(walls), frozenset(difficult))
    return terrain


def median_ms(fn: Callable[[], object], runs: int = RUNS) -> float:
    """Median wall time of ``fn`` in milliseconds, after one warm-up call."""
    fn()  # warm-up: numpy first-call costs
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


def report(label: str, ms: float) -> None:
    verdict = "ok" if ms < BUDGET_MS else "OVER BUDGET"
    print(f"{label}: median {ms:.2f} ms (budget {BUDGET_MS:g} ms) {verdict}")


def main() -> None:
    g = load_movement()
    terrain = build_terrain()
    from lnl_desktop.core.map.grid import DiagonalRule  # importable now that load_movement() found the package
    from lnl_desktop.lazy import load_now

    load_now("numpy")  # the program loads it once its window is up: not part of the grids' cost
    t0 = time.perf_counter()
    _ = terrain.wall_grid, terrain.difficult_grid
    print(f"terrain grids (built once per map): {(time.perf_counter() - t0) * 1000.0:.2f} ms")

    start = (SIZE // 2, SIZE // 2)
    alt = g.MoveRules(DiagonalRule.ALTERNATING)
    euclid = g.MoveRules(DiagonalRule.EUCLIDEAN)
    reach = g.reachable(terrain, start, 1, MOVE_FT, alt)
    far = max(reach.cells(), key=lambda c: reach.cost_ft(c) or 0.0)
    print(f"{len(reach.cells())} cells reachable; far cell {far} at {reach.cost_ft(far):g} ft")
    # A few enemies and allies around the mover, as in a real fight.
    rng = random.Random(99)
    around = [(start[0] + rng.randint(-10, 10), start[1] + rng.randint(-10, 10)) for _ in range(12)]
    enemies = frozenset(c for c in around[:6] if c != start)
    occupied = frozenset(c for c in around if c != start)
    cone = g.cells_outside_cone(terrain, (start[0] + 8, start[1]), 1, 270.0, 120.0, 1)

    where = f"{MOVE_FT:g} ft on {SIZE}x{SIZE}, 10% walls"

    def with_cells_and_blocked() -> object:
        r = g.reachable(terrain, start, 1, MOVE_FT, alt)
        return r.cells(), r.blocked()

    cases: list[tuple[str, Callable[[], object]]] = [
        (f"reachable {where}", lambda: g.reachable(terrain, start, 1, MOVE_FT, alt)),
        (
            f"reachable + path_to far cell {where}",
            lambda: g.reachable(terrain, start, 1, MOVE_FT, alt).path_to(far),
        ),
        (f"reachable + cells() + blocked() {where}", with_cells_and_blocked),
        (
            f"reachable with 6 enemies, 12 occupied {where}",
            lambda: g.reachable(terrain, start, 1, MOVE_FT, alt, enemies=enemies, occupied=occupied),
        ),
        (
            f"reachable outside a vision cone {where}",
            lambda: g.reachable(terrain, start, 1, MOVE_FT, alt, allowed=cone),
        ),
        (f"reachable 2x2 token {where}", lambda: g.reachable(terrain, start, 2, MOVE_FT, alt)),
        (f"reachable euclidean {where}", lambda: g.reachable(terrain, start, 1, MOVE_FT, euclid)),
        (
            f"cheapest_path to far cell {where}",
            lambda: g.cheapest_path(terrain, start, far, 1, MOVE_FT, alt),
        ),
    ]
    for label, fn in cases:
        report(label, median_ms(fn))


if __name__ == "__main__":
    main()

"""Battle map benchmarks: full repaint, one drag update, memory. A script, not a test.

Offscreen, a 200 x 200 map with 10% walls and some difficult terrain, 500 tokens, a 1600 x 1000
view showing the whole map. Prints medians against the budgets (DESIGN.md, the map's issue):

    full repaint 200x200, 500 tokens: under 16 ms
    one drag update (cursor enters a new cell: route, label, ghost, overlays): under 8 ms
    resident memory: under 300 MB

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_map.py``
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections.abc import Callable

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QImage, QMouseEvent, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.encounter.map_model import MapGrid, Token
from lnl_desktop.core.encounter.model import Side, WeaponKind
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter, Weapon
from lnl_desktop.lazy import load_now
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.plumbing.controller import TableController

SIZE = 200
TOKENS = 500
MOVER = "mover"


def build_encounter(seed: int = 7, move_ft: int = 30) -> Encounter:
    rng = random.Random(seed)
    cells = [(x, y) for x in range(SIZE) for y in range(SIZE)]
    centre = (SIZE // 2, SIZE // 2)
    free_zone = {(centre[0] + dx, centre[1] + dy) for dx in range(-1, 2) for dy in range(-1, 2)}
    walls = set(rng.sample(cells, SIZE * SIZE // 10)) - free_zone
    difficult: set[tuple[int, int]] = set()
    for _ in range(120):  # patches of mud and brush
        x0, y0 = rng.randrange(SIZE - 6), rng.randrange(SIZE - 6)
        difficult |= {(x0 + i, y0 + j) for i in range(rng.randint(2, 6)) for j in range(rng.randint(2, 6))}
    difficult -= walls
    combatants: list[Combatant] = []
    tokens: dict[str, Token] = {}
    free = [c for c in cells if c not in walls and c not in free_zone]
    rng.shuffle(free)
    bow = Weapon(name="Bow", die="d6", kind=WeaponKind.RANGED, max_range_ft=150)
    sword = Weapon(name="Sword", die="d8")
    combatants.append(
        Combatant(
            id=MOVER,
            name="Mover",
            side=Side.PARTY,
            level=5,
            stamina_max=30,
            injury_max=10,
            move_ft=move_ft,
            weapons=[sword, bow],
        )
    )
    tokens[MOVER] = Token(cell=centre, facing=90)
    for i in range(TOKENS - 1):
        side = Side.PARTY if i % 2 else Side.OPPONENTS
        cid = f"t{i}"
        combatants.append(
            Combatant(id=cid, name=f"Goblin {i}", side=side, level=1, stamina_max=6, injury_max=4, weapons=[sword])
        )
        tokens[cid] = Token(cell=free[i], facing=rng.choice(range(0, 360, 45)))
    grid = MapGrid(width=SIZE, height=SIZE, walls=frozenset(walls), difficult=frozenset(difficult))
    return Encounter(name="Benchmark", map=grid, combatants=combatants, tokens=tokens)


def median_ms(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), max(times)


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def report(what: str, median: float, budget: float | None, worst: float | None = None, unit: str = "ms") -> None:
    extra = f", worst {worst:.1f} {unit}" if worst is not None else ""
    limit = f" (budget {budget:g} {unit})" if budget is not None else ""
    verdict = "" if budget is None else ("  ok" if median <= budget else "  OVER BUDGET")
    print(f"{what}: median {median:.1f} {unit}{extra}{limit}{verdict}")


def drag_bench(move_ft: int) -> None:
    controller = TableController(build_encounter(move_ft=move_ft))
    controller.engine.start_combat(face=5)  # Party first
    controller.engine.begin_turn(MOVER)
    view = MapView(controller)
    view.resize(1600, 1000)
    view.show()
    QApplication.processEvents()
    view.fit_map()
    # Drag at a working zoom (about 20 px a cell), as a GM would.
    view.zoom_reset()
    for _ in range(5):
        view.zoom_out()
    view.center_on(MOVER)
    QApplication.processEvents()
    viewport = view.viewport()

    def at(cell: tuple[int, int]) -> QPointF:
        return QPointF(view.mapFromScene(view.scene_point_of(cell)))

    start = (SIZE // 2, SIZE // 2)
    t0 = time.perf_counter()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(start).toPoint())
    first = at((start[0] + 1, start[1]))
    QApplication.sendEvent(viewport, _move_event(viewport, first))  # starts the drag: reach shading built
    press_ms = (time.perf_counter() - t0) * 1000

    reach_cells = move_ft // 5
    # The cursor wanders cell by cell: out to twice the Move (so past it too) and around.
    path = []
    x, y = start[0] + 1, start[1]
    rng = random.Random(3)
    for _ in range(160):
        x = min(max(x + rng.choice((-1, 0, 1, 1)), start[0] - 2 * reach_cells), start[0] + 2 * reach_cells)
        y = min(max(y + rng.choice((-1, 0, 1)), start[1] - 2 * reach_cells), start[1] + 2 * reach_cells)
        path.append((x, y))
    times = []
    frames = []
    for cell in path:
        event = _move_event(viewport, at(cell))
        t1 = time.perf_counter()
        QApplication.sendEvent(viewport, event)
        t2 = time.perf_counter()
        viewport.repaint()
        t3 = time.perf_counter()
        times.append((t2 - t1) * 1000)
        frames.append((t3 - t1) * 1000)
    QTest.keyClick(viewport, Qt.Key.Key_Escape)
    report(f"press on a token (reach, Move {move_ft} ft; once per drag)", press_ms, None)
    report(
        f"one drag update 200x200, 500 tokens, Move {move_ft} ft (route + label + ghost + overlays)",
        statistics.median(times),
        8,
        max(times),
    )
    report(
        f"  the same plus its repaint of the viewport (Move {move_ft} ft)", statistics.median(frames), None, max(frames)
    )
    view.close()
    view.deleteLater()


def _move_event(viewport: object, point: QPointF) -> QMouseEvent:
    return QMouseEvent(
        QEvent.Type.MouseMove,
        point,
        point,
        Qt.MouseButton.NoButton,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    load_now("numpy")  # the program loads it once its window is up: not part of building the view
    t0 = time.perf_counter()
    controller = TableController(build_encounter())
    controller.engine.start_combat(face=5)
    controller.engine.begin_turn(MOVER)
    view = MapView(controller)
    view.resize(1600, 1000)
    view.show()
    app.processEvents()
    view.fit_map()
    controller.select(MOVER)
    app.processEvents()
    print(f"building the view: {(time.perf_counter() - t0) * 1000:.0f} ms (encounter and scene, once)")
    viewport = view.viewport()
    items = len(view.map_scene.items())
    print(f"scene items: {items} for {TOKENS} tokens on {SIZE * SIZE} cells")

    t1 = time.perf_counter()
    viewport.repaint()
    report("first repaint after a zoom (every token painted anew)", (time.perf_counter() - t1) * 1000, None)
    median, worst = median_ms(viewport.repaint, 30)
    report(f"full repaint {SIZE}x{SIZE}, {TOKENS} tokens (viewport 1600x1000, whole map)", median, 16, worst)

    image = QImage(viewport.size(), QImage.Format.Format_ARGB32_Premultiplied)

    def render() -> None:
        painter = QPainter(image)
        view.render(painter)
        painter.end()

    median, worst = median_ms(render, 15)
    report("  render of the same view into a QImage (no item cache)", median, None, worst)

    view.zoom_reset()
    view.center_on(MOVER)
    app.processEvents()
    viewport.repaint()
    median, worst = median_ms(viewport.repaint, 30)
    report("full repaint at 1:1 zoom (64 px cells)", median, 16, worst)
    view.close()

    drag_bench(30)
    drag_bench(120)
    report("resident memory (VmRSS)", rss_mb(), 300, unit="MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

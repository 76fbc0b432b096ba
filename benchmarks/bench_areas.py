"""Area templates benchmark (RULES §14): laying a template on a big map. A script, not a test.

A 200 x 200 map with 500 tokens and 2,000 wall segments (``big_maps.py``: straight segments 2-10
cells long, a tenth of them doors), the GM's map view offscreen at a working zoom. The Template tool
is pressed and the cursor wanders cell by cell; each step is one mouse move event sent to the view:
the cells struck worked out (the shape's window, walls in its box), the shading, outline and label,
the rings round every creature inside. Printed per shape, median and worst, against the budget:

    one mouse move while laying a template (median and worst)        <= 4 ms

and the same with its repaint of the viewport, and moving a placed template with the Select tool.

    python benchmarks/bench_areas.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent))

from big_maps import build

from lnl_desktop.core.encounter.actions import PlaceTemplate
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.lazy import load_now
from lnl_desktop.ui.map.view import MapView
from lnl_desktop.ui.plumbing.controller import TableController

SIZE, TOKENS, SEGMENTS = 200, 500, 2000
BUDGET_MS = 4.0


def _move(point: QPointF) -> QMouseEvent:
    return QMouseEvent(
        QEvent.Type.MouseMove,
        point,
        point,
        Qt.MouseButton.NoButton,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )


def _report(what: str, times: list[float], budget: float | None) -> None:
    median, worst = statistics.median(times), max(times)
    limit = "" if budget is None else f" (budget {budget:g} ms)"
    verdict = (
        ""
        if budget is None
        else ("  ok" if worst <= budget else ("  ok (median)" if median <= budget else "  OVER BUDGET"))
    )
    print(f"{what}: median {median:.2f} ms, worst {worst:.2f} ms{limit}{verdict}")


def lay(view: MapView, shape: AreaShape, reach_cells: int, steps: int = 120) -> None:
    viewport = view.viewport()
    centre = (SIZE // 2 + 0.5, SIZE // 2 + 0.5)

    def at(x: float, y: float) -> QPointF:
        return QPointF(view.mapFromScene(QPointF(x * 64, y * 64)))

    view.template_style.shape = shape
    view.set_tool("template")
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(*centre).toPoint())
    rng = random.Random(5)
    x, y = centre[0] + 2, centre[1]
    moves, frames = [], []
    for _ in range(steps):
        x = min(max(x + rng.choice((-1, 0, 1)), centre[0] - reach_cells), centre[0] + reach_cells)
        y = min(max(y + rng.choice((-1, 0, 1)), centre[1] - reach_cells), centre[1] + reach_cells)
        event = _move(at(x, y))
        t1 = time.perf_counter()
        QApplication.sendEvent(viewport, event)
        t2 = time.perf_counter()
        viewport.repaint()
        t3 = time.perf_counter()
        moves.append((t2 - t1) * 1000)
        frames.append((t3 - t1) * 1000)
    QTest.keyClick(viewport, Qt.Key.Key_Escape)
    _report(f"lay a {shape.value} (up to {reach_cells * 5} ft): one mouse move", moves, BUDGET_MS)
    _report("  the same plus its repaint of the viewport", frames, None)


def move_placed(view: MapView, controller: TableController) -> None:
    viewport = view.viewport()
    taken = {t.cell for t in controller.encounter.tokens.values()}
    free = next(c for c in ((SIZE // 2 + 20 + i, SIZE // 2 + 20) for i in range(40)) if c not in taken)
    origin = (free[0] + 0.5, free[1] + 0.5)
    controller.do(PlaceTemplate("circle", origin, 20, 0))
    view.set_tool("select")

    def at(x: float, y: float) -> QPointF:
        return QPointF(view.mapFromScene(QPointF(x * 64, y * 64)))

    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(*origin).toPoint())
    gesture = type(view._gesture).__name__
    times = []
    x, y = origin
    rng = random.Random(9)
    for _ in range(120):
        x += rng.choice((-1, 0, 1))
        y += rng.choice((-1, 0, 1))
        event = _move(at(x, y))
        t1 = time.perf_counter()
        QApplication.sendEvent(viewport, event)
        times.append((time.perf_counter() - t1) * 1000)
    QTest.keyClick(viewport, Qt.Key.Key_Escape)
    _report(f"move a placed 20 ft circle with the Select tool ({gesture}): one mouse move", times, BUDGET_MS)


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    load_now("numpy")
    encounter = build(size=SIZE, tokens=TOKENS, segments=SEGMENTS, fog=False)
    controller = TableController(encounter)
    view = MapView(controller)
    view.resize(1366, 768)
    view.show()
    app.processEvents()
    view.zoom_reset()
    for _ in range(4):
        view.zoom_out()  # some 26 px a cell, as a GM works on a big map
    view.centerOn(QPointF(SIZE // 2 * 64, SIZE // 2 * 64))
    app.processEvents()
    print(f"{SIZE}x{SIZE} map, {TOKENS} tokens, {SEGMENTS:,} wall segments; budget {BUDGET_MS:g} ms a mouse move")
    lay(view, AreaShape.CIRCLE, 6)  # up to a 30 ft radius
    lay(view, AreaShape.CONE, 12)  # up to a 60 ft cone, sweeping round
    lay(view, AreaShape.LINE, 24)  # up to a 120 ft line
    lay(view, AreaShape.SQUARE, 6)
    lay(view, AreaShape.CIRCLE, 24, steps=60)  # a big one: up to 120 ft
    move_placed(view, controller)
    view.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

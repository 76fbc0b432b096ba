"""Player view benchmark: from a GM move to the player view's repaint. A script, not a test.

The demo encounter in the main window with the player view open (1280 x 800, offscreen). Each
sample is one ``controller.do(Move(...))`` (a forced move back and forth) followed by the player
view's ``viewport().repaint()``: the players see the token on its new cell (the first frame of
its slide). Prints the median against the budget:

    GM move to player view repainted: under 16 ms (one frame at 60 Hz)

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_player_view.py``
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

BUDGET_MS = 16.0
SAMPLES = 60


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="lnl-bench-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(scratch))
    window.resize(1600, 1000)
    window.show()
    window.show_player_view(True)
    player = window.ensure_player_view()
    player.resize(1280, 800)
    for _ in range(5):
        app.processEvents()
    viewport = player.view.viewport()
    controller = window.controller
    cells = [(8, 8), (8, 6)]
    times: list[float] = []
    for i in range(SAMPLES):
        start = time.perf_counter()
        events = controller.do(act.Move("tombril", cells[i % 2], forced=True))
        viewport.repaint()
        times.append((time.perf_counter() - start) * 1000)
        assert events, controller.refusal
        player.view.finish_animations()
        app.processEvents()
    median = statistics.median(times)
    worst = max(times)
    verdict = "ok" if median < BUDGET_MS else "OVER BUDGET"
    print(
        f"GM move to player view repainted: median {median:.2f} ms, max {worst:.2f} ms "
        f"(budget {BUDGET_MS} ms) {verdict}"
    )
    controller.undo_stack.setClean()
    window.close()
    return 0 if median < BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())

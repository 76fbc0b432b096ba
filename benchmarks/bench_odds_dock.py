"""The Odds dock on a 40-combatant skirmish: how long the GUI thread is held at a time. A script, not a test.

A real MainWindow (offscreen) with the 20-against-20 skirmish of bench_skirmish.py, the Odds dock in front;
the odds are worked out again ``--repeat`` times (a change each time: the first 500 fights, then the
10,000). A 1 ms timer on the GUI thread records the gaps between its ticks: a gap is the GUI thread held
(by a slot, a paint, a layout, or the worker holding the interpreter). Printed against 16 ms (a frame):
the GUI thread's own processor time in the worst gap holding a hand-back from the worker (the results
taken, the dock filled, its chart drawn: load-independent), the same without the gaps where the interpreter
collected garbage on the GUI thread (the worker's objects set those off), and the wall-clock gaps (on a
loaded machine they include waits for a core and for the interpreter).

    python benchmarks/bench_odds_dock.py [--repeat N] [lnl classic osr d10]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BUDGET_MS = 16.0  # a frame: the GUI thread never held longer by a hand-back
TICK_MS = 1


def measure(ruleset_name: str, repeat: int) -> dict[str, float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from bench_skirmish import skirmish
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QSettings, Qt, QTimer, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication, QMessageBox

    from lnl_desktop.ui.plumbing import collector
    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    qInstallMessageHandler(lambda kind, context, text: None)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    QMessageBox.question = lambda *a, **k: QMessageBox.StandardButton.Discard  # type: ignore[method-assign]

    # Every hand-back (the inbox's timer taking what the worker put on the queue) marked and timed.
    handed: list[float] = []  # perf_counter of each hand-back's start
    spent: list[float] = []  # seconds each hand-back took in Python (the slots, not the paint after)
    take_all = collector.Inbox.take_all

    def timed_take_all(self: collector.Inbox) -> None:
        start = time.perf_counter()
        waiting = not self.queue.empty()
        take_all(self)
        if waiting and self._take.__qualname__.startswith("FightOddsService"):
            handed.append(start)
            spent.append(time.perf_counter() - start)

    collector.Inbox.take_all = timed_take_all  # type: ignore[method-assign]

    # The interpreter's collections on the GUI thread, apart: the worker's many objects make the GUI thread
    # collect now and then, whatever it is doing (a pause of the whole program, not of the dock's work).
    collections: list[tuple[float, float, float]] = []  # start, end, the GUI thread's processor time in it
    began = [0.0, 0.0]

    def on_collect(phase: str, info: dict[str, int]) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        if phase == "start":
            began[:] = [time.perf_counter(), time.thread_time()]
        else:
            collections.append((began[0], time.perf_counter(), time.thread_time() - began[1]))

    gc.callbacks.append(on_collect)

    # The dock shows a result in pieces, a turn of the event loop each: each piece is part of the hand-back.
    from lnl_desktop.ui.docks import odds as odds_dock

    next_piece = getattr(odds_dock.FightOddsPanel, "_next_piece", None)
    if next_piece is not None:

        def timed_piece(self: odds_dock.FightOddsPanel) -> None:
            start = time.perf_counter()
            next_piece(self)
            handed.append(start)
            spent.append(time.perf_counter() - start)

        odds_dock.FightOddsPanel._next_piece = timed_piece  # type: ignore[method-assign]

    with tempfile.TemporaryDirectory(prefix="lnl-odds-dock-") as scratch:
        folder = Path(scratch)
        window = MainWindow(
            skirmish(ruleset_name, walled=False),
            settings=QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat),
            recovery=RecoveryStore(folder / "recovery"),
        )
        window.resize(1600, 1000)
        window.show()
        dock = window.docks["Odds"]
        dock.show()
        dock.raise_()
        service = window.fight_odds
        app.processEvents()

        ticks: list[float] = []
        ticker = QTimer()
        ticker.setTimerType(Qt.TimerType.PreciseTimer)
        ticker.setInterval(TICK_MS)
        ticker.timeout.connect(lambda: ticks.append((time.perf_counter(), time.thread_time())))

        def wait_for_full(limit_ms: int = 120_000) -> None:
            clock = QElapsedTimer()
            clock.start()
            loop_ready = lambda: service.latest is not None and not service.running  # noqa: E731
            while not loop_ready() and clock.elapsed() < limit_ms:
                app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
            for _ in range(20):  # the paint after the last hand-back
                app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)

        wait_for_full()  # the first odds: pyqtgraph loaded, the charts built
        ticker.start()
        for _ in range(repeat):
            service.changed()  # as after an action: worked out again a moment later
            wait_for_full()
        ticker.stop()
        gaps = [(b[0] - a[0], a[0], b[0]) for a, b in itertools.pairwise(ticks)]
        hand_gaps = [g for g, a, b in gaps if any(a <= h <= b for h in handed)]
        # The GUI thread's own processor time in each gap: what it did, without the waits for a core
        # (a loaded machine) or for the interpreter (the worker holding it).
        cpu_gaps = [b[1] - a[1] for a, b in itertools.pairwise(ticks) if any(a[0] <= h <= b[0] for h in handed)]
        clean = [
            b[1] - a[1]
            for a, b in itertools.pairwise(ticks)
            if any(a[0] <= h <= b[0] for h in handed) and not any(s < b[0] and e > a[0] for s, e, _ in collections)
        ]
        gc.callbacks.remove(on_collect)
        window.setWindowModified(False)
        window.controller.undo_stack.setClean()
        window.close()
        app.processEvents()
    return {
        "hand_worst": max(hand_gaps, default=0.0) * 1e3,
        "hand_median": statistics.median(hand_gaps) * 1e3 if hand_gaps else 0.0,
        "hand_count": float(len(hand_gaps)),
        "slot_worst": max(spent, default=0.0) * 1e3,
        "cpu_worst": max(cpu_gaps, default=0.0) * 1e3,
        "clean_worst": max(clean, default=0.0) * 1e3,
        "gc_worst": max((cpu for _, _, cpu in collections), default=0.0) * 1e3,
        "gc_count": float(len(collections)),
        "any_worst": max((g for g, _, _ in gaps), default=0.0) * 1e3,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rulesets", nargs="*", default=["lnl"])
    parser.add_argument("--repeat", type=int, default=5, help="times the odds are worked out again")
    args = parser.parse_args()
    for name in args.rulesets:
        r = measure(name, args.repeat)
        verdict = "within budget" if r["hand_worst"] <= BUDGET_MS else "OVER BUDGET"
        cpu_verdict = "within budget" if r["cpu_worst"] <= BUDGET_MS else "OVER BUDGET"
        what = f"Odds dock, {name} 20v20"
        print(
            f"{what}, the GUI thread's own processor time in one hand-back, worst: {r['cpu_worst']:.1f} ms "
            f"(budget {BUDGET_MS:g} ms) {cpu_verdict}; {r['clean_worst']:.1f} ms at most without a collection "
            "of the interpreter's in it"
        )
        print(
            f"{what}, the GUI thread held by a hand-back, worst: {r['hand_worst']:.1f} ms (budget {BUDGET_MS:g} ms) "
            f"{verdict}; median {r['hand_median']:.1f} ms of {r['hand_count']:.0f}; a slot or piece alone at most "
            f"{r['slot_worst']:.1f} ms"
        )
        print(
            f"{what}, the longest collection of the interpreter's on the GUI thread: {r['gc_worst']:.1f} ms of "
            f"processor time ({r['gc_count']:.0f} collections); any gap of the GUI thread at most "
            f"{r['any_worst']:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

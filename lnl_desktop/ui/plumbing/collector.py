"""Python's cycle collector runs on the GUI thread only, and workers hand back plain values (:class:`Inbox`).

The automatic collector runs on whichever thread happens to allocate when a generation fills up. On
a worker thread (the fight odds, a hover's view, a map import) it may free a Python wrapper of a Qt
object found in a cycle; its destructor then takes Qt's locks from the wrong thread, and the GUI
thread, which holds the interpreter lock while it deletes widgets, waits on the same locks: both
wait for ever. So, as PySide and PyQt programs with worker threads do, the automatic collector is
switched off and a timer on the GUI thread collects with the same thresholds it would have used.
Workers themselves are given plain data only (see :mod:`lnl_desktop.ui.plumbing.fight_odds`).
"""

from __future__ import annotations

import gc
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication

INTERVAL_MS = 250  # often enough that garbage between two looks stays small
THAW_EVERY = 16  # every this many full collections, the frozen objects are looked at again
HELD_LIMIT = 10  # while a button is held, the older generations wait until this many times their threshold
QUIET_MS = 250  # after the GM acts, the older generations wait this long too (the action's frame comes first)
_acted_at = -1e9  # when the GM last acted (time.monotonic): see gm_acted


def gm_acted() -> None:
    """The GM acts (an action about to apply, a press on the map: ``TableController.acting``): a collection
    of the older generations (50-100 ms once a big map was opened) waits for a quiet moment."""
    global _acted_at
    _acted_at = time.monotonic()


class GuiCollector(QObject):
    """Collects on the GUI thread every :data:`INTERVAL_MS`, a generation at a time as its count says.

    A full collection looks at every object the program holds: 40-100 ms with a big map open, a
    stall in the middle of a drag. So what survives a full collection, or a collection of the
    middle generation, is frozen (``gc.freeze``): the next ones look only at what came since.
    Every :data:`THAW_EVERY`-th full collection looks at the frozen objects again (garbage among
    them is freed too, in the end), and never while a mouse button is held or just after the GM acted
    (:func:`gm_acted`); nor does any but the youngest generation's, unless garbage piles up meanwhile.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self.full = 0  # full collections so far
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        gc.disable()
        # Counted from the first event pass, not from now: building the window takes longer than an
        # interval, and a full collection must not run before the window is first shown.
        QTimer.singleShot(0, self, self.timer.start)

    def check(self) -> int:
        """Collect the generations whose counts passed their thresholds; the number of objects found."""
        counts = gc.get_count()
        if counts[0] <= self.threshold[0]:
            return 0
        generation = 0
        if counts[1] > self.threshold[1]:
            generation = 2 if counts[2] > self.threshold[2] else 1
        held = QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton
        held = held or time.monotonic() - _acted_at < QUIET_MS / 1000
        if generation and held and counts[1] <= HELD_LIMIT * self.threshold[1]:
            generation = 0  # a press, a drag or an action under way: the older generations wait for its end
        if generation == 0:
            return gc.collect(0)
        if generation == 1:
            # What outlives two collections lives on (a dock's charts, a map's caches, the models): set
            # aside like the survivors of a full one, so no later young collection walks it again
            # (20 ms collections in the middle of play once the charts were built).
            found = gc.collect(1)
            gc.freeze()
            return found
        thaw = self.full % THAW_EVERY == THAW_EVERY - 1 and not held
        if thaw:
            gc.unfreeze()
        found = gc.collect(2)
        if thaw or self.full % THAW_EVERY != THAW_EVERY - 1:
            self.full += 1
        gc.freeze()
        return found


def install() -> GuiCollector:
    """The application's collector, made once, on the GUI thread (where the QApplication lives)."""
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("make the QApplication before the collector")
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("the collector is installed from the GUI thread only")
    found = app.findChild(GuiCollector, "lnl-gui-collector")
    if found is None:
        found = GuiCollector(app)
        found.setObjectName("lnl-gui-collector")
    else:
        gc.disable()  # something switched it back on: off again
    return found


class Inbox:
    """What workers hand back: plain values a worker puts on :attr:`queue` (no Qt object touched off
    the GUI thread), taken here on the GUI thread by a timer that runs only while :meth:`waiting` says
    some are still to come, each handed to ``take`` in order."""

    def __init__(
        self, take: Callable[[Any], None], waiting: Callable[[], bool], interval_ms: int, parent: QObject | None = None
    ) -> None:
        self.queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._take = take
        self._waiting = waiting
        self._timer = QTimer(parent)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.take_all)

    def expect(self) -> None:
        """A worker was started: look for what it hands back."""
        self._timer.start()

    def take_all(self) -> None:
        """Hand everything waiting on the queue to ``take``; stop looking once nothing more is to come."""
        while True:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                break
            self._take(item)
        if not self._waiting():
            self._timer.stop()

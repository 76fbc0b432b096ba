"""Waiting on a worker without a sleep: an event loop runs until the condition holds (Qt's event loop
lets a worker thread have the interpreter while it waits; QTest.qWait would keep it)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEventLoop, QTimer

WAIT_S = 30.0  # a loaded test machine: the worker's 10,000 fights take well under a second alone


def run_until(done: Callable[[], bool], timeout_s: float = WAIT_S, what: str = "the worker's result") -> None:
    """Run the GUI thread's event loop until ``done()``; fail with ``what`` after ``timeout_s``."""
    if done():
        return
    loop = QEventLoop()
    check = QTimer()
    check.setInterval(10)
    check.timeout.connect(lambda: loop.quit() if done() else None)
    limit = QTimer()
    limit.setSingleShot(True)
    limit.timeout.connect(loop.quit)
    check.start()
    limit.start(round(timeout_s * 1000))
    loop.exec()
    check.stop()
    limit.stop()
    assert done(), f"{what} never came within {timeout_s:.0f} s"

"""No Qt object is destroyed, collected or touched off the GUI thread.

Python's automatic collector runs on whichever thread allocates; on a worker it may free a Qt
wrapper, whose destructor waits on Qt's locks while the GUI thread, holding the interpreter lock,
waits on the same: the window freezes for good. So the automatic collector is off once a window
exists and a timer on the GUI thread collects (lnl_desktop.ui.plumbing.collector), and the workers are plain
functions given plain data. These tests open and close windows and dialogs while the fight odds
are worked out, and wait on the worker with an event loop, never a sleep.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout
from waiting import run_until

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.ui.plumbing import collector
from lnl_desktop.ui.plumbing import fight_odds as fight_odds_module
from lnl_desktop.ui.window.player_view import PlayerView


@pytest.fixture
def collections() -> Iterator[list[str]]:
    """The name of the thread every cycle collection started on, while the test runs."""
    seen: list[str] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(threading.current_thread().name)

    gc.callbacks.append(record)
    yield seen
    gc.callbacks.remove(record)


def holds_a_qt_object(start: object, depth: int = 5) -> bool:
    """Whether ``start`` reaches a QObject through up to ``depth`` references (modules and classes aside)."""
    seen: set[int] = set()
    layer = [start]
    for _ in range(depth):
        following = []
        for thing in layer:
            if id(thing) in seen or isinstance(thing, type) or type(thing).__name__ == "module":
                continue
            seen.add(id(thing))
            if isinstance(thing, QObject):
                return True
            following.extend(gc.get_referents(thing))
        layer = following
    return False


def test_a_window_switches_the_automatic_collector_off_and_collects_on_its_own_thread(
    laptop_window: Any, collections: list[str]
) -> None:
    laptop_window()
    assert not gc.isenabled()
    gone: list[bool] = []

    class Knot:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            gone.append(True)

    for _ in range(2_000):  # cycles that only the collector frees: past its first threshold
        Knot()
    run_until(lambda: len(gone) == 2_000, 10.0, "the collection of 2,000 cycles")
    assert collections and set(collections) == {threading.main_thread().name}
    # Installed again (a second window), it stays one collector and the automatic one stays off.
    gc.enable()
    again = collector.install()
    assert again is collector.install() and not gc.isenabled()


def test_the_odds_worker_is_given_plain_data_only(laptop_window: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[threading.Thread] = []
    real = threading.Thread.start

    def watched(thread: threading.Thread) -> None:
        started.append(thread)
        real(thread)

    monkeypatch.setattr(threading.Thread, "start", watched)
    window = laptop_window()
    service = window.fight_odds
    run_until(lambda: not service.running and window.turns_panel.odds_label.isVisible(), what="the setup odds")
    workers = [t for t in started if t.name == "lnl-fight-odds"]
    assert workers
    for worker in workers:
        target, args = worker.__dict__.get("_target"), worker.__dict__.get("_args", ())
        # Started threads drop their target; the one kept here is what it was given.
        assert target is None or target is fight_odds_module.play
        assert not any(holds_a_qt_object(arg) for arg in args)


def test_windows_and_dialogs_come_and_go_while_the_odds_are_worked_out(
    laptop_window: Any, collections: list[str]
) -> None:
    window = laptop_window()
    dock = window.docks["Odds"]
    dock.show()
    dock.raise_()
    service = window.fight_odds
    controller = window.controller
    cells = [(8, 7), (8, 8), (9, 8), (9, 7)]
    for step in range(12):
        controller.do(act.Move("tombril", cells[step % len(cells)], forced=True))
        run_until(lambda: service.running, what="the odds worker starting")
        # While it plays: a dialog, a players' window and knots of Qt wrappers made and dropped.
        dialog = QDialog(window)
        QVBoxLayout(dialog).addWidget(QLabel(f"step {step}"))
        dialog.show()
        players = PlayerView(controller, window.map_view)
        players.show()
        for _ in range(300):
            holder = QObject()
            holder.me = holder  # type: ignore[attr-defined]  # a cycle only the collector frees
        dialog.close()
        dialog.deleteLater()
        players.close()
        players.deleteLater()
        run_until(lambda: not service.running, what="the fight odds")
    assert window.docks["Odds"].isVisible()
    panel = window._panel("Odds")
    run_until(lambda: panel.odds is not None and panel.odds.fights == 10_000, what="the full odds")
    assert collections, "nothing was collected: the test made no garbage"
    assert set(collections) == {threading.main_thread().name}

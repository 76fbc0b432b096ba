"""The GUI thread's collector keeps big collections out of a press or a drag: while a mouse button is
held only the youngest generation is collected (unless garbage piles up past a limit), and what a
full collection or a collection of the middle generation leaves is frozen so the next ones look only
at what came since; every
THAW_EVERY-th full collection, with no button held, looks at the frozen objects again."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from lnl_desktop.ui.plumbing import collector


class FakeGc:
    """The counts the collector reads, and the calls it makes (the real collector stays off)."""

    def __init__(self, counts: tuple[int, int, int]) -> None:
        self.counts = counts
        self.calls: list[str] = []

    def get_count(self) -> tuple[int, int, int]:
        return self.counts

    def collect(self, generation: int) -> int:
        self.calls.append(f"collect {generation}")
        return 0

    def freeze(self) -> None:
        self.calls.append("freeze")

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")


@pytest.fixture
def made(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    was_enabled = gc.isenabled()  # a collector switches the automatic one off: as it was afterwards
    held = {"buttons": Qt.MouseButton.NoButton}
    monkeypatch.setattr(collector.QGuiApplication, "mouseButtons", staticmethod(lambda: held["buttons"]))
    monkeypatch.setattr(collector, "_acted_at", -1e9)  # no GM's action just before (another test's window)

    def make(counts: tuple[int, int, int]) -> tuple[collector.GuiCollector, FakeGc, dict[str, Any]]:
        fake = FakeGc(counts)
        gc_collector = collector.GuiCollector()
        gc_collector.timer.stop()
        gc_collector.threshold = (700, 10, 10)
        monkeypatch.setattr(collector, "gc", fake)
        return gc_collector, fake, held

    yield make
    if was_enabled:
        gc.enable()


def test_a_held_button_puts_the_older_generations_off_until_garbage_piles_up(made: Any) -> None:
    gc_collector, fake, held = made((800, 11, 11))
    held["buttons"] = Qt.MouseButton.LeftButton
    gc_collector.check()
    assert fake.calls == ["collect 0"]
    fake.counts = (800, 10 * 10 + 1, 11)  # past the limit: collected even mid-drag
    gc_collector.check()
    assert fake.calls[-2:] == ["collect 2", "freeze"]
    held["buttons"] = Qt.MouseButton.NoButton
    fake.calls.clear()
    fake.counts = (800, 11, 3)
    gc_collector.check()
    # What outlives the middle generation's collection is set aside too: no young collection walks it again.
    assert fake.calls == ["collect 1", "freeze"]
    fake.counts = (500, 11, 11)  # the youngest generation under its threshold: nothing at all
    gc_collector.check()
    assert fake.calls == ["collect 1", "freeze"]


def test_full_collections_freeze_what_is_left_and_now_and_then_look_at_it_again(made: Any) -> None:
    gc_collector, fake, held = made((800, 11, 11))
    for _ in range(collector.THAW_EVERY - 1):
        gc_collector.check()
    assert fake.calls == ["collect 2", "freeze"] * (collector.THAW_EVERY - 1)
    fake.calls.clear()
    held["buttons"] = Qt.MouseButton.LeftButton
    fake.counts = (800, 10 * 10 + 1, 11)
    gc_collector.check()  # the thawing one waits for the button's release
    assert fake.calls == ["collect 2", "freeze"]
    held["buttons"] = Qt.MouseButton.NoButton
    fake.calls.clear()
    gc_collector.check()
    assert fake.calls == ["unfreeze", "collect 2", "freeze"]
    fake.calls.clear()
    gc_collector.check()
    assert fake.calls == ["collect 2", "freeze"]


def test_just_after_the_gm_acted_the_older_generations_wait_for_a_quiet_moment(
    made: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An action's frame (a Party move on a big map) must not pay for a collection of the middle generation.
    gc_collector, fake, _held = made((800, 11, 3))
    now = {"t": 1000.0}
    monkeypatch.setattr(collector.time, "monotonic", lambda: now["t"])
    collector.gm_acted()
    now["t"] += collector.QUIET_MS / 1000 / 2
    gc_collector.check()
    assert fake.calls == ["collect 0"]
    now["t"] += collector.QUIET_MS / 1000
    gc_collector.check()  # quiet since: the middle generation's turn
    assert fake.calls == ["collect 0", "collect 1", "freeze"]


def test_the_window_tells_the_collector_when_the_gm_acts(laptop_window: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    window = laptop_window()
    acted: list[bool] = []
    monkeypatch.setattr(collector, "_acted_at", -1e9)
    window.controller.acting.connect(lambda: acted.append(True))
    QTest.mouseClick(
        window.map_view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(5, 5)
    )
    assert acted and collector.time.monotonic() - collector._acted_at < 5  # a press on the map is the GM acting

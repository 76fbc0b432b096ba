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
from PySide6.QtCore import Qt
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

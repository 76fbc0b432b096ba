"""Importing a big map in the window: the progress bar moves while the worker reads, Cancel stops the
worker at its next step and changes nothing, and a map over the limits is refused naming the limit."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressDialog, QPushButton
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.map_model import MapGrid
from lnl_desktop.core.files import uvtt
from lnl_desktop.core.rules.lnl.model import Encounter
from lnl_desktop.ui.dialogs import import_map
from lnl_desktop.ui.dialogs.import_map import import_map_file
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]


def cave_file(path: Path, side: int) -> Path:
    """A ``side`` x ``side`` map walled on every cell edge, one-cell segments, no picture."""
    lines = [[{"x": x, "y": y}, {"x": x + 1, "y": y}] for y in range(side + 1) for x in range(side)]
    lines += [[{"x": x, "y": y}, {"x": x, "y": y + 1}] for x in range(side + 1) for y in range(side)]
    document = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": side, "y": side}, "pixels_per_grid": 20},
        "line_of_sight": lines,
        "objects_line_of_sight": [],
        "portals": [],
        "image": "",
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


class Watched:
    """Stands in for the module's QProgressDialog: records the bar's values; once the bar shows
    half way, cancels (``cancel``) or calls ``at_half``."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, *, cancel: bool = False, at_half: Callable[[], None] = lambda: None
    ) -> None:
        self.values: list[int] = []
        self.maximums: list[int] = []
        self.halfway = False
        self.labels: list[str] = []
        record = self

        class Recording(QProgressDialog):
            def setLabelText(self, text: str) -> None:
                super().setLabelText(text)
                record.labels.append(text)

            def setValue(self, value: int) -> None:
                super().setValue(value)
                record.values.append(value)
                record.maximums.append(self.maximum())
                if value >= 50 and not record.halfway:
                    record.halfway = True
                    if cancel:  # as the GM does it: the dialog's Cancel button
                        QTimer.singleShot(0, self.findChild(QPushButton).click)
                    at_half()

        monkeypatch.setattr(import_map, "QProgressDialog", Recording)
        monkeypatch.setattr(import_map, "SHOW_AFTER_S", 0.0)


class Paced:
    """Wraps read_map_file: records the progress the worker tells, and once it passes half way
    holds the worker there until ``release`` is set or the window cancels (so the window surely
    sees the bar half way, and Cancel surely comes mid-import); records how the reading ended."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.told: list[float] = []
        self.ended: list[str] = []
        self.release = threading.Event()
        real = import_map.read_map_file

        def read(path: Path, progress: Callable[[float], None], cancelled: Callable[[], bool]) -> Any:
            held = False

            def tell(done: float) -> None:
                nonlocal held
                self.told.append(done)
                progress(done)
                if done >= 0.5 and not held:
                    held = True
                    for _ in range(2000):  # at most 20 s: a test that fails must not hang
                        if cancelled() or self.release.wait(0.01):
                            break

            try:
                result = real(path, tell, cancelled)
            except uvtt.ImportCancelled:
                self.ended.append("cancelled")
                raise
            self.ended.append("read")
            return result

        monkeypatch.setattr(import_map, "read_map_file", read)


def no_import_running(qtbot: QtBot) -> None:
    qtbot.waitUntil(lambda: not any(t.name == "import-map" for t in threading.enumerate()), timeout=20_000)


def test_the_progress_bar_moves_while_a_big_map_is_read(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    controller = window.controller
    steps = controller.undo_stack.count()
    path = cave_file(tmp_path / "caves.df2vtt", 120)  # 29,040 segments
    paced = Paced(monkeypatch)
    shown = Watched(monkeypatch, at_half=paced.release.set)  # the worker goes on once the bar shows half way

    assert import_map_file(window, controller, path) is True

    assert warnings == []
    assert paced.ended == ["read"]
    assert paced.told == sorted(paced.told) and paced.told[-1] == 1 and len(paced.told) >= 8
    assert shown.values == sorted(shown.values) and shown.values[-1] >= 50
    assert any(0 < v < 100 for v in shown.values) and set(shown.maximums) == {100}
    assert shown.labels[-1] == "Putting 29,040 walls and doors on the map…"  # said while the window applies them
    assert len(controller.encounter.map.segments) == 2 * 120 * 121
    assert controller.undo_stack.count() == steps + 1  # one step


def test_cancel_during_a_big_import_stops_the_worker_and_changes_nothing(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    controller = window.controller
    before = controller.encounter.model_dump_json()
    steps = controller.undo_stack.count()
    path = cave_file(tmp_path / "caves.uvtt", 120)
    paced = Paced(monkeypatch)
    shown = Watched(monkeypatch, cancel=True)

    assert import_map_file(window, controller, path) is False

    assert warnings == []
    assert window.statusBar().currentMessage() == "Import of caves.uvtt cancelled: the map is unchanged"
    assert controller.encounter.model_dump_json() == before
    assert controller.undo_stack.count() == steps
    no_import_running(qtbot)
    assert paced.ended == ["cancelled"]  # the worker stopped at its next step, making nothing
    assert paced.told[-1] < 1 and paced.told == sorted(paced.told) and paced.told[0] >= 0
    assert any(0 < v < 100 for v in shown.values)
    assert controller.encounter.model_dump_json() == before


def test_a_map_over_the_line_limit_is_refused_naming_the_limit(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(uvtt, "MAX_MAP_LINES", 100)  # the real limit's file would take a while to write
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    controller = window.controller
    before = controller.encounter.model_dump_json()
    steps = controller.undo_stack.count()
    path = cave_file(tmp_path / "caves.dd2vtt", 8)  # 144 segments

    assert import_map_file(window, controller, path) is False

    assert warnings == [
        "Import map: caves.dd2vtt: the map has 144 wall segments; the most a map may have is 100 wall segments "
        "and doors together\n\nThe map is unchanged."
    ]
    assert controller.encounter.model_dump_json() == before
    assert controller.undo_stack.count() == steps

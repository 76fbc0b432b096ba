"""Importing a map with many walls in the window: the new map and its walls' barriers are made on the
import's worker thread, the window's thread only puts them in place, the map is refused the same
when it would leave a token off it, and Cancel while it is made changes nothing. Structural guards,
no clocks."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QPushButton
from pytestqt.qtbot import QtBot
from test_import_cancel import cave_file

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import MapGrid, Token
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.map import terrain
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter, Weapon
from lnl_desktop.ui.dialogs import import_map
from lnl_desktop.ui.dialogs.import_map import import_map_file
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]


@pytest.fixture
def warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    said: list[str] = []

    def warning(parent: Any, title: str, text: str, *args: Any) -> QMessageBox.StandardButton:
        said.append(text)
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", warning)
    return said


@pytest.fixture
def made_on(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The threads that made a new map (``MapGrid.edited``) and walls' barriers (``terrain.barriers_of``)."""
    threads: dict[str, list[str]] = {"map": [], "barriers": []}
    edited, barriers_of = MapGrid.edited, terrain.barriers_of

    def spy_edited(self: MapGrid, changes: Any) -> MapGrid:
        threads["map"].append(threading.current_thread().name)
        return edited(self, changes)

    def spy_barriers(segments: Any, doors: Any = ()) -> terrain.Barriers:
        if len(segments) > 1000:
            threads["barriers"].append(threading.current_thread().name)
        return barriers_of(segments, doors)

    monkeypatch.setattr(MapGrid, "edited", spy_edited)
    monkeypatch.setattr(terrain, "barriers_of", spy_barriers)
    return threads


def test_a_big_map_is_made_on_the_worker_and_undo_redo_give_it_back_exactly(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], made_on: dict[str, list[str]]
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    controller = window.controller
    before = controller.encounter.model_dump_json(exclude={"log"})
    path = cave_file(tmp_path / "caves.dd2vtt", 110)  # 24,420 segments: over SAY_APPLYING_LINES

    assert import_map_file(window, controller, path) is True

    assert warnings == []
    assert made_on == {"map": ["import-map"], "barriers": ["import-map"]}  # none on the window's thread
    after = controller.encounter.model_dump_json(exclude={"log"})
    assert len(controller.encounter.map.segments) == 24_420
    controller.undo_stack.undo()
    assert controller.encounter.model_dump_json(exclude={"log"}) == before
    controller.undo_stack.redo()
    assert controller.encounter.model_dump_json(exclude={"log"}) == after
    assert made_on == {"map": ["import-map"], "barriers": ["import-map"]}  # redo puts the same map back


def test_a_big_map_that_would_leave_a_token_off_it_is_refused_and_changes_nothing(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], made_on: dict[str, list[str]]
) -> None:
    ana = Combatant(
        name="Ana", side=Side.PARTY, level=3, stamina_max=20, injury_max=9, weapons=[Weapon(name="Sword", die="d8")]
    )
    encounter = Encounter(map=MapGrid(width=200, height=200), combatants=[ana], tokens={ana.id: Token(cell=(150, 3))})
    window = laptop_window(encounter)
    controller = window.controller
    before = controller.encounter.model_dump_json()
    steps = controller.undo_stack.count()

    assert import_map_file(window, controller, cave_file(tmp_path / "caves.uvtt", 110)) is False

    assert made_on["map"] == ["import-map"]
    assert len(warnings) == 1 and warnings[0].startswith("caves.uvtt was not imported: ")
    assert "(150, 3) is outside the map" in warnings[0] and warnings[0].endswith("The map is unchanged.")
    assert controller.encounter.model_dump_json() == before
    assert controller.undo_stack.count() == steps


def test_cancel_while_the_map_is_made_changes_nothing(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    controller = window.controller
    before = controller.encounter.model_dump_json()
    steps = controller.undo_stack.count()
    cancelled = threading.Event()
    made: list[str] = []
    ahead = act.EditMap.ahead

    def slow_ahead(changes: Any, base: MapGrid) -> act.EditMap:
        cancelled.wait(20)  # held until the GM cancels (at most 20 s: a failing test must not hang)
        made.append("made")
        return ahead(changes, base)

    class Cancelling(QProgressDialog):
        def setLabelText(self, text: str) -> None:
            super().setLabelText(text)
            if text.startswith("Checking"):
                QTimer.singleShot(0, self.findChild(QPushButton).click)
                QTimer.singleShot(50, cancelled.set)

    monkeypatch.setattr(act.EditMap, "ahead", slow_ahead)
    monkeypatch.setattr(import_map, "QProgressDialog", Cancelling)

    assert import_map_file(window, controller, cave_file(tmp_path / "caves.dd2vtt", 110)) is False

    assert warnings == []
    assert window.statusBar().currentMessage() == "Import of caves.dd2vtt cancelled: the map is unchanged"
    qtbot.waitUntil(lambda: made == ["made"], timeout=20_000)  # the worker's map is dropped
    assert controller.encounter.model_dump_json() == before
    assert controller.undo_stack.count() == steps

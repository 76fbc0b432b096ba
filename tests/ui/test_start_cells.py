"""The party's start cells (RULES §16): the GM marks and clears them from the floor's right-click
menu (undoable), the GM's map shows them, the player view never does."""

from __future__ import annotations

from pathlib import Path

import pytest
from players import open_player_view
from PySide6.QtCore import QPointF, QSettings
from PySide6.QtGui import QAction, QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

CELL = (1, 14)  # bare floor in the demo: no token, wall, line, drawing, template or light


@pytest.fixture(autouse=True)
def discard_at_teardown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    main = MainWindow(
        storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(tmp_path / "recovery")
    )
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    yield main
    Presentation().apply(QApplication.instance())


def start_cell_entry(window: MainWindow, cell: tuple[int, int]) -> QAction:
    """The floor menu's "Party start cell" entry, as a right-click on ``cell`` opens it."""
    view = window.map_view
    point = view.mapFromScene(QPointF((cell[0] + 0.5) * CELL_PX, (cell[1] + 0.5) * CELL_PX))
    menu = view.right_click_floor(QPointF(point), view.viewport().mapToGlobal(point))
    entry = next(a for a in menu.actions() if a.text().replace("&", "") == "Party start cell")
    menu.close()
    return entry


def render_gm(window: MainWindow) -> QImage:
    view = window.map_view
    image = QImage(view.viewport().size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    view.render(painter)
    painter.end()
    return image


def test_the_floor_menu_marks_and_clears_a_start_cell_with_undo(window: MainWindow) -> None:
    entry = start_cell_entry(window, CELL)
    assert entry.isCheckable() and not entry.isChecked() and entry.isEnabled()
    entry.trigger()
    encounter = window.controller.encounter
    assert encounter.map.start_cells == {CELL}
    assert "party start cells 1" in encounter.log[-1].text  # a line in the round log

    entry = start_cell_entry(window, CELL)
    assert entry.isChecked()  # a marked cell: the entry clears it
    entry.trigger()
    assert window.controller.encounter.map.start_cells == frozenset()

    window.undo_action.trigger()
    assert window.controller.encounter.map.start_cells == {CELL}
    window.undo_action.trigger()
    assert window.controller.encounter.map.start_cells == frozenset()
    window.redo_action.trigger()
    assert window.controller.encounter.map.start_cells == {CELL}


def test_a_wall_is_no_start_cell_and_the_entry_says_why(window: MainWindow) -> None:
    wall = min(window.controller.encounter.map.walls)
    entry = start_cell_entry(window, wall)
    assert not entry.isEnabled()
    assert "is a wall" in entry.toolTip()


def test_the_gm_map_shows_the_start_cells(qtbot: QtBot, window: MainWindow) -> None:
    scene = window.map_view.map_scene
    before = render_gm(window)
    assert window.controller.do(act.EditMap({"start_cells": [CELL, (2, 14)]})) is not None
    shown = scene.start_cells
    assert shown is not None and shown.isVisible() and shown.cells == {CELL, (2, 14)}
    after = render_gm(window)
    middle = window.map_view.mapFromScene(QPointF((CELL[0] + 0.5) * CELL_PX, (CELL[1] + 0.5) * CELL_PX))
    changed = sum(
        before.pixel(middle.x() + dx, middle.y() + dy) != after.pixel(middle.x() + dx, middle.y() + dy)
        for dx in range(-8, 9)
        for dy in range(-8, 9)
    )
    assert changed > 0  # the "P" is drawn on the cell
    window.undo_action.trigger()
    assert not shown.isVisible() and shown.cells == frozenset()


def test_the_player_view_never_shows_the_start_cells(qtbot: QtBot, window: MainWindow) -> None:
    player = open_player_view(qtbot, window)
    QApplication.processEvents()
    before = player.view.viewport().grab().toImage()
    assert window.controller.do(act.EditMap({"start_cells": [CELL, (2, 14), (3, 14)]})) is not None
    QApplication.processEvents()
    after = player.view.viewport().grab().toImage()
    assert window.map_view.map_scene.start_cells is not None  # the GM's map has them
    assert player.scene.start_cells is None  # the players' scene never makes them
    assert before == after

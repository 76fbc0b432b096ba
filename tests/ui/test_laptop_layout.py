"""The window at the table: the map first on a 1366 x 768 laptop, every dock in one
tabbed side panel that Tab hides and brings back, the Action tab forward when a turn begins, the
combat steps disabled with the reason, an honest status after undo, refusals shown over the map
and cleared by the next change, a question before a token leaves the map mid-fight, and file
dialogs that start in the documents folder and then where the last file was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QTabBar

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]


def key(window: MainWindow, which: Qt.Key) -> None:
    if QApplication.activeWindow() is not window:  # back from a question box
        window.activateWindow()
        assert QTest.qWaitForWindowActive(window.windowHandle())
    QTest.keyClick(window.windowHandle(), which)
    QApplication.processEvents()


def front_tabs(window: MainWindow) -> set[str]:
    bars = [bar for bar in window.findChildren(QTabBar) if bar.isVisible() and bar.parent() is window]
    return {bar.tabText(bar.currentIndex()) for bar in bars}


def open_docks(window: MainWindow) -> set[str]:
    return {title for title, dock in window.docks.items() if dock.toggleViewAction().isChecked()}


def test_the_map_gets_over_60_percent_of_a_laptop_window_and_every_dock_is_a_tab(
    laptop_window: WindowFactory,
) -> None:
    window = laptop_window()
    QApplication.processEvents()
    view = window.map_view
    share = view.width() * view.height() / (window.width() * window.height())
    assert share >= 0.6, f"the map gets {share:.0%} of the window"
    # One side panel: every dock on the right, in two tab groups, the rest reachable from View.
    areas = {window.dockWidgetArea(dock) for dock in window.docks.values()}
    assert areas == {Qt.DockWidgetArea.RightDockWidgetArea}
    assert front_tabs(window) == {"Turns", "Action"}
    assert {"Turns", "Combatants", "Bestiary", "Action", "Sheet", "Round log", "Forecast"} <= open_docks(window)
    view_entries = {a.text() for a in window.menuBar().actions()[4].menu().actions()}
    assert set(window.docks) <= view_entries


def test_tab_on_the_map_hides_every_dock_and_brings_them_back_as_they_were(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    window.docks["Round log"].raise_()
    QApplication.processEvents()
    before_open, before_front = open_docks(window), front_tabs(window)
    window.map_view.setFocus()
    key(window, Qt.Key.Key_Tab)
    assert open_docks(window) == set() and window.map_only_action.isChecked()
    QApplication.processEvents()
    assert window.map_view.width() > 0.95 * window.width()
    key(window, Qt.Key.Key_Tab)
    assert open_docks(window) == before_open and not window.map_only_action.isChecked()
    assert front_tabs(window) == before_front


def test_tab_in_a_dock_still_moves_the_focus(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    window.docks["Combatants"].raise_()
    QApplication.processEvents()
    window.combatants_panel.filter.setFocus(Qt.FocusReason.MouseFocusReason)
    key(window, Qt.Key.Key_Tab)
    assert open_docks(window)  # nothing hidden
    assert QApplication.focusWidget() is not window.combatants_panel.filter


def test_the_action_tab_comes_forward_when_a_turn_begins(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    window.controller.do(act.StartCombat(face=5))
    window.docks["Round log"].raise_()
    QApplication.processEvents()
    assert "Action" not in front_tabs(window)
    window.controller.do(act.BeginTurn("tombril"))
    QApplication.processEvents()
    assert "Action" in front_tabs(window)


def test_combat_steps_are_disabled_with_the_reason_when_they_cannot_be_taken(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    start, next_round, end = window.start_combat_action, window.next_round_action, window.end_combat_action
    assert start.isEnabled()
    assert not next_round.isEnabled() and "No combat yet" in next_round.toolTip()
    assert not end.isEnabled() and "No combat yet" in end.toolTip()
    window.controller.do(act.StartCombat(face=5))
    assert not start.isEnabled() and "under way" in start.toolTip()
    assert end.isEnabled()
    window.controller.undo_stack.undo()
    assert start.isEnabled() and not end.isEnabled()


def test_after_undo_the_status_bar_says_what_was_undone_not_the_old_result(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    controller = window.controller
    controller.do(act.StartCombat(face=5))
    controller.do(act.BeginTurn("tombril"))
    controller.do(act.Move("tombril", to=(9, 6)))
    moved = window.statusBar().currentMessage()
    assert "Tombril" in moved
    window.undo_action.trigger()
    said = window.statusBar().currentMessage()
    assert said.startswith("Undone: ") and said != moved
    window.redo_action.trigger()
    assert window.statusBar().currentMessage().startswith("Redone: ")


def test_a_refusal_shows_over_the_map_and_goes_with_the_next_change(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    controller = window.controller
    controller.do(act.StartCombat(face=5))
    controller.do(act.BeginTurn("tombril"))
    assert controller.do(act.Move("tombril", to=(10, 0))) is None  # a wall
    toast = window.toast
    assert toast.isVisible() and controller.refusal is not None and controller.refusal in toast.text()
    assert toast.geometry().intersects(window.map_view.rect())
    assert toast.height() >= 2 * window.statusBar().fontMetrics().height()  # bigger than the status line
    controller.do(act.Move("tombril", to=(9, 6)))
    assert not toast.isVisible()


def answer_removal(window: MainWindow, button: str, never: bool = False) -> list[str]:
    """Answer the "remove the token?" question when it comes; the list says what it asked."""
    asked: list[str] = []

    def answer() -> None:
        box = window.remove_box
        if box is None:
            QTimer.singleShot(10, answer)
            return
        asked.append(box.text())
        box.checkBox().setChecked(never)
        chosen = next(b for b in box.buttons() if b.text().replace("&", "") == button)
        chosen.click()

    QTimer.singleShot(0, answer)
    return asked


def test_delete_during_a_fight_asks_once_with_dont_ask_again(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    controller = window.controller
    controller.select("half-orc")
    window.map_view.setFocus()
    key(window, Qt.Key.Key_Delete)  # before combat: no question
    assert "half-orc" not in controller.encounter.tokens
    controller.undo_stack.undo()
    controller.do(act.StartCombat(face=5))
    controller.select("half-orc")
    asked = answer_removal(window, "Cancel")
    key(window, Qt.Key.Key_Delete)
    assert asked and "Half-orc" in asked[0]
    assert "half-orc" in controller.encounter.tokens
    asked = answer_removal(window, "Remove token", never=True)
    key(window, Qt.Key.Key_Delete)
    assert asked and "half-orc" not in controller.encounter.tokens
    controller.undo_stack.undo()
    controller.select("half-orc")
    key(window, Qt.Key.Key_Delete)  # not asked again
    assert window.remove_box is None and "half-orc" not in controller.encounter.tokens


def test_file_dialogs_start_in_the_documents_folder_then_where_the_last_file_was(
    laptop_window: WindowFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = laptop_window()
    elsewhere = tmp_path / "campaign"
    elsewhere.mkdir()
    saved = elsewhere / "fight.lnl"
    starts: list[str] = []

    def save_dialog(parent: object, title: str, start: str, filters: str) -> tuple[str, str]:
        starts.append(start)
        return str(saved), filters

    def open_dialog(parent: object, title: str, start: str, filters: str) -> tuple[str, str]:
        starts.append(start)
        return str(saved), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_dialog)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", open_dialog)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    first = Path(documents) if documents and Path(documents).is_dir() else Path.home()
    assert window.document.save_as()
    assert Path(starts[0]).parent == first  # the first time: the documents folder, the encounter's name
    assert saved.exists()
    window.document.load(storage.load(demo_encounter_path()) and saved)
    window.document.replace(storage.load(demo_encounter_path()), None)  # an unsaved copy again
    window.document.open_file()
    assert Path(starts[1]) == elsewhere  # then where the last file was
    window.round_log.export()
    assert Path(starts[2]).parent == elsewhere


def test_projector_presets_keep_the_window_usable_on_a_768_pixel_high_screen(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    presets = [a.text() for a in window.scale_group.actions()]
    assert "150 % (projector)" in presets
    try:
        for percent in (150, 200):
            window.set_presentation(scale=percent)
            QApplication.processEvents()
            hint = window.minimumSizeHint()
            assert hint.height() <= 768 - 30 and hint.width() <= 1366, (percent, hint)
            window.resize(1366, 738)
            QApplication.processEvents()
            assert window.height() <= 738
            assert window.map_view.height() >= 400 and window.map_view.width() >= 700, percent
    finally:
        window.set_presentation(scale=100)  # the application font is shared by every test


def test_a_refused_drop_on_the_map_is_said_on_the_plate_over_the_map(laptop_window: WindowFactory) -> None:
    from PySide6.QtCore import QEvent, QPointF
    from PySide6.QtGui import QMouseEvent

    window = laptop_window()
    controller, view = window.controller, window.map_view
    controller.do(act.StartCombat(face=5))
    controller.do(act.BeginTurn("tombril"))
    left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier

    def at(cell: tuple[int, int]) -> QPointF:
        return QPointF(view.mapFromScene(view.scene_point_of(cell)))

    QTest.mousePress(view.viewport(), left, none, at((8, 6)).toPoint())
    for cell in ((9, 6), (9, 5), (10, 2)):  # onto the tower's wall
        point = at(cell)
        move = QMouseEvent(
            QEvent.Type.MouseMove, point, view.viewport().mapToGlobal(point), Qt.MouseButton.NoButton, left, none
        )
        QApplication.sendEvent(view.viewport(), move)
    QTest.mouseRelease(view.viewport(), left, none, at((10, 2)).toPoint())
    QApplication.processEvents()
    assert controller.encounter.tokens["tombril"].cell == (8, 6)  # back where it was
    assert window.toast.isVisible() and window.toast.text().startswith("Not done: ")
    assert "wall" in window.toast.text().lower() or controller.refusal in window.toast.text()

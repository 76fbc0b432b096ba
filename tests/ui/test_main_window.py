"""The main window as a GM uses it: docks, files, unsaved work, undo, drops onto the map, recovery."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QTabBar
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl.model import Encounter
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.plumbing.controller import AttackPlan
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window import app as app_module
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

WindowFactory = Callable[..., MainWindow]


@pytest.fixture
def make_window(qtbot: QtBot, tmp_path: Path) -> WindowFactory:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    recovery = RecoveryStore(tmp_path / "recovery")

    def make(encounter: Encounter | None = None, path: Path | None = None) -> MainWindow:
        window = MainWindow(
            encounter or storage.load(demo_encounter_path()), path, settings=settings, recovery=recovery
        )
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        return window

    return make


@pytest.fixture(autouse=True)
def discard_at_teardown(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-qt closes windows before fixtures end: the "save changes?" question must not block."""
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)


def drop_on_map(window: MainWindow, mime: QMimeData, cell: tuple[int, int]) -> QDropEvent:
    """Deliver a real drag-enter, drag-move and drop of ``mime`` at ``cell`` to the map's viewport."""
    view = window.map_view
    point = QPointF(view.mapFromScene((cell[0] + 0.5) * CELL_PX, (cell[1] + 0.5) * CELL_PX))
    viewport = view.viewport()
    actions = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(point.toPoint(), actions, mime, buttons, mods)
    QApplication.sendEvent(viewport, enter)
    move = QDragMoveEvent(point.toPoint(), actions, mime, buttons, mods)
    QApplication.sendEvent(viewport, move)
    drop = QDropEvent(point, actions, mime, buttons, mods)
    QApplication.sendEvent(viewport, drop)
    return drop


def test_window_shows_map_and_every_dock(make_window: WindowFactory) -> None:
    window = make_window()
    assert set(window.docks) == {
        "Turns",
        "Action",
        "Combatants",
        "Sheet",
        "Round log",
        "Dice",
        "Forecast",
        "Bestiary",
        "History",
        "Odds",
        "Rules call for",
        "Party",
        "Session",
    }
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    toggles = {a.text() for a in view_menu.actions()}
    assert {"Combatants", "Sheet", "Round log", "History", "Party", "Session"} <= toggles
    assert "The Hill Giant at the Old Tower" in window.windowTitle()


def test_a_drop_from_the_combatants_dock_places_the_token(make_window: WindowFactory) -> None:
    window = make_window()
    controller = window.controller
    assert controller.do(act.RemoveToken("cedryk")) is not None
    model = window.combatants_panel.table.model()
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "Cedryk the Sneaky")
    mime = model.mimeData([model.index(row, 0)])
    drop_on_map(window, mime, (4, 8))
    assert controller.encounter.tokens["cedryk"].cell == (4, 8)
    assert controller.encounter.log[-1].text.startswith("Cedryk the Sneaky is placed at (4, 8)")
    controller.undo_stack.undo()
    assert "cedryk" not in controller.encounter.tokens


def test_a_drop_from_the_bestiary_adds_a_creature_on_the_map(make_window: WindowFactory) -> None:
    window = make_window()
    before = len(window.controller.encounter.combatants)
    panel = window.bestiary
    model = panel.list.model()
    mime = model.mimeData([model.index(0, 0)])
    drop_on_map(window, mime, (2, 2))
    encounter = window.controller.encounter
    assert len(encounter.combatants) == before + 1
    newcomer = encounter.combatants[-1]
    assert encounter.tokens[newcomer.id].cell == (2, 2)
    assert newcomer.side.value == "Opponents"


def test_undo_and_redo_from_the_edit_menu(make_window: WindowFactory) -> None:
    window = make_window()
    controller = window.controller
    controller.do(act.EditCombatant("tombril", {"level": 10}))
    assert window.isWindowModified()
    window.undo_action.trigger()
    assert controller.encounter.combatant("tombril").level == 9
    window.redo_action.trigger()
    assert controller.encounter.combatant("tombril").level == 10


def test_save_then_reopen_gives_the_same_encounter(make_window: WindowFactory, tmp_path: Path) -> None:
    window = make_window()
    controller = window.controller
    controller.engine.start_combat(face=5)
    controller.do(act.BeginTurn("tombril"))
    controller.do(act.Move("tombril", to=(9, 7)))
    path = tmp_path / "fight.lnl"
    assert window.document.save_to(path)
    assert not window.isWindowModified()
    assert "fight.lnl" in window.windowTitle()
    saved = controller.encounter.model_dump()

    window.close()  # the file is free again: another window opens it for writing
    other = make_window(Encounter(name="Scratch"))
    assert other.document.load(path)
    assert other.controller.encounter.model_dump() == saved
    assert str(path.resolve()) in other.document.recent_files()
    assert not other.document.read_only


def test_a_bad_file_opens_nothing_and_says_why(
    make_window: WindowFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = make_window()
    before = window.controller.encounter.model_dump()
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: warnings.append(text))
    bad = tmp_path / "broken.lnl"
    document = storage.to_document(window.controller.encounter)
    document["encounter"]["combatants"][0]["move_ft"] = -5
    bad.write_text(__import__("json").dumps(document))
    assert not window.document.load(bad)
    assert "encounter.combatants[0].move_ft" in warnings[0]
    assert window.controller.encounter.model_dump() == before
    assert "broken.lnl" not in window.windowTitle()


def test_closing_with_unsaved_work_asks_first(make_window: WindowFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    window = make_window()
    window.controller.do(act.EditCombatant("tombril", {"level": 10}))
    asked: list[str] = []

    def cancel(*args: object) -> QMessageBox.StandardButton:
        asked.append(str(args[2]))
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", cancel)
    assert not window.close()
    assert asked and window.isVisible()


def test_unsaved_work_is_journalled_and_offered_after_a_crash(
    make_window: WindowFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = make_window()
    window.controller.do(act.EditCombatant("tombril", {"level": 11}))
    assert window.document.window_recovery.exists()  # on disk at once, no timer needed
    asked: list[str] = []

    def yes(*args: object, **kwargs: object) -> QMessageBox.StandardButton:
        asked.append(str(args[2]))
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", yes)
    # While the window runs, a second start offers nothing of it.
    assert app_module.offer_recovery(window.document.recovery) == [] and not asked
    # The program dies here (its lock goes with it); at the next start the work is offered back.
    window.document.window_recovery.lock.unlock()
    found = app_module.offer_recovery(window.document.recovery)
    assert len(found) == 1 and len(asked) == 1
    assert found[0].found.encounter.combatant("tombril").level == 11
    found[0].release()


def test_a_clean_save_removes_the_recovery_copy(make_window: WindowFactory, tmp_path: Path) -> None:
    window = make_window()
    window.controller.do(act.EditCombatant("tombril", {"level": 11}))
    window.document.autosave()
    assert window.document.window_recovery.exists()
    window.document.save_to(tmp_path / "kept.lnl")
    assert not window.document.window_recovery.exists()


def test_the_dock_layout_is_remembered(make_window: WindowFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    window = make_window()
    window.docks["Round log"].hide()
    assert window.close()
    again = make_window()
    assert not again.docks["Round log"].isVisible()
    again.reset_layout()
    assert again.docks["Round log"].isVisible()


def test_f11_toggles_full_screen(make_window: WindowFactory) -> None:
    window = make_window()
    assert "F11" in [s.toString() for s in window.full_screen_action.shortcuts()]
    window.full_screen_action.trigger()
    assert window.isFullScreen()
    window.full_screen_action.trigger()
    assert not window.isFullScreen()


def test_map_settings_change_is_one_undoable_step(make_window: WindowFactory) -> None:
    window = make_window()
    controller = window.controller
    controller.do(act.EditMap({"width": 30, "diagonal": "5"}))
    assert controller.encounter.map.width == 30
    assert controller.encounter.log[-1].text.startswith("Map:")
    controller.undo_stack.undo()
    assert controller.encounter.map.width == 24


def front_tabs(window: MainWindow) -> set[str]:
    """The docks whose tabs are in front, in every tab group of the side panel."""
    bars = [bar for bar in window.findChildren(QTabBar) if bar.isVisible() and bar.parent() is window]
    return {bar.tabText(bar.currentIndex()) for bar in bars}


def test_the_forecast_never_takes_the_round_logs_place_by_itself(make_window: WindowFactory, qtbot: QtBot) -> None:
    window = make_window()
    window.docks["Round log"].raise_()
    QApplication.processEvents()
    assert "Round log" in front_tabs(window)
    window.controller.set_plan(AttackPlan(attacker="tombril", target="hill-giant", means="Shortsword"))
    QApplication.processEvents()
    assert "Round log" in front_tabs(window) and "Forecast" not in front_tabs(window)
    window.forecast_action.trigger()  # Ctrl+D: the GM asks for it
    QApplication.processEvents()
    assert "Forecast" in front_tabs(window)
    qtbot.waitUntil(lambda: "Tombril" in window.forecast_panel.title_label.text())


def test_reset_layout_leaves_no_stray_tab_bars(make_window: WindowFactory) -> None:
    window = make_window()
    window.docks["Bestiary"].raise_()
    window.reset_layout()
    QApplication.processEvents()
    bars = [bar for bar in window.findChildren(QTabBar) if bar.isVisible() and bar.parent() is window]
    titles = [bar.tabText(i) for bar in bars for i in range(bar.count())]
    assert len(titles) == len(set(titles)), titles
    assert {"Combatants", "Bestiary", "Action", "Sheet", "Round log", "Forecast", "History"} <= set(titles)

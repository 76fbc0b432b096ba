"""The Sheet's fields follow the selected combatant's row of the Combatants model through a
``QDataWidgetMapper``: the row is found by id (rows come, go and move with adds, removals and
undo), an edit is still one undo step through the controller, and the keys of a field mean what
they meant before (Escape neither commits nor takes back what is being typed)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.docks.sheet import CombatantSheet
from lnl_desktop.ui.plumbing.controller import TableController


@pytest.fixture
def controller(qtbot: QtBot) -> TableController:
    return TableController(storage.load(demo_encounter_path()))


@pytest.fixture
def sheet(qtbot: QtBot, controller: TableController) -> CombatantSheet:
    widget = CombatantSheet(controller)
    qtbot.addWidget(widget)
    widget.resize(440, 900)
    widget.show()
    return widget


def test_the_mapper_follows_the_selected_combatant_by_its_row(
    sheet: CombatantSheet, controller: TableController
) -> None:
    first, second = controller.encounter.combatants[:2]
    controller.select(second.id)
    assert sheet.mapper.currentIndex() == sheet.combatants.row_of(second.id) == 1
    assert sheet.editor("name").text() == second.name
    controller.do(act.RemoveCombatant(first.id))  # its row moves up
    assert sheet.mapper.currentIndex() == 0
    assert sheet.editor("name").text() == second.name
    controller.undo_stack.undo()
    assert sheet.mapper.currentIndex() == 1
    assert sheet.editor("name").text() == second.name


def test_an_edit_through_the_mapper_is_one_undo_step(
    sheet: CombatantSheet, controller: TableController, qtbot: QtBot
) -> None:
    c = controller.encounter.combatants[0]
    controller.select(c.id)
    steps = controller.undo_stack.count()
    edit = sheet.editor("move_ft")
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "25")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert controller.combatant(c.id).move_ft == 25
    assert controller.undo_stack.count() == steps + 1 and sheet.message == ""
    qtbot.keyClick(edit, Qt.Key.Key_Return)  # nothing changed: no empty step
    assert controller.undo_stack.count() == steps + 1


def test_escape_in_a_field_neither_commits_nor_takes_back_the_typing(
    sheet: CombatantSheet, controller: TableController, qtbot: QtBot
) -> None:
    c = controller.encounter.combatants[0]
    controller.select(c.id)
    steps = controller.undo_stack.count()
    edit = sheet.editor("name")
    sheet.activateWindow()
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    edit.selectAll()
    qtbot.keyClicks(edit, "Someone else")
    qtbot.keyClick(edit, Qt.Key.Key_Escape)
    assert edit.text() == "Someone else"
    assert controller.undo_stack.count() == steps and controller.combatant(c.id).name == c.name

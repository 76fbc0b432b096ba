"""Rolls the GM calls for on demand, as a GM uses them: the Combat menu's morale checks and the
Combatant sheet's saving throw (the Old-School d20 ruleset's tools, none in L&L), each in a
dialog with the app's dice or typed faces checked first; refusals say why and change nothing;
undo takes a roll back; who flees shows in the Turns dock. And Ctrl+R reads the initiative faces
typed in the Turns dock's box, as its Next round button does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QMenu, QMessageBox, QSpinBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import InitiativeRolled, RulesEvent
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.docks.prompts import ToolDialog
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

WindowFactory = Callable[[Encounter], MainWindow]


@pytest.fixture
def make_window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WindowFactory:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)

    def make(encounter: Encounter) -> MainWindow:
        window = MainWindow(
            encounter,
            None,
            settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
            recovery=RecoveryStore(tmp_path / "r"),
        )
        qtbot.addWidget(window)
        window.resize(1366, 768)
        window.show()
        qtbot.waitExposed(window)
        return window

    return make


@pytest.fixture
def osr(make_window: WindowFactory) -> MainWindow:
    return make_window(storage.load(resource("encounters", "goblin-ambush-osr.lnl")))


@pytest.fixture
def lnl(make_window: WindowFactory) -> MainWindow:
    return make_window(storage.load(demo_encounter_path()))


def start(window: MainWindow, faces: str) -> None:
    """Start the fight from the Turns dock's Start combat dialog, group initiative, typed faces."""
    dialog = window.turns_panel.start_combat()
    dialog.set_situation("nobody surprised")
    dialog.set_initiative_faces(faces)
    assert dialog.problem() is None, dialog.problem()
    dialog.accept()
    assert window.controller.encounter.combat.phase.value == "fighting", window.controller.refusal


def combat_menu(window: MainWindow) -> QMenu:
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Combat")
    assert isinstance(menu, QMenu)
    menu.aboutToShow.emit()  # what opening it does: the entries are listed afresh
    return menu


def entry(menu: QMenu, text: str) -> QAction:
    return next(a for a in menu.actions() if a.text() == text)


def log_texts(window: MainWindow) -> list[str]:
    return [e.text for e in window.controller.encounter.log]


# -- the Combat menu's morale checks -----------------------------------------------------------------


def test_the_combat_menu_lists_a_morale_check_per_side_in_old_school_d20(osr: MainWindow) -> None:
    texts = [a.text() for a in combat_menu(osr).actions()]
    assert "Morale check: Opponents…" in texts
    assert "Morale check: Party…" in texts  # Brannoc, the NPC, has morale
    assert texts.index("&Rules call for…") < texts.index("Morale check: Party…")
    opponents = entry(combat_menu(osr), "Morale check: Opponents…")
    assert "2d6" in opponents.statusTip()


def test_the_combat_menu_lists_no_tools_in_laurels_and_loot_or_classic(lnl: MainWindow) -> None:
    texts = [a.text() for a in combat_menu(lnl).actions()]
    assert not [t for t in texts if t.startswith("Morale check")]
    assert lnl.tool_entries == []
    lnl.document.open_demo("classic")
    assert lnl.controller.engine.ruleset.name == "classic"
    assert not [a.text() for a in combat_menu(lnl).actions() if a.text().startswith("Morale check")]


def test_the_entries_follow_the_encounter_each_time_the_menu_opens(osr: MainWindow) -> None:
    osr.controller.do(act.RemoveCombatant("brannoc"))  # the Party's only creature with morale
    texts = [a.text() for a in combat_menu(osr).actions()]
    assert "Morale check: Party…" not in texts and "Morale check: Opponents…" in texts
    osr.document.open_demo("lnl")
    assert not [a.text() for a in combat_menu(osr).actions() if a.text().startswith("Morale check")]


def test_a_morale_check_with_typed_faces_marks_who_flees_and_undo_takes_it_back(osr: MainWindow) -> None:
    start(osr, "15 5")  # the Party acts first
    entry(combat_menu(osr), "Morale check: Opponents…").trigger()
    dialog = osr.tool_dialog
    assert isinstance(dialog, ToolDialog)
    assert dialog.isVisible() and not dialog.isModal()
    assert dialog.windowTitle() == "Morale check: Opponents"
    card = dialog.card
    assert card is not None
    assert not hasattr(card, "skip_button")  # nothing queued to skip: Close instead
    assert dialog.close_button.text() == "Close"
    modifier = card.editors["modifier"]
    assert isinstance(modifier, QSpinBox)
    modifier.setValue(-1)  # the Opponents are losing
    assert card.choice_buttons[0].text().startswith("Roll 2d6 (Hobgoblin chief 9, Goblin 1 7")
    steps = osr.controller.undo_stack.count()

    faces = card.type_faces(0)
    assert faces is not None and "d6" in faces.hint_label.text()
    faces.edit.setText("3 4")
    assert faces.ok_button.isEnabled(), faces.reason
    faces.accept()

    line = log_texts(osr)[-1]
    assert line.startswith("Morale of the Opponents: 2d6 [3+4] = 7; ")
    assert "Hobgoblin chief (morale 9-1 = 8) stands" in line
    assert "Goblin 1 (morale 7-1 = 6) flees" in line
    assert osr.controller.undo_stack.count() == steps + 1
    # The dialog stays open with the roll's line for the GM to read; Enter now closes it.
    assert dialog.isVisible()
    assert dialog.result == line
    assert dialog.close_button.isDefault()
    # Who flees shows in the Turns dock.
    turns = osr.turns_panel
    goblin = turns.item_for("goblin-1")
    assert goblin is not None and goblin.text(1) == "waiting · flees"
    chief = turns.item_for("hobgoblin-chief")
    assert chief is not None and "flees" not in chief.text(1)
    # The card follows: the goblins that fled check no more; the modifier set stays.
    assert dialog.card is not None and dialog.card.values()["modifier"] == -1
    assert "Goblin 1" not in dialog.card.choice_buttons[0].text()

    osr.controller.undo_stack.undo()
    assert osr.controller.encounter.combatant("goblin-1").morale_result is None
    assert not any(e.text.startswith("Morale of the Opponents") for e in osr.controller.encounter.log)
    goblin = turns.item_for("goblin-1")
    assert goblin is not None and goblin.text(1) == "waiting"
    assert dialog.result == f"Undone: {line}"


def test_a_morale_check_with_the_apps_dice_then_a_second_refused_with_the_reason(osr: MainWindow) -> None:
    from lnl_desktop.core.dice.rolls import ScriptedDice

    entry(combat_menu(osr), "Morale check: Party…").trigger()
    dialog = osr.tool_dialog
    assert dialog is not None and dialog.card is not None
    osr.controller.engine.dice = ScriptedDice([6, 6])
    dialog.card.choice_buttons[0].click()
    assert dialog.result == "Morale of the Party: 2d6 [6+6] = 12; Brannoc (morale 8) flees"
    brannoc = osr.turns_panel.item_for("brannoc")
    assert brannoc is not None and brannoc.text(1) == "flees"  # before combat: the word alone
    # Brannoc fled: nobody of the Party checks morale now; the dialog says so and changes nothing.
    before = log_texts(osr)
    dialog.card.choice_buttons[0].click()
    assert "Morale check: Party: no longer offered" in dialog.card.refusal
    assert log_texts(osr) == before
    assert dialog.isVisible()
    assert "Morale check: Party…" not in [a.text() for a in combat_menu(osr).actions()]


# -- the sheet's saving throw ----------------------------------------------------------------------


def saving_throw(window: MainWindow, cid: str) -> ToolDialog:
    window.controller.select(cid)
    sheet = window.sheet
    [button] = sheet.tool_buttons
    assert button.text() == "Saving throw…"
    assert "d20 + the category's bonus against a DC" in button.toolTip()
    button.click()
    dialog = sheet.tool_dialog
    assert isinstance(dialog, ToolDialog) and dialog.isVisible()
    assert dialog.windowTitle() == f"Saving throw: {window.controller.encounter.combatant(cid).name}"
    return dialog


def test_the_sheets_saving_throw_with_a_typed_face_and_undo(osr: MainWindow) -> None:
    dialog = saving_throw(osr, "janine")
    card = dialog.card
    assert card is not None
    category, dc = card.editors["category"], card.editors["dc"]
    assert isinstance(category, QComboBox) and isinstance(dc, QSpinBox)
    category.setCurrentIndex(category.findText("Spells"))
    dc.setValue(15)
    steps = osr.controller.undo_stack.count()
    faces = card.type_faces(0)
    assert faces is not None and "d20" in faces.hint_label.text()
    faces.edit.setText("12")
    faces.accept()
    line = log_texts(osr)[-1]
    assert line == "Janine saves against Spells: d20 12 +4 = 16 vs DC 15: saved"
    assert dialog.result == line and dialog.isVisible()
    assert osr.controller.undo_stack.count() == steps + 1

    # A second save from the same dialog, the app's dice this time; undo takes the last one back.
    from lnl_desktop.core.dice.rolls import ScriptedDice

    osr.controller.engine.dice = ScriptedDice([3])
    # The choices kept for the next save, the GM's modifier and edge (RULES §12) still at none.
    assert dialog.card is not None and dialog.card.values() == {
        "category": "Spells",
        "dc": 15,
        "gm_modifier": 0,
        "gm_edge": "none",
        "gm_reason": "",
    }
    dialog.card.choice_buttons[0].click()
    assert dialog.result == "Janine saves against Spells: d20 3 +4 = 7 vs DC 15: failed"
    osr.controller.undo_stack.undo()
    assert log_texts(osr)[-2] == line
    osr.controller.undo_stack.undo()
    saves = [e for e in osr.controller.encounter.log if isinstance(e, RulesEvent) and e.name == "saving throw"]
    assert saves == []
    assert osr.controller.undo_stack.index() == steps
    assert dialog.result.startswith("Undone: ")


def test_a_goblins_save_fails_under_the_dc(osr: MainWindow) -> None:
    dialog = saving_throw(osr, "goblin-1")
    card = dialog.card
    assert card is not None
    card.editors["dc"].setValue(15)  # type: ignore[attr-defined]
    assert card.values()["category"] == "Spells"
    assert card.apply_faces(0, [12]) is not None
    assert log_texts(osr)[-1] == "Goblin 1 saves against Spells: d20 12 +0 = 12 vs DC 15: failed"


def test_a_bad_typed_face_is_refused_with_a_reason_and_changes_nothing(osr: MainWindow) -> None:
    dialog = saving_throw(osr, "goblin-1")
    card = dialog.card
    assert card is not None
    before, steps = log_texts(osr), osr.controller.undo_stack.count()
    faces = card.type_faces(0)
    assert faces is not None
    faces.edit.setText("25")
    assert not faces.ok_button.isEnabled()
    assert "25 is not a face of a d20" in (faces.reason or "")
    faces.accept()  # refused: nothing is applied
    assert card.apply_faces(0, [25]) is None
    assert "25 is not a face of a d20" in card.refusal
    assert card.refusal_label.isVisible()
    assert log_texts(osr) == before and osr.controller.undo_stack.count() == steps
    assert dialog.result == ""


def test_a_save_for_a_combatant_gone_meanwhile_is_refused_in_the_dialog(osr: MainWindow) -> None:
    dialog = saving_throw(osr, "goblin-2")
    osr.controller.do(act.RemoveCombatant("goblin-2"))
    before = log_texts(osr)
    assert dialog.card is not None
    dialog.card.choice_buttons[0].click()
    assert "no longer offered (the combatant is gone)" in dialog.card.refusal
    assert log_texts(osr) == before


def test_the_sheet_has_no_tool_buttons_in_laurels_and_loot(lnl: MainWindow) -> None:
    lnl.controller.select("tombril")
    assert lnl.sheet.tool_buttons == []
    assert not lnl.sheet.tools_bar.isVisibleTo(lnl.sheet)


# -- Ctrl+R reads the typed initiative faces ------------------------------------------------------


def finish_round(window: MainWindow) -> None:
    turns = window.turns_panel
    while window.controller.engine.waiting():
        c = window.controller.engine.waiting()[0]
        assert turns.begin_turn(c.id), turns.message
        assert turns.end_turn()
    assert window.controller.engine.round_over


def test_ctrl_r_uses_the_faces_typed_in_the_turns_dock(osr: MainWindow, qtbot: QtBot) -> None:
    start(osr, "15 5")
    finish_round(osr)
    turns = osr.turns_panel
    assert osr.next_round_action.shortcut().toString() == "Ctrl+R"

    turns.initiative_edit.setText("25 5")
    before = len(osr.controller.encounter.log)
    osr.activateWindow()
    qtbot.keyClick(osr, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert osr.controller.encounter.combat.round == 1 and len(osr.controller.encounter.log) == before
    assert "25 is not a face of a d20" in turns.message
    assert turns.initiative_edit.text() == "25 5"  # kept, for the GM to correct

    turns.initiative_edit.setText("2 19")  # Party 2 + 1 = 3, Opponents 19 + 1 = 20
    qtbot.keyClick(osr, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    combat = osr.controller.encounter.combat
    assert combat.round == 2
    assert [s.title.split(" (")[0] for s in combat.order] == ["Opponents", "Party"]
    rolled = [e for e in osr.controller.encounter.log if isinstance(e, InitiativeRolled)][-1]
    assert "d20 19" in rolled.text and "d20 2" in rolled.text
    assert turns.initiative_edit.text() == ""


def test_the_menus_next_round_rolls_when_the_box_is_empty(lnl: MainWindow) -> None:
    from lnl_desktop.core.dice.rolls import ScriptedDice

    lnl.controller.engine.start_combat(face=5)
    finish_round(lnl)
    lnl.controller.engine.dice = ScriptedDice([2])
    entry(combat_menu(lnl), "&Next round").trigger()
    combat = lnl.controller.encounter.combat
    assert combat.round == 2 and combat.initiative_face == 2

"""Damage and healing by hand and conditions that take the turn or the move, driven through the real
window as a GM does it: the sheet's Damage / Heal button, a typed HP on the sheet, the map's token
menu, the shortcut, the Action dock and a drag of a grappled token."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource
from lnl_desktop.ui.dialogs.damage_heal import DamageHealDialog
from lnl_desktop.ui.window.main_window import MainWindow

LEFT, RIGHT, NONE = Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier


def demo(name: str) -> Any:
    return storage.load(resource("encounters", name))


def last_line(window: MainWindow) -> str:
    return window.controller.encounter.log[-1].text


def fill(dialog: DamageHealDialog, amount: str, *, heal: bool = False, kind: str = "", reason: str = "") -> None:
    (dialog.heal_button if heal else dialog.damage_button).setChecked(True)
    if kind:
        dialog.set_kind(kind)
    QTest.keyClicks(dialog.amount, amount)
    QTest.keyClicks(dialog.reason, reason)


def press_ok(dialog: DamageHealDialog) -> None:
    box = dialog.findChild(QDialogButtonBox)
    QTest.mouseClick(box.button(QDialogButtonBox.StandardButton.Ok), LEFT)


def at(window: MainWindow, cell: tuple[int, int]) -> QPoint:
    view = window.map_view
    return view.mapFromScene(view.scene_point_of(cell))


def test_the_sheets_damage_heal_button_applies_direct_damage_with_its_reason_in_one_undo_step(
    laptop_window: Any,
) -> None:
    window = laptop_window(demo("hill-giant.lnl"))
    window.controller.select("half-orc")
    sheet = window.sheet
    QTest.mouseClick(sheet.hand_button, LEFT)
    dialog = sheet.hand_dialog
    assert isinstance(dialog, DamageHealDialog) and dialog.isVisible()
    ip = window.controller.combatant("half-orc").injury
    steps = window.controller.undo_stack.count()
    fill(dialog, "4", kind="injury", reason="spiked pit")
    press_ok(dialog)
    assert window.controller.combatant("half-orc").injury == ip - 4
    assert "spiked pit" in last_line(window) and "direct damage" in last_line(window)
    assert window.controller.undo_stack.count() == steps + 1
    window.controller.undo_stack.undo()
    assert window.controller.combatant("half-orc").injury == ip


def test_bad_amounts_in_the_dialog_say_why_and_change_nothing(laptop_window: Any) -> None:
    window = laptop_window(demo("hill-giant.lnl"))
    window.controller.select("half-orc")
    dialog = window.sheet.open_damage_heal()
    assert dialog is not None
    before = window.controller.encounter.model_dump()
    fill(dialog, "lots")
    press_ok(dialog)
    assert "whole number" in dialog.message.text() and dialog.isVisible()
    dialog.amount.clear()
    fill(dialog, "-3")
    press_ok(dialog)
    assert "above 0" in dialog.message.text() and dialog.isVisible()
    assert window.controller.encounter.model_dump() == before


def test_healing_from_the_sheet_brings_a_downed_creature_back(laptop_window: Any) -> None:
    window = laptop_window(demo("hill-giant.lnl"))
    window.controller.do(act.DamageByHand("half-orc", 100, kind="injury"))
    assert window.controller.combatant("half-orc").down
    window.controller.select("half-orc")
    dialog = window.sheet.open_damage_heal()
    fill(dialog, "2", heal=True, kind="injury", reason="healing draught")
    press_ok(dialog)
    assert not window.controller.combatant("half-orc").down
    assert "back on its feet" in last_line(window)


def test_an_osr_pc_typed_to_0_on_the_sheet_makes_a_death_save(laptop_window: Any) -> None:
    window = laptop_window(demo("goblin-ambush-osr.lnl"))
    window.controller.select("janine")
    editor = window.sheet.editor("hp")
    editor.setFocus()
    editor.selectAll()
    QTest.keyClicks(editor, "0")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert window.controller.combatant("janine").hp == 0
    assert any(p.kind == "death save" and p.who == "janine" for p in window.controller.encounter.combat.pending)
    assert "typed on the sheet" in last_line(window)


def test_a_d10_creature_typed_to_1_on_the_sheet_is_wounded(laptop_window: Any) -> None:
    window = laptop_window(demo("bandit-mill-d10.lnl"))
    window.controller.select("ogre")
    editor = window.sheet.editor("hp")
    editor.setFocus()
    editor.selectAll()
    QTest.keyClicks(editor, "1")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert window.controller.combatant("ogre").has_condition("wounded")
    assert "lasting wound" in last_line(window)


def test_a_right_click_on_a_token_offers_damage_heal_and_the_shortcut_opens_it(laptop_window: Any) -> None:
    window = laptop_window(demo("goblin-ambush-osr.lnl"))
    view = window.map_view
    point = at(window, window.controller.encounter.tokens["goblin-2"].cell)
    QTest.mousePress(view.viewport(), RIGHT, NONE, point)
    QTest.mouseRelease(view.viewport(), RIGHT, NONE, point)
    menu = view.context_menu
    assert menu is not None
    hand = next(a for a in menu.actions() if a.text().startswith("Damage / Heal"))
    menu.close()
    hand.trigger()
    dialog = view.hand_dialog
    assert isinstance(dialog, DamageHealDialog)
    fill(dialog, "4", reason="falling rocks")
    press_ok(dialog)
    assert window.controller.combatant("goblin-2").down
    assert "falling rocks" in last_line(window) and "defeated" in last_line(window)
    dialog.close()
    window.controller.select("tombril")
    window.damage_heal_action.trigger()
    assert window.damage_heal_action.shortcut().toString() == "Ctrl+Shift+D"
    assert window.sheet.hand_dialog is not None and window.sheet.hand_dialog.cid == "tombril"


def start_lnl(window: MainWindow, cid: str, conditions: list[str]) -> None:
    c = window.controller
    assert c.do(act.EditCombatant(cid, {"conditions": conditions})) is not None
    c.engine.apply(act.StartCombat(face=5))
    assert c.do(act.BeginTurn(cid)) is not None, c.refusal


def test_a_stunned_pc_may_only_end_its_turn_the_action_dock_says_why(laptop_window: Any) -> None:
    window = laptop_window(demo("hill-giant.lnl"))
    start_lnl(window, "tombril", ["Stunned"])
    ok, reasons = window.action_panel.allowed()
    assert not ok and any("stunned" in r and "only End turn" in r for r in reasons)
    assert window.controller.engine.feet_left("tombril") == 0
    assert "Tombril is stunned: only End turn" in window.turns_panel.end_turn_button.toolTip()
    assert window.controller.do(act.EndTurn()) is not None


def drag(window: MainWindow, start: tuple[int, int], end: tuple[int, int]) -> None:
    view = window.map_view
    QTest.mousePress(view.viewport(), LEFT, NONE, at(window, start))
    for cell in (start, end):
        point = QPointF(at(window, cell) + QPoint(3, 3))
        event = QMouseEvent(
            QEvent.Type.MouseMove, point, view.viewport().mapToGlobal(point), Qt.MouseButton.NoButton, LEFT, NONE
        )
        QApplication.sendEvent(view.viewport(), event)
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(window, end))


def test_a_grappled_pc_dragged_on_the_map_stays_and_the_refusal_says_move_0(laptop_window: Any, qtbot: QtBot) -> None:
    window = laptop_window(demo("hill-giant.lnl"))
    start_lnl(window, "tombril", ["grappled"])
    start = window.controller.encounter.tokens["tombril"].cell
    drag(window, start, (start[0] - 2, start[1]))
    assert window.controller.encounter.tokens["tombril"].cell == start
    assert "grappled" in (window.controller.refusal or "") and "Move 0" in (window.controller.refusal or "")


def test_rules_options_show_each_default_refuse_a_bad_value_in_words_and_apply_as_one_step(
    laptop_window: Any, qtbot: QtBot
) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QLineEdit, QSpinBox

    window = laptop_window(demo("goblin-ambush-osr.lnl"))
    seen: dict[str, str] = {}

    def edit() -> None:
        dialog = window.rules_options_dialog
        assert dialog is not None
        seen["wounded"] = dialog.defaults["wounded_penalty"].text()
        seen["tip"] = dialog.editors["wounded_penalty"].toolTip()
        burning = dialog.editors["burning_dice"]
        assert isinstance(burning, QLineEdit)
        burning.setText("1d7")
        dialog.accept()  # refused: the dialog stays open and says why
        seen["refusal"] = dialog.message.text()
        seen["open"] = str(dialog.isVisible())
        burning.setText("2d4")
        spin = dialog.editors["wounded_penalty"]
        assert isinstance(spin, QSpinBox)
        spin.setValue(3)
        dialog.accept()

    QTimer.singleShot(0, edit)
    steps = window.controller.undo_stack.count()
    window.rules_options_action.trigger()
    assert seen["wounded"] == "Default: 2"
    assert seen["tip"].startswith("A wounded creature's penalty") and "(default: 2)" in seen["tip"]
    assert "Burning dice" in seen["refusal"] and "1d7" in seen["refusal"] and seen["open"] == "True"
    options = window.controller.encounter.options
    assert (options.wounded_penalty, options.burning_dice) == (3, "2d4")
    assert window.controller.undo_stack.count() == steps + 1
    assert "wounded penalty 3" in last_line(window)
    window.controller.undo_stack.undo()
    assert window.controller.encounter.options.wounded_penalty == 2

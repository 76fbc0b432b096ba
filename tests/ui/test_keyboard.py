"""Keys that work at the table: Space ends the turn wherever the focus is, except in a
text field being edited; no button hands the focus to a text field; Escape leaves a field as it
was. Keys go through the window (QTest on the window handle), as a keyboard's do: the shortcut map
sees them first, then the focused widget."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QCheckBox, QPushButton, QWidget

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.ui.plumbing.focus import text_field
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]
LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier


def key(window: MainWindow, which: Qt.Key) -> None:
    QTest.keyClick(window.windowHandle(), which)
    QApplication.processEvents()


def click(widget: QWidget) -> None:
    QTest.mouseClick(widget, LEFT, NONE, widget.rect().center())
    QTest.qWait(20)  # what Qt does after the click (the focus handed on) is done


def start_fight(window: MainWindow) -> None:
    """Combat started with a typed 5 (Party acts first)."""
    assert window.controller.do(act.StartCombat(face=5)) is not None


def finish_round(window: MainWindow) -> None:
    """Everyone who may act takes a turn and ends it, until nobody waits."""
    controller = window.controller
    while controller.engine.waiting():
        assert controller.do(act.BeginTurn(controller.engine.waiting()[0].id)) is not None
        assert controller.do(act.EndTurn()) is not None


def acting(window: MainWindow) -> str | None:
    turn = window.controller.encounter.combat.turn
    return turn.combatant if turn is not None else None


def text_fields(parent: QWidget) -> list[QWidget]:
    return [w for w in parent.findChildren(QWidget) if text_field(w) is w and w.isVisible()]


def test_after_next_round_the_focus_is_not_in_a_text_field_and_space_ends_the_turn(
    laptop_window: WindowFactory,
) -> None:
    window = laptop_window()
    start_fight(window)
    finish_round(window)
    turns = window.turns_panel
    assert turns.next_round_button.isVisible() and turns.next_round_button.isEnabled()
    # The GM tabs to it or clicks it; once the round begins it is hidden and Qt hands its focus on.
    turns.next_round_button.setFocus(Qt.FocusReason.TabFocusReason)
    click(turns.next_round_button)
    assert window.controller.encounter.combat.round == 2
    assert text_field(QApplication.focusWidget()) is None, QApplication.focusWidget()
    first = window.controller.engine.waiting()[0].id
    window.controller.do(act.BeginTurn(first))
    key(window, Qt.Key.Key_Space)
    assert acting(window) is None
    assert window.combatants_panel.filter.text() == ""  # nothing typed by the way
    assert first in window.controller.encounter.combat.acted


def test_space_ends_the_turn_from_a_list_a_check_box_or_a_button(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    start_fight(window)
    controller = window.controller
    places: list[QWidget] = [window.turns_panel.tree, window.map_view]
    places += [w for w in window.action_panel.findChildren(QCheckBox) if w.isVisible()][:1]
    places += [w for w in window.turns_panel.findChildren(QPushButton) if w.isVisible() and w.isEnabled()][:1]
    assert len(places) >= 3
    for place in places:
        cid = controller.engine.waiting()[0].id
        controller.do(act.BeginTurn(cid))
        place.setFocus(Qt.FocusReason.MouseFocusReason)
        key(window, Qt.Key.Key_Space)
        assert acting(window) is None, f"Space did not end the turn with the focus in {type(place).__name__}"


def test_space_types_in_a_text_field_and_escape_restores_it_and_leaves(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    start_fight(window)
    controller = window.controller
    controller.do(act.BeginTurn(controller.engine.waiting()[0].id))
    window.docks["Combatants"].raise_()
    QApplication.processEvents()
    box = window.combatants_panel.filter
    box.setText("Hill")
    click(box)  # the GM puts the focus there
    assert QApplication.focusWidget() is box
    QTest.keyClicks(box, "x")
    key(window, Qt.Key.Key_Space)
    assert box.text() == "Hillx " and acting(window) is not None  # typed, the turn goes on
    key(window, Qt.Key.Key_Escape)
    assert box.text() == "Hill"  # as it was when the GM came in
    assert QApplication.focusWidget() is window.map_view
    key(window, Qt.Key.Key_Space)
    assert acting(window) is None


def test_escape_in_a_sheet_field_puts_the_value_back_and_changes_nothing(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    controller = window.controller
    controller.select("tombril")
    window.docks["Sheet"].raise_()
    QApplication.processEvents()
    fields = text_fields(window.sheet)
    assert fields, "the sheet shows editable fields"
    before = (len(controller.encounter.log), controller.undo_stack.count())
    for field in fields[:4]:
        line = field.lineEdit() if hasattr(field, "lineEdit") and field.lineEdit() is not None else field
        text = line.text()
        click(field)
        QTest.keyClicks(line, "7")
        key(window, Qt.Key.Key_Escape)
        assert line.text() == text, type(field).__name__
        assert QApplication.focusWidget() is window.map_view
    QApplication.processEvents()
    assert (len(controller.encounter.log), controller.undo_stack.count()) == before


def test_escape_in_a_dialog_still_cancels_the_dialog(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    dialog = window.turns_panel.start_combat()
    assert dialog is not None and dialog.isVisible()
    closed: list[int] = []
    dialog.finished.connect(closed.append)
    dialog.face_edit.setFocus()
    QTest.keyClicks(dialog.face_edit, "3")
    QTest.keyClick(dialog.windowHandle(), Qt.Key.Key_Escape)
    QApplication.processEvents()
    assert closed == [0]  # rejected: Cancel
    assert window.controller.encounter.combat.phase is Phase.SETUP


def test_the_start_dialog_takes_the_rolled_face_from_the_keyboard(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # Start combat…
    dialog = window.turns_panel.start_dialog
    assert dialog is not None and dialog.isVisible()
    QTest.qWaitForWindowActive(dialog.windowHandle())
    QTest.keyClick(dialog.windowHandle(), Qt.Key.Key_5)  # the face the GM's d6 shows
    assert dialog.typed_radio.isChecked() and dialog.face_edit.text() == "5"
    QTest.keyClick(dialog.windowHandle(), Qt.Key.Key_Return)
    QApplication.processEvents()
    assert window.controller.encounter.combat.phase is Phase.FIGHTING
    assert any("rolled 5" in e.text for e in window.controller.encounter.log)

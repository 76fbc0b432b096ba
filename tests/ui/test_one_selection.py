"""One selection: the token the GM clicked is the one the keys act on, shown as selected on the map and
in the docks, even when the click also picked the attack's target (the demo, Tombril's turn)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from waiting import run_until

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.ui.dialogs.damage_heal import DamageHealDialog
from lnl_desktop.ui.window.main_window import MainWindow

LEFT, NONE = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
CTRL, CTRL_SHIFT = (
    Qt.KeyboardModifier.ControlModifier,
    Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
)


def at(window: MainWindow, cell: tuple[int, int]) -> QPoint:
    view = window.map_view
    return view.mapFromScene(view.scene_point_of(cell))


def click_token(window: MainWindow, cid: str) -> None:
    QTest.mouseClick(window.map_view.viewport(), LEFT, NONE, at(window, window.controller.encounter.tokens[cid].cell))


def tombrils_turn_janine_selected(window: MainWindow) -> None:
    """Janine clicked, combat started, then Tombril's turn begun from the Turns dock (as at the table)."""
    controller = window.controller
    click_token(window, "janine")
    assert controller.selected == "janine"
    assert controller.do(act.StartCombat(face=5)) is not None, controller.refusal
    assert controller.do(act.BeginTurn("tombril")) is not None, controller.refusal
    run_until(lambda: controller.plan is not None, 5, "the Action dock's attack plan")
    controller.select("janine")  # whatever the dock did, Janine is the one selected before the click


def test_a_click_that_targets_the_half_orc_selects_it_and_ctrl_h_hides_the_half_orc(demo_window: MainWindow) -> None:
    window, controller = demo_window, demo_window.controller
    tombrils_turn_janine_selected(window)
    click_token(window, "half-orc")
    assert controller.plan is not None and controller.plan.target == "half-orc"  # still the target
    assert controller.selected == "half-orc"
    assert window.map_view.target_ring.isVisible()
    # Shown as selected on the map and in the docks.
    tokens = window.map_view.map_scene.tokens
    assert tokens["half-orc"].look.selected and not tokens["janine"].look.selected
    assert window.sheet.combatant_id == "half-orc"
    assert window.combatants_panel.selected_id() == "half-orc"
    QTest.keyClick(window.map_view, Qt.Key.Key_H, CTRL)
    assert controller.encounter.tokens["half-orc"].hidden
    assert not controller.encounter.tokens["janine"].hidden
    assert "Half-orc" in controller.encounter.log[-1].text


def test_ctrl_shift_d_opens_damage_heal_for_the_token_clicked_as_target(demo_window: MainWindow) -> None:
    window = demo_window
    tombrils_turn_janine_selected(window)
    click_token(window, "half-orc")
    QTest.keyClick(window.map_view, Qt.Key.Key_D, CTRL_SHIFT)
    dialog = window.sheet.hand_dialog
    assert isinstance(dialog, DamageHealDialog) and dialog.isVisible() and dialog.cid == "half-orc"
    dialog.close()


def test_ctrl_shift_d_with_nobody_selected_says_why(demo_window: MainWindow) -> None:
    window, controller = demo_window, demo_window.controller
    said: list[str] = []
    controller.message.connect(said.append)
    controller.select(None)
    window.sheet.combatant_id = None
    QTest.keyClick(window.map_view, Qt.Key.Key_D, CTRL_SHIFT)
    assert window.sheet.hand_dialog is None
    assert said and "Damage / Heal" in said[-1] and "select" in said[-1].lower()

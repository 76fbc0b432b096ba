"""Group d10's conditions in the real main window, as a GM works them: a natural 20 that knocks the
Ogre prone from the Action dock, its drag refused until it stands with the dock's Stand up; a grapple
and a break-free rolled from the dock; the Sheet's condition menu (Exhausted among them) and its
saving throw against a DC with a condition on a failure; each one undo step."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QMenu, QMessageBox, QSpinBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.d10 import Declare
from lnl_desktop.paths import resource
from lnl_desktop.ui.docks.prompts import ToolDialog
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    w = MainWindow(
        storage.load(resource("encounters", "bandit-mill-d10.lnl")),
        None,
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        recovery=RecoveryStore(tmp_path / "r"),
    )
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    return w


def fight(window: MainWindow) -> None:
    """Tombril beside the Ogre, everyone declares an attack; the Party's d10 9, the captain's 4, the Opponents' 2."""
    controller = window.controller
    assert controller.do(act.Move("tombril", to=(11, 8), forced=True)) is not None, controller.refusal
    for c in controller.encounter.combatants:
        assert controller.do(Declare(c.id, "attack")) is not None, controller.refusal
    assert controller.do(act.StartCombat(situation="no surprise"), ScriptedDice([9, 4, 2])) is not None


def to_the_ogre(window: MainWindow) -> None:
    """Every turn before the Ogre's taken and ended."""
    turns, engine = window.turns_panel, window.controller.engine
    while (waiting := engine.waiting()) and "ogre" not in [c.id for c in waiting]:
        assert turns.begin_turn(waiting[0].id)
        assert turns.end_turn()
    assert turns.begin_turn("ogre")


def kind_enabled(window: MainWindow, key: str) -> bool:
    panel = window.action_panel
    model = panel.kind_combo.model()
    assert isinstance(model, QStandardItemModel)
    return model.item(panel.kind_combo.findData(key)).isEnabled()


def test_a_natural_20_knocks_the_ogre_prone_until_it_stands_from_the_action_dock(window: MainWindow) -> None:
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    fight(window)
    assert turns.begin_turn("tombril")
    panel.set_kind("attack")
    panel.set_means("Longsword")
    panel.set_target("ogre")
    panel.set_extra("on_20", "knock prone")
    assert panel.apply_faces([20, 3, 5]) is not None, controller.refusal  # masterwork: 5 kept, -2 DR
    ogre = controller.combatant("ogre")
    assert ogre.conditions == ["prone"]
    assert panel.damage_label.text() == "Critical hit: 3 damage after DR 2 → Ogre 12/15 HP"
    assert "Critical: Ogre is knocked prone" in panel.result_label.text()
    assert turns.end_turn()

    to_the_ogre(window)
    assert kind_enabled(window, "stand up") and not kind_enabled(window, "break free")
    # A drag of the prone Ogre is refused with the reason, and nothing moves.
    assert controller.do(act.Move("ogre", to=(14, 4))) is None
    assert "Ogre is prone: Stand up first" in controller.refusal
    assert controller.encounter.tokens["ogre"].cell == (12, 8)
    steps = controller.undo_stack.count()
    panel.set_kind("stand up")
    assert panel.allowed()[0], panel.allowed()
    assert panel.roll() is not None, controller.refusal
    assert controller.combatant("ogre").conditions == []
    assert controller.undo_stack.count() == steps + 1
    assert panel.damage_label.text() == "Ogre stands up"
    assert controller.encounter.log[-1].text == "Ogre stands up: no longer prone; standing takes its move this turn"
    assert "0 ft left" in panel.movement_label.text()
    # The attack is still its own after standing.
    panel.set_kind("attack")
    assert panel.allowed()[0], panel.allowed()
    controller.undo_stack.undo()
    assert controller.combatant("ogre").conditions == ["prone"]


def test_a_grapple_and_a_break_free_from_the_action_dock(window: MainWindow) -> None:
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    fight(window)
    assert turns.begin_turn("tombril")
    panel.set_kind("grapple")
    panel.set_target("ogre")
    assert panel.apply_faces([15, 3]) is not None, controller.refusal  # 15 + 2 against 3 + 4
    assert panel.damage_label.text() == "Grappled: Ogre is held by Tombril (Move 0)"
    assert controller.combatant("ogre").grappled_by == "tombril"
    # Tombril's sheet offers to let go while it holds the Ogre.
    controller.select("tombril")
    assert [b.text() for b in window.sheet.tool_buttons] == ["Saving throw…", "Let go of Ogre…"]
    assert turns.end_turn()

    to_the_ogre(window)
    assert kind_enabled(window, "break free") and not kind_enabled(window, "stand up")
    assert controller.do(act.Move("ogre", to=(14, 4))) is None
    assert "Ogre is grappled" in controller.refusal
    panel.set_kind("break free")
    assert panel.apply_faces([18, 2]) is not None, controller.refusal  # 18 + 4 against 2 + 2
    assert panel.damage_label.text() == "Ogre breaks free of Tombril"
    assert controller.combatant("ogre").conditions == []
    controller.undo_stack.undo()
    assert controller.combatant("ogre").grappled_by == "tombril"


def test_the_sheets_condition_menu_and_a_saving_throw_against_a_dc(window: MainWindow) -> None:
    controller, sheet = window.controller, window.sheet
    controller.select("janine")
    assert sheet.conditions_button.menu() is sheet.fill_conditions_menu()
    add = next(a.menu() for a in sheet.conditions_menu.actions() if a.text() == "&Add condition")
    assert isinstance(add, QMenu)
    words = [a.text() for a in add.actions()]
    for word in ("prone", "grappled", "exhausted", "unconscious", "wounded"):
        assert word in words
    exhausted = next(a for a in add.actions() if a.text() == "exhausted")
    assert "disadvantage" in exhausted.toolTip()
    assert isinstance(exhausted.menu(), QMenu)
    next(a for a in exhausted.menu().actions() if a.text() == "Until &removed").trigger()
    assert controller.combatant("janine").conditions == ["exhausted"]
    controller.undo_stack.undo()
    assert controller.combatant("janine").conditions == []

    # The saving throw: sleep, DC 14 on Perception, unconscious on a failure.
    save = next(b for b in sheet.tool_buttons if b.text() == "Saving throw…")
    save.click()
    dialog = sheet.tool_dialog
    assert isinstance(dialog, ToolDialog) and dialog.isVisible()
    card = dialog.card
    assert card is not None
    what, skill, dc = card.editors["what"], card.editors["skill"], card.editors["dc"]
    condition, ignores = card.editors["condition"], card.editors["ignores_dr"]
    assert isinstance(what, QLineEdit) and isinstance(skill, QComboBox) and isinstance(dc, QSpinBox)
    assert isinstance(condition, QComboBox) and isinstance(ignores, QCheckBox)
    assert (dc.minimum(), dc.maximum()) == (1, 40)
    what.setText("sleep")
    dc.setValue(14)
    condition.setCurrentIndex(condition.findText("unconscious"))
    steps = controller.undo_stack.index()
    assert card.apply_faces(0, [5]) is not None, card.refusal
    line = controller.encounter.log[-1].text
    assert (
        line
        == "Janine saves against sleep (Perception): d20 5 +3 Perception = 8 vs DC 14: failed: Janine is unconscious"
    )
    assert controller.combatant("janine").down
    assert controller.undo_stack.index() == steps + 1
    controller.undo_stack.undo()
    assert controller.combatant("janine").conditions == []

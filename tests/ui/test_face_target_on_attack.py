"""In the window: an attack from the Action dock turns the attacker's token to face its target (the
map redraws its facing), Undo turns it back; the switch is in Combat ▸ Rules options."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QCheckBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Override
from lnl_desktop.core.rules.lnl.model import SurpriseSituation
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]

TOMBRIL_FACES = [5, 3, 4, 3, 2]
SOUTH = 180


def tombril_beside_the_half_orc(window: MainWindow) -> None:
    """Round 1, the Party first; Tombril walks to the cell north of the Half-orc (13, 9): he ends
    the walk facing his last step, not the Half-orc."""
    controller = window.controller
    controller.do(act.StartCombat(SurpriseSituation.NOBODY), ScriptedDice([5]))
    window.turns_panel.begin_turn("tombril")
    controller.do(act.Move("tombril", to=(13, 8)))
    assert controller.encounter.tokens["tombril"].cell == (13, 8)
    assert controller.encounter.tokens["tombril"].facing != SOUTH


def drawn_facing(window: MainWindow, cid: str) -> int:
    return window.map_view.map_scene.tokens[cid].look.facing


def test_an_attack_from_the_action_dock_turns_the_token_and_undo_turns_it_back(
    laptop_window: WindowFactory,
) -> None:
    window = laptop_window()
    tombril_beside_the_half_orc(window)
    before = drawn_facing(window, "tombril")
    stamina = window.controller.encounter.combatant("half-orc").stamina
    panel = window.action_panel
    panel.set_target("half-orc")
    panel.set_means("Shortsword")
    events = panel.apply_faces(TOMBRIL_FACES)
    assert events is not None
    assert window.controller.encounter.tokens["tombril"].facing == SOUTH
    assert drawn_facing(window, "tombril") == SOUTH  # the map's facing wedge follows at once
    assert window.controller.encounter.log[-len(events) :][1].text == "Tombril turns to face Half-orc"
    assert not window.controller.undo_stack.undoText().startswith("Tombril turns")  # the attack names the step

    window.undo_action.trigger()  # one Undo: the blow and the turn
    assert drawn_facing(window, "tombril") == before
    assert window.controller.encounter.tokens["tombril"].facing == before
    assert window.controller.encounter.combatant("half-orc").stamina == stamina


def test_the_switch_in_rules_options_is_one_undo_step_and_stops_the_turn(
    laptop_window: WindowFactory, qtbot: QtBot
) -> None:
    window = laptop_window()
    tombril_beside_the_half_orc(window)
    before = drawn_facing(window, "tombril")
    shown: list[str] = []

    def untick() -> None:
        dialog = window.rules_options_dialog
        assert dialog is not None
        box = dialog.editors["face_target_on_attack"]
        assert isinstance(box, QCheckBox) and box.isChecked()
        shown.append(box.text())
        box.setChecked(False)
        dialog.accept()

    QTimer.singleShot(0, untick)
    combat = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Combat")
    assert window.rules_options_action in combat.actions()
    window.rules_options_action.trigger()
    assert shown == ["An attacker turns to face its target"]
    assert window.controller.encounter.options.face_target_on_attack is False
    last = window.controller.encounter.log[-1]
    assert isinstance(last, Override) and last.text == "Ruleset options: face target on attack off"

    panel = window.action_panel
    panel.set_target("half-orc")
    panel.set_means("Shortsword")
    assert panel.apply_faces(TOMBRIL_FACES) is not None
    assert drawn_facing(window, "tombril") == before  # the option off: the GM turns him by hand

    window.undo_action.trigger()
    window.undo_action.trigger()  # the option back on, in one step
    assert window.controller.encounter.options.face_target_on_attack is True

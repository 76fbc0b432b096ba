"""The token menu (a right-click on a token with the Select tool) and the floor's menu, driven through the
real window on the demo: every entry is one undo step with its line in the round log, and an entry that
cannot act now is disabled with a tooltip saying why."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMenu

from lnl_desktop.core.encounter.durations import duration_of
from lnl_desktop.core.encounter.model import DurationKind
from lnl_desktop.ui.dialogs.damage_heal import DamageHealDialog
from lnl_desktop.ui.window.main_window import MainWindow

RIGHT, NONE = Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier


def at(window: MainWindow, cell: tuple[int, int]) -> QPoint:
    view = window.map_view
    return view.mapFromScene(view.scene_point_of(cell))


def right_click(window: MainWindow, cell: tuple[int, int]) -> QMenu:
    view = window.map_view
    QTest.mousePress(view.viewport(), RIGHT, NONE, at(window, cell))
    QTest.mouseRelease(view.viewport(), RIGHT, NONE, at(window, cell))
    menu = view.context_menu
    assert menu is not None and menu.isVisible()
    return menu


def token_menu(window: MainWindow, cid: str) -> QMenu:
    return right_click(window, window.controller.encounter.tokens[cid].cell)


def entry(menu: QMenu, text: str) -> QAction:
    found = [a for a in menu.actions() if a.text().replace("&", "") == text]
    assert found, f"no {text!r} in {[a.text() for a in menu.actions()]}"
    return found[0]


def pick(menu: QMenu, text: str) -> None:
    action = entry(menu, text)
    assert action.isEnabled(), action.toolTip()
    menu.close()
    action.trigger()


def test_hide_from_the_players_then_show_again_each_one_undo_step_in_the_log(demo_window: MainWindow) -> None:
    window, controller = demo_window, demo_window.controller
    steps = controller.undo_stack.count()
    pick(token_menu(window, "half-orc"), "Hide from the players")
    assert controller.encounter.tokens["half-orc"].hidden
    assert controller.undo_stack.count() == steps + 1
    assert controller.encounter.log[-1].text == "Half-orc is hidden from the players"
    assert controller.selected == "half-orc"  # the right-click selected it: what the menu acts on
    pick(token_menu(window, "half-orc"), "Show to the players")
    assert not controller.encounter.tokens["half-orc"].hidden
    assert controller.encounter.log[-1].text == "Half-orc is revealed to the players"


def test_a_condition_with_its_duration_from_the_token_menu(demo_window: MainWindow) -> None:
    window, controller = demo_window, demo_window.controller
    menu = token_menu(window, "half-orc")
    conditions = entry(menu, "Conditions").menu()
    stunned = entry(entry(conditions, "Add condition").menu(), "stunned").menu()
    menu.close()
    steps = controller.undo_stack.count()
    entry(stunned, "1 round").trigger()
    c = controller.combatant("half-orc")
    assert c is not None and c.has_condition("stunned")
    assert controller.undo_stack.count() == steps + 1
    assert "stunned" in controller.encounter.log[-1].text.lower()
    # The menu lists it now, with what is left of it and Remove.
    again = entry(token_menu(window, "half-orc"), "Conditions").menu()
    held = [a for a in again.actions() if "stunned" in a.text().lower()]
    assert held and held[0].menu() is not None
    kept = duration_of(c, "stunned")
    assert kept is not None and kept.kind is DurationKind.ROUNDS and kept.rounds == 1
    entry(held[0].menu(), "Remove").trigger()
    assert not controller.combatant("half-orc").has_condition("stunned")


def test_carry_a_torch_then_drop_it_and_the_drop_is_disabled_with_why_before(demo_window: MainWindow) -> None:
    window, controller = demo_window, demo_window.controller
    menu = token_menu(window, "tombril")
    drop = entry(menu, "Drop the light")
    assert not drop.isEnabled() and drop.toolTip() == "Tombril carries no light"
    pick(menu, "Carry a torch")
    (light,) = controller.encounter.lights
    assert light.carrier == "tombril"
    assert controller.encounter.log[-1].text.endswith("carried by Tombril")
    pick(token_menu(window, "tombril"), "Drop the light")
    (light,) = controller.encounter.lights
    assert light.carrier is None and tuple(light.cell) == (8, 6)
    assert "drops the torch" in controller.encounter.log[-1].text
    pick(token_menu(window, "janine"), "Carry a lantern")
    pick(token_menu(window, "tombril"), "Pick up the torch")  # the torch lies at his feet
    assert next(x for x in controller.encounter.lights if x.kind.value == "torch").carrier == "tombril"


def test_remove_from_the_map_is_undoable(demo_window: MainWindow) -> None:
    window, controller = demo_window, demo_window.controller
    pick(token_menu(window, "half-orc"), "Remove from the map")
    assert "half-orc" not in controller.encounter.tokens
    assert controller.combatant("half-orc") is not None  # the combatant stays
    assert controller.encounter.log[-1].text == "Half-orc is taken off the map"
    controller.undo_stack.undo()
    assert "half-orc" in controller.encounter.tokens


def test_damage_heal_opens_for_the_token_and_is_disabled_with_why_without_damage_by_hand(
    demo_window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    window, controller = demo_window, demo_window.controller
    pick(token_menu(window, "half-orc"), "Damage / Heal Half-orc…")
    dialog = window.map_view.hand_dialog
    assert isinstance(dialog, DamageHealDialog) and dialog.cid == "half-orc"
    dialog.close()
    ruleset: Any = controller.engine.ruleset
    monkeypatch.setattr(ruleset.health, "kinds", lambda heal: ())
    hand = entry(token_menu(window, "half-orc"), "Damage / Heal Half-orc…")
    assert not hand.isEnabled()
    assert "no damage or healing by hand" in hand.toolTip()


def test_the_floors_menu_places_a_light_and_opens_nothing_it_cannot(demo_window: MainWindow) -> None:
    window, controller = demo_window, demo_window.controller
    cell = (2, 2)
    assert window.map_view.map_scene.occupant.get(cell) is None
    pick(right_click(window, cell), "Place a candle here")
    (light,) = controller.encounter.lights
    assert light.kind.value == "candle" and tuple(light.cell) == cell
    assert controller.encounter.log[-1].text.endswith("at (2, 2)")

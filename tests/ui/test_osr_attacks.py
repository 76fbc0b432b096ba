"""The Old-School d20 demo (The Hobgoblin Ford) played from the docks: the Owlbear's three attacks
on its turn from the Action dock, advantage from a condition shown on the forecast and in the log,
an attack on an unconscious PC, a spell aimed by a click on the map and refused to a blinded
caster, and a burning creature's fire damage asked for as its turn begins."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_steps import attack as roll_attack
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import RulesEvent
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    w = MainWindow(
        storage.load(resource("encounters", "goblin-ambush-osr.lnl")),
        None,
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        recovery=RecoveryStore(tmp_path / "r"),
    )
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    return w


def start(window: MainWindow, faces: str) -> None:
    dialog = window.turns_panel.start_combat()
    dialog.set_situation("nobody surprised")
    dialog.set_initiative_faces(faces)
    assert dialog.problem() is None, dialog.problem()
    dialog.accept()
    assert window.controller.encounter.combat.phase.value == "fighting", window.controller.refusal


def attack(window: MainWindow, weapon: str, target: str, faces: list[int]) -> str:
    return roll_attack(window, "melee", weapon, target, faces)[0].text


def add_owlbear(window: MainWindow) -> None:
    """The bestiary's Owlbear (3 attacks a round), next to Tombril, Brannoc and Janine."""
    entry = next(c for c in get_ruleset("osr").bestiary() if c["name"] == "Owlbear")
    assert entry["attacks"] == 3
    data = {**entry, "side": "Opponents"}
    assert window.controller.do(act.AddCombatant(data, cell=(5, 6), facing=90)) is not None


def test_the_owlbear_makes_three_attack_rolls_on_its_turn_from_the_action_dock(window: MainWindow) -> None:
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    add_owlbear(window)
    start(window, "2 19")  # the Opponents first
    assert turns.begin_turn("owlbear")
    labels = [row.label for row in panel.rows]
    assert "Attack 1 of 3" in labels
    assert "Attack 1 of 3" in panel.note_label.text() and "Tombril (5 ft)" in panel.note_label.text()

    line = attack(window, "Claws and beak", "tombril", [2])
    assert line.startswith("Owlbear attacks Tombril with Claws and beak (attack 1 of 3): d20 2")
    # The dock stays on the attack: the next roll, at any foe in reach.
    assert panel.setup.isVisible() and not panel.used_label.isVisible()
    assert "Attack 2 of 3" in [row.label for row in panel.rows]
    assert "Attack 2 of 3" in panel.note_label.text()
    kinds = panel.kind_combo
    assert panel.kind() == "melee" and kinds.isEnabled()
    panel.set_kind("defend")
    assert not panel.allowed()[0]
    assert "1 of 3 attacks made" in "; ".join(panel.allowed()[1])

    line = attack(window, "Claws and beak", "brannoc", [15, 3, 3])
    assert "(attack 2 of 3)" in line and line.endswith("→ Brannoc 0/8 HP")
    # Brannoc is defeated: the next roll's target is the nearest foe standing, and the note's reach says so.
    assert panel.target() in ("tombril", "janine")
    assert "Brannoc" not in panel.note_label.text() and "Tombril (5 ft)" in panel.note_label.text()
    line = attack(window, "Claws and beak", "tombril", [4])
    assert "(attack 3 of 3)" in line
    # Three rolls made: the action is over, the dock says what was done.
    assert not panel.setup.isVisible() and panel.used_label.isVisible()
    rolls = [
        e
        for e in controller.encounter.log
        if isinstance(e, RulesEvent) and e.name == "attack" and e.detail.get("attacker") == "owlbear"
    ]
    assert len(rolls) == 3
    assert turns.end_turn()
    # One undo takes back one roll at a time.
    turns.begin_turn("hobgoblin-chief")
    controller.undo_stack.undo()
    controller.undo_stack.undo()
    controller.undo_stack.undo()
    assert controller.encounter.combat.turn.attacks == 2
    assert panel.setup.isVisible() and "Attack 3 of 3" in [row.label for row in panel.rows]


def test_a_prone_target_is_hit_with_advantage_shown_on_the_forecast_and_in_the_log(
    window: MainWindow, qtbot: QtBot
) -> None:
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    assert controller.do(act.EditCombatant("goblin-1", {"conditions": ["Prone"]})) is not None
    start(window, "15 5")  # the Party first
    assert turns.begin_turn("tombril")
    panel.set_kind("melee")
    panel.set_means("Longsword")
    panel.set_target("goblin-1")
    window.forecast_action.trigger()  # Ctrl+D: the GM asks for the forecast
    forecast = window.forecast_panel
    qtbot.waitUntil(lambda: "Goblin 1" in forecast.title_label.text())
    assert "with advantage (target prone)" in forecast.hit_label.text()
    assert "advantage (target prone)" in panel.note_label.text()
    line = attack(window, "Longsword", "goblin-1", [3, 14, 2])
    assert "advantage (target prone): 2d20 [3, 14] keeps 14 +3 attack bonus +2 STR = 19 vs AC 12: hit" in line
    assert "advantage (target prone)" in panel.result_text()


def test_an_unconscious_pc_may_be_attacked_and_a_hit_from_5_ft_is_critical(window: MainWindow, qtbot: QtBot) -> None:
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    assert controller.do(act.EditCombatant("tombril", {"conditions": ["unconscious"]})) is not None
    start(window, "2 19")
    assert turns.begin_turn("hobgoblin-chief")
    line = attack(window, "Longsword", "tombril", [3, 18, 2, 5])
    assert "advantage (target unconscious): 2d20 [3, 18] keeps 18" in line
    assert line.endswith(
        "critical hit (unconscious, within 5 ft: the damage dice rolled twice); "
        "damage Longsword [2+5] = 7 → Tombril 7/14 HP"
    )
    assert panel.damage_label.text().startswith("Critical hit: 7 damage → Tombril")


def click_token(window: MainWindow, cell: tuple[int, int]) -> None:
    view = window.map_view
    assert view is not None
    point = view.mapFromScene(view.scene_point_of(cell))
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)


def test_a_spell_takes_its_target_from_a_click_on_the_map_and_a_blinded_caster_is_refused(
    window: MainWindow,
) -> None:
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    assert controller.do(act.EditCombatant("janine", {"conditions": ["blinded"]})) is not None
    start(window, "15 5")
    assert turns.begin_turn("janine")
    panel.set_kind("cast")
    panel.set_extra("spell", "Sleep")
    click_token(window, (14, 9))  # Goblin 2
    assert panel.target() == "goblin-2"
    ok, reasons = panel.allowed()
    assert not ok and "Can see: Janine is blinded: no spell that needs sight" in reasons
    before = controller.encounter.model_dump()
    assert panel.roll() is None
    assert controller.encounter.model_dump() == before
    assert controller.do(act.EditCombatant("janine", {"conditions": []})) is not None
    assert panel.allowed()[0], panel.allowed()[1]
    assert panel.roll() is not None
    assert "Janine casts Sleep at Goblin 2 (no move this turn)" in [e.text for e in controller.encounter.log]


def test_a_burning_creature_is_asked_for_its_fire_damage_as_its_turn_begins(window: MainWindow, qtbot: QtBot) -> None:
    controller, turns, prompts = window.controller, window.turns_panel, window.prompts_panel
    assert controller.do(act.EditCombatant("brannoc", {"conditions": ["burning"]})) is not None
    start(window, "15 5")
    assert turns.begin_turn("brannoc")
    qtbot.waitUntil(lambda: prompts.dialog is not None and prompts.dialog.isVisible())
    assert "Burning" in prompts.dialog.windowTitle()
    assert prompts.dialog.card.apply_faces(0, [4]) is not None
    assert controller.encounter.log[-1].text == "Brannoc burns: 1d6 [4] = 4 fire damage → Brannoc 4/8 HP"
    assert controller.encounter.combatant("brannoc").hp == 4


def test_a_prone_pc_stands_up_from_the_action_dock_for_half_its_move_and_undo_lays_it_down(
    window: MainWindow,
) -> None:
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    assert controller.do(act.EditCombatant("tombril", {"conditions": ["prone"]})) is not None
    start(window, "15 5")
    assert turns.begin_turn("tombril")
    panel.set_kind("stand")
    assert panel.allowed()[0], panel.allowed()[1]
    assert panel.roll() is not None
    assert controller.encounter.log[-1].text == "Tombril stands up (half its Move, 15 ft)"
    assert "prone" not in controller.encounter.combatant("tombril").conditions
    item = panel.kind_combo.model().item(panel.kind_combo.findData("stand"))
    assert not item.isEnabled() and item.toolTip() == "Tombril is not prone"
    controller.undo_stack.undo()
    assert "prone" in controller.encounter.combatant("tombril").conditions

"""Rulesets at the table: File ▸ New with a ruleset, the Classic demo, conversion, and every dock
following the encounter's ruleset (the sheet, the tables, the actions, the start of combat).

The Classic demo: Tombril at (8, 6) with a +2 Shortsword, the Hill Giant (2 x 2) at (15, 6) with a
Club. Faces are typed as a GM reads them off the table.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLabel, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import RulesetChanged
from lnl_desktop.core.encounter.model import Phase, Side
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.classic import ClassicCombatant
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.dialogs.about import about_text
from lnl_desktop.ui.dialogs.combat import StartCombatDialog
from lnl_desktop.ui.dialogs.rulesets import NAME_ROLE, ConvertDialog, NewEncounterDialog
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

CLASSIC_DEMO = resource("encounters", "hill-giant-classic.lnl")


@pytest.fixture(autouse=True)
def discard_at_teardown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(storage.load(demo_encounter_path()), None, settings=settings, recovery=RecoveryStore(tmp_path / "r"))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def sheet_labels(window: MainWindow) -> list[str]:
    return [label.text() for label in window.sheet.scroll.widget().findChildren(QLabel)]


def classic_window(window: MainWindow) -> MainWindow:
    assert window.document.open_demo("classic")
    assert window.controller.encounter.ruleset == "classic"
    return window


# -- File ▸ New ----------------------------------------------------------------------------------


def test_new_asks_for_the_ruleset_and_the_window_follows_it(window: MainWindow) -> None:
    dialog = window.document.new_file()
    assert isinstance(dialog, NewEncounterDialog)
    titles = [dialog.rulesets.item(i).text().splitlines()[0] for i in range(dialog.rulesets.count())]
    assert titles[:2] == ["Laurels & Loot", "L&L Classic"]
    assert dialog.rulesets.currentItem().data(NAME_ROLE) == "lnl"  # the ruleset in use is preselected
    dialog.name_edit.setText("")
    dialog.accept()
    assert dialog.isVisible() and "Give the encounter a name" in dialog.message.text()
    dialog.name_edit.setText("Ambush at the ford")
    dialog.rulesets.choose("classic")
    dialog.accept()
    encounter = window.controller.encounter
    assert (encounter.name, encounter.ruleset, encounter.combatants) == ("Ambush at the ford", "classic", [])
    assert "L&L Classic" in window.windowTitle() and window.ruleset_label.text() == "L&L Classic"
    assert "This encounter uses <b>L&amp;L Classic</b>" in about_text(window.controller.engine.ruleset)
    # The docks now speak Classic: WIS and DP, the Classic bestiary, the Classic actions.
    assert "DP" in window.combatants_panel.model.COLUMNS
    names = {window.bestiary.model.creature(r)["name"] for r in range(window.bestiary.model.rowCount())}
    assert "Hill Giant" in names
    added = window.bestiary.add_creature(window.bestiary.model.creature(0))
    assert added is not None
    assert isinstance(window.controller.encounter.combatant(added), ClassicCombatant)
    window.controller.select(added)
    labels = sheet_labels(window)
    assert "WIS bonus" in labels and "AWA bonus" not in labels
    assert "DP " in window.sheet.summary.text()


def test_the_sheet_of_l_and_l_still_has_awa(window: MainWindow) -> None:
    window.controller.select("tombril")
    labels = sheet_labels(window)
    assert "AWA bonus" in labels and "WIS bonus" not in labels
    assert "DP" not in window.combatants_panel.model.COLUMNS


# -- the Classic demo through the GUI -------------------------------------------------------------


def test_open_demo_opens_an_unsaved_copy(window: MainWindow) -> None:
    classic_window(window)
    assert window.document.path is None  # Save asks for a name: the program's own file stays as it is
    assert "The Hill Giant" in window.controller.encounter.name
    window.demo_menu.aboutToShow.emit()  # as when the GM opens File ▸ Open demo
    assert [a.text() for a in window.demo_menu.actions()] == [
        "Laurels && Loot demo",
        "L&&L Classic demo",
        "Old-School d20 demo",
        "Group d10 demo",
        "",  # the separator before the demo sessions
        "Session: A night at the Old Tower (Laurels && Loot)",
        "Session: The road past the Hobgoblin Ford (Old-School d20)",
        "Session: Bandits on the Mill Road (Group d10)",
    ]


def test_the_000_example_reproduces_under_classic_with_typed_faces(window: MainWindow) -> None:
    classic_window(window)
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    dialog = turns.start_combat()
    assert isinstance(dialog, StartCombatDialog)
    dialog.set_face(3)  # no surprise round...
    assert dialog.initiative_box.isVisibleTo(dialog)
    dialog.set_initiative_face(5)  # ...and round 1's initiative: the Party first
    dialog.start_button.click()
    combat = controller.encounter.combat
    assert (combat.round, combat.first_side) == (1, Side.PARTY)
    assert controller.do(act.BeginTurn("tombril")) is not None
    assert controller.do(act.Move("tombril", (14, 6))) is not None
    panel.set_kind("attack")
    panel.set_means("Shortsword")
    panel.set_target("hill-giant")
    assert panel.apply_faces([5, 3, 4, 3, 2]) is not None
    assert panel.last_result is not None and panel.last_result.damage == 31
    assert controller.encounter.combatant("hill-giant").stamina == 37
    controller.do(act.EndTurn())
    assert controller.do(act.BeginTurn("hill-giant")) is not None
    panel.set_kind("attack")
    panel.set_target("tombril")
    assert panel.apply_faces([6, 5, 3, 6, 2, 6, 5, 1, 6, 2]) is not None
    assert panel.last_result is not None and panel.last_result.damage == 43
    tombril = controller.encounter.combatant("tombril")
    assert (tombril.stamina, tombril.injury) == (12, tombril.injury_max)  # no melee exertion, SP first


def test_classic_action_menu_offers_a_sneak_power_attack_and_no_ranged_minimum(window: MainWindow) -> None:
    classic_window(window)
    panel = window.action_panel
    window.controller.do(act.StartCombat("Party surprise round"))
    assert window.controller.encounter.combat.round_name == "Surprise round"
    window.controller.do(act.BeginTurn("tombril"))
    keys = [panel.kind_combo.itemData(i) for i in range(panel.kind_combo.count())]
    assert "sneak power" in keys and "dash" in keys
    panel.set_kind("sneak power")
    panel.set_target("hill-giant")
    rows = {row.label: row for row in panel.rows}
    assert "Hidden from the target, or the target engaged and approached from behind" in rows
    assert "Sneak attack (L&L Classic)" in rows  # the heading names the ruleset's rules
    assert "Did not attack this target last round" not in rows  # L&L's point, not Classic's
    assert "Power Attack:" in panel.note_label.text() and "SP first" in panel.note_label.text()
    assert "Hill Giant" in window.turns_panel.tree.topLevelItem(1).child(0).text(0)


def test_l_and_l_action_menu_has_no_sneak_power_attack(window: MainWindow) -> None:
    window.controller.do(act.StartCombat("nobody ambushes", 5))
    window.controller.do(act.BeginTurn("tombril"))
    keys = [window.action_panel.kind_combo.itemData(i) for i in range(window.action_panel.kind_combo.count())]
    assert "sneak power" not in keys and "sneak" in keys


def test_the_classic_start_dialog_grants_a_surprise_round_by_hand(qtbot: QtBot) -> None:
    dialog = StartCombatDialog(storage.load(CLASSIC_DEMO))
    qtbot.addWidget(dialog)
    assert "L&L Classic" in dialog.windowTitle()
    assert "The Opponents get a surprise round" in dialog.table_label.text()
    dialog.set_face(6)
    assert not dialog.initiative_box.isVisibleTo(dialog)  # a surprise round: round 1's die comes later
    assert dialog.action() == act.StartCombat("roll for surprise", 6)
    dialog.set_face(8)
    assert not dialog.start_button.isEnabled() and "8 is not a face of a d6" in dialog.start_button.toolTip()
    dialog.set_situation("Opponents surprise round")
    assert not dialog.die_box.isVisibleTo(dialog) and not dialog.reverse_box.isVisibleTo(dialog)
    assert dialog.start_button.isEnabled()
    assert dialog.action() == act.StartCombat("Opponents surprise round")
    dialog.set_situation("no surprise")
    assert dialog.initiative_box.isVisibleTo(dialog)
    dialog.set_initiative_face(2)
    assert dialog.action() == act.StartCombat("no surprise", None, initiative_face=2)


# -- converting ------------------------------------------------------------------------------------


def test_convert_lists_what_changes_and_undo_turns_it_back(window: MainWindow) -> None:
    controller = window.controller
    before = controller.encounter.model_dump(mode="json")
    dialog = window.convert_ruleset()
    assert isinstance(dialog, ConvertDialog)
    assert dialog.target() is not None and dialog.target().name == "classic"
    assert "AWA +4 becomes WIS +4" in dialog.notes.text()  # Cedryk's AWA, named before anything changes
    dialog.accept()
    assert controller.encounter.ruleset == "classic"
    assert isinstance(controller.encounter.log[-1], RulesetChanged)
    assert "L&L Classic" in window.windowTitle()
    window.controller.select("cedryk")
    assert "WIS bonus" in sheet_labels(window)
    assert controller.encounter.combatant("cedryk").wis_bonus == 4
    window.undo_action.trigger()
    assert controller.encounter.ruleset == "lnl" and "Laurels & Loot" in window.windowTitle()
    after = controller.encounter.model_dump(mode="json")
    assert {k: v for k, v in after.items() if k != "log"} == {k: v for k, v in before.items() if k != "log"}
    assert "AWA bonus" in sheet_labels(window)
    window.redo_action.trigger()
    assert controller.encounter.ruleset == "classic"


def test_convert_is_refused_once_combat_has_started(window: MainWindow) -> None:
    window.controller.do(act.StartCombat("nobody ambushes", 5))
    assert not window.convert_action.isEnabled()
    assert window.convert_ruleset() is None
    assert window.controller.do(act.ConvertRuleset("classic")) is None
    assert "only an encounter before combat" in (window.controller.refusal or "")
    assert window.controller.encounter.combat.phase is Phase.FIGHTING


# -- a new user's round: create, add from the bestiary, fight, save, reopen -------------------------


def test_a_classic_encounter_from_the_menu_to_the_file_and_back(window: MainWindow, tmp_path: Path) -> None:
    dialog = window.document.new_file()
    assert dialog is not None
    dialog.rulesets.choose("classic")
    dialog.accept()
    controller, bestiary = window.controller, window.bestiary
    by_name = {bestiary.model.creature(r)["name"]: bestiary.model.creature(r) for r in range(bestiary.model.rowCount())}
    goblin = controller.add_combatant(by_name["Goblin"] | {"side": "Party"}, cell=(3, 3))
    orc = controller.add_combatant(by_name["Half-orc"] | {"side": "Opponents"}, cell=(4, 3))
    assert goblin and orc
    controller.do(act.StartCombat("no surprise", initiative_face=4))
    assert controller.do(act.BeginTurn(goblin)) is not None
    window.action_panel.set_kind("attack")
    window.action_panel.set_target(orc)
    assert window.action_panel.roll() is not None
    controller.do(act.EndTurn())
    controller.do(act.BeginTurn(orc))
    controller.do(act.EndTurn())
    assert controller.encounter.combat.round == 1 and window.controller.engine.round_over
    path = tmp_path / "ford.lnl"
    assert window.document.save_to(path)
    saved = controller.encounter.model_dump(mode="json")
    window.document.load(path)
    again = window.controller.encounter
    assert again.ruleset == "classic" and again.model_dump(mode="json") == saved
    assert "L&L Classic" in window.windowTitle()

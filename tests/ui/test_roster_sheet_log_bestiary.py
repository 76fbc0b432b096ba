"""The docks as a GM uses them: the combatants table, the sheet, the round log, the bestiary."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QLineEdit, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl.model import Attack, Combatant
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.docks.bestiary import BestiaryPanel, load_bestiary
from lnl_desktop.ui.docks.combatants import CombatantsPanel
from lnl_desktop.ui.docks.log import RoundLog
from lnl_desktop.ui.docks.sheet import CombatantSheet
from lnl_desktop.ui.models.combatants import ID_ROLE
from lnl_desktop.ui.models.log import LogModel
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.mime import MIME_COMBATANT, MIME_CREATURE, read_combatant, read_creature


@pytest.fixture
def controller(qtbot: QtBot) -> TableController:
    return TableController(storage.load(demo_encounter_path()))


@pytest.fixture
def panel(qtbot: QtBot, controller: TableController) -> CombatantsPanel:
    widget = CombatantsPanel(controller)
    qtbot.addWidget(widget)
    widget.resize(640, 320)
    widget.show()
    return widget


@pytest.fixture
def sheet(qtbot: QtBot, controller: TableController) -> CombatantSheet:
    widget = CombatantSheet(controller)
    qtbot.addWidget(widget)
    widget.resize(440, 900)
    widget.show()
    controller.select("tombril")
    return widget


@pytest.fixture
def log_view(qtbot: QtBot, controller: TableController) -> RoundLog:
    widget = RoundLog(controller)
    qtbot.addWidget(widget)
    widget.resize(640, 300)
    widget.show()
    return widget


def row_of(model: QAbstractItemModel, name: str) -> int:
    return next(r for r in range(model.rowCount()) if model.index(r, 0).data() == name)


def type_into(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    """What a GM does: select the field's text, type over it, press Enter."""
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def log_texts(view: RoundLog) -> list[str]:
    model = view.table.model()
    return [model.index(r, 1).data() for r in range(model.rowCount())]


# -- the combatants table --------------------------------------------------------------------------


def test_table_lists_everyone_with_sp_and_ip(panel: CombatantsPanel, controller: TableController) -> None:
    model = panel.table.model()
    names = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert names == [c.name for c in controller.encounter.combatants]
    headers = [model.headerData(i, Qt.Orientation.Horizontal) for i in range(model.columnCount())]
    assert headers == ["Name", "Side", "Level", "SP", "IP", "AP", "Move", "Status"]
    giant = row_of(model, "Hill Giant")
    assert model.index(giant, 3).data() == "68 / 68"
    assert model.index(giant, 4).data() == "30 / 30"
    assert model.index(giant, 6).data() == "40 ft"
    janine = row_of(model, "Janine the Pious")
    assert model.index(janine, 5).data() == 4  # armor 3 + a carried shield 1
    swatch = model.index(giant, 1).data(Qt.ItemDataRole.DecorationRole)
    assert isinstance(swatch, QColor) and swatch != model.index(janine, 1).data(Qt.ItemDataRole.DecorationRole)


def test_selecting_a_row_selects_in_the_controller_and_back(
    panel: CombatantsPanel, controller: TableController, qtbot: QtBot
) -> None:
    model = panel.table.model()
    row = row_of(model, "Half-orc")
    rect = panel.table.visualRect(model.index(row, 0))
    with qtbot.waitSignal(controller.selectionChanged) as blocker:
        qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == ["half-orc"]
    assert controller.selected == "half-orc"
    controller.select("tombril")
    assert panel.selected_id() == "tombril"
    controller.select(None)
    assert panel.selected_id() is None
    assert not panel.remove_button.isEnabled()


def test_a_row_drags_as_its_combatant(panel: CombatantsPanel) -> None:
    model = panel.table.model()
    assert model.flags(model.index(0, 0)) & Qt.ItemFlag.ItemIsDragEnabled
    assert panel.table.dragEnabled()
    row = row_of(model, "Cedryk the Sneaky")
    mime = model.mimeData([model.index(row, c) for c in range(model.columnCount())])
    assert mime.hasFormat(MIME_COMBATANT)
    assert read_combatant(mime) == "cedryk"


def test_down_rows_are_grey_and_the_active_turn_is_bold(panel: CombatantsPanel, controller: TableController) -> None:
    assert controller.do(act.EditCombatant("half-orc", {"injury": 0})) is not None
    controller.engine.start_combat(face=5)  # Party acts first
    assert controller.do(act.BeginTurn("tombril")) is not None
    model = panel.table.model()
    down = row_of(model, "Half-orc")
    assert model.index(down, 0).data(Qt.ItemDataRole.ForegroundRole) is not None
    assert "down" in model.index(down, 7).data()
    font = model.index(row_of(model, "Tombril"), 0).data(Qt.ItemDataRole.FontRole)
    assert isinstance(font, QFont) and font.bold()
    assert model.index(row_of(model, "Cedryk the Sneaky"), 0).data(Qt.ItemDataRole.FontRole) is None


def test_add_and_remove_combatant(
    panel: CombatantsPanel, controller: TableController, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = len(controller.encounter.combatants)
    panel.add_button.click()
    assert len(controller.encounter.combatants) == before + 1
    new = controller.encounter.combatants[-1]
    assert (new.name, new.side.value, new.level, new.stamina, new.injury) == ("New combatant", "Party", 1, 10, 5)
    assert new.weapons[0].die == "d6"
    assert controller.selected == new.id and panel.selected_id() == new.id
    assert panel.remove_button.isEnabled()

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    panel.remove_button.click()
    assert len(controller.encounter.combatants) == before + 1
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    panel.remove_button.click()
    assert len(controller.encounter.combatants) == before
    assert controller.selected is None
    controller.undo_stack.undo()
    assert panel.table.model().rowCount() == before + 1


def test_name_filter(panel: CombatantsPanel, qtbot: QtBot) -> None:
    qtbot.keyClicks(panel.filter, "half")
    model = panel.table.model()
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == [
        "Half-orc",
        "Half-orc Glaive",
        "Half-orc Archer",
    ]


# -- the sheet --------------------------------------------------------------------------------------


def test_sheet_shows_the_selected_combatant(sheet: CombatantSheet, controller: TableController) -> None:
    assert sheet.editor("name").text() == "Tombril"
    assert sheet.editor("level").text() == "9"
    assert sheet.editor("stamina_max").text() == "55"
    assert sheet.weapons_model.rowCount() == 2
    assert sheet.weapons_model.index(0, 0).data() == "Shortsword"
    controller.select("janine")
    assert sheet.editor("name").text() == "Janine the Pious"
    assert sheet.editor("shield.durability").text() == "12"
    assert sheet.spells_model.index(0, 0).data() == "Searing Light"
    controller.select(None)
    assert sheet.stack.currentWidget() is sheet.placeholder


@pytest.mark.parametrize(
    ("field", "text", "says"),
    [
        ("level", "0", "Tombril: Level cannot be below 1 (got 0)"),
        ("level", "x", "not a whole number"),
        ("level", "-3", "Level cannot be below 1"),
        ("stamina", "70", "above the maximum"),
        ("name", "", "Name cannot be empty"),
    ],
)
def test_a_bad_value_is_refused_on_the_sheet_and_changes_nothing(
    sheet: CombatantSheet, controller: TableController, qtbot: QtBot, field: str, text: str, says: str
) -> None:
    before = controller.encounter.model_dump()
    steps = controller.undo_stack.count()
    edit = sheet.editor(field)
    assert isinstance(edit, QLineEdit)
    shown = edit.text()
    if text:
        type_into(qtbot, edit, text)
    else:
        edit.clear()
        qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert says in sheet.message
    assert sheet.message_label.isVisible()
    assert edit.property("invalid") is True
    assert edit.text() == shown  # back to the combatant's value
    assert controller.encounter.model_dump() == before
    assert controller.undo_stack.count() == steps


def test_a_good_edit_is_one_undo_step_in_the_log(
    sheet: CombatantSheet, controller: TableController, log_view: RoundLog, qtbot: QtBot
) -> None:
    steps = controller.undo_stack.count()
    type_into(qtbot, sheet.editor("level"), "10")
    assert controller.encounter.combatant("tombril").level == 10
    assert controller.undo_stack.count() == steps + 1
    assert sheet.message == ""
    assert sheet.summary.text().startswith("Party, level 10")
    assert log_texts(log_view)[-1] == "Tombril: level 9 → 10"

    controller.undo_stack.undo()
    assert controller.encounter.combatant("tombril").level == 9
    assert sheet.editor("level").text() == "9"
    assert log_texts(log_view)[-1].startswith("Undone:")


def test_a_refusal_clears_with_the_next_good_edit(
    sheet: CombatantSheet, controller: TableController, qtbot: QtBot
) -> None:
    type_into(qtbot, sheet.editor("stamina"), "70")
    assert "above the maximum" in sheet.message
    type_into(qtbot, sheet.editor("stamina_max"), "80")
    type_into(qtbot, sheet.editor("stamina"), "70")
    assert sheet.message == ""
    assert sheet.editor("stamina").property("invalid") is False
    tombril = controller.encounter.combatant("tombril")
    assert (tombril.stamina, tombril.stamina_max) == (70, 80)


def test_choices_flags_conditions_and_notes(sheet: CombatantSheet, controller: TableController) -> None:
    side = sheet.editor("side")
    side.setCurrentIndex(side.findData("Opponents"))
    side.activated.emit(side.currentIndex())
    assert controller.encounter.combatant("tombril").side.value == "Opponents"

    sheet.editor("cannot_be_surprised").click()
    assert controller.encounter.combatant("tombril").cannot_be_surprised
    sheet.editor("concealed").click()
    assert controller.encounter.combatant("tombril").concealed

    assert sheet.add_condition("prone")
    sheet.editor("conditions").setText("prone, poisoned, prone")
    sheet.editor("conditions").editingFinished.emit()
    assert controller.encounter.combatant("tombril").conditions == ["prone", "poisoned"]
    assert sheet.editor("conditions").text() == "prone, poisoned"

    notes = sheet.editor("notes")
    notes.setPlainText("Owes the giant money.")
    notes.editingFinished.emit()
    assert controller.encounter.combatant("tombril").notes == "Owes the giant money."


def test_an_unchanged_field_makes_no_undo_step(sheet: CombatantSheet, controller: TableController) -> None:
    steps = controller.undo_stack.count()
    sheet.editor("level").editingFinished.emit()
    sheet.editor("notes").editingFinished.emit()
    assert controller.undo_stack.count() == steps
    assert sheet.message == ""


def test_weapon_die_edit_and_an_empty_name_refused(sheet: CombatantSheet, controller: TableController) -> None:
    model = sheet.weapons_model
    steps = controller.undo_stack.count()
    assert model.setData(model.index(0, 1), "d8")
    assert controller.encounter.combatant("tombril").weapon("Shortsword").die == "d8"
    assert controller.undo_stack.count() == steps + 1
    assert model.index(0, 1).data() == "d8"

    before = controller.encounter.model_dump()
    assert not model.setData(model.index(0, 0), "")
    assert "Weapon 1: Name cannot be empty" in sheet.message
    assert sheet.weapons_table.property("invalid") is True
    assert model.index(0, 0).data() == "Shortsword"
    assert controller.encounter.model_dump() == before
    assert controller.undo_stack.count() == steps + 1

    assert not model.setData(model.index(0, 6), "lots")
    assert "not a whole number" in sheet.message
    assert controller.encounter.model_dump() == before


def test_weapon_kind_flags_add_and_remove(sheet: CombatantSheet, controller: TableController) -> None:
    model = sheet.weapons_model
    assert model.setData(model.index(0, 2), "reach")
    assert model.setData(model.index(0, 4), "15")
    assert controller.encounter.combatant("tombril").weapon("Shortsword").reach == 15
    # Back to melee: the reach no longer fits and goes with it.
    assert model.setData(model.index(0, 2), "melee")
    assert controller.encounter.combatant("tombril").weapon("Shortsword").reach_ft is None
    assert model.setData(model.index(0, 7), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert controller.encounter.combatant("tombril").weapon("Shortsword").specialized

    sheet.add_weapon_button.click()
    assert [w.name for w in controller.encounter.combatant("tombril").weapons][-1] == "New weapon"
    assert sheet.remove_weapon_button.isEnabled()
    sheet.remove_weapon_button.click()
    assert len(controller.encounter.combatant("tombril").weapons) == 2


def test_shield_and_spells(sheet: CombatantSheet, controller: TableController, qtbot: QtBot) -> None:
    assert not sheet.editor("shield.armor").isEnabled()
    sheet.editor("shield").click()
    assert controller.encounter.combatant("tombril").shield is not None
    assert sheet.editor("shield.armor").isEnabled()
    type_into(qtbot, sheet.editor("shield.armor"), "2")
    assert controller.encounter.combatant("tombril").armor_points == 3 + 2
    type_into(qtbot, sheet.editor("shield.durability"), "99")
    assert "Durability: 99 is above the maximum of 10" in sheet.message
    assert controller.encounter.combatant("tombril").shield.durability == 10

    sheet.add_spell_button.click()
    model = sheet.spells_model
    assert model.setData(model.index(0, 0), "Fire Bolt")
    assert model.setData(model.index(0, 3), "AWA")
    assert model.setData(model.index(0, 6), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    spell = controller.encounter.combatant("tombril").spell("Fire Bolt")
    assert (spell.ability.value, spell.direct) == ("AWA", True)


def test_undo_refreshes_the_sheet_but_not_a_field_being_typed(
    sheet: CombatantSheet, controller: TableController, qtbot: QtBot
) -> None:
    type_into(qtbot, sheet.editor("armor"), "4")
    dex = sheet.editor("dex_bonus")
    sheet.activateWindow()
    dex.setFocus()
    qtbot.waitUntil(dex.hasFocus)
    qtbot.keyClicks(dex, "7")  # typed, not yet committed
    controller.undo_stack.undo()
    assert sheet.editor("armor").text() == "3"
    assert dex.text() == "57"  # the GM's typing survives the refresh
    qtbot.keyClick(dex, Qt.Key.Key_Return)
    assert "DEX bonus cannot be above 30" in sheet.message  # bonuses run from -10 to +30


# -- the round log ------------------------------------------------------------------------------------


def play_two_rounds(controller: TableController) -> None:
    steps = [
        act.StartCombat(face=5),  # Party acts first
        act.BeginTurn("tombril"),
        act.EndTurn(),
        act.NextRound(face=2),  # Opponents act first
        act.BeginTurn("hill-giant"),
        act.EndTurn(),
    ]
    for step in steps:
        assert controller.do(step) is not None, step


def test_log_filters_by_round_and_by_combatant(log_view: RoundLog, controller: TableController) -> None:
    play_two_rounds(controller)
    everything = log_texts(log_view)
    assert len(everything) == len(controller.encounter.log)
    rounds = [log_view.round_filter.itemText(i) for i in range(log_view.round_filter.count())]
    assert rounds == ["All rounds", "Round 1", "Round 2"]

    log_view.set_round(1)
    model = log_view.table.model()
    assert model.rowCount() > 0
    assert all(model.index(r, 0).data() == 1 for r in range(model.rowCount()))
    assert "Tombril's turn" in log_texts(log_view)

    log_view.set_round(None)
    log_view.set_combatant("hill-giant")
    texts = log_texts(log_view)
    assert texts and all("Hill Giant" in t for t in texts)
    assert "Tombril's turn" not in texts

    log_view.set_round(1)
    assert log_texts(log_view) == []
    log_view.set_round(None)
    log_view.set_combatant(None)
    assert log_texts(log_view) == everything


def test_log_shows_undone_lines_and_attack_formulas(log_view: RoundLog, controller: TableController) -> None:
    controller.engine.start_combat(face=5)
    controller.do(act.BeginTurn("tombril"))
    controller.do(act.Move("tombril", to=(9, 7)))
    giant = controller.encounter.tokens["hill-giant"].cell
    controller.do(act.Move("tombril", to=(giant[0] - 1, giant[1]), forced=True))
    from lnl_desktop.core.dice.rolls import ScriptedDice

    events = controller.do(Attack("tombril", "hill-giant", "Shortsword"), ScriptedDice([5, 3, 4, 3, 2]))
    assert events is not None, controller.encounter.combat
    model = log_view.table.model()
    attack_row = next(r for r in range(model.rowCount()) if "Hill Giant" in model.index(r, 1).data())
    tip = model.index(attack_row, 1).data(Qt.ItemDataRole.ToolTipRole)
    assert "dice 5 + 3 + 4 + 3 + 2 = 17" in tip and "= 31" in tip

    controller.undo_stack.undo()
    last = model.index(model.rowCount() - 1, 1)
    assert last.data().startswith("Undone:")
    assert last.data(Qt.ItemDataRole.FontRole).italic()
    assert last.data(Qt.ItemDataRole.ForegroundRole) is not None


def test_log_follows_new_events_unless_scrolled_up(
    log_view: RoundLog, controller: TableController, qtbot: QtBot
) -> None:
    log_view.resize(400, 120)
    bar = log_view.table.verticalScrollBar()
    for level in range(2, 30):
        controller.do(act.EditCombatant("tombril", {"level": level}))
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    assert bar.value() == bar.maximum()
    assert log_view.following
    bar.setValue(0)  # the GM scrolls up to read
    assert not log_view.following
    maximum = bar.maximum()
    controller.do(act.EditCombatant("tombril", {"level": 30}))
    qtbot.waitUntil(lambda: bar.maximum() > maximum)
    assert bar.value() == 0
    log_view.set_round(0)  # picking a filter goes back to the newest events
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    assert log_view.following


def test_log_model_keeps_no_copy(controller: TableController) -> None:
    model = LogModel(controller)
    controller.do(act.EditCombatant("tombril", {"level": 10}))
    assert model.rowCount() == len(controller.encounter.log) == 1
    assert model.log_event(0) is controller.encounter.log[0]
    model.index(0, 0)
    assert model.rowCount(QModelIndex()) == 1


# -- the bestiary -------------------------------------------------------------------------------------


def test_log_filters_follow_appends_and_undo(log_view: RoundLog, controller: TableController) -> None:
    # Read incrementally as events are appended; an undo reads the whole log again.
    play_two_rounds(controller)
    controller.do(act.NextRound(face=4))
    rounds = [log_view.round_filter.itemText(i) for i in range(log_view.round_filter.count())]
    assert rounds == ["All rounds", "Round 1", "Round 2", "Round 3"]
    log_view.set_round(3)
    controller.undo_stack.undo()  # back in round 2: round 3 and the choice of it are gone
    rounds = [log_view.round_filter.itemText(i) for i in range(log_view.round_filter.count())]
    assert rounds == ["All rounds", "Round 1", "Round 2"]
    assert log_view.proxy.round is None
    controller.do(act.RemoveCombatant("cedryk"))
    controller.do(act.BeginTurn("half-orc"))
    names = [log_view.combatant_filter.itemText(i) for i in range(log_view.combatant_filter.count())]
    assert "cedryk (removed)" in names and "Cedryk the Sneaky" not in names
    controller.undo_stack.undo()
    controller.undo_stack.undo()
    names = [log_view.combatant_filter.itemText(i) for i in range(log_view.combatant_filter.count())]
    assert "Cedryk the Sneaky" in names and "cedryk (removed)" not in names


def test_combatants_model_repaints_only_the_rows_an_action_changed(
    panel: CombatantsPanel, controller: TableController
) -> None:
    model = panel.model
    painted: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda first, last, *_: painted.append((first.row(), last.row())))
    controller.do(act.StartCombat(face=5))
    painted.clear()
    controller.do(act.BeginTurn("tombril"))  # the active row turns bold
    assert painted == [(model.row_of("tombril"), model.row_of("tombril"))]
    painted.clear()
    controller.do(act.Move("tombril", to=(9, 6)))  # nothing the table shows
    assert painted == []
    controller.do(act.EditCombatant("janine", {"stamina": 3}))
    assert painted == [(model.row_of("janine"), model.row_of("janine"))]
    assert model.index(model.row_of("janine"), 3).data().startswith("3 /")


def test_every_bestiary_entry_is_a_valid_combatant() -> None:
    entries = json.loads(resource("bestiary.json").read_text())
    assert len(entries) >= 10
    for entry in entries:
        assert "id" not in entry and "side" not in entry
        Combatant.model_validate(entry | {"side": "Opponents"})
    names = {e["name"] for e in entries}
    assert {"Goblin", "Hill Giant", "Ogre", "Owlbear", "Wolf", "Skeleton"} <= names
    assert next(e for e in entries if e["name"] == "Hill Giant")["size"] == 2
    creatures, problems = load_bestiary()
    assert problems == [] and len(creatures) == len(entries)


def test_bestiary_drags_creatures_and_adds_them(qtbot: QtBot, controller: TableController) -> None:
    panel = BestiaryPanel(controller)
    qtbot.addWidget(panel)
    model = panel.list.model()
    assert model.flags(model.index(0, 0)) & Qt.ItemFlag.ItemIsDragEnabled
    assert panel.list.dragEnabled()
    mime = model.mimeData([model.index(0, 0)])
    assert mime.hasFormat(MIME_CREATURE)
    creature = read_creature(mime)
    assert creature is not None and creature["name"] == "Goblin"
    assert "Goblin" in model.index(0, 0).data() and "level 1" in model.index(0, 0).data()
    assert "SP" in model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)

    qtbot.keyClicks(panel.filter, "giant")
    assert {model.index(r, 0).data().split(" — ")[0] for r in range(model.rowCount())} == {
        "Giant Spider",
        "Hill Giant",
    }
    before = len(controller.encounter.combatants)
    assert not panel.add_button.isEnabled()
    panel.list.setCurrentIndex(model.index(1, 0))
    panel.add_button.click()
    assert len(controller.encounter.combatants) == before + 1
    added = controller.encounter.combatants[-1]
    # The demo already has a Hill Giant: the newcomer gets a number, a fresh id, the Opponents' side, no token.
    assert (added.name, added.id, added.side.value) == ("Hill Giant 2", "hill-giant-2", "Opponents")
    assert added.id not in controller.encounter.tokens
    assert controller.selected == added.id


def test_panels_use_the_combatant_id_role(panel: CombatantsPanel) -> None:
    model = panel.table.model()
    assert model.index(0, 3).data(ID_ROLE) == "tombril"

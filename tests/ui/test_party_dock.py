"""The Party dock in the window, as a GM uses it: a combatant taken into the party (and linked), let go,
dragged onto the map as it stands, edited on the Sheet, each one undo step; a bad file refused."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from lnl_desktop.core.session.roster import load_roster, new_roster, save_roster, with_characters
from lnl_desktop.ui.docks.party import PartyPanel
from lnl_desktop.ui.plumbing.mime import combatant_mime
from lnl_desktop.ui.window.main_window import MainWindow


def party_panel(window: MainWindow, tmp_path: Path) -> PartyPanel:
    panel = window._panel("Party")
    assert isinstance(panel, PartyPanel)
    assert panel.new_party(tmp_path / "heroes.lnlparty")
    return panel


def log_lines(window: MainWindow) -> list[str]:
    return [e.text for e in window.controller.encounter.log]


def drop_on_map(window: MainWindow, mime, cell: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    view = window.map_view
    point = QPointF(view.mapFromScene((cell[0] + 0.5) * 64, (cell[1] + 0.5) * 64))
    copy, left, none = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(view.viewport(), QDragEnterEvent(point.toPoint(), copy, mime, left, none))
    QApplication.sendEvent(view.viewport(), QDragMoveEvent(point.toPoint(), copy, mime, left, none))
    QApplication.sendEvent(view.viewport(), QDropEvent(point, copy, mime, left, none))


def test_add_from_the_combatants_dock_writes_links_and_undoes(demo_window: MainWindow, tmp_path: Path) -> None:
    window = demo_window
    panel = party_panel(window, tmp_path)
    path = tmp_path / "heroes.lnlparty"
    window.controller.select("tombril")
    assert panel.add_button.isEnabled()
    assert panel.add_to_party()
    assert [c.name for c in load_roster(path).characters] == ["Tombril"]
    assert window.controller.encounter.party_links == {"tombril": 1}
    assert "Tombril: taken into the party" in log_lines(window)[-1]
    assert "heroes.lnlparty" in panel.header.text() and "1 character" in panel.header.text()
    row = panel.model.data(panel.model.index(0), Qt.ItemDataRole.DisplayRole)
    tombril = window.controller.encounter.combatant("tombril")
    assert f"IP {tombril.injury}/{tombril.injury_max}" in row  # the GM sees how hurt each one is
    # Dragged from the Combatants dock: the same.
    assert panel.model.dropMimeData(combatant_mime("janine"), Qt.DropAction.CopyAction, -1, -1, QModelIndex())
    assert [c.name for c in load_roster(path).characters] == ["Tombril", "Janine the Pious"]
    window.controller.undo_stack.undo()
    window.controller.undo_stack.undo()
    assert load_roster(path).characters == []
    assert window.controller.encounter.party_links == {}
    assert panel.model.rowCount() == 0


def test_remove_and_undo(demo_window: MainWindow, tmp_path: Path) -> None:
    window = demo_window
    panel = party_panel(window, tmp_path)
    path = tmp_path / "heroes.lnlparty"
    panel.add_to_party("tombril")
    panel.select_character("tombril")
    assert panel.remove_button.isEnabled()
    assert panel.remove_selected()
    assert load_roster(path).characters == []
    assert window.controller.encounter.party_links == {}
    assert "let go from the party" in log_lines(window)[-1]
    window.controller.undo_stack.undo()
    assert [c.id for c in load_roster(path).characters] == ["tombril"]
    assert window.controller.encounter.party_links == {"tombril": 1}


def test_a_hurt_character_dragged_onto_the_map_arrives_hurt(demo_window: MainWindow, tmp_path: Path) -> None:
    window = demo_window
    panel = party_panel(window, tmp_path)
    path = tmp_path / "heroes.lnlparty"
    tombril = window.controller.combatant("tombril")
    party = window.party
    party.push("Tombril hurt", with_characters(party.roster, [tombril.model_copy(update={"stamina": 20})]))
    assert load_roster(path).character("tombril").stamina == 20
    from lnl_desktop.core.encounter import actions as act

    window.controller.do(act.RemoveCombatant("tombril"))
    panel.select_character("tombril")
    index = panel.list.currentIndex()
    mime = panel.model.mimeData([index])
    steps = window.controller.undo_stack.count()
    drop_on_map(window, mime, (2, 2))
    arrived = window.controller.combatant("tombril")
    assert arrived is not None and arrived.stamina == 20
    assert window.controller.encounter.tokens["tombril"].cell is not None
    assert window.controller.encounter.party_links["tombril"] == load_roster(path).version("tombril")
    assert window.controller.undo_stack.count() == steps + 1
    # Once more: it is there already, refused with the reason where the GM looks.
    drop_on_map(window, mime, (4, 4))
    assert "already in this encounter" in window.toast.text()
    assert sum(c.name.startswith("Tombril") for c in window.controller.encounter.combatants) == 1


def test_an_edit_on_the_sheet_goes_to_the_roster_and_undo_restores_it(
    demo_window: MainWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    window = demo_window
    panel = party_panel(window, tmp_path)
    path = tmp_path / "heroes.lnlparty"
    panel.add_to_party("tombril")
    panel.select_character("tombril")
    sheet = window.sheet
    other = sheet.other
    assert other is not None and sheet.stack.currentWidget() is other
    assert "Party: " in other.title.text()
    level = other.editor("level")
    assert isinstance(level, QLineEdit) and level.text() == "9"
    level.setFocus()
    level.selectAll()
    qtbot.keyClicks(level, "10")
    qtbot.keyClick(level, Qt.Key.Key_Return)
    assert load_roster(path).character("tombril").level == 10
    assert window.controller.combatant("tombril").level == 9  # the encounter's copy is its own
    assert "edited" in log_lines(window)[-1] or "level" in log_lines(window)[-1]
    # A bad value is refused as on the encounter's sheet, and the roster keeps its value.
    level.setFocus()
    level.selectAll()
    qtbot.keyClicks(level, "0")
    qtbot.keyClick(level, Qt.Key.Key_Return)
    assert "Level cannot be below 1" in other.message
    assert load_roster(path).character("tombril").level == 10
    window.controller.undo_stack.undo()
    assert load_roster(path).character("tombril").level == 9
    assert other.editor("level").text() == "9"
    # Selecting a combatant of the encounter shows the encounter's sheet again.
    window.controller.select("janine")
    assert sheet.stack.currentWidget() is not other
    assert sheet.editor("name").text() == "Janine the Pious"


def test_a_damaged_roster_is_refused_and_nothing_changes(
    demo_window: MainWindow, tmp_path: Path, warnings: list[str]
) -> None:
    window = demo_window
    panel = party_panel(window, tmp_path)
    bad = tmp_path / "bad.lnlparty"
    bad.write_text('{"format": "lnl-party", "version": 1, "roster": {"ruleset": "lnl", "characters": ', "utf-8")
    assert not panel.open_party(bad)
    assert warnings and "bad.lnlparty" in warnings[0]
    assert window.party.path == tmp_path / "heroes.lnlparty"
    assert "heroes.lnlparty" in panel.header.text()


def test_a_party_of_another_ruleset_is_shown_but_not_brought_in(demo_window: MainWindow, tmp_path: Path) -> None:
    window = demo_window
    panel = party_panel(window, tmp_path)
    other = tmp_path / "osr.lnlparty"
    save_roster(new_roster("osr", "Old school"), other)
    assert panel.open_party(other)
    window.controller.select("tombril")
    assert not panel.add_button.isEnabled()
    assert "Old-School" in panel.add_button.toolTip() or "plays" in panel.add_button.toolTip()
    assert "plays" in panel.header.text()


def test_add_to_the_party_from_the_combatants_right_click_menu(demo_window: MainWindow, tmp_path: Path) -> None:
    window = demo_window
    party_panel(window, tmp_path)
    combatants = window.combatants_panel
    window.controller.select("janine")
    action = combatants.add_to_party_action
    assert action is not None and action in combatants.table.actions()
    action.trigger()
    assert [c.id for c in load_roster(tmp_path / "heroes.lnlparty").characters] == ["janine"]
    assert window.controller.encounter.party_links == {"janine": 1}
    action.trigger()  # once is enough: refused with the reason
    assert "already in the party" in window.toast.text()

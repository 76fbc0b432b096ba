"""The Rest dialog (RULES §16): Old-School d20's day of rest, 1d3 HP per character, typed faces checked
and applied by the numbers, the dead greyed and left dead, one undo step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox
from pytestqt.qtbot import QtBot
from test_carry_on import make_session

from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.session.roster import load_roster, new_roster
from lnl_desktop.ui.dialogs.rest import DEAD_TIP, RestDialog, no_rest_reason

# Tombril 5 of 14, Cedryk 9 of 9 (whole), Janine 6 of 7 (one short), Brannoc dead.
HURT = {"tombril": {"hp": 5}, "janine": {"hp": 6}, "brannoc": {"hp": 0, "dead": True}}


def osr_party(tmp_path: Path) -> Any:
    return make_session(tmp_path / "night", "goblin-ambush-osr.lnl", ("01-ambush.lnl",), HURT)


def test_a_day_of_rest_with_typed_faces_by_the_numbers(qtbot: QtBot, tmp_path: Path) -> None:
    roster = osr_party(tmp_path)
    assert roster.character("cedryk").hp == roster.character("cedryk").hp_max
    dialog = RestDialog(roster)
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert dialog.kind() == "day"
    assert dialog.dice_label.text() == "1d3 each"
    dead = dialog.characters.item(3)
    assert dead.text() == "Brannoc (dead)" and dead.toolTip() == DEAD_TIP
    assert not dead.flags() & Qt.ItemFlag.ItemIsEnabled
    assert dialog.chosen() == ["tombril", "cedryk", "janine"]

    dialog.set_faces("2 3")  # one short
    assert not ok.isEnabled() and "Too few faces" in dialog.problem_label.text()
    dialog.set_faces("2 4 1")  # off the die
    assert not ok.isEnabled() and "4 is not a face of a d3" in dialog.problem_label.text()
    dialog.set_faces("2 3 1 2")  # one left over
    assert not ok.isEnabled() and "left over" in dialog.problem_label.text()
    dialog.set_faces("3 2 3")
    assert ok.isEnabled()
    rested = dialog.rested()
    assert rested is not None
    # Tombril 5 + 3; Cedryk whole (rolled all the same, faces go one each); Janine 6 + 3 capped at 7.
    assert [rested.roster.character(cid).hp for cid in ("tombril", "cedryk", "janine")] == [8, 9, 7]
    assert rested.roster.character("brannoc").dead
    assert dialog.preview.text().splitlines()[0] == "Tombril: HP 5 → 8"

    # Janine keeps watch: one face fewer, the same order.
    dialog.characters.item(2).setCheckState(Qt.CheckState.Unchecked)
    assert "left over" in dialog.problem_label.text()
    dialog.set_faces("1 1")
    assert dialog.rested().roster.character("janine").hp == 6

    dialog.roll()  # the app's dice, typed in for the GM to see
    assert len(dialog.faces_edit.text().split()) == 2 and ok.isEnabled()

    dialog.kind_box.setCurrentIndex(dialog.kind_box.findData("short"))
    assert dialog.dice_label.text() == "none: this rest rolls nothing"
    assert not dialog.faces_edit.isEnabled() and ok.isEnabled()


def test_rest_in_the_window_is_one_undo_step(
    laptop_window: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: None)
    roster = osr_party(tmp_path)
    window = laptop_window()
    session = window.session
    assert not session.rest_action.isEnabled()
    assert session.open_session_folder(tmp_path / "night")
    assert session.rest_action.isEnabled()
    dialog = RestDialog(window.party.roster, window)
    dialog.set_faces("3 2 3")
    stack = window.controller.undo_stack
    assert session.apply_rest(dialog)
    assert stack.text(stack.index() - 1) == "A day of rest"
    on_disk = load_roster(tmp_path / "night" / "party.lnlparty")
    assert on_disk.character("tombril").hp == 8 and on_disk.log[-1].kind == "A day of rest"
    log = window.controller.encounter.log[-1]
    assert "Tombril: HP 5 → 8" in str(log)
    stack.undo()
    back = load_roster(tmp_path / "night" / "party.lnlparty")
    assert back.character("tombril").hp == roster.character("tombril").hp == 5
    assert all(n.kind != "A day of rest" for n in back.log)


def test_no_rest_without_a_party_or_the_rules_for_it() -> None:
    assert no_rest_reason(None).startswith("Open or make a party first")
    assert no_rest_reason(new_roster("osr")) == "The party has no characters yet"
    with pytest.raises(RulesError, match="no characters"):
        RestDialog(new_roster("osr"))


def test_the_party_dock_has_a_rest_button_that_says_why_not(laptop_window: Any, tmp_path: Path) -> None:
    osr_party(tmp_path)
    window = laptop_window()
    window.docks["Party"].show()
    window.docks["Party"].raise_()
    button = window.docks["Party"].widget().rest_button
    assert not button.isEnabled()
    assert window.session.open_session_folder(tmp_path / "night")
    assert button.isEnabled()

"""The session in the window (RULES §16): the Session dock's encounters with the party's odds worked out on
a worker (worse after a wounding fight), Open session refusing a folder that names a file outside itself,
New session, the session log exported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot
from test_carry_on import NAMES, make_session

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.session.roster import load_roster
from lnl_desktop.paths import resource
from lnl_desktop.ui.docks.session import DEADLY_COLOR, WORKING
from lnl_desktop.ui.plumbing.session_odds import SESSION_FIGHTS


@pytest.fixture(autouse=True)
def warnings_said(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text, *a: said.append(text))
    return said


def odds_of(window: Any, qtbot: QtBot) -> dict[str, Any]:
    """The Session dock shown; its odds, once the worker has handed every encounter's back."""
    window.docks["Session"].show()
    window.docks["Session"].raise_()
    qtbot.waitUntil(lambda: window.session._odds is not None, timeout=5000)
    service = window.session._odds
    folder = window.party.session
    qtbot.waitUntil(
        lambda: not service.running and set(service.latest) == set(folder.session.encounters), timeout=60_000
    )
    return dict(service.latest)


def test_the_session_dock_lists_the_encounters_with_the_partys_odds(
    laptop_window: Any, qtbot: QtBot, tmp_path: Path
) -> None:
    folder = tmp_path / "night"
    make_session(folder)
    window = laptop_window()
    assert window.session.open_session_folder(folder)
    panel = window.session.panel()
    assert panel.name_label.text().startswith("Night one")
    assert [row[0] for row in panel.rows()] == list(NAMES)
    assert all(row[2] == WORKING for row in panel.rows())  # said at once, before the worker is done
    before = odds_of(window, qtbot)
    assert all(odds.fights == SESSION_FIGHTS for odds in before.values())
    rows = panel.rows()
    assert [state for _, state, _ in rows] == ["to come", "to come"]
    assert all(words.startswith("Party wins ") for _, _, words in rows)
    assert panel.item(NAMES[1]).toolTip(2).count("fights of the party as it stands now") == 1

    # A wounding fight carried on: the same giant is deadlier for the party as it stands now.
    assert window.session.open_encounter(NAMES[0])
    for cid in ("tombril", "janine", "cedryk"):
        c = window.controller.encounter.combatant(cid)
        assert window.controller.do(act.DamageByHand(cid, c.stamina - 1, reason="the rockslide")) is not None
    assert window.session.carry_on()
    after = odds_of(window, qtbot)
    assert after[NAMES[1]].party_wins < before[NAMES[1]].party_wins - 0.05
    assert [state for _, state, _ in panel.rows()] == ["open now", "to come"]
    # Below even odds: marked deadly, in red, the tooltip says why.
    assert after[NAMES[1]].party_wins < 0.5
    item = panel.item(NAMES[1])
    assert item.toolTip(2).startswith("Deadly") and item.foreground(2).color().name() == DEADLY_COLOR
    assert item.text(2).startswith(f"Party wins {100 * after[NAMES[1]].party_wins:.0f} % (±")


def test_an_encounter_that_cannot_be_read_says_why(laptop_window: Any, qtbot: QtBot, tmp_path: Path) -> None:
    folder = tmp_path / "night"
    make_session(folder)
    (folder / NAMES[1]).write_text("{ not json", encoding="utf-8")
    window = laptop_window()
    assert window.session.open_session_folder(folder)
    found = odds_of(window, qtbot)
    assert isinstance(found[NAMES[1]], str)
    assert window.session.panel().rows()[1][2].startswith("No odds: ")


def test_open_session_refuses_a_folder_naming_a_file_outside_it(
    laptop_window: Any, tmp_path: Path, warnings_said: list[str]
) -> None:
    folder = tmp_path / "night"
    make_session(folder)
    document = json.loads((folder / "session.json").read_text())
    document["session"]["encounters"] = ["../x.lnl"]
    (folder / "session.json").write_text(json.dumps(document))
    window = laptop_window()
    assert not window.session.open_session_folder(folder)
    assert "outside the session's folder" in window.session.last_refusal
    assert warnings_said == [window.session.last_refusal]
    assert window.party.session is None and window.party.roster is None
    assert not window.session.export_log_action.isEnabled()


def test_new_session_lists_the_folders_encounters_and_is_remembered(laptop_window: Any, tmp_path: Path) -> None:
    folder = tmp_path / "fresh"
    folder.mkdir()
    storage.save(storage.load(resource("encounters", "hill-giant.lnl")), folder / "giant.lnl")
    window = laptop_window()
    assert window.session.new_session_in(folder, "Night two")
    session = window.party.session
    assert session.session.name == "Night two" and session.session.encounters == ["giant.lnl"]
    assert load_roster(folder / "party.lnlparty").ruleset == window.controller.encounter.ruleset
    assert window.settings.value("session/folder") == str(session.folder)
    # Made twice: refused with the reason, nothing changed.
    assert not window.session.new_session_in(folder, "Again")
    assert "already holds a session" in window.session.last_refusal


def test_the_session_log_exported_as_markdown_and_html(laptop_window: Any, tmp_path: Path) -> None:
    folder = tmp_path / "night"
    make_session(folder)
    window = laptop_window()
    assert window.session.open_session_folder(folder) and window.session.open_encounter(NAMES[0])
    assert window.controller.do(act.DamageByHand("tombril", 7, reason="a boulder")) is not None
    assert window.session.carry_on()
    assert window.session.export_log_to(tmp_path / "night.md")
    markdown = (tmp_path / "night.md").read_text(encoding="utf-8")
    assert "## Fight: The Hill Giant at the Old Tower" in markdown
    assert "- Tombril: SP 55 → 48" in markdown
    assert window.session.export_log_to(tmp_path / "night.html")
    assert (tmp_path / "night.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")


def test_the_session_open_last_time_is_open_again(laptop_window: Any, qtbot: QtBot, tmp_path: Path) -> None:
    folder = tmp_path / "night"
    make_session(folder)
    first = laptop_window()
    assert first.session.open_session_folder(folder)
    first.close()
    again = laptop_window()  # the same settings: the next run
    qtbot.waitUntil(lambda: again.party.session is not None, timeout=5000)
    assert again.party.session.folder == first.party.session.folder
    assert again.session.export_log_action.isEnabled()


def test_a_demo_session_is_copied_out_and_a_copy_made_before_is_opened_as_left(
    laptop_window: Any, tmp_path: Path
) -> None:
    window = laptop_window()
    names = dict(window.session.demo_sessions())
    assert set(names) == {"lnl_old_tower", "osr_hobgoblin_ford", "d10_mill_road"}
    assert window.session.open_demo_session("lnl_old_tower", tmp_path)
    copy = tmp_path / "lnl_old_tower"
    assert window.party.session is not None and window.party.session.folder == copy.resolve()
    assert [c.name for c in window.party.roster.characters] == ["Tombril", "Cedryk the Sneaky", "Janine the Pious"]
    roster_file = copy / "party.lnlparty"
    text = roster_file.read_text(encoding="utf-8").replace('"Tombril"', '"Tombril the Tired"')
    roster_file.write_text(text, encoding="utf-8")  # the GM's night so far
    assert window.session.open_demo_session("lnl_old_tower", tmp_path)
    assert window.party.roster.characters[0].name == "Tombril the Tired"
    assert load_roster(resource("sessions", "lnl_old_tower", "party.lnlparty")).characters[0].name == "Tombril"

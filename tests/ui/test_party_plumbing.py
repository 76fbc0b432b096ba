"""The window's party: one undo step for the roster and the engine together, its file written at once,
and two windows on the same file never losing each other's work."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.session.roster import load_roster, noted, with_characters, without_character
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.party import ROSTER_KEY, WindowParty


def _window_party(tmp_path: Path, name: str = "settings.ini") -> tuple[TableController, WindowParty]:
    controller = TableController(storage.load(demo_encounter_path()))
    settings = QSettings(str(tmp_path / name), QSettings.Format.IniFormat)
    return controller, WindowParty(controller, settings)


def _hurt(c, by: int):
    """A copy of the L&L combatant ``c`` with ``by`` stamina less."""
    return c.model_copy(update={"stamina": c.stamina - by})


def test_add_character_links_it_and_undo_takes_both_back(qapp, tmp_path: Path) -> None:
    controller, party = _window_party(tmp_path)
    path = tmp_path / "party.lnlparty"
    assert party.new_roster(path) is None
    assert load_roster(path).characters == []
    first = controller.encounter.combatants[0]
    after = noted(with_characters(party.roster, [first]), "added", [f"{first.name}: taken in"])
    assert party.push(f"Add {first.name} to the party", after, actions=[act.LinkParty({first.id: 1})])
    on_disk = load_roster(path)
    assert [c.name for c in on_disk.characters] == [first.name]
    assert on_disk.version(first.id) == 1
    assert controller.encounter.party_links == {first.id: 1}
    controller.undo_stack.undo()
    assert load_roster(path).characters == []
    assert controller.encounter.party_links == {}
    assert load_roster(path).log == []
    controller.undo_stack.redo()
    assert [c.name for c in load_roster(path).characters] == [first.name]
    assert controller.encounter.party_links == {first.id: 1}


def test_refused_engine_action_changes_nothing(qapp, tmp_path: Path) -> None:
    controller, party = _window_party(tmp_path)
    path = tmp_path / "party.lnlparty"
    party.new_roster(path)
    first = controller.encounter.combatants[0]
    refusals: list[str] = []
    controller.refused.connect(refusals.append)
    after = with_characters(party.roster, [first])
    ok = party.push("Add", after, actions=[act.LinkParty({first.id: 1}), act.LinkParty({"nobody here": 1})])
    assert not ok and refusals
    assert controller.encounter.party_links == {}
    assert load_roster(path).characters == [] and party.roster.characters == []
    assert controller.undo_stack.count() == 0


def test_damaged_file_refused_with_reason_and_nothing_changed(qapp, tmp_path: Path) -> None:
    _, party = _window_party(tmp_path)
    good = tmp_path / "party.lnlparty"
    party.new_roster(good)
    bad = tmp_path / "bad.lnlparty"
    bad.write_text('{"format": "lnl-party", "version": 1, "roster": {"ruleset": "lnl", "characters": [3]}', "utf-8")
    reason = party.open_roster(bad)
    assert reason and "bad.lnlparty" in reason
    assert party.path == good
    assert party.settings.value(ROSTER_KEY) == str(good)


def test_remembered_roster_reopened_and_a_missing_one_said_once(qapp, tmp_path: Path) -> None:
    _, party = _window_party(tmp_path)
    path = tmp_path / "party.lnlparty"
    party.new_roster(path)
    _, again = _window_party(tmp_path)
    assert again.reopen() is None and again.path == path
    path.unlink()
    _, third = _window_party(tmp_path)
    problems: list[str] = []
    third.problem.connect(problems.append)
    assert third.reopen() and problems and "party.lnlparty" in problems[0]
    assert third.roster is None and not path.exists()
    _, fourth = _window_party(tmp_path)
    assert fourth.reopen() is None  # said once, not at every start


def test_second_window_does_not_lose_the_first_ones_change(qapp, tmp_path: Path) -> None:
    controller, one = _window_party(tmp_path, "one.ini")
    path = tmp_path / "party.lnlparty"
    one.new_roster(path)
    a, b = controller.encounter.combatants[:2]
    one.push("Add two", with_characters(one.roster, [a, b]))
    _, two = _window_party(tmp_path, "two.ini")
    assert two.open_roster(path) is None
    # The first window hurts A; the second, not knowing, hurts B.
    one.push("Edit A", with_characters(one.roster, [_hurt(a, 3)]))
    two.push("Edit B", with_characters(two.roster, [_hurt(b, 2)]))
    on_disk = load_roster(path)
    assert on_disk.character(a.id) == _hurt(a, 3)
    assert on_disk.character(b.id) == _hurt(b, 2)
    assert on_disk.version(a.id) == 2 and on_disk.version(b.id) == 2
    # The second window's undo takes back only its own change.
    two.controller.undo_stack.undo()
    on_disk = load_roster(path)
    assert on_disk.character(a.id) == _hurt(a, 3)
    assert on_disk.character(b.id) == b


def test_save_error_keeps_the_roster_in_memory(qapp, tmp_path: Path) -> None:
    controller, party = _window_party(tmp_path)
    folder = tmp_path / "gone"
    folder.mkdir()
    path = folder / "party.lnlparty"
    party.new_roster(path)
    path.unlink()
    folder.rmdir()
    problems: list[str] = []
    party.problem.connect(problems.append)
    first = controller.encounter.combatants[0]
    party.set_roster(with_characters(party.roster, [first]))
    assert problems and "could not be saved" in problems[0]
    assert [c.id for c in party.roster.characters] == [first.id]
    assert without_character(party.roster, first.id).characters == []

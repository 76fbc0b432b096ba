"""The party roster file and the session folder (issue 42): read back as written, a damaged or foreign
file refused with the reason and nothing changed, no name that leads outside the session's folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.session.folder import (
    SESSION_FILE,
    Session,
    SessionFileError,
    dumps_session,
    new_session,
    open_session,
)
from lnl_desktop.core.session.roster import (
    RosterFileError,
    dumps_roster,
    load_roster,
    new_roster,
    noted,
    save_roster,
    with_characters,
    without_character,
)
from lnl_desktop.paths import resource


def demo_party(ruleset: str = "lnl", file: str = "hill-giant.lnl") -> list:
    encounter = storage.load(resource("encounters", file))
    return [c for c in encounter.combatants if c.side.value == "Party"]


def test_a_roster_reads_back_as_written(tmp_path: Path) -> None:
    roster = with_characters(new_roster("lnl", "The Tower party"), demo_party())
    roster = noted(roster, "added", ["Tombril", "Cedryk the Sneaky", "Janine the Pious"])
    path = save_roster(roster, tmp_path / "party.lnlparty")
    again = load_roster(path)
    assert again == roster
    assert [c.name for c in again.characters] == ["Tombril", "Cedryk the Sneaky", "Janine the Pious"]
    assert again.version("tombril") == 1


def test_writing_a_character_raises_its_version_only(tmp_path: Path) -> None:
    roster = with_characters(new_roster("lnl"), demo_party())
    tombril = roster.character("tombril").model_copy(update={"injury": 7})
    later = with_characters(roster, [tombril])
    assert (later.version("tombril"), later.version("janine")) == (2, 1)
    assert later.character("tombril").injury == 7 and roster.character("tombril").injury != 7  # the old one kept
    gone = without_character(later, "janine")
    assert gone.character("janine") is None and "janine" not in gone.versions
    with pytest.raises(RulesError, match="not in the party"):
        without_character(gone, "janine")


def test_a_character_breaking_its_stat_block_is_refused_with_the_reason() -> None:
    roster = with_characters(new_roster("lnl"), demo_party())
    broken = roster.character("tombril").model_copy(update={"injury": 999})  # above its maximum
    with pytest.raises(RulesError, match="injury"):
        with_characters(roster, [broken])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{not json", "not valid JSON"),
        ('{"format": "lnl-encounter", "version": 1}', "not a Laurels & Loot party roster"),
        ('{"format": "lnl-party", "version": 99, "roster": {}}', "newer version"),
        ('{"format": "lnl-party", "version": 1, "roster": {"ruleset": "chess"}}', "chess"),
        ('{"format": "lnl-party", "version": 1}', "roster"),
    ],
)
def test_a_damaged_roster_is_refused_and_the_file_left_alone(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "party.lnlparty"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RosterFileError, match=reason):
        load_roster(path)
    assert path.read_text(encoding="utf-8") == text


def test_a_roster_with_a_bad_character_names_the_field(tmp_path: Path) -> None:
    roster = with_characters(new_roster("lnl"), demo_party())
    data = json.loads(dumps_roster(roster))
    data["roster"]["characters"][0]["level"] = "nine"
    path = tmp_path / "party.lnlparty"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RosterFileError, match="level"):
        load_roster(path)


def test_a_party_of_another_ruleset_is_refused_where_one_ruleset_is_asked(tmp_path: Path) -> None:
    path = save_roster(with_characters(new_roster("osr"), demo_party("osr", "goblin-ambush-osr.lnl")), tmp_path / "p")
    assert load_roster(path).ruleset == "osr"
    with pytest.raises(RosterFileError, match="Old-School d20.*Laurels & Loot"):
        load_roster(path, "lnl")


def session_folder(tmp_path: Path, encounters: list[str]) -> Path:
    folder = tmp_path / "night"
    folder.mkdir()
    save_roster(with_characters(new_roster("lnl"), demo_party()), folder / "party.lnlparty")
    storage.save(storage.load(resource("encounters", "hill-giant.lnl")), folder / "01-giant.lnl")
    (folder / SESSION_FILE).write_text(dumps_session(Session(name="Night one", encounters=encounters)))
    return folder


def test_a_session_folder_opens_with_its_roster_and_encounters(tmp_path: Path) -> None:
    folder = open_session(session_folder(tmp_path, ["01-giant.lnl"]))
    assert folder.ruleset == "lnl" and folder.session.name == "Night one"
    assert folder.load_roster().character("tombril") is not None
    assert folder.load_encounter("01-giant.lnl").name == "The Hill Giant at the Old Tower"
    assert folder.next_encounter(set()) == "01-giant.lnl" and folder.next_encounter({"01-giant.lnl"}) is None


@pytest.mark.parametrize("name", ["../outside.lnl", "/etc/passwd", "sub/../../x.lnl"])
def test_a_session_naming_a_file_outside_its_folder_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(SessionFileError, match="outside the session's folder"):
        open_session(session_folder(tmp_path, ["01-giant.lnl", name]))


def test_a_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.lnl"
    storage.save(storage.load(resource("encounters", "hill-giant.lnl")), outside)
    folder = session_folder(tmp_path, ["01-giant.lnl", "linked.lnl"])
    os.symlink(outside, folder / "linked.lnl")
    with pytest.raises(SessionFileError, match="leads outside"):
        open_session(folder)


def test_an_encounter_of_another_ruleset_is_refused_when_used(tmp_path: Path) -> None:
    folder = session_folder(tmp_path, ["01-giant.lnl", "mill.lnl"])
    storage.save(storage.load(resource("encounters", "bandit-mill-d10.lnl")), folder / "mill.lnl")
    session = open_session(folder)
    with pytest.raises(SessionFileError, match="Group d10 encounter"):
        session.load_encounter("mill.lnl")


def test_a_folder_without_a_session_and_a_damaged_session_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError, match="not a session folder"):
        open_session(tmp_path)
    folder = session_folder(tmp_path, ["01-giant.lnl"])
    (folder / SESSION_FILE).write_text('{"format": "lnl-session", "version": 1, "session": {"encounters": 5}}')
    with pytest.raises(SessionFileError, match="encounters"):
        open_session(folder)


def test_a_new_session_lists_the_folders_encounters_and_an_empty_party(tmp_path: Path) -> None:
    storage.save(storage.load(resource("encounters", "hill-giant.lnl")), tmp_path / "b.lnl")
    storage.save(storage.load(resource("encounters", "hill-giant.lnl")), tmp_path / "a.lnl")
    made = new_session(tmp_path, "lnl", "Tonight")
    assert made.session.encounters == ["a.lnl", "b.lnl"] and made.load_roster().characters == []
    with pytest.raises(SessionFileError, match="already holds a session"):
        new_session(tmp_path, "lnl")


@pytest.mark.parametrize("name", ["lnl_old_tower", "osr_hobgoblin_ford", "d10_mill_road"])
def test_each_demo_session_opens_with_its_party_and_two_encounters(name: str) -> None:
    folder = open_session(resource("sessions", name))
    roster = folder.load_roster()
    assert len(roster.characters) >= 3 and len(folder.session.encounters) == 2
    for encounter_name in folder.session.encounters:
        encounter = folder.load_encounter(encounter_name)
        assert encounter.map.start_cells, f"{encounter_name} has no Party start cells"
        assert not {c.id for c in roster.characters} & {c.id for c in encounter.combatants}


def test_the_odds_command_prints_a_sessions_table_and_its_json(capsys: pytest.CaptureFixture[str]) -> None:
    from lnl_desktop.odds_cli import run

    folder = str(resource("sessions", "lnl_old_tower"))
    assert run([folder, "--fights", "300", "--seed", "2"]) == 0
    text = capsys.readouterr().out
    assert "01-hill-giant.lnl" in text and "02-tower-cellar.lnl" in text and "Party wins" in text
    assert run([folder, "--fights", "300", "--seed", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["encounter"] for e in data["encounters"]] == ["01-hill-giant.lnl", "02-tower-cellar.lnl"]
    assert 0 <= data["encounters"][0]["odds"]["party_wins"] <= 1


def test_the_odds_command_refuses_a_damaged_session_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lnl_desktop.odds_cli import run

    folder = session_folder(tmp_path, ["01-giant.lnl"])
    (folder / "party.lnlparty").write_text("{broken", encoding="utf-8")
    assert run([str(folder)]) == 2
    assert "party.lnlparty is not valid JSON" in capsys.readouterr().err

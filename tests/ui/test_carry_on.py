"""End fight and carry on in the window (RULES §16): a character hurt in one fight arrives hurt in the
next, one undo takes back the roster file and the encounter together, and a conflict is asked."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.files import storage
from lnl_desktop.core.session.folder import new_session
from lnl_desktop.core.session.party import Conflict
from lnl_desktop.core.session.roster import Roster, load_roster, new_roster, save_roster, with_characters
from lnl_desktop.paths import resource
from lnl_desktop.ui.dialogs.carry_on import ConflictsDialog

NAMES = ("01-road.lnl", "02-giant.lnl")


def make_session(
    folder: Path, demo: str = "hill-giant.lnl", names: Sequence[str] = NAMES, change: dict[str, Any] | None = None
) -> Roster:
    """A session folder from a demo: its Party in the roster (each changed by ``change``: {id: fields}),
    its Opponents alone in each encounter of ``names``."""
    encounter = storage.load(resource("encounters", demo))
    party = [c for c in encounter.combatants if c.side is Side.PARTY]
    ids = {c.id for c in party}
    data = encounter.model_dump(mode="json")
    data["combatants"] = [c for c in data["combatants"] if c["id"] not in ids]
    data["tokens"] = {cid: t for cid, t in data["tokens"].items() if cid not in ids}
    bare = type(encounter).model_validate(data)
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        storage.save(bare, folder / name)
    party = [c.model_copy(update=(change or {}).get(c.id, {})) for c in party]
    roster = with_characters(new_roster(encounter.ruleset, "The party"), party)
    save_roster(roster, folder / "party.lnlparty")
    new_session(folder, encounter.ruleset, "Night one", list(names))
    return roster


@pytest.fixture(autouse=True)
def no_warning_boxes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text, *a: said.append(text))
    return said


def test_a_character_hurt_in_one_fight_arrives_hurt_in_the_next(laptop_window: Any, tmp_path: Path) -> None:
    folder = tmp_path / "night"
    roster = make_session(folder)
    window = laptop_window()
    session = window.session
    assert not session.carry_on_action.isEnabled()
    assert "No party" in session.carry_on_action.toolTip()
    assert session.open_session_folder(folder)
    assert session.open_encounter(NAMES[0])
    encounter = window.controller.encounter
    assert set(encounter.party_links) == {c.id for c in roster.characters}
    assert session.carry_on_action.isEnabled()
    stamina = encounter.combatant("tombril").stamina
    assert window.controller.do(act.DamageByHand("tombril", 20, reason="a boulder")) is not None
    hurt = window.controller.encounter.combatant("tombril").stamina
    assert hurt < stamina

    assert session.carry_on()
    on_disk = load_roster(folder / "party.lnlparty")
    assert on_disk.character("tombril").stamina == hurt
    assert on_disk.log[-1].kind == "carried on" and on_disk.log[-1].fight == NAMES[0]
    assert any(line.startswith("Tombril:") for line in session.summary_box.informativeText().splitlines())
    assert window.controller.undo_stack.text(window.controller.undo_stack.index() - 1) == "Carry the party on"

    # One undo: the roster file as it was, the encounter's links back at their old versions.
    links = dict(window.controller.encounter.party_links)
    window.controller.undo_stack.undo()
    back = load_roster(folder / "party.lnlparty")
    assert back.character("tombril").stamina == stamina
    assert all(n.kind != "carried on" for n in back.log)
    assert window.controller.encounter.party_links["tombril"] == roster.version("tombril")
    window.controller.undo_stack.redo()
    assert load_roster(folder / "party.lnlparty").character("tombril").stamina == hurt
    assert window.controller.encounter.party_links == links

    # The next fight: Tombril arrives as the last one left him; the first is played.
    assert session.open_next()
    assert window.document.path.name == NAMES[1]
    assert window.controller.encounter.combatant("tombril").stamina == hurt
    panel = session.panel()
    assert [(name, state) for name, state, _ in panel.rows()] == [(NAMES[0], "played"), (NAMES[1], "open now")]


@pytest.mark.parametrize("fight_wins", [True, False])
def test_a_conflict_is_asked_and_the_chosen_state_wins(laptop_window: Any, tmp_path: Path, fight_wins: bool) -> None:
    folder = tmp_path / "night"
    make_session(folder)
    window = laptop_window()
    session = window.session
    assert session.open_session_folder(folder)
    assert session.open_encounter(NAMES[0])
    assert window.controller.do(act.DamageByHand("tombril", 20, reason="a boulder")) is not None
    in_fight = window.controller.encounter.combatant("tombril").stamina
    # Meanwhile the roster wrote Tombril (another fight carried on first): a newer version.
    roster = window.party.roster
    elsewhere = roster.character("tombril").model_copy(update={"stamina": 3})
    window.party.set_roster(with_characters(roster, [elsewhere]))
    asked: list[tuple[Conflict, ...]] = []

    def answer(conflicts: Sequence[Conflict], fight: str) -> dict[str, bool]:
        asked.append(tuple(conflicts))
        return {c.cid: fight_wins for c in conflicts}

    session.ask_conflicts = answer
    assert session.carry_on()
    assert [c.cid for c in asked[0]] == ["tombril"]
    assert asked[0][0].words().startswith("Tombril changed in the party roster after this fight brought them in")
    on_disk = load_roster(folder / "party.lnlparty").character("tombril")
    assert on_disk.stamina == (in_fight if fight_wins else 3)


def test_conflicts_left_unanswered_change_nothing(laptop_window: Any, tmp_path: Path) -> None:
    folder = tmp_path / "night"
    make_session(folder)
    window = laptop_window()
    session = window.session
    assert session.open_session_folder(folder) and session.open_encounter(NAMES[0])
    roster = window.party.roster
    window.party.set_roster(with_characters(roster, [roster.character("tombril").model_copy(update={"stamina": 3})]))
    before = (folder / "party.lnlparty").read_text()
    steps = window.controller.undo_stack.count()
    session.ask_conflicts = lambda conflicts, fight: None
    assert not session.carry_on()
    assert (folder / "party.lnlparty").read_text() == before
    assert window.controller.undo_stack.count() == steps


def test_the_conflicts_dialog_says_each_and_gives_the_choice(qtbot: QtBot) -> None:
    conflicts = [
        Conflict("tombril", "Tombril", 1, 2, "carried on (goblins.lnl)"),
        Conflict("janine", "Janine", 1, 3, "A day of rest"),
    ]
    dialog = ConflictsDialog(conflicts, "giant.lnl")
    qtbot.addWidget(dialog)
    assert dialog.decided() == {"tombril": True, "janine": True}  # what the GM just played, by default
    dialog.choose("janine", False)
    assert dialog.decided() == {"tombril": True, "janine": False}
    assert conflicts[0].words() == (
        "Tombril changed in the party roster after this fight brought them in (carried on (goblins.lnl))"
    )


def test_one_side_out_offers_to_carry_on_once_and_the_fight_ends_with_it(laptop_window: Any, tmp_path: Path) -> None:
    folder = tmp_path / "night"
    make_session(folder)
    window = laptop_window()
    session = window.session
    assert session.open_session_folder(folder) and session.open_encounter(NAMES[0])
    controller = window.controller
    assert controller.do(act.StartCombat(face=5)) is not None, controller.refusal
    opponents = [c.id for c in controller.encounter.combatants if c.side is Side.OPPONENTS]
    for cid in opponents[:-1]:
        assert controller.do(act.DamageByHand(cid, 999, reason="the rockslide")) is not None
    assert session.side_out() == "" and session._offer is None  # one still stands
    assert controller.do(act.DamageByHand(opponents[-1], 999, reason="the rockslide")) is not None
    assert session.side_out() == "Opponents"
    bar = session.offer_bar()
    assert bar.isVisible() and bar.words.text() == "The Opponents are out of the fight."
    bar.hide()
    assert controller.do(act.DamageByHand("tombril", 1, reason="a splinter")) is not None
    assert not bar.isVisible()  # offered once per fight
    bar.button.click()
    assert controller.encounter.combat.phase.value == "ended"
    assert load_roster(folder / "party.lnlparty").log[-1].kind == "carried on"
    controller.undo_stack.undo()  # the fight goes on, the roster as it was
    assert controller.encounter.combat.phase.value == "fighting"
    assert all(n.kind != "carried on" for n in load_roster(folder / "party.lnlparty").log)


def test_a_fight_carried_on_in_another_window_is_asked_about_never_overwritten(
    laptop_window: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "night"
    make_session(folder)
    first, second = laptop_window(), laptop_window()
    for window, name in ((first, NAMES[0]), (second, NAMES[1])):
        assert window.session.open_session_folder(folder)
        assert window.session.open_encounter(name)
    assert first.controller.do(act.DamageByHand("tombril", 20, reason="a boulder")) is not None
    assert second.controller.do(act.DamageByHand("tombril", 5, reason="a dart")) is not None
    assert first.session.carry_on()
    boulder = load_roster(folder / "party.lnlparty").character("tombril").stamina
    asked: list[list[str]] = []
    second.session.ask_conflicts = lambda conflicts, fight: asked.append([c.cid for c in conflicts])  # type: ignore[func-returns-value]
    assert not second.session.carry_on()  # left unanswered: nothing written
    assert asked == [["tombril"]]
    assert load_roster(folder / "party.lnlparty").character("tombril").stamina == boulder
    second.session.ask_conflicts = lambda conflicts, fight: {"tombril": True}  # this fight's state wins
    assert second.session.carry_on()
    dart = second.controller.encounter.combatant("tombril").stamina
    assert load_roster(folder / "party.lnlparty").character("tombril").stamina == dart != boulder

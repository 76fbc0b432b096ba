"""The encounter's marks of the party roster (RULES §16): which combatants are roster characters and at
which roster version, the log's lines for the party, and the party's start cells on the map."""

from __future__ import annotations

import json

import pytest

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import CombatantAdded, PartyLinked, PartyNoted
from lnl_desktop.core.encounter.map_model import MAX_START_CELLS, MapGrid
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.files import export, storage
from lnl_desktop.core.files.journal import action_from_json, action_to_json
from lnl_desktop.core.files.storage import EncounterFileError
from lnl_desktop.core.rules.lnl.model import Encounter
from lnl_desktop.paths import demo_encounter_path

TOMBRIL = "tombril"
GIANT = "hill-giant"


@pytest.fixture
def demo() -> Encounter:
    return storage.load(demo_encounter_path())


@pytest.fixture
def engine(demo: Encounter) -> Engine:
    return Engine(demo)


def _document(encounter: Encounter) -> dict:
    return storage.to_document(encounter)


def _mirela(engine: Engine) -> dict:
    """A new Party character's sheet (Tombril's numbers under another name)."""
    return engine.combatant(TOMBRIL).model_dump(exclude={"id"}) | {"name": "Mirela"}


# -- the links ---------------------------------------------------------------------------------


def test_an_old_file_without_links_or_start_cells_loads(demo: Encounter) -> None:
    document = _document(demo)
    document["encounter"].pop("party_links", None)
    document["encounter"]["map"].pop("start_cells", None)
    loaded = storage.loads(json.dumps(document))
    assert loaded.party_links == {}
    assert loaded.map.start_cells == frozenset()


def test_links_and_start_cells_are_saved_and_read_back(engine: Engine) -> None:
    engine.apply(act.LinkParty({TOMBRIL: 4}))
    engine.apply(act.EditMap({"start_cells": [(1, 14), (2, 14)]}))
    again = storage.loads(storage.dumps(engine.encounter))
    assert again.party_links == {TOMBRIL: 4}
    assert again.map.start_cells == {(1, 14), (2, 14)}


def test_a_file_linking_a_missing_combatant_is_refused(demo: Encounter) -> None:
    document = _document(demo)
    document["encounter"]["party_links"] = {"ghost": 1}
    with pytest.raises(EncounterFileError, match="party_links.ghost: no combatant has this id"):
        storage.loads(json.dumps(document))


def test_a_file_with_a_negative_roster_version_is_refused(demo: Encounter) -> None:
    document = _document(demo)
    document["encounter"]["party_links"] = {TOMBRIL: -1}
    with pytest.raises(EncounterFileError, match=r"party_links\.tombril"):
        storage.loads(json.dumps(document))


def test_a_party_character_brought_in_is_linked_in_the_same_step(engine: Engine) -> None:
    steps = len(engine._undo)
    events = engine.apply(act.AddCombatant(_mirela(engine), cell=(1, 14), roster_version=3))
    added = next(e for e in events if isinstance(e, CombatantAdded))
    assert engine.encounter.party_links == {added.combatant: 3}
    assert "from the party roster" in added.text
    assert len(engine._undo) == steps + 1
    engine.undo()
    assert engine.encounter.party_links == {}
    assert all(c.name != "Mirela" for c in engine.encounter.combatants)
    engine.redo()
    assert engine.encounter.party_links == {added.combatant: 3}


def test_a_bad_roster_version_adds_nobody(engine: Engine) -> None:
    before = len(engine.encounter.combatants)
    for bad in (-1, True, "3"):
        with pytest.raises(IllegalAction, match="roster version"):
            engine.apply(act.AddCombatant(_mirela(engine), roster_version=bad))  # type: ignore[arg-type]
    assert len(engine.encounter.combatants) == before
    assert engine.encounter.party_links == {}


def test_link_party_sets_changes_and_clears(engine: Engine) -> None:
    events = engine.apply(act.LinkParty({TOMBRIL: 1, "janine": 2}))
    assert engine.encounter.party_links == {TOMBRIL: 1, "janine": 2}
    assert [type(e) for e in events] == [PartyLinked, PartyLinked]
    assert "Tombril is a party roster character (roster version 1)" in events[0].text
    events = engine.apply(act.LinkParty({TOMBRIL: 2, "janine": None}))
    assert engine.encounter.party_links == {TOMBRIL: 2}
    assert "Tombril's party roster version 1 → 2" in events[0].text
    assert "no longer linked" in events[1].text
    engine.undo()
    assert engine.encounter.party_links == {TOMBRIL: 1, "janine": 2}
    engine.undo()
    assert engine.encounter.party_links == {}


def test_link_party_refuses_what_it_cannot_do_and_changes_nothing(engine: Engine) -> None:
    engine.apply(act.LinkParty({TOMBRIL: 1}))
    log = len(engine.encounter.log)
    with pytest.raises(IllegalAction, match="there is no combatant 'ghost'"):
        engine.apply(act.LinkParty({"janine": 1, "ghost": 1}))
    with pytest.raises(IllegalAction, match="not linked to the party roster"):
        engine.apply(act.LinkParty({"janine": None}))
    with pytest.raises(IllegalAction, match="already linked to the party roster at version 1"):
        engine.apply(act.LinkParty({TOMBRIL: 1}))
    with pytest.raises(IllegalAction, match="no combatant named"):
        engine.apply(act.LinkParty({}))
    assert engine.encounter.party_links == {TOMBRIL: 1}
    assert len(engine.encounter.log) == log


def test_a_removed_combatant_loses_its_link_and_undo_brings_both_back(engine: Engine) -> None:
    engine.apply(act.LinkParty({TOMBRIL: 5, "janine": 2}))
    engine.apply(act.RemoveCombatant(TOMBRIL))
    assert engine.encounter.party_links == {"janine": 2}
    storage.loads(storage.dumps(engine.encounter))  # still a file that loads
    engine.undo()
    assert engine.encounter.party_links == {TOMBRIL: 5, "janine": 2}
    assert any(c.id == TOMBRIL for c in engine.encounter.combatants)


def test_converting_the_ruleset_drops_the_links_and_says_so(engine: Engine) -> None:
    engine.apply(act.LinkParty({TOMBRIL: 5}))
    events = engine.apply(act.ConvertRuleset("osr"))
    assert engine.encounter.party_links == {}
    assert "1 party roster link dropped" in events[0].text
    engine.undo()
    assert engine.encounter.party_links == {TOMBRIL: 5}


def test_an_edit_touches_only_the_links_part(engine: Engine) -> None:
    engine.apply(act.LinkParty({TOMBRIL: 5}))
    assert engine.touched.parts == {"party_links"}
    assert engine.touched.combatants == frozenset()


# -- the party's log line ---------------------------------------------------------------------------


def test_a_party_note_logs_one_line_and_changes_nothing_else(engine: Engine) -> None:
    before = engine.encounter.model_dump(exclude={"log"})
    lines = ("Tombril: IP 12 → 7, wounded", "Janine: shield destroyed")
    events = engine.apply(act.PartyNote("carried on", lines))
    assert len(events) == 1 and isinstance(events[0], PartyNoted)
    note = events[0]
    assert note.text == "The party carried on: Tombril: IP 12 → 7, wounded; Janine: shield destroyed"
    assert note.details() == "Tombril: IP 12 → 7, wounded\nJanine: shield destroyed"
    assert engine.encounter.model_dump(exclude={"log"}) == before
    assert engine.encounter.log[-1] is note
    engine.undo()
    assert not any(isinstance(e, PartyNoted) for e in engine.encounter.log)


def test_a_party_note_after_the_fight_is_in_the_saved_file_and_the_export(engine: Engine) -> None:
    engine.start_combat()
    engine.apply(act.EndCombat())
    engine.apply(act.PartyNote("rest", ("Tombril: SP 20 → 55",)))
    again = storage.loads(storage.dumps(engine.encounter))
    assert isinstance(again.log[-1], PartyNoted) and again.log[-1].lines == ("Tombril: SP 20 → 55",)
    assert "The party rested: Tombril: SP 20 → 55" in export.to_markdown(again)
    assert "The party rested" in export.to_html(again)


def test_a_long_note_is_cut_short_in_its_line_but_whole_in_its_details(engine: Engine) -> None:
    lines = tuple(f"Character {n}: IP 12 → 7, wounded, shield destroyed" for n in range(100))
    note = engine.apply(act.PartyNote("carried on", lines))[0]
    assert len(note.text) < 800 and note.text.endswith("more")
    assert note.details().count("\n") == 99


def test_a_bad_party_note_is_refused(engine: Engine) -> None:
    log = len(engine.encounter.log)
    with pytest.raises(IllegalAction, match="say what happened"):
        engine.apply(act.PartyNote("  ", ("x",)))
    with pytest.raises(IllegalAction, match="at most 300"):
        engine.apply(act.PartyNote("rest", tuple("x" for _ in range(301))))
    with pytest.raises(IllegalAction, match="line 2 is longer than 300"):
        engine.apply(act.PartyNote("rest", ("ok", "x" * 301)))
    assert len(engine.encounter.log) == log


def test_the_new_actions_go_through_the_journal_and_back() -> None:
    for action in (
        act.AddCombatant({"name": "Mirela", "side": "Party"}, cell=(1, 2), roster_version=7),
        act.LinkParty({"tombril": 3, "janine": None}),
        act.PartyNote("carried on", ("Tombril: IP 12 → 7", "Janine: shield destroyed")),
        act.EditMap({"start_cells": [[1, 2], [3, 4]]}),  # as JSON gives cells
    ):
        written = json.loads(json.dumps(action_to_json(action)))
        assert action_from_json(written) == action


def test_a_journal_line_with_a_bad_party_note_is_refused() -> None:
    with pytest.raises(RulesError, match="PartyNote"):
        action_from_json({"type": "PartyNote", "kind": "rest", "lines": 5})


# -- the party's start cells ------------------------------------------------------------------------


def test_start_cells_are_checked_like_the_other_cells() -> None:
    with pytest.raises(ValueError, match=r"start_cells: cell \(5, 0\) is outside the 5 x 5 map"):
        MapGrid(width=5, height=5, start_cells=frozenset({(5, 0)}))
    with pytest.raises(ValueError, match=r"start_cells: cell \(1, 1\) is a wall"):
        MapGrid(width=5, height=5, walls=frozenset({(1, 1)}), start_cells=frozenset({(1, 1)}))
    many = frozenset((x, y) for x in range(30) for y in range(30))
    with pytest.raises(ValueError, match=f"most a map may have is {MAX_START_CELLS}"):
        MapGrid(width=30, height=30, start_cells=many)


def test_start_cells_are_edited_undone_and_kept_on_a_smaller_map(engine: Engine) -> None:
    grid = engine.encounter.map
    events = engine.apply(act.EditMap({"start_cells": [(1, 14), (grid.width - 1, 0)]}))
    assert engine.encounter.map.start_cells == {(1, 14), (grid.width - 1, 0)}
    assert "party start cells 2" in events[0].text
    engine.apply(act.EditMap({"width": grid.width - 1}))
    assert engine.encounter.map.start_cells == {(1, 14)}  # the one off the smaller map is dropped
    engine.undo()
    engine.undo()
    assert engine.encounter.map.start_cells == frozenset()


def test_a_start_cell_on_a_wall_is_refused_and_a_painted_wall_clears_it(engine: Engine) -> None:
    wall = next(iter(engine.encounter.map.walls))
    with pytest.raises(RulesError, match="is a wall"):
        engine.apply(act.EditMap({"start_cells": [wall]}))
    engine.apply(act.EditMap({"start_cells": [(1, 14), (2, 14)]}))
    events = engine.apply(act.PaintTerrain("walls", ((1, 14),)))
    assert engine.encounter.map.start_cells == {(2, 14)}
    assert "1 party start cell cleared" in events[0].text
    storage.loads(storage.dumps(engine.encounter))  # a file that loads
    engine.undo()
    assert engine.encounter.map.start_cells == {(1, 14), (2, 14)}

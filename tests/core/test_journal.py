"""The recovery journal: whatever was applied, undone or redone comes back exactly from disk."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import actions, arena

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import Background
from lnl_desktop.core.encounter.model import ConditionDuration, DurationKind, Side
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import journal as journal_module
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import Journal, Recovered, action_from_json, action_to_json, recover
from lnl_desktop.core.rules.lnl.model import Attack, AttackMode, CastSpell, Dash, Leap, Parry, SurpriseSituation
from lnl_desktop.paths import demo_encounter_path

EVERY_ACTION = [
    act.StartCombat(SurpriseSituation.REVERSE, None, Side.OPPONENTS, Side.PARTY),
    act.NextRound(4),
    act.EndCombat(),
    act.BeginTurn("ana"),
    act.EndTurn(),
    act.Move("ana", to=(2, 3), path=((1, 1), (2, 2), (2, 3)), forced=True),
    act.Face("ana", 135),
    act.SetHidden("orc", True),
    Attack("ana", "orc", "Sword", AttackMode.SNEAK, ignore_dex=True, override=True),
    CastSpell("cy", "orc", "Fire", ignore_dex=True),
    Parry("bo", weapon=None, shield=True),
    Dash("ana"),
    Leap("ana"),
    act.OtherAction("ana", "grapple the orc"),
    act.EditCombatant("ana", {"level": 3, "conditions": ["prone"], "concealed": True}),
    act.AddCombatant({"name": "Wolf", "side": "Opponents", "level": 2}, cell=(4, 5), facing=90),
    act.RemoveCombatant("gob"),
    act.PlaceToken("gob", (6, 5), 270),
    act.RemoveToken("gob"),
    act.PaintTerrain("walls", ((1, 2), (2, 2)), on=False),
    act.EditMap({"width": 30, "diagonal": "euclidean"}),
    act.EditOptions({"dash_moves": 1.5}),
    act.SetCondition("orc", "stunned", duration=ConditionDuration(kind=DurationKind.ROUNDS, rounds=2)),
    act.SetCondition("orc", "charmed", duration=ConditionDuration(kind=DurationKind.START_OF_TURN_OF, creature="cy")),
    act.SetCondition("orc", "stunned", on=False),
]


def test_every_action_the_engine_takes_can_be_journaled() -> None:
    # An action the journal cannot name is work lost at the next crash: recovery stops at it.
    unnamed = sorted(cls.__name__ for cls in Engine._handlers if cls not in journal_module.ACTION_TYPES.values())
    assert unnamed == []


@pytest.mark.parametrize("action", EVERY_ACTION, ids=lambda a: type(a).__name__)
def test_every_kind_of_action_is_written_and_read_back_the_same(action: act.Action) -> None:
    line = json.loads(json.dumps(action_to_json(action)))
    assert action_from_json(line) == action


def test_a_map_edit_with_a_background_comes_back_as_the_same_map() -> None:
    engine = Engine(storage.load(demo_encounter_path()))
    picture = Background(image="cave.png", cell_px=70, offset_x=3)
    engine.apply(act.EditMap({"background": picture}))
    again = Engine(storage.load(demo_encounter_path()))
    again.apply(action_from_json(json.loads(json.dumps(action_to_json(act.EditMap({"background": picture}))))))
    assert again.encounter.map == engine.encounter.map


def test_a_line_that_is_not_an_action_is_refused_with_the_reason() -> None:
    with pytest.raises(RulesError, match="unknown action"):
        action_from_json({"type": "Teleport"})
    with pytest.raises(RulesError, match="Move"):
        action_from_json({"type": "Move", "combatant": "ana", "to": "north"})


def journaled(folder: Path, seed: int = 1) -> tuple[Engine, Journal]:
    engine = arena(seed)
    journal = Journal(folder)
    journal.reset(engine.encounter, None, unsaved=False)
    engine.subscribe_history(lambda step: journal.record(step, engine.encounter))
    return engine, journal


def test_nothing_is_written_until_the_first_change(tmp_path: Path) -> None:
    engine, _ = journaled(tmp_path / "w")
    assert recover(tmp_path / "w") is None
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 3))
    found = recover(tmp_path / "w")
    assert found is not None and found.changes == 1
    assert found.encounter.model_dump() == engine.encounter.model_dump()


def test_a_fight_with_undo_and_redo_across_snapshots_comes_back_exactly(tmp_path: Path) -> None:
    engine, journal = journaled(tmp_path / "w")
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 5))
    engine.apply(act.BeginTurn("ana"))
    engine.apply(act.Move("ana", to=(1, 2)))
    # A snapshot, as the window makes every few seconds; then undo reaches back past it.
    journal.reset(engine.encounter, None, unsaved=True)
    engine.apply(act.Face("ana", 180))
    engine.undo()
    engine.undo()  # the move: before this generation began, so the whole state is written
    engine.redo()
    engine.apply(Attack("ana", "orc", engine.encounter.combatant("ana").weapons[0].name))
    found = recover(tmp_path / "w")
    assert found is not None and found.problem == ""
    assert found.encounter.model_dump() == engine.encounter.model_dump()


def test_a_condition_with_its_duration_and_its_ending_come_back_from_the_journal(tmp_path: Path) -> None:
    engine, _ = journaled(tmp_path / "w")
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 5))
    engine.apply(act.SetCondition("ana", "stunned", duration=ConditionDuration(kind=DurationKind.ROUNDS, rounds=1)))
    engine.apply(act.BeginTurn("ana"))
    engine.apply(act.EndTurn())  # its turn ends: the stun's one round is over
    assert not engine.encounter.combatant("ana").has_condition("stunned")
    engine.undo()
    found = recover(tmp_path / "w")
    assert found is not None and found.problem == ""
    assert found.encounter.model_dump() == engine.encounter.model_dump()
    assert found.encounter.combatant("ana").durations["stunned"].rounds == 1


def test_a_torn_last_line_is_skipped_and_a_bad_middle_line_stops_the_replay_with_a_reason(tmp_path: Path) -> None:
    engine, _ = journaled(tmp_path / "w")
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 5))
    after_first = engine.encounter.model_dump()
    engine.apply(act.BeginTurn("ana"))
    lines = next((tmp_path / "w").glob("journal-*.jsonl"))
    text = lines.read_bytes()
    lines.write_bytes(text[:-9])  # a kill in the middle of writing the last line
    found = recover(tmp_path / "w")
    assert found is not None and found.changes == 1 and found.problem == ""
    assert found.encounter.model_dump() == after_first

    first, second = text.splitlines()
    lines.write_bytes(b"{garbage\n" + first + b"\n" + second + b"\n")
    found = recover(tmp_path / "w")
    assert found is not None and found.changes == 0
    assert "line 1" in found.problem


def test_a_corrupt_meta_file_does_not_cost_the_work(tmp_path: Path) -> None:
    engine, _ = journaled(tmp_path / "w")
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 5))
    engine.apply(act.BeginTurn("ana"))
    (tmp_path / "w" / "meta.json").write_text('{"generat', encoding="utf-8")
    found = recover(tmp_path / "w")
    assert found is not None
    assert found.encounter.model_dump() == engine.encounter.model_dump()


# -- files that are not files: a pipe, a device or a folder in a recovery folder ---------------------

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="pipes (FIFOs) are a POSIX thing")


def recover_within(folder: Path, seconds: float = 10.0) -> Recovered | None:
    """``recover(folder)``, failing the test if it has not returned within ``seconds``."""
    result: list[Recovered | None] = []
    worker = threading.Thread(target=lambda: result.append(recover(folder)), daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        # A reader blocked on a pipe: open its other end so that it returns, and say so.
        for path in folder.iterdir():
            if path.is_fifo():
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(5)
        pytest.fail(f"recover() was still reading {folder} after {seconds} s")
    return result[0]


def plant(path: Path, what: str) -> None:
    """Put ``what`` where a file of the recovery folder was."""
    path.unlink()
    if what == "pipe":
        os.mkfifo(path)
    elif what == "folder":
        path.mkdir()
        (path / "inside.txt").write_text("not a journal", encoding="utf-8")
    elif what == "link to a pipe":
        os.mkfifo(path.with_name("elsewhere"))
        path.symlink_to(path.with_name("elsewhere"))
    elif what == "link to a device":
        path.symlink_to(os.devnull)


@posix_only
@pytest.mark.parametrize(
    ("part", "what", "words"),
    [
        ("journal-1.jsonl", "pipe", "a pipe (FIFO)"),
        ("journal-1.jsonl", "folder", "a folder"),
        ("journal-1.jsonl", "link to a pipe", "a pipe (FIFO)"),
        ("journal-1.jsonl", "link to a device", "a device"),
        ("meta.json", "pipe", "a pipe (FIFO)"),
        ("meta.json", "folder", "a folder"),
        ("meta.json", "link to a device", "a device"),
        ("base-1.lnl", "pipe", "a pipe (FIFO)"),
        ("base-1.lnl", "link to a device", "a device"),
    ],
)
def test_a_pipe_device_or_folder_in_a_recovery_folder_is_named_with_the_reason_and_never_waited_on(
    tmp_path: Path, part: str, what: str, words: str
) -> None:
    folder = tmp_path / "w"
    engine, journal = journaled(folder)
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 5))
    engine.apply(act.BeginTurn("ana"))
    journal.close(keep=True)
    plant(folder / part, what)

    found = recover_within(folder)

    assert found is not None
    assert part in found.unread
    assert words in found.reasons[part]
    assert part in found.problem and words in found.problem
    if part == "meta.json":  # the work itself is whole
        assert found.encounter is not None and found.encounter.model_dump() == engine.encounter.model_dump()
    elif part == "journal-1.jsonl":  # the base, without the changes the journal held
        assert found.encounter is not None and found.changes == 0
    else:  # an unsaved encounter's only base: nothing to replay the changes on
        assert found.encounter is None


def test_a_journal_over_its_size_limit_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "w"
    engine, journal = journaled(folder)
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 5))
    journal.close(keep=True)
    monkeypatch.setattr(journal_module, "MAX_JOURNAL_BYTES", 10)
    found = recover(folder)
    assert found is not None and "journal-1.jsonl" in found.unread
    assert "10 bytes" in found.reasons["journal-1.jsonl"]


def test_a_clean_reset_leaves_nothing_to_recover(tmp_path: Path) -> None:
    engine, journal = journaled(tmp_path / "w")
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 5))
    journal.reset(engine.encounter, tmp_path / "saved.lnl", unsaved=False)  # just saved
    assert recover(tmp_path / "w") is None
    engine.apply(act.BeginTurn("ana"))
    found = recover(tmp_path / "w")
    assert found is not None and found.original == tmp_path / "saved.lnl"
    journal.close()
    assert recover(tmp_path / "w") is None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1), face=st.integers(1, 6), data=st.data())
def test_random_play_with_undo_redo_and_snapshots_replays_exactly(
    tmp_path_factory: pytest.TempPathFactory, seed: int, face: int, data: st.DataObject
) -> None:
    folder = tmp_path_factory.mktemp("journal")
    engine, journal = journaled(folder, seed)
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, face))
    for _ in range(data.draw(st.integers(1, 30), label="steps")):
        if data.draw(st.integers(0, 9), label="snapshot?") == 0:
            journal.reset(engine.encounter, None, unsaved=True)
        action = data.draw(actions(engine), label="action")
        try:
            if action == "undo":
                engine.undo()
            elif action == "redo":
                engine.redo()
            else:
                engine.apply(action)
        except RulesError:
            continue
    found = recover(folder)
    assert found is not None and found.problem == ""
    assert found.encounter.model_dump() == engine.encounter.model_dump()


def test_an_area_effect_an_older_journal_wrote_keeps_its_ruleset_fields_as_extras():
    # Before the ruleset's own fields moved into extras, an area effect carried them as fields.
    old = {
        "type": "AreaEffect",
        "shape": "square",
        "origin": [2.0, 2.0],
        "size_ft": 10,
        "targets": ["tombril"],
        "name": "Trap",
        "dice": "2d6",
        "save": "Breath",
        "dc": 12,
        "dex_applies": True,
        "ap_applies": False,
        "direct": False,
    }
    effect = action_from_json(old)
    assert isinstance(effect, act.AreaEffect)
    assert (effect.extra("save"), effect.extra("dc"), effect.extra("ap_applies")) == ("Breath", 12, False)
    assert action_from_json(action_to_json(effect)) == effect

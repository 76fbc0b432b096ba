"""The recovery journal across its automatic copies: the encounter and its whole Undo history come
back, and a damaged part still gives back what can be rebuilt."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import actions, arena

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import Journal, apply_step, recover
from lnl_desktop.core.rules.lnl.model import SurpriseSituation


def journaled(folder: Path, seed: int = 1, original: Path | None = None) -> tuple[Engine, Journal]:
    engine = arena(seed)
    journal = Journal(folder)
    journal.reset(engine.encounter, original, unsaved=False)
    engine.subscribe_history(lambda step: journal.record(step, engine.encounter))
    return engine, journal


def undo_all(engine: Engine) -> None:
    while engine.undo_text:
        engine.undo()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1), face=st.integers(1, 6), data=st.data())
def test_random_play_across_automatic_copies_comes_back_with_its_whole_undo_history(
    tmp_path_factory: pytest.TempPathFactory, seed: int, face: int, data: st.DataObject
) -> None:
    folder = tmp_path_factory.mktemp("journal")
    engine, journal = journaled(folder, seed)
    opened = engine.encounter.model_copy(deep=True)
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, face))
    for _ in range(data.draw(st.integers(1, 30), label="steps")):
        if data.draw(st.integers(0, 4), label="copy?") == 0:
            journal.reset(engine.encounter, None, unsaved=True, checkpoint=True)
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
    assert found is not None and found.problem == "" and found.unread == []
    assert found.encounter is not None and found.encounter.model_dump() == engine.encounter.model_dump()
    # The steps from the encounter as opened: the same encounter again, and Undo all the way back.
    assert found.start is not None and found.start.model_dump() == opened.model_dump()
    again = Engine(found.start)
    for step in found.steps:
        apply_step(again, step)
    assert again.encounter.model_dump() == engine.encounter.model_dump()
    undo_all(again)
    undo_all(engine)
    assert again.encounter.model_dump() == engine.encounter.model_dump()
    assert again.encounter.model_dump(exclude={"log"}) == opened.model_dump(exclude={"log"})


def test_a_damaged_first_base_is_rebuilt_from_the_newest_copy_or_the_saved_file(tmp_path: Path) -> None:
    saved = tmp_path / "fight.lnl"
    engine = arena(1)
    storage.save(engine.encounter, saved)
    engine, journal = journaled(tmp_path / "w", 1, saved)
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 5))
    engine.apply(act.BeginTurn("ana"))
    (tmp_path / "w" / "base-1.lnl").write_bytes(b"\x00garbage")
    found = recover(tmp_path / "w")  # no copy yet: the journal replayed on the saved file
    assert found is not None and found.encounter is not None and found.unread == ["base-1.lnl"]
    assert found.encounter.model_dump() == engine.encounter.model_dump() and found.changes == 2
    assert "replayed on the saved fight.lnl" in found.problem

    journal.reset(engine.encounter, saved, unsaved=True, checkpoint=True)
    engine.apply(act.Face("ana", 180))
    journal.wait_synced()  # the worker has written the copy
    saved.write_bytes(b"gone")  # and the saved file is no help either: the newest copy is
    found = recover(tmp_path / "w")
    assert found is not None and found.encounter is not None and "base-1.lnl" in found.unread
    assert found.encounter.model_dump() == engine.encounter.model_dump() and found.changes == 1
    assert "Undo reaches back only to the last automatic copy" in found.problem


def test_nothing_to_rebuild_says_what_could_not_be_read(tmp_path: Path) -> None:
    engine, _ = journaled(tmp_path / "w")
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 5))
    (tmp_path / "w" / "base-1.lnl").write_bytes(b"{")
    found = recover(tmp_path / "w")
    assert found is not None and found.encounter is None and found.unread == ["base-1.lnl"]
    assert "base-1.lnl could not be read" in found.problem

"""The demo read at start from its compiled form, and the recovery journal's text of an opened encounter
made when first needed: both the same as the slow way, and the compiled form never trusted when stale."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import compiled, storage
from lnl_desktop.core.files.journal import Journal, recover
from lnl_desktop.core.rules.lnl.model import SurpriseSituation
from lnl_desktop.paths import demo_encounter_path


def test_the_demo_s_compiled_form_is_up_to_date_and_the_same_encounter() -> None:
    fast = compiled.read_compiled(demo_encounter_path())
    assert fast is not None, "out of date: run `python -m lnl_desktop.core.files.compiled`"
    slow = storage.load(demo_encounter_path())
    assert fast == slow
    assert storage.dumps(fast) == storage.dumps(slow)  # what a save or the journal would write


@pytest.fixture
def own_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo and its compiled form in a resources folder of their own."""
    folder = tmp_path / "resources" / "encounters"
    folder.mkdir(parents=True)
    demo = demo_encounter_path()
    shutil.copy(demo, folder / demo.name)
    shutil.copy(compiled.compiled_path(demo), compiled.compiled_path(folder / demo.name))
    monkeypatch.setattr(compiled, "resources_dir", lambda: tmp_path / "resources")
    return folder / demo.name


def test_a_copy_in_the_program_s_resources_is_read_compiled(own_copy: Path) -> None:
    assert compiled.read_compiled(own_copy) == storage.load(own_copy)


def test_a_demo_changed_since_it_was_compiled_is_read_from_its_json(own_copy: Path) -> None:
    text = own_copy.read_text(encoding="utf-8")
    own_copy.write_text(text.replace("The Hill Giant at the Old Tower", "The Giant Moved Out", 1), encoding="utf-8")
    assert compiled.read_compiled(own_copy) is None
    assert compiled.load_own(own_copy).name == "The Giant Moved Out"


def test_a_model_whose_fields_changed_is_not_read_from_the_pickle(
    own_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = compiled._shape
    monkeypatch.setattr(compiled, "_shape", lambda cls: (*real(cls), "a_new_field"))
    assert compiled.read_compiled(own_copy) is None
    assert compiled.load_own(own_copy) == storage.load(own_copy)


def test_a_damaged_compiled_form_is_read_from_the_json(own_copy: Path) -> None:
    target = compiled.compiled_path(own_copy)
    target.write_bytes(target.read_bytes()[:1000])
    assert compiled.read_compiled(own_copy) is None
    assert compiled.load_own(own_copy) == storage.load(own_copy)


def test_a_file_outside_the_program_s_resources_is_never_unpickled(tmp_path: Path) -> None:
    demo = demo_encounter_path()
    shutil.copy(demo, tmp_path / demo.name)
    shutil.copy(compiled.compiled_path(demo), compiled.compiled_path(tmp_path / demo.name))
    assert compiled.read_compiled(tmp_path / demo.name) is None


def test_an_opened_encounter_s_journal_text_is_the_state_it_was_opened_in(tmp_path: Path) -> None:
    """The text is made at the first change, after the engine changed the encounter: still the state
    as opened, so the replay of the change comes back to the same encounter."""
    from lnl_desktop.core.engine.engine import Engine

    engine = Engine(compiled.load_own(demo_encounter_path()))
    journal = Journal(tmp_path / "w")
    journal.reset(engine.encounter, None, unsaved=False)
    opened = storage.dumps(engine.encounter)
    engine.subscribe_history(lambda step: journal.record(step, engine.encounter))
    engine.apply(act.StartCombat(SurpriseSituation.NOBODY, 3))
    found = recover(tmp_path / "w")
    assert found is not None and found.problem == "" and found.changes == 1
    assert found.start is not None and storage.dumps(found.start) == opened
    assert found.encounter.model_dump() == engine.encounter.model_dump()


def test_the_journal_text_made_at_an_idle_moment_is_the_one_a_save_writes(tmp_path: Path) -> None:
    encounter = compiled.load_own(demo_encounter_path())
    journal = Journal(tmp_path / "w")
    journal.reset(encounter, None, unsaved=False)
    journal.prepare()
    assert journal._base_text == storage.dumps(encounter)

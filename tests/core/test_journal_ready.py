"""The first change after an open or a save: the encounter's text written at an idle moment is put in
place as the recovery base, never written again on the GM's first move, and never taken for work to
recover on its own or once it no longer is the encounter."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import Journal, recover
from lnl_desktop.paths import demo_encounter_path


def opened(folder: Path) -> tuple[Engine, Journal]:
    """An encounter just opened in a window: its journal reset, no change yet."""
    engine = Engine(storage.load(demo_encounter_path()))
    journal = Journal(folder)
    journal.reset(engine.encounter, None, unsaved=False)
    engine.subscribe_history(lambda step: journal.record(step, engine.encounter))
    return engine, journal


def written_to(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files written (whole, atomically) from now on."""
    names: list[str] = []
    original = storage.write_text_atomic

    def counting(path: str | os.PathLike[str], text: str, *, sync: bool = True) -> Path:
        names.append(Path(path).name)
        return original(path, text, sync=sync)

    monkeypatch.setattr(storage, "write_text_atomic", counting)
    return names


def test_the_first_change_renames_the_text_written_at_the_idle_moment_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, journal = opened(tmp_path)
    as_opened = storage.dumps(engine.encounter)
    journal.prepare()  # the idle moment after the open
    ready = tmp_path / "ready-base-1.lnl"
    assert ready.read_text(encoding="utf-8") == as_opened
    inode = ready.stat().st_ino
    written = written_to(monkeypatch)
    engine.apply(act.Face("janine", 135))
    assert written == []  # the GM's first move writes no file whole: the base, journal and meta were ready
    assert (tmp_path / "base-1.lnl").stat().st_ino == inode and not list(tmp_path.glob("ready-*"))
    assert (tmp_path / "base-1.lnl").read_text(encoding="utf-8") == as_opened
    journal.wait_synced()
    found = recover(tmp_path)
    assert found is not None and not found.problem and found.changes == 1
    assert storage.dumps(found.encounter) == storage.dumps(engine.encounter)
    journal.close()
    assert list(tmp_path.iterdir()) == []


def test_a_folder_holding_only_the_idle_text_has_nothing_to_recover(tmp_path: Path) -> None:
    _, journal = opened(tmp_path)
    journal.prepare()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "ready-base-1.lnl",
        "ready-journal-1.jsonl",
        "ready-meta.json",
    ]
    assert recover(tmp_path) is None  # an unchanged encounter is never offered back
    journal.close()  # a clean close
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("how", ["saved after a change", "reopened", "recovered work", "changed on disk", "deleted"])
def test_an_idle_text_that_is_no_longer_the_encounter_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    engine, journal = opened(tmp_path)
    journal.prepare()
    ready = tmp_path / "ready-base-1.lnl"
    assert ready.exists()
    written = written_to(monkeypatch)
    named = {"saved after a change": "fight.lnl", "reopened": "other.lnl", "recovered work": "fight.lnl"}.get(how)
    if how == "saved after a change":
        engine.apply(act.Face("janine", 135))
        journal.reset(engine.encounter, tmp_path / "fight.lnl", unsaved=False)  # the GM saved
    elif how == "reopened":
        other = storage.load(demo_encounter_path()).model_copy(update={"name": "Another fight"})
        engine.replace(other)  # another file opened: nothing of it to recover yet
        journal.reset(engine.encounter, tmp_path / "other.lnl", unsaved=False)
    elif how == "recovered work":
        engine.replace(engine.encounter.model_copy(update={"name": "Recovered"}))
        journal.reset(engine.encounter, tmp_path / "fight.lnl", unsaved=True)  # unsaved work: written at once
    elif how == "changed on disk":
        ready.write_text(storage.dumps(engine.encounter.model_copy(update={"name": "Not this"})), encoding="utf-8")
    else:
        ready.unlink()
    state = storage.dumps(engine.encounter)
    engine.apply(act.Face("tombril", 180))
    journal.wait_synced()
    assert (tmp_path / f"base-{journal.root}.lnl").read_text(encoding="utf-8") == state
    assert f"base-{journal.root}.lnl" in written  # written whole, not renamed from the idle text
    assert not list(tmp_path.glob("ready-*"))
    found = recover(tmp_path)
    assert found is not None and not found.problem
    assert found.original == (tmp_path / named if named else None)  # the meta of now, not of the idle moment
    assert storage.dumps(found.encounter) == storage.dumps(engine.encounter)

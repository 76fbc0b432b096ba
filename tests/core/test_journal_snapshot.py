"""The recovery journal on a big map: a snapshot serialises only what changed, the disk's waits and a
checkpoint's writing are the worker's, and what is written is what a reopen restores."""

from __future__ import annotations

import errno
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import WallSegment
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import journal as journal_module
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import Journal, recover

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import big_maps


@pytest.fixture(scope="module")
def big_table() -> Any:
    return big_maps.build(size=300, tokens=500, segments=2000)


def journaled(folder: Path, table: Any) -> tuple[Engine, Journal]:
    engine = Engine(table.model_copy(deep=True))
    journal = Journal(folder)
    journal.reset(engine.encounter, None, unsaved=False)
    engine.subscribe_history(lambda step: journal.record(step, engine.encounter))
    return engine, journal


def step_right(engine: Engine, who: str = big_maps.MOVER) -> None:
    x, y = engine.encounter.tokens[who].cell
    engine.apply(act.Move(who, (x + 1, y), forced=True))


def dumped_parts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The encounter's fields serialised from now on (the journal serialises an encounter field by field)."""
    parts: list[str] = []
    original = BaseModel.model_dump_json

    def counting(model: BaseModel, **options: Any) -> str:
        if type(model).__name__ == "Encounter":
            parts.extend(sorted(options.get("include") or ["<everything>"]))
        return original(model, **options)

    monkeypatch.setattr(BaseModel, "model_dump_json", counting)
    return parts


def test_a_snapshot_on_a_big_map_serialises_only_what_changed_and_writes_the_whole_file(
    tmp_path: Path, big_table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, journal = journaled(tmp_path, big_table)
    step_right(engine)
    journal.reset(engine.encounter, None, unsaved=True, checkpoint=True)
    parts = dumped_parts(monkeypatch)
    step_right(engine)
    journal.reset(engine.encounter, None, unsaved=True, checkpoint=True)
    assert "map" not in parts and "<everything>" not in parts  # the map's walls: text kept from before
    assert {"combatants", "tokens", "combat"} <= set(parts)
    journal.wait_synced()
    written = (tmp_path / f"base-{journal.generation}.lnl").read_bytes()
    assert written == storage.dumps(engine.encounter).encode("utf-8")  # byte for byte the full text

    # A new map is a new object: its text is made again, and the file still is the full text.
    parts.clear()
    walls = (*engine.encounter.map.segments, WallSegment(a=(1, 1), b=(1, 4)))
    engine.apply(act.EditMap({"segments": walls}))
    journal.reset(engine.encounter, None, unsaved=True, checkpoint=True)
    assert "map" in parts
    journal.wait_synced()
    written = (tmp_path / f"base-{journal.generation}.lnl").read_bytes()
    assert written == storage.dumps(engine.encounter).encode("utf-8")
    found = recover(tmp_path)
    assert found is not None and not found.problem
    assert found.encounter is not None and storage.dumps(found.encounter) == storage.dumps(engine.encounter)


def test_the_disk_waits_of_a_first_change_and_of_a_checkpoint_are_the_workers(
    tmp_path: Path, big_table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, journal = journaled(tmp_path, big_table)
    journal.hand_off_later = True  # as a window has it: handed off once the frame is drawn
    journal.prepare()  # the idle warm-up after the first paint
    synced_on: list[str] = []
    fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced_on.append(threading.current_thread().name) or fsync(fd))
    before = storage.dumps(engine.encounter)
    step_right(engine)
    # With the system at once (a kill loses nothing): the base, the meta and the line.
    assert (tmp_path / "base-1.lnl").read_text(encoding="utf-8") == before
    assert (tmp_path / "meta.json").exists()
    assert (tmp_path / "journal-1.jsonl").read_bytes().count(b"\n") == 1
    assert synced_on == []  # no wait for the disk on the GUI thread
    journal.sync_later()
    step_right(engine)
    journal.reset(engine.encounter, None, unsaved=True, checkpoint=True)
    journal.wait_synced()
    assert synced_on and all(name.startswith("lnl-journal-sync") for name in synced_on)
    assert threading.current_thread().name not in synced_on


@pytest.mark.parametrize("written", ["nothing", "the base"])
def test_a_kill_before_the_worker_wrote_a_checkpoint_loses_nothing(
    tmp_path: Path, big_table: Any, monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    engine, journal = journaled(tmp_path, big_table)
    step_right(engine)

    def killed_meanwhile(base: Path, text: str, meta: Path, meta_text: str, stale: list[Path]) -> None:
        if written == "the base":
            storage.write_text_atomic(base, text)  # the meta still names the generation before

    monkeypatch.setattr(journal_module, "_write_checkpoint", killed_meanwhile)
    journal.reset(engine.encounter, None, unsaved=True, checkpoint=True)
    step_right(engine)
    step_right(engine, "p1")
    journal.wait_synced()
    found = recover(tmp_path)
    assert found is not None and not found.problem, found and found.problem
    assert found.encounter is not None and storage.dumps(found.encounter) == storage.dumps(engine.encounter)
    assert found.changes == 3  # the whole Undo history too


def test_a_checkpoint_the_worker_could_not_write_is_said_at_the_next_change_and_costs_nothing(
    tmp_path: Path, big_table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, journal = journaled(tmp_path, big_table)
    step_right(engine)

    def disk_full(*_: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(journal_module, "_write_checkpoint", disk_full)
    journal.reset(engine.encounter, None, unsaved=True, checkpoint=True)
    journal.wait_synced()
    with pytest.raises(OSError, match=os.strerror(errno.ENOSPC)):
        step_right(engine)  # the line is written; the earlier trouble is said (the window warns once)
    journal.wait_synced()
    found = recover(tmp_path)
    assert found is not None and found.encounter is not None and not found.problem
    assert storage.dumps(found.encounter) == storage.dumps(engine.encounter)


def test_a_checkpoint_and_the_changes_after_it_never_wait_for_a_busy_disk(tmp_path: Path, big_table: Any) -> None:
    engine, journal = journaled(tmp_path, big_table)
    step_right(engine)
    journal.wait_synced()
    disk_free = threading.Event()
    journal_module._on_worker(disk_free.wait, 30)  # the worker stuck behind a slow disk
    try:
        at_copy = storage.dumps(engine.encounter)
        journal.reset(engine.encounter, None, unsaved=True, checkpoint=True)  # returns: nothing waited on
        step_right(engine)
        step_right(engine, "p1")
        assert not (tmp_path / "base-2.lnl").exists()  # the worker has not got to it
        # The lines are with the system already: a kill now loses nothing.
        found = recover(tmp_path)
        assert found is not None and found.encounter is not None and not found.problem
        assert storage.dumps(found.encounter) == storage.dumps(engine.encounter) and found.changes == 3
    finally:
        disk_free.set()
    journal.wait_synced()
    assert (tmp_path / "base-2.lnl").read_text(encoding="utf-8") == at_copy
    assert '"generation": 2' in (tmp_path / "meta.json").read_text(encoding="utf-8")

"""Starting after a crash: the file named on the command line always opens, recovered work comes
back in windows of its own with its Undo history, a damaged recovery folder is never deleted
unread, and opening a file never marks it modified.

A real window is killed in a child process (``recovery_child.py``); the next start runs the
program's own start (``start_child.py``: ``app.run`` with the file on its command line).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot
from start_child import table
from test_recovery import Child

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import Journal
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.window import app as app_module
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

START = Path(__file__).with_name("start_child.py")
DEMOS = sorted(resource("encounters").glob("*.lnl"))


def file_hash(path: Path) -> str:
    return hashlib.sha256(storage.dumps(storage.load(path)).encode()).hexdigest()[:16]


def start(root: Path, answer: str, path: Path | None = None, *, within: float = 300) -> dict[str, Any]:
    """The program started as the GM starts it, after the crash; what its windows show (a failure
    if they are not up within ``within`` seconds: the child is killed)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(root), XDG_CONFIG_HOME=str(root / "config"))
    args = [sys.executable, str(START), str(root), answer] + ([str(path)] if path else [])
    try:
        result = subprocess.run(args, capture_output=True, text=True, env=env, timeout=within)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the program had not started after {within} s")
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(next(line for line in result.stdout.splitlines() if line.startswith("{")))


@pytest.fixture
def children() -> Iterator[list[Child]]:
    started: list[Child] = []
    yield started
    for child in started:
        if child.process.poll() is None:
            child.process.kill()
            child.process.communicate(timeout=30)


def killed_at_work(root: Path, path: Path, children: list[Child], changes: int = 8) -> Child:
    """A window on ``path`` that showed ``changes`` changes (a fight, a note, an undo), then was killed."""
    child = Child(root, 0.05, path)
    children.append(child)
    child.wait_for(changes)
    child.kill()
    return child


def files_in(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.suffix in (".lnl", ".jsonl", ".json")}


def test_the_file_on_the_command_line_opens_and_other_work_comes_back_beside_it_with_its_undo(
    tmp_path: Path, children: list[Child]
) -> None:
    named, other = tmp_path / "hill-giant.lnl", tmp_path / "hill-giant-copy.lnl"
    for path in (named, other):
        storage.save(storage.load(demo_encounter_path()), path)
    child = killed_at_work(tmp_path, other, children)

    seen = start(tmp_path, "yes", named)
    by_file = {Path(w["path"]).name: w for w in seen["windows"]}
    assert set(by_file) == {named.name, other.name}  # two windows: nothing replaced anything
    opened = by_file[named.name]
    assert not opened["modified"] and "*" not in opened["title"] and opened["undo"] == []
    assert opened["shown"] == file_hash(named)
    recovered = by_file[other.name]
    assert recovered["modified"] and recovered["shown"] == child.shown[-1]
    # The fight came back with its history: Undo walks it back to the file as it was opened.
    assert len(recovered["undo"]) == 6  # 7 changes, the last one undone (8th)
    assert recovered["undone"] == table(storage.load(other))


def test_undo_reaches_back_across_the_automatic_copies_after_recovery(
    tmp_path: Path, children: list[Child], qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fight = tmp_path / "fight.lnl"
    storage.save(storage.load(demo_encounter_path()), fight)
    # Nine changes half a second apart: the whole encounter is rewritten every 3 s meanwhile, and
    # the eighth, an undo, takes back a change made before that copy.
    child = Child(tmp_path, 0.5, fight)
    children.append(child)
    child.wait_for(9)
    child.kill()
    [folder] = (tmp_path / "recovery" / "windows").iterdir()
    assert len(list(folder.glob("journal-*.jsonl"))) >= 2  # at least one automatic copy was made
    [orphan] = RecoveryStore(tmp_path / "recovery").orphans()
    assert orphan.found.problem == ""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(orphan.found.encounter, settings=settings, recovery=RecoveryStore(tmp_path / "recovery"))
    qtbot.addWidget(window)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    window.document.adopt(orphan)
    assert hashlib.sha256(storage.dumps(window.controller.encounter).encode()).hexdigest()[:16] == child.shown[-1]
    stack = window.controller.undo_stack
    assert stack.index() == 7 and window.document.is_dirty()
    while stack.canUndo():
        stack.undo()
    assert table(window.controller.encounter) == table(storage.load(fight))


def corrupt(folder: Path, part: str) -> None:
    """Damage one part of a recovery folder the way a failing disk would."""
    if part == "base":
        for base in folder.glob("base-*.lnl"):
            text = base.read_bytes()
            base.write_bytes(text[: len(text) // 2])  # cut short
    elif part == "journal":
        journal = min(folder.glob("journal-*.jsonl"))
        lines = journal.read_bytes().splitlines(keepends=True)
        lines[2] = b'{"step": "apply", "act\x00\x00\x00\n'  # a garbled line in the middle
        journal.write_bytes(b"".join(lines))
    else:
        (folder / "meta.json").write_bytes(b'{"generation": 1, "orig\xff')


@pytest.mark.parametrize(
    ("part", "answer"), [("base", "yes"), ("journal", "yes"), ("meta", "yes"), ("base", "no"), ("journal", "no")]
)
def test_a_damaged_recovery_folder_is_never_deleted_unread(
    tmp_path: Path, children: list[Child], part: str, answer: str
) -> None:
    fight = tmp_path / "fight.lnl"
    storage.save(storage.load(demo_encounter_path()), fight)
    child = killed_at_work(tmp_path, fight, children)
    [folder] = (tmp_path / "recovery" / "windows").iterdir()
    corrupt(folder, part)
    before = files_in(folder)

    seen = start(tmp_path, answer)

    # Every file of the folder is still there, byte for byte, and the GM was told where.
    [kept] = (tmp_path / "recovery" / "kept").iterdir()
    assert files_in(kept) == before
    [offer] = [s["text"] for s in seen["said"] if s["title"] == "Recover unsaved work?"]
    assert str(kept) in offer and "could not be read" in offer
    if answer == "no":
        return
    [window] = seen["windows"]
    assert window["modified"]
    if part == "journal":
        # What comes before the garbled line is offered, and says where the rest stopped.
        assert "line 3 of the journal is not readable" in offer
        assert len(window["undo"]) == 2
    else:
        # The damaged base: the journal replayed on the saved file; the damaged meta: all of it.
        assert window["shown"] == child.shown[-1]
        assert len(window["undo"]) == 6 and window["undone"] == table(storage.load(fight))
    if part == "base":
        assert "replayed on the saved fight.lnl" in offer


def test_a_folder_that_cannot_be_rebuilt_at_all_is_kept_and_the_gm_told(tmp_path: Path) -> None:
    # The first base of an unsaved encounter damaged: nothing to replay the changes on.
    folder = tmp_path / "recovery" / "windows" / "gone"
    dead_window_work(folder, None)
    for base in folder.glob("base-*.lnl"):
        base.write_bytes(b"\x00" * 64)
    before = files_in(folder)
    seen = start(tmp_path, "yes")
    [kept] = (tmp_path / "recovery" / "kept").iterdir()
    assert files_in(kept) == before
    [told] = [s["text"] for s in seen["said"] if s["title"] == "Unsaved work not recovered"]
    assert "base-1.lnl could not be read" in told and str(kept) in told
    [window] = seen["windows"]  # the demo, as with nothing to recover
    assert not window["modified"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="pipes (FIFOs) are a POSIX thing")
@pytest.mark.parametrize(
    ("part", "what"),
    [("journal-1.jsonl", "pipe"), ("journal-1.jsonl", "folder"), ("meta.json", "pipe"), ("window.lock", "pipe")],
)
def test_a_pipe_or_a_folder_in_a_recovery_folder_never_stops_the_start(tmp_path: Path, part: str, what: str) -> None:
    folder = tmp_path / "recovery" / "windows" / "gone"
    dead_window_work(folder, None)
    (folder / part).unlink(missing_ok=True)
    if what == "pipe":
        os.mkfifo(folder / part)
    else:
        (folder / part).mkdir()
    names = sorted(p.name for p in folder.iterdir())

    seen = start(tmp_path, "yes", within=60)  # a read of the pipe would wait for ever

    # The folder is kept, untouched (the pipe is still a pipe), and the GM told where and why.
    [kept] = (tmp_path / "recovery" / "kept").iterdir()
    assert sorted(p.name for p in kept.iterdir()) == names
    assert (kept / part).is_fifo() if what == "pipe" else (kept / part).is_dir()
    [said] = [s["text"] for s in seen["said"] if s["title"] in ("Recover unsaved work?", "Unsaved work not recovered")]
    kind = "a pipe (FIFO)" if what == "pipe" else "a folder"
    assert f"{part} could not be read ({kind}, not a regular file)" in said and str(kept) in said
    [window] = seen["windows"]  # the window is up
    if part == "meta.json":  # the work itself is whole
        assert window["modified"] and len(window["undo"]) == 1
    elif part == "journal-1.jsonl":  # the automatic copy, without the change after it
        assert window["modified"] and not window["undo"]
    else:  # no window may hold the folder: none of it is read, the demo opens as with nothing to recover
        assert not window["modified"]


# -- opening never marks a file modified ------------------------------------------------------------


def dead_window_work(folder: Path, path: Path | None) -> None:
    """What a window killed after one change leaves in its recovery folder, written by the real journal."""
    engine = Engine(storage.load(demo_encounter_path()))
    journal = Journal(folder)
    journal.reset(engine.encounter, path, unsaved=False)
    engine.subscribe_history(lambda step: journal.record(step, engine.encounter))
    engine.apply(act.EditCombatant("tombril", {"level": 11}))
    journal.close(keep=True)


def assert_clean(window: MainWindow, path: Path) -> None:
    assert window.document.path == path
    assert not window.isWindowModified() and window.controller.undo_stack.isClean()
    assert "*" not in window.windowTitle().replace("[*]", "")


@pytest.mark.parametrize("demo", DEMOS, ids=lambda p: p.stem)
def test_opening_a_demo_never_marks_it_modified(
    demo: Path, tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    dead_window_work(tmp_path / "recovery" / "windows" / "gone", None)
    store = RecoveryStore(tmp_path / "recovery")
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    # A window that took over recovered work at the start; then File > Open of the demo.
    [orphan] = app_module.offer_recovery(store)
    window = MainWindow(orphan.found.encounter, settings=settings, recovery=store)
    qtbot.addWidget(window)
    window.show()
    window.document.adopt(orphan)
    assert window.document.is_dirty() and window.controller.encounter.combatant("tombril").level == 11
    assert window.document.load(demo)
    assert_clean(window, demo)

    # The demo named on the command line (a copy: the window above holds the file), with more
    # recovered work accepted at the start: the demo's window is clean, the work beside it.
    dead_window_work(tmp_path / "recovery" / "windows" / "gone-too", None)
    named = tmp_path / demo.name
    named.write_bytes(demo.read_bytes())
    first = MainWindow(storage.load(named), named, settings=settings, recovery=store)
    windows = app_module.open_recovered(first, named, app_module.offer_recovery(store))
    for each in windows:
        qtbot.addWidget(each)
        each.show()
    assert_clean(first, named)
    [beside] = windows[1:]
    assert beside.document.is_dirty() and beside.controller.encounter.combatant("tombril").level == 11
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)

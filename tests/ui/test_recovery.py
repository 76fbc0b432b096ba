"""Nothing lost: a killed window's work comes back, a running window's work is never touched,
two windows never save over each other, and the recovery copy keeps up with a GM who never pauses.

The kill tests run a real window in a child process (``recovery_child.py``) and SIGKILL it.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import Journal
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window import app as app_module
from lnl_desktop.ui.window import main_window as main_window_module
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

CHILD = Path(__file__).with_name("recovery_child.py")


def fingerprint(encounter: storage.Encounter) -> str:
    return hashlib.sha256(storage.dumps(encounter).encode()).hexdigest()[:16]


class Child:
    """A window at work in another process, printing what it has shown."""

    def __init__(self, root: Path, pause: float, path: Path | None = None) -> None:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        args = [sys.executable, str(CHILD), str(root), str(pause)] + ([str(path)] if path else [])
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.shown: list[str] = []
        ready = self.process.stdout.readline()  # type: ignore[union-attr]
        assert ready.startswith("ready"), ready + self.process.stderr.read()  # type: ignore[union-attr]

    def wait_for(self, count: int) -> None:
        while len(self.shown) < count:
            line = self.process.stdout.readline()  # type: ignore[union-attr]
            assert line, self.process.stderr.read()  # type: ignore[union-attr]
            self.shown.append(line.split()[2])

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        rest, _ = self.process.communicate(timeout=30)
        self.shown += [line.split()[2] for line in rest.splitlines() if line.startswith("shown")]


@pytest.fixture
def children() -> Iterator[list[Child]]:
    started: list[Child] = []
    yield started
    for child in started:
        if child.process.poll() is None:
            child.process.kill()
            child.process.communicate(timeout=30)


def test_changes_half_a_second_apart_all_come_back_after_a_kill(tmp_path: Path, children: list[Child]) -> None:
    # Eleven changes 0.5 s apart: rolled attacks, undos, and the periodic full copy in between.
    child = Child(tmp_path, 0.5)
    children.append(child)
    child.wait_for(11)
    child.kill()
    orphans = RecoveryStore(tmp_path / "recovery").orphans()
    assert len(orphans) == 1
    found = orphans[0].found
    assert found.problem == ""
    assert fingerprint(found.encounter) == child.shown[-1]  # exactly what the screen last showed


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_kill_at_a_random_moment_loses_nothing_that_was_shown(
    tmp_path: Path, children: list[Child], seed: int
) -> None:
    child = Child(tmp_path, 0.05)
    children.append(child)
    child.wait_for(random.Random(seed).randint(3, 40))
    child.kill()  # mid-change, mid-write or mid-pause: wherever it lands
    orphans = RecoveryStore(tmp_path / "recovery").orphans()
    assert len(orphans) == 1
    found = orphans[0].found
    assert found.problem == ""
    # Every change is journaled before it is shown: the work holds at least the last one shown.
    if fingerprint(found.encounter) != child.shown[-1]:
        assert found.changes >= 1  # a change applied and written, killed before it was painted


def test_a_second_start_never_offers_nor_deletes_a_running_windows_work(
    tmp_path: Path, children: list[Child], monkeypatch: pytest.MonkeyPatch
) -> None:
    child = Child(tmp_path, 0.2)
    children.append(child)
    child.wait_for(3)
    store = RecoveryStore(tmp_path / "recovery")
    asked: list[str] = []

    def no(*args: object, **kwargs: object) -> QMessageBox.StandardButton:
        asked.append(str(args[2]))
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", no)
    assert app_module.offer_recovery(store) == []
    assert asked == []  # the running window's work is its own
    child.wait_for(5)
    child.kill()
    # Now that window is gone: its work is offered, and kept when the GM says yes.
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    accepted = app_module.offer_recovery(store)
    assert [fingerprint(o.found.encounter) for o in accepted] == [child.shown[-1]]


def test_a_file_open_in_another_process_is_offered_read_only(
    tmp_path: Path, children: list[Child], qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fight = tmp_path / "fight.lnl"
    storage.save(storage.load(demo_encounter_path()), fight)
    child = Child(tmp_path, 0.2, fight)  # the same app data folder: another process on this machine
    children.append(child)
    child.wait_for(1)
    window = make_window(qtbot, tmp_path)
    offered: list[Path] = []

    def cancel(parent: object, path: Path, holder: str) -> bool:
        offered.append(path)
        assert "process" in holder
        return False

    monkeypatch.setattr(main_window_module, "ask_read_only", cancel)
    assert not window.document.load(fight)
    assert offered == [fight]


# -- two windows in one process, on one file --------------------------------------------------------


def make_window(qtbot: QtBot, tmp_path: Path, path: Path | None = None) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    encounter = storage.load(path or demo_encounter_path())
    window = MainWindow(encounter, path, settings=settings, recovery=RecoveryStore(tmp_path / "recovery"))
    qtbot.addWidget(window)
    window.show()
    return window


@pytest.fixture(autouse=True)
def discard_at_teardown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)


def test_two_windows_on_one_file_never_save_over_each_other(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fight = tmp_path / "fight.lnl"
    storage.save(storage.load(demo_encounter_path()), fight)
    first = make_window(qtbot, tmp_path, fight)
    second = make_window(qtbot, tmp_path)
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: warnings.append(text))

    answers = iter([False, True])
    monkeypatch.setattr(main_window_module, "ask_read_only", lambda parent, path, holder: next(answers))
    assert not second.document.load(fight)  # cancelled: the second window keeps what it had
    assert second.document.path is None and not second.document.read_only
    assert second.document.load(fight)
    assert second.document.read_only and "read-only" in second.windowTitle()

    second.controller.do(act.EditCombatant("tombril", {"level": 11}))
    saved = fight.read_bytes()
    # Save goes to Save As; naming the same file is refused with the reason.
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(fight), ""))
    assert not second.document.save()
    assert fight.read_bytes() == saved
    assert "open in another window" in warnings[-1]
    # The first window still saves its own file; the second saves under another name.
    first.controller.do(act.EditCombatant("janine", {"level": 4}))
    assert first.document.save()
    assert storage.load(fight).combatant("janine").level == 4
    assert second.document.save_to(tmp_path / "copy.lnl")
    assert not second.document.read_only and storage.load(tmp_path / "copy.lnl").combatant("tombril").level == 11

    # Once the first window closes, the file is free for the second.
    assert first.close()
    assert second.document.load(fight) and not second.document.read_only


def test_the_recovery_copy_is_rewritten_while_the_gm_keeps_working(tmp_path: Path, qtbot: QtBot) -> None:
    window = make_window(qtbot, tmp_path)
    window.document.snapshot_timer.setInterval(300)
    for number in range(12):  # a change every 100 ms, never a pause as long as the interval
        window.controller.do(act.Face("janine", (number % 8) * 45))
        qtbot.wait(100)
    assert window.document.journal.generation >= 3  # the whole encounter rewritten at least twice meanwhile
    found = RecoveryStore(tmp_path / "recovery").orphans()  # our own window: locked, not offered
    assert found == []


def test_a_clean_close_leaves_nothing_and_a_save_clears_the_journal(tmp_path: Path, qtbot: QtBot) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.do(act.EditCombatant("tombril", {"level": 11}))
    assert window.document.window_recovery.exists()
    assert window.document.save_to(tmp_path / "kept.lnl")
    assert not window.document.window_recovery.exists()
    window.controller.do(act.EditCombatant("tombril", {"level": 12}))
    window.controller.undo_stack.undo()  # back at the saved state: nothing to recover
    assert not window.document.window_recovery.exists()
    window.controller.do(act.EditCombatant("tombril", {"level": 12}))
    folder = window.document.window_recovery.folder
    assert window.document.save() and window.close()
    assert not folder.exists()
    assert RecoveryStore(tmp_path / "recovery").orphans() == []


def test_recovered_work_opens_unsaved_in_the_new_window_and_leaves_the_old_folder(
    tmp_path: Path, qtbot: QtBot, children: list[Child]
) -> None:
    child = Child(tmp_path, 0.05)
    children.append(child)
    child.wait_for(8)
    child.kill()
    [orphan] = RecoveryStore(tmp_path / "recovery").orphans()
    window = make_window(qtbot, tmp_path)
    window.document.adopt(orphan)
    assert fingerprint(window.controller.encounter) == child.shown[-1]
    assert window.document.is_dirty() and window.document.window_recovery.exists()
    assert not orphan.folder.exists()


def test_ctrl_s_after_a_recovery_never_writes_the_file_the_recovery_folder_names(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A recovery folder whose meta.json names a file outside as the work's original.
    outside = tmp_path / "outside.lnl"
    outside.write_bytes(demo_encounter_path().read_bytes())
    before = outside.read_bytes()
    engine = Engine(storage.load(demo_encounter_path()))
    journal = Journal(tmp_path / "recovery" / "windows" / "gone")
    journal.reset(engine.encounter, outside, unsaved=False)
    engine.subscribe_history(lambda step: journal.record(step, engine.encounter))
    engine.apply(act.EditCombatant("tombril", {"level": 11}))
    journal.close(keep=True)
    [orphan] = RecoveryStore(tmp_path / "recovery").orphans()
    assert orphan.found.original == outside

    window = make_window(qtbot, tmp_path)
    window.document.adopt(orphan)
    assert "recovered from outside.lnl, not saved yet" in window.windowTitle()
    asked: list[str] = []
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", lambda parent, caption, start, *a: asked.append(start) or ("", "")
    )
    window.activateWindow()
    QTest.qWaitForWindowActive(window.windowHandle())
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)  # File > Save
    assert outside.read_bytes() == before
    assert asked == [str(outside)]  # the Save As dialog, the original preselected
    assert window.document.is_dirty()

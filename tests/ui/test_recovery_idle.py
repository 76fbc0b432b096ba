"""A window killed right after an open and its idle moment: the first change comes back exactly as
it was shown, and an encounter not changed at all is never offered back at the next start.

A real window runs in a child process (``idle_child.py``) and is killed with SIGKILL; the next start
runs the program's own start (``start_child.py``).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_recovery_start import start

from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window.recovery import RecoveryStore

CHILD = Path(__file__).with_name("idle_child.py")


class IdleChild:
    """A window that opened ``path`` and had its idle moment, in another process."""

    def __init__(self, root: Path, path: Path) -> None:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        self.process = subprocess.Popen(
            [sys.executable, str(CHILD), str(root), str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        said = self.process.stdout.readline()  # type: ignore[union-attr]
        assert said.strip() == "prepared", said + self.process.stderr.read()  # type: ignore[union-attr]

    def change(self) -> str:
        """One change; the hash of the encounter the window then showed."""
        self.process.stdin.write("change\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]
        said = self.process.stdout.readline()  # type: ignore[union-attr]
        assert said.startswith("shown"), said + self.process.stderr.read()  # type: ignore[union-attr]
        return said.split()[1]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.communicate(timeout=30)


@pytest.fixture
def idle_window(tmp_path: Path) -> Iterator[IdleChild]:
    fight = tmp_path / "fight.lnl"
    storage.save(storage.load(demo_encounter_path()), fight)
    child = IdleChild(tmp_path, fight)
    yield child
    if child.process.poll() is None:
        child.process.kill()
        child.process.communicate(timeout=30)


def window_folder(root: Path) -> Path:
    [folder] = (root / "recovery" / "windows").iterdir()
    return folder


def test_a_kill_after_the_first_change_gives_back_that_change_from_the_idle_moment_s_text(
    tmp_path: Path, idle_window: IdleChild
) -> None:
    folder = window_folder(tmp_path)
    [ready] = folder.glob("ready-base-*.lnl")  # the encounter as opened, written at the idle moment
    inode = ready.stat().st_ino
    shown = idle_window.change()
    idle_window.kill()
    [base] = folder.glob("base-*.lnl")
    assert base.stat().st_ino == inode  # the first change renamed it into place, wrote no text
    [orphan] = RecoveryStore(tmp_path / "recovery").orphans()
    found = orphan.found
    assert found.problem == "" and found.changes == 1
    assert hashlib.sha256(storage.dumps(found.encounter).encode()).hexdigest()[:16] == shown
    orphan.release()


def test_a_kill_before_any_change_offers_nothing_at_the_next_start(tmp_path: Path, idle_window: IdleChild) -> None:
    folder = window_folder(tmp_path)
    # The encounter as opened, an empty journal and the meta, ready for a first change: nothing to recover.
    assert sorted(p.name for p in folder.iterdir()) == [
        "ready-base-1.lnl",
        "ready-journal-1.jsonl",
        "ready-meta.json",
        "window.lock",
    ]
    idle_window.kill()
    seen = start(tmp_path, "yes")
    assert [s["title"] for s in seen["said"]] == []  # no "Recover unsaved work?": nothing was changed
    assert not folder.exists()  # the dead window's folder is cleaned away

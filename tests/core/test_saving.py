"""Saving keeps what the user had: permissions, symlinks, a whole file after a kill at any moment."""

from __future__ import annotations

import os
import random
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions and symlinks")


@pytest.fixture
def demo() -> Encounter:
    return storage.load(demo_encounter_path())


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@posix_only
def test_saving_over_a_0644_file_keeps_0644(demo: Encounter, tmp_path: Path) -> None:
    path = tmp_path / "shared.lnl"
    path.write_text("old")
    path.chmod(0o644)
    storage.save(demo, path)
    assert mode(path) == 0o644
    assert storage.load(path) == demo


@posix_only
def test_saving_keeps_unusual_permissions_too(demo: Encounter, tmp_path: Path) -> None:
    path = tmp_path / "group.lnl"
    path.write_text("old")
    path.chmod(0o664)
    storage.save(demo, path)
    assert mode(path) == 0o664


@posix_only
def test_a_new_file_gets_the_umask_mode_not_0600(demo: Encounter, tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = storage.save(demo, tmp_path / "new.lnl")
    finally:
        os.umask(old)
    assert mode(path) == 0o644


@posix_only
def test_saving_through_a_symlink_rewrites_its_target(demo: Encounter, tmp_path: Path) -> None:
    (tmp_path / "campaign").mkdir()
    real = tmp_path / "campaign" / "fight.lnl"
    real.write_text("old")
    link = tmp_path / "fight.lnl"
    link.symlink_to(real)
    storage.save(demo, link)
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert storage.load(real) == demo
    assert not list((tmp_path / "campaign").glob(".*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_stale_temporary_files_of_interrupted_saves_are_removed(demo: Encounter, tmp_path: Path) -> None:
    path = tmp_path / "fight.lnl"
    stale = tmp_path / ".fight.lnl.abc123.tmp"
    young = tmp_path / ".fight.lnl.def456.tmp"  # maybe a save still running in another window
    other = tmp_path / ".notes.txt.abc123.tmp"  # not ours
    for temp in (stale, young, other):
        temp.write_text("{half a fi")
    long_ago = time.time() - storage.STALE_TEMP_SECONDS - 10
    os.utime(stale, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    storage.save(demo, path)
    assert not stale.exists()
    assert young.exists() and other.exists()


def test_stale_temporary_files_are_found_whatever_the_name_holds(demo: Encounter, tmp_path: Path) -> None:
    path = tmp_path / "fight [round 2]*?.lnl"  # characters a glob pattern would read as its own
    stale = tmp_path / ".fight [round 2]*?.lnl.abc123.tmp"
    alike = tmp_path / ".fight [round 2]x?.lnl.abc123.tmp"  # what the pattern's * would have matched
    for temp in (stale, alike):
        temp.write_text("{half a fi")
        long_ago = time.time() - storage.STALE_TEMP_SECONDS - 10
        os.utime(temp, (long_ago, long_ago))
    storage.save(demo, path)
    assert not stale.exists() and alike.exists()


@posix_only
def test_the_folder_is_flushed_after_the_rename(
    demo: Encounter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushed: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    storage.save(demo, tmp_path / "fight.lnl")
    assert flushed == ["file", "folder"]


SAVER = """
import sys
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
encounter = storage.load(demo_encounter_path())
path = sys.argv[1]
print("ready", flush=True)
n = 0
while True:
    n += 1
    encounter.combatants[0].notes = "save %d " % n + "x" * (n % 3000)
    storage.save(encounter, path)
"""


@posix_only
def test_a_kill_during_saves_leaves_a_whole_file_and_the_next_save_cleans_up(demo: Encounter, tmp_path: Path) -> None:
    path = tmp_path / "fight.lnl"
    storage.save(demo, path)
    path.chmod(0o644)
    rng = random.Random(9)
    for _ in range(12):
        child = subprocess.Popen([sys.executable, "-c", SAVER, str(path)], stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.01, 0.15))
        child.kill()
        child.wait()
        # Whatever moment the kill hit, the file is a whole encounter, old or new.
        assert storage.load(path).combatants[0].name == demo.combatants[0].name
        assert mode(path) == 0o644
    leftovers = list(tmp_path.glob(".fight.lnl.*.tmp"))
    long_ago = time.time() - storage.STALE_TEMP_SECONDS - 10
    for temp in leftovers:
        os.utime(temp, (long_ago, long_ago))
    storage.save(demo, path)
    assert not list(tmp_path.glob(".fight.lnl.*.tmp"))

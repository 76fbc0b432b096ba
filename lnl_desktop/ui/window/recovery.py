"""Recovery folders and locks: one journal per running window, one lock per open file.

The recovery root (the app's data folder) holds ``windows/<id>/``, one folder per running
window with its :class:`~lnl_desktop.core.files.journal.Journal` and a ``QLockFile`` the window holds
while it runs. At start, only folders whose lock can be taken belong to no running window: those
are the work of a window that did not close cleanly, and only those are offered back or removed.
A folder with a part that could not be read is never removed: once the GM has decided, it moves
to ``kept/<id>/``, out of the way of the next start, and the GM is told where it is. A folder whose
lock file is not a file (a pipe would block the lock's read for ever) belongs to no window: it is
not read at all, and moves whole to ``kept/<id>/`` with the reason.
``locks/`` holds one lock per open encounter file, so a second window opening the same file
learns that it is in use and can only read it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QLockFile

from lnl_desktop.core.files import journal, storage
from lnl_desktop.core.files.journal import Journal, Recovered

WINDOWS = "windows"
KEPT = "kept"
LOCKS = "locks"
LOCK_NAME = "window.lock"


def _lock(path: Path) -> QLockFile:
    lock = QLockFile(str(path))
    # A window may hold its lock for hours: only a dead owner makes a lock stale, never its age.
    lock.setStaleLockTime(0)
    return lock


@dataclass
class Orphan:
    """The recovery folder of a window that is gone, locked by us while the GM decides."""

    folder: Path
    lock: QLockFile | None  # None for the single-file recovery of earlier versions, or an unlockable folder
    found: Recovered
    unlockable: bool = False  # its lock file is not a file: the folder was not read, and is kept whole

    @property
    def kept_at(self) -> Path | None:
        """Where the folder goes instead of away, when a part of it could not be read."""
        if (self.lock is None and not self.unlockable) or not self.found.unread:
            return None
        return self.folder.parent.parent / KEPT / self.folder.name

    def discard(self) -> Path | None:
        """The GM declined it, or it now lives in a new window's folder: remove it, unless a
        part of it could not be read; then it is kept, never deleted unread. Where it is kept."""
        if self.unlockable:
            return _keep_whole(self.folder, self.folder.parent.parent / KEPT / self.folder.name)
        if self.lock is None:
            _remove_legacy(self.folder)
        elif self.kept_at is not None:
            return _keep_folder(self.folder, self.lock, self.kept_at)
        else:
            _remove_folder(self.folder, self.lock)
        return None

    def release(self) -> None:
        if self.lock is not None:
            self.lock.unlock()


class WindowRecovery:
    """A running window's recovery folder: its journal, and the lock that says it is alive."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.lock = _lock(folder / LOCK_NAME)
        if not self.lock.tryLock(0):
            raise OSError(f"the recovery folder {folder} is in use")
        self.journal = Journal(folder)

    def exists(self) -> bool:
        """Whether anything is on disk to recover (unsaved work)."""
        return (self.folder / journal.META).exists()

    def close(self, *, keep: bool = False) -> None:
        """A clean close removes the folder; ``keep`` leaves the work as a crash would."""
        self.journal.close(keep=keep)
        if keep:
            self.lock.unlock()
        else:
            _remove_folder(self.folder, self.lock)


class RecoveryStore:
    """The recovery root: the running windows' folders and the open files' locks."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def open_window(self) -> WindowRecovery:
        return WindowRecovery(self.folder / WINDOWS / uuid.uuid4().hex)

    def orphans(self) -> list[Orphan]:
        """Work left by windows that are gone, newest first; each is locked until discarded,
        adopted or released. Folders with nothing in them are removed on the way; one whose work
        could not be read back at all is still listed (``found.encounter`` None), to be kept."""
        found: list[Orphan] = []
        root = self.folder / WINDOWS
        for folder in sorted(root.iterdir()) if root.is_dir() else []:
            if not folder.is_dir():
                continue
            damaged = _not_a_lock(folder / LOCK_NAME)
            if damaged:
                found.append(_unlockable(folder, damaged))
                continue
            lock = _lock(folder / LOCK_NAME)
            if not lock.tryLock(0):
                continue  # a running window's (or a start deciding about it right now)
            work = journal.recover(folder)
            if work is None:
                _remove_folder(folder, lock)
                continue
            found.append(Orphan(folder, lock, work))
        legacy = self._legacy()
        if legacy is not None:
            found.append(legacy)
        found.sort(key=lambda o: o.found.saved_at, reverse=True)
        return found

    def _legacy(self) -> Orphan | None:
        """``recovery.lnl`` of versions before the journal: offered once like any other."""
        from lnl_desktop.core.files import storage

        file = self.folder / "recovery.lnl"
        if not file.is_file():
            return None
        try:
            encounter = storage.load(file)
        except storage.EncounterFileError:
            return None
        return Orphan(self.folder, None, Recovered(encounter, None, file.stat().st_mtime, 0))

    def file_lock(self, path: Path) -> FileLock:
        return FileLock(self.folder / LOCKS, path)


def _not_a_lock(path: Path) -> str:
    """Why ``path`` cannot be a window's lock file ("" if it can, or is not there): Qt reads a lock
    file it cannot create, and a pipe there would block that read for ever."""
    try:
        info = os.stat(path)
    except OSError:
        return ""  # not there (or a link to nothing): Qt's lock creates it, or fails without waiting
    kind = storage.file_kind(info.st_mode)
    return f"{kind}, not a regular file" if kind else ""


def _unlockable(folder: Path, reason: str) -> Orphan:
    """A folder no window can hold: listed with the reason, none of its files read."""
    try:
        changed = os.lstat(folder).st_mtime
    except OSError:
        changed = 0.0
    problem = f"{LOCK_NAME} could not be read ({reason}), so no file of this folder was read"
    found = Recovered(None, None, changed, 0, problem, unread=[LOCK_NAME], reasons={LOCK_NAME: reason})
    return Orphan(folder, None, found, unlockable=True)


def _keep_whole(folder: Path, kept: Path) -> Path:
    """Move a whole recovery folder to ``kept`` (its lock file too, unopened); where it now is."""
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        if kept.exists():
            return folder
        os.replace(folder, kept)
    except OSError:
        return folder
    return kept


def _remove_folder(folder: Path, lock: QLockFile) -> None:
    """Remove a recovery folder whose lock we hold: the lock file goes last, with the lock."""
    for path in folder.iterdir():
        if path.name != LOCK_NAME:
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    lock.unlock()
    with contextlib.suppress(OSError):
        folder.rmdir()


def _keep_folder(folder: Path, lock: QLockFile, kept: Path) -> Path:
    """Move a recovery folder whose lock we hold to ``kept``; where its files now are (the folder
    itself if they could not be moved: the next start offers it again rather than lose it)."""
    try:
        kept.mkdir(parents=True, exist_ok=True)
        for path in folder.iterdir():
            if path.name != LOCK_NAME:
                os.replace(path, kept / path.name)
    except OSError:
        lock.unlock()
        return folder
    lock.unlock()
    with contextlib.suppress(OSError):
        folder.rmdir()
    return kept


def _remove_legacy(folder: Path) -> None:
    for name in ("recovery.lnl", "recovery.json"):
        (folder / name).unlink(missing_ok=True)


class FileLock:
    """The lock that says an encounter file is open in a window (by its resolved path)."""

    def __init__(self, folder: Path, path: Path) -> None:
        self.path = path
        key = hashlib.sha256(os.fsencode(os.path.realpath(path))).hexdigest()[:24]
        folder.mkdir(parents=True, exist_ok=True)
        self.lock = _lock(folder / f"{key}.lock")

    def acquire(self) -> bool:
        return self.lock.tryLock(0)

    def in_use(self) -> bool:
        """Whether another window holds it (looked at without keeping it)."""
        if self.lock.tryLock(0):
            self.lock.unlock()
            return False
        return True

    def holder(self) -> str:
        """Who holds it, in words: 'another window (process 1234)'."""
        with contextlib.suppress(Exception):
            info = self.lock.getLockInfo()
            if isinstance(info, tuple) and info and info[0]:
                return f"another window (process {info[0]})"
        return "another window"

    def release(self) -> None:
        self.lock.unlock()

"""The encounter file a window shows: its path, whether it is saved, New, Open, Save, Save As,
the lock that keeps a second window from saving over it, the recovery journal, the recent files
and the "unsaved changes" questions. The window listens to its signals (the title bar, the status
bar, the map fitting a new encounter) and keeps the menus and the layout."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.history import HistoryStep
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import Step
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.folders import Folders
from lnl_desktop.ui.window.recovery import FileLock, Orphan, RecoveryStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from lnl_desktop.ui.dialogs.rulesets import NewEncounterDialog

MAX_RECENT = 8
SYNC_AFTER_MS = 50  # a change's journal line handed to the disk's worker this long after it (after its frame)
# While changes go on, the whole encounter is rewritten at most this often (the journal in between).
SNAPSHOT_INTERVAL_MS = 3000
# After an open or a save, the journal's text of the encounter as it is then is made this much later
# (once the new encounter is painted), not at the GM's first change. The start has its own warm-up.
PREPARE_AFTER_MS = 400
FILE_FILTER = "Encounters (*.lnl);;All files (*)"


class Document(QObject):
    """One window's encounter file and its safety nets (the lock, the journal, the snapshots)."""

    titleChanged = Signal()  # the path, read-only or the saved state changed: the title bar says so
    message = Signal(str, int)  # words for the status bar, and for how many milliseconds
    replaced = Signal()  # another encounter is shown (opened, new, recovered): the map fits it
    recentChanged = Signal()  # the recent files list changed: its menu is listed again

    def __init__(
        self,
        controller: TableController,
        path: Path | None,
        host: QWidget,
        *,
        settings: QSettings,
        recovery: RecoveryStore,
    ) -> None:
        super().__init__(host)
        self.host = host  # the window the questions and warnings are asked over
        self.controller = controller
        self.settings = settings
        self.recovery = recovery
        # This window's journal: every change is on disk before the screen shows it.
        self.window_recovery = self.recovery.open_window()
        self.journal = self.window_recovery.journal
        self._journal_failed = False
        # The disk's wait for each line (written to the system already: a kill loses none) is handed to
        # the journal's worker a moment after the frame that shows the change, never in the middle of it
        # (a zero timer could run before the paints, and the woken worker take the interpreter from them).
        self.journal.hand_off_later = True
        self._sync_timer = QTimer(self, singleShot=True, interval=SYNC_AFTER_MS)
        self._sync_timer.timeout.connect(self.journal.sync_later)
        self.folders = Folders(self.settings, beside=lambda: self.path)  # where the file dialogs open
        self.controller.engine.subscribe_history(self._journal_step)
        self.path: Path | None = None
        self.file_lock: FileLock | None = None
        self.read_only = False  # the file is open in another window: Save writes elsewhere
        # Recovered work's file, as a recovery folder named it: the GM has not chosen it, so the
        # first Save asks in a Save As dialog (the file preselected) rather than write over it.
        self.recovered_from: Path | None = None
        # The question asked when the file is open in another window: True reads it read-only.
        self.confirm_read_only: Callable[[Path, str], bool] = lambda path, holder: ask_read_only(
            self.host, path, holder
        )
        self.new_dialog: NewEncounterDialog | None = None
        self._set_path(path)
        if path is not None:
            self._claim_file(path)
        self.journal.reset(controller.encounter, path, unsaved=False)
        self._prepare_timer = QTimer(self, singleShot=True, interval=PREPARE_AFTER_MS)
        self._prepare_timer.timeout.connect(self.prepare)
        self.snapshot_timer = QTimer(self, singleShot=True, interval=SNAPSHOT_INTERVAL_MS)
        self.snapshot_timer.timeout.connect(self.autosave)

    # -- the journal -------------------------------------------------------------------------

    def history_changed(self) -> None:
        """Undo, Redo or a new step: back at the saved state nothing is left to recover; otherwise
        a fresh copy of the whole encounter is written soon."""
        if self.controller.undo_stack.isClean():
            # Back at the saved state (undo): the file holds it, nothing to recover.
            self.snapshot_timer.stop()
            self._reset_journal(unsaved=False)
        elif not self.snapshot_timer.isActive():
            # Not restarted by each change: a GM who never pauses still gets a fresh copy.
            self.snapshot_timer.start()

    def _journal_step(self, step: HistoryStep) -> None:
        """The engine changed the encounter: write it down before any view hears of it."""
        try:
            self.journal.record(step, self.controller.encounter)
        except OSError as error:
            self._journal_error(error)
        else:
            self._journal_failed = False
            if not self._sync_timer.isActive():  # not put off by each change: synced within SYNC_AFTER_MS
                self._sync_timer.start()

    def _reset_journal(self, *, unsaved: bool, checkpoint: bool = False) -> None:
        try:
            self.journal.reset(self.controller.encounter, self.path, unsaved=unsaved, checkpoint=checkpoint)
        except OSError as error:
            self._journal_error(error)
        if not unsaved:
            self._prepare_timer.start()  # the first change then writes text made at an idle moment

    def prepare(self) -> None:
        """At an idle moment once the table is shown (opened, saved, at the start): what its first
        change needs, so that change does not wait for it: the journal's text of the encounter as it
        stands and the engine's undo shadow (tens of ms each on a map of hundreds of tokens)."""
        self.journal.prepare()
        self.controller.engine.prepare()

    def _journal_error(self, error: OSError) -> None:
        # Said once per failure streak: the GM should save, the table must not stop.
        if not self._journal_failed:
            self._journal_failed = True
            QMessageBox.warning(
                self.host,
                "Recovery copy not written",
                f"The recovery copy of this encounter could not be written ({error.strerror or error}). "
                "Work goes on, but save it now: a crash would lose the changes since the last save.",
            )

    def autosave(self) -> None:
        """Rewrite the whole encounter as the recovery base (the journal keeps the steps between)."""
        if self.is_dirty():
            self._reset_journal(unsaved=True, checkpoint=True)  # the journals before it keep the Undo history

    def close(self) -> None:
        """The window closes cleanly: nothing to recover, and the file is free for another window."""
        self.snapshot_timer.stop()
        self._prepare_timer.stop()
        self.window_recovery.close()  # a clean exit leaves nothing to recover
        self._release_file()

    # -- the file ----------------------------------------------------------------------------

    def _set_path(self, path: Path | None) -> None:
        self.path = path
        self.controller.base_dir = path.parent if path else None

    def is_dirty(self) -> bool:
        return not self.controller.undo_stack.isClean()

    def confirm_discard(self) -> bool:
        """Ask before unsaved work would be lost. True: go on (saved or discarded)."""
        if not self.is_dirty():
            return True
        answer = QMessageBox.question(
            self.host,
            "Unsaved changes",
            f"Save the changes to {self.path.name if self.path else self.controller.encounter.name}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_file(self) -> NewEncounterDialog | None:
        """Ask for the new encounter's name and ruleset (window-modal); it replaces this one when accepted."""
        from lnl_desktop.ui.dialogs.rulesets import NewEncounterDialog

        if not self.confirm_discard():
            return None
        dialog = NewEncounterDialog(self.controller.engine.ruleset.name, self.host)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)

        def create() -> None:
            encounter = dialog.encounter()
            if encounter is not None:
                self.replace(encounter, None)
                self.message.emit(f"New {self.controller.engine.ruleset.title} encounter", 5000)

        dialog.accepted.connect(create)
        dialog.finished.connect(dialog.deleteLater)
        self.new_dialog = dialog
        dialog.open()
        return dialog

    def open_demo(self, ruleset: str) -> bool:
        """A ruleset's built-in demo encounter, as an unsaved copy (the program's own file stays as it is)."""
        if not self.confirm_discard():
            return False
        name = get_ruleset(ruleset).demo()
        if name is None:
            return False
        # A built-in ruleset names its demo among the program's resources; an installed one gives a path.
        path = Path(name) if Path(name).is_absolute() else resource("encounters", name)
        try:
            encounter = storage.load(path)
        except RulesError as error:
            QMessageBox.warning(self.host, "Cannot open the demo", str(error))
            return False
        self.replace(encounter, None)
        self.message.emit(f"Opened the {get_ruleset(ruleset).title} demo (an unsaved copy)", 5000)
        return True

    def open_file(self) -> None:
        if not self.confirm_discard():
            return
        name, _ = QFileDialog.getOpenFileName(self.host, "Open encounter", self.folders.start(), FILE_FILTER)
        if name:
            self.folders.remember(Path(name))
            self.load(Path(name))

    def load(self, path: Path) -> bool:
        """Open an encounter file; a bad file opens nothing and the current encounter stays.

        A file open in another window is offered read-only (or not opened at all)."""
        try:
            encounter = storage.load(path)
        except RulesError as error:
            QMessageBox.warning(self.host, "Cannot open encounter", str(error))
            self.message.emit(f"Not opened: {str(error).splitlines()[0]}", 10000)
            return False
        lock = self.recovery.file_lock(path)
        if not self._holds_lock_for(path) and lock.in_use() and not self.confirm_read_only(path, lock.holder()):
            self.message.emit(f"Not opened: {path.name} is open in another window", 10000)
            return False
        self.replace(encounter, path)
        self._remember_recent(path)
        self.message.emit(f"Opened {path.name}{' read-only' if self.read_only else ''}", 5000)
        return True

    def replace(self, encounter: Encounter, path: Path | None) -> None:
        """Show ``encounter`` as just opened from ``path`` (None: an unsaved one)."""
        if path is None or not self._holds_lock_for(path):
            self._release_file()
            if path is not None:
                self._claim_file(path)
        self._set_path(path)
        self.recovered_from = None
        self.controller.replace_encounter(encounter)
        # Just opened is just saved: an empty stack's clear() would keep an earlier "never clean".
        self.controller.undo_stack.setClean()
        self.snapshot_timer.stop()
        self._reset_journal(unsaved=False)
        self.titleChanged.emit()
        self.replaced.emit()

    def adopt(self, orphan: Orphan) -> None:
        """Take over the work of a window that did not close cleanly: it becomes this window's
        unsaved work (in this window's journal), with its undo history, and the old folder goes
        (or is kept, when a part of it could not be read). The file the folder names stays the
        window's file (its folder, its lock, the title), but only a Save As the GM confirms writes
        to it: a recovery folder is never trusted to say where work is saved."""
        found = orphan.found
        if found.encounter is None:
            return  # nothing could be rebuilt: nothing to take over
        path = found.original if found.original is not None and found.original.exists() else None
        start = found.start if found.start is not None else found.encounter
        self.replace(start, path)
        # Each step again through the undo stack (and so into this window's journal): Undo works.
        replayed = found.start is not None and self._replay_steps(found.steps)
        if not replayed or self.controller.encounter.model_dump() != found.encounter.model_dump():
            self.replace(found.encounter, path)  # the work as it was read, without its history
        self.controller.undo_stack.resetClean()  # recovered work is unsaved work
        self.recovered_from = path
        if not self.window_recovery.exists():
            self._reset_journal(unsaved=True)
        kept = orphan.discard()
        self.titleChanged.emit()
        note = f" ({found.problem})" if found.problem else ""
        note += f"; the recovery folder is kept in {kept}" if kept else ""
        note += f"; Save asks where to save it, {path.name} offered" if path is not None else ""
        self.message.emit(f"Recovered the unsaved work on {found.summary}{note}", 15000)

    def _replay_steps(self, steps: list[Step]) -> bool:
        """Recovered steps, applied, undone and redone through the undo stack as the GM did them."""
        stack = self.controller.undo_stack
        for step in steps:
            if step.kind == "undo":
                if not stack.canUndo():
                    return False
                stack.undo()
            elif step.kind == "redo" and stack.canRedo():
                stack.redo()  # the very same faces: the engine keeps them with the undone action
            elif step.kind == "state" and step.encounter is not None:
                self.controller.replace_encounter(step.encounter)  # an undo past the last save
                self._reset_journal(unsaved=True)
            elif step.action is None or self.controller.do(step.action, ScriptedDice(list(step.faces))) is None:
                return False
        return True

    # -- the lock ----------------------------------------------------------------------------

    def _holds_lock_for(self, path: Path) -> bool:
        return self.file_lock is not None and not self.read_only and same_file(self.file_lock.path, path)

    def _claim_file(self, path: Path) -> bool:
        """Lock ``path`` for this window; when another window has it, this one only reads it."""
        lock = self.recovery.file_lock(path)
        self.read_only = not lock.acquire()
        self.file_lock = None if self.read_only else lock
        return not self.read_only

    def _release_file(self) -> None:
        if self.file_lock is not None:
            self.file_lock.release()
        self.file_lock = None
        self.read_only = False

    # -- saving ------------------------------------------------------------------------------

    def save(self) -> bool:
        """Save to the window's file; Save As when it has none, holds it read-only, or has it from
        a recovery folder (the GM confirms the place once)."""
        if self.path is None or self.read_only or self.recovered_from is not None:
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self) -> bool:
        start = str(self.path) if self.path else self.folders.start(f"{self.controller.encounter.name}.lnl")
        name, _ = QFileDialog.getSaveFileName(self.host, "Save encounter", start, FILE_FILTER)
        if not name:
            return False
        path = Path(name)
        self.folders.remember(path)
        if path.suffix != storage.SUFFIX:
            path = path.with_suffix(storage.SUFFIX)
        return self.save_to(path)

    def save_to(self, path: Path) -> bool:
        """Save to ``path``, which this window then holds; refused while another window has it open."""
        lock = None
        if not self._holds_lock_for(path):
            lock = self.recovery.file_lock(path)
            if not lock.acquire():
                QMessageBox.warning(
                    self.host,
                    "Cannot save",
                    f"{path.name} is open in {lock.holder()}: saving here would overwrite that window's "
                    "work. Save under another name, or close it there first.",
                )
                return False
        try:
            storage.save(self.controller.encounter, path)
        except OSError as error:
            if lock is not None:
                lock.release()
            QMessageBox.warning(
                self.host, "Cannot save", f"{path.name} could not be written: {error.strerror or error}"
            )
            return False
        if lock is not None:
            self._release_file()
            self.file_lock = lock
        self._set_path(path)
        self.recovered_from = None
        self.controller.undo_stack.setClean()
        self.snapshot_timer.stop()
        self._reset_journal(unsaved=False)
        self._remember_recent(path)
        self.titleChanged.emit()
        self.message.emit(f"Saved {path.name}", 5000)
        return True

    # -- recent files ------------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value or []]

    def _remember_recent(self, path: Path) -> None:
        entry = str(path.resolve())
        recent = [entry] + [p for p in self.recent_files() if p != entry]
        self.settings.setValue("recent_files", recent[:MAX_RECENT])
        self.recentChanged.emit()

    def open_recent(self, path: Path) -> None:
        if self.confirm_discard():
            self.load(path)

    def clear_recent(self) -> None:
        self.settings.setValue("recent_files", [])
        self.recentChanged.emit()


def same_file(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def ask_read_only(parent: QWidget | None, path: Path, holder: str) -> bool:
    """The file is open in another window: read it without saving over it, or leave it."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle("Encounter already open")
    box.setText(f"{path.name} is open in {holder}.")
    box.setInformativeText(
        "Open it read-only here? You can look and try things; Save will ask for another name, so "
        "the other window's work is never overwritten."
    )
    read_only = box.addButton("Open read-only", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(read_only)
    box.exec()
    return box.clickedButton() is read_only

"""The encounter file apart from the window: saving, opening, the lock, the journal, recent files."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import journal as journal_module
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import Journal
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.window.document import MAX_RECENT, Document
from lnl_desktop.ui.window.recovery import RecoveryStore

DocumentFactory = Callable[..., Document]


class Heard:
    """What a document told its window."""

    def __init__(self, document: Document) -> None:
        self.titles = 0
        self.replaced = 0
        self.recent = 0
        self.messages: list[str] = []
        document.titleChanged.connect(self._title)
        document.replaced.connect(self._replaced)
        document.recentChanged.connect(self._recent)
        document.message.connect(lambda text, _ms: self.messages.append(text))

    def _title(self) -> None:
        self.titles += 1

    def _replaced(self) -> None:
        self.replaced += 1

    def _recent(self) -> None:
        self.recent += 1


@pytest.fixture
def make_document(qtbot: QtBot, tmp_path: Path) -> Iterator[DocumentFactory]:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    recovery = RecoveryStore(tmp_path / "recovery")
    made: list[Document] = []

    def make(path: Path | None = None) -> Document:
        host = QWidget()
        qtbot.addWidget(host)
        encounter = storage.load(path or demo_encounter_path())
        document = Document(TableController(encounter, host), path, host, settings=settings, recovery=recovery)
        made.append(document)
        return document

    yield make
    for document in made:
        document.close()


def test_save_to_holds_the_file_and_says_so(make_document: DocumentFactory, tmp_path: Path) -> None:
    document = make_document()
    heard = Heard(document)
    assert document.path is None and not document.is_dirty()
    document.controller.do(act.EditCombatant("tombril", {"level": 11}))
    assert document.is_dirty()
    fight = tmp_path / "fight.lnl"
    assert document.save_to(fight)
    assert document.path == fight and document.file_lock is not None and not document.read_only
    assert not document.is_dirty() and storage.load(fight).combatant("tombril").level == 11
    assert document.controller.base_dir == tmp_path
    assert heard.messages == ["Saved fight.lnl"] and heard.titles == 1 and heard.recent == 1
    assert document.recent_files() == [str(fight.resolve())]


def test_a_second_document_on_a_held_file_asks_and_reads_it_read_only(
    make_document: DocumentFactory, tmp_path: Path
) -> None:
    fight = tmp_path / "fight.lnl"
    storage.save(storage.load(demo_encounter_path()), fight)
    first = make_document(fight)
    assert first.file_lock is not None
    second = make_document()
    heard = Heard(second)
    asked: list[tuple[Path, str]] = []
    answers = iter([False, True])

    def confirm(path: Path, holder: str) -> bool:
        asked.append((path, holder))
        return next(answers)

    second.confirm_read_only = confirm
    assert not second.load(fight)
    assert second.path is None and heard.replaced == 0
    assert heard.messages[-1] == "Not opened: fight.lnl is open in another window"
    assert second.load(fight)
    assert second.read_only and second.file_lock is None and heard.replaced == 1
    assert heard.messages[-1] == "Opened fight.lnl read-only"
    assert [path for path, _holder in asked] == [fight, fight]


def test_a_bad_file_opens_nothing(
    make_document: DocumentFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: QMessageBox.StandardButton.Ok)
    document = make_document()
    heard = Heard(document)
    bad = tmp_path / "bad.lnl"
    bad.write_text("not an encounter", encoding="utf-8")
    before = document.controller.encounter
    assert not document.load(bad)
    assert document.controller.encounter is before and document.path is None
    assert heard.messages[-1].startswith("Not opened: ") and heard.replaced == 0


def test_the_journal_follows_the_saved_state(make_document: DocumentFactory) -> None:
    document = make_document()
    document.controller.do(act.EditCombatant("tombril", {"level": 11}))
    document.history_changed()
    assert document.snapshot_timer.isActive()  # a fresh copy soon
    document.controller.undo_stack.undo()
    document.history_changed()
    assert not document.snapshot_timer.isActive()  # back at the saved state: nothing to recover


def test_an_opened_file_s_recovery_text_is_made_at_an_idle_moment_not_at_the_first_change(
    make_document: DocumentFactory, tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fight = tmp_path / "fight.lnl"
    storage.save(storage.load(demo_encounter_path()), fight)
    document = make_document()
    assert document.load(fight)
    opened = storage.dumps(document.controller.encounter)
    qtbot.waitUntil(lambda: document.journal._base_pending is None)  # made once the opened file is shown
    made: list[str] = []
    original = storage.dumps
    monkeypatch.setattr(storage, "dumps", lambda encounter: made.append("dumps") or original(encounter))
    monkeypatch.setattr(journal_module.Encounter, "model_dump_json", lambda *a, **k: made.append("json") or "")
    document.controller.do(act.EditCombatant("tombril", {"level": 11}))
    assert made == []  # the first change writes the text made before, nothing serialised on its way
    document.journal.wait_synced()
    folder = document.journal.folder
    assert (folder / f"base-{document.journal.generation}.lnl").read_text(encoding="utf-8") == opened


def test_the_recent_files_keep_the_newest_few(make_document: DocumentFactory, tmp_path: Path) -> None:
    document = make_document()
    heard = Heard(document)
    for number in range(MAX_RECENT + 2):
        assert document.save_to(tmp_path / f"fight-{number}.lnl")
    recent = document.recent_files()
    assert len(recent) == MAX_RECENT and recent[0] == str((tmp_path / f"fight-{MAX_RECENT + 1}.lnl").resolve())
    document.clear_recent()
    assert document.recent_files() == [] and heard.recent == MAX_RECENT + 3


# -- recovered work is saved where the GM says ---------------------------------------------------------


def work_left_for(root: Path, original: Path) -> None:
    """A recovery folder whose meta.json names ``original`` as the file the work belongs to."""
    engine = Engine(storage.load(demo_encounter_path()))
    journal = Journal(root / "recovery" / "windows" / "gone")
    journal.reset(engine.encounter, original, unsaved=False)
    engine.subscribe_history(lambda step: journal.record(step, engine.encounter))
    engine.apply(act.EditCombatant("tombril", {"level": 11}))
    journal.close(keep=True)


def test_the_first_save_after_a_recovery_asks_where_with_the_original_preselected(
    make_document: DocumentFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "elsewhere" / "someone-elses.lnl"
    outside.parent.mkdir()
    storage.save(storage.load(demo_encounter_path()), outside)
    before = outside.read_bytes()
    work_left_for(tmp_path, outside)
    [orphan] = RecoveryStore(tmp_path / "recovery").orphans()
    assert orphan.found.original == outside
    document = make_document()
    document.adopt(orphan)
    assert document.is_dirty() and document.controller.encounter.combatant("tombril").level == 11
    assert document.recovered_from == outside  # known, and shown, but not yet the GM's choice

    asked: list[str] = []

    def cancel(parent: object, caption: str, start: str, *args: object) -> tuple[str, str]:
        asked.append(start)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", cancel)
    assert not document.save()  # Ctrl+S: the Save As dialog, on the original
    assert asked == [str(outside)]
    assert outside.read_bytes() == before and document.is_dirty()
    # The question on closing, answered Save, asks the same way.
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Save)
    assert not document.confirm_discard()
    assert asked == [str(outside)] * 2 and outside.read_bytes() == before

    # The GM confirms the place: saved there, and from then on Save saves without asking.
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: asked.append(a[2]) or (a[2], ""))
    assert document.save()
    assert storage.load(outside).combatant("tombril").level == 11
    assert document.path == outside and document.recovered_from is None and not document.is_dirty()
    document.controller.do(act.EditCombatant("tombril", {"level": 12}))
    assert document.save()
    assert len(asked) == 3 and storage.load(outside).combatant("tombril").level == 12

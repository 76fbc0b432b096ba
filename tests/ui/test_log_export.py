"""The Round log dock's Export button writes the log in the chosen format."""

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.docks.log import RoundLog
from lnl_desktop.ui.plumbing.controller import TableController


@pytest.fixture
def log_dock(qtbot: QtBot) -> RoundLog:
    controller = TableController(storage.load(demo_encounter_path()))
    controller.do(act.EditCombatant("tombril", {"level": 10}))
    dock = RoundLog(controller)
    qtbot.addWidget(dock)
    return dock


def test_export_button_writes_html_when_html_is_chosen(
    log_dock: RoundLog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "session"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "HTML (*.html)"))
    log_dock.export_button.click()
    written = tmp_path / "session.html"
    assert "Tombril: level 9 → 10" in written.read_text(encoding="utf-8")


def test_a_failed_export_says_why(log_dock: RoundLog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    warnings: list[str] = []
    missing = tmp_path / "no-such-folder" / "log.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(missing), "CSV spreadsheet (*.csv)"))
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: warnings.append(text))
    assert log_dock.export() is None
    assert warnings and "log.csv could not be written" in warnings[0]

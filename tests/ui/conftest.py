"""Fixtures for the whole-window tests: a main window on its own settings and recovery folder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

WindowFactory = Callable[..., MainWindow]


@pytest.fixture
def laptop_window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WindowFactory:
    """A main window the size of a 1366 x 768 laptop's (less the window frame), active, on the
    demo or ``encounter``; "save changes?" is answered Discard so closing never blocks."""
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    recovery = RecoveryStore(tmp_path / "recovery")

    def make(encounter: Encounter | None = None, path: Path | None = None) -> MainWindow:
        encounter = encounter or storage.load(demo_encounter_path())
        window = MainWindow(encounter, path, settings=settings, recovery=recovery)
        qtbot.addWidget(window)
        window.resize(1366, 740)
        with qtbot.waitActive(window):  # keys go to the active window, as at the table
            window.show()
            window.activateWindow()
        return window

    return make


@pytest.fixture
def warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The warnings the window would show in a message box, as "title: text", answered Ok."""
    said: list[str] = []

    def warning(parent: Any, title: str, text: str, *args: Any) -> QMessageBox.StandardButton:
        said.append(f"{title}: {text}")
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", warning)
    return said


@pytest.fixture
def demo_window(laptop_window: WindowFactory) -> Iterator[MainWindow]:
    """The laptop-sized window on the demo; the application's theme and scale put back afterwards."""
    yield laptop_window()
    Presentation().apply(QApplication.instance())

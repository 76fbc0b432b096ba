"""Where the file dialogs open: beside the open encounter file when there is one; otherwise the
folder of the last file opened or saved (any kind: encounters, exported logs, pictures, maps), kept
in the settings between runs; the user's documents folder the very first time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

KEY = "files/last_folder"


class Folders:
    def __init__(self, settings: QSettings, beside: Callable[[], Path | None] = lambda: None) -> None:
        self.settings = settings
        self._beside = beside  # the open file, if any: the GM's work for this fight is kept next to it

    def folder(self) -> Path:
        current = self._beside()
        if current is not None and current.parent.is_dir():
            return current.parent.resolve()
        last = self.settings.value(KEY)
        if isinstance(last, str) and last and Path(last).is_dir():
            return Path(last)
        documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        if documents and Path(documents).is_dir():
            return Path(documents)
        return Path.home()

    def start(self, name: str = "") -> str:
        """The dialog's starting path: the folder, with ``name`` as the file name offered."""
        return str(self.folder() / name) if name else str(self.folder())

    def remember(self, path: Path) -> None:
        self.settings.setValue(KEY, str(path.parent.resolve()))

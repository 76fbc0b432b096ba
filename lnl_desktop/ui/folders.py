"""Where the file dialogs open: the user's documents folder the first time, then the folder of the
last file opened or saved (any kind: encounters, exported logs, background pictures), kept in the
settings between runs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

KEY = "files/last_folder"


class Folders:
    def __init__(self, settings: QSettings) -> None:
        self.settings = settings

    def folder(self) -> Path:
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

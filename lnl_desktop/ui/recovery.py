"""Autosave to a recovery file, offered again at the next start after a crash.

While there is unsaved work, the encounter is written (a few seconds after each change) to
``recovery.lnl`` in the app's data folder, with a small side file naming the document it belongs
to. A clean save or close removes both; finding them at start means the last run did not end
cleanly.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from lnl_desktop.core import storage
from lnl_desktop.core.model import Encounter


@dataclass
class Recovery:
    encounter: Encounter
    original: Path | None  # the file the work belonged to, if it had one
    saved_at: float  # seconds since the epoch


class RecoveryStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.file = folder / "recovery.lnl"
        self.meta = folder / "recovery.json"

    def write(self, encounter: Encounter, original: Path | None) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        storage.save(encounter, self.file)
        self.meta.write_text(
            json.dumps({"original": str(original) if original else None, "saved_at": time.time()}),
            encoding="utf-8",
        )

    def clear(self) -> None:
        self.file.unlink(missing_ok=True)
        self.meta.unlink(missing_ok=True)

    def exists(self) -> bool:
        return self.file.exists()

    def read(self) -> Recovery | None:
        """The recovered work, or None when there is none or it cannot be read (then it is dropped)."""
        if not self.file.exists():
            return None
        try:
            encounter = storage.load(self.file)
            meta = json.loads(self.meta.read_text(encoding="utf-8")) if self.meta.exists() else {}
        except (storage.EncounterFileError, ValueError, OSError):
            self.clear()
            return None
        original = meta.get("original")
        return Recovery(encounter, Path(original) if original else None, float(meta.get("saved_at", 0)))

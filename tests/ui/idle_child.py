"""A GM who opened a file and has not touched it yet, for the recovery tests to kill:
``python idle_child.py ROOT FILE``.

Opens FILE in a real window, prints ``prepared`` once the idle moment after the open has passed
(the recovery journal's text of the encounter made), then makes one change for each ``change`` line
read from its input and prints ``shown SHA`` once the window has shown it (SHA: the hash of the
whole encounter as saved). The parent kills it with SIGKILL and checks what comes back.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore


def fingerprint(window: MainWindow) -> str:
    return hashlib.sha256(storage.dumps(window.controller.encounter).encode()).hexdigest()[:16]


def main() -> None:
    root, path = Path(sys.argv[1]), Path(sys.argv[2])
    app = QApplication(sys.argv[:1])
    settings = QSettings(str(root / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(
        storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(root / "recovery")
    )
    window.show()
    app.processEvents()
    assert window.document.load(path)  # File > Open: the idle moment comes a little later
    while window.document.journal._base_pending is not None:
        app.processEvents()
    print("prepared", flush=True)
    facing = window.controller.encounter.tokens["janine"].facing
    for line in sys.stdin:
        if line.strip() == "change":
            facing = (facing + 45) % 360
            window.controller.do(act.Face("janine", facing))
            app.processEvents()
            print(f"shown {fingerprint(window)}", flush=True)


if __name__ == "__main__":
    main()

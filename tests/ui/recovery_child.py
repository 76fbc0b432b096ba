"""A GM at work in a real window, for the recovery tests to kill: ``python recovery_child.py ROOT PAUSE [FILE]``.

Applies one change every PAUSE seconds (a fight with rolled dice, then facings, notes and undos)
and prints ``shown N SHA`` once the window has shown change N, where SHA is the hash of the whole
encounter as saved. The parent kills it with SIGKILL and checks what comes back.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl.model import Attack, SurpriseSituation
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore


def fingerprint(window: MainWindow) -> str:
    return hashlib.sha256(storage.dumps(window.controller.encounter).encode()).hexdigest()[:16]


def main() -> None:
    root, pause = Path(sys.argv[1]), float(sys.argv[2])
    path = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    app = QApplication(sys.argv[:1])
    settings = QSettings(str(root / "settings.ini"), QSettings.Format.IniFormat)
    encounter = storage.load(path or demo_encounter_path())
    window = MainWindow(encounter, path, settings=settings, recovery=RecoveryStore(root / "recovery"))
    window.show()
    app.processEvents()
    print(f"ready {fingerprint(window)}", flush=True)
    fight = [
        act.StartCombat(SurpriseSituation.NOBODY, 5),
        act.BeginTurn("tombril"),
        act.Move("tombril", to=(14, 6)),
        Attack("tombril", "hill-giant", "Shortsword"),  # rolled by the app: the faces are journaled
        act.EndTurn(),
    ]
    for number in itertools.count(1):
        if number <= len(fight):
            window.controller.do(fight[number - 1])
        elif number % 4 == 0:
            window.controller.undo_stack.undo()
        elif number % 2:
            window.controller.do(act.Face("janine", (number * 45) % 360))
        else:
            window.controller.do(act.EditCombatant("janine", {"notes": f"note {number}"}))
        app.processEvents()
        print(f"shown {number} {fingerprint(window)}", flush=True)
        end = time.monotonic() + pause
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)


if __name__ == "__main__":
    main()

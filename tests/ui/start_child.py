"""The program started as the GM starts it, for the tests to look at: ``python start_child.py ROOT ANSWER [FILE]``.

Runs ``lnl_desktop.ui.window.app.run([FILE])`` with the app data folder ROOT/recovery (the one
``recovery_child.py`` writes to) and answers "Recover unsaved work?" with ANSWER ("yes" or "no").
Once the windows are up it prints one JSON line: what each window shows (file, title, whether
it is modified, its Undo history, the encounter's hash, and the table's after undoing every step) and
every message box the start showed; then it closes them, discarding their changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from lnl_desktop.core.files import storage
from lnl_desktop.ui.window import app as lnl_app
from lnl_desktop.ui.window import main_window as main_window_module
from lnl_desktop.ui.window.main_window import MainWindow

Button = QMessageBox.StandardButton


def fingerprint(window: MainWindow) -> str:
    return hashlib.sha256(storage.dumps(window.controller.encounter).encode()).hexdigest()[:16]


def table(encounter: storage.Encounter) -> str:
    """The encounter's hash without its round log."""
    return hashlib.sha256(encounter.model_dump_json(exclude={"log"}).encode()).hexdigest()[:16]


def describe(window: MainWindow) -> dict[str, Any]:
    stack = window.controller.undo_stack
    seen = {
        "path": str(window.document.path) if window.document.path else None,
        "title": window.windowTitle().replace("[*]", "*" if window.isWindowModified() else ""),
        "modified": window.isWindowModified(),
        "clean": stack.isClean(),
        "undo": [stack.text(i) for i in range(stack.index())],
        "shown": fingerprint(window),
    }
    while stack.canUndo():  # the GM pressing Undo until it is greyed out
        stack.undo()
    # The table as it was then (the round log keeps a line for each undo, so it is left out).
    seen["undone"] = table(window.controller.encounter)
    return seen


def main() -> None:
    root, answer = Path(sys.argv[1]), sys.argv[2]
    qt = QApplication(sys.argv[:1])
    main_window_module.default_recovery_folder = lambda: root / "recovery"
    said: list[dict[str, str]] = []

    def question(parent: object, title: str, text: str, *args: object, **kwargs: object) -> Button:
        said.append({"title": title, "text": text})
        if title == "Recover unsaved work?":
            return Button.Yes if answer == "yes" else Button.No
        return Button.Discard  # "save changes?" on closing

    def warning(parent: object, title: str, text: str, *args: object, **kwargs: object) -> Button:
        said.append({"title": title, "text": text})
        return Button.Ok

    QMessageBox.question = question  # type: ignore[method-assign,assignment]
    QMessageBox.warning = warning  # type: ignore[method-assign,assignment]

    def report() -> None:
        windows = [w for w in qt.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        print(json.dumps({"windows": [describe(w) for w in windows], "said": said}), flush=True)
        qt.closeAllWindows()
        qt.quit()

    QTimer.singleShot(0, report)
    sys.exit(lnl_app.run(sys.argv[3:]))


if __name__ == "__main__":
    main()

"""Starting the application: arguments, the QApplication, the first encounter, the smoke test."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from lnl_desktop import __version__
from lnl_desktop.core import storage
from lnl_desktop.core.errors import RulesError
from lnl_desktop.paths import demo_encounter_path


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="lnl-desktop", description="Laurels & Loot Desktop: a GM's combat table.")
    parser.add_argument("file", nargs="?", type=Path, help="an encounter file (.lnl); the demo encounter if omitted")
    parser.add_argument(
        "--smoke-test",
        action="store_true",
        help="start offscreen, load the encounter, render the window once and exit (0 = all well)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser.parse_args(argv)


def run(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    if args.smoke_test:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    path = args.file or demo_encounter_path()
    try:
        encounter = storage.load(path)
    except RulesError as error:
        print(f"lnl-desktop: {error}", file=sys.stderr)
        return 2

    from PySide6.QtWidgets import QApplication

    from lnl_desktop.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Laurels & Loot Desktop")
    app.setOrganizationName("Laurels & Loot")
    app.setApplicationVersion(__version__)
    window = MainWindow(encounter, path if args.file else None)
    window.show()
    if args.smoke_test:
        image = window.grab()
        ok = not image.isNull() and image.width() > 0
        elapsed = time.perf_counter() - started
        print(
            f"smoke test: {'ok' if ok else 'FAILED'}: {encounter.name!r}, {len(encounter.combatants)} combatants, "
            f"window {image.width()}x{image.height()} rendered in {elapsed:.2f} s"
        )
        window.close()
        return 0 if ok else 1
    return app.exec()

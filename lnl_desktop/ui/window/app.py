"""Starting the application: arguments, the QApplication, the first encounter, the smoke test."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from lnl_desktop import __version__
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.compiled import load_own
from lnl_desktop.lazy import loaded
from lnl_desktop.paths import demo_encounter_path, resource

# After the first paint, numpy is loaded ahead of the first drag (see run()).
WARM_UP_MS = 400

if TYPE_CHECKING:
    from PySide6.QtGui import QIcon

    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import Orphan, RecoveryStore


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
    # The start makes hundreds of thousands of objects that all live on (models, classes, items):
    # the cycle collector would walk them again and again for nothing (0.1-0.2 s on a big map).
    # The window brings it back on the GUI thread only (lnl_desktop.ui.plumbing.collector: a timer that collects as
    # the automatic collector would, whose first look comes once the window is up), or when the start ends.
    gc.disable()
    try:
        return _run(argv)
    finally:
        gc.enable()


def _run(argv: list[str] | None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    if args.smoke_test:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    path = args.file or demo_encounter_path()
    try:
        # The demo from its compiled form (checked when it was made), a GM's file read and checked.
        encounter = storage.load(path) if args.file else load_own(path)
    except RulesError as error:
        print(f"lnl-desktop: {error}", file=sys.stderr)
        return 2

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    skip_feature_scan()

    from lnl_desktop.ui.window.main_window import MainWindow, default_recovery_folder
    from lnl_desktop.ui.window.recovery import RecoveryStore

    x11_possible = sys.platform.startswith("linux") and os.environ.get("QT_QPA_PLATFORM", "xcb").startswith("xcb")
    if QApplication.instance() is None and x11_possible:
        from lnl_desktop.system_libraries import EXIT_MISSING_LIBRARY, check_before_first_window

        # Qt aborts with a raw plugin error when an X11 library is missing: name it and its package instead.
        problem = check_before_first_window()
        if problem:
            print(problem, file=sys.stderr)
            return EXIT_MISSING_LIBRARY
    app = QApplication.instance() or QApplication(sys.argv[:1])
    background = encounter.map.background
    if background is not None and background.data is not None:
        # On a worker while the window is built; after the QApplication: Qt's main thread is the first it sees.
        from lnl_desktop.ui.map.scene import decode_ahead

        decode_ahead(background.data)
    app.setApplicationName("Laurels & Loot Desktop")
    app.setOrganizationName("Laurels & Loot")
    app.setApplicationVersion(__version__)
    app.setWindowIcon(application_icon())
    # Wayland desktops take a window's icon from its .desktop file (packaging/linux/lnl-desktop.desktop).
    app.setDesktopFileName("lnl-desktop")

    if args.smoke_test:
        # A smoke test leaves no trace: its own settings and recovery folder.
        scratch = Path(tempfile.mkdtemp(prefix="lnl-smoke-"))
        settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
        recovery = RecoveryStore(scratch)
    else:
        settings = QSettings()
        recovery = RecoveryStore(default_recovery_folder())

    opened = path if args.file else None
    if opened is not None and recovery.file_lock(opened).in_use():
        from lnl_desktop.ui.window.document import ask_read_only

        if not ask_read_only(None, opened, recovery.file_lock(opened).holder()):
            return 0
    accepted = [] if args.smoke_test else offer_recovery(recovery)
    window = MainWindow(encounter, opened, settings=settings, recovery=recovery)
    windows = open_recovered(window, opened, accepted)
    for shown in windows:
        show_window(shown, maximized=not args.smoke_test and settings.value("window/geometry") is None)
    if args.smoke_test:
        app.processEvents()
        shown_at, cpu_at, main_at = time.time(), time.process_time(), time.thread_time()
        image = window.grab()
        ok = not image.isNull() and image.width() > 0
        elapsed = time.perf_counter() - started
        print(
            f"smoke test: {'ok' if ok else 'FAILED'}: {encounter.name!r}, {len(encounter.combatants)} combatants, "
            f"window {image.width()}x{image.height()} rendered in {elapsed:.2f} s"
        )
        if os.environ.get("LNL_REPORT_MODULES"):
            # The start-up benchmark: when the window was shown (wall clock, to compare with the
            # moment it launched the process) and that charts stay off the start path.
            print(f"shown at: {shown_at:.6f}")
            print(f"processor time: {cpu_at:.6f}")  # seconds of this process's own work: less noisy
            print(f"main thread time: {main_at:.6f}")  # of it, the GUI thread's (a worker decodes the picture)
            print(f"pyqtgraph: {'yes' if 'pyqtgraph' in sys.modules else 'no'}")
            print(f"numpy: {'yes' if loaded('numpy') else 'no'}")
            print(f"class code: {class_code_report()}")
            print(f"modules: {' '.join(sorted(name for name in sys.modules if name.startswith('lnl_desktop')))}")
            print(f"qt classes: {' '.join(qt_classes_made())}")
        window.close()
        return 0 if ok else 1
    # Once the window is on screen, at an idle moment: what the first hover or drag on the map would
    # otherwise wait a tenth of a second for (numpy, for reach, paths and sight), and the recovery
    # journal's text of the encounter as opened (pydantic's serializer) and the engine's undo shadow,
    # which the first change needs.
    QTimer.singleShot(WARM_UP_MS, lambda: warm_up(windows))
    return app.exec()


def warm_up(windows: list[MainWindow]) -> None:
    from lnl_desktop.memory_pages import small_pages
    from lnl_desktop.ui.plumbing.fight_odds import load_simulator

    small_pages()  # no 5 ms huge-page fault in the middle of a frame from now on
    load_simulator()  # numpy too
    for window in windows:
        window.document.prepare()
    if windows:
        from lnl_desktop.ui.plumbing.warm import build_models_later

        build_models_later(windows[0])


def qt_classes_made() -> list[str]:
    """The Qt classes PySide6 has made so far ("QtWidgets.QLabel"): it makes each at its first use,
    with its enums, and the start-up benchmark's floor makes the same ones."""
    made = []
    for name in ("QtCore", "QtGui", "QtWidgets"):
        module = sys.modules.get(f"PySide6.{name}")
        made += [f"{name}.{key}" for key, value in vars(module).items() if isinstance(value, type)] if module else []
    return sorted(made)


def class_code_report() -> str:
    """How the dataclasses' methods were made (lnl_desktop/class_code.py): "912 kept, 0 compiled"."""
    from lnl_desktop import class_code

    kept = class_code.installed()
    return "not installed" if kept is None else f"{len(kept.used) - kept.compiled} kept, {kept.compiled} compiled"


def skip_feature_scan() -> None:
    """PySide6 reads the source of every module imported after it (``inspect.getsource``, which walks
    ``sys.modules`` each time) to learn whether it uses PySide6, for its ``from __feature__ import``
    options: a tenth of a second of the start for the window's hundreds of modules. No module of this
    program or its libraries selects a feature, so each is taken as using PySide6 with none selected
    (what the scan finds for this program's modules). PySide's internals: left alone if they changed."""
    feature = sys.modules.get("shibokensupport.feature")
    if callable(getattr(feature, "_mod_uses_pyside", None)):
        feature._mod_uses_pyside = _uses_pyside  # type: ignore[union-attr]


def _uses_pyside(module: object) -> bool:
    return True


def application_icon() -> QIcon:
    """The application's icon at every size in resources/icons (packaging/make_icons.py draws them)."""
    from PySide6.QtGui import QIcon

    icon = QIcon()
    for png in sorted(resource("icons").glob("lnl-desktop-*.png")):
        icon.addFile(str(png))  # only the header is read now, the pixels when that size is drawn
    return icon


def show_window(window: MainWindow, *, maximized: bool) -> None:
    if maximized:
        window.showMaximized()  # the first run: give the map the whole screen
    else:
        window.show()


def open_recovered(window: MainWindow, opened: Path | None, accepted: list[Orphan]) -> list[MainWindow]:
    """The first window and one beside it for each piece of recovered work; the first window
    takes over only the work on its own file, or (no file named) the first work in place of the demo.
    A file named on the command line is never replaced by another file's work."""
    from lnl_desktop.ui.window.document import same_file
    from lnl_desktop.ui.window.main_window import MainWindow

    windows = [window]
    free = True  # the first window still shows just what it opened
    for orphan in accepted:
        original = orphan.found.original
        if free and (opened is None or (original is not None and same_file(original, opened))):
            free = False
            window.document.adopt(orphan)
            continue
        beside = MainWindow(orphan.found.encounter, settings=window.settings, recovery=window.document.recovery)
        beside.document.adopt(orphan)
        windows.append(beside)
    return windows


def offer_recovery(recovery: RecoveryStore) -> list[Orphan]:
    """Offer the work of every window that did not close cleanly (never a running window's).

    Returns the ones the GM wants back, still locked for adopting; declined ones are removed,
    except a folder with a part that could not be read: that one is kept, and the GM told where."""
    from PySide6.QtWidgets import QMessageBox

    accepted = []
    for orphan in recovery.orphans():
        found = orphan.found
        when = datetime.fromtimestamp(found.saved_at).strftime("%a %d %b %H:%M:%S")
        kept = ""
        if orphan.kept_at is not None:
            kept = f"\n\n{found.damage()}: the recovery folder is kept in {orphan.kept_at}."
        if found.encounter is None:
            QMessageBox.warning(
                None,
                "Unsaved work not recovered",
                f"Laurels & Loot Desktop did not close cleanly, and the unsaved work on {found.summary}, "
                f"last changed {when}, could not be read back: {found.problem}.{kept}",
            )
            orphan.discard()
            continue
        note = f"\n\nOnly part of it could be read back: {found.problem}." if found.problem else ""
        then = "keeps the folder" if orphan.kept_at else "deletes it"
        answer = QMessageBox.question(
            None,
            "Recover unsaved work?",
            f"Laurels & Loot Desktop did not close cleanly. Unsaved work on {found.summary} "
            f"was kept, last changed {when}.{note}{kept}\n\nRecover it? (No {then}.)",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes,
        )
        if answer == QMessageBox.StandardButton.Yes:
            accepted.append(orphan)
        else:
            orphan.discard()
    return accepted

"""The README's laptop and projector screenshots, from a real window on a real X server.

Offscreen ``grab()`` hides focus, layout and stale-overlay problems, so these pictures are taken
the way a GM sees the program: each screen size gets its own Xvfb with a small window manager, the
main window is maximized with the demo (the UI scale preset in its settings), the round is begun
with real keys and mouse events sent through the X server by xdotool (Ctrl+Return, the d6's face
typed, Return; a click on Tombril's token; a drag next to the Hill Giant), and the whole screen is
captured with ImageMagick's ``import``.

Needs Debian's ``xvfb``, ``openbox``, ``xdotool`` and ``imagemagick``. From the project:

    .venv/bin/python docs/table_screenshots.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"

# (file, screen width, screen height, UI scale %)
SCREENS = [("laptop-1366x768.png", 1366, 768, 100), ("projector-1920x1080-150.png", 1920, 1080, 150)]


def outside() -> int:
    """Start an X server per screen size and run this script inside it."""
    for number, (name, width, height, scale) in enumerate(SCREENS):
        display = f":{91 + number}"
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb")
        xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{width}x{height}x24"], stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        wm = subprocess.Popen(["openbox"], env=env, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        try:
            subprocess.run([sys.executable, __file__, "--inside", str(OUT / name), str(scale)], env=env, check=True)
            print(f"{(OUT / name).relative_to(ROOT)}: {width} x {height} at {scale} %")
        finally:
            wm.terminate()
            xvfb.terminate()
    return 0


def inside(out: Path, scale: int) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.core import storage
    from lnl_desktop.paths import demo_encounter_path
    from lnl_desktop.ui.main_window import MainWindow
    from lnl_desktop.ui.recovery import RecoveryStore

    app = QApplication([sys.argv[0]])
    scratch = Path(tempfile.mkdtemp(prefix="lnl-shots-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("presentation/scale", scale)
    window = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(scratch))
    window.showMaximized()
    QTest.qWait(2500)

    def xdo(*args: str, wait: int = 700) -> None:
        subprocess.run(["xdotool", *args], check=True)
        QTest.qWait(wait)

    def on_screen(cid: str, dx: int = 0, dy: int = 0) -> tuple[str, str]:
        view = window.map_view
        x, y = window.controller.encounter.tokens[cid].cell
        point = view.viewport().mapToGlobal(view.mapFromScene(view.scene_point_of((x + dx, y + dy))))
        return str(point.x()), str(point.y())

    xdo("key", "ctrl+Return", wait=1200)  # Start combat…
    xdo("type", "5")  # the face the GM's d6 shows: Party acts first
    xdo("key", "Return", wait=1200)
    xdo("mousemove", *on_screen("tombril"))
    xdo("click", "1", wait=1200)  # Tombril's turn begins
    xdo("mousedown", "1")
    for step in range(1, 7):  # next to the Hill Giant, cell by cell
        xdo("mousemove", *on_screen("tombril", step, 0), wait=150)
    xdo("mouseup", "1", wait=1500)
    subprocess.run(["import", "-window", "root", str(out)], check=True)
    window.controller.undo_stack.setClean()  # nothing to ask on close
    window.close()
    app.quit()
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        sys.exit(inside(Path(sys.argv[2]), int(sys.argv[3])))
    sys.exit(outside())

"""The README's laptop and projector screenshots, from a real window on a real X server.

Offscreen ``grab()`` hides focus, layout and stale-overlay problems, so these pictures are taken
the way a GM sees the program: each screen size gets its own Xvfb with a small window manager, the
main window is maximized with the demo (the UI scale preset in its settings), the round is begun
with real keys and mouse events sent through the X server by xdotool (Ctrl+Return, the d6's face
typed, Return; a click on Tombril's token; a drag next to the Hill Giant), and the whole screen is
captured with ImageMagick's ``import``.

Needs Debian's ``xvfb``, ``openbox``, ``xdotool`` and ``imagemagick``. From the project:

    .venv/bin/python docs/table_screenshots.py [imported-map.png ...]
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"

# (file, screen width, screen height, UI scale %, scene)
SCREENS = [
    ("laptop-1366x768.png", 1366, 768, 100, "round"),
    ("projector-1920x1080-150.png", 1920, 1080, 150, "round"),
    ("imported-map.png", 1600, 900, 100, "imported"),
    ("player-view-fog.png", 1600, 900, 100, "fog"),
    ("lit-dungeon.png", 1600, 900, 100, "lit"),
    ("lit-dungeon-players.png", 1600, 900, 100, "lit-players"),
    ("area-lnl.png", 1366, 768, 100, "area-lnl"),
    ("area-classic.png", 1366, 768, 100, "area-classic"),
    ("area-osr.png", 1366, 768, 100, "area-osr"),
    ("area-d10.png", 1366, 768, 100, "area-d10"),
    ("area-d10-log.png", 1366, 768, 100, "area-d10-log"),
    ("fight-odds-1366x768.png", 1366, 768, 100, "odds"),
    ("fight-odds-projector-150.png", 1920, 1080, 150, "odds"),
]

# RULES §14 scenes: the demo, the template's shape, its origin and where the drag ends (cells), the
# free effect's name and dice (None: the active caster's own means).
AREAS = {
    "lnl": ("hill-giant.lnl", "cone", (9.0, 7.5), (15.3, 7.6), "Burning oil", "3d6"),
    "classic": ("hill-giant-classic.lnl", "circle", (14.0, 7.0), (17.0, 7.0), "Falling rocks", "2d6"),
    "osr": ("goblin-ambush-osr.lnl", "circle", (9.0, 8.0), (11.0, 8.0), "Fire bomb", "2d6"),
    "d10": ("bandit-mill-d10.lnl", "circle", (15.0, 7.0), (19.0, 7.0), "Fire bomb", "2d6"),
}

# A small keep, drawn as a map maker would export it: (x0, y0, x1, y1) rooms in cells, the doors
# between them (a, b, closed) and the picture's pixels per cell.
ROOMS = [(1, 1, 9, 8), (9, 1, 17, 8), (1, 8, 9, 15), (9, 8, 17, 15), (17, 4, 23, 11)]
DOORS = [((9, 4), (9, 5), False), ((5, 8), (6, 8), True), ((13, 8), (14, 8), True), ((17, 7), (17, 8), False)]
PPG = 48


def keep_map(path: Path) -> Path:
    """A Universal VTT file (format 0.3) of the keep: its picture, its walls and its doors."""
    import base64
    import json

    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF
    from PySide6.QtGui import QColor, QImage, QPainter, QPen

    width, height = 24, 16
    # Each room's outline a cell edge at a time, shared edges once, and gaps where the doors are,
    # as map makers export them; runs along a line are joined again.
    edges: set[tuple[tuple[int, int], tuple[int, int]]] = set()
    for x0, y0, x1, y1 in ROOMS:
        edges |= {((x, y), (x + 1, y)) for x in range(x0, x1) for y in (y0, y1)}
        edges |= {((x, y), (x, y + 1)) for y in range(y0, y1) for x in (x0, x1)}
    edges -= {(a, b) for a, b, _closed in DOORS}
    walls: list[list[tuple[float, float]]] = [[a, b] for a, b in sorted(edges)]
    image = QImage(width * PPG, height * PPG, QImage.Format.Format_RGB32)
    image.fill(QColor("#2b2b2b"))
    painter = QPainter(image)
    for index, (x0, y0, x1, y1) in enumerate(ROOMS):
        painter.fillRect(
            QRectF(x0 * PPG, y0 * PPG, (x1 - x0) * PPG, (y1 - y0) * PPG), QColor(("#c9b48a", "#bda77c")[index % 2])
        )
    painter.setPen(QPen(QColor(0, 0, 0, 40), 1))
    for x in range(width + 1):
        painter.drawLine(x * PPG, 0, x * PPG, height * PPG)
    for y in range(height + 1):
        painter.drawLine(0, y * PPG, width * PPG, y * PPG)
    painter.setPen(QPen(QColor("#1a1a1a"), 10))
    for line in walls:
        for a, b in itertools.pairwise(line):
            painter.drawLine(QPointF(a[0] * PPG, a[1] * PPG), QPointF(b[0] * PPG, b[1] * PPG))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")

    def pts(*xy: tuple[float, float]) -> list[dict[str, float]]:
        return [{"x": x, "y": y} for x, y in xy]

    document = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": width, "y": height}, "pixels_per_grid": PPG},
        "line_of_sight": [pts(*line) for line in walls],
        "objects_line_of_sight": [],
        "portals": [
            {
                "position": {"x": a[0], "y": a[1]},
                "bounds": pts(a, b),
                "rotation": 0,
                "closed": closed,
                "freestanding": False,
            }
            for a, b, closed in DOORS
        ],
        "lights": [],
        "image": base64.b64encode(bytes(data.data())).decode("ascii"),
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def outside(only: list[str]) -> int:
    """Start an X server per screen size and run this script inside it (``only``: these files)."""
    for number, (name, width, height, scale, scene) in enumerate(SCREENS):
        if only and name not in only:
            continue
        display = f":{91 + number}"
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb")
        xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{width}x{height}x24"], stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        wm = subprocess.Popen(["openbox"], env=env, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        try:
            subprocess.run(
                [sys.executable, __file__, "--inside", str(OUT / name), str(scale), scene], env=env, check=True
            )
            print(f"{(OUT / name).relative_to(ROOT)}: {width} x {height} at {scale} %")
        finally:
            wm.terminate()
            xvfb.terminate()
    return 0


def inside(out: Path, scale: int, scene: str) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.core.files import storage
    from lnl_desktop.paths import demo_encounter_path
    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    app = QApplication([sys.argv[0]])
    scratch = Path(tempfile.mkdtemp(prefix="lnl-shots-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("presentation/scale", scale)
    path = demo_encounter_path()
    if scene.startswith("area-"):
        path = Path(path).parent / AREAS[scene.split("-")[1]][0]
    window = MainWindow(storage.load(path), settings=settings, recovery=RecoveryStore(scratch))
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

    if scene.startswith("area-"):
        return area(window, out, scene, xdo)
    if scene == "odds":
        return odds(window, out, xdo)
    if scene != "round":
        return keep(window, scratch, out, scene, xdo)
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


def area(window: Any, out: Path, scene: str, xdo: Any) -> int:
    """RULES §14: the Template tool's key, a template dragged out with the mouse through the X server,
    the Area effect dialog it opens with every creature struck and its odds; for "-log", the effect
    applied with typed faces and the round log's entry."""
    from PySide6.QtCore import QPointF
    from PySide6.QtTest import QTest

    from lnl_desktop.core.map.areas import AreaShape
    from lnl_desktop.ui.dialogs.faces import dice_asked, engine_dry_run

    ruleset = scene.split("-")[1]
    _, shape, start, end, name, dice = AREAS[ruleset]
    view = window.map_view

    def screen(point: tuple[float, float]) -> tuple[str, str]:
        where = view.viewport().mapToGlobal(view.mapFromScene(QPointF(point[0] * 64, point[1] * 64)))
        return str(where.x()), str(where.y())

    xdo("mousemove", *screen(start), wait=300)
    xdo("key", "a", wait=500)  # the Template tool
    view.template_style.shape = AreaShape(shape)
    xdo("mousedown", "1", wait=300)
    for step in range(1, 9):
        t = step / 8
        xdo("mousemove", *screen((start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t)), wait=120)
    xdo("mouseup", "1", wait=1500)
    dialog = view.area_dialog
    dialog.name_edit.setText(name)
    dialog.dice_edit.setText(dice)
    dialog.dc_spin.setValue(13)
    QTest.qWait(800)
    if scene.endswith("-log"):
        asked = dice_asked(engine_dry_run(window.controller.encounter, dialog.action())) or []
        faces = [4, 5] + [min(d.sides, 9 + i * 3) for i, d in enumerate(asked[2:])]
        dialog.apply_faces(faces[: len(asked)])
        window.docks["Round log"].raise_()
        QTest.qWait(1200)
    subprocess.run(["import", "-window", "root", str(out)], check=True)
    window.controller.undo_stack.setClean()
    window.close()
    return 0


def odds(window: Any, out: Path, xdo: Any) -> int:
    """The Odds dock mid-fight (the seed's first exchange: the Giant at 37 SP, Tombril at 12)
    with a what-if pinned (Tombril retreats), and the Turns dock above it."""
    import time as clock

    from PySide6.QtWidgets import QApplication

    from lnl_desktop.core.encounter import actions as act

    controller = window.controller
    controller.do(act.StartCombat(face=5))
    controller.do(act.SetHealth("hill-giant", "stamina", 37))
    controller.do(act.SetHealth("tombril", "stamina", 12))
    window.docks["Odds"].show()
    window.docks["Odds"].raise_()
    panel = window._panel("Odds")

    def settle(done: Any) -> None:  # sleeping lets the worker run (a Qt wait would keep the interpreter)
        deadline = clock.monotonic() + 30
        while not done() and clock.monotonic() < deadline:
            clock.sleep(0.05)
            QApplication.processEvents()

    settle(lambda: panel.odds is not None and panel.odds.fights == 10_000)
    panel.who_combo.setCurrentIndex(panel.who_combo.findData("tombril"))
    panel.plan_combo.setCurrentIndex(0)
    panel.pin_button.click()
    settle(lambda: panel.whatif_odds is not None)
    xdo("mousemove", "5", "5", wait=800)
    subprocess.run(["import", "-window", "root", str(out)], check=True)
    window.controller.undo_stack.setClean()
    window.close()
    return 0


def lit_keep(controller: Any) -> None:
    """The keep in the dark: Tombril's torch, a lantern by the Hill Giant, a candle in the east room,
    the GM's notes (a trap shown to the players, the altar for the GM only), and conditions on tokens."""
    from lnl_desktop.core.encounter import actions as act

    controller.do(act.SetAmbientLight("dark"))
    controller.do(act.PlaceLight(kind="torch", carrier="tombril"))
    controller.do(act.PlaceLight(kind="lantern", cell=(12, 10)))
    controller.do(act.PlaceLight(kind="candle", cell=(20, 6)))
    controller.do(act.AddDrawing("rectangle", ((5.0, 3.0), (7.0, 5.0)), colour="#cc3311", width=3, shown=True))
    controller.do(act.AddDrawing("text", ((5.0, 2.4),), colour="#cc3311", width=4, text="trap", shown=True))
    controller.do(act.AddDrawing("ellipse", ((18.0, 8.0), (21.0, 10.0)), colour="#7a3cc2", width=3))
    controller.do(act.AddDrawing("text", ((18.2, 10.6),), colour="#7a3cc2", width=4, text="the altar"))
    controller.do(act.AddDrawing("freehand", ((2.5, 7.5), (3.5, 9.0), (4.5, 10.0), (6.0, 10.5)), colour="#1b7a3a"))
    controller.do(act.EditCombatant("janine", {"conditions": ["prone"]}))
    controller.do(act.EditCombatant("half-orc", {"conditions": ["stunned", "grappled"]}))
    controller.do(act.Move("tombril", to=(7, 4), forced=True))  # to the open door's side


def keep(window: Any, scratch: Path, out: Path, scene: str, xdo: Any) -> int:
    """The keep imported by dropping nothing but keys: File ▸ Import map… (the file dialog answered
    with the generated map), the demo's tokens set in its rooms, then either the GM's window or the
    player view with fog of war."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QFileDialog

    from lnl_desktop.core.encounter import actions as act
    from lnl_desktop.ui.dialogs.import_map import IMPORT_FILTER

    path = keep_map(scratch / "The Keep.dd2vtt")
    QFileDialog.getOpenFileName = lambda *a, **k: (str(path), IMPORT_FILTER)  # the file the GM picks
    controller = window.controller
    for cid in list(controller.encounter.tokens):
        controller.do(act.RemoveToken(cid))
    xdo("key", "ctrl+i", wait=2500)  # File ▸ Import map…
    places = {
        "tombril": (3, 4),
        "cedryk": (4, 6),
        "janine": (2, 5),
        "half-orc": (13, 3),  # seen through the open door
        "hill-giant": (12, 11),  # behind a closed door
        "half-orc-glaive": (19, 6),
        "half-orc-archer": (5, 12),  # behind a closed door
    }
    for cid, cell in places.items():
        controller.do(act.PlaceToken(cid, cell, 90 if cell[0] < 9 else 270))
    controller.do(act.SetFog(True))
    if scene.startswith("lit"):
        lit_keep(controller)
    QTest.qWait(800)
    if scene in ("fog", "lit-players"):
        if scene == "fog":
            controller.do(act.Move("tombril", to=(7, 4), forced=True))  # to the open door's side
        window.show_player_view(True)
        view = window.player_view
        view.setGeometry(QApplication.primaryScreen().availableGeometry())
        QTest.qWait(2000)
    subprocess.run(["import", "-window", "root", str(out)], check=True)
    window.controller.undo_stack.setClean()
    window.close()
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        sys.exit(inside(Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
    sys.exit(outside(sys.argv[1:]))

"""Checks of a frozen bundle beyond ``--smoke-test``: what the trimmed bundle must still do.

The bundle's launcher runs ``main()`` instead of the app when ``LNL_BUNDLE_SELF_CHECK=1`` is set
(packaging/smoke_test.py does; nothing else does, and without the variable this module is not
even imported). Offscreen, it checks what the start-up path does not reach:

- the Forecast dock's chart: pyqtgraph imports (with PySide6 only) and draws bars; in the bundle
  with the stand-ins for Qt's OpenGL modules, which are left out (pyi_rth_qt_opengl_left_out.py);
- numpy as the bundle has it (on Linux built without OpenBLAS): the core's movement and sight on a
  map with walls and a door, and the forecast's dice distributions, against known answers;
- JPEG and PNG images (the ``imageformats`` plugin kept for battle map backgrounds; icons);
- the application icon from resources/icons and every other resource file, every bestiary (in the
  bundle under ``sys._MEIPASS``; installed from the wheel, the package's own ``lnl_desktop/resources``);
- a Universal VTT map file imported into the demo (walls, a door, its picture);
- ICU through Qt: collation, legacy codecs, locale case mapping, time zone names (on Linux the
  bundle carries trimmed ICU data, see packaging/elf_trim.py);
- no other Qt binding is in the bundle;
- the parts the start path leaves for first use (the side panel's tabs, the demo menu, dialogs).

``python3 packaging/bundle_self_check.py icu`` runs only the ICU part under a normal Python;
elf_trim.py uses that to vet the trimmed ICU data before it goes into the bundle.
It prints one line per check and exits 0 only if all pass. With ``LNL_SELF_CHECK_SCREENSHOT=FILE.png``
it also saves the main window, forecast showing, as the bundle drew it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path


def check_icu() -> None:
    from PySide6.QtCore import QCollator, QDateTime, QLocale, QStringDecoder, QStringEncoder, QTimeZone

    collator = QCollator(QLocale("de_DE"))
    assert collator.compare("Äpfel", "Zebra") < 0, "collation"
    collator.setNumericMode(True)
    assert collator.compare("file2", "file10") < 0, "numeric collation"
    assert sorted(["b", "A", "a"], key=QCollator(QLocale("en_US")).sortKey) == ["a", "A", "b"], "sort keys"
    assert "Shift_JIS" in QStringDecoder.availableCodecs(), "codec names"
    assert QStringDecoder("Shift_JIS").isValid() and QStringEncoder("windows-1252").isValid(), "legacy codecs"
    assert QLocale("tr_TR").toUpper("i") == "\u0130", "locale case mapping"
    zone = QTimeZone(b"Europe/Berlin")
    assert zone.isValid() and zone.displayName(QDateTime.currentDateTime()), "time zone name"


def check_chart() -> str | None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.core.files import storage
    from lnl_desktop.paths import demo_encounter_path
    from lnl_desktop.ui.plumbing.controller import AttackPlan
    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    scratch = Path(tempfile.mkdtemp(prefix="lnl-self-check-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(scratch))
    window.show()
    window.controller.set_plan(AttackPlan(attacker="tombril", target="hill-giant", means="Shortsword"))
    window.show_forecast()
    panel = window.forecast_panel
    deadline = time.monotonic() + 10
    while panel.plot is None and time.monotonic() < deadline:  # built once its tab is painted
        QApplication.processEvents()
        time.sleep(0.01)
    assert "pyqtgraph" in sys.modules, "pyqtgraph not loaded"
    assert panel.plot is not None, "no chart"
    assert panel.bar_count() > 10, f"{panel.bar_count()} bars"
    assert not panel.plot.grab().isNull(), "the chart did not render"
    screenshot = os.environ.get("LNL_SELF_CHECK_SCREENSHOT")  # to look at what the bundle draws
    if screenshot:
        window.grab().save(screenshot)
    bindings = [name for name in ("PyQt5", "PyQt6", "PySide2") if name in sys.modules]
    assert not bindings, f"pyqtgraph loaded {bindings}"
    window.close()
    if getattr(sys, "frozen", False):  # the bundle: pyqtgraph got the stand-ins, which refuse OpenGL
        import pyqtgraph

        for name in ("PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets"):
            assert getattr(sys.modules.get(name), "__lnl_left_out__", False), f"{name} is not the stand-in"
        widget = pyqtgraph.PlotWidget()
        try:
            widget.useOpenGL(True)
        except ImportError as error:
            assert "not in this bundle" in str(error), error
        else:
            raise AssertionError("an OpenGL viewport was made without Qt's OpenGL modules")
        finally:
            widget.deleteLater()
        return "Qt OpenGL left out, pyqtgraph given stand-ins"
    return None


def check_parts_made_on_first_use() -> str:
    """What the start path leaves for later is in the bundle: every tab of the side panel, made when
    first shown, the demo menu (every ruleset), and the modules of the dialogs, the map importer,
    the player view and About."""
    from importlib import import_module

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.core.files import storage
    from lnl_desktop.paths import demo_encounter_path
    from lnl_desktop.ui.window.main_window import LAZY_PANELS, MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    scratch = Path(tempfile.mkdtemp(prefix="lnl-self-check-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(scratch))
    window.show()
    QApplication.processEvents()
    for title in [*LAZY_PANELS, "History"]:
        dock = window.docks[title]
        dock.raise_()  # its tab in front, as a click on it does
        QApplication.processEvents()
        assert dock.widget() is not None, f"the {title} tab was not made when shown"
    window.demo_menu.aboutToShow.emit()
    entries = [a.text() for a in window.demo_menu.actions() if not a.isSeparator()]
    assert sum(1 for e in entries if e.endswith(" demo")) == 4, "the demo menu does not list the four rulesets"
    assert sum(1 for e in entries if e.startswith("Session: ")) == 3, "the demo menu does not list the demo sessions"
    for module in (
        "dialogs.map_settings",
        "dialogs.rulesets",
        "dialogs.import_map",
        "window.player_view",
        "dialogs.about",
    ):
        import_module(f"lnl_desktop.ui.{module}")
    window.close()
    return f"{len(LAZY_PANELS) + 1} tabs, 4 demos, 5 modules"


def check_grid_and_sight() -> None:
    """Movement and sight (numpy in lnl_desktop.core.map.terrain, .movement and .sight) on a map with a wall and a door.

    An 8 x 5 map, a wall from (3, 0) to (3, 4) with a door from (3, 1) to (3, 2), a wall cell at
    (6, 3); a creature at (1, 1). Door closed: the way to (5, 1) goes round the wall's end, through
    (2, 4) to (3, 4) (the diagonals by the end touch it), 3 diagonals (5 + 10 + 5) and 4 straight
    steps: 40 ft; nothing beyond x = 3 is seen. Door open: straight through, 20 ft, and the cells
    seen through the doorway are those whose centre's line passes strictly inside it.
    """
    from lnl_desktop.core.encounter.map_model import Door, MapGrid, WallSegment
    from lnl_desktop.core.map.movement import cheapest_path, path_cost_ft, reachable
    from lnl_desktop.core.map.sight import blocker, sees
    from lnl_desktop.core.map.terrain import map_terrain
    from lnl_desktop.core.map.visibility import visible_cells

    door = Door(a=(3, 1), b=(3, 2))
    walls = (WallSegment(a=(3, 0), b=(3, 1)), WallSegment(a=(3, 2), b=(3, 4)))
    closed = MapGrid(width=8, height=5, walls=frozenset({(6, 3)}), segments=walls, doors=(door,))
    terrain = map_terrain(closed)
    found = cheapest_path(terrain, (1, 1), (5, 1), 1, 60)
    assert found is not None and found[1] == 40.0, found
    assert found[0][0] == (1, 1) and found[0][-1] == (5, 1) and found[0][3:5] == [(2, 4), (3, 4)], found
    assert path_cost_ft(terrain, found[0], 1) == 40.0
    reach = reachable(terrain, (1, 1), 1, 60)
    assert reach.cost_ft((3, 4)) == 20.0 and reach.cost_ft((6, 3)) is None  # a wall cell is never reached
    assert len(reach.cells()) == 8 * 5 - 2, len(reach.cells())  # every floor cell but the start
    assert reachable(terrain, (1, 1), 1, 35).cost_ft((5, 1)) is None
    assert not sees(closed, (1, 1), 1, (4, 1), 1)
    assert blocker(closed, (1, 1), 1, (4, 1), 1) == "the closed door at (3, 1)–(3, 2)"
    assert blocker(closed, (5, 3), 1, (7, 3), 1) == "the wall at (6, 3)"
    seen = visible_cells(closed, (1, 1))
    assert seen == {(x, y) for x in range(3) for y in range(5)}, sorted(seen)

    opened = closed.model_copy(update={"doors": (door.model_copy(update={"open": True}),)})
    terrain = map_terrain(opened)
    assert cheapest_path(terrain, (1, 1), (5, 1), 1, 60) == ([(1, 1), (2, 1), (3, 1), (4, 1), (5, 1)], 20.0)
    assert sees(opened, (1, 1), 1, (4, 1), 1) and blocker(opened, (1, 1), 1, (4, 1), 1) is None
    doorway = {(3, 1), (4, 1), *((x, y) for x in (5, 6, 7) for y in (0, 1, 2))}
    assert visible_cells(opened, (1, 1)) == seen | doorway, sorted(visible_cells(opened, (1, 1)) - seen)


def check_numpy() -> str:
    """The forecast's dice arithmetic (numpy.convolve, cumsum, dot) and numpy's own linear algebra.

    Two exploding d6: a mean of 2 x 6·7/(2·5) = 8.4, a total of 2 with 1/36, of 1 never. Returns what BLAS
    numpy was built with (on Linux the bundle's numpy has none: its own loops and lapack_lite).
    """
    import numpy

    from lnl_desktop.core.dice.odds import dice_total, mean_of

    total = dice_total(2, 6)
    assert abs(mean_of(total) - 8.4) < 1e-9, mean_of(total)
    assert abs(total[2] - 1 / 36) < 1e-15 and total[1] == 0 and abs(total.sum() - 1) < 1e-12
    assert (numpy.ones((64, 64)) @ numpy.full((64, 64), 0.5) == 32).all(), "matrix product"
    solved = numpy.linalg.solve(numpy.array([[2.0, 1.0], [1.0, 3.0]]), numpy.array([3.0, 5.0]))
    assert numpy.allclose(solved, [0.8, 1.4]), solved
    blas = numpy.__config__.CONFIG["Build Dependencies"]["blas"]
    return f"numpy {numpy.__version__}, BLAS: {blas['name'] if blas.get('found') else 'none (its own loops)'}"


def check_images() -> None:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage, QImageReader

    formats = {bytes(f.data()).decode() for f in QImageReader.supportedImageFormats()}
    assert {"png", "jpg", "jpeg"} <= formats, f"image formats: {sorted(formats)}"
    image = QImage(32, 32, QImage.Format.Format_RGB32)
    image.fill(QColor("#0072B2"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, "JPEG"), "cannot write a JPEG"
    buffer.close()
    assert QImage.fromData(data, "JPEG").width() == 32, "cannot read a JPEG back"


def check_resources() -> None:
    from importlib.resources import files

    from PySide6.QtGui import QIcon, QImage
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.paths import resource, resources_dir

    root = resources_dir()
    if getattr(sys, "frozen", False):
        assert str(root).startswith(sys._MEIPASS), f"resources at {root}"
    else:  # installed from the wheel: the package's own copy, not a checkout's
        assert root == Path(str(files("lnl_desktop"))) / "resources", f"resources at {root}"
    for part in ("encounters/hill-giant.lnl", "schema/encounter.schema.json"):
        assert resource(*part.split("/")).is_file(), f"missing {part}"
    for name in ("bestiary.json", "bestiary-classic.json", "bestiary-osr.json", "bestiary-d10.json"):
        assert resource(name).is_file(), f"missing the bestiary {name}"
    for size in (16, 32, 48, 256, 1024):
        png = resource("icons", f"lnl-desktop-{size}.png")
        assert QImage(str(png)).width() == size, f"icon {png.name}"
    icon = QApplication.windowIcon()
    assert not icon.isNull() and icon.availableSizes(), "no application icon"
    assert QIcon(str(resource("icons", "lnl-desktop-256.png"))).availableSizes(), "icon not readable"


def check_map_import() -> str:
    """A Universal VTT map file (walls, a door, a PNG picture) imports into the demo as one undo step."""
    import base64
    import json

    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSettings
    from PySide6.QtGui import QColor, QImage

    from lnl_desktop.core.files import storage
    from lnl_desktop.paths import demo_encounter_path
    from lnl_desktop.ui.dialogs.import_map import import_map_file
    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    picture = QImage(120, 80, QImage.Format.Format_RGB32)
    picture.fill(QColor("#6a8f3c"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert picture.save(buffer, "PNG"), "cannot write a PNG"
    buffer.close()
    walls = [[{"x": 2, "y": 2}, {"x": 10, "y": 2}, {"x": 10, "y": 5}], [{"x": 10, "y": 6}, {"x": 10, "y": 10}]]
    door = [{"x": 10, "y": 5}, {"x": 10, "y": 6}]
    document = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 30, "y": 20}, "pixels_per_grid": 4},
        "line_of_sight": walls,
        "objects_line_of_sight": [],
        "portals": [{"position": door[0], "bounds": door, "rotation": 0, "closed": True, "freestanding": False}],
        "lights": [],
        "environment": {"baked_lighting": False, "ambient_light": "ffffffff"},
        "image": base64.b64encode(bytes(data.data())).decode("ascii"),
    }
    scratch = Path(tempfile.mkdtemp(prefix="lnl-self-check-"))
    path = scratch / "Old Tower.dd2vtt"
    path.write_text(json.dumps(document), encoding="utf-8")
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(scratch))
    window.show()
    controller = window.controller
    steps = controller.undo_stack.count()
    assert import_map_file(window, controller, path), "the map was not imported"
    imported = controller.encounter.map
    assert (imported.width, imported.height) == (30, 20), (imported.width, imported.height)
    assert len(imported.segments) == 3 and len(imported.doors) == 1, (imported.segments, imported.doors)
    assert imported.background is not None and imported.background.data, "the map's picture was not kept"
    assert controller.undo_stack.count() == steps + 1, "the import is not one undo step"
    controller.undo_stack.undo()  # and Undo brings the demo's map back (so closing asks nothing)
    assert (controller.encounter.map.width, controller.encounter.map.height) != (30, 20), "Undo kept the import"
    window.close()
    return f"30 x 20 cells, {len(imported.segments)} walls, 1 door, a picture"


def check_rulesets() -> None:
    """Every built-in ruleset imports from the bundle and plays its demo's first round offline."""
    from lnl_desktop.core import Engine, RandomDice
    from lnl_desktop.core.files import storage
    from lnl_desktop.core.rules.registry import BUILT_IN, get_ruleset
    from lnl_desktop.paths import resource

    for name in BUILT_IN:
        ruleset = get_ruleset(name)
        demo = ruleset.demo()
        assert demo, f"{name}: no demo"
        engine = Engine(storage.load(resource("encounters", demo)), dice=RandomDice(1))
        declaring = ruleset.rounds.declarations(engine)
        if declaring is not None:  # a declare phase (Group d10): everyone declares its first choice
            for cid in declaring.missing:
                engine.apply(declaring.build(cid, declaring.choices[0][0]))
        engine.start_combat(ruleset.rounds.start_procedure().situations[0].key)
        assert engine.encounter.combat.phase.value == "fighting", f"{name}: the demo's combat did not start"
        assert ruleset.bestiary(), f"{name}: an empty bestiary"


CHECKS: dict[str, Callable[[], str | None]] = {
    "resources and icon": check_resources,
    "every built-in ruleset plays its demo": check_rulesets,
    "a Universal VTT map imports": check_map_import,
    "movement and sight past walls and a door (numpy)": check_grid_and_sight,
    "dice distributions and linear algebra (numpy)": check_numpy,
    "images (PNG, JPEG)": check_images,
    "ICU through Qt": check_icu,
    "forecast chart (pyqtgraph)": check_chart,
    "panels and dialogs made on first use": check_parts_made_on_first_use,
}


def run(names: list[str]) -> int:
    failed = 0
    for name in names:
        try:
            detail = CHECKS[name]()
        except Exception:
            failed += 1
            print(f"self check: {name}: FAILED\n{traceback.format_exc()}", flush=True)
        else:
            print(f"self check: {name}: ok" + (f" ({detail})" if detail else ""), flush=True)
    print(f"self check: {'all ok' if not failed else f'{failed} of {len(names)} FAILED'}", flush=True)
    return 1 if failed else 0


def main() -> int:
    """In the bundle: a QApplication with the app's icon, as the app makes it, then every check."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.ui.window import app as lnl_app

    application = QApplication.instance() or QApplication(sys.argv[:1])
    application.setWindowIcon(lnl_app.application_icon())  # as lnl_desktop.ui.window.app.run() does
    return run(list(CHECKS))


if __name__ == "__main__":
    if sys.argv[1:] == ["icu"]:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        sys.exit(run(["ICU through Qt"]))
    sys.exit(main())

"""Checks of a frozen bundle beyond ``--smoke-test``: what the trimmed bundle must still do.

The bundle's launcher runs ``main()`` instead of the app when ``LNL_BUNDLE_SELF_CHECK=1`` is set
(packaging/smoke_test.py does; nothing else does, and without the variable this module is not
even imported). Offscreen, it checks what the start-up path does not reach:

- the Forecast dock's chart: pyqtgraph imports (with PySide6 only) and draws bars;
- JPEG and PNG images (the ``imageformats`` plugin kept for battle map backgrounds; icons);
- the application icon from resources/icons and every other resource file;
- ICU through Qt: collation, legacy codecs, locale case mapping, time zone names (on Linux the
  bundle carries trimmed ICU data, see packaging/elf_trim.py);
- no other Qt binding is in the bundle.

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


def check_chart() -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.core import storage
    from lnl_desktop.paths import demo_encounter_path
    from lnl_desktop.ui.controller import AttackPlan
    from lnl_desktop.ui.main_window import MainWindow
    from lnl_desktop.ui.recovery import RecoveryStore

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
    from PySide6.QtGui import QIcon, QImage
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.paths import resource, resources_dir

    root = resources_dir()
    assert getattr(sys, "_MEIPASS", None) and str(root).startswith(sys._MEIPASS), f"resources at {root}"
    for part in ("encounters/hill-giant.lnl", "bestiary.json", "schema/encounter.schema.json"):
        assert resource(*part.split("/")).is_file(), f"missing {part}"
    for size in (16, 32, 48, 256, 1024):
        png = resource("icons", f"lnl-desktop-{size}.png")
        assert QImage(str(png)).width() == size, f"icon {png.name}"
    icon = QApplication.windowIcon()
    assert not icon.isNull() and icon.availableSizes(), "no application icon"
    assert QIcon(str(resource("icons", "lnl-desktop-256.png"))).availableSizes(), "icon not readable"


def check_rulesets() -> None:
    """Every built-in ruleset imports from the bundle and plays its demo's first round offline."""
    from lnl_desktop.core import Engine, RandomDice, storage
    from lnl_desktop.core.rules import BUILT_IN, get_ruleset
    from lnl_desktop.paths import resource

    for name in BUILT_IN:
        ruleset = get_ruleset(name)
        demo = ruleset.demo()
        assert demo, f"{name}: no demo"
        engine = Engine(storage.load(resource("encounters", demo)), dice=RandomDice(1))
        declaring = ruleset.declarations(engine)
        if declaring is not None:  # a declare phase (Group d10): everyone declares its first choice
            for cid in declaring.missing:
                engine.apply(declaring.build(cid, declaring.choices[0][0]))
        engine.start_combat(ruleset.start_procedure().situations[0].key)
        assert engine.encounter.combat.phase.value == "fighting", f"{name}: the demo's combat did not start"
        assert ruleset.bestiary(), f"{name}: an empty bestiary"


CHECKS: dict[str, Callable[[], None]] = {
    "resources and icon": check_resources,
    "every built-in ruleset plays its demo": check_rulesets,
    "images (PNG, JPEG)": check_images,
    "ICU through Qt": check_icu,
    "forecast chart (pyqtgraph)": check_chart,
}


def run(names: list[str]) -> int:
    failed = 0
    for name in names:
        try:
            CHECKS[name]()
        except Exception:
            failed += 1
            print(f"self check: {name}: FAILED\n{traceback.format_exc()}", flush=True)
        else:
            print(f"self check: {name}: ok", flush=True)
    print(f"self check: {'all ok' if not failed else f'{failed} of {len(names)} FAILED'}", flush=True)
    return 1 if failed else 0


def main() -> int:
    """In the bundle: a QApplication with the app's icon, as the app makes it, then every check."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.ui import app as lnl_app

    application = QApplication.instance() or QApplication(sys.argv[:1])
    application.setWindowIcon(lnl_app.application_icon())  # as lnl_desktop.ui.app.run() does
    return run(list(CHECKS))


if __name__ == "__main__":
    if sys.argv[1:] == ["icu"]:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        sys.exit(run(["ICU through Qt"]))
    sys.exit(main())

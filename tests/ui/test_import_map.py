"""File ▸ Import map…: a Universal VTT file becomes the map in one undoable step, in a real window."""

from __future__ import annotations

import base64
import json
import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QTimer
from PySide6.QtGui import QColor, QImage, QImageReader, QPainter, QShowEvent
from PySide6.QtWidgets import QFileDialog, QProgressDialog
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.map_model import MapGrid
from lnl_desktop.core.files import uvtt
from lnl_desktop.core.rules.lnl.model import Encounter
from lnl_desktop.ui.dialogs import import_map
from lnl_desktop.ui.dialogs.import_map import IMPORT_FILTER, import_map_dialog, import_map_file, is_map_file
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]

# -- making files ------------------------------------------------------------------------------


def encoded(image: QImage, fmt: str, quality: int = -1) -> bytes:
    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, fmt, quality)
    buffer.close()
    return bytes(array.data())


def decoded(data: str) -> QImage:
    image = QImage.fromData(base64.b64decode(data))
    assert not image.isNull()
    return image


def two_colour(width: int, height: int, alpha: int = 255) -> QImage:
    """Red on the left half, blue on the right: a scaled copy must keep them where they were."""
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor(200, 30, 30, alpha))
    blue = image.copy(0, 0, width - width // 2, height)
    blue.fill(QColor(30, 30, 200, alpha))
    painter = QPainter(image)
    painter.drawImage(width // 2, 0, blue)
    painter.end()
    return image


def pts(*xy: tuple[float, float]) -> list[dict[str, float]]:
    return [{"x": x, "y": y} for x, y in xy]


def write_map(
    path: Path,
    picture: bytes,
    *,
    version: float = 0.3,
    origin: tuple[float, float] = (3, 2),
    size: tuple[float, float] = (30, 20),
    ppg: float = 4,
    walls: list[list[tuple[float, float]]] | None = None,
    portals: list[tuple[tuple[float, float], tuple[float, float], bool]] | None = None,
) -> Path:
    ox, oy = origin
    if walls is None:
        ring = [
            (
                round(ox + 25 + 3 * math.cos(2 * math.pi * i / 40), 6),
                round(oy + 15 + 3 * math.sin(2 * math.pi * i / 40), 6),
            )
            for i in range(40)
        ]
        walls = [
            [(ox + 2, oy + 2), (ox + 10, oy + 2), (ox + 10, oy + 5)],
            [(ox + 10, oy + 6), (ox + 10, oy + 10), (ox + 2, oy + 10), (ox + 2, oy + 2)],
            [*ring, ring[0]],
        ]
    if portals is None:
        portals = [((ox + 10, oy + 5), (ox + 10, oy + 6), True), ((ox + 4, oy + 10), (ox + 5, oy + 10), False)]
    doc: dict[str, Any] = {
        "format": version,
        "resolution": {
            "map_origin": {"x": ox, "y": oy},
            "map_size": {"x": size[0], "y": size[1]},
            "pixels_per_grid": ppg,
        },
        "line_of_sight": [pts(*line) for line in walls],
        "portals": [
            {"position": {"x": a[0], "y": a[1]}, "bounds": pts(a, b), "rotation": 0, "closed": c, "freestanding": False}
            for a, b, c in portals
        ],
        "lights": [],
        "environment": {"baked_lighting": False, "ambient_light": "ffffffff"},
        "image": base64.b64encode(picture).decode("ascii"),
    }
    if version >= 0.3:
        doc["objects_line_of_sight"] = []
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


class Shown:
    """Stands in for QProgressDialog in the module: records each dialog when it shows."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, cancel: bool = False) -> None:
        self.dialogs: list[QProgressDialog] = []
        self.labels: list[str] = []
        record = self

        class Recording(QProgressDialog):
            def showEvent(self, event: QShowEvent) -> None:
                super().showEvent(event)
                record.dialogs.append(self)
                record.labels.append(self.labelText())
                if cancel:
                    QTimer.singleShot(0, self.cancel)

        monkeypatch.setattr(import_map, "QProgressDialog", Recording)


def no_import_running(qtbot: QtBot) -> None:
    qtbot.waitUntil(lambda: not any(t.name == "import-map" for t in threading.enumerate()), timeout=10_000)


# -- importing ---------------------------------------------------------------------------------


def test_an_imported_map_replaces_the_old_one_and_one_undo_brings_it_back(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    window = laptop_window()  # the demo: 24 x 16, tokens as far as (20, 11)
    controller = window.controller
    old = controller.encounter.map
    tokens = dict(controller.encounter.tokens)
    steps = controller.undo_stack.count()
    picture = encoded(two_colour(120, 80), "PNG")
    path = write_map(tmp_path / "Sunken Keep.dd2vtt", picture)
    expected = uvtt.read_uvtt(path.read_bytes(), path.name)
    shown = Shown(monkeypatch)

    assert import_map_file(window, controller, path) is True

    new = controller.encounter.map
    assert (new.width, new.height) == (30, 20)
    assert new.segments == expected.segments and len(new.segments) == 2 + 3 + 40
    assert new.segments[0].a == (2, 2)  # moved by the file's map_origin (3, 2)
    assert [(d.a, d.b, d.open) for d in new.doors] == [((10, 5), (10, 6), False), ((4, 10), (5, 10), True)]
    assert new.walls == frozenset()  # the old map's painted walls went with it
    background = new.background
    assert background is not None and background.data is not None
    assert base64.b64decode(background.data) == picture  # a small PNG is kept byte for byte
    assert (background.image, background.cell_px, background.offset_x, background.offset_y) == (
        "Sunken Keep.png",
        4,
        0,
        0,
    )
    assert decoded(background.data).size().toTuple() == (120, 80)
    assert window.map_view.scene().has_background_picture  # the map shows it
    assert controller.encounter.tokens == tokens
    assert controller.undo_stack.count() == steps + 1
    assert window.statusBar().currentMessage() == "Imported Sunken Keep.dd2vtt: 30 x 20 cells, 45 walls, 2 doors"
    assert warnings == []
    assert shown.dialogs == []  # a quick import shows no progress dialog

    controller.undo_stack.undo()
    assert controller.encounter.map == old
    assert window.map_view.scene().has_background_picture  # the demo's own painted map is back
    assert controller.encounter.map.background == old.background
    assert controller.undo_stack.count() == steps + 1 and controller.undo_stack.index() == steps
    controller.undo_stack.redo()
    assert controller.encounter.map == new


def test_a_format_0_2_file_without_objects_imports_too(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str]
) -> None:
    window = laptop_window(Encounter())
    path = write_map(tmp_path / "old.dd2vtt", encoded(two_colour(40, 40), "JPEG", 90), version=0.2, size=(10, 10))
    assert import_map_file(window, window.controller, path)
    new = window.controller.encounter.map
    assert (new.width, new.height, len(new.doors)) == (10, 10, 2)
    assert new.background is not None and base64.b64decode(new.background.data or "").startswith(b"\xff\xd8")
    assert new.background.image == "old.jpg"
    assert warnings == []


def test_a_bad_file_is_refused_in_a_message_box_and_nothing_changes(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str]
) -> None:
    window = laptop_window()
    controller = window.controller
    before = controller.encounter.model_dump_json()
    steps = controller.undo_stack.count()
    bad = tmp_path / "broken.dd2vtt"
    bad.write_text('{"format": 0.3, "resolution": ', encoding="utf-8")
    foreign = tmp_path / "list.uvtt"
    foreign.write_text('{"shopping": ["eggs"]}', encoding="utf-8")
    picture = write_map(tmp_path / "pic.uvtt", b"GIF89a not a map picture")

    for path in (bad, foreign, picture, tmp_path / "missing.dd2vtt", tmp_path):
        assert import_map_file(window, controller, path) is False

    assert warnings[0].startswith("Import map: broken.dd2vtt is not a Universal VTT map: not JSON (")
    assert warnings[1].startswith('Import map: list.uvtt is not a Universal VTT map: it has no "resolution"')
    assert warnings[2].startswith("Import map: pic.uvtt: the picture is not a PNG, JPEG or WEBP image")
    assert warnings[3].startswith("Import map: missing.dd2vtt: no such file")
    assert "is not a regular file" in warnings[4]
    assert all(w.endswith("\n\nThe map is unchanged.") for w in warnings)
    assert len(warnings) == 5
    assert controller.encounter.model_dump_json() == before
    assert controller.undo_stack.count() == steps


def test_a_map_too_small_for_the_tokens_is_refused_by_the_encounter(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str]
) -> None:
    window = laptop_window()  # tokens as far as (20, 11)
    controller = window.controller
    before = controller.encounter.model_dump_json()
    steps = controller.undo_stack.count()
    path = write_map(tmp_path / "closet.uvtt", encoded(two_colour(40, 40), "PNG"), size=(10, 10), walls=[], portals=[])

    assert import_map_file(window, controller, path) is False

    assert len(warnings) == 1
    assert warnings[0].startswith("Import map: closet.uvtt was not imported: ")
    assert "is outside the map" in warnings[0]
    assert "Move those tokens or take them off the map, then import again." in warnings[0]
    assert controller.encounter.model_dump_json() == before
    assert controller.undo_stack.count() == steps


def test_a_huge_picture_is_scaled_in_a_worker_under_a_progress_dialog(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    controller = window.controller
    old = controller.encounter.map
    path = write_map(
        tmp_path / "long hall.dd2vtt",
        encoded(two_colour(6000, 100), "PNG"),
        origin=(0.5, 0),
        size=(60, 1),
        ppg=100,
        walls=[[(0.5, 0), (60.5, 0)]],
        portals=[],
    )
    shown = Shown(monkeypatch)

    assert import_map_file(window, controller, path) is True

    assert warnings == []
    assert len(shown.dialogs) == 1
    assert shown.labels[0] in ("Preparing the picture…", "Decoding the picture (6000 x 100 px)…")
    new = controller.encounter.map
    assert (new.width, new.height) == (61, 1)  # half a cell of offset reaches into a 61st column
    background = new.background
    assert background is not None and background.data is not None
    picture = decoded(background.data)
    assert picture.size().toTuple() == (4096, 68)
    scale = 4096 / 6000
    assert background.cell_px == pytest.approx(100 * scale)
    assert background.offset_x == pytest.approx(-50 * scale)  # the file's half-cell origin, scaled alike
    assert background.cell_px * 60 == pytest.approx(picture.width())  # 60 cells of picture, as in the file
    assert base64.b64decode(background.data).startswith(b"\xff\xd8")  # opaque: kept as JPEG
    assert background.image == "long hall.jpg"
    left, right = QColor(picture.pixel(400, 34)), QColor(picture.pixel(3700, 34))
    assert left.red() > 150 > left.blue() and right.blue() > 150 > right.red()
    assert window.statusBar().currentMessage() == (
        "Imported long hall.dd2vtt: 61 x 1 cells, 1 wall, 0 doors; "
        "picture kept as JPEG (quality 90) to keep the encounter small; "
        "picture scaled from 6000 x 100 to 4096 x 68 px"
    )
    no_import_running(qtbot)
    controller.undo_stack.undo()
    assert controller.encounter.map == old


def test_cancelling_the_progress_dialog_leaves_the_encounter_untouched(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    controller = window.controller
    before = controller.encounter.model_dump_json()
    steps = controller.undo_stack.count()
    path = write_map(tmp_path / "hall.uvtt", encoded(two_colour(6000, 100), "PNG"), size=(60, 1), ppg=100, walls=[])
    shown = Shown(monkeypatch, cancel=True)

    assert import_map_file(window, controller, path) is False

    assert len(shown.dialogs) == 1
    assert warnings == []
    assert controller.encounter.model_dump_json() == before
    assert controller.undo_stack.count() == steps
    assert window.statusBar().currentMessage() == "Import of hall.uvtt cancelled: the map is unchanged"
    no_import_running(qtbot)
    assert controller.encounter.model_dump_json() == before  # the worker's late result went nowhere


def test_a_transparent_huge_picture_stays_png(tmp_path: Path) -> None:
    path = write_map(tmp_path / "t.uvtt", encoded(two_colour(5000, 40, alpha=120), "PNG"), size=(50, 0.4), ppg=100)
    imported = import_map.read_map_file(path)
    stages: list[str] = []
    picture = import_map.prepare_picture(imported, stages.append)
    assert picture is not None and picture.image_format == "png"
    image = decoded(picture.data)
    assert image.size().toTuple() == (4096, 33)
    assert QColor.fromRgba(image.pixel(100, 10)).alpha() == 120
    assert stages == ["Decoding the picture (5000 x 40 px) and scaling it to 4096 x 33 px…", "Encoding the picture…"]
    assert picture.words == "picture scaled from 5000 x 40 to 4096 x 33 px"


def test_a_webp_picture_is_converted(laptop_window: WindowFactory, tmp_path: Path, warnings: list[str]) -> None:
    if b"webp" not in {bytes(f.data()) for f in QImageReader.supportedImageFormats()}:
        pytest.skip("this Qt has no WEBP plug-in (the refusal is tested below)")
    window = laptop_window(Encounter())
    webp = encoded(two_colour(64, 48), "WEBP", 100)
    path = write_map(tmp_path / "web.uvtt", webp, size=(8, 6), ppg=8, walls=[], portals=[])

    assert import_map_file(window, window.controller, path)

    background = window.controller.encounter.map.background
    assert background is not None and background.data is not None
    assert base64.b64decode(background.data).startswith(b"\xff\xd8")
    assert (background.image, background.cell_px) == ("web.jpg", 8)
    assert decoded(background.data).size().toTuple() == (64, 48)
    assert window.statusBar().currentMessage().endswith("; picture converted from WEBP to JPEG (quality 90)")


def test_without_a_webp_plugin_a_webp_picture_is_refused(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    window = laptop_window(Encounter())
    before = window.controller.encounter.model_dump_json()
    riff = b"RIFF" + (26).to_bytes(4, "little") + b"WEBPVP8L" + (13).to_bytes(4, "little") + b"\x2f" + bytes(12)
    path = write_map(tmp_path / "web.uvtt", riff, size=(1, 1), ppg=1.5, walls=[], portals=[])
    formats = [f for f in QImageReader.supportedImageFormats() if bytes(f.data()) != b"webp"]
    monkeypatch.setattr(import_map.QImageReader, "supportedImageFormats", staticmethod(lambda: formats))

    assert import_map_file(window, window.controller, path) is False

    assert len(warnings) == 1
    assert "web.uvtt: the picture is WEBP, and this installation cannot read WEBP" in warnings[0]
    assert window.controller.encounter.model_dump_json() == before


def test_a_picture_qt_cannot_decode_is_refused_from_the_worker(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str]
) -> None:
    window = laptop_window(Encounter())
    before = window.controller.encounter.model_dump_json()
    good = encoded(two_colour(5000, 20), "PNG")
    damaged = good[:33] + b"\0" * 64  # the header says 5000 x 20; no image data follows
    path = write_map(tmp_path / "torn.uvtt", damaged, size=(50, 0.2), ppg=100, walls=[], portals=[])

    assert import_map_file(window, window.controller, path) is False

    assert len(warnings) == 1
    assert warnings[0].startswith("Import map: torn.uvtt: the picture could not be decoded")
    assert window.controller.encounter.model_dump_json() == before


# -- what the window wires ---------------------------------------------------------------------


def test_map_files_are_known_by_suffix_and_the_filter_lists_them() -> None:
    assert all(is_map_file(Path(n)) for n in ("a.dd2vtt", "b.UVTT", "c.df2vtt", "/x/y z.Dd2Vtt"))
    assert not any(is_map_file(n) for n in ("a.lnl", "a.json", "a.png", "dd2vtt"))
    assert IMPORT_FILTER.startswith("Universal VTT maps (*.dd2vtt *.uvtt *.df2vtt)")
    assert all(f"*{suffix}" in IMPORT_FILTER for suffix in uvtt.SUFFIXES)


def test_the_menu_command_asks_for_a_file_and_remembers_its_folder(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    window = laptop_window()
    folders = window.folders
    folder = tmp_path / "maps"
    folder.mkdir()
    path = write_map(folder / "keep.uvtt", encoded(two_colour(120, 80), "PNG"))
    asked: list[tuple[str, str]] = []

    def choose(parent: Any, title: str, start: str, filter_: str) -> tuple[str, str]:
        asked.append((title, filter_))
        return (str(path) if len(asked) == 1 else "", "")

    monkeypatch.setattr(QFileDialog, "getOpenFileName", choose)
    assert import_map_dialog(window, window.controller, folders) is True
    assert asked == [("Import map", IMPORT_FILTER)]
    assert folders.folder() == folder.resolve()
    assert window.controller.encounter.map.width == 30
    assert import_map_dialog(window, window.controller, folders) is False  # the GM closed the dialog
    assert warnings == []


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP", "PNG"])
def test_the_cores_header_reading_agrees_with_qt(fmt: str) -> None:
    if fmt.lower().encode() not in {bytes(f.data()) for f in QImageReader.supportedImageFormats()}:
        pytest.skip(f"this Qt cannot write {fmt}")
    raw = encoded(two_colour(371, 123), fmt, 80)
    kind = uvtt.image_kind(raw)
    assert kind == {"JPEG": "jpeg", "WEBP": "webp", "PNG": "png"}[fmt]
    assert uvtt.image_size(raw, kind) == (371, 123)


# -- from the window: File ▸ Import map… and a file dropped on the map -----------------------------


def test_file_import_map_and_a_file_dropped_on_the_map_both_import(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    window = laptop_window()
    controller = window.controller
    picture = encoded(two_colour(120, 80), "PNG")
    first = write_map(tmp_path / "Keep.dd2vtt", picture)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(first), IMPORT_FILTER))
    window.import_map_action.trigger()
    no_import_running(qtbot)
    assert (controller.encounter.map.width, controller.encounter.map.height) == (30, 20)

    second = write_map(tmp_path / "Cave.uvtt", picture, size=(26, 18))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(second))])
    viewport = window.map_view.viewport()
    point = QPointF(viewport.rect().center())
    actions, buttons, mods = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(point.toPoint(), actions, mime, buttons, mods)
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(viewport, QDropEvent(point, actions, mime, buttons, mods))
    qtbot.waitUntil(lambda: controller.encounter.map.width == 26, timeout=10_000)
    no_import_running(qtbot)
    assert controller.encounter.map.height == 18 and warnings == []
    # Not a map file: the map does not take it.
    other = QMimeData()
    other.setUrls([QUrl.fromLocalFile(str(tmp_path / "notes.txt"))])
    refused = QDragEnterEvent(point.toPoint(), actions, other, buttons, mods)
    QApplication.sendEvent(viewport, refused)
    assert not refused.isAccepted()


def test_the_wall_door_and_fog_tools_and_the_fog_switch_are_in_the_window(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    for name in ("wall_lines", "doors", "erase_lines", "fog"):
        window.tool_actions[name].trigger()
        assert window.map_view.tool() == name
        assert window.tool_actions[name].isChecked()
    window.map_view.set_tool("select")
    assert window.tool_actions["select"].isChecked()
    assert not window.fog_action.isChecked()
    window.fog_action.trigger()
    assert window.controller.encounter.fog.enabled and window.fog_action.isChecked()
    window.controller.undo_stack.undo()
    assert not window.controller.encounter.fog.enabled and not window.fog_action.isChecked()

"""Map pictures the table refuses: an imported map's picture cut short or damaged, and an encounter's
picture path that leads out of the encounter file's folder; and a picked picture kept in the file."""

from __future__ import annotations

import base64
import os
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from test_import_map import encoded, two_colour, write_map

from lnl_desktop.core.encounter.map_model import Background, MapGrid
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl.model import Encounter
from lnl_desktop.ui.dialogs.import_map import import_map_file
from lnl_desktop.ui.dialogs.map_settings import BackgroundDialog
from lnl_desktop.ui.map.scene import MapScene
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_claiming(width: int, height: int, idat: bytes = b"") -> bytes:
    """A PNG whose header says ``width`` x ``height``, with ``idat`` as its only data."""
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + ihdr + (chunk(b"IDAT", idat) if idat else b"") + chunk(b"IEND", b"")


def picture_png(width: int = 64, height: int = 48, color: str = "#2060c0") -> bytes:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(color))
    return encoded(image, "PNG")


# -- an imported map's picture ---------------------------------------------------------------


def refused(window: MainWindow, path: Path, warnings: list[str]) -> str:
    """Import ``path``, which must be refused in one message box with the encounter unchanged."""
    controller = window.controller
    before = controller.encounter.model_dump_json()
    steps = controller.undo_stack.count()
    assert import_map_file(window, controller, path) is False
    assert len(warnings) == 1
    assert warnings[0].startswith(f"Import map: {path.name}: ")
    assert warnings[0].endswith("\n\nThe map is unchanged.")
    assert controller.encounter.model_dump_json() == before
    assert controller.undo_stack.count() == steps
    return warnings[0].removeprefix(f"Import map: {path.name}: ").removesuffix("\n\nThe map is unchanged.")


@pytest.mark.parametrize(
    ("fmt", "reason"),
    [
        ("PNG", "the picture could not be decoded (the PNG stops before its last chunk: the file was cut short)"),
        ("JPEG", "the picture could not be decoded (the JPEG stops before its end: the file was cut short)"),
    ],
)
def test_a_map_whose_picture_is_cut_short_is_refused(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str], fmt: str, reason: str
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    whole = encoded(two_colour(120, 80), fmt, 90)
    path = write_map(tmp_path / "half.dd2vtt", whole[: len(whole) // 2], size=(30, 20), ppg=4)

    assert refused(window, path, warnings) == reason
    assert window.controller.encounter.map.background is None


def test_a_map_picture_with_a_wrong_signature_is_refused(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str]
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    whole = picture_png(120, 80)
    path = write_map(tmp_path / "sig.dd2vtt", b"\x89PNX" + whole[4:], size=(30, 20), ppg=4)

    assert refused(window, path, warnings) == "the picture is not a PNG, JPEG or WEBP image"


def test_a_map_picture_claiming_100000_pixels_a_side_is_refused(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str]
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    path = write_map(tmp_path / "bomb.dd2vtt", png_claiming(100_000, 100_000), size=(50, 50), ppg=2000)

    assert refused(window, path, warnings) == (
        "the picture is 100000 x 100000 pixels; at most 268 million pixels can be read"
    )


def test_a_small_picture_is_decoded_in_full_before_it_is_kept(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str]
) -> None:
    """Whole in its structure, damaged in its pixels: only decoding it finds that out."""
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    row = b"\x00" + bytes((90, 120, 60)) * 120
    garbage = bytes(b ^ 0x5A for b in zlib.compress(row * 80))
    path = write_map(tmp_path / "noise.dd2vtt", png_claiming(120, 80, garbage), size=(30, 20), ppg=4)

    assert refused(window, path, warnings).startswith("the picture could not be decoded (")


def test_a_whole_small_picture_is_still_kept_byte_for_byte(
    laptop_window: WindowFactory, tmp_path: Path, warnings: list[str]
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    whole = picture_png(120, 80)
    path = write_map(tmp_path / "room.dd2vtt", whole, size=(30, 20), ppg=4)

    assert import_map_file(window, window.controller, path) is True

    assert warnings == []
    background = window.controller.encounter.map.background
    assert background is not None and background.data is not None
    assert base64.b64decode(background.data) == whole
    assert window.map_view.map_scene.has_background_picture


# -- a picture given by path ----------------------------------------------------------------------


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """tmp/shared/fight/ is the encounter's folder; tmp/shared/outside-secret.png lies beside it."""
    folder = tmp_path / "shared" / "fight"
    (folder / "maps").mkdir(parents=True)
    (folder / "map.png").write_bytes(picture_png())
    (folder / "maps" / "cave.png").write_bytes(picture_png())
    (tmp_path / "shared" / "outside-secret.png").write_bytes(picture_png(color="#c02040"))
    return folder


def scene_for(qtbot: QtBot, image: str, folder: Path | None) -> tuple[MapScene, list[str]]:
    encounter = Encounter(map=MapGrid(width=20, height=15, background=Background(image=image, cell_px=32)))
    controller = TableController(encounter)
    controller.base_dir = folder
    messages: list[str] = []
    controller.message.connect(messages.append)
    scene = MapScene(controller)
    qtbot.waitUntil(lambda: bool(messages) or scene.has_background_picture)
    QApplication.processEvents()
    return scene, messages


@pytest.mark.parametrize("image", ["map.png", "maps/cave.png", "maps\\cave.png"])
def test_a_picture_beside_the_file_or_in_a_subfolder_is_shown(qtbot: QtBot, shared: Path, image: str) -> None:
    scene, messages = scene_for(qtbot, image, shared)
    assert scene.has_background_picture
    assert messages == []


@pytest.mark.parametrize(
    ("image", "said"),
    [
        ("../../../../etc/passwd", "is outside the encounter's folder"),
        ("../outside-secret.png", "is outside the encounter's folder"),
        ("/proc/self/environ", "is an absolute path"),
        ("/dev/urandom", "is an absolute path"),
        ("{outside}", "is an absolute path"),
        ("secret.png", "is a link to a file outside the encounter's folder"),
        ("pipe.png", "is not a picture file (a folder, a device or a pipe)"),
    ],
)
def test_an_encounter_opens_without_a_picture_from_out_of_its_folder(
    qtbot: QtBot, shared: Path, image: str, said: str
) -> None:
    os.symlink(shared.parent / "outside-secret.png", shared / "secret.png")
    os.mkfifo(shared / "pipe.png")  # reading it would hang the table
    image = image.format(outside=shared.parent / "outside-secret.png")

    scene, messages = scene_for(qtbot, image, shared)

    assert not scene.has_background_picture
    assert len(messages) == 1
    assert messages[0].startswith(f"The map shows no picture: Background image {image!r} {said}")
    if "picture file" not in said:
        assert messages[0].endswith("a picture given by path must be beside the encounter file or in a folder under it")


def test_an_unsaved_encounter_does_not_look_for_a_picture_by_path(
    qtbot: QtBot, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(shared)  # the working folder is no encounter's folder
    scene, messages = scene_for(qtbot, "map.png", None)
    assert not scene.has_background_picture
    assert "the encounter has not been saved" in messages[0]


def test_an_opened_encounter_file_says_why_its_picture_is_not_shown(
    laptop_window: WindowFactory, shared: Path, qtbot: QtBot
) -> None:
    path = shared / "fight.lnl"
    picture = Background(image="../outside-secret.png", cell_px=32)
    storage.save(Encounter(map=MapGrid(width=20, height=15, background=picture)), path)

    window = laptop_window(storage.load(path), path)

    qtbot.waitUntil(lambda: "The map shows no picture" in window.statusBar().currentMessage())
    assert "'../outside-secret.png' is outside the encounter's folder" in window.statusBar().currentMessage()
    assert not window.map_view.map_scene.has_background_picture


# -- Map ▸ Background image… ---------------------------------------------------------------------


def pick(monkeypatch: pytest.MonkeyPatch, text: str, cell_px: float = 50) -> list[str]:
    """The dialog, when it opens, gets ``text`` typed as the image and OK pressed; what it said is kept."""
    said: list[str] = []

    def exec_(dialog: BackgroundDialog) -> int:
        dialog.path_edit.setText(text)
        dialog.cell_box.setValue(cell_px)
        dialog._accept()
        said.append(dialog.info.text())
        return dialog.result()

    monkeypatch.setattr(BackgroundDialog, "exec", exec_)
    return said


def test_a_picked_picture_is_kept_in_the_encounter_file(
    laptop_window: WindowFactory, shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = shared / "fight.lnl"
    storage.save(Encounter(map=MapGrid(width=20, height=15)), path)
    window = laptop_window(storage.load(path), path)
    outside = shared.parent / "outside-secret.png"
    said = pick(monkeypatch, str(outside))

    window.edit_background()

    assert said == [""]
    background = window.controller.encounter.map.background
    assert background is not None
    assert background.image == "outside-secret.png" and background.cell_px == 50
    assert background.data is not None and base64.b64decode(background.data) == outside.read_bytes()
    assert window.map_view.map_scene.has_background_picture
    # The file carries its picture: moved elsewhere, it still shows it, and names no file.
    elsewhere = tmp_path / "elsewhere" / "fight.lnl"
    elsewhere.parent.mkdir()
    storage.save(window.controller.encounter, elsewhere)
    outside.unlink()
    moved = storage.load(elsewhere)
    assert moved.map.background == background
    window.controller.undo_stack.undo()
    assert window.controller.encounter.map.background is None


def test_the_dialog_refuses_a_picture_that_is_cut_short_or_not_a_file(
    laptop_window: WindowFactory, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = laptop_window(Encounter(map=MapGrid(width=20, height=15)))
    whole = encoded(two_colour(120, 80), "JPEG", 90)
    (shared / "torn.jpg").write_bytes(whole[: len(whole) // 2])
    os.mkfifo(shared / "pipe.png")
    steps = window.controller.undo_stack.count()

    for name, reason in [
        ("torn.jpg", "Cannot use torn.jpg: it is not a whole picture (the JPEG stops before its end"),
        ("pipe.png", "Cannot use pipe.png: it is not a picture file (a folder, a device or a pipe)."),
        ("maps", "Cannot use maps: it is not a picture file"),
    ]:
        said = pick(monkeypatch, str(shared / name))
        window.edit_background()
        assert said[0].startswith(reason)

    assert window.controller.encounter.map.background is None
    assert window.controller.undo_stack.count() == steps


def test_the_dialog_keeps_a_picture_already_in_the_file_and_confines_an_old_path(qtbot: QtBot, shared: Path) -> None:
    data = base64.b64encode(picture_png()).decode("ascii")
    kept = BackgroundDialog(Background(image="cave.png", cell_px=70, data=data), shared)
    qtbot.addWidget(kept)
    kept.cell_box.setValue(72)  # only the lining up changes: no file named cave.png is looked for
    kept._accept()
    assert kept.result() == BackgroundDialog.DialogCode.Accepted
    assert kept.background()["data"] == data and kept.background()["cell_px"] == 72

    old = BackgroundDialog(Background(image="../outside-secret.png", cell_px=70), shared)
    qtbot.addWidget(old)
    old._accept()
    assert old.result() != BackgroundDialog.DialogCode.Accepted
    assert "'../outside-secret.png': it is outside the encounter's folder" in old.info.text()

    beside = BackgroundDialog(Background(image="maps/cave.png", cell_px=70), shared)
    qtbot.addWidget(beside)
    beside._accept()
    assert beside.background()["image"] == "cave.png"
    assert base64.b64decode(beside.background()["data"]) == (shared / "maps" / "cave.png").read_bytes()

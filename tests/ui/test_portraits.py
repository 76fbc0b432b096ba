"""Portraits: made from a picture file, refused when the file is none, set from the sheet (button,
file dialog, a dropped file), undone, and drawn on both maps and in the Combatants list."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, QRect, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent, QIcon, QImage, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QGraphicsView
from pytestqt.qtbot import QtBot
from qt_pictures import render

from lnl_desktop.core.encounter.actions import SetPortrait
from lnl_desktop.core.encounter.map_model import MapGrid, Token
from lnl_desktop.core.encounter.model import MAX_PORTRAIT_CHARS, Side
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.ui.docks.combatants import CombatantsPanel
from lnl_desktop.ui.docks.sheet import CombatantSheet
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.portraits import (
    MAX_FILE_BYTES,
    PORTRAIT_PX,
    PictureRefused,
    portrait_from_file,
    portrait_image,
    portrait_pixmap,
)
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView

GREEN = QColor(0, 200, 0)
MAGENTA = QColor(230, 0, 230)


def encounter() -> Encounter:
    return Encounter(
        name="Faces",
        map=MapGrid(width=8, height=6),
        combatants=[
            Combatant(id="ana", name="Ana", side=Side.PARTY, level=1, stamina_max=6, injury_max=6),
            Combatant(id="goblin", name="Goblin", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=4),
        ],
        tokens={"ana": Token(cell=(2, 2), facing=90), "goblin": Token(cell=(5, 2), facing=270)},
    )


def picture(path: Path, width: int = 600, height: int = 400, fmt: str = "PNG") -> Path:
    """A wide picture: magenta sides (cropped away), a green centre square."""
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(MAGENTA)
    painter = QPainter(image)
    side = min(width, height)
    painter.fillRect(QRect((width - side) // 2, (height - side) // 2, side, side), GREEN)
    painter.end()
    assert image.save(str(path), fmt)
    return path


@pytest.fixture
def controller() -> TableController:
    return TableController(encounter())


@pytest.fixture
def sheet(qtbot: QtBot, controller: TableController) -> CombatantSheet:
    widget = CombatantSheet(controller)
    qtbot.addWidget(widget)
    widget.resize(420, 800)
    widget.show()
    qtbot.waitExposed(widget)
    controller.select("ana")
    return widget


def decoded(data: str) -> QImage:
    image = QImage()
    assert image.loadFromData(base64.b64decode(data), "PNG")
    return image


# -- from a file --------------------------------------------------------------------------------------


def test_a_picture_file_becomes_a_square_png_of_its_centre(tmp_path: Path) -> None:
    data = portrait_from_file(picture(tmp_path / "wide.png", 900, 500))
    assert len(data) <= MAX_PORTRAIT_CHARS
    image = decoded(data)
    assert image.width() == image.height() == PORTRAIT_PX
    # The centred square only: green from edge to edge, none of the magenta sides.
    for x, y in ((2, 2), (PORTRAIT_PX - 3, PORTRAIT_PX // 2), (PORTRAIT_PX // 2, PORTRAIT_PX - 3)):
        assert image.pixelColor(x, y).green() > 150 and image.pixelColor(x, y).red() < 60
    small = decoded(portrait_from_file(picture(tmp_path / "small.jpg", 80, 120, "JPG")))
    assert small.width() == small.height() == 80  # never scaled up


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty"),
        (b"this is a shopping list, not a picture\n" * 20, "not a picture this program can read"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "could not be read|not a picture this program can read"),
    ],
)
def test_a_file_that_is_no_picture_is_refused_with_the_reason(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "portrait.png"
    path.write_bytes(content)
    with pytest.raises(PictureRefused, match=reason):
        portrait_from_file(path)


def test_a_missing_or_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with pytest.raises(PictureRefused, match="no such picture file"):
        portrait_from_file(tmp_path / "gone.png")
    huge = tmp_path / "huge.png"
    with huge.open("wb") as out:
        out.truncate(MAX_FILE_BYTES + 1)  # sparse: no 20 MB written
    with pytest.raises(PictureRefused, match="at most 20 MB"):
        portrait_from_file(huge)


def test_the_pixmap_takes_the_tokens_shape_and_is_cached(qapp: QApplication, tmp_path: Path) -> None:
    data = portrait_from_file(picture(tmp_path / "p.png"))
    disc = portrait_pixmap(data, 64, Side.PARTY).toImage()
    square = portrait_pixmap(data, 64, Side.OPPONENTS).toImage()
    assert disc.pixelColor(32, 32).alpha() == 255 and square.pixelColor(32, 32).alpha() == 255
    assert disc.pixelColor(1, 1).alpha() == 0 and square.pixelColor(1, 1).alpha() == 0  # outside both
    # Near a corner: outside the disc, inside the rounded square.
    assert disc.pixelColor(8, 8).alpha() == 0 and square.pixelColor(8, 8).alpha() == 255
    assert portrait_pixmap(data, 64, Side.PARTY) is portrait_pixmap(data, 64, Side.PARTY)
    assert portrait_pixmap("not base64 at all!", 64, Side.PARTY).isNull()
    assert portrait_image("bm90IGEgcGljdHVyZQ==").isNull()


# -- on the sheet -----------------------------------------------------------------------------------


def test_the_picture_button_sets_the_portrait_in_one_logged_undo_step(
    sheet: CombatantSheet, controller: TableController, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = picture(tmp_path / "ana.png")
    asked: list[str] = []

    def open_file(parent: object, title: str, start: str, filters: str) -> tuple[str, str]:
        asked.append(title)
        return str(path), filters

    monkeypatch.setattr(QFileDialog, "getOpenFileName", open_file)
    assert not sheet.remove_picture_button.isEnabled()
    assert sheet.remove_picture_button.toolTip() == "There is no picture to remove"
    before, log = controller.undo_stack.count(), len(controller.encounter.log)
    QTest.mouseClick(sheet.picture_button, Qt.MouseButton.LeftButton)
    assert asked == ["Picture for Ana"]
    assert controller.encounter.combatant("ana").portrait == portrait_from_file(path)
    assert controller.undo_stack.count() == before + 1
    assert len(controller.encounter.log) > log
    assert sheet.portrait_label.pixmap() is not None and not sheet.portrait_label.pixmap().isNull()
    assert sheet.remove_picture_button.isEnabled()
    QTest.mouseClick(sheet.remove_picture_button, Qt.MouseButton.LeftButton)
    assert controller.encounter.combatant("ana").portrait is None
    assert not sheet.remove_picture_button.isEnabled()
    assert sheet.portrait_label.pixmap().isNull()
    controller.undo_stack.undo()
    assert controller.encounter.combatant("ana").portrait is not None
    assert sheet.remove_picture_button.isEnabled()
    controller.undo_stack.undo()
    assert controller.encounter.combatant("ana").portrait is None


def test_a_bad_picture_is_refused_on_the_sheet_and_nothing_changes(
    sheet: CombatantSheet, controller: TableController, tmp_path: Path
) -> None:
    good = picture(tmp_path / "ana.png")
    assert sheet.set_portrait_from_file(good)
    kept = controller.encounter.combatant("ana").portrait
    bad = tmp_path / "notes.png"
    bad.write_text("not a picture")
    before = controller.undo_stack.count()
    assert not sheet.set_portrait_from_file(bad)
    assert "notes.png is not a picture" in sheet.message
    assert controller.encounter.combatant("ana").portrait == kept
    assert controller.undo_stack.count() == before
    # The next good picture clears the refusal.
    other = tmp_path / "other.png"
    square = QImage(300, 300, QImage.Format.Format_RGB32)
    square.fill(MAGENTA)
    assert square.save(str(other))
    assert sheet.set_portrait_from_file(other)
    assert sheet.message == ""
    assert controller.encounter.combatant("ana").portrait != kept


def drop_file(widget: CombatantSheet, path: Path) -> QDropEvent:
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    point = QPointF(widget.width() / 2, widget.height() / 2)
    copy = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(point.toPoint(), copy, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(
        widget,
        QDragMoveEvent(point.toPoint(), copy, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier),
    )
    event = QDropEvent(point, copy, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)
    return event


def test_a_picture_file_dropped_on_the_sheet_becomes_the_portrait(
    sheet: CombatantSheet, controller: TableController, tmp_path: Path
) -> None:
    before = controller.undo_stack.count()
    event = drop_file(sheet, picture(tmp_path / "dropped.png"))
    assert event.isAccepted()
    assert controller.encounter.combatant("ana").portrait is not None
    assert controller.undo_stack.count() == before + 1
    bad = tmp_path / "dropped.txt"
    bad.write_text("words")
    drop_file(sheet, bad)
    assert "dropped.txt is not a picture" in sheet.message
    assert controller.undo_stack.count() == before + 1
    controller.undo_stack.undo()
    assert controller.encounter.combatant("ana").portrait is None


# -- on the maps and in the list ---------------------------------------------------------------------


def green_pixels(view: QGraphicsView, cell: tuple[int, int]) -> int:
    """Pixels of the picture's green inside a cell of the view's map."""
    image = render(view)
    top_left = view.mapFromScene(QPointF(cell[0] * CELL_PX, cell[1] * CELL_PX))
    bottom_right = view.mapFromScene(QPointF((cell[0] + 1) * CELL_PX, (cell[1] + 1) * CELL_PX))
    count = 0
    for x in range(top_left.x(), bottom_right.x()):
        for y in range(top_left.y(), bottom_right.y()):
            c = image.pixelColor(x, y)
            count += c.green() > 150 and c.red() < 80 and c.blue() < 80
    return count


def test_both_maps_draw_the_portrait_inside_the_token(
    qtbot: QtBot, controller: TableController, tmp_path: Path
) -> None:
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    players = PlayerView(controller, view)
    qtbot.addWidget(players)
    players.show()
    qtbot.waitExposed(view)
    qtbot.waitExposed(players)
    assert green_pixels(view, (2, 2)) == 0 and green_pixels(players.view, (2, 2)) == 0
    data = portrait_from_file(picture(tmp_path / "ana.png"))
    controller.do(SetPortrait("ana", data))
    for shown in (view, players.view):
        token_px = CELL_PX * shown.transform().m11()
        green = green_pixels(shown, (2, 2))
        assert green > 0.08 * token_px * token_px, shown  # round the label: a good part of the body
        assert green < 0.6 * token_px * token_px  # inside the body: the side's ring and the label stay
        assert green_pixels(shown, (5, 2)) == 0  # the Goblin has none
    assert view.map_scene.tokens["ana"].look.portrait == data
    controller.undo_stack.undo()
    assert green_pixels(view, (2, 2)) == 0 and green_pixels(players.view, (2, 2)) == 0


def test_the_combatants_list_shows_a_small_portrait_by_the_name(
    qtbot: QtBot, controller: TableController, tmp_path: Path
) -> None:
    panel = CombatantsPanel(controller)
    qtbot.addWidget(panel)
    model = panel.model
    row = model.row_of("ana")
    name = model.index(row, model.COLUMNS.index("Name"))
    assert model.data(name, Qt.ItemDataRole.DecorationRole) is None
    changed: list[int] = []
    model.dataChanged.connect(lambda first, last, *_: changed.append(first.row()))
    controller.do(SetPortrait("ana", portrait_from_file(picture(tmp_path / "ana.png"))))
    assert row in changed  # the row repaints
    icon = model.data(name, Qt.ItemDataRole.DecorationRole)
    assert isinstance(icon, QIcon) and not icon.isNull()
    assert icon.pixmap(20, 20).toImage().pixelColor(10, 10).green() > 150
    assert model.data(model.index(model.row_of("goblin"), 0), Qt.ItemDataRole.DecorationRole) is None


def test_a_too_long_portrait_is_refused_by_the_engine_and_nothing_changes(controller: TableController) -> None:
    messages: list[str] = []
    controller.message.connect(messages.append)
    assert controller.do(SetPortrait("ana", "A" * (MAX_PORTRAIT_CHARS + 4))) is None
    assert controller.encounter.combatant("ana").portrait is None
    assert messages

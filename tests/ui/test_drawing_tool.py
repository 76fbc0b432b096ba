"""Drawings on the map with real mouse and key events on the view's viewport: a rectangle and a
freehand line drawn, a drawing picked and dragged, erased with Delete, each one undo step; and the
player view, which draws only the drawings shown to the players (a pixel test with its control).

The demo encounter, before combat: nobody stands in the map's top-left corner.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.actions import AddDrawing, EditDrawing
from lnl_desktop.core.encounter.drawings import DrawingKind
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.drawings import DrawingItem
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView
from lnl_desktop.ui.window.recovery import RecoveryStore

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
Point = tuple[float, float]


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView]:
    controller = TableController(storage.load(demo_encounter_path()))
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    return controller, view


def at(view: MapView, point: Point) -> QPoint:
    return view.mapFromScene(QPointF(point[0] * CELL_PX, point[1] * CELL_PX))


def press(view: MapView, point: Point) -> None:
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, point))


def release(view: MapView, point: Point) -> None:
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, point))


def move(view: MapView, point: Point) -> None:
    # QTest.mouseMove carries no buttons: a real move event with the button held.
    where = QPointF(at(view, point))
    event = QMouseEvent(
        QEvent.Type.MouseMove, where, view.viewport().mapToGlobal(where), Qt.MouseButton.NoButton, LEFT, NONE
    )
    QApplication.sendEvent(view.viewport(), event)


def drag(view: MapView, points: list[Point]) -> None:
    press(view, points[0])
    for point in points[1:]:
        move(view, point)
    release(view, points[-1])


def test_a_rectangle_is_drawn_with_the_mouse_and_undone(table: tuple[TableController, MapView]) -> None:
    controller, view = table
    view.set_tool("draw")
    view.draw_style.kind = DrawingKind.RECTANGLE
    drag(view, [(1, 1), (2, 1.5), (4, 3)])
    (drawing,) = controller.encounter.drawings
    assert drawing.kind is DrawingKind.RECTANGLE and not drawing.shown
    (x0, y0), (x1, y1) = drawing.points
    assert (x0, y0) == pytest.approx((1, 1), abs=0.03) and (x1, y1) == pytest.approx((4, 3), abs=0.03)
    assert controller.encounter.log[-1].text == "GM draws a rectangle (GM only)"
    assert set(view.map_scene.drawings.items) == {drawing.id}
    item = view.map_scene.drawings.items[drawing.id]
    assert item.cacheMode() is DrawingItem.CacheMode.DeviceCoordinateCache
    controller.undo_stack.undo()
    assert controller.encounter.drawings == () and not view.map_scene.drawings.items


def test_a_freehand_line_follows_the_mouse(table: tuple[TableController, MapView]) -> None:
    controller, view = table
    view.set_tool("draw")
    view.draw_style.kind = DrawingKind.FREEHAND
    view.draw_style.colour = "#0077bb"
    path = [(1 + i * 0.3, 1 + (i % 4) * 0.4) for i in range(12)]
    drag(view, path)
    (drawing,) = controller.encounter.drawings
    assert drawing.kind is DrawingKind.FREEHAND and drawing.colour == "#0077bb"
    assert len(drawing.points) >= 10
    assert drawing.points[0] == pytest.approx(path[0], abs=0.03)
    assert controller.undo_stack.count() == 1


def test_a_click_draws_nothing_and_says_why(table: tuple[TableController, MapView]) -> None:
    controller, view = table
    said: list[str] = []
    controller.message.connect(said.append)
    view.set_tool("draw")
    drag(view, [(2, 2), (2, 2)])
    assert controller.encounter.drawings == ()
    assert said and "Drag on the map to draw a rectangle" in said[-1]


def test_a_label_is_placed_and_its_words_edited_with_a_double_click(
    table: tuple[TableController, MapView], monkeypatch: pytest.MonkeyPatch
) -> None:
    controller, view = table
    words = iter(["the altar", "the old altar"])
    monkeypatch.setattr(view, "ask_text", lambda title, text="": next(words))
    view.set_tool("draw")
    view.draw_style.kind = DrawingKind.TEXT
    drag(view, [(2, 2), (2, 2)])
    (label,) = controller.encounter.drawings
    assert label.text == "the altar" and label.points[0] == pytest.approx((2, 2), abs=0.03)
    view.set_tool("select")
    QTest.mouseDClick(view.viewport(), LEFT, NONE, at(view, (2.3, 2.2)))
    assert controller.encounter.drawings[0].text == "the old altar"


def test_select_drag_move_and_delete_a_drawing(table: tuple[TableController, MapView]) -> None:
    controller, view = table
    controller.do(AddDrawing("line", ((1.0, 1.0), (4.0, 1.0)), width=6))
    view.set_tool("select")
    drag(view, [(2, 1), (2.5, 2), (3, 3)])  # pressed on the line: it moves along
    (drawing,) = controller.encounter.drawings
    assert [*drawing.points[0], *drawing.points[1]] == pytest.approx([2, 3, 5, 3], abs=0.03)
    assert view.map_scene.drawings.selected == drawing.id
    assert view.map_scene.drawings.items[drawing.id].pos() == QPointF(0, 0)
    QTest.keyClick(view, Qt.Key.Key_Delete)
    assert controller.encounter.drawings == ()
    assert controller.encounter.log[-1].text == "GM erases a line (GM only)"
    controller.undo_stack.undo()
    controller.undo_stack.undo()
    assert controller.encounter.drawings[0].points == ((1.0, 1.0), (4.0, 1.0))


def test_a_press_beside_a_drawing_pans_and_selects_nothing(table: tuple[TableController, MapView]) -> None:
    controller, view = table
    controller.do(AddDrawing("rectangle", ((1.0, 1.0), (5.0, 4.0))))
    view.set_tool("select")
    drag(view, [(3, 2.5), (3, 2.5)])  # inside the rectangle, far from its lines
    assert view.map_scene.drawings.selected is None


def test_the_layer_hides_on_the_gm_map(table: tuple[TableController, MapView]) -> None:
    controller, view = table
    controller.do(AddDrawing("line", ((1.0, 1.0), (4.0, 1.0))))
    view.map_scene.drawings.set_visible(False)
    assert not any(item.isVisible() for item in view.map_scene.drawings.items.values())
    assert view.drawing_at(at(view, (2, 1))) is None
    view.map_scene.drawings.set_visible(True)
    assert view.drawing_at(at(view, (2, 1))) is not None


# -- the whole window and the player view -------------------------------------------------------


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    main = MainWindow(
        storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(tmp_path / "recovery")
    )
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    yield main
    Presentation().apply(QApplication.instance())


def render(player: PlayerView) -> QImage:
    image = QImage(player.view.viewport().size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    player.view.render(painter)
    painter.end()
    return image


def test_the_draw_tool_and_the_layer_are_in_the_menus(window: MainWindow) -> None:
    assert window.tool_actions["draw"].shortcut().toString() == "P"
    window.tool_actions["draw"].trigger()
    assert window.map_view.tool() == "draw"
    texts = [a.text() for a in window.draw_menu.actions()]
    assert "&Freehand" in texts and "&Text label" in texts
    window.drawings_action.setChecked(False)
    assert not window.map_view.map_scene.drawings.visible


def test_the_player_view_draws_only_the_shown_drawings(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.player_view_action.trigger()
    player = window.player_view
    assert player is not None
    qtbot.waitExposed(player)
    controller = window.controller
    before = render(player)
    controller.do(AddDrawing("rectangle", ((1.0, 1.0), (6.0, 5.0)), "#ee3377", 20, "", False))
    controller.do(AddDrawing("text", ((2.0, 2.0),), "#ee3377", 20, "secret door", False))
    gm_only = render(player)
    assert gm_only == before, "a drawing the players must not see shows in the player view"
    assert not player.scene.drawings.items

    # The control: the same scene without its filter draws them, so the comparison can fail.
    layer = player.scene.drawings
    monkeypatch.setattr(layer, "player", False)
    layer.reset()
    layer.sync(controller.encounter)
    unfiltered = render(player)
    assert unfiltered != before
    monkeypatch.setattr(layer, "player", True)
    layer.reset()
    layer.sync(controller.encounter)
    assert render(player) == before

    controller.do(EditDrawing("d1", shown=True))
    assert set(player.scene.drawings.items) == {"d1"}
    assert render(player) != before
    controller.undo_stack.undo()
    assert render(player) == before

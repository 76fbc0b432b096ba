"""The map fits itself: on start, on every resize, when the map changes size or another encounter is
loaded, as long as the GM has not zoomed or panned by hand; ``fit_map`` (Ctrl+F) goes back to fitting.

"Fits" is measured on screen: the map's rect mapped to the viewport lies inside it, fills it in one
dimension but for a margin of a few pixels (:data:`FIT_MARGIN_PX` for the edge line), and is centred
in the other, so no more grey shows than the two aspect ratios require.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QGraphicsView
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.actions import EditMap
from lnl_desktop.core.encounter.map_model import MapGrid, Token
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.geometry import FIT_MARGIN_PX
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.window.player_view import PlayerView

NONE = Qt.KeyboardModifier.NoModifier


def on_screen(view: QGraphicsView) -> QRect:
    """The map's rect on the viewport, in pixels."""
    return view.mapFromScene(view.map_scene.map_rect()).boundingRect()  # type: ignore[attr-defined]


def assert_fits(view: QGraphicsView) -> None:
    shown = on_screen(view)
    port = view.viewport().rect()
    slack = FIT_MARGIN_PX + 2  # the margin, and a pixel of rounding on each side
    assert port.adjusted(-1, -1, 1, 1).contains(shown), (shown, port)
    gaps = (shown.left() - port.left(), port.right() - shown.right(), shown.top() - port.top())
    gaps += (port.bottom() - shown.bottom(),)
    left, right, top, bottom = gaps
    fills_width = left <= slack and right <= slack
    fills_height = top <= slack and bottom <= slack
    assert fills_width or fills_height, (shown, port)
    # Centred: the grey the aspect ratios leave is shared out evenly.
    assert abs(left - right) <= 2 and abs(top - bottom) <= 2, (shown, port)


@pytest.fixture
def view(qtbot: QtBot) -> MapView:
    controller = TableController(storage.load(demo_encounter_path()))  # 24 x 16 cells
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    qtbot.waitExposed(view)
    return view


def wheel(view: MapView, steps: int) -> None:
    centre = view.viewport().rect().center()
    event = QWheelEvent(
        QPointF(centre),
        QPointF(view.viewport().mapToGlobal(centre)),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        NONE,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), event)


def test_the_map_fits_on_start_and_after_every_resize(view: MapView) -> None:
    assert view.fit_mode
    assert_fits(view)
    for size in ((1366 - 500, 768 - 150), (420, 300), (1200, 400), (500, 900), (300, 1000), (1600, 1000)):
        view.resize(*size)
        assert view.fit_mode
        assert_fits(view)


def test_a_zoom_by_hand_leaves_fit_mode_and_fit_map_comes_back(view: MapView) -> None:
    wheel(view, 2)  # the wheel, about the cursor
    assert not view.fit_mode
    zoom = view.zoom()
    centre = view.mapToScene(view.viewport().rect().center())
    view.resize(1100, 700)
    assert view.zoom() == pytest.approx(zoom)  # the GM's zoom is kept...
    after = view.mapToScene(view.viewport().rect().center())
    assert abs(after.x() - centre.x()) < 2 and abs(after.y() - centre.y()) < 2  # ...about the same centre
    view.fit_map()  # Ctrl+F
    assert view.fit_mode
    assert_fits(view)
    view.resize(600, 700)
    assert_fits(view)
    for by_hand in (view.zoom_in, view.zoom_out, view.zoom_reset, lambda: view.center_on("tombril")):
        view.fit_map()
        by_hand()
        assert not view.fit_mode
        zoom = view.zoom()
        view.resize(view.width() + 37, view.height() - 23)
        assert view.zoom() == pytest.approx(zoom)


def test_a_pan_by_hand_leaves_fit_mode(view: MapView) -> None:
    start = on_screen(view).center()
    # Drag empty floor (cell (2, 2) of the demo is floor) by 60 pixels.
    grab = view.mapFromScene(QPointF(2.5 * 64, 2.5 * 64))
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, NONE, grab)
    for step in range(1, 7):
        point = QPointF(grab + QPoint(10 * step, 0))
        move = QMouseEvent(
            QEvent.Type.MouseMove,
            point,
            view.viewport().mapToGlobal(point),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.LeftButton,
            NONE,
        )
        QApplication.sendEvent(view.viewport(), move)
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, NONE, grab + QPoint(60, 0))
    panned = on_screen(view).center()
    assert panned.x() > start.x() + 20  # the map followed the hand
    assert not view.fit_mode
    zoom = view.zoom()
    view.resize(900, 650)
    assert view.zoom() == pytest.approx(zoom)  # not fitted again: the GM's view stays
    assert not view.fit_mode
    view.fit_map()
    assert_fits(view)


def test_a_map_that_changes_size_is_fitted_again_unless_zoomed_by_hand(view: MapView) -> None:
    controller = view.controller
    assert controller.do(EditMap({"width": 40, "height": 14})) is not None  # Map settings
    assert_fits(view)
    controller.undo_stack.undo()
    assert controller.encounter.map.width == 24
    assert_fits(view)
    view.zoom_in()
    zoom = view.zoom()
    controller.do(EditMap({"width": 30, "height": 30}))
    assert view.zoom() == pytest.approx(zoom)  # the GM zoomed by hand: left as it is


def tall_encounter() -> Encounter:
    combatants = [
        Combatant(id="a", name="A", side=Side.PARTY, level=1, stamina_max=5, injury_max=5),
        Combatant(id="b", name="B", side=Side.OPPONENTS, level=1, stamina_max=5, injury_max=5),
    ]
    tokens = {"a": Token(cell=(1, 1)), "b": Token(cell=(8, 30))}
    return Encounter(map=MapGrid(width=10, height=40), combatants=combatants, tokens=tokens)


def test_another_encounter_is_fitted(view: MapView) -> None:
    view.zoom_in()  # whatever the GM did with the last map
    view.controller.replace_encounter(tall_encounter())
    assert view.fit_mode
    assert_fits(view)
    view.resize(1000, 500)
    assert_fits(view)


def test_the_player_view_fits_its_map_too(qtbot: QtBot, view: MapView) -> None:
    player = PlayerView(view.controller, view)
    qtbot.addWidget(player)
    player.show()
    qtbot.waitExposed(player)
    assert_fits(player.view)
    player.resize(700, 900)
    assert_fits(player.view)
    view.controller.do(EditMap({"width": 40, "height": 14}))
    assert_fits(player.view)
    view.controller.replace_encounter(tall_encounter())
    assert_fits(player.view)

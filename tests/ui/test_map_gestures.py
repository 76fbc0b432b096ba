"""The map's gestures: a press begins the one its tool and button say, the view holds it until its
release ends it, and Escape cancels any that shows a preview (a pan shows none).

The demo encounter in setup: Tombril stands at (8, 6); (3, 12) is empty floor.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.edit_gestures import DrawLine, EraseLines, FogRect, PaintStroke
from lnl_desktop.ui.map.gestures import Gesture, Pan
from lnl_desktop.ui.map.token_gestures import MoveToken, TurnToken
from lnl_desktop.ui.plumbing.controller import TableController

LEFT = Qt.MouseButton.LeftButton
RIGHT = Qt.MouseButton.RightButton
MIDDLE = Qt.MouseButton.MiddleButton
NONE = Qt.KeyboardModifier.NoModifier
Cell = tuple[int, int]
TOKEN: Cell = (8, 6)
FLOOR: Cell = (3, 12)


@pytest.fixture
def view(qtbot: QtBot) -> MapView:
    view = MapView(TableController(storage.load(demo_encounter_path())))
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    return view


def at(view: MapView, cell: Cell) -> QPoint:
    return view.mapFromScene(view.scene_point_of(cell))


def move(view: MapView, cell: Cell, buttons: Qt.MouseButton) -> None:
    point = QPointF(at(view, cell))
    event = QMouseEvent(
        QEvent.Type.MouseMove, point, view.viewport().mapToGlobal(point), Qt.MouseButton.NoButton, buttons, NONE
    )
    QApplication.sendEvent(view.viewport(), event)


@pytest.mark.parametrize(
    ("tool", "button", "cell", "kind"),
    [
        ("select", LEFT, TOKEN, MoveToken),
        ("select", RIGHT, TOKEN, TurnToken),
        ("select", LEFT, FLOOR, Pan),
        ("walls", MIDDLE, FLOOR, Pan),
        ("walls", LEFT, FLOOR, PaintStroke),
        ("erase", RIGHT, FLOOR, PaintStroke),
        ("wall_lines", LEFT, FLOOR, DrawLine),
        ("doors", LEFT, FLOOR, DrawLine),
        ("doors", RIGHT, FLOOR, EraseLines),
        ("erase_lines", LEFT, FLOOR, EraseLines),
        ("fog", RIGHT, FLOOR, FogRect),
    ],
)
def test_a_press_begins_the_tools_gesture_and_its_release_ends_it(
    view: MapView, tool: str, button: Qt.MouseButton, cell: Cell, kind: type[Gesture]
) -> None:
    view.set_tool(tool)
    QTest.mousePress(view.viewport(), button, NONE, at(view, cell))
    assert type(view.gesture) is kind
    QTest.mousePress(view.viewport(), MIDDLE if button != MIDDLE else LEFT, NONE, at(view, cell))
    assert type(view.gesture) is kind  # one gesture at a time: another button does not begin one
    QTest.mouseRelease(view.viewport(), button, NONE, at(view, cell))
    assert view.gesture is None


@pytest.mark.parametrize(
    ("tool", "button", "cell"), [("select", LEFT, TOKEN), ("walls", LEFT, FLOOR), ("fog", LEFT, FLOOR)]
)
def test_escape_cancels_a_gesture_with_a_preview_and_applies_nothing(
    view: MapView, tool: str, button: Qt.MouseButton, cell: Cell
) -> None:
    view.set_tool(tool)
    before = view.controller.encounter
    QTest.mousePress(view.viewport(), button, NONE, at(view, cell))
    move(view, (cell[0] + 2, cell[1] + 1), button)
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    assert view.gesture is None
    QTest.mouseRelease(view.viewport(), button, NONE, at(view, (cell[0] + 2, cell[1] + 1)))
    assert view.controller.encounter is before


def test_escape_during_a_pan_deselects_and_the_pan_goes_on(view: MapView) -> None:
    view.controller.select("tombril")
    QTest.mousePress(view.viewport(), MIDDLE, NONE, at(view, FLOOR))
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    assert view.controller.selected is None
    assert isinstance(view.gesture, Pan)
    QTest.mouseRelease(view.viewport(), MIDDLE, NONE, at(view, FLOOR))
    assert view.gesture is None

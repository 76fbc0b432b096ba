"""The red plate over the map says the latest refusal, never an older one.

The demo encounter in Tombril's turn: Tombril at (8, 6), the tower's wall at (10, 2).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]
Cell = tuple[int, int]
LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier


def at(view: MapView, cell: Cell) -> QPoint:
    return view.mapFromScene(view.scene_point_of(cell))


def drag(view: MapView, cells: list[Cell]) -> None:
    """Press on the first cell, drag through the others and release on the last."""
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, cells[0]))
    for cell in cells[1:]:
        point = QPointF(at(view, cell))
        move = QMouseEvent(
            QEvent.Type.MouseMove, point, view.viewport().mapToGlobal(point), Qt.MouseButton.NoButton, LEFT, NONE
        )
        QApplication.sendEvent(view.viewport(), move)
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, cells[-1]))
    QApplication.processEvents()


def test_two_refusals_in_a_row_the_plate_reads_the_second(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    controller, view, plate = window.controller, window.map_view, window.toast
    controller.do(act.StartCombat(face=5))
    controller.do(act.BeginTurn("tombril"))

    # A drop on the tower's wall: the engine refuses the move.
    drag(view, [(8, 6), (9, 6), (9, 5), (10, 2)])
    assert controller.encounter.tokens["tombril"].cell == (8, 6)
    assert plate.isVisible() and "wall" in plate.text().lower()
    first = plate.text()

    # Then the erase-lines tool on a cell with no wall line: the map refuses, and the plate says so.
    view.set_tool("erase_lines")
    drag(view, [(3, 12), (3, 12)])
    said = window.statusBar().currentMessage()
    assert said == "No wall line or door there to erase"
    assert plate.isVisible() and plate.text() == f"Not done: {said}" != first

    # And a turn key with nothing selected, after that: the plate follows again.
    view.set_tool("select")
    controller.select(None)
    assert view.turn_selected(45) is None
    assert plate.text() == "Not done: Select a token on the map to turn it"

    # The engine's next refusal replaces the map's.
    assert controller.do(act.Move("tombril", to=(10, 0))) is None
    assert plate.text() == f"Not done: {controller.refusal}"

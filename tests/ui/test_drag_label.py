"""The drag's distance label never covers the token at the destination: above its footprint, below it
near the top of the view, slid left near the right edge, and always inside the map view."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.map.view import MapView
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.main_window import MainWindow

LEFT, NONE = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier


def point_of(view: MapView, cell: Cell) -> QPointF:
    return QPointF(view.mapFromScene(view.scene_point_of(cell)))


def move_held(view: MapView, cell: Cell) -> None:
    # QTest.mouseMove carries no buttons: a real move event with the left button held.
    at = point_of(view, cell)
    event = QMouseEvent(QEvent.Type.MouseMove, at, view.viewport().mapToGlobal(at), Qt.MouseButton.NoButton, LEFT, NONE)
    QApplication.sendEvent(view.viewport(), event)


def footprint_on_screen(view: MapView, anchor: Cell, size: int) -> QRect:
    rect = QRectF(anchor[0] * CELL_PX, anchor[1] * CELL_PX, size * CELL_PX, size * CELL_PX)
    return view.mapFromScene(rect).boundingRect()


DRAGS: list[tuple[str, list[Cell], int]] = [
    ("tombril", [(8, 6), (9, 6), (10, 7)], 1),  # the middle of the map
    ("half-orc", [(13, 9), (13, 8), (13, 5), (13, 3), (12, 0)], 1),  # the top row: the label goes below
    ("hill-giant", [(15, 6), (16, 7), (22, 9)], 2),  # the right edge, a 2 x 2 footprint
]


def test_the_drag_label_stays_clear_of_the_destination_footprint(demo_window: MainWindow) -> None:
    view = demo_window.map_view
    assert demo_window.controller.do(act.StartCombat(face=5)) is not None  # in combat a drag costs feet: labelled
    for cid, path, size in DRAGS:
        QTest.mousePress(view.viewport(), LEFT, NONE, point_of(view, path[0]).toPoint())
        for cell in path[1:]:
            move_held(view, cell)
        label = view.drag_layer.label
        assert label.isVisible() and label.text
        anchor = view.gesture.target  # type: ignore[union-attr]
        shown = label.deviceTransform(view.viewportTransform()).mapRect(label.boundingRect()).toAlignedRect()
        token = footprint_on_screen(view, anchor, size)
        assert not shown.intersects(token), (cid, shown, token)
        assert view.viewport().rect().contains(shown), (cid, shown, view.viewport().rect())
        QTest.keyClick(view, Qt.Key.Key_Escape)  # cancelled: nothing moves
        QTest.mouseRelease(view.viewport(), LEFT, NONE, point_of(view, path[-1]).toPoint())
        assert demo_window.controller.encounter.tokens[cid].cell == path[0]

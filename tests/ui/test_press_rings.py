"""A press on a token that was not selected selects it at once, but its rings (melee, range) show at the
release or once the press is held still: a press that becomes a drag never paints them for one frame
only to hide them at its first step (nor changes them while hidden: Qt repaints where a hidden item was
last painted when its shape changes). A press on the token already selected leaves its rings on show.

The demo encounter in round 1 with Tombril's turn begun: Tombril at (8, 6), Janine at (8, 9)."""

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
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
TOMBRIL, JANINE = (8, 6), (8, 9)


@pytest.fixture
def view(qtbot: QtBot) -> MapView:
    controller = TableController(storage.load(demo_encounter_path()))
    controller.engine.start_combat(face=5)
    controller.engine.begin_turn("tombril")
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    return view


def at(view: MapView, cell: tuple[int, int]) -> QPoint:
    return view.mapFromScene(QPointF((cell[0] + 0.5) * CELL_PX, (cell[1] + 0.5) * CELL_PX))


def move(view: MapView, cell: tuple[int, int]) -> None:
    where = QPointF(at(view, cell))
    event = QMouseEvent(QEvent.Type.MouseMove, where, where, Qt.MouseButton.NoButton, LEFT, NONE)
    QApplication.sendEvent(view.viewport(), event)


def rings(view: MapView) -> list:
    o = view.overlays
    return [o.melee, o.reach_weapon, o.too_close, o.max_range]


def shown(view: MapView) -> bool:
    """Whether the selected combatant's rings are on the map (the melee ring is never empty)."""
    melee = view.overlays.melee
    return all(ring.isVisible() for ring in rings(view)) and not melee.is_empty


def test_a_click_on_another_token_shows_its_rings_at_the_release(view: MapView) -> None:
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, JANINE))
    assert view.controller.selected == "janine"  # selected at the press: the docks follow at once
    assert not any(ring.isVisible() for ring in rings(view))
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, JANINE))
    assert shown(view) and view.overlays.melee.about == {"janine"}


def test_a_drag_from_a_press_never_shows_the_rings_until_the_drop(view: MapView) -> None:
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, JANINE))
    for cell in ((8, 10), (7, 10), (7, 11)):
        move(view, cell)
        assert not any(ring.isVisible() for ring in rings(view))
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, (7, 11)))
    assert shown(view)
    assert view.controller.selected == "janine"


def test_a_press_held_still_shows_the_rings(view: MapView, qtbot: QtBot) -> None:
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, JANINE))
    assert not shown(view)
    qtbot.waitUntil(lambda: shown(view), timeout=QApplication.startDragTime() + 2000)
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, JANINE))
    assert shown(view)


def test_a_press_on_the_selected_token_keeps_its_rings(view: MapView) -> None:
    view.controller.select("tombril")
    QApplication.processEvents()
    assert shown(view)
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, TOMBRIL))
    assert shown(view)
    move(view, (8, 7))  # a drag hides them from its first step, as ever
    assert not any(ring.isVisible() for ring in rings(view))
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, (8, 7)))
    assert shown(view)


def test_the_rings_shown_after_a_drag_are_those_of_the_token_selected_now(view: MapView) -> None:
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, JANINE))
    move(view, (8, 10))
    assert not any(ring.isVisible() for ring in rings(view))
    view.controller.select("tombril")  # the selection changes under the drag (a dock): the drag is dropped
    assert view.gesture is None
    assert shown(view) and view.overlays.melee.about == {"tombril"}
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, (8, 10)))
    assert view.controller.encounter.tokens["janine"].cell == JANINE
    x, y = TOMBRIL
    assert set(view.overlays.melee.cells) == {(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)} - {TOMBRIL}

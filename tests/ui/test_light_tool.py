"""Light on the map (RULES §15) through real mouse events on the GM's viewport: the Light tool places
and takes away a torch, a carried torch follows its token along a drag, the GM's map outlines the lit
areas and the player view is dark where no light reaches (pixel tests, with a control).

A 12 x 8 map split by a wall line down x = 6 with a closed door at (6, 3)-(6, 4); Ana (Party) in the
west room at (2, 3), a Goblin in the east room at (9, 3). The ambient light is dark; no fog of war.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QImage, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QGraphicsView
from pytestqt.qtbot import QtBot
from qt_pictures import render

from lnl_desktop.core.encounter.actions import SetAmbientLight
from lnl_desktop.core.encounter.map_model import Door, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView

LEFT = Qt.MouseButton.LeftButton
RIGHT = Qt.MouseButton.RightButton
NOBUTTON = Qt.MouseButton.NoButton
NONE = Qt.KeyboardModifier.NoModifier
Cell = tuple[int, int]


def encounter() -> Encounter:
    return Encounter(
        name="Dark rooms",
        map=MapGrid(
            width=12,
            height=8,
            segments=(WallSegment(a=(6, 0), b=(6, 3)), WallSegment(a=(6, 4), b=(6, 8))),
            doors=(Door(a=(6, 3), b=(6, 4)),),
        ),
        options={"light": "dark"},
        combatants=[
            Combatant(id="ana", name="Ana", side=Side.PARTY, level=1, stamina_max=6, injury_max=6, vision_deg=360),
            Combatant(id="goblin", name="Goblin", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=4),
        ],
        tokens={"ana": Token(cell=(2, 3), facing=90), "goblin": Token(cell=(9, 3), facing=270)},
    )


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView, PlayerView]:
    controller = TableController(encounter())
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    players = PlayerView(controller, view)
    qtbot.addWidget(players)
    players.show()
    qtbot.waitExposed(players)
    return controller, view, players


def at(view: QGraphicsView, point: tuple[float, float]) -> QPoint:
    return view.mapFromScene(QPointF(point[0] * CELL_PX, point[1] * CELL_PX))


def centre(cell: Cell) -> tuple[float, float]:
    return (cell[0] + 0.5, cell[1] + 0.5)


def move(view: MapView, point: tuple[float, float], buttons: Qt.MouseButton = LEFT) -> None:
    where = QPointF(at(view, point))
    event = QMouseEvent(QEvent.Type.MouseMove, where, view.viewport().mapToGlobal(where), NOBUTTON, buttons, NONE)
    QApplication.sendEvent(view.viewport(), event)


def drag(view: MapView, cells: list[Cell]) -> None:
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, centre(cells[0])))
    for cell in cells[1:]:
        move(view, centre(cell))
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, centre(cells[-1])))


def shade(view: QGraphicsView, image: QImage, cell: Cell) -> int:
    where = at(view, (cell[0] + 0.15, cell[1] + 0.15))
    return image.pixelColor(where.x(), where.y()).lightness()


def test_the_light_tool_places_a_torch_with_a_click_and_takes_it_away_with_a_right_click(table) -> None:
    controller, view, players = table
    assert players.scene.light.isVisible()  # dark all over: the players' map is dark
    view.set_tool("light")
    before = controller.undo_stack.count()
    QTest.mouseClick(view.viewport(), LEFT, NONE, at(view, centre((3, 5))))
    (torch,) = controller.encounter.lights
    assert torch.cell == (3, 5) and torch.kind.value == "torch"
    assert controller.undo_stack.count() == before + 1
    assert controller.encounter.log[-1].text == "A torch (20 ft + 20 ft) at (3, 5)"
    levels = view.map_scene.light.levels
    assert levels is not None and levels[5, 3] == 2 and levels[5, 8] == 0  # the wall stops it at x = 6
    assert view.map_scene.light._bright and view.map_scene.light._dim  # the GM sees the lit areas outlined
    QTest.mouseClick(view.viewport(), RIGHT, NONE, at(view, centre((3, 5))))
    assert controller.encounter.lights == ()
    controller.undo_stack.undo()
    assert controller.encounter.lights[0].cell == (3, 5)


def test_a_carried_torch_follows_its_token_along_a_drag(table) -> None:
    controller, view, players = table
    menu = view.token_menu("ana")
    (carry,) = [a for a in menu.actions() if a.text() == "Carry a torch"]
    carry.trigger()
    assert controller.encounter.lights[0].carrier == "ana"
    light = view.map_scene.light
    assert light.levels[3, 2] == 2 and light.levels[7, 5] == 1 and light.levels[3, 10] == 0
    QTest.mouseClick(view.viewport(), LEFT, NONE, at(view, (6.0, 3.5)))  # the GM opens the door
    assert controller.encounter.map.doors[0].open
    drag(view, [(2, 3), (4, 3), (6, 3), (9, 4)])
    assert controller.encounter.tokens["ana"].cell == (9, 4)
    assert light.levels[4, 9] == 2 and light.levels[3, 11] == 2  # the east room is lit now
    assert light.levels[7, 0] == 0  # and the west room's far corner is dark again
    image = render(players.view)
    assert shade(players.view, image, (11, 6)) > 150
    assert "Drop the light" in [a.text() for a in view.token_menu("ana").actions()]
    controller.undo_stack.undo()
    assert controller.encounter.tokens["ana"].cell == (2, 3)
    assert light.levels[3, 11] == 0


def test_the_player_view_is_dark_where_no_light_reaches_and_dim_in_dim_light(table) -> None:
    controller, view, players = table
    view.set_tool("light")
    QTest.mouseClick(view.viewport(), LEFT, NONE, at(view, centre((2, 5))))
    image = render(players.view)
    lit, dim, dark = shade(players.view, image, (3, 5)), shade(players.view, image, (5, 1)), 0
    dark = shade(players.view, image, (10, 6))  # behind the wall
    assert dark < 40 < dim < lit  # dark as night, dim between, bright as the floor
    assert lit > 150
    # The GM's map shows the floor everywhere, only outlined.
    gm = render(view)
    assert shade(view, gm, (10, 6)) > 150
    # Control: without the players' light item, the dark cell would show its floor.
    players.scene.light.hide()
    assert shade(players.view, render(players.view), (10, 6)) > 150
    players.scene.light.show()
    controller.do(SetAmbientLight("normal"))
    assert shade(players.view, render(players.view), (10, 6)) > 150  # a torch in daylight changes nothing

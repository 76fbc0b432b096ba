"""Fog of war: the player view shows what the Party sees, the GM's map shows it faintly, and the GM
shows or hides areas with the fog tool; all by real mouse events on the GM's viewport.

A 12 x 8 map split by a wall line down x = 6, with a closed door from (6, 3) to (6, 4): the west
room holds Ana (Party, sees all round) at (2, 3); the east room a Goblin (Opponents) at (9, 3)
and an Orc at (10, 6). Fog of war is on.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QImage, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QGraphicsView
from pytestqt.qtbot import QtBot
from qt_pictures import render

from lnl_desktop.core.encounter.actions import BeginTurn, SetFog, StartCombat
from lnl_desktop.core.encounter.map_model import Door, Fog, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.engine import party_view
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.overlays import ConeItem
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView, banner_text

LEFT = Qt.MouseButton.LeftButton
RIGHT = Qt.MouseButton.RightButton
NOBUTTON = Qt.MouseButton.NoButton
NONE = Qt.KeyboardModifier.NoModifier

Cell = tuple[int, int]
EAST_ROOM = {(x, y) for x in range(6, 12) for y in range(8)}
WEST_ROOM = {(x, y) for x in range(0, 6) for y in range(8)}


def encounter(fog: bool = True) -> Encounter:
    return Encounter(
        name="Two rooms",
        map=MapGrid(
            width=12,
            height=8,
            segments=(WallSegment(a=(6, 0), b=(6, 3)), WallSegment(a=(6, 4), b=(6, 8))),
            doors=(Door(a=(6, 3), b=(6, 4)),),
        ),
        combatants=[
            Combatant(id="ana", name="Ana", side=Side.PARTY, level=1, stamina_max=6, injury_max=6, vision_deg=360),
            Combatant(id="goblin", name="Goblin", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=4),
            Combatant(id="orc", name="Orc", side=Side.OPPONENTS, level=1, stamina_max=8, injury_max=8),
        ],
        tokens={
            "ana": Token(cell=(2, 3), facing=90),
            "goblin": Token(cell=(9, 3), facing=270),
            "orc": Token(cell=(10, 6), facing=270),
        },
        fog=Fog(enabled=fog),
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


def drag(view: MapView, cells: list[Cell], button: Qt.MouseButton = LEFT) -> None:
    QTest.mousePress(view.viewport(), button, NONE, at(view, centre(cells[0])))
    for cell in cells[1:]:
        move(view, centre(cell), button)
    QTest.mouseRelease(view.viewport(), button, NONE, at(view, centre(cells[-1])))


def shade(view: QGraphicsView, image: QImage, cell: Cell) -> int:
    """The lightness near a cell's corner (clear of tokens and their labels)."""
    where = at(view, (cell[0] + 0.15, cell[1] + 0.15))
    return image.pixelColor(where.x(), where.y()).lightness()


def test_the_players_see_no_opponent_the_party_cannot_see(table) -> None:
    controller, view, players = table
    seen = party_view.party_view(controller.encounter)
    assert (9, 3) not in seen and (10, 6) not in seen  # the wall and the closed door are in the way
    assert set(players.scene.tokens) == {"ana"}
    assert set(view.map_scene.tokens) == {"ana", "goblin", "orc"}  # the GM sees everyone
    # Nothing on the players' map tells of them: no item, tooltip or label.
    text = "\n".join(item.toolTip() for item in players.scene.items())
    assert "Goblin" not in text and "Orc" not in text
    image = render(players.view)
    assert shade(players.view, image, (9, 5)) == 0  # the east room is black
    assert shade(players.view, image, (3, 5)) > 150  # the west room is lit


def test_a_party_token_walking_into_a_room_reveals_it(table) -> None:
    controller, view, players = table
    # The GM opens the door with a click, then drags Ana through it.
    QTest.mouseClick(view.viewport(), LEFT, NONE, at(view, (6.0, 3.5)))
    assert controller.encounter.map.doors[0].open
    assert "goblin" in players.scene.tokens  # straight through the doorway: the Goblin is in sight
    assert "orc" not in players.scene.tokens  # round the corner: not yet
    drag(view, [(2, 3), (4, 3), (6, 3), (8, 4)])
    assert controller.encounter.tokens["ana"].cell == (8, 4)
    # At once, after that one change: the whole east room and both foes.
    assert set(players.scene.tokens) == {"ana", "goblin", "orc"}
    seen = party_view.party_view(controller.encounter)
    assert (10, 6) in seen and (9, 5) in seen
    assert players.scene.fog.seen == seen
    image = render(players.view)
    assert shade(players.view, image, (9, 5)) > 150
    # Undo: Ana back in the west room, the foes gone from the players' map again.
    controller.undo_stack.undo()
    assert controller.encounter.tokens["ana"].cell == (2, 3)
    assert "orc" not in players.scene.tokens


def test_the_gm_map_shades_what_the_players_do_not_see(table) -> None:
    controller, view, players = table
    fog = view.map_scene.fog
    assert fog.isVisible()
    image = render(view)
    dark, lit = shade(view, image, (9, 5)), shade(view, image, (3, 5))
    assert 100 < dark < lit  # a faint shade, not the players' black
    view.set_fog(False)
    assert not controller.encounter.fog.enabled
    assert not fog.isVisible() and not players.scene.fog.isVisible()
    assert set(players.scene.tokens) == {"ana", "goblin", "orc"}  # no fog: the players see them all
    controller.undo_stack.undo()
    assert controller.encounter.fog.enabled and fog.isVisible()
    assert set(players.scene.tokens) == {"ana"}


def test_the_fog_tool_shows_and_hides_a_rectangle_one_undo_step_each(table) -> None:
    controller, view, players = table
    view.set_tool("fog")
    assert view.tool() == "fog"
    before = controller.undo_stack.count()
    drag(view, [(9, 5), (10, 5), (11, 7)])  # left: show the players
    shown = {(x, y) for x in (9, 10, 11) for y in (5, 6, 7)}
    assert shown <= controller.encounter.fog.explored
    assert controller.undo_stack.count() == before + 1
    image = render(players.view)
    dim = shade(players.view, image, (9, 5))
    assert 0 < dim < shade(players.view, image, (3, 5))  # explored: dimmed, not black
    assert shade(players.view, image, (8, 5)) == 0
    # Shown as explored, not in sight: the Orc standing there stays off the players' map.
    assert "orc" not in players.scene.tokens
    # The same rectangle again changes nothing: no step.
    drag(view, [(9, 5), (11, 7)])
    assert controller.undo_stack.count() == before + 1
    drag(view, [(10, 6), (11, 7)], RIGHT)  # right: hide again
    assert {(10, 6), (11, 6), (10, 7), (11, 7)}.isdisjoint(controller.encounter.fog.explored)
    assert {(9, 5), (9, 6)} <= controller.encounter.fog.explored
    assert shade(players.view, render(players.view), (11, 7)) == 0
    assert controller.undo_stack.count() == before + 2
    controller.undo_stack.undo()
    assert shown <= controller.encounter.fog.explored
    controller.undo_stack.undo()
    assert not shown & controller.encounter.fog.explored


def test_the_fog_tool_shows_the_gm_the_fog_even_while_it_is_off(qtbot: QtBot) -> None:
    controller = TableController(encounter(fog=False))
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    qtbot.waitExposed(view)
    assert not view.map_scene.fog.isVisible()
    view.set_tool("fog")
    assert view.map_scene.fog.isVisible()
    view.set_tool("select")
    assert not view.map_scene.fog.isVisible()


def test_no_shared_overlay_tells_of_a_foe_in_the_fog(table) -> None:
    controller, view, players = table
    players.view.set_share_overlays(True)
    move(view, centre((9, 3)), NOBUTTON)  # the GM hovers the Goblin: its cone and its blind cells
    cones = [item for item in view.map_scene.items() if isinstance(item, ConeItem) and not item.is_empty]
    assert cones and cones[0].about == {"goblin"}
    assert not [item for item in players.view.shared_overlays() if "goblin" in item.about]
    controller.do(SetFog(False))
    assert [item for item in players.view.shared_overlays() if "goblin" in item.about]


def test_the_banner_names_no_foe_in_the_fog(table) -> None:
    controller, _, players = table
    controller.do(StartCombat(face=2))  # the Opponents act first
    assert "goblin" in [c.id for c in controller.engine.waiting()]
    controller.do(BeginTurn("goblin"))
    assert "Goblin" not in players.banner.text()
    assert "the Opponents' turn" in players.banner.text()
    controller.do(SetFog(False))
    assert "Goblin's turn" in banner_text(controller)

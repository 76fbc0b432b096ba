"""Wall segments and doors on the map, drawn, erased and opened by real mouse events on the viewport.

A 12 x 8 map with no walls: Ana (Party) stands at (2, 3), a Goblin (Opponents) at (9, 3).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QLineF, QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QGraphicsView
from pytestqt.qtbot import QtBot
from qt_pictures import render

from lnl_desktop.core.encounter.actions import AddWall, Face, RemoveToken, RemoveWall, SetHidden
from lnl_desktop.core.encounter.map_model import Door, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.map import visibility
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.ui.map import TOOLS, MapView
from lnl_desktop.ui.map.walls import DOOR_WIDTH, LinesPreview
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView

LEFT = Qt.MouseButton.LeftButton
RIGHT = Qt.MouseButton.RightButton
NOBUTTON = Qt.MouseButton.NoButton
NONE = Qt.KeyboardModifier.NoModifier

Point = tuple[float, float]


def encounter(**map_fields: object) -> Encounter:
    return Encounter(
        name="Walls",
        map=MapGrid(width=12, height=8, **map_fields),  # type: ignore[arg-type]
        combatants=[
            Combatant(id="ana", name="Ana", side=Side.PARTY, level=1, stamina_max=6, injury_max=6),
            Combatant(id="goblin", name="Goblin", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=4),
        ],
        tokens={"ana": Token(cell=(2, 3), facing=90), "goblin": Token(cell=(9, 3), facing=270)},
    )


def make_view(qtbot: QtBot, controller: TableController) -> MapView:
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    return view


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView, list[str]]:
    controller = TableController(encounter())
    view = make_view(qtbot, controller)
    messages: list[str] = []
    controller.message.connect(messages.append)
    return controller, view, messages


# -- real events, at scene points given in cells ---------------------------------------------------


def at(view: QGraphicsView, point: Point) -> QPoint:
    return view.mapFromScene(QPointF(point[0] * CELL_PX, point[1] * CELL_PX))


def press(view: MapView, point: Point, button: Qt.MouseButton = LEFT) -> None:
    QTest.mousePress(view.viewport(), button, NONE, at(view, point))


def release(view: MapView, point: Point, button: Qt.MouseButton = LEFT) -> None:
    QTest.mouseRelease(view.viewport(), button, NONE, at(view, point))


def move(view: MapView, point: Point, buttons: Qt.MouseButton = LEFT) -> None:
    where = QPointF(at(view, point))
    event = QMouseEvent(QEvent.Type.MouseMove, where, view.viewport().mapToGlobal(where), NOBUTTON, buttons, NONE)
    QApplication.sendEvent(view.viewport(), event)


def drag(view: MapView, points: list[Point], button: Qt.MouseButton = LEFT) -> None:
    press(view, points[0], button)
    for point in points[1:]:
        move(view, point, button)
    release(view, points[-1], button)


def click(view: MapView, point: Point, button: Qt.MouseButton = LEFT) -> None:
    press(view, point, button)
    release(view, point, button)


def ends(line: WallSegment) -> set[tuple[float, float]]:
    return {tuple(line.a), tuple(line.b)}


def scene_lines(view: MapView) -> set[tuple[float, ...]]:
    """The wall lines the scene paints, as sets of scene coordinates (either way round)."""
    out = set()
    for line in view.map_scene.lines.wall_lines():
        a, b = (line.x1(), line.y1()), (line.x2(), line.y2())
        out.add((*min(a, b), *max(a, b)))
    return out


def pixel(view: QGraphicsView, image: QImage, point: Point) -> QColor:
    where = at(view, point)
    return image.pixelColor(where.x(), where.y())


# -- drawing walls ---------------------------------------------------------------------------------


def test_every_line_tool_has_a_name_the_window_can_map(table) -> None:
    _, view, _ = table
    said: list[str] = []
    view.toolChanged.connect(said.append)
    for name in ("wall_lines", "doors", "erase_lines", "fog", "select"):
        assert name in TOOLS
        view.set_tool(name)
        assert view.tool() == name
    assert said == ["wall_lines", "doors", "erase_lines", "fog", "select"]


def test_a_wall_drawn_by_a_drag_snaps_to_corners_and_is_one_undo_step(table) -> None:
    controller, view, _ = table
    infos: list[str] = []
    view.dragInfo.connect(infos.append)
    view.set_tool("wall_lines")
    before = controller.undo_stack.count()
    press(view, (2.2, 1.15))  # nearest corner (2, 1)
    move(view, (3.1, 1.3))
    move(view, (4.3, 0.8))
    # The rubber band runs between the corners nearest the press and the cursor.
    assert view.lines_preview.lines == [QLineF(2 * CELL_PX, CELL_PX, 4 * CELL_PX, CELL_PX)]
    assert "wall: (2, 1) to (4, 1)" in infos[-1]
    move(view, (6.4, 1.2))
    release(view, (5.8, 0.9))  # nearest corner (6, 1)
    assert [ends(s) for s in controller.encounter.map.segments] == [{(2, 1), (6, 1)}]
    assert controller.undo_stack.count() == before + 1
    assert view.lines_preview.lines == [] and infos[-1] == ""
    # The scene paints it: one line from corner to corner, in scene units.
    assert scene_lines(view) == {(2 * CELL_PX, CELL_PX, 6 * CELL_PX, CELL_PX)}
    controller.undo_stack.undo()
    assert controller.encounter.map.segments == ()
    assert scene_lines(view) == set()
    controller.undo_stack.redo()
    assert scene_lines(view) == {(2 * CELL_PX, CELL_PX, 6 * CELL_PX, CELL_PX)}


def test_a_diagonal_wall_and_a_press_off_the_map_keep_to_the_map_corners(table) -> None:
    controller, view, _ = table
    view.set_tool("wall_lines")
    drag(view, [(-0.9, -0.6), (1.0, 1.0), (3.1, 2.9)])
    assert [ends(s) for s in controller.encounter.map.segments] == [{(0, 0), (3, 3)}]
    assert scene_lines(view) == {(0, 0, 3 * CELL_PX, 3 * CELL_PX)}


def test_a_click_without_a_drag_draws_nothing(table) -> None:
    controller, view, messages = table
    view.set_tool("wall_lines")
    before = controller.undo_stack.count()
    click(view, (4.1, 4.1))
    assert controller.encounter.map.segments == ()
    assert controller.undo_stack.count() == before
    assert "Drag from one cell corner to another" in messages[-1]


def test_escape_cancels_a_wall_being_drawn(table) -> None:
    controller, view, _ = table
    view.set_tool("wall_lines")
    press(view, (1, 1))
    move(view, (5, 1))
    assert view.lines_preview.lines
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    assert view.lines_preview.lines == []
    release(view, (5, 1))
    assert controller.encounter.map.segments == ()


def test_the_wall_is_painted_on_both_maps(qtbot: QtBot, table) -> None:
    controller, view, _ = table
    players = PlayerView(controller, view)
    qtbot.addWidget(players)
    players.show()
    qtbot.waitExposed(players)
    floor = pixel(view, render(view), (4.5, 5.04))  # just off the grid line, where the wall will be
    view.set_tool("wall_lines")
    drag(view, [(1, 5), (3, 5), (8, 5)])
    assert [ends(s) for s in controller.encounter.map.segments] == [{(1, 5), (8, 5)}]
    for shown in (view, players.view):
        image = render(shown)
        on_wall = pixel(shown, image, (4.5, 5.0))
        assert on_wall.lightness() < 80, shown  # a thick dark line
        assert pixel(shown, image, (4.5, 5.5)).lightness() > 150  # half a cell away: floor
    assert floor.lightness() > 150


# -- erasing ----------------------------------------------------------------------------------------


def test_a_right_click_on_a_segment_removes_the_nearest_one(table) -> None:
    controller, view, messages = table
    controller.do(AddWall((1, 1), (5, 1)))
    controller.do(AddWall((1, 2), (5, 2)))
    view.set_tool("wall_lines")
    before = controller.undo_stack.count()
    # A few pixels off the second line, far from the first.
    click(view, (3.0, 2.0 + 3 / CELL_PX / view.zoom()), RIGHT)
    assert [ends(s) for s in controller.encounter.map.segments] == [{(1, 1), (5, 1)}]
    assert controller.undo_stack.count() == before + 1
    assert scene_lines(view) == {(CELL_PX, CELL_PX, 5 * CELL_PX, CELL_PX)}
    # Far from every line: nothing is erased, and the map says so.
    click(view, (3.0, 4.5), RIGHT)
    assert len(controller.encounter.map.segments) == 1
    assert "No wall line or door there" in messages[-1]
    controller.undo_stack.undo()
    assert {frozenset(ends(s)) for s in controller.encounter.map.segments} == {
        frozenset({(1, 1), (5, 1)}),
        frozenset({(1, 2), (5, 2)}),
    }


def test_the_erase_lines_tool_erases_every_line_a_drag_crosses_in_one_step(table) -> None:
    controller, view, _ = table
    controller.do(AddWall((1, 1), (1, 6)))
    controller.do(AddWall((3, 1), (3, 6)))
    controller.do(AddWall((4, 3), (5, 3), door=True))
    controller.do(AddWall((8, 1), (8, 6)))  # not crossed
    view.set_tool("erase_lines")
    before = controller.undo_stack.count()
    press(view, (1.0, 4.0))
    move(view, (2.0, 4.0))
    move(view, (3.0, 4.0))
    assert len(view.lines_preview.lines) == 2  # struck through in red before anything is erased
    move(view, (4.5, 3.0))
    release(view, (4.6, 3.0))
    grid_map = controller.encounter.map
    assert [ends(s) for s in grid_map.segments] == [{(8, 1), (8, 6)}]
    assert grid_map.doors == ()
    assert controller.undo_stack.count() == before + 1
    controller.undo_stack.undo()
    assert len(controller.encounter.map.segments) == 3 and len(controller.encounter.map.doors) == 1


# -- doors ------------------------------------------------------------------------------------------


def test_a_door_is_drawn_with_the_doors_tool_and_painted_as_a_door(table) -> None:
    controller, view, _ = table
    view.set_tool("doors")
    press(view, (4.1, 5.2))
    move(view, (5.2, 5.1))
    assert view.lines_preview.lines == [QLineF(4 * CELL_PX, 5 * CELL_PX, 5 * CELL_PX, 5 * CELL_PX)]
    release(view, (5.1, 4.9))
    grid_map = controller.encounter.map
    assert grid_map.segments == ()
    assert len(grid_map.doors) == 1 and ends(grid_map.doors[0]) == {(4, 5), (5, 5)}
    assert grid_map.doors[0].open is False
    shapes = view.map_scene.lines.doors
    assert len(shapes) == 1
    # Closed: a bar along the opening, a hinge dot at each end.
    bar = shapes[0].bar.boundingRect()
    half = DOOR_WIDTH * CELL_PX / 2
    assert bar == QRectF(4 * CELL_PX, 5 * CELL_PX - half, CELL_PX, 2 * half)
    assert {(p.x(), p.y()) for p in shapes[0].hinges} == {(4 * CELL_PX, 5 * CELL_PX), (5 * CELL_PX, 5 * CELL_PX)}
    assert shapes[0].arc.isEmpty()


def test_a_click_on_a_door_opens_and_closes_it_undoably_and_logged(table) -> None:
    controller, view, _ = table
    controller.do(AddWall((4, 2), (4, 3), door=True))
    assert view.tool() == "select"
    before = controller.undo_stack.count()
    log = len(controller.encounter.log)
    closed_look = render(view)
    click(view, (4.0, 2.5))
    door = controller.encounter.map.doors[0]
    assert door.open is True
    assert controller.undo_stack.count() == before + 1
    assert len(controller.encounter.log) > log  # the round log says so
    # Open: the leaf swung a quarter turn about its first end, with the swing's arc.
    shape = view.map_scene.lines.doors[0]
    assert not shape.arc.isEmpty() and len(shape.hinges) == 1
    leaf = shape.bar.boundingRect()
    assert leaf.height() < 0.3 * CELL_PX and leaf.width() == pytest.approx(CELL_PX)  # across, not along
    assert render(view) != closed_look
    click(view, (4.0, 2.5))
    assert controller.encounter.map.doors[0].open is False
    controller.undo_stack.undo()
    assert controller.encounter.map.doors[0].open is True
    controller.undo_stack.undo()
    assert controller.encounter.map.doors[0].open is False
    assert view.map_scene.lines.doors[0].arc.isEmpty()


def test_a_door_click_does_not_steal_token_clicks_and_a_drag_from_a_door_pans(table) -> None:
    controller, view, _ = table
    # A door on the edge of Ana's cell (2, 3): its right side.
    controller.do(AddWall((3, 3), (3, 4), door=True))
    controller.select(None)
    click(view, (2.5, 3.5))  # on Ana's body: the token is selected, the door stays shut
    assert controller.selected == "ana"
    assert controller.encounter.map.doors[0].open is False
    click(view, (2.97, 3.5))  # on the cell's rim by the door: the door opens, Ana stays selected
    assert controller.encounter.map.doors[0].open is True
    assert controller.selected == "ana"
    assert controller.encounter.tokens["ana"].cell == (2, 3)
    # A drag that starts on a door pans the map and leaves the door alone.
    centre = view.mapToScene(view.viewport().rect().center())
    drag(view, [(3.0, 3.5), (4.0, 4.5), (6.0, 5.5)])
    assert controller.encounter.map.doors[0].open is True
    assert view.mapToScene(view.viewport().rect().center()) != centre


def test_the_cursor_says_a_door_can_be_clicked(table) -> None:
    controller, view, _ = table
    controller.do(AddWall((6, 5), (7, 5), door=True))
    move(view, (6.5, 5.02), NOBUTTON)
    assert view.viewport().cursor().shape() == Qt.CursorShape.PointingHandCursor
    move(view, (6.5, 6.5), NOBUTTON)
    assert view.viewport().cursor().shape() == Qt.CursorShape.ArrowCursor


def test_an_undo_under_a_line_being_drawn_cancels_it(table) -> None:
    controller, view, _ = table
    controller.do(AddWall((1, 1), (2, 1)))
    view.set_tool("wall_lines")
    press(view, (5, 5))
    move(view, (7, 5))
    controller.undo_stack.undo()  # another window, a shortcut: the preview is stale
    assert view.lines_preview.lines == []
    release(view, (7, 5))
    assert controller.encounter.map.segments == ()


# -- cheap with many lines ---------------------------------------------------------------------------


def test_hundreds_of_segments_are_painted_not_made_of_items(qtbot: QtBot) -> None:
    plain = TableController(encounter())
    plain_view = make_view(qtbot, plain)
    items_without = len(plain_view.map_scene.items())
    segments = tuple(WallSegment(a=(x, y), b=(x + 1, y)) for y in range(0, 8) for x in range(0, 12, 2))
    segments += tuple(WallSegment(a=(x, y), b=(x, y + 1)) for x in range(0, 12) for y in range(0, 8, 3))
    doors = tuple(Door(a=(x, 7), b=(x + 1, 7), open=x % 2 == 0) for x in range(1, 11, 2))
    assert len(segments) >= 80
    many = TableController(encounter(segments=segments * 4, doors=doors))
    view = make_view(qtbot, many)
    assert len(view.map_scene.items()) == items_without  # no item per segment or door
    assert len(view.map_scene.lines.wall_lines()) == len(segments) * 4
    assert len(view.map_scene.lines.doors) == len(doors)
    assert isinstance(view.lines_preview, LinesPreview)


# -- what a hovered foe sees --------------------------------------------------------------------------


def hovered_foe_blind_cells(controller: TableController, view: MapView, cursor: Point | None) -> set[tuple[int, int]]:
    """What the blind-cells overlay must show, from the engine's state alone: the map's cells the
    token under the cursor does not see, when it is a foe (no one selected: an Opponent)."""
    encounter = controller.encounter
    if cursor is None:
        return set()
    cell = (int(cursor[0]), int(cursor[1]))
    for cid, token in encounter.tokens.items():
        c = encounter.combatant(cid)
        inside = token.cell[0] <= cell[0] < token.cell[0] + c.size and token.cell[1] <= cell[1] < token.cell[1] + c.size
        if inside and c.side is Side.OPPONENTS and not c.down and cid != controller.selected:
            seen = visibility.visible_cells(
                encounter.map, token.cell, c.size, facing=token.facing, vision_deg=c.vision_deg
            )
            grid_map = encounter.map
            return {(x, y) for x in range(grid_map.width) for y in range(grid_map.height)} - seen
    return set()


def test_hovering_a_foe_shades_what_it_does_not_see_and_it_follows_the_token(table) -> None:
    controller, view, _ = table
    blind = view.overlays.blind
    controller.do(AddWall((6, 1), (6, 6)))
    controller.select(None)
    cursor: Point = (9.5, 3.5)
    move(view, cursor, NOBUTTON)  # the Goblin, facing west, with a wall line between it and Ana
    assert blind.about == {"goblin"}
    assert blind.cells == hovered_foe_blind_cells(controller, view, cursor)
    assert (2, 3) in blind.cells and (4, 3) in blind.cells  # behind the wall
    assert (7, 3) not in blind.cells and (9, 3) not in blind.cells  # before its eyes, and its own cell
    assert (11, 3) in blind.cells  # behind its back
    # Dragged elsewhere: the shade goes with it.
    drag(view, [(9.5, 3.5), (9.5, 5.5), (10.5, 6.5)])
    cursor = (10.5, 6.5)
    assert controller.encounter.tokens["goblin"].cell == (10, 6)
    assert controller.selected == "goblin"  # the dragged token is selected: no shade of its own
    assert blind.cells == hovered_foe_blind_cells(controller, view, cursor) == set()
    controller.select(None)
    assert blind.cells == hovered_foe_blind_cells(controller, view, cursor) != set()
    # Undone under a still cursor: nothing is hovered there now.
    controller.undo_stack.undo()
    assert blind.cells == hovered_foe_blind_cells(controller, view, cursor) == set()
    cursor = (9.5, 3.5)
    move(view, cursor, NOBUTTON)
    before = blind.cells
    controller.do(RemoveWall((6, 1), (6, 6)))  # the wall is gone: it sees Ana's side of the map
    assert blind.cells == hovered_foe_blind_cells(controller, view, cursor)
    assert (4, 3) not in blind.cells and blind.cells < before
    controller.do(Face("goblin", 90))  # turned round: it sees east, not west
    assert blind.cells == hovered_foe_blind_cells(controller, view, cursor)
    assert (11, 3) not in blind.cells and (4, 3) in blind.cells
    # Its token deleted: no shade of it stays.
    controller.select("goblin")
    controller.select(None)
    controller.do(RemoveToken("goblin"))
    assert blind.is_empty and blind.cells == set()


def test_a_door_opened_lets_a_hovered_foe_see_through_it_and_hidden_foes_are_not_shared(qtbot: QtBot, table) -> None:
    controller, view, _ = table
    controller.do(AddWall((6, 0), (6, 3)))
    controller.do(AddWall((6, 4), (6, 8)))
    controller.do(AddWall((6, 3), (6, 4), door=True))
    players = PlayerView(controller, view)
    qtbot.addWidget(players)
    players.view.set_share_overlays(True)
    move(view, (9.5, 3.5), NOBUTTON)
    assert (2, 3) in view.overlays.blind.cells  # the closed door hides Ana's room
    click(view, (6.0, 3.5))  # open it
    assert controller.encounter.map.doors[0].open
    move(view, (9.5, 3.5), NOBUTTON)
    assert (2, 3) not in view.overlays.blind.cells  # straight through the doorway
    assert (2, 0) in view.overlays.blind.cells  # the wall line still hides the rest of the room
    assert view.overlays.blind in players.view.shared_overlays()
    controller.do(SetHidden("goblin", True))
    move(view, (9.5, 3.5), NOBUTTON)
    assert not view.overlays.blind.is_empty
    assert view.overlays.blind not in players.view.shared_overlays()  # it tells of a hidden foe

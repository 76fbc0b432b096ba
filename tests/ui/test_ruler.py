"""The Measure tool: a ruler from a cell or a token to the cursor, in the encounter's diagonal rule,
with the drag's waypoint keys; it changes nothing, and the players see it only with shared overlays.

The demo encounter: a 24 x 16 map of 5 ft cells under 5-10-5; Tombril (Party) at (8, 6), open floor
round him; (0, 0) is empty floor.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import MapGrid
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.grid import Cell, DiagonalRule
from lnl_desktop.core.map.movement import MoveRules, diagonal_steps, path_cost_ft
from lnl_desktop.core.map.terrain import map_terrain
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.overlays import LabelItem
from lnl_desktop.ui.map.ruler import Measure, grid_feet, grid_line, reading, straight_feet
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView

LEFT = Qt.MouseButton.LeftButton
RIGHT = Qt.MouseButton.RightButton
NONE = Qt.KeyboardModifier.NoModifier


# -- set-up and real events ------------------------------------------------------------------------


def demo(rule: DiagonalRule = DiagonalRule.ALTERNATING) -> Encounter:
    encounter = storage.load(demo_encounter_path())
    encounter.map = encounter.map.edited({"diagonal": rule})
    return encounter


def make_view(qtbot: QtBot, controller: TableController) -> MapView:
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    return view


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView, list[str]]:
    """The demo in round 1, Tombril's turn begun (30 ft to move)."""
    controller = TableController(demo())
    controller.engine.start_combat(face=5)  # the Party acts first
    controller.engine.begin_turn("tombril")
    view = make_view(qtbot, controller)
    infos: list[str] = []
    view.dragInfo.connect(infos.append)
    return controller, view, infos


def at(view: MapView, cell: Cell) -> QPoint:
    return view.mapFromScene(view.scene_point_of(cell))


def press(view: MapView, cell: Cell, button: Qt.MouseButton = LEFT) -> None:
    QTest.mousePress(view.viewport(), button, NONE, at(view, cell))


def release(view: MapView, cell: Cell, button: Qt.MouseButton = LEFT) -> None:
    QTest.mouseRelease(view.viewport(), button, NONE, at(view, cell))


def move(view: MapView, cell: Cell, buttons: Qt.MouseButton = LEFT) -> None:
    # QTest.mouseMove carries no buttons: a real move event with the button held.
    point = QPointF(at(view, cell))
    event = QMouseEvent(
        QEvent.Type.MouseMove, point, view.viewport().mapToGlobal(point), Qt.MouseButton.NoButton, buttons, NONE
    )
    QApplication.sendEvent(view.viewport(), event)


def measuring(view: MapView) -> Measure:
    gesture = view.gesture
    assert isinstance(gesture, Measure)
    return gesture


def ruler_label(view: MapView) -> str:
    layer = measuring(view).layer
    assert layer is not None
    return layer.label.text


def measure(view: MapView, cells: list[Cell], pins: tuple[int, ...] = ()) -> str:
    """Press on the first cell with the Measure tool, move through the others (W pins a waypoint at
    the cells whose index is in ``pins``) and read the label before the release."""
    view.set_tool("measure")
    press(view, cells[0])
    for i, cell in enumerate(cells[1:], start=1):
        move(view, cell)
        if i in pins:
            QTest.keyClick(view.viewport(), Qt.Key.Key_W)
    text = ruler_label(view)
    release(view, cells[-1])
    return text


def ruler_labels_shown(view: MapView) -> list[str]:
    return [item.text for item in view.scene().items() if isinstance(item, LabelItem) and "straight" in item.text]


# -- the count (no widgets) ------------------------------------------------------------------------


def test_a_grid_line_steps_to_adjacent_cells_with_the_fewest_steps_and_every_diagonal_it_needs() -> None:
    assert grid_line((0, 0), (3, 3)) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert grid_line((2, 2), (2, 2)) == [(2, 2)]
    rng = random.Random(7)
    for _ in range(300):
        a = (rng.randint(-20, 20), rng.randint(-20, 20))
        b = (rng.randint(-20, 20), rng.randint(-20, 20))
        line = grid_line(a, b)
        ax, ay = abs(b[0] - a[0]), abs(b[1] - a[1])
        assert line[0] == a and line[-1] == b
        assert len(line) == max(ax, ay) + 1
        assert all(max(abs(q[0] - p[0]), abs(q[1] - p[1])) == 1 for p, q in itertools.pairwise(line))
        assert diagonal_steps(line) == min(ax, ay)


@pytest.mark.parametrize(
    ("rule", "feet"),
    [(DiagonalRule.ALTERNATING, 20.0), (DiagonalRule.FIVE, 15.0), (DiagonalRule.EUCLIDEAN, pytest.approx(21.2132))],
)
def test_three_diagonals_by_each_rule(rule: DiagonalRule, feet: float) -> None:
    assert grid_feet([(0, 0), (3, 3)], rule) == feet
    assert straight_feet([(0, 0), (3, 3)]) == pytest.approx(21.2132)


def test_the_label_reads_grid_feet_then_straight_feet() -> None:
    assert reading([(0, 0), (3, 3)], DiagonalRule.ALTERNATING) == "20 ft (straight 21.2 ft)"
    assert reading([(0, 0), (4, 0)], DiagonalRule.ALTERNATING) == "20 ft (straight 20 ft)"
    assert reading([(0, 0), (3, 3)], DiagonalRule.FIVE, 10) == "30 ft (straight 42.4 ft)"


@pytest.mark.parametrize("rule", list(DiagonalRule))
def test_through_waypoints_the_count_is_a_moves_cost_over_open_floor(rule: DiagonalRule) -> None:
    # The 5-10-5 alternation carries from leg to leg, exactly as a token's path is costed.
    terrain = map_terrain(MapGrid(width=40, height=40))
    rng = random.Random(11)
    for _ in range(200):
        points = [(rng.randint(0, 39), rng.randint(0, 39)) for _ in range(rng.randint(2, 5))]
        path = [points[0]]
        for a, b in itertools.pairwise(points):
            path += grid_line(a, b)[1:]
        cost = path_cost_ft(terrain, path, 1, MoveRules(rule=rule, feet_per_cell=5))
        assert grid_feet(points, rule) == pytest.approx(cost)
    # The carry matters: a diagonal after a waypoint is the route's second, 10 ft.
    assert grid_feet([(0, 0), (1, 1), (2, 0)], DiagonalRule.ALTERNATING) == 15
    assert grid_feet([(0, 0), (2, 0)], DiagonalRule.ALTERNATING) == 10


# -- on the map ------------------------------------------------------------------------------------


def test_measuring_from_0_0_to_3_3_reads_20_ft_under_5_10_5_and_says_it(table) -> None:
    _, view, infos = table
    view.set_tool("measure")
    press(view, (0, 0))
    assert isinstance(view.gesture, Measure)
    move(view, (1, 1))
    move(view, (3, 3))
    assert ruler_label(view) == "20 ft (straight 21.2 ft)"
    layer = measuring(view).layer
    assert layer is not None
    assert layer.cells.cells == {(0, 0), (1, 1), (2, 2), (3, 3)}  # the cells a move along it steps through
    assert layer.path.route == [[(32.0, 32.0), (3.5 * CELL_PX, 3.5 * CELL_PX)]]
    assert infos[-1].startswith("Measure from (0, 0) to (3, 3): 20 ft (straight 21.2 ft), 5-10-5 diagonals")
    release(view, (3, 3))
    assert view.gesture is None
    assert ruler_labels_shown(view) == []  # lifted off the table: it disappears
    assert infos[-1] == ""


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        (DiagonalRule.FIVE, "15 ft (straight 21.2 ft)"),
        (DiagonalRule.EUCLIDEAN, "21.2 ft (straight 21.2 ft)"),
        (DiagonalRule.ALTERNATING, "20 ft (straight 21.2 ft)"),
    ],
)
def test_the_ruler_counts_by_the_encounters_diagonal_rule(qtbot: QtBot, rule: DiagonalRule, text: str) -> None:
    view = make_view(qtbot, TableController(demo(rule)))
    assert measure(view, [(0, 0), (2, 2), (3, 3)]) == text


def test_with_a_waypoint_the_ruler_counts_as_the_drag_does(table) -> None:
    controller, view, _ = table
    # Tombril's drag: a diagonal to (9, 7), pinned (W), then a diagonal back to (8, 8): 5 + 10 ft.
    press(view, (8, 6))
    move(view, (9, 7))
    QTest.keyClick(view.viewport(), Qt.Key.Key_W)
    move(view, (8, 8))
    assert view.drag_layer.label.text == "15 ft"
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    release(view, (8, 8))
    assert controller.encounter.tokens["tombril"].cell == (8, 6)
    # The ruler from Tombril's token through the same waypoint reads the same 15 ft.
    text = measure(view, [(8, 6), (9, 7), (8, 8)], pins=(1,))
    assert text == "15 ft (straight 14.1 ft)"


def test_a_right_click_pins_a_waypoint_and_backspace_drops_it(table) -> None:
    _, view, infos = table
    view.set_tool("measure")
    press(view, (8, 6))
    move(view, (9, 7))
    press(view, (9, 7), RIGHT)  # a right click pins, as in a drag
    release(view, (9, 7), RIGHT)
    assert isinstance(view.gesture, Measure)  # the right button's release does not end it
    move(view, (8, 8))
    assert ruler_label(view).startswith("15 ft")
    assert "via 1 waypoint" in infos[-1]
    layer = measuring(view).layer
    assert layer is not None and len(layer.path.route[0]) == 3
    QTest.keyClick(view.viewport(), Qt.Key.Key_Backspace)
    assert ruler_label(view) == "10 ft (straight 10 ft)"  # straight down from (8, 6)
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)  # Escape cancels
    assert view.gesture is None
    assert ruler_labels_shown(view) == []


def test_from_a_large_token_it_counts_anchor_to_anchor_as_its_drag_does(table) -> None:
    _, view, infos = table
    # The Hill Giant (2 x 2) at (15, 6), pressed on its lower right cell: that part follows the cursor.
    view.set_tool("measure")
    press(view, (16, 7))
    move(view, (16, 10))
    assert ruler_label(view) == "15 ft (straight 15 ft)"
    layer = measuring(view).layer
    assert layer is not None
    assert layer.cells.cells == {(x, y) for x in (15, 16) for y in range(6, 11)}  # the body's cells on the way
    assert layer.path.route == [[(16 * CELL_PX, 7 * CELL_PX), (16 * CELL_PX, 10 * CELL_PX)]]  # footprint centres
    assert infos[-1].startswith("Measure from Hill Giant to (15, 9)")
    release(view, (16, 10))


def test_measuring_changes_nothing(table) -> None:
    controller, view, _ = table
    encounter = controller.encounter
    log = list(encounter.log)
    steps = controller.undo_stack.count()
    selected = controller.selected
    applied: list[object] = []
    controller.eventsApplied.connect(applied.append)
    measure(view, [(8, 6), (9, 7), (12, 9), (14, 12)], pins=(2,))  # from a token, W on the way
    measure(view, [(0, 0), (3, 3)])
    view.set_tool("measure")
    press(view, (2, 2))
    move(view, (5, 5))
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    release(view, (5, 5))
    assert controller.encounter is encounter
    assert encounter.log == log
    assert controller.undo_stack.count() == steps
    assert controller.selected == selected
    assert encounter.tokens["tombril"].cell == (8, 6)
    assert applied == []


def test_a_press_off_the_map_measures_nothing_and_says_why(table) -> None:
    controller, view, _ = table
    said: list[str] = []
    controller.message.connect(said.append)
    view.set_tool("measure")
    view.fit_map()
    QTest.mousePress(view.viewport(), LEFT, NONE, view.mapFromScene(QPointF(-CELL_PX, -CELL_PX)))
    assert view.gesture is None
    assert said[-1] == "Press on the map to measure from there"


def test_the_cursor_off_the_map_measures_to_the_edge(table) -> None:
    _, view, _ = table
    view.set_tool("measure")
    press(view, (20, 2))
    move(view, (30, 2))  # off the map's right edge (24 cells wide)
    assert ruler_label(view) == "15 ft (straight 15 ft)"
    release(view, (30, 2))


def test_the_measure_tool_is_in_the_map_menu_and_the_toolbar_with_m(laptop_window) -> None:
    window = laptop_window()
    action = window.tool_actions["measure"]
    assert action.text() == "&Measure distance"
    assert action.shortcut().toString() == "M"
    assert action.iconText() == "Measure"
    assert action.toolTip()
    others = [a.shortcut().toString() for a in window.findChildren(type(action)) if a is not action]
    assert "M" not in others
    action.trigger()
    assert window.map_view.tool() == "measure"
    assert action.isChecked()


# -- the player view -------------------------------------------------------------------------------


def render(player: PlayerView) -> QImage:
    image = QImage(player.view.viewport().size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    player.view.render(painter)
    painter.end()
    return image


def open_player(qtbot: QtBot, window) -> PlayerView:  # type: ignore[no-untyped-def]
    window.player_view_action.trigger()
    player = window.player_view
    assert player is not None
    qtbot.waitExposed(player)
    return player


def test_the_players_see_the_ruler_while_it_is_held_only_with_shared_overlays(qtbot: QtBot, laptop_window) -> None:
    window = laptop_window()
    view = window.map_view
    player = open_player(qtbot, window)
    window.controller.select(None)
    bare = render(player)
    view.set_tool("measure")
    press(view, (0, 0))
    move(view, (4, 3))
    assert render(player) == bare  # overlays not shared: nothing of the ruler
    release(view, (4, 3))
    window.share_overlays_action.trigger()
    assert player.view.share_overlays
    shared_bare = render(player)
    press(view, (0, 0))
    move(view, (4, 3))
    layer = measuring(view).layer
    assert layer is not None
    assert {layer.label, layer.path, layer.cells} <= set(player.view.shared_overlays())
    assert render(player) != shared_bare
    release(view, (4, 3))
    assert render(player) == shared_bare  # gone with the release


def test_a_ruler_from_a_hidden_token_is_not_shared(qtbot: QtBot, laptop_window) -> None:
    window = laptop_window()
    controller = window.controller
    controller.do(act.SetHidden("half-orc", True))
    player = open_player(qtbot, window)
    window.share_overlays_action.trigger()
    controller.select(None)
    bare = render(player)
    view = window.map_view
    view.set_tool("measure")
    press(view, (13, 9))
    move(view, (10, 6))
    layer = measuring(view).layer
    assert layer is not None and layer.label.text
    assert not {layer.label, layer.path, layer.cells, layer.start} & set(player.view.shared_overlays())
    assert render(player) == bare
    release(view, (10, 6))


def test_the_shared_ruler_is_never_painted_over_the_black(qtbot: QtBot, laptop_window, tmp_path: Path) -> None:
    window = laptop_window()
    controller = window.controller
    controller.do(act.SetFog(True))
    player = open_player(qtbot, window)
    window.share_overlays_action.trigger()
    controller.select(None)
    fog = player.scene.fog
    grid_map = controller.encounter.map

    def black(cell: Cell) -> bool:
        return not fog.region.contains(QPoint(int((cell[0] + 0.5) * CELL_PX), int((cell[1] + 0.5) * CELL_PX)))

    dark = [(x, y) for y in range(grid_map.height) for x in range(grid_map.width) if black((x, y))]
    assert dark, "the demo's fog should leave some cells black"
    seen = (8, 6)
    end = max(dark, key=lambda c: (c[0] - seen[0]) ** 2 + (c[1] - seen[1]) ** 2)
    view = window.map_view
    view.set_tool("measure")
    press(view, seen)
    move(view, end)
    image = render(player)
    where = player.view.mapFromScene(QPointF((end[0] + 0.5) * CELL_PX, (end[1] + 0.5) * CELL_PX))
    assert image.pixelColor(where.x(), where.y()) == QColor(0, 0, 0)
    release(view, end)

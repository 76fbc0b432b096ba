"""The battle map, driven by real mouse, keyboard and drop events on its viewport.

The demo encounter in round 1 with Tombril's turn begun: Tombril stands at (8, 6) with 30 ft of
movement; walls run down column 10 from the top and along row 3 from x 10 to 12; the Half-orc
stands at (13, 9), the Hill Giant (2 x 2) at (15, 6).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QMouseEvent, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.actions import AddCombatant, Face
from lnl_desktop.core.encounter.map_model import Background, MapGrid, Token
from lnl_desktop.core.encounter.model import Phase, Side
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.grid import DiagonalRule, token_distance_ft
from lnl_desktop.core.map.movement import cells_outside_cone
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.geometry import within_ft
from lnl_desktop.ui.map.labels import assign_labels
from lnl_desktop.ui.map.rules_overlays import MoverInputs
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.mime import combatant_mime, creature_mime

LEFT = Qt.MouseButton.LeftButton
RIGHT = Qt.MouseButton.RightButton
NONE = Qt.KeyboardModifier.NoModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier

Cell = tuple[int, int]


# -- set-up and real events ---------------------------------------------------------------------


def make_view(qtbot: QtBot, controller: TableController) -> MapView:
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    return view


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView, list[str], list[str]]:
    controller = TableController(storage.load(demo_encounter_path()))
    controller.engine.start_combat(face=5)  # Party acts first
    controller.engine.begin_turn("tombril")
    view = make_view(qtbot, controller)
    messages: list[str] = []
    infos: list[str] = []
    controller.message.connect(messages.append)
    view.dragInfo.connect(infos.append)
    return controller, view, messages, infos


def at(view: MapView, cell: Cell) -> QPoint:
    return view.mapFromScene(view.scene_point_of(cell))


def press(view: MapView, cell: Cell, button: Qt.MouseButton = LEFT, mods: Qt.KeyboardModifier = NONE) -> None:
    QTest.mousePress(view.viewport(), button, mods, at(view, cell))


def release(view: MapView, cell: Cell, button: Qt.MouseButton = LEFT, mods: Qt.KeyboardModifier = NONE) -> None:
    QTest.mouseRelease(view.viewport(), button, mods, at(view, cell))


def move(
    view: MapView, cell: Cell, buttons: Qt.MouseButton = LEFT, mods: Qt.KeyboardModifier = NONE, nudge: int = 0
) -> None:
    # QTest.mouseMove carries no buttons: send a real move event with the button held.
    point = QPointF(at(view, cell) + QPoint(nudge, nudge))
    event = QMouseEvent(
        QEvent.Type.MouseMove, point, view.viewport().mapToGlobal(point), Qt.MouseButton.NoButton, buttons, mods
    )
    QApplication.sendEvent(view.viewport(), event)


def drag(view: MapView, cells: list[Cell], mods: Qt.KeyboardModifier = NONE) -> None:
    press(view, cells[0])
    for cell in cells[1:]:
        move(view, cell, mods=mods)
    release(view, cells[-1], mods=mods)


def drop(view: MapView, data, cell: Cell) -> QDropEvent:  # type: ignore[no-untyped-def]
    point = QPointF(at(view, cell))
    copy = Qt.DropAction.CopyAction
    # Drag-enter and drag-move take whole-pixel points in PySide6 before 6.12.
    QApplication.sendEvent(view.viewport(), QDragEnterEvent(point.toPoint(), copy, data, LEFT, NONE))
    move_event = QDragMoveEvent(point.toPoint(), copy, data, LEFT, NONE)
    QApplication.sendEvent(view.viewport(), move_event)
    assert move_event.isAccepted()
    event = QDropEvent(point, copy, data, LEFT, NONE)
    QApplication.sendEvent(view.viewport(), event)
    return event


def cell_of(controller: TableController, cid: str) -> Cell:
    return controller.encounter.tokens[cid].cell


def item_cell(view: MapView, cid: str) -> Cell:
    pos = view.map_scene.tokens[cid].pos()
    return (round(pos.x() / 64), round(pos.y() / 64))


# -- moving tokens ------------------------------------------------------------------------------


def test_a_token_dragged_to_a_legal_cell_moves_there_and_spends_movement(table) -> None:
    controller, view, _, infos = table
    drag(view, [(8, 6), (9, 6), (10, 6)])
    assert cell_of(controller, "tombril") == (10, 6)
    assert controller.engine.feet_left("tombril") == 20
    assert item_cell(view, "tombril") == (10, 6)
    assert "Tombril: path 10 ft, 20 ft left" in infos
    assert infos[-1] == ""
    assert controller.undo_stack.count() == 1


def test_the_drag_shows_the_route_its_cost_and_the_reach_while_it_lasts(table) -> None:
    controller, view, _, infos = table
    press(view, (8, 6))
    move(view, (9, 7))
    move(view, (11, 8))
    layer = view.drag_layer
    assert layer.reach.isVisible() and not layer.reach.is_empty
    assert layer.blocked.isVisible() and not layer.blocked.is_empty
    assert layer.label.text == "20 ft"  # two diagonals (5 + 10) and one straight step
    assert infos[-1] == "Tombril: path 20 ft, 10 ft left"
    assert item_cell(view, "tombril") == (11, 8)  # the token follows the cursor
    assert cell_of(controller, "tombril") == (8, 6)  # but nothing moved yet
    release(view, (11, 8))
    assert not layer.reach.isVisible()
    assert cell_of(controller, "tombril") == (11, 8)


def test_a_drag_past_the_move_goes_back_and_says_why(table) -> None:
    controller, view, messages, infos = table
    drag(view, [(8, 6), (5, 6), (1, 6)])
    assert cell_of(controller, "tombril") == (8, 6)
    assert item_cell(view, "tombril") == (8, 6)
    assert controller.engine.feet_left("tombril") == 30
    assert "needs 35 ft" in messages[-1] and "30 ft of movement left" in messages[-1]
    assert any("5 ft too far" in info for info in infos)
    assert infos[-1] == ""
    assert controller.undo_stack.count() == 0


def test_a_drag_into_a_wall_goes_back(table) -> None:
    controller, view, messages, _ = table
    drag(view, [(8, 6), (9, 4), (10, 3)])
    assert cell_of(controller, "tombril") == (8, 6)
    assert item_cell(view, "tombril") == (8, 6)
    assert "(10, 3) is a wall" in messages[-1]


def test_a_drag_onto_an_enemy_goes_back(table) -> None:
    controller, view, messages, _ = table
    drag(view, [(8, 6), (11, 8), (13, 9)])
    assert cell_of(controller, "tombril") == (8, 6)
    assert item_cell(view, "tombril") == (8, 6)
    assert "taken by Half-orc" in messages[-1]


def test_undo_puts_a_move_back(table) -> None:
    controller, view, _, _ = table
    drag(view, [(8, 6), (9, 7), (10, 8)])
    assert cell_of(controller, "tombril") == (10, 8)
    controller.undo_stack.undo()
    assert cell_of(controller, "tombril") == (8, 6)
    assert item_cell(view, "tombril") == (8, 6)
    assert controller.engine.feet_left("tombril") == 30
    controller.undo_stack.redo()
    assert item_cell(view, "tombril") == (10, 8)


def test_a_shift_drag_is_a_forced_move_that_costs_nothing(table) -> None:
    controller, view, _, infos = table
    drag(view, [(8, 6), (4, 6), (2, 7)], mods=SHIFT)
    assert cell_of(controller, "tombril") == (2, 7)
    assert controller.engine.feet_left("tombril") == 30
    moved = controller.encounter.log[-1]
    assert moved.kind == "moved" and moved.forced
    assert any("forced move" in info for info in infos)


def test_releasing_on_the_start_cell_does_nothing(table) -> None:
    controller, view, messages, _ = table
    drag(view, [(8, 6), (9, 6), (8, 6)])
    assert cell_of(controller, "tombril") == (8, 6)
    assert controller.undo_stack.count() == 0
    assert not messages


def test_escape_cancels_a_drag(table) -> None:
    controller, view, _, infos = table
    press(view, (8, 6))
    move(view, (9, 6))
    move(view, (10, 6))
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    assert infos[-1] == ""
    assert item_cell(view, "tombril") == (8, 6)
    release(view, (10, 6))
    assert cell_of(controller, "tombril") == (8, 6)
    assert controller.undo_stack.count() == 0


def test_waypoints_make_the_route_the_gms(table) -> None:
    controller, view, _, infos = table
    press(view, (8, 6))
    move(view, (9, 5))
    QTest.keyClick(view.viewport(), Qt.Key.Key_W)  # pin (9, 5)...
    QTest.keyClick(view.viewport(), Qt.Key.Key_Backspace)  # ...and unpin it
    move(view, (9, 7))
    press(view, (9, 7), RIGHT)  # a right click during the drag pins (9, 7)
    release(view, (9, 7), RIGHT)
    move(view, (10, 6))
    assert "via 1 waypoint" in infos[-1]
    release(view, (10, 6))
    moved = controller.encounter.log[-1]
    assert moved.kind == "moved"
    assert (9, 7) in moved.path and (9, 5) not in moved.path
    assert moved.path[-1] == (10, 6)
    # Straight east would cost 10 ft; through (9, 7) it is two diagonals under 5-10-5: 15 ft.
    assert controller.engine.feet_left("tombril") == 15


def test_a_waypoint_route_that_is_too_long_is_refused_with_its_cost(table) -> None:
    controller, view, messages, _ = table
    press(view, (8, 6))
    move(view, (4, 6))
    press(view, (4, 6), RIGHT)
    release(view, (4, 6), RIGHT)
    move(view, (9, 6))
    release(view, (9, 6))
    # (9, 6) is 5 ft away, but through (4, 6) the route is 45 ft.
    assert cell_of(controller, "tombril") == (8, 6)
    assert "needs 45 ft" in messages[-1]


def test_in_setup_moves_are_free_and_only_blocked_cells_are_shaded(qtbot: QtBot) -> None:
    controller = TableController(storage.load(demo_encounter_path()))
    view = make_view(qtbot, controller)
    press(view, (8, 6))
    move(view, (3, 8))
    assert view.drag_layer.reach.is_empty
    assert not view.drag_layer.blocked.is_empty
    release(view, (3, 8))
    assert cell_of(controller, "tombril") == (3, 8)
    assert controller.encounter.combat.phase is Phase.SETUP


def test_moving_someone_else_in_their_off_turn_is_refused_but_shift_forces_it(table) -> None:
    controller, view, messages, infos = table
    drag(view, [(8, 9), (7, 9), (6, 9)])
    assert cell_of(controller, "janine") == (8, 9)
    assert "Tombril's turn" in messages[-1]
    assert any("not Janine the Pious's turn" in info for info in infos)
    drag(view, [(8, 9), (7, 9), (6, 9)], mods=SHIFT)
    assert cell_of(controller, "janine") == (6, 9)


# -- selection, facing, removal ------------------------------------------------------------------


def test_click_selects_a_token_and_empty_space_deselects(table) -> None:
    controller, view, _, _ = table
    selected: list[str] = []
    controller.selectionChanged.connect(selected.append)
    press(view, (13, 9))
    release(view, (13, 9))
    assert controller.selected == "half-orc"
    assert view.map_scene.tokens["half-orc"].look.selected
    assert not view.overlays.melee.is_empty
    press(view, (2, 2))
    release(view, (2, 2))
    assert controller.selected is None
    assert not view.map_scene.tokens["half-orc"].look.selected
    assert view.overlays.melee.is_empty  # no ring left behind by the one deselected
    assert selected == ["half-orc", ""]


def test_turn_selected_turns_the_facing_by_45_degrees(table) -> None:
    controller, view, _, _ = table
    controller.select("tombril")
    assert controller.encounter.tokens["tombril"].facing == 90
    view.turn_selected(45)
    assert controller.encounter.tokens["tombril"].facing == 135
    QTest.keyClick(view.viewport(), Qt.Key.Key_BracketLeft)
    QTest.keyClick(view.viewport(), Qt.Key.Key_BracketLeft)
    assert controller.encounter.tokens["tombril"].facing == 45
    assert view.map_scene.tokens["tombril"].look.facing == 45
    controller.undo_stack.undo()
    assert controller.encounter.tokens["tombril"].facing == 90


def test_a_right_drag_on_a_token_turns_it_toward_the_cursor(table) -> None:
    controller, view, _, infos = table
    press(view, (8, 6), RIGHT)
    move(view, (8, 3), RIGHT)
    move(view, (6, 4), RIGHT)  # up and to the left: north-west
    assert infos[-1].startswith("Tombril: face 315")
    release(view, (6, 4), RIGHT)
    assert controller.encounter.tokens["tombril"].facing == 315
    assert controller.undo_stack.count() == 1


def test_delete_removes_the_selected_token(table) -> None:
    controller, view, _, _ = table
    press(view, (13, 9))
    release(view, (13, 9))
    QTest.keyClick(view.viewport(), Qt.Key.Key_Delete)
    assert "half-orc" not in controller.encounter.tokens
    assert "half-orc" not in view.map_scene.tokens
    assert controller.combatant("half-orc") is not None
    controller.undo_stack.undo()
    assert "half-orc" in view.map_scene.tokens


def test_dragging_empty_space_pans_and_keeps_the_selection(table) -> None:
    controller, view, _, _ = table
    controller.select("tombril")
    view.zoom_reset()
    view.zoom_in()
    view.center_on("tombril")
    before = view.mapToScene(view.viewport().rect().center())
    press(view, (5, 8))
    move(view, (7, 9))
    move(view, (9, 10))
    release(view, (9, 10))
    after = view.mapToScene(view.viewport().rect().center())
    assert after.x() < before.x() - 100 and after.y() < before.y() - 50  # the map followed the hand
    assert controller.selected == "tombril"
    view.set_tool("walls")  # the middle button pans in every tool and paints nothing
    walls = controller.encounter.map.walls
    QTest.mousePress(view.viewport(), Qt.MouseButton.MiddleButton, NONE, at(view, (6, 9)))
    move(view, (4, 8), Qt.MouseButton.MiddleButton)
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.MiddleButton, NONE, at(view, (4, 8)))
    assert view.mapToScene(view.viewport().rect().center()).x() > after.x() + 50
    assert controller.encounter.map.walls == walls


def test_center_on_brings_a_token_to_the_middle(table) -> None:
    _, view, _, _ = table
    view.zoom_reset()
    view.zoom_in()
    view.center_on("hill-giant")  # 2 x 2 at (15, 6): its centre is (16, 7) in cells
    centre = view.mapToScene(view.viewport().rect().center())
    assert abs(centre.x() - 16 * 64) < 40 and abs(centre.y() - 7 * 64) < 40


# -- drops from the docks ------------------------------------------------------------------------


def test_dropping_an_unplaced_combatant_places_its_token(table) -> None:
    controller, view, _, _ = table
    controller.do(AddCombatant({"name": "Scout", "side": "Party", "level": 1, "stamina_max": 6, "injury_max": 6}))
    assert "scout" not in controller.encounter.tokens
    event = drop(view, combatant_mime("scout"), (3, 8))
    assert event.isAccepted()
    assert cell_of(controller, "scout") == (3, 8)
    assert "scout" in view.map_scene.tokens
    assert controller.selected == "scout"
    assert controller.encounter.tokens["scout"].facing == 90  # toward the Opponents, east


def test_dropping_a_placed_combatant_is_a_forced_move(table) -> None:
    controller, view, _, _ = table
    drop(view, combatant_mime("janine"), (2, 2))
    assert cell_of(controller, "janine") == (2, 2)
    moved = controller.encounter.log[-1]
    assert moved.kind == "moved" and moved.forced


def test_a_drop_on_a_taken_cell_is_refused_with_the_reason(table) -> None:
    controller, view, messages, _ = table
    controller.do(AddCombatant({"name": "Scout", "side": "Party", "level": 1, "stamina_max": 6, "injury_max": 6}))
    drop(view, combatant_mime("scout"), (13, 9))
    assert "scout" not in controller.encounter.tokens
    assert "taken by Half-orc" in messages[-1]


def test_dropping_a_creature_adds_an_opponent_on_that_cell(table) -> None:
    controller, view, _, _ = table
    creature = {"name": "Goblin", "level": 1, "stamina_max": 4, "injury_max": 4, "move_ft": 30}
    drop(view, creature_mime(creature), (20, 5))
    goblin = controller.encounter.find("Goblin")
    assert goblin.side is Side.OPPONENTS
    assert cell_of(controller, goblin.id) == (20, 5)
    assert goblin.id in view.map_scene.tokens


# -- painting terrain ----------------------------------------------------------------------------


def test_painting_walls_is_one_undo_step(table) -> None:
    controller, view, _, infos = table
    tools: list[str] = []
    view.toolChanged.connect(tools.append)
    view.set_tool("walls")
    assert view.tool() == "walls" and tools == ["walls"]
    before = controller.undo_stack.count()
    press(view, (2, 1))
    move(view, (3, 1))
    move(view, (6, 1))  # a fast stroke: the cells between are painted too
    assert "paint walls: 5 cells" in infos[-1]
    release(view, (6, 1))
    walls = controller.encounter.map.walls
    assert {(2, 1), (3, 1), (4, 1), (5, 1), (6, 1)} <= walls
    assert controller.undo_stack.count() == before + 1
    controller.undo_stack.undo()
    assert not {(2, 1), (3, 1), (4, 1), (5, 1), (6, 1)} & controller.encounter.map.walls


def test_a_wall_under_a_token_is_refused_with_the_reason(table) -> None:
    controller, view, messages, _ = table
    view.set_tool("walls")
    drag(view, [(7, 6), (8, 6)])
    assert (8, 6) not in controller.encounter.map.walls
    assert "taken by Tombril" in messages[-1]


def test_right_drag_erases_and_the_erase_tool_clears_both_layers_in_one_step(table) -> None:
    controller, view, _, _ = table
    view.set_tool("difficult")
    press(view, (3, 3), RIGHT)
    release(view, (3, 3), RIGHT)
    assert (3, 3) not in controller.encounter.map.difficult
    view.set_tool("walls")
    drag(view, [(5, 2), (5, 3)])
    view.set_tool("difficult")
    drag(view, [(4, 2), (4, 2)])
    before = controller.undo_stack.count()
    view.set_tool("erase")
    drag(view, [(3, 2), (4, 2), (5, 2), (5, 3)])
    grid_map = controller.encounter.map
    assert not {(5, 2), (5, 3)} & grid_map.walls and (4, 2) not in grid_map.difficult
    assert controller.undo_stack.count() == before + 1
    controller.undo_stack.undo()
    assert {(5, 2), (5, 3)} <= controller.encounter.map.walls and (4, 2) in controller.encounter.map.difficult


def test_an_unknown_tool_is_refused(table) -> None:
    _, view, _, _ = table
    with pytest.raises(ValueError, match="unknown map tool"):
        view.set_tool("lasso")


# -- overlays ------------------------------------------------------------------------------------


def test_rules_overlays_follow_the_selected_weapons(table) -> None:
    controller, view, _, _ = table
    overlays = view.overlays
    controller.select("half-orc-glaive")
    assert not overlays.melee.is_empty and not overlays.reach_weapon.is_empty
    assert overlays.too_close.is_empty and overlays.max_range.is_empty
    controller.select("tombril")  # a shortbow: the too-close ring and the max range
    assert not overlays.too_close.is_empty and not overlays.max_range.is_empty
    assert overlays.reach_weapon.is_empty


def test_hovering_a_foe_shows_its_cone_and_the_cells_outside_it(table) -> None:
    controller, view, _, _ = table
    hovered: list[tuple[int, int]] = []
    view.cellHovered.connect(lambda x, y: hovered.append((x, y)))
    controller.select("tombril")
    move(view, (13, 9), buttons=Qt.MouseButton.NoButton)
    assert not view.overlays.cone.is_empty
    # The Half-orc faces west, toward Tombril: every approach starts inside its cone.
    assert view.overlays.unseen_approach.is_empty
    controller.do(Face("half-orc", 180))  # it turns south: now Tombril is at its back; the overlay follows
    assert hovered[-1] == (13, 9)
    assert not view.overlays.cone.is_empty
    assert not view.overlays.unseen_approach.is_empty
    move(view, (2, 2), buttons=Qt.MouseButton.NoButton)
    assert view.overlays.cone.is_empty and view.overlays.unseen_approach.is_empty
    margin = QPointF(2, 2)  # the grey margin outside the map
    QApplication.sendEvent(
        view.viewport(),
        QMouseEvent(
            QEvent.Type.MouseMove,
            margin,
            view.viewport().mapToGlobal(margin),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.NoButton,
            NONE,
        ),
    )
    assert hovered[-1] == (-1, -1)


def test_the_hover_search_agrees_with_the_engines_reach(table) -> None:
    controller, _, _, _ = table
    controller.engine.face("half-orc", 180)
    target = controller.encounter.tokens["half-orc"]
    outside = cells_outside_cone(controller.encounter.map.terrain, target.cell, 1, target.facing, 120, 1)
    ours = MoverInputs.of(controller, "tombril").reach(controller.encounter.map.terrain, allowed=outside)
    engines = controller.engine.reach("tombril", allowed=outside)
    assert ours.cells() == engines.cells() and ours.cells()
    assert ours.blocked() == engines.blocked()


@pytest.mark.parametrize("rule", list(DiagonalRule))
def test_overlay_distances_agree_with_the_core(rule: DiagonalRule) -> None:
    for size, feet in ((1, 5), (1, 10), (2, 15), (1, 25)):
        mask = within_ft((6, 5), size, feet, rule, 5, 20, 15)
        inside = set(mask.cells())
        for x in range(20):
            for y in range(15):
                d = token_distance_ft((6, 5), size, (x, y), 1, rule, 5)
                own = 6 <= x < 6 + size and 5 <= y < 5 + size
                assert ((x, y) in inside) == (d <= feet and not own), (rule, size, feet, x, y, d)


def test_demo_tokens_get_distinct_labels() -> None:
    encounter = storage.load(demo_encounter_path())
    labels = assign_labels({c.id: c.name for c in encounter.combatants})
    assert len(set(labels.values())) == len(labels)
    assert labels["tombril"] == "To" and labels["hill-giant"] == "HG"


# -- the grid, zoom and the picture --------------------------------------------------------------


def big_encounter(width: int = 200, height: int = 200) -> Encounter:
    walls = frozenset((x, height // 4) for x in range(0, width, 2))
    combatants = [
        Combatant(id="a", name="A", side=Side.PARTY, level=1, stamina_max=5, injury_max=5),
        Combatant(id="b", name="B", side=Side.OPPONENTS, level=1, stamina_max=5, injury_max=5),
    ]
    return Encounter(
        map=MapGrid(width=width, height=height, walls=walls, difficult=frozenset({(3, 3), (4, 4)})),
        combatants=combatants,
        tokens={"a": Token(cell=(1, 1)), "b": Token(cell=(width - 3, height - 3))},
    )


def test_the_grid_is_painted_not_made_of_items(qtbot: QtBot) -> None:
    controller = TableController(big_encounter())
    view = make_view(qtbot, controller)
    view.viewport().repaint()
    assert len(view.map_scene.items()) < 40
    assert len(view.map_scene.tokens) == 2


def test_zoom_is_limited_and_fit_shows_the_whole_map(table) -> None:
    _, view, _, _ = table
    view.fit_map()
    visible = view.visible_map_rect()
    assert visible.contains(view.map_scene.map_rect())
    for _ in range(40):
        view.zoom_in()
    assert view.zoom() == pytest.approx(6.0)
    for _ in range(60):
        view.zoom_out()
    assert view.zoom() >= 0.1 - 1e-9 or view.zoom() >= view._min_zoom() - 1e-9
    view.zoom_reset()
    assert view.zoom() == pytest.approx(1.0)


def test_the_wheel_zooms_about_the_cursor(table) -> None:
    _, view, _, _ = table
    view.zoom_reset()
    cursor = at(view, (12, 8))
    before = view.mapToScene(cursor)
    wheel = QWheelEvent(
        QPointF(cursor),
        QPointF(view.viewport().mapToGlobal(cursor)),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        NONE,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), wheel)
    assert view.zoom() == pytest.approx(1.2)
    after = view.mapToScene(cursor)
    assert math.dist((before.x(), before.y()), (after.x(), after.y())) < 2


def test_a_missing_background_picture_is_said_once(qtbot: QtBot, tmp_path: Path) -> None:
    encounter = big_encounter(20, 15)
    encounter.map = encounter.map.model_copy(update={"background": Background(image="nowhere.png")})
    controller = TableController(encounter)
    controller.base_dir = tmp_path
    messages: list[str] = []
    controller.message.connect(messages.append)
    view = make_view(qtbot, controller)
    qtbot.waitUntil(lambda: bool(messages))
    view.map_scene.sync()
    QApplication.processEvents()
    assert len(messages) == 1 and "nowhere.png" in messages[0] and "not found" in messages[0]
    assert not view.map_scene.has_background_picture


def test_a_background_picture_is_drawn_under_the_grid(qtbot: QtBot, tmp_path: Path) -> None:
    from PySide6.QtGui import QColor, QImage

    picture = QImage(64, 64, QImage.Format.Format_RGB32)
    picture.fill(QColor("#2060c0"))
    picture.save(str(tmp_path / "map.png"))
    encounter = big_encounter(20, 15)
    encounter.map = encounter.map.model_copy(update={"background": Background(image="map.png", cell_px=32)})
    controller = TableController(encounter)
    controller.base_dir = tmp_path
    view = make_view(qtbot, controller)
    assert view.map_scene.has_background_picture
    image = view.grab().toImage()
    pixel = image.pixelColor(at(view, (1, 0)) + QPoint(5, 5))  # (1, 0) lies inside the 2 x 2-cell picture
    assert pixel.blue() > 150 and pixel.red() < 100


def test_a_background_picture_kept_in_the_file_is_drawn_and_decoded_once(qtbot: QtBot) -> None:
    import base64

    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage

    from lnl_desktop.core.encounter.actions import PaintTerrain
    from lnl_desktop.ui.map.scene import decode_picture
    from lnl_desktop.ui.window.player_view import PlayerView

    picture = QImage(64, 64, QImage.Format.Format_RGB32)
    picture.fill(QColor("#c02040"))
    raw = QByteArray()
    buffer = QBuffer(raw)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    picture.save(buffer, "PNG")
    data = base64.b64encode(bytes(raw.data())).decode("ascii")
    encounter = big_encounter(20, 15)
    background = Background(image="imported map.png", cell_px=32, data=data)  # a name only: no such file
    encounter.map = encounter.map.model_copy(update={"background": background})
    controller = TableController(encounter)
    messages: list[str] = []
    controller.message.connect(messages.append)
    decode_picture.cache_clear()
    view = make_view(qtbot, controller)
    assert view.map_scene.has_background_picture
    pixel = view.grab().toImage().pixelColor(at(view, (1, 0)) + QPoint(5, 5))
    assert pixel.red() > 150 and pixel.blue() < 100
    players = PlayerView(controller, view)  # a second scene, and a new map object: no second decoding
    qtbot.addWidget(players)
    controller.do(PaintTerrain("difficult", ((8, 8),), on=True))
    assert players.scene.has_background_picture
    assert decode_picture.cache_info().misses == 1
    QApplication.processEvents()
    assert not [m for m in messages if "picture" in m]


def test_a_background_kept_in_the_file_that_is_no_picture_is_said_once(qtbot: QtBot) -> None:
    encounter = big_encounter(20, 15)
    background = Background(image="broken.png", data="bm90IGEgcGljdHVyZQ==")
    encounter.map = encounter.map.model_copy(update={"background": background})
    controller = TableController(encounter)
    messages: list[str] = []
    controller.message.connect(messages.append)
    view = make_view(qtbot, controller)
    qtbot.waitUntil(lambda: bool(messages))
    view.map_scene.sync()
    QApplication.processEvents()
    assert len(messages) == 1 and "'broken.png' kept in the file is not a readable PNG or JPEG" in messages[0]
    assert not view.map_scene.has_background_picture


def test_a_new_encounter_rebuilds_the_map(table) -> None:
    controller, view, _, _ = table
    controller.replace_encounter(big_encounter(30, 20))
    assert set(view.map_scene.tokens) == {"a", "b"}
    assert view.map_scene.map_rect().width() == 30 * 64

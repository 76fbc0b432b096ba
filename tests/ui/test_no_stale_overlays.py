"""No stale overlays: every map overlay follows its token, or goes with it, after every kind of change.

Each step below is a real gesture on the map's viewport (a drag, a Shift-drag, a drop on a cell the
engine refuses, the Delete key, Escape, a pan), an undo or redo on the controller's stack, an action
from elsewhere (a dock) or another encounter loaded. After each one :func:`check` compares every
overlay with the engine's state, not with what the map believes:

* each token item stands on its token's cell, with the selection frame on the selected one only;
* the selected combatant's melee ring, reach ring, "too close" ring and range ring are the cells the
  core's distances give around its token's cell, or empty when it has no token;
* the vision cone is the one of the token under the cursor now (found from the engine's tokens and
  where the cursor is on the viewport), its apex on that token's centre and turned its way, or empty
  when no other token is under the cursor;
* the sneak cells are the engine's own reach for the selected combatant outside that cone;
* the target ring surrounds the plan's target where it stands, or is hidden;
* nothing of a drag (reach, blocked cells, path, label, start marker) is left on the map.

The demo encounter in round 1 with Tombril's turn begun: Tombril (Party) stands at (8, 6), Janine at
(8, 9), the Half-orc at (13, 9) facing west, the Half-orc with the glaive at (14, 4), the Hill Giant
(2 x 2) at (15, 6); walls run down column 10 from the top and along row 3 from x 10 to 12.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.actions import Face, Move, SetHidden
from lnl_desktop.core.encounter.model import WeaponKind
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.grid import footprint, token_distance_ft
from lnl_desktop.core.map.movement import cells_outside_cone
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.overlays import CellsItem
from lnl_desktop.ui.plumbing.controller import AttackPlan, TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView

LEFT = Qt.MouseButton.LeftButton
NOBUTTON = Qt.MouseButton.NoButton
NONE = Qt.KeyboardModifier.NoModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier

Cell = tuple[int, int]


@dataclass
class Table:
    controller: TableController
    view: MapView
    cursor: QPoint | None = None  # where on the viewport the last mouse event was
    messages: list[str] = field(default_factory=list)

    # -- real events on the viewport ---------------------------------------------------------------

    def at(self, cell: Cell) -> QPoint:
        return self.view.mapFromScene(QPointF((cell[0] + 0.5) * CELL_PX, (cell[1] + 0.5) * CELL_PX))

    def press(self, cell: Cell, mods: Qt.KeyboardModifier = NONE) -> None:
        self.cursor = self.at(cell)
        QTest.mousePress(self.view.viewport(), LEFT, mods, self.cursor)

    def release(self, cell: Cell, mods: Qt.KeyboardModifier = NONE) -> None:
        self.cursor = self.at(cell)
        QTest.mouseRelease(self.view.viewport(), LEFT, mods, self.cursor)

    def move(self, cell: Cell, buttons: Qt.MouseButton = LEFT, mods: Qt.KeyboardModifier = NONE) -> None:
        self.move_to(self.at(cell), buttons, mods)

    def move_to(self, point: QPoint, buttons: Qt.MouseButton = LEFT, mods: Qt.KeyboardModifier = NONE) -> None:
        self.cursor = point
        at = QPointF(point)
        event = QMouseEvent(QEvent.Type.MouseMove, at, self.view.viewport().mapToGlobal(at), NOBUTTON, buttons, mods)
        QApplication.sendEvent(self.view.viewport(), event)

    def hover(self, cell: Cell) -> None:
        self.move(cell, NOBUTTON)

    def drag(self, cells: list[Cell], mods: Qt.KeyboardModifier = NONE) -> None:
        self.press(cells[0])
        for cell in cells[1:]:
            self.move(cell, mods=mods)
        self.release(cells[-1], mods=mods)

    def click(self, cell: Cell) -> None:
        self.press(cell)
        self.release(cell)

    def key(self, key: Qt.Key) -> None:
        QTest.keyClick(self.view.viewport(), key)

    # -- the engine's state --------------------------------------------------------------------

    def cell_of(self, cid: str) -> Cell:
        return self.controller.encounter.tokens[cid].cell

    def under_cursor(self) -> str | None:
        """The combatant whose token covers the cell under the cursor now, from the engine's tokens."""
        if self.cursor is None:
            return None
        point = self.view.mapToScene(self.cursor)
        cell = (math.floor(point.x() / CELL_PX), math.floor(point.y() / CELL_PX))
        encounter = self.controller.encounter
        for cid, token in encounter.tokens.items():
            if cell in footprint(token.cell, encounter.combatant(cid).size):
                return cid
        return None


def within(controller: TableController, anchor: Cell, size: int, feet: float, *, closer: bool = False) -> set[Cell]:
    """The map's cells within ``feet`` of a token, by the core's own distance, its own cells left out."""
    grid_map = controller.encounter.map
    own = set(footprint(anchor, size))
    out = set()
    for x in range(grid_map.width):
        for y in range(grid_map.height):
            d = token_distance_ft(anchor, size, (x, y), 1, grid_map.diagonal, grid_map.feet_per_cell)
            if (x, y) not in own and (d < feet if closer else d <= feet):
                out.add((x, y))
    return out


def scene_rect(item: object) -> QRectF:
    return item.mapRectToScene(item.boundingRect())  # type: ignore[attr-defined]


def footprint_centre(cell: Cell, size: int) -> QPointF:
    return QPointF((cell[0] + size / 2) * CELL_PX, (cell[1] + size / 2) * CELL_PX)


def check(t: Table) -> None:
    """Every overlay agrees with the engine's state (see the module's docstring)."""
    controller, view = t.controller, t.view
    encounter = controller.encounter
    scene = view.map_scene
    selected = controller.selected
    # Tokens and the selection frame.
    assert set(scene.tokens) == set(encounter.tokens)
    for cid, token in encounter.tokens.items():
        item = scene.tokens[cid]
        assert (item.pos().x(), item.pos().y()) == (token.cell[0] * CELL_PX, token.cell[1] * CELL_PX), cid
        assert item.look.cell == token.cell
        assert item.look.selected == (cid == selected), cid
        # Not left looking dragged; a token hidden from the players stays faded.
        assert item.zValue() < 30 and item.opacity() == (0.45 if token.hidden else 1.0), cid
    # The selected combatant's rings.
    overlays = view.overlays
    rings = (overlays.melee, overlays.reach_weapon, overlays.too_close, overlays.max_range)
    for ring in rings:
        assert ring.isVisible()
    token = encounter.tokens.get(selected) if selected else None
    if token is None:
        for ring in rings:
            assert ring.is_empty and not ring.cells
    else:
        c = encounter.combatant(selected)
        assert overlays.melee.about == {selected}
        assert set(overlays.melee.cells) == within(controller, token.cell, c.size, 5)
        reach = max((w.reach for w in c.weapons if w.kind is WeaponKind.REACH), default=0)
        if reach > 5:
            assert set(overlays.reach_weapon.cells) == within(controller, token.cell, c.size, reach)
        else:
            assert overlays.reach_weapon.is_empty
        ranged = [w for w in c.weapons if w.kind is WeaponKind.RANGED]
        least = controller.engine.ruleset.tokens.reach(c).too_close_ft  # the ranged minimum (10 ft in L&L)
        if ranged and least:
            assert set(overlays.too_close.cells) == within(controller, token.cell, c.size, least, closer=True)
        else:
            assert overlays.too_close.is_empty
        if ranged:
            # The range ring runs past the map's edge: its cells on the map are those in range.
            longest = max(w.max_range_ft or 0 for w in ranged)
            width, height = encounter.map.width, encounter.map.height
            on_map = {(x, y) for x, y in overlays.max_range.cells if 0 <= x < width and 0 <= y < height}
            assert on_map == within(controller, token.cell, c.size, longest)
        else:
            assert overlays.max_range.is_empty
    # The hovered token's cone and the sneak cells.
    hovered = t.under_cursor() if view.tool() == "select" else None
    if hovered == selected:
        hovered = None
    if hovered is None:
        assert overlays.cone.is_empty and overlays.cone.centre is None, "a cone left behind"
        assert overlays.unseen_approach.is_empty, "sneak cells left behind"
    else:
        h = encounter.combatant(hovered)
        h_token = encounter.tokens[hovered]
        assert not overlays.cone.is_empty and overlays.cone.isVisible()
        assert overlays.cone.about == {hovered}
        assert overlays.cone.centre == footprint_centre(h_token.cell, h.size)
        assert overlays.cone.facing == h_token.facing
        s_token = encounter.tokens.get(selected) if selected else None
        if s_token is not None and encounter.combatant(selected).side is not h.side and not h.down:
            s = encounter.combatant(selected)
            outside = cells_outside_cone(
                encounter.map.terrain, h_token.cell, h.size, h_token.facing, h.vision_deg, s.size
            )
            expected = {
                cell
                for anchor in controller.engine.reach(selected, allowed=outside).cells()
                for cell in footprint(anchor, s.size)
            }
            assert set(overlays.unseen_approach.cells) == expected
        else:
            assert overlays.unseen_approach.is_empty
        # The scene's index knows where the cone is: a look-up at the hovered token finds it.
        assert overlays.cone in scene.items(footprint_centre(h_token.cell, h.size))
    # The attack plan's target ring.
    plan = controller.plan
    target = encounter.tokens.get(plan.target) if plan is not None and plan.target else None
    if target is None:
        assert not view.target_ring.isVisible()
    else:
        size = encounter.combatant(plan.target).size
        assert view.target_ring.isVisible()
        assert scene_rect(view.target_ring).center() == footprint_centre(target.cell, size)
    # Nothing of a drag.
    layer = view.drag_layer
    for item in layer.items():
        assert not item.isVisible(), item
    for item in (layer.reach, layer.blocked):
        assert isinstance(item, CellsItem) and item.is_empty
    assert layer.path.boundingRect().isNull()
    assert layer.provoke.is_empty
    assert layer.label.text == ""


@pytest.fixture
def table(qtbot: QtBot) -> Table:
    controller = TableController(storage.load(demo_encounter_path()))
    controller.engine.start_combat(face=5)  # the Party acts first
    controller.engine.begin_turn("tombril")
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    t = Table(controller, view)
    controller.message.connect(t.messages.append)
    check(t)
    return t


SHORTBOW = "Shortbow (d6, ranged)"


# -- a move by drag, undo and redo -----------------------------------------------------------------


def test_the_rings_follow_a_dragged_token_and_its_undo_and_redo(table: Table) -> None:
    t = table
    t.click((8, 6))  # select Tombril: melee, too-close and range rings
    assert t.controller.selected == "tombril"
    check(t)
    t.press((8, 6))
    t.move((9, 7))
    t.move((10, 8))
    # While dragged the rings are hidden and the drag shows where it starts.
    assert not t.view.overlays.melee.isVisible()
    assert scene_rect(t.view.drag_layer.start).center() == footprint_centre((8, 6), 1)
    t.release((10, 8))
    assert t.cell_of("tombril") == (10, 8)
    check(t)
    t.hover((13, 9))  # the Half-orc: its cone, and where Tombril may go outside it
    check(t)
    t.controller.undo_stack.undo()
    assert t.cell_of("tombril") == (8, 6)
    check(t)
    t.controller.undo_stack.redo()
    assert t.cell_of("tombril") == (10, 8)
    check(t)


def test_a_hovered_foe_moved_from_under_the_cursor_takes_its_cone_along(table: Table) -> None:
    t = table
    t.click((8, 6))
    t.hover((13, 9))
    assert not t.view.overlays.cone.is_empty
    check(t)
    # A forced move from elsewhere (a dock): the cursor stays, the Half-orc leaves from under it.
    assert t.controller.do(Move("half-orc", to=(12, 12), forced=True)) is not None
    check(t)  # no cone at (13, 9), none at (12, 12): nothing is hovered
    t.hover((12, 12))
    check(t)  # now hovered where it stands
    t.controller.do(Face("half-orc", 0))
    check(t)  # turned: the cone turns with it
    t.controller.undo_stack.undo()  # facing back
    t.controller.undo_stack.undo()  # back to (13, 9): away from the cursor again
    assert t.cell_of("half-orc") == (13, 9)
    check(t)
    t.controller.undo_stack.redo()  # it comes back under the cursor
    assert t.cell_of("half-orc") == (12, 12)
    check(t)


def test_a_shift_drag_of_a_foe_leaves_no_cone_behind(table: Table) -> None:
    t = table
    t.click((8, 6))
    t.hover((13, 9))
    check(t)
    t.drag([(13, 9), (12, 10), (11, 12)], mods=SHIFT)  # a forced move; the press selects the Half-orc
    assert t.cell_of("half-orc") == (11, 12)
    assert t.controller.encounter.log[-1].kind == "moved"
    check(t)
    t.hover((8, 6))  # Tombril's cone while the Half-orc is selected: the sneak cells are the Half-orc's
    check(t)
    t.hover((13, 9))  # where the Half-orc stood: nothing there now
    check(t)
    t.controller.undo_stack.undo()  # it comes back under the cursor
    check(t)


def test_a_refused_drop_puts_everything_back(table: Table) -> None:
    t = table
    t.click((8, 6))
    t.hover((13, 9))
    check(t)
    t.drag([(8, 6), (9, 4), (10, 3)])  # into a wall: refused
    assert t.cell_of("tombril") == (8, 6)
    assert "wall" in t.messages[-1]
    check(t)
    t.drag([(8, 6), (11, 8), (13, 9)])  # onto the Half-orc: refused, the cursor is now on the Half-orc
    assert t.cell_of("tombril") == (8, 6)
    assert "taken by Half-orc" in t.messages[-1]
    check(t)
    t.drag([(8, 6), (5, 6), (1, 6)])  # too far: refused
    assert t.cell_of("tombril") == (8, 6)
    check(t)
    # A Shift-drag that the engine refuses (onto a wall) is put back too, a hidden token still faded.
    t.controller.do(SetHidden("half-orc", True))
    check(t)
    t.drag([(13, 9), (11, 6), (10, 2)], mods=SHIFT)
    assert t.cell_of("half-orc") == (13, 9)
    check(t)


def test_escape_and_a_click_on_empty_space_deselect_and_leave_nothing(table: Table) -> None:
    t = table
    t.click((14, 4))  # the Half-orc with the glaive: its reach ring
    assert not t.view.overlays.reach_weapon.is_empty
    check(t)
    t.hover((13, 9))  # the Half-orc: an ally of the glaive, so a cone and no sneak cells
    check(t)
    t.key(Qt.Key.Key_Escape)
    assert t.controller.selected is None
    check(t)
    t.click((8, 6))
    t.hover((13, 9))
    check(t)
    t.click((3, 3))  # empty floor, pressed without a move first (a touch): deselects, no cone
    assert t.controller.selected is None
    check(t)


# -- delete and the target ring ------------------------------------------------------------------


def test_delete_takes_the_rings_cone_and_target_ring_with_the_token(table: Table) -> None:
    t = table
    controller = t.controller
    controller.set_plan(AttackPlan("tombril", "half-orc", SHORTBOW))
    check(t)  # the target ring round the Half-orc
    controller.set_plan(None)
    t.click((13, 9))  # the Half-orc selected
    controller.set_plan(AttackPlan("tombril", "half-orc", SHORTBOW))
    t.hover((13, 9))
    check(t)
    t.key(Qt.Key.Key_Delete)
    assert "half-orc" not in controller.encounter.tokens
    check(t)  # no ring, no frame, no target ring where it stood
    controller.undo_stack.undo()
    assert "half-orc" in controller.encounter.tokens
    check(t)
    controller.undo_stack.redo()
    check(t)


def test_remove_selected_takes_a_hovered_foes_cone_away(table: Table) -> None:
    t = table
    t.click((8, 6))
    t.hover((13, 9))
    check(t)
    t.controller.select("half-orc")  # from the Combatants dock, the cursor still on it
    check(t)
    t.controller.select("tombril")
    check(t)
    t.controller.select("half-orc")
    t.view.remove_selected()
    assert "half-orc" not in t.controller.encounter.tokens
    check(t)
    t.controller.select("tombril")
    check(t)


def test_the_target_ring_follows_its_target(table: Table) -> None:
    t = table
    controller = t.controller
    controller.set_plan(AttackPlan("tombril", "half-orc", SHORTBOW))
    check(t)
    t.drag([(13, 9), (12, 11), (12, 12)], mods=SHIFT)  # the target is pushed: a forced move
    assert t.cell_of("half-orc") == (12, 12)
    check(t)
    controller.undo_stack.undo()
    check(t)
    t.drag([(13, 9), (11, 6), (10, 2)], mods=SHIFT)  # refused: a wall
    check(t)


# -- another encounter -------------------------------------------------------------------------


def test_loading_another_encounter_leaves_nothing_of_the_last(table: Table) -> None:
    t = table
    controller = t.controller
    t.click((8, 6))
    controller.set_plan(AttackPlan("tombril", "half-orc", SHORTBOW))
    t.hover((13, 9))
    check(t)
    controller.replace_encounter(storage.load(resource("encounters", "goblin-ambush-osr.lnl")))
    assert controller.selected is None and controller.plan is None
    check(t)  # nothing selected, nothing targeted; whatever is under the cursor now is hovered
    t.hover((8, 7))  # the Hobgoblin chief of the new encounter
    check(t)
    t.click((7, 7))  # Tombril of the new encounter
    t.hover((8, 8))  # Goblin 1
    check(t)
    controller.replace_encounter(storage.load(demo_encounter_path()))
    check(t)


def test_the_player_view_shares_no_overlay_of_a_token_gone(qtbot: QtBot, table: Table) -> None:
    t = table
    player = PlayerView(t.controller, t.view)
    qtbot.addWidget(player)
    player.view.set_share_overlays(True)
    t.click((8, 6))
    t.hover((13, 9))
    shared = player.view.shared_overlays()
    assert t.view.overlays.cone in shared and t.view.overlays.melee in shared
    t.controller.select("half-orc")
    t.view.remove_selected()
    t.controller.select(None)
    # Nothing shared any more tells of the Half-orc, and nothing drawn is left of it.
    for item in player.view.shared_overlays():
        assert "half-orc" not in item.about or item.boundingRect().isNull()
    check(t)


# -- changes in the middle of a drag, the map moving under a still cursor ---------------------------


def test_an_undo_or_another_encounter_in_the_middle_of_a_drag_leaves_no_drag_behind(table: Table) -> None:
    t = table
    controller = t.controller
    t.drag([(8, 6), (9, 6)])  # something to undo
    t.press((9, 6))
    t.move((10, 7))
    t.move((11, 8))
    assert t.view.drag_layer.path.isVisible()
    controller.undo_stack.undo()  # Edit > Undo with the mouse still down
    assert t.cell_of("tombril") == (8, 6)
    check(t)
    t.release((11, 8))  # the drag was dropped: the release moves nothing
    assert t.cell_of("tombril") == (8, 6)
    check(t)
    t.press((8, 6))
    t.move((9, 7))
    controller.replace_encounter(storage.load(resource("encounters", "goblin-ambush-osr.lnl")))
    check(t)
    t.release((9, 7))
    check(t)


def test_a_big_token_moved_and_its_move_undone(table: Table) -> None:
    t = table
    t.click((8, 6))
    t.hover((16, 7))  # the Hill Giant (2 x 2 at (15, 6)), hovered on its lower right cell
    check(t)
    t.drag([(15, 6), (15, 8), (15, 10)], mods=SHIFT)  # pressed on its upper left cell: now at (15, 10)
    assert t.cell_of("hill-giant") == (15, 10)
    check(t)
    t.hover((16, 11))
    check(t)
    t.click((8, 6))
    t.hover((16, 7))  # where it stood
    check(t)
    t.controller.undo_stack.undo()
    check(t)


def test_the_cone_follows_what_is_under_a_still_cursor_when_the_map_pans_or_zooms(table: Table) -> None:
    t = table
    view = t.view
    t.click((8, 6))
    view.zoom_reset()
    view.center_on("half-orc")
    t.hover((13, 9))
    assert t.under_cursor() == "half-orc"
    check(t)
    # Pan by dragging empty floor: the map slides under the hand, which ends over other cells.
    t.press((11, 11))
    t.move((10, 11))
    t.move((7, 11))
    t.release((7, 11))
    check(t)
    t.hover((13, 9))
    check(t)
    view.zoom_in()  # from the keyboard, about the view's centre: the cursor is over another cell now
    view.zoom_in()
    check(t)
    view.fit_map()
    check(t)


def test_the_sneak_approach_is_searched_again_only_when_something_within_reach_changed(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token moving far from the selected combatant cannot change where it may sneak up, so a big
    fight's moves elsewhere leave that search alone; a token moving within its move changes it."""
    from lnl_desktop.ui.map.rules_overlays import MoverInputs

    t = table
    t.click((8, 6))  # Tombril, 30 ft to move
    t.hover((13, 9))  # the Half-orc, facing west
    searches: list[Cell] = []
    real_reach = MoverInputs.reach

    def counted(self: MoverInputs, *args: object, **kwargs: object) -> object:
        searches.append(self.start)
        return real_reach(self, *args, **kwargs)

    monkeypatch.setattr(MoverInputs, "reach", counted)
    assert t.controller.do(Move("half-orc-glaive", to=(22, 14), forced=True)) is not None
    check(t)
    assert searches  # it left Tombril's reach: searched again
    searches.clear()
    assert t.controller.do(Move("half-orc-glaive", to=(21, 14), forced=True)) is not None
    check(t)
    assert searches == []  # 13 cells away and more, before and after: nothing to search
    assert t.controller.do(Move("janine", to=(9, 8), forced=True)) is not None
    assert searches  # within Tombril's move: searched again
    check(t)  # the sneak cells are the engine's reach outside the cone, Janine now in the way


def test_the_players_copy_of_the_sneak_approach_is_searched_only_for_a_hidden_token_within_reach(
    table: Table,
) -> None:
    """A token the players do not see changes their copy of the approach only if it stands where the
    search goes: far away, the players see the GM's cells (no second search)."""
    from lnl_desktop.core.encounter.actions import Face, SetHidden

    t = table
    t.controller.do(Face("half-orc", 90))  # its back to the Party: an approach exists
    t.controller.do(SetHidden("half-orc-glaive", True))  # at (14, 4): within Tombril's 30 ft and the margin
    t.click((8, 6))
    t.hover((13, 9))
    sneak = t.view.overlays.unseen_approach
    assert not sneak.is_empty
    assert sneak._players is not None  # searched again as if the glaive were not there
    check(t)
    assert t.controller.do(Move("half-orc-glaive", to=(22, 14), forced=True)) is not None
    assert not sneak.is_empty and sneak._players is None  # far away: nothing of it shapes the approach
    check(t)

"""The fog item patched after each change shows exactly what one built afresh for the same state shows:
the same pixels, the same region of what the players see at all, the same hatch on the GM's map;
and a Party move repaints only where the fog changed.

A 20 x 14 map: a wall line down x = 10 with a closed door from (10, 6) to (10, 8), a pillar of wall
cells in the west room; Ana and Bo (Party) in the west room, a Goblin in the east room. Fog of war is on.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter, QRegion
from PySide6.QtWidgets import QStyleOptionGraphicsItem
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import Door, Fog, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.engine import party_view
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.fog import FogItem
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView

W, H = 20, 14
DOOR = ((10.0, 6.0), (10.0, 8.0))
PX = 6  # pixels per cell in the renders


def encounter() -> Encounter:
    return Encounter(
        name="Two halls",
        map=MapGrid(
            width=W,
            height=H,
            walls=frozenset({(4, 4), (4, 5), (5, 4), (5, 5)}),
            segments=(WallSegment(a=(10, 0), b=(10, 6)), WallSegment(a=(10, 8), b=(10, 14))),
            doors=(Door(a=DOOR[0], b=DOOR[1]),),
        ),
        combatants=[
            Combatant(id="ana", name="Ana", side=Side.PARTY, level=1, stamina_max=6, injury_max=6, vision_deg=360),
            Combatant(id="bo", name="Bo", side=Side.PARTY, level=1, stamina_max=6, injury_max=6, vision_deg=120),
            Combatant(id="goblin", name="Goblin", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=4),
        ],
        tokens={
            "ana": Token(cell=(1, 1), facing=90),
            "bo": Token(cell=(2, 12), facing=0),
            "goblin": Token(cell=(15, 7), facing=270),
        },
        fog=Fog(enabled=True),
    )


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView, PlayerView]:
    controller = TableController(encounter())
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    players = PlayerView(controller, view)
    qtbot.addWidget(players)
    players.show()
    return controller, view, players


def picture(item: FogItem) -> QImage:
    """The item painted at PX pixels a cell."""
    image = QImage(W * PX, H * PX, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    painter.scale(PX / CELL_PX, PX / CELL_PX)
    item.paint(painter, QStyleOptionGraphicsItem(), None)
    painter.end()
    return image


def assert_as_fresh(controller: TableController, item: FogItem) -> None:
    fresh = FogItem(controller, item.player)
    fresh.refresh()
    assert item.isVisible() and fresh.isVisible()
    assert item._pixels is not None and fresh._pixels is not None
    assert np.array_equal(item._pixels, fresh._pixels)
    # The same area (a region patched by parts may split it into other rectangles).
    for mine, theirs in (
        (item._known_cells, fresh._known_cells),
        (item._hatch, fresh._hatch),
        (item.region, fresh.region),
    ):
        assert isinstance(mine, QRegion) and isinstance(theirs, QRegion)
        assert mine.xored(theirs).isEmpty()
    assert picture(item) == picture(fresh)
    assert item.seen == party_view.party_view(controller.encounter)


STEPS: list[Any] = [
    act.Move("ana", (3, 2), forced=True),
    act.RevealCells(((18, 1), (19, 1))),
    act.Move("ana", (7, 7), forced=True),
    act.Move("bo", (3, 9), forced=True),
    act.SetDoor(*DOOR, open=True),
    act.Move("ana", (11, 7), forced=True),
    act.SetHidden("ana", True),
    act.AddWall((12.0, 0.0), (12.0, 5.0)),
    act.Move("bo", (8, 12), forced=True),
]


def test_the_patched_fog_shows_what_a_fresh_one_shows_through_moves_and_undos(table) -> None:
    controller, view, players = table
    items = (view.map_scene.fog, players.scene.fog)
    for item in items:
        assert_as_fresh(controller, item)
    for step in STEPS:
        assert controller.do(step), controller.refusal
        for item in items:
            assert_as_fresh(controller, item)
    for _ in STEPS:
        controller.undo_stack.undo()
        for item in items:
            assert_as_fresh(controller, item)
    for _ in range(4):
        controller.undo_stack.redo()
        for item in items:
            assert_as_fresh(controller, item)


def test_a_party_move_repaints_only_where_the_fog_changed(table, monkeypatch: pytest.MonkeyPatch) -> None:
    """The repaint is asked of the scene, round the changed cells a tile at a time (an item's own
    updates are joined into their bounding box): every changed cell inside one, the map not whole."""
    controller, _view, players = table
    item = players.scene.fog
    before = item._pixels.copy() if item._pixels is not None else None
    asked: list[QRectF] = []
    scene_update = players.scene.update

    def record(rect: QRectF | None = None) -> None:
        asked.append(QRectF(rect) if rect is not None else QRectF())
        scene_update(rect) if rect is not None else scene_update()

    monkeypatch.setattr(players.scene, "update", record)
    monkeypatch.setattr(item, "update", record)
    assert controller.do(act.Move("ana", (2, 1), forced=True))
    assert asked and all(not rect.isEmpty() for rect in asked)
    whole = QRectF(0, 0, W * CELL_PX, H * CELL_PX)
    assert all(whole.contains(rect) for rect in asked)
    assert sum(rect.width() * rect.height() for rect in asked) < whole.width() * whole.height()
    assert before is not None and item._pixels is not None
    changed = np.argwhere(before != item._pixels)
    assert changed.size
    for y, x in changed:
        cell = QRectF(x * CELL_PX, y * CELL_PX, CELL_PX, CELL_PX)
        assert any(rect.contains(cell) for rect in asked), (x, y)
    # Nothing the fog shows changed (an Opponent's move in the dark): no repaint of the fog at all.
    asked.clear()
    image = item._image
    assert controller.do(act.Move("goblin", (16, 7), forced=True))
    assert item._image is image
    goblin = QRectF(15 * CELL_PX, 6 * CELL_PX, 3 * CELL_PX, 3 * CELL_PX)  # its token's own repaint, if any
    assert all(goblin.contains(rect) or goblin.intersects(rect) for rect in asked)


def test_changed_tiles_hold_every_changed_cell_and_little_else() -> None:
    from lnl_desktop.ui.map.fog import REPAINT_TILE, changed_tiles

    rng = np.random.default_rng(4)
    for _ in range(50):
        h, w = int(rng.integers(1, 70)), int(rng.integers(1, 70))
        changed = rng.random((h, w)) < rng.choice([0.002, 0.02, 0.2])
        rects = changed_tiles(changed)
        covered = np.zeros((h, w), dtype=bool)
        for x, y, rw, rh in rects:
            assert rw > 0 and rh > 0 and x >= 0 and x + rw <= w and y >= 0 and y + rh <= h
            assert rh <= REPAINT_TILE and y // REPAINT_TILE == (y + rh - 1) // REPAINT_TILE  # one row of tiles
            assert changed[y : y + rh, x : x + rw].any(axis=0)[[0, -1]].all()  # cut to the changed cells
            assert changed[y : y + rh, x : x + rw].any(axis=1)[[0, -1]].all()
            covered[y : y + rh, x : x + rw] = True
        assert not (changed & ~covered).any()
        assert changed_tiles(np.zeros((h, w), dtype=bool)) == []


def test_the_fog_off_and_on_again_builds_afresh(table) -> None:
    controller, _view, players = table
    item = players.scene.fog
    assert controller.do(act.SetFog(False))
    assert not item.isVisible() and item._pixels is None
    assert controller.do(act.Move("ana", (6, 10), forced=True))
    assert controller.do(act.SetFog(True))
    assert_as_fresh(controller, item)


def test_the_first_party_move_of_a_table_repaints_only_where_the_fog_changed(table, qtbot: QtBot) -> None:
    """Qt repaints the whole of an item at the first update of a part of it after its first paint:
    the fog asks that first update itself, so the table's first Party move repaints the GM's map and
    the players' only round the cells that changed, as every move after it does."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtGui import QPaintEvent

    controller, view, players = table
    qtbot.waitExposed(view)
    qtbot.waitExposed(players)
    for _ in range(5):  # shown and painted; the fog's own first update asked and done
        qtbot.wait(5)
    painted = {"GM": 0, "players": 0}

    class Count(QObject):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if isinstance(event, QPaintEvent):
                painted[self.name] += sum(r.width() * r.height() for r in event.region())
            return False

    counters = (Count("GM"), Count("players"))
    view.viewport().installEventFilter(counters[0])
    players.view.viewport().installEventFilter(counters[1])
    whole = {
        "GM": view.mapFromScene(QRectF(0, 0, W * CELL_PX, H * CELL_PX)).boundingRect(),
        "players": players.view.mapFromScene(QRectF(0, 0, W * CELL_PX, H * CELL_PX)).boundingRect(),
    }
    assert controller.do(act.Move("bo", (2, 11), forced=True))  # a step along the west room's wall
    players.view.finish_animations()
    for _ in range(5):
        qtbot.wait(5)
    for name, rect in whole.items():
        assert 0 < painted[name] < rect.width() * rect.height() / 2, (name, painted[name], rect)


def test_the_gms_hatch_is_repainted_round_every_cell_a_move_explored(table, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GM's hatch is drawn where a view repaints: a move's repaint of the GM's scene, asked tile by
    tile, holds every cell whose hatch it changed (newly explored), and the hatch item asks no update
    of its own (Qt would join it into the box round those cells)."""
    controller, view, _players = table
    item = view.map_scene.fog
    assert item.hatch_item is not None
    asked: list[QRectF] = []
    scene_update = view.map_scene.update

    def record(rect: QRectF | None = None) -> None:
        asked.append(QRectF(rect) if rect is not None else QRectF(0, 0, W * CELL_PX, H * CELL_PX))
        scene_update(rect) if rect is not None else scene_update()

    monkeypatch.setattr(view.map_scene, "update", record)
    own: list[QRectF] = []  # the hatch's own updates: none but its first, of one cell (ask_part_update_soon)
    monkeypatch.setattr(item.hatch_item, "update", lambda rect=None: own.append(QRectF(rect or QRectF(0, 0, W, H))))
    for step in (
        act.Move("ana", (7, 7), forced=True),
        act.SetDoor(*DOOR, open=True),
        act.Move("ana", (11, 7), forced=True),
    ):
        asked.clear()
        before = item._known.copy()
        assert controller.do(step), controller.refusal
        explored = np.argwhere(item._known & ~before)
        assert explored.size, step
        for y, x in explored:
            cell = QRectF(x * CELL_PX, y * CELL_PX, CELL_PX, CELL_PX)
            assert any(rect.contains(cell) for rect in asked), (step, x, y)
        assert_as_fresh(controller, item)
    assert all(rect.width() <= CELL_PX and rect.height() <= CELL_PX for rect in own)

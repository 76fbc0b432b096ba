"""A dragged Party token's view where it may be dropped is worked out on a worker while the GM drags
(token_gestures.VIEW_AHEAD): after the drag the map's cache knows it, and the drop explores exactly
what the Party sees, as a move without the worker does. Other tokens' drags ask for nothing."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core import Combatant, Encounter, MapGrid, Side, Token
from lnl_desktop.core.encounter.map_model import WallSegment
from lnl_desktop.core.engine import party_view
from lnl_desktop.core.map import visibility
from lnl_desktop.lazy import load_now
from lnl_desktop.ui.map import token_gestures
from lnl_desktop.ui.map.view import MapView
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.mime import combatant_mime
from lnl_desktop.ui.plumbing.style import CELL_PX

SIZE = 160  # past VIEW_LATER_CELLS: a view there is worth working out ahead


def table(fog: bool = True, walled: bool = True) -> Encounter:
    combatants = [
        Combatant(id="ana", name="Ana", side=Side.PARTY, level=3, stamina_max=20, injury_max=9),
        Combatant(id="orc", name="Orc", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=3),
    ]
    tokens = {"ana": Token(cell=(20, 20), facing=90), "orc": Token(cell=(60, 20), facing=270)}
    walls = tuple(WallSegment(a=(34 + 7 * k, 5 + 3 * k), b=(38 + 7 * k, 60 - 2 * k)) for k in range(12) if walled)
    encounter = Encounter(map=MapGrid(width=SIZE, height=SIZE, segments=walls), combatants=combatants, tokens=tokens)
    encounter.fog.enabled = fog
    return encounter


def drag(view: MapView, cid: str, cells: list[tuple[int, int]], known: list[bool] | None = None) -> None:
    """Press on ``cid``'s token, move through ``cells`` (each held till the event loop is idle), release;
    ``known`` gets whether the last cell's view was known just before the release."""
    viewport = view.viewport()

    def at(cell: tuple[int, int]) -> QPointF:
        return QPointF(view.mapFromScene(QPointF((cell[0] + 0.5) * CELL_PX, (cell[1] + 0.5) * CELL_PX)))

    start = view.controller.encounter.tokens[cid].cell
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(start).toPoint())
    for cell in cells:
        where = at(cell)
        QApplication.sendEvent(
            viewport,
            QMouseEvent(
                QEvent.Type.MouseMove,
                where,
                viewport.mapToGlobal(where),
                Qt.MouseButton.NoButton,
                Qt.MouseButton.LeftButton,
                Qt.KeyboardModifier.NoModifier,
            ),
        )
        QApplication.processEvents()
    assert token_gestures.VIEW_AHEAD.wait()
    if known is not None:
        # The view the drop will use: cut to the token's field of vision (sight has a facing in L&L).
        facing = view.controller.encounter.tokens[cid].facing
        known.append(visibility.view_known(view.controller.encounter.map, cells[-1], 1, facing, 120))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(cells[-1]).toPoint())
    QApplication.processEvents()


def shown(qtbot: QtBot, encounter: Encounter) -> MapView:
    """The map of ``encounter`` at 1:1 round Ana."""
    load_now("numpy")
    view = MapView(TableController(encounter))
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    view.zoom_reset()
    view.center_on("ana")
    QApplication.processEvents()
    return view


@pytest.fixture
def view(qtbot: QtBot) -> MapView:
    return shown(qtbot, table())


def test_a_party_tokens_drop_cell_view_is_known_after_the_drag_and_the_drop_explores_what_the_party_sees(
    view: MapView,
) -> None:
    grid_map = view.controller.encounter.map
    route = [(21, 20), (22, 21), (23, 22), (24, 22)]
    assert not visibility.view_known(grid_map, route[-1], 1)
    known: list[bool] = []
    drag(view, "ana", route, known)
    assert known == [True]  # worked out during the drag, before the drop
    encounter = view.controller.encounter
    assert encounter.tokens["ana"].cell == route[-1]  # the drop was a move
    ys, xs = np.nonzero(party_view.party_sight(encounter).mask)
    seen = frozenset(zip(xs.tolist(), ys.tolist(), strict=True))
    assert len(seen) > 100 and encounter.fog.explored == seen  # the fog's first move: what Ana sees now
    view.controller.undo_stack.undo()
    assert encounter.tokens["ana"].cell == (20, 20) and view.controller.encounter.fog.explored == frozenset()


def test_an_opponents_drag_asks_for_no_view(view: MapView, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(
        token_gestures.VIEW_AHEAD, "ask", lambda grid_map, cell, size, *eyes: asked.append(cell) or False
    )
    known: list[bool] = []
    drag(view, "orc", [(59, 20), (58, 21)], known)
    assert asked == [] and known == [False]
    drag(view, "ana", [(21, 20)])
    assert asked  # the Party's token does ask


def test_on_a_big_open_map_the_drop_cells_view_cut_to_the_field_of_vision_is_made_during_the_drag(
    qtbot: QtBot,
) -> None:
    view = shown(qtbot, table(walled=False))
    known: list[bool] = []
    drag(view, "ana", [(21, 20), (22, 20)], known)
    assert known == [True]  # no walls, but the cut to Ana's 120 degrees is the drop's millisecond
    encounter = view.controller.encounter
    assert encounter.tokens["ana"].cell == (22, 20)
    ys, xs = np.nonzero(party_view.party_sight(encounter).mask)
    assert encounter.fog.explored == frozenset(zip(xs.tolist(), ys.tolist(), strict=True))


def test_a_party_token_dragged_from_a_dock_has_its_drop_cells_view_worked_out_before_the_drop(view: MapView) -> None:
    grid_map = view.controller.encounter.map
    anchor = (26, 22)
    facing = view.controller.encounter.tokens["ana"].facing
    assert not visibility.view_known(grid_map, anchor, 1, facing, 120)
    point = QPointF(view.mapFromScene(QPointF((anchor[0] + 0.5) * CELL_PX, (anchor[1] + 0.5) * CELL_PX)))
    data = combatant_mime("ana")
    copy, left, none = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(view.viewport(), QDragEnterEvent(point.toPoint(), copy, data, left, none))
    QApplication.sendEvent(view.viewport(), QDragMoveEvent(point.toPoint(), copy, data, left, none))
    assert token_gestures.VIEW_AHEAD.wait()
    assert visibility.view_known(grid_map, anchor, 1, facing, 120)  # before the drop
    QApplication.sendEvent(view.viewport(), QDropEvent(point, copy, data, left, none))
    encounter = view.controller.encounter
    assert encounter.tokens["ana"].cell == anchor  # the drop was a move
    ys, xs = np.nonzero(party_view.party_sight(encounter).mask)
    assert encounter.fog.explored == frozenset(zip(xs.tolist(), ys.tolist(), strict=True))

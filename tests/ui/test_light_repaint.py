"""A carried light's move repaints both maps only round the cells whose light changed (RULES §15): the
light items ask an update of a rect holding every such cell, never the whole map, and show what
items built afresh for the same state show.

A 40 x 12 map, ambient light dark: Ana (Party) carries a torch at (5, 5); an Orc at (30, 5).
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.actions import Move, PlaceLight
from lnl_desktop.core.encounter.map_model import MapGrid, Token
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.light import LightItem
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView

W, H = 40, 12


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView, PlayerView]:
    encounter = Encounter(
        name="Dark hall",
        map=MapGrid(width=W, height=H),
        options={"light": "dark"},
        combatants=[
            Combatant(id="ana", name="Ana", side=Side.PARTY, level=1, stamina_max=6, injury_max=6, vision_deg=360),
            Combatant(id="orc", name="Orc", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=4),
        ],
        tokens={"ana": Token(cell=(5, 5), facing=90), "orc": Token(cell=(30, 5), facing=270)},
    )
    controller = TableController(encounter)
    assert controller.do(PlaceLight("torch", carrier="ana"))
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1000, 400)
    view.show()
    players = PlayerView(controller, view)
    qtbot.addWidget(players)
    players.resize(1000, 400)
    players.show()
    qtbot.waitExposed(view)
    qtbot.waitExposed(players)
    return controller, view, players


def test_a_carried_torch_moved_repaints_round_the_cells_whose_light_changed(table, monkeypatch) -> None:
    controller, view, players = table
    items = {"GM": view.map_scene.light, "players": players.scene.light}
    asked: dict[str, list[QRectF]] = {name: [] for name in items}
    before = {name: item.levels.copy() for name, item in items.items() if item.levels is not None}
    assert set(before) == set(items)
    for name, item in items.items():
        monkeypatch.setattr(item, "update", lambda rect=None, name=name: asked[name].append(QRectF(rect or QRectF())))
    assert controller.do(Move("ana", (9, 6), forced=True))
    whole = QRectF(0, 0, W * CELL_PX, H * CELL_PX)
    for name, item in items.items():
        assert item.levels is not None
        changed = np.argwhere(before[name] != item.levels)
        assert changed.size, name  # the torch went with her
        assert len(asked[name]) == 1 and not asked[name][0].isNull(), (name, asked[name])
        rect = asked[name][0]
        assert rect.width() < whole.width() / 2, (name, rect)  # round the torch, not the map
        for y, x in changed:
            assert rect.contains(QRectF(x * CELL_PX, y * CELL_PX, CELL_PX, CELL_PX)), (name, x, y)
        fresh = LightItem(controller, item.player)
        fresh.refresh()
        assert np.array_equal(fresh.levels, item.levels)
        assert fresh.boundingRect() == item.boundingRect()
        if item.player:
            assert fresh._image == item._image
        else:
            assert fresh._bright == item._bright and fresh._dim == item._dim
    # A move that changes no light (the Orc's, in the dark): nothing repainted.
    for name in asked:
        asked[name].clear()
    assert controller.do(Move("orc", (31, 5), forced=True))
    assert asked == {"GM": [], "players": []}

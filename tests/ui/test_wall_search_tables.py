"""A map with wall lines has its search tables built on a worker before the first drag asks."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import Door, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.map.terrain import Terrain, map_terrain
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.lazy import load_now
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.plumbing.controller import TableController


def walled() -> Encounter:
    lines = tuple(WallSegment(a=(x, 2), b=(x, 12)) for x in range(3, 30, 3))
    doors = (Door(a=(3, 12), b=(3, 13)),)
    hero = Combatant(id="hero", name="Hero", side=Side.PARTY, level=1, stamina_max=6, injury_max=4)
    return Encounter(
        map=MapGrid(width=32, height=16, segments=lines, doors=doors),
        combatants=[hero],
        tokens={"hero": Token(cell=(1, 1))},
    )


def test_the_step_arrays_are_built_without_a_drag_and_again_for_an_edited_map(qtbot: QtBot) -> None:
    load_now("numpy")
    controller = TableController(walled())
    view = MapView(controller)
    qtbot.addWidget(view)
    terrain = map_terrain(controller.encounter.map)
    qtbot.waitUntil(lambda: "barrier_steps" in terrain.__dict__, timeout=5000)
    assert terrain.barrier_steps is not None and terrain.barrier_steps[(1, 0)][5, 2]  # (2, 5) -> (3, 5) is walled

    controller.do(act.SetDoor(a=(3, 12), b=(3, 13), open=True))
    opened = map_terrain(controller.encounter.map)
    assert opened is not terrain
    qtbot.waitUntil(lambda: "barrier_steps" in opened.__dict__, timeout=5000)
    # Built by the worker exactly as a search on this thread would build it.
    fresh = Terrain(opened.width, opened.height, opened.walls, opened.difficult, opened.barriers)
    for step, mask in fresh.barrier_steps.items():
        assert (opened.barrier_steps[step] == mask).all()

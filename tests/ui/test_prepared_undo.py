"""A table opened is ready for the GM's first move: the engine's undo shadow is made once the window
has painted it, not during that move (tens of milliseconds on a map of hundreds of tokens)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window.main_window import MainWindow


def test_an_opened_table_has_its_undo_shadow_before_the_first_move(qtbot: QtBot, demo_window: MainWindow) -> None:
    controller = demo_window.controller
    engine = controller.engine
    demo_window.document.replace(storage.load(demo_encounter_path()), None)  # as File ▸ Open does
    assert engine._shadow is None or not engine._shadow.holds(engine.encounter)
    qtbot.waitUntil(lambda: engine._shadow is not None and engine._shadow.holds(engine.encounter), timeout=3000)
    made = engine._shadow
    encounter = engine.encounter
    mover = next(c.id for c in encounter.combatants if c.side is Side.PARTY and c.id in encounter.tokens)
    x, y = encounter.tokens[mover].cell
    taken = {cell for cell in encounter.occupied_by()}
    there = next(c for c in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if c not in taken)
    assert controller.do(act.Move(mover, there, forced=True))
    assert engine._shadow is made  # the move used it, not a new one
    controller.undo_stack.undo()
    assert engine.encounter.tokens[mover].cell == (x, y)

"""A long fight's undo history keeps the last actions only (the engine's ``undo_limit``): older
records drop off, so memory stays flat, while the round log keeps every event. Undo goes back as
far as the limit, exactly, and no further."""

from __future__ import annotations

import pytest

from lnl_desktop.core.dice.rolls import RandomDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import UNDO_LIMIT, Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path


def test_undo_goes_back_as_far_as_the_limit_and_the_log_keeps_everything() -> None:
    engine = Engine(storage.load(demo_encounter_path()), RandomDice(7))
    engine.undo_limit = 5
    cid = engine.encounter.combatants[0].id
    sp = engine.encounter.combatant(cid).stamina
    for n in range(8):  # eight edits: SP 1..8
        engine.apply(act.EditCombatant(cid, {"stamina": n + 1}))
    assert len(engine.encounter.log) >= 8  # every edit's event is kept
    told = [e.text for e in engine.encounter.log]
    for _ in range(5):
        engine.undo()
    assert engine.encounter.combatant(cid).stamina == 3  # back five: as after the third edit
    assert not engine.can_undo
    with pytest.raises(RulesError):
        engine.undo()
    # The undone edits' events left the log, the first three stayed, and each undo is told.
    kept = [e.text for e in engine.encounter.log]
    assert kept[: len(told) - 5] == told[: len(told) - 5] and sum("Undone" in t for t in kept) == 5
    for _ in range(5):
        engine.redo()
    assert engine.encounter.combatant(cid).stamina == 8 and sp != 8


def test_the_window_undo_stack_keeps_fewer_commands_than_the_engine_actions(qapp: object) -> None:
    # A command may take several engine actions (a Party command): the stack must never hold one the
    # engine has dropped. (pytest-qt's QApplication: a bare QCoreApplication made here would outlive
    # the test and make every later widget of this process abort.)
    from lnl_desktop.ui.plumbing.controller import TableController

    controller = TableController(storage.load(demo_encounter_path()))
    assert 0 < controller.undo_stack.undoLimit() <= UNDO_LIMIT // 4
    assert controller.engine.undo_limit == UNDO_LIMIT

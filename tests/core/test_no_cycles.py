"""The engine's actions leave no garbage only the cycle collector can free.

The window collects on a timer (ui/plumbing/collector.py): every object an action leaves in a
reference cycle waits for the next collection. The undo shadow's walk left nine of them for each
token and combatant it listed (a nested function holding itself): 9,000 on a map of 500 tokens,
and the collection that found them a 40 ms stall in the middle of play. A shadow made afresh, moves
back and forth, their undo and redo must free what they make as they go.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator

import pytest
from test_declared_writes import RULESETS, demo, free_cell, party_and_foe, the_map_actions

from lnl_desktop.core.dice.rolls import RandomDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine

MOVES = 40


@pytest.fixture
def collector_off() -> Iterator[None]:
    """The collector off, as the window has it between its own collections."""
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def cyclic_garbage() -> Counter[str]:
    """What a collection would free now, by kind (and then freed)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return Counter(getattr(o, "__qualname__", type(o).__qualname__) for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()


def moves(engine: Engine, count: int) -> None:
    """A Party member moved back and forth, some moves undone and done again."""
    party, _ = party_and_foe(engine)
    home = engine.encounter.tokens[party].cell
    cells = [free_cell(engine, home), home]
    for i in range(count):
        engine.apply(act.Move(party, cells[i % 2], forced=True))
    for _ in range(count // 4):
        engine.undo()
    for _ in range(count // 4):
        engine.redo()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_moves_and_their_undo_and_redo_leave_no_cycles(ruleset: str, collector_off: None) -> None:
    first = Engine(demo(ruleset), RandomDice(5))
    the_map_actions(first)  # every kind of map action once: what a first use makes is not counted
    moves(first, 4)
    fresh = demo(ruleset)
    cyclic_garbage()
    engine = Engine(fresh, RandomDice(5))
    engine.prepare_undo()  # the undo shadow made afresh (as at a first action): one walk of everything
    moves(engine, MOVES)
    left = cyclic_garbage()
    # Before the fix: nine objects for each token and combatant the shadow listed. A cache replaced
    # now and then may hold a cycle of its own.
    assert sum(left.values()) < MOVES, left.most_common(5)


def test_the_undo_shadow_made_ahead_is_the_one_the_first_action_uses() -> None:
    engine = Engine(demo("lnl"), RandomDice(5))
    engine.prepare_undo()
    made = engine._shadow
    assert made is not None
    party, _ = party_and_foe(engine)
    engine.apply(act.Move(party, free_cell(engine, engine.encounter.tokens[party].cell), forced=True))
    assert engine._shadow is made  # the first move did not make it again
    engine.undo()
    assert engine.encounter.tokens[party].cell == demo("lnl").tokens[party].cell

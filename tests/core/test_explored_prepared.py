"""The explored cells prepared at an idle moment (``explored.prepare``, ``Engine.prepare``): the first
move after it adds exactly what a full recompute adds, the Party's view before the move or not."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import Fog, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.engine import party_view
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.map import explored as explored_cells
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.rules.registry import get_ruleset

W, H = 24, 18


def cells_of(mask: np.ndarray) -> frozenset[Cell]:
    ys, xs = np.nonzero(mask)
    return frozenset(zip(xs.tolist(), ys.tolist(), strict=True))


def random_mask(rng: random.Random, share: float) -> np.ndarray:
    return np.array([[rng.random() < share for _ in range(W)] for _ in range(H)], dtype=bool)


def test_a_view_near_the_prepared_one_explores_what_a_full_recompute_does(monkeypatch: Any) -> None:
    rng = random.Random(11)
    taken: list[bool] = []
    from_prepared = explored_cells._from_prepared

    def spied(*args: Any) -> Any:
        found = from_prepared(*args)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(explored_cells, "_from_prepared", spied)
    for k in range(60):
        explored = cells_of(random_mask(rng, 0.2)) if k % 3 else frozenset()  # fog just switched on, a third
        before = random_mask(rng, 0.6)
        explored_cells.prepare(explored, before)
        now = before.copy()
        for _ in range(rng.randrange(0, 12)):  # a step: a few cells come into view, a few go out
            now[rng.randrange(H), rng.randrange(W)] ^= True
        grown = explored_cells.explore(explored, now)
        assert type(grown) is frozenset
        assert grown == explored | cells_of(now)
        assert np.array_equal(
            explored_cells.explored_mask(grown, W, H), explored_cells.explored_mask(explored, W, H) | now
        )
        if grown is not explored:  # the undo step's cells, without comparing the two sets
            assert explored_cells.growth(explored, grown) == grown - explored
        assert explored_cells._prepared is None  # used once: a second move starts from its own sets
    assert sum(taken) > 40  # the prepared sets did the work, not a rebuild


def test_a_set_made_from_the_prepared_ones_does_not_change_with_later_moves() -> None:
    """The prepared sets are adjusted in place: what a move made from them must be a copy, untouched
    by the next preparation and move."""
    rng = random.Random(3)
    explored = cells_of(random_mask(rng, 0.2))
    view = random_mask(rng, 0.5)
    explored_cells.prepare(explored, view)
    first = explored_cells.explore(explored, view)
    kept = set(first)
    later = view.copy()
    later[0, :] = True
    explored_cells.prepare(first, later)
    second = explored_cells.explore(first, later)
    assert set(first) == kept
    assert second == first | cells_of(later)


def test_a_view_far_from_the_prepared_one_or_another_explored_set_is_built_afresh() -> None:
    rng = random.Random(5)
    explored = cells_of(random_mask(rng, 0.1))
    explored_cells.prepare(explored, random_mask(rng, 0.5))
    other = random_mask(rng, 0.5)  # nothing like the prepared view
    assert explored_cells.explore(explored, other) == explored | cells_of(other)
    elsewhere = cells_of(random_mask(rng, 0.1))  # not the set prepared from
    assert explored_cells.explore(elsewhere, other) == elsewhere | cells_of(other)


def fighter(name: str, side: Side = Side.PARTY, **fields: Any) -> dict[str, Any]:
    return {"name": name, "side": side.value, "level": 1, "stamina_max": 20, "injury_max": 10} | fields


def test_the_first_party_move_after_the_idle_preparation_explores_what_the_party_sees() -> None:
    """A file whose explored cells lack what the Party sees now (fog switched on in the file): prepared
    at idle, the first move explores the cells seen after it, not those seen only before it."""
    grid = MapGrid(width=W, height=H, segments=(WallSegment(a=(10, 0), b=(10, 8)), WallSegment(a=(4, 12), b=(16, 12))))
    encounter = get_ruleset("lnl").new_encounter(
        map=grid,
        combatants=[fighter("Ana", vision_deg=360, move_ft=60), fighter("Orc", Side.OPPONENTS)],
        tokens={"ana": Token(cell=(8, 3), facing=90), "orc": Token(cell=(20, 15), facing=270)},
    )
    encounter.fog = Fog(enabled=True)
    engine = Engine(encounter, dice=ScriptedDice([]))
    engine.prepare()
    before = cells_of(party_view.party_sight(engine.encounter).mask)
    engine.apply(act.Move("ana", (11, 3), forced=True))  # past the wall's end: another view
    after = cells_of(party_view.party_sight(engine.encounter).mask)
    assert before - after  # the move left some cells out of sight...
    assert engine.encounter.fog.explored == after  # ...and those were never explored
    engine.undo()
    assert engine.encounter.fog.explored == frozenset()
    engine.redo()
    assert engine.encounter.fog.explored == after


def test_moves_that_grow_the_explored_cells_undo_and_redo_to_the_same_sets() -> None:
    """The undo step of a move takes the cells the move explored from ``explored.growth`` (no comparison
    of the two sets): undo and redo give back exactly the sets each move left."""
    grid = MapGrid(width=W, height=H, segments=(WallSegment(a=(10, 0), b=(10, 8)), WallSegment(a=(4, 12), b=(16, 12))))
    encounter = get_ruleset("lnl").new_encounter(
        map=grid,
        combatants=[fighter("Ana", vision_deg=360, move_ft=60), fighter("Orc", Side.OPPONENTS)],
        tokens={"ana": Token(cell=(2, 2), facing=90), "orc": Token(cell=(20, 15), facing=270)},
    )
    engine = Engine(encounter, dice=ScriptedDice([]))
    engine.apply(act.SetFog(True))
    sets = [engine.encounter.fog.explored]
    for cell in ((6, 3), (9, 6), (11, 9), (14, 14), (20, 10)):
        before = engine.encounter.fog.explored
        engine.apply(act.Move("ana", cell, forced=True))
        after = engine.encounter.fog.explored
        assert after == before | cells_of(party_view.party_sight(engine.encounter).mask)
        if after is not before:
            assert explored_cells.growth(before, after) == after - before
        sets.append(after)
    assert len(set(sets)) >= 3  # two moves at least explored new cells
    for expected in reversed(sets[:-1]):
        engine.undo()
        assert engine.encounter.fog.explored == expected
    for expected in sets[1:]:
        engine.redo()
        assert engine.encounter.fog.explored == expected
    assert explored_cells.growth(sets[0], sets[2]) is None  # not one explore's making


def test_the_first_exploring_of_a_table_from_the_prepared_set_undoes_to_nothing_explored() -> None:
    """An open map, nothing explored yet, prepared at idle: a step of one cell takes the prepared set
    (the view barely changes), its undo step holds every cell as added, undo and redo give the sets back."""
    encounter = get_ruleset("lnl").new_encounter(
        map=MapGrid(width=W, height=H),
        combatants=[fighter("Ana", vision_deg=90, move_ft=60), fighter("Orc", Side.OPPONENTS)],
        tokens={"ana": Token(cell=(3, 9), facing=90), "orc": Token(cell=(20, 15), facing=270)},
    )
    encounter.fog = Fog(enabled=True)
    engine = Engine(encounter, dice=ScriptedDice([]))
    engine.prepare()
    prepared = explored_cells._prepared
    before = engine.encounter.fog.explored
    assert prepared is not None and prepared[0] is before and not before
    engine.apply(act.Move("ana", (4, 9), forced=True))
    after = engine.encounter.fog.explored
    assert after == cells_of(party_view.party_sight(engine.encounter).mask)
    assert explored_cells.growth(before, after) is after  # the prepared set did the work
    engine.undo()
    assert engine.encounter.fog.explored == frozenset()
    engine.redo()
    assert engine.encounter.fog.explored == after


def test_a_prepared_move_from_a_files_explored_cells_undoes_and_redoes_exactly() -> None:
    """A file that holds explored cells (not what the Party sees now): prepared at idle, the first move
    adds what the Party sees after it, and undo and redo give back the file's set and the grown one."""
    grid = MapGrid(width=W, height=H, segments=(WallSegment(a=(10, 0), b=(10, 8)), WallSegment(a=(4, 12), b=(16, 12))))
    encounter = get_ruleset("lnl").new_encounter(
        map=grid,
        combatants=[fighter("Ana", vision_deg=360, move_ft=60), fighter("Orc", Side.OPPONENTS)],
        tokens={"ana": Token(cell=(8, 3), facing=90), "orc": Token(cell=(20, 15), facing=270)},
    )
    from_file = frozenset((x, y) for x in range(W) for y in range(14, H))  # the bottom rows, explored before
    encounter.fog = Fog(enabled=True, explored=from_file)
    engine = Engine(encounter, dice=ScriptedDice([]))
    engine.prepare()
    engine.apply(act.Move("ana", (11, 3), forced=True))
    after = cells_of(party_view.party_sight(engine.encounter).mask)
    grown = engine.encounter.fog.explored
    assert grown == from_file | after and grown != from_file
    engine.undo()
    assert engine.encounter.fog.explored == from_file
    engine.redo()
    assert engine.encounter.fog.explored == grown

"""The fog of war's explored cells as exploring makes them (``explored.ExploredCells``, a set over a mask):
each move adds exactly what a full recompute adds, from a file's frozenset or the last set, the sets act
as the frozensets of their cells, undo and redo give every set back, and the file's text is the same."""

from __future__ import annotations

import copy
import json
import pickle
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


def test_exploring_adds_what_a_full_recompute_adds_and_acts_as_the_frozenset_of_its_cells() -> None:
    """Each exploring gives the set a full recompute gives (from a file's frozenset or from the last
    one), equal to, hashed as and combined like the frozenset of the same cells; the sets it came
    from are untouched; its undo step's cells are the ones it added."""
    rng = random.Random(11)
    explored: Any = frozenset()
    for k in range(40):
        if k % 10 == 0:
            explored = cells_of(random_mask(rng, 0.2)) if k else frozenset()  # a file's set
        was = frozenset(explored)
        now = random_mask(rng, 0.3)
        grown = explored_cells.explore(explored, now)
        expected = was | cells_of(now)
        assert grown == expected and expected == grown and hash(grown) == hash(expected)
        assert sorted(grown) == sorted(expected) and len(grown) == len(expected)
        assert frozenset(explored) == was  # the set explored from is untouched
        assert np.array_equal(explored_cells.explored_mask(grown, W, H), explored_cells.explored_mask(was, W, H) | now)
        if grown is not explored:
            assert isinstance(grown, explored_cells.ExploredCells)
            added = explored_cells.growth(explored, grown)
            assert added is not None
            assert {(int(i) % W, int(i) // W) for i in added} == expected - was
        else:
            assert not (cells_of(now) - was)
        explored = grown


def test_explored_cells_combine_with_cells_as_a_frozenset_does() -> None:
    rng = random.Random(5)
    cells = cells_of(random_mask(rng, 0.4))
    explored = explored_cells.ExploredCells.of(cells, W, H)
    some = cells_of(random_mask(rng, 0.3))
    off = frozenset({(W + 3, 1), (-1, 2)})  # off the map
    assert explored == cells and explored != some and len(explored) == len(cells)
    assert explored | some == cells | some and some | explored == cells | some
    assert explored - some == cells - some and some - explored == some - cells
    assert explored & some == cells & some and some & explored == cells & some
    assert explored | off == cells | off and type(explored | off) is frozenset
    assert explored - off == cells
    assert all(c in explored for c in cells) and not any(c in explored for c in off)
    assert "a" not in explored and (1.5, 2) not in explored and (1, 2, 3) not in explored
    assert explored ^ some == cells ^ some and (explored <= cells | some) and not (explored < cells)
    assert explored.isdisjoint(frozenset()) and not explored.isdisjoint(cells)
    assert explored_cells.ExploredCells.of((), W, H) == frozenset() and not explored_cells.ExploredCells.of((), W, H)
    copied = pickle.loads(pickle.dumps(explored))
    assert copied == explored and copy.deepcopy(explored) == cells
    assert not explored.mask.flags.writeable and not copied.mask.flags.writeable


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
            added = explored_cells.growth(before, after)
            assert added is not None and {(int(i) % W, int(i) // W) for i in added} == after - before
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
    before = engine.encounter.fog.explored
    assert not before
    engine.apply(act.Move("ana", (4, 9), forced=True))
    after = engine.encounter.fog.explored
    assert after == cells_of(party_view.party_sight(engine.encounter).mask)
    added = explored_cells.growth(before, after)
    assert added is not None and len(added) == len(after)  # every cell was added, known from the explore
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


def test_a_file_saved_after_exploring_reads_as_it_did_with_a_frozenset_of_the_same_cells() -> None:
    """The explored cells a move made (a set over a mask) save to the very text a frozenset of the same
    cells saves to, and read back as that frozenset; undone, the file's text is the one before the move."""
    from lnl_desktop.core.files import storage

    grid = MapGrid(width=W, height=H, segments=(WallSegment(a=(10, 0), b=(10, 8)),))
    encounter = get_ruleset("lnl").new_encounter(
        map=grid,
        combatants=[fighter("Ana", vision_deg=360, move_ft=60), fighter("Orc", Side.OPPONENTS)],
        tokens={"ana": Token(cell=(8, 3), facing=90), "orc": Token(cell=(20, 15), facing=270)},
    )
    encounter.fog = Fog(enabled=True, explored=frozenset({(0, 17), (1, 17)}))
    engine = Engine(encounter, dice=ScriptedDice([]))
    text_before = storage.dumps(engine.encounter)
    engine.apply(act.Move("ana", (11, 3), forced=True))
    grown = engine.encounter.fog.explored
    assert isinstance(grown, explored_cells.ExploredCells)
    text = storage.dumps(engine.encounter)
    plain = engine.encounter.model_copy(deep=True)
    plain.fog.explored = frozenset(grown)
    assert text == storage.dumps(plain)
    read = storage.loads(text)
    assert type(read.fog.explored) is frozenset and read.fog.explored == grown
    engine.undo()  # the fog as the file had it (the log tells of the undo)

    def fog(text: str) -> Any:
        return json.loads(text)["encounter"]["fog"]

    assert fog(storage.dumps(engine.encounter)) == fog(text_before)
    assert type(engine.encounter.fog.explored) is frozenset  # the file's set itself, put back
    engine.redo()
    assert fog(storage.dumps(engine.encounter)) == fog(text) and engine.encounter.fog.explored == grown

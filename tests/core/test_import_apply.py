"""A big imported map applied as one undo step, made ahead off the window's thread (``EditMap.ahead``).

The map made ahead is the very map the engine would make: the same segments and doors, the same
refusals with the same words (a token left off the map or on a wall), the same journal JSON, and undo
and redo exact. It is used only on the map it was made from. The terrain of a map with many walls
keeps their ends in one array (``terrain.Barriers``) and names the barrier a step meets as before.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from test_uvtt_scale import random_map

from lnl_desktop.core import (
    Combatant,
    Encounter,
    Engine,
    MapGrid,
    RandomDice,
    RulesError,
    Side,
    Token,
    Weapon,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import Door, WallSegment, _line_on
from lnl_desktop.core.files import uvtt
from lnl_desktop.core.files.journal import action_to_json
from lnl_desktop.core.map import terrain
from lnl_desktop.core.map.terrain import Barrier, Barriers, Terrain, barriers_of, map_terrain, segments_cross

SEGMENTS = 25_000  # over the bulk threshold: numpy paths


def encounter(width: int = 40, height: int = 40, ana: tuple[int, int] = (5, 5), **grid: Any) -> Encounter:
    fighters = [
        Combatant(
            name="Ana", side=Side.PARTY, level=3, stamina_max=20, injury_max=9, weapons=[Weapon(name="Sword", die="d8")]
        ),
    ]
    return Encounter(
        map=MapGrid(width=width, height=height, **grid), combatants=fighters, tokens={"ana": Token(cell=ana)}
    )


@pytest.fixture(scope="module")
def imported() -> uvtt.ImportedMap:
    return uvtt.read_uvtt(json.dumps(random_map(SEGMENTS, size=300)).encode(), "cave.dd2vtt")


def state(engine: Engine) -> dict[str, Any]:
    return engine.encounter.model_dump(exclude={"log"})


def test_a_map_made_ahead_is_the_map_the_engine_makes_and_undo_redo_are_exact(imported: uvtt.ImportedMap) -> None:
    changes = imported.changes(None)
    plain, ahead = Engine(encounter(), RandomDice(1)), Engine(encounter(), RandomDice(1))
    before = state(ahead)
    base = ahead.encounter.map
    action = act.EditMap.ahead(changes, base)
    made = action.ahead_of(base)
    assert made is not None and action == act.EditMap(changes)
    assert action_to_json(action) == action_to_json(act.EditMap(changes))  # the journal sees no difference

    plain.apply(act.EditMap(changes))
    ahead.apply(action)
    assert ahead.encounter.map is made
    assert ahead.encounter.map == plain.encounter.map and state(ahead) == state(plain)
    assert len(made.segments) == len(imported.segments) and made.segments == imported.segments
    assert map_terrain(made).barriers == map_terrain(plain.encounter.map).barriers
    assert [e.text for e in ahead.encounter.log] == [e.text for e in plain.encounter.log]

    after = state(ahead)
    ahead.undo()
    assert state(ahead) == before and ahead.encounter.map is base
    ahead.redo()
    assert state(ahead) == after and ahead.encounter.map is made


def test_a_map_made_ahead_that_leaves_a_token_off_the_map_or_on_a_wall_is_refused_the_same(
    imported: uvtt.ImportedMap,
) -> None:
    for ana, walls in (((350, 5), []), ((7, 7), [[7, 7]])):  # off the 300 x 300 map; on a wall cell
        changes = {**imported.changes(None), "walls": walls}
        plain, ahead = Engine(encounter(400, 400, ana), RandomDice(1)), Engine(encounter(400, 400, ana), RandomDice(1))
        before = state(ahead)
        action = act.EditMap.ahead(changes, ahead.encounter.map)
        assert action.ahead_of(ahead.encounter.map) is not None  # a map; the encounter is what refuses it
        with pytest.raises(RulesError) as was:
            plain.apply(act.EditMap(changes))
        with pytest.raises(RulesError) as refused:
            ahead.apply(action)
        assert str(refused.value) == str(was.value) and "tokens.ana" in str(refused.value)
        assert state(ahead) == before and not ahead.can_undo


def test_changes_that_make_no_map_are_not_made_ahead_and_are_refused_the_same(imported: uvtt.ImportedMap) -> None:
    changes = {**imported.changes(None), "feet_per_cell": 0}
    engine = Engine(encounter(), RandomDice(1))
    action = act.EditMap.ahead(changes, engine.encounter.map)
    assert action.ahead_of(engine.encounter.map) is None
    with pytest.raises(RulesError) as was:
        Engine(encounter(), RandomDice(1)).apply(act.EditMap(changes))
    with pytest.raises(RulesError) as refused:
        engine.apply(action)
    assert str(refused.value) == str(was.value) and str(refused.value).startswith("Map: ")


def test_a_map_made_ahead_of_another_map_is_not_used() -> None:
    changes = {"width": 30}
    engine = Engine(encounter(diagonal="euclidean"), RandomDice(1))
    stale = act.EditMap.ahead(changes, encounter().map)  # made from a map equal in all but the diagonal
    engine.apply(stale)
    assert engine.encounter.map.diagonal == "euclidean" and engine.encounter.map.width == 30
    same = act.EditMap.ahead(changes, MapGrid(width=40, height=40, diagonal="euclidean"))  # equal, not the map
    assert same.ahead_of(engine.encounter.map) is None


def test_a_smaller_map_drops_the_same_lines_in_bulk_as_one_by_one() -> None:
    rng = random.Random(5)
    side = 60

    def point() -> tuple[float, float]:
        return (round(rng.uniform(0, side), 3), float(rng.randint(0, side)))

    segments = tuple(WallSegment(a=point(), b=point()) for _ in range(SEGMENTS))
    doors = tuple(Door(a=point(), b=point(), open=rng.random() < 0.5) for _ in range(SEGMENTS // 10))
    segments = tuple(s for s in segments if s.a != s.b)
    doors = tuple(d for d in doors if d.a != d.b)
    old = MapGrid(width=side, height=side, segments=segments, doors=doors)
    for changes in (
        {"width": 41, "height": 37},  # the map's own models
        {"width": 41, "height": 37, "segments": [s.model_dump(mode="json") for s in segments]},  # JSON
        {"width": 41, "height": 37, "doors": [{"a": [1, 2], "b": [50, 2]}] * 20_001},  # whole numbers
    ):
        new = old.edited(changes)
        for name in ("segments", "doors"):
            given = changes.get(name, getattr(old, name))
            expected = [line for line in given if _line_on(line, 41, 37)]
            assert [(line.a, line.b) for line in getattr(new, name)] == [
                ((float(a[0]), float(a[1])), (float(b[0]), float(b[1])))
                for a, b in (
                    (line["a"], line["b"]) if isinstance(line, dict) else (line.a, line.b) for line in expected
                )
            ]
    with pytest.raises(ValueError, match="segments"):  # what the bulk path does not read is checked one by one
        old.edited({"segments": [{"a": [1, 2], "b": [1, 2]}] * 20_001})


def test_barriers_kept_as_arrays_are_the_tuple_of_them_and_name_the_barrier_a_step_meets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert type(barriers_of([WallSegment(a=(3, 0), b=(3, 5))])) is tuple  # a small map's: no numpy needed
    monkeypatch.setattr(terrain, "ARRAY_BARRIERS", 0)
    segments = [WallSegment(a=(3, 0), b=(3, 5)), WallSegment(a=(0, 2.5), b=(6, 2.5))]
    doors = [Door(a=(4, 1), b=(5, 1)), Door(a=(4, 4), b=(5, 4), open=True)]
    made = barriers_of(segments, doors)
    listed = (
        Barrier((3.0, 0.0), (3.0, 5.0)),
        Barrier((0.0, 2.5), (6.0, 2.5)),
        Barrier((4.0, 1.0), (5.0, 1.0), door=True),
    )
    assert isinstance(made, Barriers) and made == listed and listed == made and tuple(made) == listed
    assert len(made) == 3 and made[-1] == listed[-1] and made[1:] == listed[1:] and made[::2] == listed[::2]
    assert made == barriers_of(segments) + barriers_of((), doors) and hash(made) == hash(listed)
    assert made == listed[:2] + made[2:] == made[:1] + listed[1:]  # joined with a tuple either way round
    with pytest.raises(IndexError):
        made[3]
    assert not barriers_of(()) and barriers_of(()) == ()

    as_arrays, as_tuple = Terrain(8, 8, barriers=made), Terrain(8, 8, barriers=listed)
    assert as_arrays.barrier_lines.tolist() == as_tuple.barrier_lines.tolist()
    for x in range(8):
        for y in range(8):
            for step in ((1, 0), (0, 1), (1, 1), (1, -1), (-1, 0), (0, -1), (-1, -1), (-1, 1)):
                p = (x + 0.5, y + 0.5)
                q = (p[0] + step[0], p[1] + step[1])
                first = next((b for b in listed if segments_cross(p, q, b.a, b.b)), None)
                if not (0 <= q[0] < 8 and 0 <= q[1] < 8):
                    continue
                assert as_arrays.barrier_across((x, y), step) == first
                assert as_tuple.barrier_across((x, y), step) == first

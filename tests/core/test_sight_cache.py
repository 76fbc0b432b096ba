"""Sight's caches give the sight a fresh computation gives: the Party's view worked out once per state
from each token's cached view, the fog of war's explored cells kept as a mask beside their set, and a
map's tables taken over from the map before a wall or door edit.

The reference is worked out here from the rules' own words, line by line: a cell is seen when the
line from the centre of some cell of the creature to its centre meets no barrier at all
(:func:`terrain.segments_cross`) and passes through the open interior of no wall cell, and, where the
ruleset reads facing, its centre is inside the field of vision (:func:`grid.outside_cone`).
"""

from __future__ import annotations

import gc
import random
from typing import Any

import numpy as np
import pytest

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import Door, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.engine import party_view
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.map import explored as explored_cells
from lnl_desktop.core.map import sight, sight_index, visibility
from lnl_desktop.core.map.grid import Cell, footprint, footprint_center, outside_cone
from lnl_desktop.core.map.terrain import Terrain, _step_masks, barriers_of, map_terrain, segments_cross
from lnl_desktop.core.rules.registry import get_ruleset

LNL = get_ruleset("lnl")
W, H = 16, 12
DOOR = ((8.0, 4.0), (8.0, 6.0))
WALL_CELLS = frozenset({(3, 8), (4, 8), (5, 8), (12, 2)})


def fighter(name: str, side: Side = Side.PARTY, **fields: Any) -> dict[str, Any]:
    return {"name": name, "side": side.value, "level": 1, "stamina_max": 20, "injury_max": 10} | fields


def engine() -> Engine:
    """Two rooms split by a wall down x = 8 with a closed door in it; Ana (sees all round), Bo
    (120 degrees, facing east) and Cy (size 2) in the west room, an Orc in the east room."""
    grid = MapGrid(
        width=W,
        height=H,
        walls=WALL_CELLS,
        segments=(WallSegment(a=(8, 0), b=(8, 4)), WallSegment(a=(8, 6), b=(8, 12)), WallSegment(a=(2, 2), b=(5, 5))),
        doors=(Door(a=DOOR[0], b=DOOR[1]),),
    )
    encounter = LNL.new_encounter(
        map=grid,
        combatants=[
            fighter("Ana", vision_deg=360, move_ft=60),
            fighter("Bo", vision_deg=120, move_ft=60),
            fighter("Cy", size=2, vision_deg=90, move_ft=60),
            fighter("Orc", Side.OPPONENTS),
        ],
        tokens={
            "ana": Token(cell=(1, 1), facing=90),
            "bo": Token(cell=(2, 9), facing=90),
            "cy": Token(cell=(5, 1), facing=180),
            "orc": Token(cell=(12, 6), facing=270),
        },
    )
    found = Engine(encounter, dice=ScriptedDice([]))
    found.apply(act.SetFog(True))
    return found


def line_clear(terrain: Terrain, a: Cell, b: Cell) -> bool:
    if a == b:
        return True
    p, q = (a[0] + 0.5, a[1] + 0.5), (b[0] + 0.5, b[1] + 0.5)
    if any(segments_cross(p, q, bar.a, bar.b) for bar in terrain.barriers):
        return False
    return not any(cell in terrain.walls for cell in sight._crossed_cells(a, b))


def reference_view(encounter: Encounter) -> np.ndarray:
    """The Party's view worked out line by line, on a terrain of its own (no cache of any map)."""
    grid = encounter.map
    terrain = Terrain(grid.width, grid.height, grid.walls, grid.difficult, barriers_of(grid.segments, grid.doors))
    out = np.zeros((grid.height, grid.width), dtype=bool)
    for c in encounter.combatants:
        token = encounter.tokens.get(c.id)
        if token is None or c.side is not Side.PARTY or token.hidden or c.down:
            continue
        own = [cell for cell in footprint(token.cell, c.size) if terrain.inside(cell)]
        centre = footprint_center(token.cell, c.size)
        for y in range(grid.height):
            for x in range(grid.width):
                in_cone = not outside_cone(centre, token.facing, c.vision_deg, (x + 0.5, y + 0.5))
                seen = in_cone and any(line_clear(terrain, cell, (x, y)) for cell in own)
                out[y, x] |= (x, y) in own or seen
    return out


def explored_grid(encounter: Encounter) -> np.ndarray:
    out = np.zeros((encounter.map.height, encounter.map.width), dtype=bool)
    for x, y in encounter.fog.explored:
        out[y, x] = True
    return out


def check(engine: Engine) -> None:
    """The shared Party view, the public functions and the explored mask all say what a fresh
    computation says."""
    e = engine.encounter
    fresh = reference_view(e)
    shared = party_view.party_sight(e)
    assert np.array_equal(shared.mask, fresh)
    assert party_view.party_sight(e) is shared  # once per state
    assert np.array_equal(party_view.party_view_mask(e), fresh)
    ys, xs = np.nonzero(fresh)
    assert party_view.party_view(e) == set(zip(xs.tolist(), ys.tolist(), strict=True)) == shared.cells
    assert np.array_equal(explored_cells.explored_mask(e.fog.explored, e.map.width, e.map.height), explored_grid(e))
    assert fresh[explored_grid(e) == 0].sum() == 0  # everything seen now is explored


def test_the_shared_party_view_is_a_fresh_one_through_moves_doors_walls_undo_and_redo() -> None:
    engine_ = engine()
    check(engine_)
    steps: list[Any] = [
        act.Move("ana", (6, 4), forced=True),
        act.Move("bo", (6, 10), forced=True),
        act.Face("bo", 0),
        act.SetDoor(*DOOR, open=True),  # the east room comes into sight
        act.Move("cy", (9, 4), forced=True),  # into the doorway
        act.AddWall((10.0, 0.0), (10.0, 12.0)),
        act.SetHidden("ana", True),  # hidden from the players: not their eyes
        act.EditCombatant("bo", {"injury": 0}),  # down: sees nothing
        act.RemoveWall((2.0, 2.0), (5.0, 5.0)),
        act.SetDoor(*DOOR, open=False),
        act.Move("cy", (10, 8), forced=True),
    ]
    for step in steps:
        engine_.apply(step)
        check(engine_)
    for _ in steps:
        engine_.undo()
        check(engine_)
    for _ in steps:
        engine_.redo()
        check(engine_)


def test_a_party_move_works_out_the_moved_tokens_view_only() -> None:
    engine_ = engine()
    e = engine_.encounter
    ix = sight_index._index(map_terrain(e.map))
    engine_.apply(act.Move("ana", (2, 3), forced=True))
    known = dict(ix.views)
    engine_.apply(act.Move("ana", (3, 3), forced=True))
    new = [key for key in ix.views if key not in known]
    assert [key[0] for key in new] == [(3, 3)]  # Ana's new cell; Bo's and Cy's views were kept
    bits = visibility._packed_view(ix, (3, 3), 1, None, 360)
    assert visibility._packed_view(ix, (3, 3), 1, None, 360) is bits and not bits.flags.writeable
    view = visibility._view(ix, (3, 3), 1, None, 360)
    returned = visibility.terrain_visible_mask(map_terrain(e.map), (3, 3))
    returned[0, 0] = not returned[0, 0]  # a caller's own array: the cache is untouched
    assert np.array_equal(visibility._view(ix, (3, 3), 1, None, 360), view)
    assert np.array_equal(view, reference_point(map_terrain(e.map), (3, 3)))


def test_the_view_cache_is_bounded_and_only_the_latest_maps_keep_theirs() -> None:
    maps = [MapGrid(width=W, height=H, segments=(WallSegment(a=(i + 1, 0), b=(i + 1, 5)),)) for i in range(5)]
    indexes = [sight_index._index(map_terrain(m)) for m in maps]
    for ix in indexes:
        for x in range(W):
            for y in range(3):
                visibility._view(ix, (x, y), 1, None, 360)
        assert 0 < len(ix.views) <= ix.view_limit
    assert sum(1 for ix in indexes if ix.views) == sight_index._MAPS_CACHING
    assert indexes[-1].views  # the latest map keeps its views
    small = indexes[-1]
    small.view_limit = 5
    for x in range(10):
        visibility._view(small, (x, 11), 1, None, 360)
    assert len(small.views) == 5 and next(reversed(small.views)) == ((9, 11), 1)


def test_an_old_map_and_its_tables_are_not_kept_alive_by_the_caches() -> None:
    grid = MapGrid(width=23, height=17, segments=(WallSegment(a=(3, 0), b=(3, 5)),))
    terrain = map_terrain(grid)
    visibility._view(sight_index._index(terrain), (1, 1), 1, None, 360)
    del grid, terrain
    gc.collect()
    assert (23, 17) not in sight_index._OFFSETS and (23, 17) not in sight_index._LATEST


def test_the_explored_mask_follows_the_set_through_moves_reveals_undo_and_redo() -> None:
    engine_ = engine()
    e = engine_.encounter
    steps: list[Any] = [
        act.Move("ana", (6, 4), forced=True),
        act.RevealCells(((14, 10), (15, 11))),
        act.SetDoor(*DOOR, open=True),
        act.RevealCells(((14, 10),), shown=False),
        act.Move("bo", (7, 7), forced=True),
    ]
    for step in steps:
        before = e.fog.explored
        engine_.apply(step)
        grown = e.fog.explored
        assert all(isinstance(c, tuple) for c in grown)
        mask = explored_cells.explored_mask(grown, W, H)
        assert np.array_equal(mask, explored_grid(e)) and not mask.flags.writeable
        if isinstance(step, act.Move) and before is not grown:
            assert isinstance(grown, explored_cells.ExploredCells) and mask is grown.mask  # its own mask
    for _ in steps:
        engine_.undo()
        assert np.array_equal(explored_cells.explored_mask(e.fog.explored, W, H), explored_grid(e))
    for _ in steps:
        engine_.redo()
        assert np.array_equal(explored_cells.explored_mask(e.fog.explored, W, H), explored_grid(e))


def test_explored_masks_of_unrelated_sets_are_built_not_patched_wrongly() -> None:
    rng = random.Random(3)
    for _ in range(20):
        cells = frozenset((rng.randrange(-2, W + 2), rng.randrange(-2, H + 2)) for _ in range(rng.randrange(60)))
        expected = np.zeros((H, W), dtype=bool)
        for x, y in cells:
            if 0 <= x < W and 0 <= y < H:
                expected[y, x] = True
        assert explored_cells.explore(frozenset(), expected) == {c for c in cells if 0 <= c[0] < W and 0 <= c[1] < H}
        assert np.array_equal(explored_cells.explored_mask(cells, W, H), expected)
        assert np.array_equal(explored_cells.explored_mask(frozenset(cells), W, H), expected)  # equal, not the same set


def test_explore_adds_only_what_is_new_and_keeps_the_set_when_nothing_is() -> None:
    known = frozenset({(0, 0), (1, 0)})
    seen = np.zeros((3, 4), dtype=bool)
    seen[0, 1] = True
    assert explored_cells.explore(known, seen) is known
    seen[2, 3] = True
    grown = explored_cells.explore(known, seen)
    assert grown == known | {(3, 2)}
    assert np.array_equal(explored_cells.explored_mask(grown, 4, 3), explored_cells.explored_mask(known, 4, 3) | seen)


def test_a_door_edit_takes_over_the_tables_and_sees_the_same_as_a_fresh_build() -> None:
    engine_ = engine()
    e = engine_.encounter
    before = map_terrain(e.map)
    ix_before = sight_index._index(before)
    steps_before = before.barrier_steps
    engine_.apply(act.SetDoor(*DOOR, open=True))
    after = map_terrain(e.map)
    assert after is not before
    ix = sight_index._index(after)
    assert ix.offsets is ix_before.offsets  # the offsets' tables, with the tiles already worked out
    assert ix.wall_cells is ix_before.wall_cells  # the same wall cells: the same diagonals
    assert after.wall_grid is before.wall_grid
    assert after.__dict__["_segment_barriers"] is before.__dict__["_segment_barriers"]
    grid = e.map
    fresh = Terrain(W, H, grid.walls, grid.difficult, barriers_of(grid.segments, grid.doors))
    assert after.barriers == fresh.barriers
    assert np.array_equal(after.barrier_lines, fresh.barrier_lines)
    steps = after.barrier_steps
    assert steps is not None and steps_before is not None
    expected = _step_masks(fresh.barrier_lines, W, H)
    assert all(np.array_equal(steps[d], expected[d]) for d in expected)
    assert not np.array_equal(steps[(1, 0)], steps_before[(1, 0)])  # the open door no longer bars the step
    for x in range(W):
        for y in range(H):
            assert np.array_equal(visibility.terrain_visible_mask(after, (x, y)), reference_point(fresh, (x, y)))


def reference_point(terrain: Terrain, cell: Cell) -> np.ndarray:
    out = np.zeros((terrain.height, terrain.width), dtype=bool)
    for y in range(terrain.height):
        for x in range(terrain.width):
            out[y, x] = line_clear(terrain, cell, (x, y))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_patched_step_arrays_and_buckets_equal_fresh_ones_after_random_edits(seed: int) -> None:
    rng = random.Random(seed)
    size = 40

    def segment() -> WallSegment:
        a = (rng.randrange(size), rng.randrange(size))
        b = (min(size, max(0, a[0] + rng.randrange(-6, 7))), min(size, max(0, a[1] + rng.randrange(-6, 7))))
        return WallSegment(a=a, b=b if b != a else (a[0] + 1, a[1]))

    segments = tuple(segment() for _ in range(40))
    doors = tuple(Door(a=s.a, b=s.b, open=rng.random() < 0.5) for s in (segment() for _ in range(8)))
    grid = MapGrid(width=size, height=size, segments=segments, doors=doors)
    map_terrain(grid).barrier_steps  # noqa: B018 - built, so the next map patches it
    for _ in range(12):
        edit = rng.randrange(3)
        if edit == 0:  # a door toggled: the segments stay the same tuple
            i = rng.randrange(len(doors))
            doors = tuple(d.model_copy(update={"open": not d.open}) if k == i else d for k, d in enumerate(doors))
            grid = grid.model_copy(update={"doors": doors})
        elif edit == 1:
            segments = (*segments, segment())
            grid = grid.model_copy(update={"segments": segments})
        else:
            segments = segments[1:]
            grid = grid.model_copy(update={"segments": segments})
        terrain = map_terrain(grid)
        fresh = Terrain(size, size, frozenset(), frozenset(), barriers_of(grid.segments, grid.doors))
        steps, expected = terrain.barrier_steps, fresh.barrier_steps
        assert steps is not None and expected is not None
        assert all(np.array_equal(steps[d], expected[d]) for d in expected)
        for _ in range(30):
            a = (rng.randrange(size), rng.randrange(size))
            b = (min(size - 1, max(0, a[0] + rng.randrange(-9, 10))), min(size - 1, a[1] + rng.randrange(9)))
            assert sight.terrain_blocker(terrain, a, 1, b, 1) == (None if line_clear(fresh, a, b) else ANY_BLOCKER)


class _AnyBlocker:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str)

    __hash__ = None  # type: ignore[assignment]


ANY_BLOCKER: Any = _AnyBlocker()


def test_a_cone_cut_from_the_cells_seen_is_the_cone_predicates() -> None:
    from lnl_desktop.core.map.grid import ConePredicate

    ys, xs = np.nonzero(np.ones((H, W), dtype=np.bool_))
    rng = random.Random(9)
    for _ in range(200):
        size = rng.choice([1, 2, 3])
        cell = (rng.randrange(-1, W), rng.randrange(-1, H))
        facing = rng.choice([0.0, 45.0, 90.0, 180.0, 315.0, -90.0, 405.0, rng.uniform(0, 360)])
        vision = rng.choice([90.0, 120.0, 180.0, 300.0, rng.uniform(1, 359)])
        cone = ConePredicate(footprint_center(cell, size), facing, vision, 1).mask(0, 0, W, H)
        outside = visibility._outside_cone(cell, size, facing, vision, xs, ys)
        assert np.array_equal(outside.reshape(H, W), cone)


def _whole_offsets(w: int, h: int, nbins: int) -> tuple[np.ndarray, np.ndarray]:
    """Every offset's distance and angle bin worked out whole, as the table was before it
    was filled a tile at a time."""
    bin_width = 2.0 * np.pi / nbins
    dy = np.arange(-(h - 1), h, dtype=np.float64)[:, np.newaxis]
    dx = np.arange(-(w - 1), w, dtype=np.float64)[np.newaxis, :]
    dist = np.hypot(dx, dy)
    bins = (np.floor((np.arctan2(dy, dx) + np.pi) / bin_width).astype(np.int64)) % nbins
    return dist, bins


@pytest.mark.parametrize("whole", [True, False], ids=["filled whole", "by tiles"])
@pytest.mark.parametrize("size", [(1, 1), (16, 12), (130, 70), (300, 300)])
def test_the_offsets_filled_round_each_viewer_are_the_whole_tables(
    size: tuple[int, int], whole: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not whole:
        monkeypatch.setattr(sight_index, "_WHOLE", 0)  # the tiles a big map fills round each viewer
    w, h = size
    offsets = sight_index._Offsets(w, h)
    dist, bins = _whole_offsets(w, h, offsets.nbins)
    rng = random.Random(w * 1000 + h)
    # Corners first (the windows farthest apart), then viewers anywhere: each window is the whole
    # table's, value for value, whichever tiles earlier viewers filled.
    viewers = [(0, 0), (w - 1, h - 1), (w - 1, 0), (0, h - 1)]
    viewers += [(rng.randrange(w), rng.randrange(h)) for _ in range(12)]
    for vx, vy in viewers:
        window = (slice(h - 1 - vy, 2 * h - 1 - vy), slice(w - 1 - vx, 2 * w - 1 - vx))
        assert np.array_equal(offsets.dist(vx, vy), dist[window])
        assert np.array_equal(offsets.bins(vx, vy), bins[window])
        assert offsets.dist(vx, vy)[vy, vx] == 0.0


def test_one_viewer_fills_the_tiles_round_its_window_only() -> None:
    offsets = sight_index._Offsets(1000, 1000)
    offsets.dist(500, 500)
    tiles = offsets._dist._done
    # The window of the map's centre: the middle 1000 x 1000 of 1999 x 1999 offsets, in 9 x 9 of 16 x 16 tiles.
    assert tiles.shape == (16, 16) and int(tiles.sum()) == 81
    assert offsets._bins._done.sum() == 0  # each table as it is asked for


def test_dropping_the_blockers_behind_the_nearest_sees_what_every_blocker_does(monkeypatch: pytest.MonkeyPatch) -> None:
    # A walled dungeon's worth of short segments, a few long ones, doors and wall cells: well over
    # the count from which blockers wholly behind the nearest are dropped before the bounds.
    rng = random.Random(44)
    size = 160
    segments = []
    for _ in range(1100):
        x, y = rng.randrange(size), rng.randrange(size)
        dx, dy = rng.choice([(1, 0), (0, 1), (1, 1), (2, -1)])
        n = rng.randint(1, 4)
        segments.append(WallSegment(a=(x, y), b=(min(x + dx * n, size), max(min(y + dy * n, size), 0))))
    segments += [WallSegment(a=(0, rng.uniform(0, size)), b=(size, rng.uniform(0, size))) for _ in range(3)]
    walls = frozenset((rng.randrange(size), rng.randrange(size)) for _ in range(150))
    grid = MapGrid(width=size, height=size, walls=walls, segments=tuple(segments))
    ix = sight_index._index(map_terrain(grid))
    assert ix.blockers(False).ax.size > visibility._CULL_FROM
    viewers = [(rng.randrange(size), rng.randrange(size)) for _ in range(25)] + [next(iter(walls))]
    culled = [visibility._point_view(ix, v) for v in viewers]
    assert max(int(seen.sum()) for seen in culled) > 500  # views far past the nearest walls
    monkeypatch.setattr(visibility, "_CULL_FROM", 10**9)
    for viewer, seen in zip(viewers, culled, strict=True):
        assert np.array_equal(seen, visibility._point_view(ix, viewer)), viewer
    # And against the rules' own words for a few viewers (every cell of the map).
    for viewer, seen in list(zip(viewers, culled, strict=True))[:3]:
        for x in range(0, size, 4):
            for y in range(0, size, 4):
                assert seen[y, x] == sight.sees(grid, viewer, 1, (x, y), 1), (viewer, (x, y))


def test_a_map_of_a_few_hundred_cells_fills_its_offsets_at_the_first_view() -> None:
    """So a Party move later never stops to fill a tile (10-20 ms on a 300 x 300 map)."""
    offsets = sight_index._Offsets(300, 300)
    offsets.dist(0, 0)
    assert offsets._dist._done.all()
    offsets.bins(299, 299)
    assert offsets._bins._done.all()


def test_offsets_are_shared_by_copies_and_found_again_by_a_pickle() -> None:
    """A deep copy of an encounter (a dry run, the odds) copies what its map keeps: the offsets, with
    their tiles' lock, are the size's own and shared, never copied."""
    import copy
    import pickle

    offsets = sight_index._offsets(40, 30)
    offsets.dist(5, 5)
    assert copy.deepcopy({"kept": offsets})["kept"] is offsets
    assert pickle.loads(pickle.dumps(offsets)) is offsets

"""Big maps: Universal VTT files of a hundred thousand wall segments and encounters holding them are
read in bulk with the same result as one segment at a time, and a map beyond the limits is refused
with the limit named. No clocks: the speed is the benchmarks' business, the results are these tests'.

:func:`random_map` and :func:`grid_map` make the files (also handy by hand: ``python -c "from
tests.core.test_uvtt_scale import *; write(Path('cave.uvtt'), grid_map(180_599))"``).
"""

from __future__ import annotations

import base64
import json
import math
import random
import struct
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter import map_model
from lnl_desktop.core.encounter.map_model import (
    BULK_LINES,
    MAX_MAP_LINES,
    MAX_PICTURE_PIXELS,
    Background,
    Door,
    MapGrid,
    WallSegment,
    in_bulk,
    lines_from_json,
)
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage, uvtt
from lnl_desktop.core.files.storage import EncounterFileError
from lnl_desktop.core.files.uvtt import ImportCancelled, MapFileError, read_uvtt
from lnl_desktop.core.rules.lnl.model import Encounter
from lnl_desktop.lazy import load_now

Line = list[tuple[float, float]]

# -- making files ------------------------------------------------------------------------------


def uvtt_document(
    size: tuple[float, float],
    walls: list[Line],
    *,
    objects: list[Line] = (),  # type: ignore[assignment]
    portals: list[tuple[tuple[float, float], tuple[float, float], bool]] = (),  # type: ignore[assignment]
    origin: tuple[float, float] = (0, 0),
) -> dict[str, Any]:
    """A format 0.3 map without a picture."""

    def pts(line: Line) -> list[dict[str, float]]:
        return [{"x": x, "y": y} for x, y in line]

    return {
        "format": 0.3,
        "resolution": {
            "map_origin": {"x": origin[0], "y": origin[1]},
            "map_size": {"x": size[0], "y": size[1]},
            "pixels_per_grid": 50,
        },
        "line_of_sight": [pts(line) for line in walls],
        "objects_line_of_sight": [pts(line) for line in objects],
        "portals": [{"bounds": pts([a, b]), "closed": closed, "rotation": 0} for a, b, closed in portals],
        "lights": [],
        "environment": {},
        "image": "",
    }


def random_map(segments: int, size: int = 1000, seed: int = 1) -> dict[str, Any]:
    """A cave as Dungeon Alchemist writes one: ``segments`` wall segments in winding polylines of
    1-20 segments, 6 decimals, some running off the map's edge, some outlines drawn twice (the second
    time backwards), repeated points, and a few doors on top of walls."""
    rng = random.Random(seed)
    walls: list[Line] = []
    count = 0
    while count < segments:
        steps = min(rng.randint(1, 20), segments - count)
        x, y = rng.uniform(-2, size + 2), rng.uniform(-2, size + 2)
        line = [(round(x, 6), round(y, 6))]
        for _ in range(steps):
            if rng.random() < 0.02:
                line.append(line[-1])  # a repeated point
                continue
            x += rng.uniform(-3, 3)
            y += rng.uniform(-3, 3)
            line.append((round(x, 6), round(y, 6)))
        walls.append(line)
        count += steps
    for i in range(0, len(walls), 50):
        walls.append(walls[i][::-1])  # an outline two rooms share
    portals = [(walls[i][0], walls[i][1], i % 3 == 0) for i in range(0, len(walls), 97) if walls[i][0] != walls[i][1]]
    return uvtt_document((size, size), walls, portals=portals, origin=(0, 0))


def grid_map(segments: int, seed: int = 2) -> dict[str, Any]:
    """``segments`` different one-cell segments on the grid lines of the smallest square map that
    has room for them, each its own line: DungeonFog's caves."""
    side = math.ceil((math.sqrt(1 + 2 * segments) - 1) / 2)  # a side x side map has 2 side (side + 1) edges
    edges = [((x, y), (x + 1, y)) for y in range(side + 1) for x in range(side)]
    edges += [((x, y), (x, y + 1)) for x in range(side + 1) for y in range(side)]
    rng = random.Random(seed)
    chosen = rng.sample(edges, segments)
    return uvtt_document((side, side), [[a, b] for a, b in chosen])


def write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


# -- the reference: one segment at a time, as the reader was written first ----------------------


def _round(value: float) -> float:
    value = round(value, 6)
    return 0.0 if value == 0 else value


def _clip(a: tuple[float, float], b: tuple[float, float], width: float, height: float) -> Any:
    dx, dy = b[0] - a[0], b[1] - a[1]
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, a[0]), (dx, width - a[0]), (-dy, a[1]), (dy, height - a[1])):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    if t0 == 0.0 and t1 == 1.0:
        return a, b

    def at(t: float) -> tuple[float, float]:
        return (
            min(max(_round(a[0] + t * dx), 0.0), float(width)),
            min(max(_round(a[1] + t * dy), 0.0), float(height)),
        )

    return (a if t0 == 0.0 else at(t0)), (b if t1 == 1.0 else at(t1))


def reference(document: dict[str, Any], width: int, height: int, shift: tuple[int, int] = (0, 0)) -> Any:
    """(walls, doors as (a, b, open), the notes on what was cut or left off) the way the first
    reader made them."""
    counts = {(kind, what): 0 for kind in ("wall", "door") for what in ("left off", "cut")}

    def place(p: dict[str, float], q: dict[str, float], kind: str) -> Any:
        a = (_round(p["x"] - shift[0]), _round(p["y"] - shift[1]))
        b = (_round(q["x"] - shift[0]), _round(q["y"] - shift[1]))
        if a == b:
            return None
        clipped = _clip(a, b, width, height)
        if clipped is None:
            counts[kind, "left off"] += 1
            return None
        if clipped != (a, b):
            counts[kind, "cut"] += 1
        return None if clipped[0] == clipped[1] else clipped

    def key(ends: Any) -> Any:
        return ends if ends[0] <= ends[1] else (ends[1], ends[0])

    doors, door_keys = [], set()
    for portal in document["portals"]:
        ends = place(*portal["bounds"][:2], "door")
        if ends is not None and key(ends) not in door_keys:
            door_keys.add(key(ends))
            doors.append((*ends, not portal["closed"]))
    walls, wall_keys = [], set()
    for line in document["line_of_sight"] + document["objects_line_of_sight"]:
        for p, q in pairwise(line):
            ends = place(p, q, "wall")
            if ends is not None and key(ends) not in door_keys and key(ends) not in wall_keys:
                wall_keys.add(key(ends))
                walls.append(ends)
    said = {"left off": "outside the map left off", "cut": "cut at the map's edge"}
    notes = [f"{n:,} {kind}{'s' if n > 1 else ''} {said[what]}" for (kind, what), n in counts.items() if n]
    return walls, doors, tuple(notes)


def ends(lines: tuple[WallSegment, ...]) -> list[Any]:
    return [(s.a, s.b) for s in lines]


# -- reading big files ---------------------------------------------------------------------------


def test_a_cave_of_100000_segments_reads_as_the_reference_reads_it() -> None:
    document = random_map(100_000)
    imported = read_uvtt(json.dumps(document), "cave.uvtt")
    walls, doors, notes = reference(document, 1000, 1000)
    assert len(walls) > 95_000  # the outlines drawn twice and the walls under doors are not twice
    assert ends(imported.segments) == walls
    assert [(d.a, d.b, d.open) for d in imported.doors] == doors
    assert all(type(s) is WallSegment for s in imported.segments) and all(type(d) is Door for d in imported.doors)
    # Equal to validated models, to the bit: floats, and the same fields set.
    sample = random.Random(4).sample(range(len(walls)), 1000)
    for i in sample:
        segment = imported.segments[i]
        validated = WallSegment(a=walls[i][0], b=walls[i][1])
        assert segment == validated and segment.__dict__ == validated.__dict__
        assert [type(v) for v in (*segment.a, *segment.b)] == [float] * 4
        assert segment.model_fields_set == validated.model_fields_set and hash(segment) == hash(validated)
    door = Door(a=doors[0][0], b=doors[0][1], open=doors[0][2])
    assert imported.doors[0].__dict__ == door.__dict__ and imported.doors[0].model_fields_set == door.model_fields_set
    assert imported.notes == notes and len(notes) >= 2
    assert imported.summary.startswith(
        f"Imported cave.uvtt: 1000 x 1000 cells, {len(walls):,} walls, {len(doors)} doors"
    )
    # What the undo step keeps is what model_dump would write.
    segments_json, doors_json = imported.lines_json
    assert [segments_json[i] for i in sample] == [imported.segments[i].model_dump(mode="json") for i in sample]
    assert doors_json == [d.model_dump(mode="json") for d in imported.doors]


def test_180599_one_cell_segments_on_the_grid_are_all_read() -> None:
    document = grid_map(180_599)
    imported = read_uvtt(json.dumps(document), "caves.df2vtt")
    assert (imported.width, imported.height) == (300, 300)
    assert len(imported.segments) == 180_599
    assert ends(imported.segments) == [(tuple(map(float, (p["x"], p["y"]))), (q["x"], q["y"]))
                                       for p, q in document["line_of_sight"]]  # fmt: skip
    assert imported.notes == ()
    grid = MapGrid.model_validate({"width": 300, "height": 300, **imported.changes(None)})
    assert grid.segments == imported.segments


@pytest.mark.parametrize("seed", range(40))
def test_small_tricky_maps_read_as_the_reference_reads_them(seed: int) -> None:
    # Off the map, on its edge, half-way between 6-decimal numbers, shifted by a fractional origin,
    # drawn twice, under doors: the bulk arithmetic gives what the first reader gave.
    rng = random.Random(seed)

    def point() -> tuple[float, float]:
        kind = rng.random()
        if kind < 0.3:
            return rng.randrange(-3, 16), rng.randrange(-3, 12)
        if kind < 0.5:
            return rng.choice([0, 1e-7, 5e-7, 2.4999995, 12.0000005, 12]), rng.choice([0, 7.9999995, 8, 9.5000005])
        return rng.uniform(-3, 16), round(rng.uniform(-3, 12), rng.choice([1, 6, 7, 12]))

    lines: list[Line] = []
    for _ in range(rng.randrange(1, 40)):
        line = [point() for _ in range(rng.randrange(1, 6))]
        lines.append(rng.choice(lines)[::-1] if lines and rng.random() < 0.2 else line)
    portals = [
        (line[0], line[-1], closed) for line, closed in ((rng.choice(lines), rng.random() < 0.5) for _ in range(4))
    ]
    origin = rng.choice([(0, 0), (2, 1), (2.5, 1.25), (-1, 0.9999999)])
    shifted = [
        [(x + math.floor(origin[0] + 1e-6), y + math.floor(origin[1] + 1e-6)) for x, y in line] for line in lines
    ]
    document = uvtt_document((12, 8), shifted[: len(lines) // 2], objects=shifted[len(lines) // 2 :], origin=origin)
    document["portals"] = [
        {"bounds": [{"x": a[0] + math.floor(origin[0] + 1e-6), "y": a[1] + math.floor(origin[1] + 1e-6)},
                    {"x": b[0] + math.floor(origin[0] + 1e-6), "y": b[1] + math.floor(origin[1] + 1e-6)}],
         "closed": closed}
        for a, b, closed in portals
    ]  # fmt: skip
    imported = read_uvtt(json.dumps(document), "tricky.uvtt")
    shift = (uvtt._whole(origin[0]), uvtt._whole(origin[1]))
    walls, doors, notes = reference(document, imported.width, imported.height, shift)
    assert imported.notes == notes
    assert ends(imported.segments) == walls
    assert [(d.a, d.b, d.open) for d in imported.doors] == doors
    assert all(type(v) is float for s in imported.segments for v in (*s.a, *s.b))


def test_reading_tells_its_progress_and_stops_when_cancelled() -> None:
    text = json.dumps(random_map(60_000))
    told: list[float] = []
    read_uvtt(text, "cave.uvtt", progress=told.append)
    assert told[0] == 0 and told[-1] == 1 and told == sorted(told) and len(told) >= 5

    for stop_at in (1, 3, len(told) - 1):
        asked: list[float] = []

        def cancelled(asked: list[float] = asked, stop_at: int = stop_at) -> bool:
            asked.append(0)
            return len(asked) > stop_at

        with pytest.raises(ImportCancelled):
            read_uvtt(text, "cave.uvtt", cancelled=cancelled)
        assert len(asked) == stop_at + 1  # it stopped at the first step after the flag


# -- limits ------------------------------------------------------------------------------------


def test_the_limits_allow_the_maps_game_masters_use() -> None:
    assert MAX_MAP_LINES >= 180_599 and uvtt.MAX_SIDE == 1000
    assert uvtt.MAX_PICTURE_PIXELS == 16384 * 16384


def test_a_map_file_over_the_line_limit_is_refused_naming_the_limit() -> None:
    document = grid_map(MAX_MAP_LINES + 1)
    with pytest.raises(MapFileError) as caught:
        read_uvtt(json.dumps(document), "huge.uvtt")
    assert str(caught.value) == (
        f"huge.uvtt: the map has {MAX_MAP_LINES + 1:,} wall segments; the most a map may have is "
        f"{MAX_MAP_LINES:,} wall segments and doors together"
    )


def test_doors_count_towards_the_line_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uvtt, "MAX_MAP_LINES", 10)
    document = uvtt_document((20, 20), [[(x, 0), (x, 1)] for x in range(8)], portals=[((1, 5), (2, 5), True)] * 1)
    document["portals"] += [{"bounds": [{"x": x, "y": 9}, {"x": x + 1, "y": 9}], "closed": True} for x in range(4)]
    with pytest.raises(MapFileError, match=r"the map has 8 wall segments and 5 doors; the most a map may have is 10 "):
        read_uvtt(json.dumps(document), "doors.uvtt")


def long_lines(count: int, size: int = 100, seed: int = 5) -> list[Line]:
    """``count`` lines between random points anywhere on a ``size`` x ``size`` map."""
    rng = random.Random(seed)
    return [
        [(rng.uniform(0, size), rng.uniform(0, size)), (rng.uniform(0, size), rng.uniform(0, size))]
        for _ in range(count)
    ]


def test_a_map_of_long_walls_over_the_length_limit_is_refused_naming_the_limit() -> None:
    """100,000 lines across a 100 x 100 map measure some 5 million cells: every cell behind hundreds of
    walls. Refused at once, the length and the limit named."""
    walls = long_lines(100_000)
    length = sum(math.dist(a, b) for a, b in walls)
    assert length > uvtt.MAX_WALL_CELLS
    with pytest.raises(MapFileError) as caught:
        read_uvtt(json.dumps(uvtt_document((100, 100), walls)), "long.dd2vtt")
    assert str(caught.value) == (
        f"long.dd2vtt: its 100,000 wall segments and doors measure {length:,.0f} cells together "
        f"({length / 100_000:,.1f} cells each on average); a map's walls and doors may measure at most "
        f"{uvtt.MAX_WALL_CELLS:,} cells together"
    )


def test_the_length_limit_counts_doors_and_the_parts_on_the_map(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uvtt, "MAX_WALL_CELLS", 30)
    # 10 cells of wall on the map (10 more off its edge are cut away), and a door of 20 cells.
    inside = uvtt_document((20, 20), [[(-10, 1), (10, 1)]], portals=[((0, 5), (20, 5), True)])
    assert len(read_uvtt(json.dumps(inside), "fits.uvtt").segments) == 1
    over = uvtt_document((20, 20), [[(-10, 1), (10, 1), (10, 2)]], portals=[((0, 5), (20, 5), True)])
    with pytest.raises(MapFileError, match=r"its 3 wall segments and doors measure 31 cells together .* at most 30 "):
        read_uvtt(json.dumps(over), "over.uvtt")


def test_the_length_limit_allows_the_maps_game_masters_use() -> None:
    """A cave of 180,599 one-cell walls, a dungeon of 100,000 walls on the biggest map, and 10,000
    lines across a 100 x 100 map all fit."""
    cave = read_uvtt(json.dumps(grid_map(180_599)), "cave.uvtt")
    dungeon = read_uvtt(json.dumps(random_map(100_000)), "dungeon.uvtt")
    lines = read_uvtt(json.dumps(uvtt_document((100, 100), long_lines(10_000))), "lines.uvtt")
    assert len(cave.segments) == 180_599 and len(lines.segments) == 10_000
    assert len(dungeon.segments) > 90_000


def big_encounter(segments: list[dict[str, Any]], doors: list[dict[str, Any]] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    encounter = Encounter(map=MapGrid(width=1000, height=1000))
    document = storage.to_document(encounter)
    document["encounter"]["map"]["segments"] = segments
    document["encounter"]["map"]["doors"] = list(doors)
    return document


def unit_segments(count: int) -> list[dict[str, Any]]:
    return [{"a": [float(i % 999), float(i // 999)], "b": [float(i % 999 + 1), float(i // 999)]} for i in range(count)]


def test_an_encounter_over_the_line_limit_is_refused_naming_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "huge.lnl"
    path.write_text(json.dumps(big_encounter(unit_segments(MAX_MAP_LINES + 1))), encoding="utf-8")
    with pytest.raises(EncounterFileError) as caught:
        storage.load(path)
    assert str(caught.value) == (
        "huge.lnl has 1 problem:\nencounter.map.segments: the map has 200,001 wall segments; "
        "the most a map may have is 200,000 wall segments and doors together"
    )
    # The same limit in the model: an edit cannot make such a map either (a small limit, for speed).
    monkeypatch.setattr(map_model, "MAX_MAP_LINES", 10)
    engine = Engine(Encounter(map=MapGrid(width=1000, height=1000)))
    before = engine.encounter.model_dump()
    with pytest.raises(RulesError, match="the map has 5 wall segments and 6 doors; the most a map may have is 10 "):
        engine.apply(act.EditMap({"segments": unit_segments(5), "doors": unit_segments(6)}))
    assert engine.encounter.model_dump() == before


# -- encounter files with big maps ------------------------------------------------------------------


def test_a_big_encounter_loads_as_the_usual_validation_reads_it(tmp_path: Path) -> None:
    rng = random.Random(9)
    # Walls as maps have them, a few cells long each (lines across the whole map are refused by length).
    starts = [(rng.uniform(0, 1000), float(rng.randrange(1000))) for _ in range(100_000)]
    segments = [
        {"a": [x, y], "b": [float(min(999, max(0, round(x) + rng.randint(-4, 4)))), min(1000.0, y + rng.uniform(0, 4))]}
        for x, y in starts
    ]
    doors = [{"a": [float(i), 3.0], "b": [float(i + 1), 3.0], "open": i % 2 == 0} for i in range(600)]
    document = big_encounter(segments, doors)
    path = tmp_path / "big.lnl"
    path.write_text(json.dumps(document), encoding="utf-8")

    loaded = storage.load(path)

    usual = Encounter.model_validate_json(json.dumps(document["encounter"]), strict=True)
    assert loaded == usual
    assert loaded.map.segments == usual.map.segments and loaded.map.doors == usual.map.doors
    assert loaded.map.model_fields_set == usual.map.model_fields_set
    assert [d.model_fields_set for d in loaded.map.doors[:3]] == [d.model_fields_set for d in usual.map.doors[:3]]
    assert storage.dumps(loaded) == storage.dumps(usual)


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        (
            {"a": [1001.0, 5.0], "b": [3.0, 4.0]},
            "encounter.map.segments[700]: point (1001, 5) is outside the 1000 x 1000 map",
        ),
        ({"a": [3.0, 4.0], "b": [3.0, 4.0]}, "encounter.map.segments[700]: a wall needs two different ends"),
        ({"a": [True, 4.0], "b": [3.0, 4.0]}, "encounter.map.segments[700].a[0]: A must be a number (got True)"),
        ({"a": [1.0, 4.0], "b": [3.0, 4.0], "c": 1}, "encounter.map.segments[700].c: there is nothing called 'c' here"),
        ({"a": [1.0, 4.0, 5.0], "b": [3.0, 4.0]}, "encounter.map.segments[700].a: A can have at most 2 items"),
    ],
)
def test_a_bad_line_in_a_big_map_is_said_as_always(tmp_path: Path, bad: dict[str, Any], says: str) -> None:
    load_now("numpy")  # as once the window is up: then a thousand lines are checked in bulk
    segments = unit_segments(2 * BULK_LINES)
    assert in_bulk(len(segments))
    segments[700] = bad
    path = tmp_path / "bad.lnl"
    path.write_text(json.dumps(big_encounter(segments)), encoding="utf-8")
    with pytest.raises(EncounterFileError) as caught:
        storage.load(path)
    assert says in str(caught.value)
    assert str(caught.value).startswith("bad.lnl has 1 problem:")


def test_bulk_checking_takes_only_what_validation_would_take_as_it_is() -> None:
    good = unit_segments(5)
    assert lines_from_json(good, doors=False) is not None
    for bad in (
        [*good, {"a": [1, 1], "b": [1, 1]}],  # a point
        [*good, {"a": [float("nan"), 1], "b": [1, 2]}],
        [*good, {"a": [10**400, 1], "b": [1, 2]}],
        [*good, {"a": ["1", 1], "b": [1, 2]}],
        [*good, {"a": [1, 1], "b": [1, 2], "open": True}],  # a door's key on a wall
        [*good, WallSegment(a=(0, 0), b=(1, 1))],
    ):
        assert lines_from_json(bad, doors=False) is None
    assert lines_from_json([{"a": [0, 0], "b": [1, 1], "open": 1}], doors=True) is None
    doors = lines_from_json([{"a": [0, 0], "b": [1, 1], "open": True}, {"a": [0, 0], "b": [1, 2]}], doors=True)
    assert doors == [Door(a=(0, 0), b=(1, 1), open=True), Door(a=(0, 0), b=(1, 2))]
    assert [d.model_fields_set for d in doors or []] == [{"a", "b", "open"}, {"a", "b"}]


def png_header(width: int, height: int) -> bytes:
    """A PNG's signature and IHDR: enough to say a size (a few bytes can claim a huge picture)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0\0\0\0"


def test_an_encounter_with_a_picture_over_the_pixel_limit_is_refused_naming_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "bomb.lnl"
    for size, refused in (((16384, 16384), False), ((16385, 16384), True), ((30000, 30000), True)):
        picture = Background(image="bomb.png", data=base64.b64encode(png_header(*size)).decode("ascii"))
        storage.save(Encounter(map=MapGrid(width=20, height=15, background=picture)), path)
        if not refused:
            assert storage.load(path).map.background == picture
            continue
        with pytest.raises(EncounterFileError) as caught:
            storage.load(path)
        assert str(caught.value) == (
            f"bomb.lnl has 1 problem:\nencounter.map.background.data: the picture is {size[0]} x {size[1]} pixels; "
            f"the most a map picture may have is {MAX_PICTURE_PIXELS:,} pixels (16,384 a side)"
        )


def test_an_encounter_with_a_few_thousand_walls_opens_without_numpy(tmp_path: Path) -> None:
    # Loading numpy takes a tenth of a second the first window must not wait for; a map of 3,000
    # walls is read as quickly without it.
    path = tmp_path / "keep.lnl"
    path.write_text(json.dumps(big_encounter(unit_segments(3000))), encoding="utf-8")
    code = (
        "import sys; from lnl_desktop.core.files import storage; from lnl_desktop.lazy import loaded; "
        "e = storage.load(sys.argv[1]); assert len(e.map.segments) == 3000; print(loaded('numpy'))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"

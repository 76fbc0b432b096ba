"""Universal VTT maps (.dd2vtt / .uvtt / .df2vtt) read into the map's cells: size, walls, doors, picture."""

from __future__ import annotations

import base64
import json
import math
import struct
import zlib
from itertools import pairwise
from typing import Any

import pytest

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import Background, Door, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import uvtt
from lnl_desktop.core.files.journal import action_from_json, action_to_json
from lnl_desktop.core.files.uvtt import ImportedMap, MapFileError, read_uvtt
from lnl_desktop.core.map import sight
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter

# -- making files ------------------------------------------------------------------------------


def png(width: int, height: int, rgb: tuple[int, int, int] = (90, 120, 60)) -> bytes:
    """A real PNG (8-bit RGB, no filtering), made without any imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def png_header(width: int, height: int) -> bytes:
    """Only a PNG's signature and IHDR: enough to say a size, nothing to decode."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0\0\0\0"


def jpeg_header(width: int, height: int) -> bytes:
    """SOI, an APP0 (JFIF) segment, then a baseline frame header saying the size."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + b"\xff\xff" + sof + b"\xff\xd9"


def webp_lossless_header(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    data = b"\x2f" + bits.to_bytes(4, "little") + b"\0" * 8
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(data)) + b"WEBP" + b"VP8L" + struct.pack("<I", len(data)) + data


def webp_extended_header(width: int, height: int) -> bytes:
    data = b"\x10\0\0\0" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(data)) + b"WEBP" + b"VP8X" + struct.pack("<I", len(data)) + data


def pts(*xy: tuple[float, float]) -> list[dict[str, float]]:
    return [{"x": x, "y": y} for x, y in xy]


def portal(a: tuple[float, float], b: tuple[float, float], closed: bool) -> dict[str, Any]:
    return {
        "position": {"x": (a[0] + b[0]) / 2, "y": (a[1] + b[1]) / 2},
        "bounds": pts(a, b),
        "rotation": 0.0 if a[1] == b[1] else math.pi / 2,
        "closed": closed,
        "freestanding": False,
    }


def cave(cx: float, cy: float, r: float, points: int) -> list[tuple[float, float]]:
    """A closed ring of short segments, the way map makers write cave walls (6 decimals)."""
    ring = [
        (round(cx + r * math.cos(2 * math.pi * i / points), 6), round(cy + r * math.sin(2 * math.pi * i / points), 6))
        for i in range(points)
    ]
    return [*ring, ring[0]]


def document(
    version: float | None,
    *,
    origin: tuple[float, float] = (0, 0),
    size: tuple[float, float] = (12, 8),
    ppg: float = 8,
    walls: list[list[tuple[float, float]]] = (),  # type: ignore[assignment]
    objects: list[list[tuple[float, float]]] = (),  # type: ignore[assignment]
    portals: list[dict[str, Any]] = (),  # type: ignore[assignment]
    image: bytes | None = None,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "resolution": {
            "map_origin": {"x": origin[0], "y": origin[1]},
            "map_size": {"x": size[0], "y": size[1]},
            "pixels_per_grid": ppg,
        },
        "line_of_sight": [pts(*line) for line in walls],
        "portals": list(portals),
        "environment": {"baked_lighting": True, "ambient_light": "ffffffff"},
        "lights": [{"position": {"x": 3, "y": 3}, "range": 4, "intensity": 1, "color": "ffeccd8b", "shadows": True}],
        "image": base64.b64encode(
            image if image is not None else png(round(size[0] * ppg), round(size[1] * ppg))
        ).decode("ascii"),
    }
    if version is not None:
        doc["format"] = version
    if version is None or version >= 0.3:
        doc["objects_line_of_sight"] = [pts(*line) for line in objects]
    return doc


def text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1)


def pairs(line: list[tuple[float, float]], dx: float = 0, dy: float = 0) -> list[tuple[tuple[float, float], ...]]:
    moved = [(round(x - dx, 6), round(y - dy, 6)) for x, y in line]
    return list(pairwise(moved))


def ends(lines: tuple[WallSegment, ...]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    return [(s.a, s.b) for s in lines]


ROOM = [(1, 1), (7, 1), (7, 3.5), (7, 4.5), (7, 6), (1, 6), (1, 1)]  # a gap for the door at x=7, y 3.5-4.5


# -- reading each format ---------------------------------------------------------------------


def test_a_format_0_2_map_gives_size_walls_doors_and_picture() -> None:
    ring = cave(9.5, 4, 1.5, 48)
    walls = [ROOM[:3], ROOM[3:], ring]
    doors = [portal((7, 3.5), (7, 4.5), closed=True), portal((3, 6), (4, 6), closed=False)]
    picture = png(96, 64)
    imported = read_uvtt(text(document(0.2, walls=walls, portals=doors, image=picture)), "keep.dd2vtt")

    assert (imported.format, imported.width, imported.height) == (0.2, 12, 8)
    expected = pairs(ROOM[:3]) + pairs(ROOM[3:]) + pairs(ring)
    assert ends(imported.segments) == expected
    assert len(imported.segments) == 2 + 3 + 48
    assert [(d.a, d.b, d.open) for d in imported.doors] == [((7, 3.5), (7, 4.5), False), ((3, 6), (4, 6), True)]
    assert all(type(d) is Door for d in imported.doors)
    assert (imported.cell_px, imported.offset_x, imported.offset_y) == (8.0, 0.0, 0.0)
    assert imported.image_format == "png"
    assert imported.image_size == (96, 64)
    assert imported.image_bytes == picture
    assert imported.object_walls == 0
    assert imported.summary == "Imported keep.dd2vtt: 12 x 8 cells, 53 walls, 2 doors, 1 light"


def test_a_format_0_3_map_moves_everything_by_its_origin() -> None:
    # Like Dungeondraft's sample: the picture's corner is at grid point (2, 1) of the maker's canvas.
    origin = (2, 1)
    room = [(x + 2, y + 1) for x, y in ROOM]
    ring = cave(11.5, 5, 1.5, 120)
    pillar = [(5, 4), (5.5, 4), (5.5, 4.5), (5, 4.5), (5, 4)]
    doc = document(
        0.3,
        origin=origin,
        walls=[room[:3], room[3:], ring],
        objects=[pillar],
        portals=[portal((9, 4.5), (9, 5.5), closed=False), portal((5, 7), (6, 7), closed=True)],
    )
    imported = read_uvtt(text(doc), "cave.uvtt")

    assert (imported.format, imported.width, imported.height) == (0.3, 12, 8)
    expected = pairs(room[:3], *origin) + pairs(room[3:], *origin) + pairs(ring, *origin)
    assert ends(imported.segments) == [*expected, *pairs(pillar, *origin)]
    assert ends(imported.segments)[:5] == pairs(ROOM[:3]) + pairs(ROOM[3:])  # the room lands where it was drawn
    assert imported.object_walls == 4
    assert [(d.a, d.b, d.open) for d in imported.doors] == [((7, 3.5), (7, 4.5), True), ((3, 6), (4, 6), False)]
    # The picture's corner is the map's corner: no offset.
    assert (imported.cell_px, imported.offset_x, imported.offset_y) == (8.0, 0.0, 0.0)
    assert imported.summary == (
        "Imported cave.uvtt: 12 x 8 cells, 129 walls, 2 doors (4 of the walls around objects), 1 light"
    )
    without = read_uvtt(text(doc), "cave.uvtt", objects=False)
    assert ends(without.segments) == expected
    assert without.object_walls == 0


def test_a_fractional_origin_becomes_the_pictures_offset_and_the_grid_stays_on_the_makers() -> None:
    # A crop half a cell into the maker's grid: walls on its grid lines stay on the map's.
    doc = document(0.3, origin=(2.5, 1.25), size=(10, 8), ppg=10, walls=[[(3, 2), (8, 2)]])
    imported = read_uvtt(text(doc), "crop.df2vtt")
    assert (imported.width, imported.height) == (11, 9)  # the picture reaches into an 11th column, a 9th row
    assert ends(imported.segments) == [((1, 1), (6, 1))]
    assert (imported.offset_x, imported.offset_y) == (-5.0, -2.5)  # the picture starts right of / below (0, 0)
    assert imported.cell_px == 10


def test_map_size_is_rounded_up_to_whole_cells() -> None:
    imported = read_uvtt(text(document(0.3, size=(10.2, 7.000000001), image=png(82, 56))), "odd.uvtt")
    assert (imported.width, imported.height) == (11, 7)


def test_a_file_without_format_or_origin_or_picture_is_read() -> None:
    doc = document(None, walls=[ROOM])
    del doc["resolution"]["map_origin"]
    doc["image"] = ""
    imported = read_uvtt(text(doc), "bare.uvtt")
    assert imported.format is None
    assert imported.image_base64 is None and imported.image_format is None
    assert imported.background() is None
    assert imported.summary == "Imported bare.uvtt: 12 x 8 cells, 6 walls, 0 doors, 1 light, no picture"


def test_bytes_with_a_byte_order_mark_and_wrapped_base64_are_read() -> None:
    doc = document(0.2, walls=[ROOM])
    wrapped = doc["image"]
    doc["image"] = "\n".join(wrapped[i : i + 76] for i in range(0, len(wrapped), 76))
    imported = read_uvtt(b"\xef\xbb\xbf" + text(doc).encode("utf-8"), "wrapped.dd2vtt")
    assert imported.image_base64 == wrapped
    assert imported.image_size == (96, 64)


def test_walls_outside_the_map_are_cut_or_left_off_and_said() -> None:
    doc = document(
        0.3,
        origin=(2, 1),
        walls=[
            [(0, 0), (1, 0)],  # wholly left of and above the picture: off
            [(1, 3), (5, 3)],  # crosses the left edge at x = 2 (map x = 0): cut to (0, 2)-(3, 2)
            [(4, 5), (4, 12)],  # leaves through the bottom (map y = 8)
            [(14, 1), (14, 9)],  # along the right edge (map x = 12): inside
        ],
        portals=[portal((30, 3), (30, 4), closed=True)],
    )
    imported = read_uvtt(text(doc), "spill.uvtt")
    assert ends(imported.segments) == [((0, 2), (3, 2)), ((2, 4), (2, 8)), ((12, 0), (12, 8))]
    assert imported.doors == ()
    assert imported.summary == (
        "Imported spill.uvtt: 12 x 8 cells, 3 walls, 0 doors, 1 light; 1 wall outside the map left off; "
        "2 walls cut at the map's edge; 1 door outside the map left off"
    )
    MapGrid(width=imported.width, height=imported.height, segments=imported.segments)  # every point is on the map


def test_a_diagonal_wall_is_cut_where_it_crosses_the_edge() -> None:
    imported = read_uvtt(text(document(0.3, walls=[[(10, 6), (14, 10)]])), "d.uvtt")
    assert ends(imported.segments) == [((10, 6), (12, 8))]


def test_repeated_points_repeated_walls_and_walls_under_doors_are_dropped() -> None:
    doc = document(
        0.3,
        walls=[
            [(1, 1), (1, 1), (4, 1)],  # a repeated point is no wall
            [(4, 1), (1, 1)],  # the same wall the other way round
            [(6, 2), (6, 3), (6, 4)],  # the door covers (6, 2)-(6, 3) exactly
        ],
        portals=[portal((6, 2), (6, 3), closed=True), portal((6, 3), (6, 2), closed=False)],
    )
    imported = read_uvtt(text(doc), "dup.uvtt")
    assert ends(imported.segments) == [((1, 1), (4, 1)), ((6, 3), (6, 4))]
    assert [(d.a, d.b, d.open) for d in imported.doors] == [((6, 2), (6, 3), False)]


def test_a_portal_listing_more_ends_gives_them_in_pairs() -> None:
    doc = document(0.3)
    doc["portals"] = [{"bounds": pts((1, 1), (2, 1), (3, 1), (4, 1)), "closed": True}]  # no position, rotation
    imported = read_uvtt(text(doc), "pairs.uvtt")
    assert [(d.a, d.b) for d in imported.doors] == [((1, 1), (2, 1)), ((3, 1), (4, 1))]


def test_a_picture_that_does_not_fit_the_grid_is_said() -> None:
    imported = read_uvtt(text(document(0.3, image=png(50, 64))), "narrow.uvtt")
    assert imported.notes == ("the picture is 50 x 64 px where the grid needs 96 x 64 px: check its alignment",)


def test_a_newer_format_is_read_with_a_note() -> None:
    imported = read_uvtt(text(document(2.0)), "future.uvtt")
    assert imported.notes == ("format 2 is newer than the ones known (up to 1); read as 0.3",)


# -- the picture's header -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "kind", "size"),
    [
        (png(3, 2), "png", (3, 2)),
        (jpeg_header(1600, 900), "jpeg", (1600, 900)),
        (webp_lossless_header(5000, 3000), "webp", (5000, 3000)),
        (webp_extended_header(12000, 7000), "webp", (12000, 7000)),
    ],
)
def test_the_pictures_format_and_size_come_from_its_header(raw: bytes, kind: str, size: tuple[int, int]) -> None:
    assert uvtt.image_kind(raw) == kind
    assert uvtt.image_size(raw, kind) == size  # type: ignore[arg-type]
    imported = read_uvtt(text(document(0.3, image=raw)), "pic.uvtt")
    assert (imported.image_format, imported.image_size) == (kind, size)


# -- what the map becomes -----------------------------------------------------------------------


def imported_room() -> ImportedMap:
    doc = document(
        0.3,
        origin=(2.5, 1),
        walls=[[(x + 2, y + 1) for x, y in ROOM]],
        portals=[portal((9, 4.5), (9, 5.5), closed=True)],
    )
    return read_uvtt(text(doc), "room.dd2vtt")


def test_the_picture_becomes_the_background_as_it_is_or_scaled() -> None:
    imported = imported_room()
    as_is = imported.background()
    assert as_is == Background(image="room.png", cell_px=8, offset_x=-4, offset_y=0, data=imported.image_base64)
    half = imported.background(data="AAAA", image_format="jpeg", scale=0.5, opacity=0.8)
    assert half == Background(image="room.jpg", cell_px=4, offset_x=-2, offset_y=0, opacity=0.8, data="AAAA")


def test_a_webp_picture_must_be_converted_before_it_becomes_the_background() -> None:
    imported = read_uvtt(text(document(0.3, image=webp_lossless_header(96, 64))), "web.uvtt")
    with pytest.raises(MapFileError, match=r"web.uvtt: the picture is WEBP; the map keeps PNG or JPEG"):
        imported.background()
    converted = imported.background(data="AAAA", image_format="png")
    assert converted is not None and converted.image == "web.png"
    with pytest.raises(MapFileError, match="PNG or JPEG, not webp"):
        imported.background(data="AAAA", image_format="webp")  # type: ignore[arg-type]
    with pytest.raises(MapFileError, match="cannot be lined up with the grid"):
        imported.background(data="AAAA", image_format="png", scale=0.1)  # 0.8 px a cell


def test_the_changes_make_a_valid_map_and_survive_the_journal() -> None:
    imported = imported_room()
    changes = imported.changes(imported.background())
    old = MapGrid(width=20, height=15, walls=frozenset({(18, 14)}), difficult=frozenset({(1, 1)}))
    assert changes.pop("lights") == [
        {"id": "map-light-1", "kind": "custom", "bright_ft": 10, "dim_ft": 10, "cell": [1, 2], "colour": "#eccd8b"}
    ]  # the map's own lights, which the engine places (not the map's fields)
    new = MapGrid.model_validate({**old.model_dump(), **changes})
    assert (new.width, new.height) == (13, 8)  # half a cell of picture reaches into a 13th column
    assert new.segments == imported.segments and new.doors == imported.doors
    assert new.walls == frozenset() and new.difficult == frozenset()
    assert new.background == imported.background()
    assert new.background is not None and base64.b64decode(new.background.data or "") == imported.image_bytes
    # The recovery journal writes the action as JSON and replays it: the same action comes back.
    action = act.EditMap(changes)
    assert action_from_json(json.loads(json.dumps(action_to_json(action)))) == action


def test_the_engine_applies_an_import_as_one_step_that_undo_takes_back() -> None:
    encounter = Encounter(map=MapGrid(width=20, height=15, walls=frozenset({(5, 5)})))
    engine = Engine(encounter)
    old = encounter.map
    imported = imported_room()
    engine.apply(act.EditMap(imported.changes(imported.background())))
    new = engine.encounter.map
    assert (new.width, new.height, new.segments, new.doors) == (13, 8, imported.segments, imported.doors)
    assert new.background is not None and new.background.data == imported.image_base64
    assert len(engine.encounter.log[-1].text) < 300  # the log says what changed, not the picture's bytes
    engine.undo()
    assert engine.encounter.map == old


@pytest.mark.parametrize("version", [0.2, 0.3])
def test_on_an_imported_map_the_door_blocks_until_opened_and_the_walls_stop_moves_and_sight(version: float) -> None:
    ox, oy = 2, 3  # the file's grid starts two cells right and three down of its picture's corner
    north_wall = [(1, 1), (7, 1), (7, 4)]  # the east wall stops at the door (7, 4)-(7, 5)
    south_wall = [(7, 5), (7, 6), (1, 6), (1, 1)]
    doc = document(
        version,
        origin=(ox, oy),
        size=(14, 9),
        walls=[[(x + ox, y + oy) for x, y in line] for line in (north_wall, south_wall)],
        portals=[portal((7 + ox, 4 + oy), (7 + ox, 5 + oy), closed=True)],
    )
    imported = read_uvtt(text(doc), "keep.dd2vtt")
    ana = Combatant(id="ana", name="Ana", side=Side.PARTY, level=3, stamina_max=20, injury_max=10)
    orc = Combatant(id="orc", name="Orc", side=Side.OPPONENTS, level=1, stamina_max=5, injury_max=3)
    encounter = Encounter(
        map=MapGrid(width=20, height=15),
        combatants=[ana, orc],
        tokens={"ana": Token(cell=(4, 4)), "orc": Token(cell=(12, 8))},
    )
    engine = Engine(encounter)
    engine.apply(act.EditMap(imported.changes(imported.background())))
    grid_map = engine.encounter.map
    assert (grid_map.width, grid_map.height) == (14, 9)
    assert grid_map.doors == (Door(a=(7, 4), b=(7, 5), open=False),)
    engine.apply(act.StartCombat(face=5))  # the Party acts first
    engine.apply(act.BeginTurn("ana"))
    with pytest.raises(RulesError):  # the closed door and the walls close the room
        engine.apply(act.Move("ana", to=(8, 4)))
    assert engine.encounter.tokens["ana"].cell == (4, 4)
    assert not sight.sees(grid_map, (4, 4), 1, (10, 4), 1)
    assert "door" in (sight.blocker(grid_map, (4, 4), 1, (10, 4), 1) or "")
    assert not sight.sees(grid_map, (4, 2), 1, (10, 2), 1)  # through the east wall
    engine.apply(act.SetDoor((7, 4), (7, 5), True))
    assert sight.sees(engine.encounter.map, (4, 4), 1, (10, 4), 1)
    engine.apply(act.Move("ana", to=(8, 4)))  # out through the open door
    assert engine.encounter.tokens["ana"].cell == (8, 4)


# -- refusals -----------------------------------------------------------------------------------


def refused(data: str | bytes, match: str, name: str = "bad.dd2vtt") -> None:
    with pytest.raises(MapFileError, match=match) as caught:
        read_uvtt(data, name)
    assert isinstance(caught.value, RulesError)
    assert str(caught.value).startswith(name)


def with_(change: dict[str, Any], base: dict[str, Any] | None = None) -> str:
    doc = base or document(0.3, walls=[ROOM])
    for path, value in change.items():
        target = doc
        *parents, last = path.split(".")
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if value is ...:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return json.dumps(doc)


def test_not_json_is_refused() -> None:
    refused("this is not a map", r"bad.dd2vtt is not a Universal VTT map: not JSON \(Expecting value at line 1")
    refused('{"format": 0.3, "resolution": ', r"not JSON")
    refused(b"\xff\xfe\x00{", r"not a text file \(not UTF-8 at byte 0\)")


def test_foreign_json_is_refused() -> None:
    refused("[1, 2, 3]", r"is not a Universal VTT map: it holds a JSON array, not an object")
    refused('{"name": "a shopping list"}', r'is not a Universal VTT map: it has no "resolution"')
    refused(
        '{"format": "lnl-encounter", "version": 3, "encounter": {}}',
        r"it is a Laurels & Loot encounter \(open it with File ▸ Open\)",
    )
    refused('{"format": "geojson", "resolution": {}}', r'"format" must be a version number like 0.3, got "geojson"')
    refused('{"resolution": [1, 2]}', r'"resolution" must be an object, got array')


def test_a_missing_or_bad_size_is_refused() -> None:
    refused(with_({"resolution.map_size": ...}), r"resolution.map_size must be a point \{x, y\}, got nothing")
    refused(with_({"resolution.map_size.x": -12}), r"resolution.map_size must be positive, got -12 x 8")
    refused(with_({"resolution.map_size.y": 0}), r"resolution.map_size must be positive, got 12 x 0")
    refused(with_({"resolution.map_size.x": "12"}), r'resolution.map_size.x must be a number, got string "12"')
    refused(with_({"resolution.pixels_per_grid": 0}), r"pixels_per_grid must be above 1 and at most 2000, got 0")
    refused(with_({"resolution.pixels_per_grid": ...}), r"pixels_per_grid must be a number, got nothing")
    refused(with_({"resolution.map_origin": 3}), r"resolution.map_origin must be a point \{x, y\}, got number")


def test_a_map_larger_than_the_model_allows_is_refused() -> None:
    refused(
        with_({"resolution.map_size.x": 1000.5, "image": ""}),
        r"bad.dd2vtt: the map is 1001 x 8 cells; a map has at most 1000 cells a side",
    )
    # 1000 cells fit, also when the origin's fraction is counted.
    assert read_uvtt(with_({"resolution.map_size.x": 1000, "image": ""}), "big.uvtt").width == 1000


def test_a_bad_point_is_refused_with_its_place() -> None:
    refused(with_({"line_of_sight.0.2.x": "seven"}), r'line_of_sight\[0\]\[2\].x must be a number, got string "seven"')
    refused(with_({"line_of_sight.0.2.y": True}), r"line_of_sight\[0\]\[2\].y must be a number, got true/false true")
    refused(with_({"line_of_sight.0.2": [7, 3]}), r"line_of_sight\[0\]\[2\] must be a point \{x, y\}, got array")
    refused(with_({"line_of_sight.0": {"x": 1}}), r"line_of_sight\[0\] must be a list of points, got object")
    refused(with_({"objects_line_of_sight": "none"}), r"objects_line_of_sight must be a list of lines, got string")
    refused(with_({"line_of_sight.0.2.x": 1e300}), r"line_of_sight\[0\]\[2\].x is out of range")
    refused(with_({"line_of_sight.0.2.x": 1}).replace('"x": 1,', '"x": NaN,', 1), r"NaN is not a number JSON allows")


def test_a_bad_portal_is_refused() -> None:
    base = document(0.3, portals=[portal((7, 3.5), (7, 4.5), closed=True)])
    refused(with_({"portals.0.bounds": pts((7, 3.5))}, base), r"portals\[0\].bounds must hold the door's two ends")
    base = document(0.3, portals=[portal((7, 3.5), (7, 4.5), closed=True)])
    refused(with_({"portals.0.closed": "yes"}, base), r'portals\[0\].closed must be true or false, got "yes"')
    refused(with_({"portals": {"a": 1}}), r"portals must be a list, got object")


def test_a_bad_picture_is_refused() -> None:
    refused(with_({"image": "not base64 at all!"}), r"is not a Universal VTT map: image is not base64")
    refused(with_({"image": 42}), r"image must be the picture as base64 text, got number")
    refused(
        with_({"image": base64.b64encode(b"GIF89a and so on").decode()}),
        r"bad.dd2vtt: the picture is not a PNG, JPEG or WEBP image",
    )
    damaged = png(4, 4)[:12] + b"XXXX" + png(4, 4)[16:]
    refused(with_({"image": base64.b64encode(damaged).decode()}), r"the picture's PNG header is damaged")
    refused(
        with_({"image": base64.b64encode(png_header(20000, 20000)).decode()}),
        r"bad.dd2vtt: the picture is 20000 x 20000 pixels; at most 268 million pixels can be read",
    )


def test_a_file_over_the_size_limit_is_refused_before_it_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uvtt, "MAX_FILE_BYTES", 2**20)
    refused(with_({"comment": "x" * 2**20}), r"bad.dd2vtt is over 1 MB; a map file is read up to that size")


def test_map_file_names_are_known_by_suffix() -> None:
    assert all(uvtt.is_map_name(n) for n in ("a.dd2vtt", "B.UVTT", "c.d.df2vtt"))
    assert not any(uvtt.is_map_name(n) for n in ("a.lnl", "a.json", "uvtt", "a.png"))


# -- lights ----------------------------------------------------------------------------------------


def lit(*lights: dict[str, Any], origin: tuple[float, float] = (0, 0)) -> dict[str, Any]:
    doc = document(0.3, origin=origin)
    doc["lights"] = list(lights)
    return doc


def light(x: float, y: float, reach: float, color: str = "ffeccd8b", intensity: float = 1.0) -> dict[str, Any]:
    return {"position": {"x": x, "y": y}, "range": reach, "intensity": intensity, "color": color, "shadows": True}


def test_a_files_lights_become_light_sources_with_their_colour_in_one_step_undo_takes_back() -> None:
    doc = lit(
        light(5.5, 4.5, 4),  # a brazier: 4 cells of light, 20 ft on a 5 ft grid
        light(10.2, 2.7, 12, color="ff3355ff"),  # a glowing pool: 60 ft
        light(40, 40, 4),  # off the map
        light(2, 2, 3, intensity=0),  # turned off in the maker
        origin=(1, 0),  # the file's grid starts a cell right of the picture: its x 5.5 is cell 4
    )
    imported = read_uvtt(text(doc), "crypt.dd2vtt")
    assert imported.summary == (
        "Imported crypt.dd2vtt: 12 x 8 cells, 0 walls, 0 doors, 2 lights; 1 light outside the map left off; "
        "1 light turned off (no range or intensity) left off"
    )
    ana = Combatant(id="ana", name="Ana", side=Side.PARTY, level=3, stamina_max=20, injury_max=10)
    encounter = Encounter(
        map=MapGrid(width=20, height=15), combatants=[ana], tokens={"ana": Token(cell=(1, 1))}, lights=()
    )
    engine = Engine(encounter)
    engine.apply(act.PlaceLight("torch", cell=(18, 14)))  # on the old map: goes with it
    engine.apply(act.PlaceLight("lantern", carrier="ana"))  # carried: stays with Ana
    engine.apply(act.EditMap(imported.changes(imported.background(), engine.encounter.map.feet_per_cell)))
    lights = {x.id: x for x in engine.encounter.lights}
    assert set(lights) == {"lantern", "map-light-1", "map-light-2"}
    brazier, pool = lights["map-light-1"], lights["map-light-2"]
    assert (brazier.cell, brazier.radii, brazier.colour) == ((4, 4), (10, 10), "#eccd8b")
    assert (pool.cell, pool.radii, pool.colour) == ((9, 2), (30, 30), "#3355ff")
    assert engine.encounter.log[-1].text.endswith("2 lights")
    engine.undo()
    assert {x.id for x in engine.encounter.lights} == {"torch", "lantern"}


def test_a_light_reaching_past_120_ft_is_held_to_it_and_a_10_ft_grid_doubles_the_feet() -> None:
    imported = read_uvtt(text(lit(light(1, 1, 60), light(2, 2, 3))), "hall.dd2vtt")
    far, near = imported.light_sources(10)
    assert (far["bright_ft"], far["dim_ft"]) == (120, 120)
    assert (near["bright_ft"], near["dim_ft"]) == (15, 15)


def test_too_many_lights_or_a_light_that_is_no_light_is_refused_in_words() -> None:
    many = lit(*[light(1, 1, 2) for _ in range(501)])
    with pytest.raises(MapFileError, match="the map has 501 lights; a map holds at most 500 light sources"):
        read_uvtt(text(many), "fair.dd2vtt")
    bad = lit({"position": {"x": 1}, "range": 2})
    with pytest.raises(MapFileError, match=r"lights\[0\]\.position\.y must be a number"):
        read_uvtt(text(bad), "bad.dd2vtt")
    with pytest.raises(MapFileError, match="lights must be a list"):
        read_uvtt(text({**lit(), "lights": {"x": 1}}), "bad.dd2vtt")


def test_the_engine_refuses_more_lights_than_a_map_holds_and_changes_nothing() -> None:
    imported = read_uvtt(text(lit(*[light(1 + i % 10, 1 + i // 100, 2) for i in range(500)])), "fair.dd2vtt")
    ana = Combatant(id="ana", name="Ana", side=Side.PARTY, level=3, stamina_max=20, injury_max=10)
    engine = Engine(Encounter(map=MapGrid(width=20, height=15), combatants=[ana], tokens={"ana": Token(cell=(1, 1))}))
    engine.apply(act.PlaceLight("torch", carrier="ana"))
    old = engine.encounter.map
    with pytest.raises(RulesError, match="500 on the map and 1 carried; a map holds at most 500"):
        engine.apply(act.EditMap(imported.changes(imported.background())))
    assert engine.encounter.map is old and [x.id for x in engine.encounter.lights] == ["torch"]

"""Universal VTT maps: the ``.dd2vtt`` / ``.uvtt`` / ``.df2vtt`` files map makers export.

Dungeondraft, Dungeon Alchemist, DungeonFog, Arkenforge and others write one JSON object:

``format``
    0.2, 0.3 (some write 1.0); 0.2 has no ``objects_line_of_sight``.
``resolution``
    ``map_origin`` {x, y}: the grid point of the picture's top-left corner in the maker's own
    coordinates (not 0 when the map was cropped); ``map_size`` {x, y}: the picture in grid cells;
    ``pixels_per_grid``: the picture's pixels per cell.
``line_of_sight``, ``objects_line_of_sight``
    polylines ``[[{x, y}, ...], ...]`` in grid units, in the maker's coordinates.
``portals``
    doors and windows: ``bounds`` (the two ends), ``closed``, ``position``, ``rotation``...
``lights``
    ``position`` {x, y} in grid units, ``range`` (grid units: the light's whole reach),
    ``intensity`` (0 is a light turned off), ``color`` (ARGB hex, ``ffeccd8b``), ``shadows``. Each
    becomes a custom light source on its cell (RULES §15): bright light for the first half of its
    range, dim light for the second half (the proportions Foundry's importer gives them), its
    colour kept. At most :data:`MAX_LIGHTS`; a light off the map or turned off is left out, with a note.
``environment``
    not read: the ambient light is the GM's (Map ▸ Light).
``image``
    the picture, base64 PNG, JPEG or WEBP.

:func:`read_uvtt` turns one into an :class:`ImportedMap`: the :class:`MapGrid` fields to set, in
the table's cells ((0, 0) the map's top-left corner). The whole part of ``map_origin`` moves the
walls so the picture's corner is the map's corner, and the maker's grid lines stay on the map's;
a fractional part (a crop between grid lines) becomes the picture's offset. The picture is checked
(base64, a PNG, JPEG or WEBP header, a size that can be shown, bytes that reach the picture's end:
:mod:`lnl_desktop.core.files.pictures`) but not decoded: that, and turning WEBP into PNG or JPEG, is the
window's work. Anything wrong raises :class:`MapFileError` saying
where, and nothing is changed.

Limits (:mod:`lnl_desktop.core.encounter.model` states them): a map has at most :data:`MAX_SIDE` cells a
side and :data:`MAX_MAP_LINES` wall segments and doors together (after repeated and zero-length
lines are dropped), and its picture at most :data:`MAX_PICTURE_PIXELS` pixels; here, its walls and
doors measure at most :data:`MAX_WALL_CELLS` cells together (a line across the whole map costs
painting and sight in every cell it crosses). A file beyond one is refused with the limit named.
The walls are read in bulk with numpy, the same segments in the same order as reading them one by
one gives: a cave map of 100,000 segments takes about a second.
:func:`read_uvtt` tells its progress and stops when asked to, for a window's progress bar and its
Cancel.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from operator import itemgetter
from typing import Any, Literal

from pydantic import BaseModel

from lnl_desktop.core.encounter.light import MAX_LIGHT_FT, MAX_LIGHTS, LightKind, LightSource
from lnl_desktop.core.encounter.map_model import (
    MAX_MAP_LINES,
    MAX_MAP_SIDE,
    MAX_PICTURE_PIXELS,
    MAX_WALL_CELLS,
    Background,
    Door,
    WallSegment,
    checked_lines,
    gc_paused,
)
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files.pictures import ImageFormat, image_damage, image_kind, image_size
from lnl_desktop.lazy import lazy_module

np = lazy_module("numpy")  # a thread reading a map must find it loaded (see lnl_desktop.lazy)

SUFFIXES = (".dd2vtt", ".uvtt", ".df2vtt")
MAX_FILE_BYTES = 256 * 1024 * 1024  # a 16k x 16k PNG is about this much as base64


def _bound(model: type[BaseModel], field: str, kind: str) -> Any:
    """A field's limit as the model declares it (``Field(le=...)``), so the two cannot disagree."""
    return next(getattr(rule, kind) for rule in model.model_fields[field].metadata if hasattr(rule, kind))


MAX_SIDE: int = MAX_MAP_SIDE  # cells a side
MIN_CELL_PX: float = _bound(Background, "cell_px", "gt")
MAX_CELL_PX: float = _bound(Background, "cell_px", "le")
KNOWN_FORMATS = (0.1, 0.2, 0.3, 1.0)
DIGITS = 6  # the makers write 6 decimals; coordinates are rounded to that after moving
_EPS = 1e-6

Point = tuple[float, float]


@dataclass(frozen=True)
class MapLight:
    """A light of a map file on the table's grid: its cell, its reach in cells, its colour (#rrggbb)."""

    cell: tuple[int, int]
    range_cells: float
    colour: str | None = None

    def source(self, lid: str, feet_per_cell: int) -> LightSource:
        """The light source it becomes on a map of ``feet_per_cell``: bright light for half its range,
        dim light for the other half, each at most :data:`MAX_LIGHT_FT` (at least 1 ft of light)."""
        reach = max(1, round(self.range_cells * feet_per_cell))
        bright = min(MAX_LIGHT_FT, reach // 2)
        dim = min(MAX_LIGHT_FT, reach - reach // 2)
        return LightSource(
            id=lid, kind=LightKind.CUSTOM, cell=self.cell, bright_ft=bright, dim_ft=dim, colour=self.colour
        )


class MapFileError(RulesError):
    """A file that is not a Universal VTT map the table can use; nothing was changed."""


class ImportCancelled(Exception):
    """The reading was cancelled (``read_uvtt``'s ``cancelled()`` turned true); nothing was made."""


@dataclass(frozen=True)
class ImportedMap:
    """What a Universal VTT file gives the map: sizes in cells, walls, doors and the picture.

    ``offset_x``/``offset_y`` are :class:`Background`'s: picture pixels left of / above the map's
    corner (negative when a crop put the picture's corner inside the first cell).
    """

    name: str
    format: float | None
    width: int
    height: int
    segments: tuple[WallSegment, ...]
    doors: tuple[Door, ...]
    cell_px: float
    offset_x: float
    offset_y: float
    image_base64: str | None = field(repr=False)  # without whitespace or a data: prefix
    image_format: ImageFormat | None
    image_size: tuple[int, int] | None  # pixels, read from the picture's header
    object_walls: int = 0  # how many of the segments come from objects_line_of_sight
    notes: tuple[str, ...] = ()
    # The file's lights on the map; None when the file lists none (the map's placed lights then stay).
    lights: tuple[MapLight, ...] | None = None

    @property
    def summary(self) -> str:
        """One line for the status bar and the log: 'Imported cave.dd2vtt: 30 x 20 cells, 148 walls, 6 doors'."""
        text = (
            f"Imported {self.name}: {self.width} x {self.height} cells, "
            f"{_count(len(self.segments), 'wall')}, {_count(len(self.doors), 'door')}"
        )
        if self.object_walls:
            text += f" ({self.object_walls} of the walls around objects)"
        if self.lights:
            text += f", {_count(len(self.lights), 'light')}"
        if self.image_base64 is None:
            text += ", no picture"
        return "; ".join([text, *self.notes])

    @property
    def image_bytes(self) -> bytes | None:
        return None if self.image_base64 is None else _b64decode(self.image_base64)

    def picture_name(self, image_format: str | None = None) -> str:
        """The name the picture keeps in the encounter: the file's, with the picture's extension."""
        stem = self.name.rsplit(".", 1)[0] if "." in self.name.strip(".") else self.name
        extension = {"png": "png", "jpeg": "jpg", "webp": "webp"}.get(image_format or self.image_format or "", "png")
        return f"{stem or 'map'}.{extension}"

    def background(
        self,
        data: str | None = None,
        image_format: Literal["png", "jpeg"] | None = None,
        scale: float = 1.0,
        opacity: float = 1.0,
    ) -> Background | None:
        """The map's background: the embedded picture as it is (PNG or JPEG only), or ``data``
        (base64 of ``image_format``) made from it ``scale`` times its size (the cell size and the
        offsets follow). None when the file has no picture."""
        if self.image_base64 is None:
            return None
        if data is None:
            if self.image_format not in ("png", "jpeg"):
                raise MapFileError(
                    f"{self.name}: the picture is {self.image_format.upper() if self.image_format else 'unknown'}; "
                    "the map keeps PNG or JPEG, so it must be converted first"
                )
            data, image_format = self.image_base64, self.image_format
        if image_format not in ("png", "jpeg"):
            raise MapFileError(f"{self.name}: a background picture is PNG or JPEG, not {image_format}")
        if not scale > 0:
            raise MapFileError(f"{self.name}: the picture's scale must be above 0, got {scale}")
        try:
            return Background(
                image=self.picture_name(image_format),
                cell_px=self.cell_px * scale,
                offset_x=self.offset_x * scale,
                offset_y=self.offset_y * scale,
                opacity=opacity,
                data=data,
            )
        except ValueError as error:  # a cell of a pixel or less after scaling
            raise MapFileError(f"{self.name}: the picture cannot be lined up with the grid: {error}") from None

    def changes(self, background: Background | None, feet_per_cell: int = 5) -> dict[str, Any]:
        """The ``EditMap`` changes that make the encounter's map this one (plain JSON values, as
        the recovery journal writes them): the size, the walls and doors, no painted wall or
        difficult cells of the old map, and ``background``; when the file lists lights, they take
        the place of the lights placed on the old map (``lights``, measured on cells of ``feet_per_cell``)."""
        lights = {} if self.lights is None else {"lights": self.light_sources(feet_per_cell)}
        return {
            "width": self.width,
            "height": self.height,
            "walls": [],
            "difficult": [],
            "segments": list(self.lines_json[0]),
            "doors": list(self.lines_json[1]),
            "background": None if background is None else background.model_dump(mode="json"),
        } | lights

    def light_sources(self, feet_per_cell: int) -> list[dict[str, Any]]:
        """The file's lights as light sources (``model_dump(mode="json")``), ids ``map-light-1``..."""
        return [
            light.source(f"map-light-{i}", feet_per_cell).model_dump(mode="json", exclude_none=True)
            for i, light in enumerate(self.lights or (), start=1)
        ]

    @cached_property
    def lines_json(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The segments and the doors as ``model_dump(mode="json")`` gives them, made directly: a
        tenth of the time for a map file's 100,000 segments. Made once, by the thread reading the file."""
        with gc_paused():
            segments = [{"a": list(s.a), "b": list(s.b)} for s in self.segments]
            doors = [{"a": list(d.a), "b": list(d.b), "open": d.open} for d in self.doors]
        return segments, doors


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def is_map_name(name: str) -> bool:
    """Whether a file name has one of the Universal VTT suffixes."""
    return name.lower().endswith(SUFFIXES)


# -- reading ----------------------------------------------------------------------------------


def read_uvtt(
    data: str | bytes | bytearray | memoryview,
    name: str,
    *,
    objects: bool = True,
    progress: Callable[[float], None] = lambda _done: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> ImportedMap:
    """Read a Universal VTT file's text (or bytes) named ``name``, or raise :class:`MapFileError`.

    ``objects``: walls round objects (``objects_line_of_sight``, pillars and furniture) are walls
    too; False leaves them out. ``progress(done)`` is told how far the reading is (0 to 1) between
    its steps, and when ``cancelled()`` turns true there it stops with :class:`ImportCancelled`.
    A map over :data:`MAX_MAP_LINES` wall segments and doors, or whose walls and doors are over
    :data:`MAX_WALL_CELLS` cells long together, is refused, naming the limit.
    """
    with gc_paused():
        return _read(data, name, objects, progress, cancelled)


def _read(
    data: str | bytes | bytearray | memoryview,
    name: str,
    objects: bool,
    progress: Callable[[float], None],
    cancelled: Callable[[], bool],
) -> ImportedMap:
    foreign = f"{name} is not a Universal VTT map"

    def step(done: float) -> None:
        if cancelled():
            raise ImportCancelled(name)
        progress(done)

    step(0.0)
    document = _parse(data, name, foreign)
    step(0.3)
    if not isinstance(document, dict):
        raise MapFileError(f"{foreign}: it holds a JSON {_json_kind(document)}, not an object")
    if document.get("format") == "lnl-encounter":
        raise MapFileError(f"{foreign}: it is a Laurels & Loot encounter (open it with File ▸ Open)")
    version = _version(document.get("format"), foreign)
    resolution = document.get("resolution")
    if resolution is None:
        raise MapFileError(f'{foreign}: it has no "resolution" (the map\'s size and grid)')
    if not isinstance(resolution, dict):
        raise MapFileError(f'{foreign}: "resolution" must be an object, got {_json_kind(resolution)}')

    size = _point(resolution.get("map_size"), "resolution.map_size", foreign)
    if not (size[0] > 0 and size[1] > 0):
        raise MapFileError(f"{foreign}: resolution.map_size must be positive, got {size[0]:g} x {size[1]:g}")
    origin = (0.0, 0.0)
    if resolution.get("map_origin") is not None:
        origin = _point(resolution["map_origin"], "resolution.map_origin", foreign)
    ppg = _number(resolution.get("pixels_per_grid"), "resolution.pixels_per_grid", foreign)
    if not MIN_CELL_PX < ppg <= MAX_CELL_PX:
        raise MapFileError(
            f"{foreign}: resolution.pixels_per_grid must be above {MIN_CELL_PX:g} and at most {MAX_CELL_PX:g}, "
            f"got {ppg:g}"
        )

    # The whole cells of the origin move the walls; a fraction left over moves the picture.
    shift = (_whole(origin[0]), _whole(origin[1]))
    frac = (origin[0] - shift[0], origin[1] - shift[1])
    width = max(1, math.ceil(frac[0] + size[0] - _EPS))
    height = max(1, math.ceil(frac[1] + size[1] - _EPS))
    if width > MAX_SIDE or height > MAX_SIDE:
        raise MapFileError(f"{name}: the map is {width} x {height} cells; a map has at most {MAX_SIDE} cells a side")

    wall_lines = _polylines(document.get("line_of_sight"), "line_of_sight", foreign)
    object_lines = _polylines(document.get("objects_line_of_sight"), "objects_line_of_sight", foreign)
    portals = _portals(document.get("portals"), foreign)
    step(0.45)
    edges = _Edges(width, height, shift)
    door_ends, door_open = edges.doors(portals)
    walls = [wall_lines, object_lines] if objects else [wall_lines]
    wall_ends, object_walls = edges.walls(walls, door_ends)
    notes = edges.notes()
    if version is not None and version > max(KNOWN_FORMATS):
        notes.append(f"format {version:g} is newer than the ones known (up to {max(KNOWN_FORMATS):g}); read as 0.3")
    lines = len(wall_ends) + len(door_ends)
    if lines > MAX_MAP_LINES:
        counted = _count(len(wall_ends), "wall segment") + (
            f" and {_count(len(door_ends), 'door')}" if len(door_ends) else ""
        )
        raise MapFileError(
            f"{name}: the map has {counted}; the most a map may have is {MAX_MAP_LINES:,} wall segments and doors "
            "together"
        )
    length = _length(wall_ends) + _length(door_ends)
    if length > MAX_WALL_CELLS:
        raise MapFileError(
            f"{name}: its {lines:,} wall segments and doors measure {length:,.0f} cells together "
            f"({length / lines:,.1f} cells each on average); a map's walls and doors may measure at most "
            f"{MAX_WALL_CELLS:,} cells together"
        )
    step(0.55)

    lights, light_notes = _lights(document.get("lights"), foreign, name, width, height, shift)
    notes += light_notes
    image, image_format, image_size = _picture(document.get("image"), name, foreign)
    if image_size is not None:
        wanted = (round(size[0] * ppg), round(size[1] * ppg))
        if max(abs(image_size[0] - wanted[0]), abs(image_size[1] - wanted[1])) > max(2.0, ppg / 2):
            notes.append(
                f"the picture is {image_size[0]} x {image_size[1]} px where the grid needs "
                f"{wanted[0]} x {wanted[1]} px: check its alignment"
            )
    step(0.6)
    doors = checked_lines(*_point_lists(door_ends), door_open)
    segments: list[WallSegment] = []
    for start in range(0, len(wall_ends), _BUILD_CHUNK):  # a few steps for the progress bar and Cancel
        segments += checked_lines(*_point_lists(wall_ends[start : start + _BUILD_CHUNK]))
        step(0.6 + 0.4 * min(1.0, (start + _BUILD_CHUNK) / len(wall_ends)))
    return ImportedMap(
        name=name,
        format=version,
        width=width,
        height=height,
        segments=tuple(segments),
        doors=tuple(doors),  # type: ignore[arg-type]  # checked_lines with open makes doors
        cell_px=float(ppg),
        offset_x=_round(-frac[0] * ppg),
        offset_y=_round(-frac[1] * ppg),
        image_base64=image,
        image_format=image_format,
        image_size=image_size,
        object_walls=object_walls,
        notes=tuple(notes),
        lights=lights,
    )


_BUILD_CHUNK = 25_000  # segments made between two looks at Cancel


def _length(ends: Any) -> float:
    """The rows' lengths (ax, ay, bx, by) added up, in cells."""
    if len(ends) == 0:
        return 0.0
    return float(np.hypot(ends[:, 2] - ends[:, 0], ends[:, 3] - ends[:, 1]).sum())


class _NotAllowed(ValueError):
    pass


MAX_NUMBER_DIGITS = 20  # no map maker writes a longer whole number; Python refuses past 4,300


def _whole_number(token: str) -> int:
    if len(token.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _NotAllowed(f"a number longer than {MAX_NUMBER_DIGITS} digits ({len(token):,} digits: {token[:12]}…)")
    return int(token)


def _refuse_constant(token: str) -> Any:
    raise _NotAllowed(f"{token} is not a number JSON allows")


def _parse(data: str | bytes | bytearray | memoryview, name: str, foreign: str) -> Any:
    if len(data) > MAX_FILE_BYTES:
        raise MapFileError(f"{name} is over {MAX_FILE_BYTES // 2**20} MB; a map file is read up to that size")
    if isinstance(data, str):
        text = data
    else:
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise MapFileError(f"{foreign}: not a text file (not UTF-8 at byte {error.start})") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_int=_whole_number)
    except json.JSONDecodeError as error:
        raise MapFileError(f"{foreign}: not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    except _NotAllowed as error:
        raise MapFileError(f"{foreign}: {error}") from None
    except RecursionError:
        raise MapFileError(f"{foreign}: its JSON is nested too deep to read") from None
    except ValueError as error:  # not reached by any JSON seen; said in the file's terms all the same
        raise MapFileError(f"{foreign}: it could not be read as JSON ({type(error).__name__})") from None


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _number(value: Any, where: str, foreign: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        got = "nothing" if value is None else f"{_json_kind(value)} {_shown(value)}"
        raise MapFileError(f"{foreign}: {where} must be a number, got {got}")
    try:
        number = float(value)
    except OverflowError:  # a whole number of hundreds of digits
        number = math.inf
    if not math.isfinite(number) or abs(number) > MAX_COORDINATE:
        raise MapFileError(f"{foreign}: {where} is out of range ({_shown(value)})")
    return number


MAX_COORDINATE = 1e9  # a number in a map file beyond this is nonsense, not a far-away wall


def _shown(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, (dict, list)) else _json_kind(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _point(value: Any, where: str, foreign: str) -> Point:
    if not isinstance(value, dict):
        got = "nothing" if value is None else _json_kind(value)
        raise MapFileError(f"{foreign}: {where} must be a point {{x, y}}, got {got}")
    return _number(value.get("x"), f"{where}.x", foreign), _number(value.get("y"), f"{where}.y", foreign)


def _version(value: Any, foreign: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise MapFileError(f'{foreign}: "format" must be a version number like 0.3, got {_shown(value)}') from None
    number = _number(value, "format", foreign)
    if number <= 0:
        raise MapFileError(f'{foreign}: "format" must be a version number like 0.3, got {number:g}')
    return number


def _whole(value: float) -> int:
    """The whole cells in ``value``: its floor, or the integer it misses by a rounding error."""
    nearest = round(value)
    return int(nearest) if abs(value - nearest) < _EPS else math.floor(value)


def _round(value: float) -> float:
    value = round(value, DIGITS)
    return 0.0 if value == 0 else value  # no -0.0 in the file


def _rounded(values: Any) -> Any:
    """:func:`_round` of every number in an array, with the same results: ``round(v, 6)`` is the
    double nearest v's decimal digits rounded half to even, as ``rint(v * 1e6) / 1e6`` is too
    unless ``v * 1e6`` lands within a rounding error of a half; those few go through ``round``."""
    scaled = values * 10.0**DIGITS
    whole = np.rint(scaled)
    out = whole / 10.0**DIGITS + 0.0  # + 0.0: no -0.0
    doubtful = np.abs(np.abs(scaled - whole) - 0.5) <= 4 * np.spacing(np.abs(scaled))
    if doubtful.any():
        out[doubtful] = [_round(v) for v in values[doubtful].tolist()]
    return out


_X, _Y = itemgetter("x"), itemgetter("y")


class _Lines:
    """Polylines as arrays: ``xy`` every point (n x 2, in the file's order) and ``sizes`` each
    line's number of points."""

    def __init__(self, xy: Any, sizes: Any) -> None:
        self.xy, self.sizes = xy, sizes

    def segments(self) -> Any:
        """Each pair of neighbouring points of a line, as rows (ax, ay, bx, by)."""
        last = np.cumsum(self.sizes)[self.sizes > 0] - 1
        first = np.ones(len(self.xy), dtype=bool)
        first[last] = False  # a line's last point starts no segment
        starts = np.flatnonzero(first)
        return np.hstack([self.xy[starts], self.xy[starts + 1]])


def _polylines(value: Any, where: str, foreign: str) -> _Lines:
    if value is None:
        return _Lines(np.zeros((0, 2)), np.zeros(0, dtype=np.int64))
    if not isinstance(value, list):
        raise MapFileError(f"{foreign}: {where} must be a list of lines, got {_json_kind(value)}")
    # In bulk: lists of {x, y} objects of numbers in range. Anything else goes point by point, to
    # say where it is wrong.
    xy = None
    if set(map(type, value)) <= {list}:
        points = list(chain.from_iterable(value))
        if set(map(type, points)) <= {dict}:
            try:
                coordinates = [list(map(_X, points)), list(map(_Y, points))]
            except KeyError:
                coordinates = None
            if coordinates is not None and set(map(type, chain.from_iterable(coordinates))) <= {int, float}:
                try:
                    xy = np.array(coordinates, dtype=np.float64).reshape(2, len(points)).T
                except OverflowError:  # a whole number of hundreds of digits
                    xy = None
                if xy is not None and not (np.abs(xy) <= MAX_COORDINATE).all():  # NaN is not <=
                    xy = None
    if xy is None:
        checked = []
        for i, line in enumerate(value):  # says where the first thing wrong is
            if not isinstance(line, list):
                raise MapFileError(f"{foreign}: {where}[{i}] must be a list of points, got {_json_kind(line)}")
            checked += [_point(p, f"{where}[{i}][{j}]", foreign) for j, p in enumerate(line)]
        xy = np.array(checked, dtype=np.float64).reshape(-1, 2)
    return _Lines(xy, np.fromiter(map(len, value), dtype=np.int64, count=len(value)))


def _portals(value: Any, foreign: str) -> list[tuple[Point, Point, bool]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise MapFileError(f"{foreign}: portals must be a list, got {_json_kind(value)}")
    doors = []
    for i, portal in enumerate(value):
        where = f"portals[{i}]"
        if not isinstance(portal, dict):
            raise MapFileError(f"{foreign}: {where} must be an object, got {_json_kind(portal)}")
        bounds = portal.get("bounds")
        if not isinstance(bounds, list) or len(bounds) < 2:
            raise MapFileError(f"{foreign}: {where}.bounds must hold the door's two ends")
        ends = [_point(p, f"{where}.bounds[{j}]", foreign) for j, p in enumerate(bounds)]
        closed = portal.get("closed", True)
        if not isinstance(closed, bool):
            raise MapFileError(f"{foreign}: {where}.closed must be true or false, got {_shown(closed)}")
        # Two ends make a door; a maker that lists more gives them in pairs.
        doors.extend((ends[k], ends[k + 1], closed) for k in range(0, len(ends) - 1, 2))
    return doors


def _colour(value: Any) -> str | None:
    """A maker's colour as #rrggbb: ARGB hex (``ffeccd8b``) or RGB hex, with or without '#'; None
    when it is neither (the light still shines, uncoloured)."""
    if not isinstance(value, str):
        return None
    digits = value.strip().lstrip("#").lower()
    if len(digits) == 8:
        digits = digits[2:]
    return f"#{digits}" if re.fullmatch(r"[0-9a-f]{6}", digits) else None


def _lights(
    value: Any, foreign: str, name: str, width: int, height: int, shift: tuple[int, int]
) -> tuple[tuple[MapLight, ...] | None, list[str]]:
    """The file's lights on the table's cells, and notes on those left out; None when it lists none."""
    if value is None:
        return None, []
    if not isinstance(value, list):
        raise MapFileError(f"{foreign}: lights must be a list, got {_json_kind(value)}")
    if not value:
        return None, []
    if len(value) > MAX_LIGHTS:
        raise MapFileError(
            f"{name}: the map has {len(value):,} lights; a map holds at most {MAX_LIGHTS:,} light sources"
        )
    found: list[MapLight] = []
    off_map = off = 0
    for i, light in enumerate(value):
        where = f"lights[{i}]"
        if not isinstance(light, dict):
            raise MapFileError(f"{foreign}: {where} must be an object, got {_json_kind(light)}")
        x, y = _point(light.get("position"), f"{where}.position", foreign)
        reach = _number(light.get("range"), f"{where}.range", foreign)
        intensity = light.get("intensity", 1)
        intensity = 1 if intensity is None else _number(intensity, f"{where}.intensity", foreign)
        if reach <= 0 or intensity <= 0:
            off += 1
            continue
        cx, cy = math.floor(x - shift[0]), math.floor(y - shift[1])
        if not (0 <= cx < width and 0 <= cy < height):
            off_map += 1
            continue
        found.append(MapLight((cx, cy), reach, _colour(light.get("color"))))
    notes = []
    if off_map:
        notes.append(f"{_count(off_map, 'light')} outside the map left off")
    if off:
        notes.append(f"{_count(off, 'light')} turned off (no range or intensity) left off")
    return tuple(found), notes


class _Edges:
    """Moves lines into the map's cells and cuts them at its edges, counting what it cut or left
    off; all at once, with numpy (a cave map has a hundred thousand segments)."""

    def __init__(self, width: int, height: int, shift: tuple[int, int]) -> None:
        self.width, self.height, self.shift = width, height, shift
        self.dropped = {"wall": 0, "door": 0}
        self.cut = {"wall": 0, "door": 0}

    def _place(self, ends: Any, kind: str) -> Any:
        """Rows (ax, ay, bx, by) in the file's coordinates -> the map's, rounded to DIGITS and cut
        at its edges; a repeated point, a line wholly off the map or only touching its edge is left
        out. Returns the kept rows and their indexes in ``ends``."""
        ends = _rounded(ends - np.array(self.shift * 2, dtype=np.float64))
        moved = np.flatnonzero((ends[:, 0] != ends[:, 2]) | (ends[:, 1] != ends[:, 3]))  # not a point
        ends = ends[moved]
        clipped, inside = _clip(ends, self.width, self.height)
        self.dropped[kind] += int((~inside).sum())
        self.cut[kind] += int((inside & (clipped != ends).any(axis=1)).sum())
        kept = inside & ((clipped[:, 0] != clipped[:, 2]) | (clipped[:, 1] != clipped[:, 3]))  # not only touching
        return clipped[kept], moved[kept]

    def doors(self, portals: list[tuple[Point, Point, bool]]) -> tuple[Any, list[bool]]:
        """The doors' ends (rows ax, ay, bx, by) and whether each is open; the same door twice once."""
        ends = np.array([(*p, *q) for p, q, _closed in portals], dtype=np.float64).reshape(-1, 4)
        placed, index = self._place(ends, "door")
        first = _first_of_each(_keys(placed))
        return placed[first], [not portals[i][2] for i in index[first].tolist()]

    def walls(self, parts: list[_Lines], doors: Any) -> tuple[Any, int]:
        """The segments of the lines of ``parts``, in order; the same segment twice (outlines
        sharing an edge) once, and none where a door is (a wall under a door would keep it shut).
        Also how many of them came from the parts after the first (the walls round objects)."""
        placed = [self._place(part.segments(), "wall")[0] for part in parts]
        ends = np.vstack([doors, *placed])
        first = _first_of_each(_keys(ends))
        kept = first[first >= len(doors)] - len(doors)  # a wall where a door is is not a first
        walls = ends[len(doors) :][kept]
        return walls, int((kept >= len(placed[0])).sum())

    def notes(self) -> list[str]:
        notes = []
        for kind in ("wall", "door"):
            if self.dropped[kind]:
                notes.append(f"{_count(self.dropped[kind], kind)} outside the map left off")
            if self.cut[kind]:
                notes.append(f"{_count(self.cut[kind], kind)} cut at the map's edge")
        return notes


def _keys(ends: Any) -> Any:
    """Each row's ends in order (the smaller point first, as tuples compare), so a line and the
    same line drawn the other way round have one key."""
    a, b = ends[:, :2], ends[:, 2:]
    swap = (a[:, 0] > b[:, 0]) | ((a[:, 0] == b[:, 0]) & (a[:, 1] > b[:, 1]))
    return np.where(swap[:, None], np.hstack([b, a]), ends)


def _first_of_each(keys: Any) -> Any:
    """The indexes of the rows of ``keys`` not equal to an earlier row, in order."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(keys.T[::-1])  # stable: equal rows stay in file order, the first one first
    rows = keys[order]
    first = np.ones(len(keys), dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    return np.sort(order[first])


def _clip(ends: Any, width: float, height: float) -> tuple[Any, Any]:
    """Each row's part inside [0, width] x [0, height] (Liang-Barsky), and whether it has one;
    the same arithmetic, step for step, as clipping one line at a time."""
    ax, ay, bx, by = ends.T
    dx, dy = bx - ax, by - ay
    t0, t1 = np.zeros(len(ends)), np.ones(len(ends))
    inside = np.ones(len(ends), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, ax), (dx, width - ax), (-dy, ay), (dy, height - ay)):
            inside &= ~((p == 0) & (q < 0))  # parallel to this edge and beyond it
            t = q / p
            t0 = np.where(p < 0, np.maximum(t0, t), t0)
            t1 = np.where(p > 0, np.minimum(t1, t), t1)
    inside &= t0 <= t1

    def at(t: Any) -> Any:
        x = np.minimum(np.maximum(_rounded(ax + t * dx), 0.0), float(width))
        y = np.minimum(np.maximum(_rounded(ay + t * dy), 0.0), float(height))
        return np.stack([x, y], axis=1)

    start = np.where((t0 == 0.0)[:, None], ends[:, :2], at(t0))
    end = np.where((t1 == 1.0)[:, None], ends[:, 2:], at(t1))
    return np.hstack([start, end]), inside


def _point_lists(ends: Any) -> tuple[list[Point], list[Point]]:
    rows = ends.tolist()
    return [(r[0], r[1]) for r in rows], [(r[2], r[3]) for r in rows]


# -- the picture ------------------------------------------------------------------------------

_DATA_URI = re.compile(r"^data:image/[\w.+-]+;base64,", re.IGNORECASE)
_B64_CHUNK = 4 * 2**20  # characters, a multiple of 4


def _b64decode(text: str) -> bytes:
    """Strict base64 (only its alphabet, padding at the end), decoded a few MB at a time so a
    window thread waiting on this one gets its turn between the pieces."""
    return b"".join(base64.b64decode(text[i : i + _B64_CHUNK], validate=True) for i in range(0, len(text), _B64_CHUNK))


def _picture(value: Any, name: str, foreign: str) -> tuple[str | None, ImageFormat | None, tuple[int, int] | None]:
    if value is None or value == "":
        return None, None, None
    if not isinstance(value, str):
        raise MapFileError(f"{foreign}: image must be the picture as base64 text, got {_json_kind(value)}")
    text = value.strip()
    if text[:5].lower() == "data:":
        text = _DATA_URI.sub("", text, count=1)
    try:
        raw = _b64decode(text)
    except (binascii.Error, ValueError):
        text = "".join(text.split())  # some writers wrap base64 in lines
        try:
            raw = _b64decode(text)
        except (binascii.Error, ValueError) as error:
            raise MapFileError(f"{foreign}: image is not base64 ({error})") from None
    kind = image_kind(raw)
    if kind is None:
        raise MapFileError(f"{name}: the picture is not a PNG, JPEG or WEBP image")
    size = image_size(raw, kind)
    if size is None:
        raise MapFileError(f"{name}: the picture's {kind.upper()} header is damaged (its size cannot be read)")
    w, h = size
    if w * h > MAX_PICTURE_PIXELS:
        raise MapFileError(
            f"{name}: the picture is {w} x {h} pixels; at most {MAX_PICTURE_PIXELS // 10**6} million pixels can be read"
        )
    damage = image_damage(raw, kind)
    if damage is not None:
        raise MapFileError(f"{name}: the picture could not be decoded ({damage})")
    return text, kind, size

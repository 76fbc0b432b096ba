"""The encounter's map: the grid and its walls, wall segments and doors, the background picture,
the tokens on it and the fog of war, with the limits of a map the table can hold.

Pydantic v2 models, immutable where a map is (an edit replaces it). Big maps' lines are checked in
bulk with numpy (:func:`lines_from_json`); the first window of a small map never loads it.
The combatants, the combat state and the encounter that holds them all are :mod:`.model`'s.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from itertools import chain
from operator import itemgetter
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, field_serializer, model_validator
from pydantic_core import core_schema

from lnl_desktop.core.map.grid import Cell, DiagonalRule
from lnl_desktop.core.map.terrain import Terrain, map_terrain
from lnl_desktop.lazy import lazy_module, loaded

np = lazy_module("numpy")  # only big maps use it, and the first window must not wait for it


class Token(BaseModel):
    """A combatant's place on the map: its anchor (top-left) cell and facing in degrees."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    cell: tuple[Annotated[int, Field(ge=0)], Annotated[int, Field(ge=0)]]
    facing: int = Field(default=0, ge=0, lt=360, description="0 = north (up), clockwise")
    hidden: bool = Field(default=False, description="hidden from the players' view (the GM still sees it)")


class Background(BaseModel):
    """A picture under the grid (a downloaded battle map), lined up with the grid by scale and offset."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    image: str = Field(
        min_length=1,
        description=(
            "PNG or JPEG: a name when the picture is kept in the file (data); else a path relative to the "
            ".lnl file, in its folder or a folder under it"
        ),
    )
    cell_px: float = Field(default=64, gt=1, le=2000, description="image pixels per grid cell")
    offset_x: float = Field(default=0, ge=-100_000, le=100_000, description="image pixels left of the grid's origin")
    offset_y: float = Field(default=0, ge=-100_000, le=100_000, description="image pixels above the grid's origin")
    opacity: float = Field(default=1.0, ge=0.05, le=1.0)
    data: str | None = Field(
        default=None,
        description="the picture itself, base64 PNG/JPEG, kept inside the file (an imported map); "
        "when set, image is only its name",
    )


Point = tuple[float, float]  # a point on the map in cells: (0, 0) the top-left corner, (1, 1) a cell's far corner

# -- limits of a map: what the table can hold and still draw, search and save in good time ---------
# An imported map file (core.uvtt) and an encounter file (core.storage) beyond one is refused with
# the limit named, before anything changes.
MAX_MAP_SIDE = 1000  # cells a side
MAX_MAP_CELLS = MAX_MAP_SIDE * MAX_MAP_SIDE  # width x height
# Wall segments and doors together. Cave maps from Dungeon Alchemist or DungeonFog bring tens of
# thousands of one-cell segments; a 300 x 300 map walled on every cell edge has 180,600.
MAX_MAP_LINES = 200_000
MAX_PICTURE_PIXELS = 16384 * 16384  # a map picture: decoding takes 4 bytes a pixel, 1 GB at this size
# From this many segments (or doors) a map's lines are checked in bulk with numpy once it is loaded,
# and from COLD_BULK_LINES even when it must be loaded first (a tenth of a second): the first
# window of a map with a few thousand walls must not wait for numpy.
BULK_LINES = 512
COLD_BULK_LINES = 20_000
# The party's start cells (RULES §16): one a character, far past any party.
MAX_START_CELLS = 500


def in_bulk(lines: int) -> bool:
    """Whether ``lines`` segments (or doors) are checked in bulk, with numpy."""
    return lines >= COLD_BULK_LINES or (lines >= BULK_LINES and loaded("numpy"))


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


class WallSegment(BaseModel):
    """A wall drawn as a line (from a map maker's file, or by the GM between cell corners).

    It blocks a step between two cells when it crosses the line between their centres, and it
    blocks sight along any line it crosses. Points are in cells, so a corner is a whole number."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    a: tuple[float, float]
    b: tuple[float, float]

    @model_validator(mode="after")
    def _not_a_point(self) -> WallSegment:
        if self.a == self.b:
            raise ValueError(f"a wall needs two different ends, both are {self.a}")
        return self


class Door(WallSegment):
    """A wall segment that opens: closed it blocks movement and sight like a wall, open nothing."""

    open: bool = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a map's hundred thousand lines are read and made: each
    pass would walk all the dicts, lists and models made so far, and frozen lines make no cycles.
    Halves the time to read a big map file or encounter; the collector is back on afterwards."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


_new = object.__new__
_set = object.__setattr__
# The set of fields each line was given: one set shared by all, as the lines are frozen and
# pydantic copies the set before changing it (model_copy); 200,000 sets of their own would be 40 MB.
_GIVEN_AB: set[str] = {"a", "b"}
_GIVEN_ALL: set[str] = {"a", "b", "open"}


def checked_lines(
    a: list[Point], b: list[Point], open: list[bool] | None = None, open_given: list[bool] | None = None
) -> list[WallSegment] | list[Door]:
    """Wall segments from ``a[i]`` to ``b[i]`` (doors when ``open`` is given; ``open_given`` says
    which were given it rather than defaulted), for ends already checked: float pairs, none a
    point. What ``model_construct`` does, without its per-call look at every field: 100,000
    segments take a tenth of a second rather than a second of validation."""
    if open is None:
        segments = []
        for ends in zip(a, b, strict=True):
            segment = _new(WallSegment)
            _set(segment, "__dict__", {"a": ends[0], "b": ends[1]})
            _set(segment, "__pydantic_fields_set__", _GIVEN_AB)
            _set(segment, "__pydantic_extra__", None)
            _set(segment, "__pydantic_private__", None)
            segments.append(segment)
        return segments
    doors = []
    for p, q, is_open, given in zip(a, b, open, open_given or [True] * len(open), strict=True):
        door = _new(Door)
        _set(door, "__dict__", {"a": p, "b": q, "open": is_open})
        _set(door, "__pydantic_fields_set__", _GIVEN_ALL if given else _GIVEN_AB)
        _set(door, "__pydantic_extra__", None)
        _set(door, "__pydantic_private__", None)
        doors.append(door)
    return doors


_A, _B = itemgetter("a"), itemgetter("b")
_SEGMENT_KEYS = frozenset({frozenset({"a", "b"})})
_DOOR_KEYS = frozenset({frozenset({"a", "b"}), frozenset({"a", "b", "open"})})


def lines_from_json(items: list[Any] | tuple[Any, ...], doors: bool) -> list[WallSegment] | list[Door] | None:
    """Many segments (or doors) as JSON gives them ({"a": [x, y], "b": [x, y]}), checked in bulk
    with numpy as strict validation would check them one by one, or None for anything else (a wrong
    type, an unknown key, a segment that is a point...): the models' own validation then reads them
    and says what is wrong. Whether the points are on the map is the map's check."""
    if set(map(type, items)) != {dict} or not set(map(frozenset, items)) <= (_DOOR_KEYS if doors else _SEGMENT_KEYS):
        return None
    ends = [list(map(_A, items)), list(map(_B, items))]
    for points in ends:
        # Only what strict and lax validation both take as it is: [x, y] or (x, y) of int or float.
        if not set(map(type, points)) <= {list, tuple} or set(map(len, points)) != {2}:
            return None
        if not set(map(type, chain.from_iterable(points))) <= {int, float}:
            return None
    try:
        xy = np.array(ends, dtype=np.float64)  # (2, n, 2): the a and b ends
    except OverflowError:  # an int too big for a float
        return None
    if not np.isfinite(xy).all() or ((xy[0] == xy[1]).all(axis=1)).any():
        return None
    opened: list[bool] | None = None
    given: list[bool] | None = None
    if doors:
        given = ["open" in item for item in items]
        opened = [item.get("open", False) for item in items]
        if not set(map(type, opened)) <= {bool}:
            return None
    if set(map(type, chain.from_iterable(chain.from_iterable(ends)))) == {float}:
        a, b = (list(map(tuple, points)) for points in ends)  # the very floats, as validation keeps them
    else:
        a, b = (list(map(tuple, end.tolist())) for end in xy)  # whole numbers made floats
    return checked_lines(a, b, opened, given)


class _InBulk:
    """``Annotated`` metadata for a map's segments or doors: given from Python (an ``EditMap``'s
    JSON values, a model_dump), many are checked in bulk by :func:`lines_from_json`, and anything
    it does not take goes through the models' own validation. JSON input (an encounter file) is
    always validated the usual way, strictly; :mod:`storage` checks big maps there in bulk itself.
    The file's JSON Schema is the usual one. (Strict Python-mode validation, which the program does
    not use, would refuse lists where the bulk check takes them.)"""

    def __init__(self, doors: bool) -> None:
        self.doors = doors

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        usual = handler(source)

        def lines(value: Any, validate: core_schema.ValidatorFunctionWrapHandler) -> Any:
            if isinstance(value, list | tuple) and in_bulk(len(value)):
                with gc_paused():
                    checked = lines_from_json(value, self.doors)
                if checked is not None:
                    return tuple(checked)
            return validate(value)

        return core_schema.json_or_python_schema(
            json_schema=usual, python_schema=core_schema.no_info_wrap_validator_function(lines, usual)
        )


def too_many_lines(segments: int, doors: int) -> str:
    """What is wrong with a map of ``segments`` wall segments and ``doors`` doors ("segments: the map
    has ...; the most a map may have is ..."), or "" if they are within :data:`MAX_MAP_LINES`."""
    if segments + doors <= MAX_MAP_LINES:
        return ""
    lines = _count(segments, "wall segment") + (f" and {_count(doors, 'door')}" if doors else "")
    return (
        f"{'segments' if segments else 'doors'}: the map has {lines}; the most a map may have is "
        f"{MAX_MAP_LINES:,} wall segments and doors together"
    )


# The walls' and doors' length together, in cells: what painting them and sight through them cost
# grows with (every cell a line crosses is a cell to stroke and a cell whose blockers it joins).
# A dungeon of 100,000 short walls on a 1000 x 1000 map measures about 700,000 cells; 20,000 lines
# drawn across a whole 100 x 100 map would measure this much, and cover every cell with walls.
MAX_WALL_CELLS = 1_000_000


def wall_length(lines: tuple[WallSegment, ...]) -> float:
    """The lines' lengths added up, in cells (in bulk for many, once numpy is loaded: a map of a few
    thousand walls opens without it)."""
    if not (in_bulk(len(lines)) and loaded("numpy")):
        return sum(math.hypot(line.b[0] - line.a[0], line.b[1] - line.a[1]) for line in lines)
    xy = np.fromiter(chain.from_iterable(chain(line.a, line.b) for line in lines), np.float64, 4 * len(lines))
    return float(np.hypot(xy[2::4] - xy[0::4], xy[3::4] - xy[1::4]).sum())


def too_long_walls(segments: tuple[WallSegment, ...], doors: tuple[WallSegment, ...]) -> str:
    """What is wrong with walls and doors longer together than :data:`MAX_WALL_CELLS`, or ""."""
    length = wall_length(segments) + wall_length(doors)
    if length <= MAX_WALL_CELLS:
        return ""
    return (
        f"{'segments' if segments else 'doors'}: the map's {len(segments) + len(doors):,} wall segments and doors "
        f"measure {length:,.0f} cells together; they may measure at most {MAX_WALL_CELLS:,} cells together"
    )


def _off_map(lines: tuple[WallSegment, ...], width: int, height: int) -> bool:
    """Whether any end of ``lines`` is off a ``width`` x ``height`` map (or not a number), in bulk."""
    xy = np.fromiter(chain.from_iterable(chain(line.a, line.b) for line in lines), np.float64, 4 * len(lines))
    x, y = xy[0::2], xy[1::2]
    return not bool(((x >= 0) & (x <= width) & (y >= 0) & (y <= height)).all())


def _line_on(line: Any, width: int, height: int) -> bool:
    """Whether a wall or door (a model or its JSON) lies on a map of this size; a malformed one is
    kept, for the map's validation to say what is wrong with it."""
    try:
        ends = (line["a"], line["b"]) if isinstance(line, Mapping) else (line.a, line.b)
        return all(0 <= x <= width and 0 <= y <= height for x, y in ends)
    except (AttributeError, KeyError, TypeError, ValueError):
        return True


def _lines_on(lines: list[Any] | tuple[Any, ...], width: int, height: int, doors: bool) -> list[Any] | tuple[Any, ...]:
    """The walls (or doors) of ``lines`` on a ``width`` x ``height`` map, as :func:`_line_on` keeps
    them. Many are read into models first (:func:`lines_from_json`, which the map's validation would
    run anyway) and tested at once with numpy; JSON that does not read so is tested one by one."""
    models: list[Any] | tuple[Any, ...] | None = None
    if in_bulk(len(lines)):
        if set(map(type, lines)) == {Door if doors else WallSegment}:
            models = lines  # a map's own: float ends, checked
        else:
            with gc_paused():
                models = lines_from_json(lines, doors)
    if models is None:
        return [line for line in lines if _line_on(line, width, height)]
    xy = np.fromiter(chain.from_iterable(chain(line.a, line.b) for line in models), np.float64, 4 * len(models))
    x, y = xy[0::2].reshape(-1, 2), xy[1::2].reshape(-1, 2)
    on = ((x >= 0) & (x <= width) & (y >= 0) & (y <= height)).all(axis=1)
    if on.all():
        return tuple(models)
    return tuple(models[i] for i in np.flatnonzero(on).tolist())


class MapGrid(BaseModel):
    """The battle map: a square grid with walls (filled cells and drawn segments), doors and
    difficult terrain. Immutable: edits replace it."""

    # (The docstring is the map's description in the file's JSON Schema.) Limits: MAX_MAP_SIDE
    # cells a side (MAX_MAP_CELLS cells) and MAX_MAP_LINES wall segments and doors together; a map
    # beyond one is refused with the limit named.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    width: int = Field(ge=1, le=MAX_MAP_SIDE)
    height: int = Field(ge=1, le=MAX_MAP_SIDE)
    feet_per_cell: int = Field(default=5, ge=1, le=100)
    diagonal: DiagonalRule = DiagonalRule.ALTERNATING
    walls: frozenset[Cell] = frozenset()
    difficult: frozenset[Cell] = frozenset()
    background: Background | None = None
    segments: Annotated[tuple[WallSegment, ...], _InBulk(doors=False)] = ()
    doors: Annotated[tuple[Door, ...], _InBulk(doors=True)] = ()
    # Where the party's characters are placed when the session brings them in, in (y, x) order.
    start_cells: frozenset[Cell] = Field(
        default=frozenset(), description="the party's start cells: where its characters are placed when brought in"
    )

    @model_validator(mode="after")
    def _cells_inside(self) -> MapGrid:
        problem = too_many_lines(len(self.segments), len(self.doors))
        if problem:
            raise ValueError(problem)
        if self.width * self.height > MAX_MAP_CELLS:
            raise ValueError(
                f"the map is {self.width} x {self.height} cells; the most a map may have is {MAX_MAP_CELLS:,} cells"
            )
        if len(self.start_cells) > MAX_START_CELLS:
            raise ValueError(
                f"start_cells: the map has {len(self.start_cells):,} party start cells; "
                f"the most a map may have is {MAX_START_CELLS:,}"
            )
        for name in ("walls", "difficult", "start_cells"):
            for x, y in getattr(self, name):
                if not (0 <= x < self.width and 0 <= y < self.height):
                    raise ValueError(f"{name}: cell ({x}, {y}) is outside the {self.width} x {self.height} map")
        if walled := self.start_cells & self.walls:
            x, y = min(walled)
            raise ValueError(f"start_cells: cell ({x}, {y}) is a wall; a party start cell is open floor")
        for name in ("segments", "doors"):
            lines = getattr(self, name)
            if in_bulk(len(lines)) and not _off_map(lines, self.width, self.height):
                continue  # all on the map; else the loop below finds the first one off it
            for index, line in enumerate(lines):
                for x, y in (line.a, line.b):
                    if not (0 <= x <= self.width and 0 <= y <= self.height):
                        raise ValueError(
                            f"{name}[{index}]: point ({x:g}, {y:g}) is outside the {self.width} x {self.height} map"
                        )
        problem = too_long_walls(self.segments, self.doors)
        if problem:
            raise ValueError(problem)
        return self

    @field_serializer("walls", "difficult", "start_cells")
    def _sorted(self, cells: frozenset[Cell]) -> list[Cell]:
        # Sorted so a saved file does not change when nothing changed.
        return sorted(cells)

    def edited(self, changes: Mapping[str, Any]) -> MapGrid:
        """This map with ``changes`` (field names to values as validation takes them: JSON or
        models), validated whole; ValidationError if that is no map. A smaller map drops the wall
        and difficult cells, party start cells, wall segments and doors that fall off it; new walls
        clear the start cells they cover (unless the changes give the start cells themselves).
        Changes nothing, so a worker thread may make the new map ahead (``EditMap.ahead``); the
        engine's ``EditMap`` uses it.

        The unchanged fields go in as this map's own values, not dumped to JSON and read again: a
        map's 100,000 segments are neither dumped nor checked a second time."""
        data: dict[str, Any] = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(changes)
        w, h = data["width"], data["height"]
        if isinstance(w, int) and isinstance(h, int):
            for name in ("walls", "difficult", "start_cells"):
                if name in changes or w < self.width or h < self.height:  # this map's own cells are on it
                    data[name] = [c for c in data[name] if c[0] < w and c[1] < h]
            if "walls" in changes and "start_cells" not in changes and data["start_cells"]:
                walls = {tuple(c) for c in data["walls"] if isinstance(c, list | tuple)}
                data["start_cells"] = [c for c in data["start_cells"] if tuple(c) not in walls]
            for name in ("segments", "doors"):
                if isinstance(data[name], list | tuple):
                    data[name] = _lines_on(data[name], w, h, doors=name == "doors")
        return MapGrid.model_validate(data)

    @property
    def terrain(self) -> Terrain:
        """The grid searches' view of the map: wall cells, difficult cells, and the wall segments
        and closed doors as barriers between cells. Built once per map (maps are immutable)."""
        return map_terrain(self)


class Fog(BaseModel):
    """Fog of war in the player view: the players see what some Party token sees now, and the
    cells explored before (or revealed by the GM) in a dimmer shade."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    enabled: bool = False
    explored: frozenset[Cell] = frozenset()

    @field_serializer("explored")
    def _sorted(self, cells: frozenset[Cell]) -> list[Cell]:
        return sorted(cells)

"""Encounter files (``.lnl``): versioned JSON, safe saving, clear messages for bad files.

A file is ``{"format": "lnl-encounter", "version": N, "encounter": {...}}``. Saving writes a
temporary file next to the target and renames it over, so a failed save never leaves half a
file. Loading refuses anything that is not valid and says where it is wrong; older versions
are migrated forward step by step.

A map over the limits :mod:`lnl_desktop.core.encounter.model` states (MAX_MAP_LINES wall segments and doors,
MAX_MAP_SIDE cells a side, a picture of MAX_PICTURE_PIXELS pixels) is refused with the limit named.
A map's many segments (a cave from a map maker, 100,000 of them) are checked in bulk with numpy,
giving the same encounter, or the same message, as checking them one by one.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import glob
import json
import math
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from enum import Enum
from itertools import accumulate, chain
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, NoReturn, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from lnl_desktop.core.encounter.areas import MAX_TEMPLATES
from lnl_desktop.core.encounter.drawings import MAX_DRAWINGS
from lnl_desktop.core.encounter.light import MAX_LIGHTS
from lnl_desktop.core.encounter.model import (
    MAX_PICTURE_PIXELS,
    Encounter,
    MapGrid,
    WallSegment,
    gc_paused,
    in_bulk,
    lines_from_json,
    too_long_walls,
    too_many_lines,
)
from lnl_desktop.core.encounter.validation import MAX_PROBLEMS, capped, field_path, problem_line, problem_lines
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.rules.registry import DEFAULT_RULESET, get_ruleset

FORMAT = "lnl-encounter"
VERSION = 3
SUFFIX = ".lnl"


def _v1_to_v2(document: dict[str, Any]) -> dict[str, Any]:
    """Version 1 knew one ruleset: every version-1 file is an encounter of the default ruleset, and now says so."""
    encounter = document.get("encounter")
    if isinstance(encounter, dict):
        encounter = dict(encounter)
        ruleset = encounter.setdefault("ruleset", DEFAULT_RULESET)
        if ruleset != DEFAULT_RULESET:
            raise EncounterFileError(f"a version 1 file holds L&L encounters only, not {ruleset!r}")
        document = {**document, "encounter": encounter, "version": 2}
    return document


# version -> function turning a document of that version into the next one.
def _v2_to_v3(document: dict[str, Any]) -> dict[str, Any]:
    """Version 3 added wall segments, doors, an embedded background picture, fog of war and
    portraits, all with defaults: a version-2 encounter reads as it is."""
    return document


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2, 2: _v2_to_v3}


class EncounterFileError(RulesError):
    """A file that could not be read as an encounter; the message says where and why."""


def to_document(encounter: Encounter) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "encounter": encounter.model_dump(mode="json")}


def dumps(encounter: Encounter) -> str:
    return json.dumps(to_document(encounter), indent=1, ensure_ascii=False)


# Limits a file must keep before it is parsed: anything past them is not an encounter the program
# wrote, and parsing it anyway would hang, eat the memory or blow the stack.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64  # an encounter nests about 8 deep (encounter.log[3].faces[0])
MAX_NUMBER_DIGITS = 20  # enough for any 64-bit whole number

_MB = 1024 * 1024
# A JSON string (escapes included); what is left once they are cut out is the structure. An
# unterminated string runs to the end of the text, so a match never fails and the scan stays
# linear (a failing match retried at every later quote would be quadratic); possessive
# quantifiers keep no backtracking state per escape.
_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\.?[^"\\]*+)*+(?:"|\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_LONG_DIGITS = re.compile(rf"\d{{{MAX_NUMBER_DIGITS + 1},}}")
# Digits as 9, anything else as a space: a run of too many digits is then a plain substring search,
# far quicker than the regex over the hundred thousand numbers of a big map's walls.
_DIGITS_AS_9 = bytes(ord("9") if 48 <= i <= 57 else ord(" ") for i in range(256))
_TOO_MANY_9S = b"9" * (MAX_NUMBER_DIGITS + 1)
_NOT_BRACKET_BYTES = bytes(i for i in range(256) if i not in b"[]{}")
# A number that could be too large for a float has an exponent of 3 digits or more (its digits are
# at most MAX_NUMBER_DIGITS); only then is each float checked as json.loads reads it.
_BIG_EXPONENT = re.compile(r"[eE]\+?\d{3}")
_DEPTH_STEP = tuple(1 if chr(i) in "[{" else -1 for i in range(128))


class _BadNumber(ValueError):
    """A number the file may not hold (raised from inside json.loads, turned into a message)."""


def _limit_text() -> str:
    return f"encounter files are limited to {MAX_FILE_BYTES // _MB} MB"


def _check_structure(text: str, source: str) -> bool:
    """Refuse deep nesting and over-long numbers before json.loads recurses or converts them;
    True if a float may be too large (a big exponent), so each must be checked as it is read.

    Strings are cut out first (they may hold brackets and digits freely); what remains is
    brackets, numbers, literals and punctuation, scanned at C speed.
    """
    structure = _JSON_STRING.sub('""', text)
    ascii = structure.encode("ascii") if structure.isascii() else None  # outside strings, anything else is not JSON
    if ascii is not None:
        brackets = ascii.translate(None, _NOT_BRACKET_BYTES)  # as the regex below, at memory speed
    else:
        brackets = _NOT_BRACKET.sub("", structure).encode("ascii")
    # Running depth: +1 per opener, -1 per closer; stop at the first level past the limit.
    if next(filter(MAX_DEPTH.__lt__, accumulate(map(_DEPTH_STEP.__getitem__, brackets))), None) is not None:
        raise EncounterFileError(f"{source} is nested more than {MAX_DEPTH} levels deep; an encounter file never is")
    long = None
    if ascii is None or _TOO_MANY_9S in ascii.translate(_DIGITS_AS_9):
        long = _LONG_DIGITS.search(structure)
    if long is not None:
        raise EncounterFileError(f"{source} has {_long_number_at(text)}; an encounter file never holds one")
    return _BIG_EXPONENT.search(structure) is not None


# A string, or a run of too many digits outside one: the first of the second kind is the long number.
_STRING_OR_LONG_DIGITS = re.compile(rf"{_JSON_STRING.pattern}|(\d{{{MAX_NUMBER_DIGITS + 1},}})", re.DOTALL)
_KEY_BEFORE = re.compile(r'"([^"\\]{1,60})"\s*:\s*[-+.\deE]*\Z')


def _long_number_at(text: str) -> str:
    """Where the first over-long number is, in words a person finds it by: 'a number longer than 20
    digits at line 4, column 13 ("version", 5,000 digits: 999999999999…)'."""
    found = next((m for m in _STRING_OR_LONG_DIGITS.finditer(text) if m.group(1)), None)
    if found is None:  # not reached: _check_structure saw one
        return f"a number longer than {MAX_NUMBER_DIGITS} digits"
    start = found.start(1)
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    key = _KEY_BEFORE.search(text, max(0, start - 200), start)
    digits = found.group(1)
    named = f'"{key.group(1)}", ' if key else ""
    return (
        f"a number longer than {MAX_NUMBER_DIGITS} digits at line {line}, column {column} "
        f"({named}{len(digits):,} digits: {digits[:12]}…)"
    )


def _parse_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _BadNumber(f"the number {token[:30]} is too large")
    return value


def _parse_constant(token: str) -> Any:
    raise _BadNumber(f"{token} is not a number JSON allows")


def loads(text: str, source: str = "file") -> Encounter:
    """Read an encounter from JSON text, or raise :class:`EncounterFileError` saying why.

    Hardened like :func:`load` (the recovery journal comes through here too): a leading BOM is
    dropped; oversized text, deep nesting, huge numbers, NaN and Infinity are refused before or
    while parsing; and the encounter is validated strictly, so ``true`` or ``"5"`` where a
    number belongs is an error rather than 1 or 5.
    """
    with gc_paused():  # a big map's lines: see gc_paused
        return _loads(text, source)


# A file's name as a refusal shows it: a name of 100,000 characters is not a message.
MAX_NAME_CHARS = 80


def short_name(name: str) -> str:
    """``name`` as a message shows it: at most MAX_NAME_CHARS characters, then "…"."""
    return name if len(name) <= MAX_NAME_CHARS else f"{name[:MAX_NAME_CHARS]}…"


def _loads(text: str, source: str) -> Encounter:
    source = short_name(source)
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_FILE_BYTES:  # characters: each is at least one byte
        raise EncounterFileError(f"{source} is over {MAX_FILE_BYTES // _MB} MB; {_limit_text()}")
    big_floats = _check_structure(text, source)
    try:
        document = json.loads(
            text,
            parse_float=_parse_float if big_floats else float,
            parse_constant=_parse_constant,
        )
    except json.JSONDecodeError as error:
        raise EncounterFileError(
            f"{source} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except _BadNumber as error:
        raise EncounterFileError(f"{source}: {error}") from None
    except (RecursionError, ValueError):  # a safety net behind _check_structure; Python's words help nobody
        raise EncounterFileError(
            f"{source} could not be read: it nests deeper than {MAX_DEPTH} levels or holds a number "
            f"longer than {MAX_NUMBER_DIGITS} digits"
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise EncounterFileError(f'{source} is not a Laurels & Loot encounter file (no "format": "{FORMAT}")')
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise EncounterFileError(f"{source}: version must be a whole number, got {version!r}")
    if version > VERSION:
        raise EncounterFileError(
            f"{source} was saved by a newer version of the program (file version {version}, "
            f"this program reads up to {VERSION})"
        )
    try:
        while version < VERSION:
            document = MIGRATIONS[version](document)
            version += 1
    except EncounterFileError as error:
        raise EncounterFileError(f"{source}: {error}") from None
    data = document.get("encounter")
    if not isinstance(data, dict):
        raise EncounterFileError(f'{source}: the "encounter" object is missing')
    name = data.get("ruleset")
    if not isinstance(name, str):
        raise EncounterFileError(f"{source}: encounter.ruleset: say which ruleset the encounter uses (got {name!r})")
    try:
        model = get_ruleset(name).encounter_model
    except RulesError as error:
        raise EncounterFileError(f"{source}: encounter.{error}") from None
    _refuse_too_many_lines(data, source)
    encounter = _validated(model, data, source)
    _refuse_huge_picture(encounter, source)
    return encounter


def _validated(model: type[Encounter], data: dict[str, Any], source: str) -> Encounter:
    """The encounter ``data`` holds, or EncounterFileError with its first problems and a count of the rest.

    Long lists and dicts at any depth (a log of 100,000 entries, a map's million explored cells, a
    combatant's 300,000 traits) are checked first, a slice at a time, so that a file whose every entry
    is wrong is refused in a second with a short message: validating it whole would make, hold and
    word 100,000 errors (seconds, gigabytes). A long log found good is kept rather than read a second time."""
    try:
        first, total, log, emptied = _long_lists_checked(model, data)
    except _TooMany as many:
        _refuse(source, [str(many)], 1)
    if total:
        rest = _rest_problems(model, data, emptied)
        _refuse(source, [*rest[1], *first], rest[0] + total)
    if log is not None:
        data = {**data, "log": []}
    try:
        encounter = _with_lines_aside(model, data, source)
    except ValidationError:
        encounter = None  # said below, as the whole encounter read the usual way says it
    if encounter is None:
        try:
            # Strict JSON-mode validation: no true for 1 or "5" for 5, while enums still come as their
            # values, tuples and sets as lists (what dumps writes). The ruleset's own model reads its stat blocks.
            encounter = model.model_validate_json(json.dumps(data), strict=True)
        except ValidationError as error:
            _refuse(source, problem_lines(error, "encounter", limit=MAX_PROBLEMS), error.error_count())
    if log is not None:
        encounter.log = log  # no check of the encounter reads its log
    return encounter


def _refuse(source: str, lines: list[str], total: int) -> NoReturn:
    problems = capped(lines, total)
    raise EncounterFileError(
        f"{source} has {total:,} problem{'s' if total != 1 else ''}:\n" + "\n".join(problems), problems
    )


# A list (or a dict) of more than LONG_LIST items, wherever it is in the encounter, is checked a slice of
# SLICE items at a time before the encounter is validated: the errors of one slice at most are held at once.
# A model's fields are far fewer: an object of more names than LONG_LIST is a long list of unknown names.
LONG_LIST = 256
SLICE = 1000

Path_ = tuple[str | int, ...]


def _long_lists(model: type[BaseModel], data: dict[str, Any]) -> list[_LongList]:
    """The long lists and dicts in ``data`` (read as ``model``) outside any other long list, each before
    the ones inside it, in the order of the models' fields: the models inside it (the map, a combatant, a
    short log's entries) searched too. What a long list's items hold is looked for as it is checked."""
    _refuse_past_limits(data)
    found: list[_LongList] = []
    _find_long(model, data, (), found)
    return found


def _refuse_past_limits(data: dict[str, Any]) -> None:
    """The encounter's own lists past what they may hold (drawings, templates, lights, explored cells
    beyond the map's), refused before a single item is read: their checks would read every item first."""
    for name, most in (("drawings", MAX_DRAWINGS), ("templates", MAX_TEMPLATES), ("lights", MAX_LIGHTS)):
        items = data.get(name)
        if isinstance(items, list) and len(items) > most:
            raise _TooMany((name,), len(items), most)
    fog, grid = data.get("fog"), data.get("map")
    explored = fog.get("explored") if isinstance(fog, dict) else None
    if isinstance(explored, list) and isinstance(grid, dict):
        width, height = grid.get("width"), grid.get("height")
        if isinstance(width, int) and isinstance(height, int) and 0 < width * height < len(explored):
            raise _TooMany(("fog", "explored"), len(explored), width * height, f"cells of a {width} x {height} map")


class _TooMany(Exception):
    """A list longer than its field may be (a combatant's 100,000 weapons), found before its items are read."""

    def __init__(self, path: Path_, count: int, most: int, what: str = "it may hold") -> None:
        super().__init__(f"encounter.{field_path(path)}: {count:,} items, more than the {most:,} {what}")


def _find_long(annotation: Any, value: Any, path: Path_, found: list[_LongList]) -> None:
    model = _model_for(annotation, value)
    if model is not None:
        if not isinstance(value, dict):
            return
        if len(value) > LONG_LIST:  # more names than any model has: most are unknown
            found.append(_LongList(path, None, value, model))
        for name, info in model.model_fields.items():
            inner = value.get(name)
            if isinstance(inner, list | dict):
                most = next((m.max_length for m in info.metadata if getattr(m, "max_length", None) is not None), None)
                if most is not None and len(inner) > most:  # refused at once: its items need no reading
                    raise _TooMany((*path, name), len(inner), most)
                _find_long(info.annotation, inner, (*path, name), found)
        return
    if not isinstance(value, list | dict):
        return
    dict_of = isinstance(value, dict)
    item = _item_type(_unwrapped(annotation), dict_of=dict_of)
    if item is None:
        fixed = _fixed_length(_unwrapped(annotation))
        if fixed is not None and not dict_of and len(value) > LONG_LIST:  # a cell of a million numbers
            raise _TooMany(path, len(value), fixed)
        return  # a fixed tuple (a cell), a value of any shape, or a list where one value belongs: one problem
    if len(value) > LONG_LIST:
        found.append(_LongList(path, item, value))
        return
    for key, inner in value.items() if isinstance(value, dict) else enumerate(value):
        if isinstance(inner, list | dict):
            _find_long(item, inner, (*path, key), found)


_TAGGED: dict[int, tuple[str, dict[Any, type[BaseModel]]] | None] = {}


def _model_for(annotation: Any, value: Any) -> type[BaseModel] | None:
    """The model ``value`` is read as: the field's model, or the member of a tagged union (a log
    entry's kind) its tag names; None for anything else."""
    if get_origin(annotation) is Annotated:
        union = _tagged_union(annotation)
        if union is not None:
            tag, members = union
            kind = value.get(tag) if isinstance(value, dict) else None
            return members.get(kind) if isinstance(kind, str) else None  # a kind that is no word: validation says so
    inner = _unwrapped(annotation)
    return inner if isinstance(inner, type) and issubclass(inner, BaseModel) else None


def _tagged_union(annotation: Any) -> tuple[str, dict[Any, type[BaseModel]]] | None:
    key = id(annotation)
    if key not in _TAGGED:
        union, *extra = get_args(annotation)
        tag = next((getattr(e, "discriminator", None) for e in extra if getattr(e, "discriminator", None)), None)
        members: dict[Any, type[BaseModel]] = {}
        if isinstance(tag, str) and get_origin(union) in (Union, UnionType):
            for member in get_args(union):
                info = getattr(member, "model_fields", {}).get(tag)
                if info is not None:
                    for value in get_args(info.annotation) or (info.default,):
                        members.setdefault(getattr(value, "value", value), member)
        _TAGGED[key] = (tag, members) if isinstance(tag, str) and members else None
    return _TAGGED[key]


def _unwrapped(annotation: Any) -> Any:
    """The type under ``Annotated[...]`` and ``X | None``."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        elif get_origin(annotation) in (Union, UnionType) and type(None) in get_args(annotation):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def _fixed_length(annotation: Any) -> int | None:
    """How many items a fixed tuple field (a cell: two) holds; None for another field."""
    args = get_args(annotation)
    if get_origin(annotation) is tuple and args and Ellipsis not in args:
        return len(args)
    return None


def _item_type(annotation: Any, dict_of: bool) -> Any:
    """What each item of a list, tuple, set or (``dict_of``) dict field is; None for another field."""
    origin, args = get_origin(annotation), get_args(annotation)
    if dict_of:
        return args[1] if origin is dict and len(args) == 2 else None
    if origin in (list, set, frozenset) and len(args) == 1:
        return args[0]
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return args[0]
    return None


class _LongList:
    """A long list or dict of the file: where it is, what its items are, the items; or (``model``
    given) an object of more names than its model has fields."""

    def __init__(
        self, path: Path_, item: Any, items: list[Any] | dict[str, Any], model: type[BaseModel] | None = None
    ) -> None:
        self.path = path
        self.item = item
        self.items = items
        self.model = model
        self._looks_right: bool | None = None

    def looks_right(self) -> bool:
        """Whether a quick look finds every item as strict validation takes it, so that no slice need
        be checked here: cells ([x, y] of whole numbers; where they are is the models' check) and a
        map's wall segments and doors (checked in bulk as the map reads them). Looked at once."""
        if self._looks_right is None:
            self._looks_right = self._look()
        return self._looks_right

    def _look(self) -> bool:
        items = self.items
        if self.item == Cell and isinstance(items, list):
            return (
                set(map(type, items)) == {list}
                and set(map(len, items)) == {2}
                and set(map(type, chain.from_iterable(items))) == {int}
            )
        if self.path in (("map", "segments"), ("map", "doors")) and isinstance(items, list):
            if not in_bulk(len(items)):  # a few thousand: read one by one, without numpy
                return False
            return lines_from_json(items, doors=self.path[-1] == "doors") is not None
        return False


def _adapter(item: Any, dict_of: bool) -> TypeAdapter[Any]:
    key = (id(item), dict_of)
    adapter = _ADAPTERS.get(key)
    if adapter is None:
        adapter = _ADAPTERS[key] = TypeAdapter(dict[str, item] if dict_of else list[item])
    return adapter


_ADAPTERS: dict[tuple[int, bool], TypeAdapter[Any]] = {}


def _counting(item: Any) -> Any:
    """The item type that finds the same number of problems quicker, once none need be worded: an
    enumeration's values as a Literal (pydantic words each enum error at length, about 3 µs)."""
    if isinstance(item, type) and issubclass(item, Enum):
        return Literal[tuple(member.value for member in item)]  # type: ignore[valid-type]
    return item


_COUNTING: dict[int, Any] = {}


# A slice whose JSON has more commas than this (more values than SLICE_VALUES) is looked into for long
# lists in its items, then cut smaller: a slice's problems are at most about as many as its values.
SLICE_VALUES = 64 * SLICE

Order = tuple[int, ...]


class _Checked:
    """The check of the long lists: the first problems of each, how many in all, the places of the
    long lists the rest of the file is read without, and the file as read without its bad long lists
    (each emptied, or an object's unknown names left out)."""

    def __init__(self, root: type[Encounter], data: dict[str, Any]) -> None:
        self.root = root
        self.work = dict(data)
        self.lines: dict[Order, list[str]] = {}
        self.total = 0
        self.emptied: list[Path_] = []
        self.log: list[Any] | None = None

    def check(self, found: list[_LongList], order: Order = ()) -> None:
        # The innermost first: a bad long list inside another's item is taken out before that item is read.
        for index in reversed(range(len(found))):
            long = found[index]
            long.items = _at(self.work, long.path)
            if long.model is not None:
                _put(self.work, long.path, self.unknown_names(long, (*order, index)))
                continue
            self.emptied.append(long.path)
            if long.looks_right():
                continue
            before = self.total
            validated = self.slices(long, (*order, index))
            if self.total > before:
                _put(self.work, long.path, {} if isinstance(long.items, dict) else [])
            elif long.path == ("log",) and validated is not None:
                self.log = validated

    def unknown_names(self, long: _LongList, order: Order) -> dict[str, Any]:
        """An object of more names than its model has fields: each unknown name a problem. The object
        with its known names only."""
        assert long.model is not None and isinstance(long.items, dict)
        fields = long.model.model_fields
        unknown = [name for name in long.items if name not in fields]
        self.total += len(unknown)
        self.lines[order] = [
            problem_line(
                {"type": "extra_forbidden", "loc": (name,), "msg": "Extra inputs are not permitted"},
                "encounter",
                self.root,
                long.path,
            )
            for name in unknown[:MAX_PROBLEMS]
        ]
        return {name: value for name, value in long.items.items() if name in fields}

    def slices(self, long: _LongList, order: Order) -> list[Any] | None:
        """Check a long list a slice at a time, counting its problems and wording the first; the items
        as validated when it is the log and good. A slice of many values is looked into first: the
        long lists inside its items are checked on their own (and taken out when bad)."""
        dict_of = isinstance(long.items, dict)
        adapter = _adapter(long.item, dict_of)
        key = id(long.item)
        if key not in _COUNTING:
            _COUNTING[key] = _counting(long.item)
        counter = _adapter(_COUNTING[key], dict_of) if _COUNTING[key] is not long.item else adapter
        keep = long.path == ("log",) and not dict_of
        lines: list[str] = []
        validated: list[Any] = []
        keys = list(long.items) if dict_of else None
        start, step, looked = 0, SLICE, -1
        while start < len(long.items):
            items = long.items
            names = (keys or [])[start : start + step]
            part: Any = {name: items[name] for name in names} if dict_of else items[start : start + step]
            text = json.dumps(part)
            if step > 1 and text.count(",") > SLICE_VALUES:
                if looked < start:  # once for these items: the long lists inside them
                    looked = start + step
                    if self.look_into(long, part, start, order):
                        continue  # read again, its bad long lists taken out
                step = max(1, step * SLICE_VALUES // text.count(","))
                continue
            wording = len(lines) < MAX_PROBLEMS
            try:
                done = (adapter if wording else counter).validate_json(text, strict=True)
            except ValidationError as error:
                self.total += error.error_count()
                keep = False
                if wording:
                    lines += problem_lines(
                        error,
                        "encounter",
                        limit=MAX_PROBLEMS - len(lines),
                        root=self.root,
                        base=long.path,
                        start=0 if dict_of else start,
                    )
            else:
                if keep:
                    validated += done
            start += len(part)
            step = SLICE
        if lines:
            self.lines[order] = lines
        return validated if keep else None

    def look_into(self, long: _LongList, part: Any, start: int, order: Order) -> bool:
        """Check the long lists inside the items of ``part`` (of ``long``, from item ``start``); True if
        there were any (``long.items`` is then the list as the file is read now)."""
        inner: list[_LongList] = []
        pairs = part.items() if isinstance(part, dict) else enumerate(part, start)
        for key, item in pairs:
            if isinstance(item, list | dict):
                _find_long(long.item, item, (*long.path, key), inner)
        if not inner:
            return False
        self.check(inner, (*order, start))
        long.items = _at(self.work, long.path)
        return True


def _long_lists_checked(
    model: type[Encounter], data: dict[str, Any]
) -> tuple[list[str], int, list[Any] | None, list[Path_]]:
    """The first problems of the file's long lists, how many they have in all, the log as validated
    when it is long and good (None otherwise), and the places of the long lists the rest of the file
    is read without."""
    checked = _Checked(model, data)
    checked.check(_long_lists(model, data))
    lines = [line for order in sorted(checked.lines) for line in checked.lines[order]]
    return lines, checked.total, None if checked.total else checked.log, checked.emptied


def _at(data: dict[str, Any], path: Path_) -> Any:
    at: Any = data
    for part in path:
        at = at[part]
    return at


def _put(data: dict[str, Any], path: Path_, value: Any) -> None:
    """Set the value at ``path`` in ``data``, copying the lists and dicts on the way (the file's own are
    left as read)."""
    at: Any = data
    for part in path[:-1]:
        inner = at[part]
        inner = dict(inner) if isinstance(inner, dict) else list(inner)
        at[part] = inner
        at = inner
    at[path[-1]] = value


def _rest_problems(model: type[Encounter], data: dict[str, Any], emptied: list[Path_]) -> tuple[int, list[str]]:
    """How many problems the file has outside its long lists, and the first of them; the checks of
    whatever holds a long list (which read it left out) are not made."""
    rest = _without_long_lists(model, data)
    try:
        model.model_validate_json(json.dumps(rest), strict=True)
    except ValidationError as error:
        # A check of the whole encounter (loc ()) or of a combatant holding a long list read it without
        # that list: not a problem of the file.
        holders = {path[:end] for path in emptied for end in range(len(path) + 1)}
        items = [item for item in error.errors(include_url=False) if item["loc"] not in holders]
        return len(items), [problem_line(item, "encounter", model) for item in items[:MAX_PROBLEMS]]
    return 0, []


def _without_long_lists(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    emptied: list[Path_] = []
    for found in _long_lists(model, data):  # each before the ones inside it
        if any(found.path[: len(path)] == path for path in emptied):
            continue  # inside a long list left out already
        if found.model is not None:
            items = _at(out, found.path)
            _put(out, found.path, {name: items[name] for name in items if name in found.model.model_fields})
        else:
            _put(out, found.path, {} if isinstance(found.items, dict) else [])
            emptied.append(found.path)
    return out


_PICTURE_HEAD_CHARS = 256 * 1024  # base64 of the picture's first 192 KB: its header says its size


def _refuse_huge_picture(encounter: Encounter, source: str) -> None:
    """A map picture over MAX_PICTURE_PIXELS is refused: a few MB of PNG can say 30,000 x 30,000
    pixels, which would take gigabytes to show. Only the picture's header is read; a picture whose
    header says nothing is left to the window, which says it cannot show it."""
    background = encounter.map.background
    if background is None or not background.data:
        return
    from lnl_desktop.core.files.pictures import image_kind, image_size  # only for maps with a picture

    head = background.data[:_PICTURE_HEAD_CHARS].strip()
    try:
        raw = base64.b64decode(head[: len(head) // 4 * 4])
    except (binascii.Error, ValueError):
        return
    kind = image_kind(raw)
    size = None if kind is None else image_size(raw, kind)
    if size is not None and size[0] * size[1] > MAX_PICTURE_PIXELS:
        problem = (
            f"encounter.map.background.data: the picture is {size[0]} x {size[1]} pixels; the most a map picture "
            f"may have is {MAX_PICTURE_PIXELS:,} pixels ({math.isqrt(MAX_PICTURE_PIXELS):,} a side)"
        )
        raise EncounterFileError(f"{source} has 1 problem:\n{problem}", [problem])


def _refuse_too_many_lines(data: dict[str, Any], source: str) -> None:
    """A map over the limit of wall segments and doors is refused before they are read."""
    grid = data.get("map")
    if isinstance(grid, dict):
        counts = [len(v) if isinstance(v := grid.get(name), list) else 0 for name in ("segments", "doors")]
        problem = too_many_lines(*counts)
        if problem:
            raise EncounterFileError(f"{source} has 1 problem:\nencounter.map.{problem}", [f"encounter.map.{problem}"])


def _with_lines_aside(model: type[Encounter], data: dict[str, Any], source: str) -> Encounter | None:
    """The encounter, its map's many wall segments and doors checked in bulk (numpy) rather than
    one model at a time; None for a map with few lines (or lines not as the program writes them),
    and ValidationError when anything is wrong: the file is then read the usual way to say what."""
    grid = data.get("map")
    if not isinstance(grid, dict):
        return None
    aside: dict[str, tuple[WallSegment, ...]] = {}
    for name in ("segments", "doors"):
        items = grid.get(name)
        if isinstance(items, list) and in_bulk(len(items)):
            lines = lines_from_json(items, doors=name == "doors")
            if lines is not None:
                aside[name] = tuple(lines)
    if not aside:
        return None
    # Said at once: read the usual way, a map of 100,000 lines across it takes seconds to refuse.
    problem = too_long_walls(aside.get("segments", ()), aside.get("doors", ()))  # type: ignore[arg-type]
    if problem:
        raise EncounterFileError(f"{source} has 1 problem:\nencounter.map.{problem}", [f"encounter.map.{problem}"])
    without = {**data, "map": {**grid, **{name: [] for name in aside}}}
    encounter = model.model_validate_json(json.dumps(without), strict=True)
    # The map again with its lines: the same fields given (so the same fields set), each value as
    # validated; model instances are taken as they are, and the map's own checks run on them.
    given = {name: getattr(encounter.map, name) for name in grid if name in MapGrid.model_fields}
    encounter.map = type(encounter.map).model_validate({**given, **aside})
    return encounter


def file_kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _check_file(name: str, info: os.stat_result) -> None:
    kind = file_kind(info.st_mode)
    if kind is not None:
        raise EncounterFileError(f"{name} is {kind}, not an encounter file")
    if info.st_size > MAX_FILE_BYTES:
        raise EncounterFileError(f"{name} is {math.ceil(info.st_size / _MB)} MB; {_limit_text()}")


# O_NONBLOCK: if the path is swapped for a FIFO between the stat and the open, the open must not
# wait for a writer (fstat then refuses it). Neither flag exists on Windows, which has no FIFOs.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0)


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < limit:
        chunk = os.read(fd, min(limit - len(chunks), 4 * _MB))
        if not chunk:
            break
        chunks += chunk
    return bytes(chunks)


def load(path: str | os.PathLike[str]) -> Encounter:
    """Read an encounter file, or raise :class:`EncounterFileError` saying why; nothing else.

    Only a regular file is opened (a FIFO would block the read forever, /dev/zero never ends),
    at most MAX_FILE_BYTES of it are read, and a UTF-8 BOM some editors add is accepted.
    """
    path = Path(path)
    name = short_name(path.name or str(path))
    try:
        _check_file(name, os.stat(path))  # before opening: opening some devices does things
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise EncounterFileError(f"{name}: no such file") from None
    except OSError as error:
        raise EncounterFileError(f"{name} could not be read: {error.strerror}") from None
    try:
        _check_file(name, os.fstat(fd))  # what was opened, in case the path changed meanwhile
        data = _read_at_most(fd, MAX_FILE_BYTES + 1)
    except OSError as error:
        raise EncounterFileError(f"{name} could not be read: {error.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:  # it grew after the stat
        raise EncounterFileError(f"{name} is over {MAX_FILE_BYTES // _MB} MB; {_limit_text()}")
    try:
        text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    except UnicodeDecodeError as error:
        raise EncounterFileError(f"{name} is not a text file (not UTF-8 at byte {error.start})") from None
    return loads(text, name)


def save(encounter: Encounter, path: str | os.PathLike[str]) -> Path:
    """Write the encounter atomically: the old file stays whole until the new one is complete."""
    return write_text_atomic(path, dumps(encounter))


# Temporary files of a save interrupted this long ago (a kill, a power cut) are removed by the next
# save to the same folder; a younger one may belong to a save still running in another window.
STALE_TEMP_SECONDS = 60.0


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Replace the file at ``path`` with ``text`` so that a kill at any moment leaves either the
    old file or the new one, whole, and keep what the user had: a symlink stays a symlink (its
    target is rewritten) and an existing file keeps its permission bits. Returns ``path``.

    The text goes to a temporary file in the same folder, is flushed to the disk, renamed over
    the target, and the folder itself is flushed so that the rename survives a power cut.
    """
    path = Path(path)
    target = Path(os.path.realpath(path))
    directory = target.parent
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    _remove_stale_temps(directory, target.name)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        # mkstemp makes 0600; a new file gets what the user's umask gives any new file.
        os.fchmod(fd, mode if mode is not None else 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _fsync_directory(directory)
    return path


def _umask() -> int:
    # The only portable way to read the umask is to set it; set it straight back.
    current = os.umask(0o022)
    os.umask(current)
    return current


def _fsync_directory(directory: Path) -> None:
    if os.name == "nt":  # Windows cannot open a folder for flushing; NTFS journals the rename
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_stale_temps(directory: Path, name: str) -> None:
    now = time.time()
    for temp in directory.glob(f".{glob.escape(name)}.*.tmp"):
        try:
            if now - temp.lstat().st_mtime > STALE_TEMP_SECONDS and temp.is_file():
                temp.unlink()
        except OSError:
            continue  # gone already, or not ours to remove: the save itself goes on


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a ``.lnl`` file, generated from the models: one encounter shape per built-in
    ruleset, told apart by ``ruleset`` (an installed ruleset's files follow its own stat block)."""
    from typing import Annotated, Union

    from pydantic import Field, TypeAdapter

    from lnl_desktop.core.rules.registry import BUILT_IN

    models = tuple(get_ruleset(name).encounter_model for name in BUILT_IN)
    union = Annotated[Union[models], Field(discriminator="ruleset")]  # type: ignore[valid-type]  # noqa: UP007
    schema = TypeAdapter(union).json_schema(mode="serialization")
    defs = schema.pop("$defs", {})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Laurels & Loot encounter file",
        "type": "object",
        "required": ["format", "version", "encounter"],
        "properties": {
            "format": {"const": FORMAT},
            "version": {"const": VERSION},
            "encounter": schema,
        },
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


def write_schema(path: str | os.PathLike[str] | None = None) -> Path:
    """Write the schema where the repository keeps it (``resources/schema/``)."""
    from lnl_desktop.paths import resource

    target = Path(path) if path else resource("schema", "encounter.schema.json")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(schema_text(), encoding="utf-8")
    return target

"""Long lists in an encounter file, checked a slice at a time before the encounter is validated, so
the errors of one slice at most are held at once (a log of a million events, a cave's walls)."""

from __future__ import annotations

import json
from enum import Enum
from itertools import chain
from types import UnionType
from typing import Annotated, Any, Literal, NamedTuple, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from lnl_desktop.core.encounter.areas import MAX_TEMPLATES
from lnl_desktop.core.encounter.drawings import MAX_DRAWINGS
from lnl_desktop.core.encounter.light import MAX_LIGHTS
from lnl_desktop.core.encounter.map_model import in_bulk, lines_from_json
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.encounter.validation import MAX_PROBLEMS, field_path, problem_line, problem_lines
from lnl_desktop.core.map.grid import Cell

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
            raise TooMany((name,), len(items), most)
    fog, grid = data.get("fog"), data.get("map")
    explored = fog.get("explored") if isinstance(fog, dict) else None
    if isinstance(explored, list) and isinstance(grid, dict):
        width, height = grid.get("width"), grid.get("height")
        if isinstance(width, int) and isinstance(height, int) and 0 < width * height < len(explored):
            raise TooMany(("fog", "explored"), len(explored), width * height, f"cells of a {width} x {height} map")


class TooMany(Exception):
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
                    raise TooMany((*path, name), len(inner), most)
                _find_long(info.annotation, inner, (*path, name), found)
        return
    if not isinstance(value, list | dict):
        return
    dict_of = isinstance(value, dict)
    item = _item_type(_unwrapped(annotation), dict_of=dict_of)
    if item is None:
        fixed = _fixed_length(_unwrapped(annotation))
        if fixed is not None and not dict_of and len(value) > LONG_LIST:  # a cell of a million numbers
            raise TooMany(path, len(value), fixed)
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
        self.lines: list[Any] | None = None  # a map's segments or doors as the quick look read them

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
            self.lines = lines_from_json(items, doors=self.path[-1] == "doors")
            return self.lines is not None
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
        self.read: list[tuple[Any, list[Any]]] = []  # (the file's list, its lines) the quick look read

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
                if long.lines is not None:
                    self.read.append((long.items, long.lines))
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


class LongListsChecked(NamedTuple):
    problems: list[str]  # the first problems of the file's long lists
    total: int  # how many they have in all
    log: list[Any] | None  # the log as validated when it is long and good
    emptied: list[Path_]  # the places of the long lists the rest of the file is read without
    read: list[tuple[Any, list[Any]]]  # a map's many lines as read in bulk: (the file's list, its models)


def long_lists_checked(model: type[Encounter], data: dict[str, Any]) -> LongListsChecked:
    """The file's long lists checked (see :class:`LongListsChecked`)."""
    checked = _Checked(model, data)
    checked.check(_long_lists(model, data))
    lines = [line for order in sorted(checked.lines) for line in checked.lines[order]]
    log = None if checked.total else checked.log
    return LongListsChecked(lines, checked.total, log, checked.emptied, checked.read)


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


def rest_problems(model: type[Encounter], data: dict[str, Any], emptied: list[Path_]) -> tuple[int, list[str]]:
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

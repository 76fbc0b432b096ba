"""The engine's undo history: what each action changed, nothing more, and how to put it back.

:class:`HistoryStep` is what a recovery journal hears of each change; :class:`Touched` tells views
which combatants and tokens a change touched. The rest keeps the engine's shadow of the encounter
(:class:`_Shadow`) and the leaves an action changed (:class:`_Change`), or the whole encounter a
ruleset conversion replaced (:class:`_Swap`).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from itertools import compress
from operator import is_, is_not
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.map.explored import ExploredCells, changes, growth, undo_changes


@dataclass(frozen=True)
class HistoryStep:
    """One change of the encounter, as a recovery journal needs it to replay the change.

    ``kind`` is "apply" (a new action), "redo" (an undone action applied again) or "undo";
    ``action`` and ``faces`` (every die face it used) are None/empty for an undo.
    """

    kind: str
    action: act.Action | None = None
    faces: tuple[int, ...] = ()


HistoryListener = Callable[[HistoryStep], None]

_PARTS = frozenset({"name", "options", "map", "combat", "fog", "drawings", "templates", "party_links"})


@dataclass(frozen=True)
class Touched:
    """What the engine's last change of the encounter touched (an action, an undo, a redo, another
    encounter), so a view can redraw just that. ``step`` counts the changes: a view that caught up with
    step n - 1 may take in only this one; any other must look at everything again.

    ``combatants`` and ``tokens`` are the ids whose combatant or token changed in any way (in place,
    replaced, added or taken away), None when any may have (another encounter, combatants reordered).
    ``parts`` names the other parts that changed: "combat", "fog", "map", "options", "name",
    "drawings", "templates", "party_links".
    """

    step: int
    combatants: frozenset[str] | None = None
    tokens: frozenset[str] | None = None
    parts: frozenset[str] = _PARTS


# -- undo history: what each action changed, nothing more ----------------------------------------
#
# The engine keeps a shadow of the encounter's mutable parts (combatants, tokens, combat state, fog):
# every mutable container in them with a copy one level deep of what it held when the engine last
# changed it (a model's fields, a list's items, a dict's items; see _Shadow). Which fields can hold
# something mutable at all is read once per model class from its annotations. After an action the
# containers where it declared it may write (its token, its combatant, the combat state: Writes; all of
# them for an action that declares nothing) are compared with their copies, quickly where they hold the
# very same objects; only those that changed, and their holders, are looked at again, and what differs
# is kept as "leaves": (path, value as it was). So a move costs its own few containers, no copy and no
# comparison of the encounter, and keeps its token's cell and the turn's feet and path. (A value
# replaced by an equal one of another type, 0 by 0.0, with nothing else of its holder changed, goes
# unseen: the engine's actions make no such change.) Lists that only grew (the turn's path, the
# attacks, the acted) keep just their old length; lists that lost items (a new round's attacks) keep
# just the lost items; a dict whose keys changed (a token placed or taken off) keeps its old order and
# the values it lost. The map and the options are immutable and shared, so they are kept by reference
# when an action replaces them. Undo writes the leaves back in place, so the encounter is exactly as it
# was (field values and pydantic's set-fields alike) and unchanged objects keep their identity. A set
# of cells that changed (the fog of war's explored cells) keeps only the cells added and removed.

_FIELDS_SET = object()  # path key: a model's __pydantic_fields_set__
# Shadowed, compared after an action (the party's links: a dict of a few ids, changed in place).
_ENCOUNTER_PARTS = ("combatants", "tokens", "combat", "fog", "party_links")
# Replaced, never changed in place: kept by reference.
_SHARED_PARTS = ("name", "options", "map", "lights", "drawings", "templates")

PathKey = str | int | object
Leaf = tuple[tuple[PathKey, ...], Any]


class _Cut:
    """A list that only grew: cut it back to ``length`` items."""

    __slots__ = ("length",)

    def __init__(self, length: int) -> None:
        self.length = length


class _Reinsert:
    """A list that lost items and kept the rest in order: put ``items`` (index, item) back."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[tuple[int, Any], ...]) -> None:
        self.items = items


class _Delta:
    """A frozenset that changed: take ``added`` away and put ``removed`` back."""

    __slots__ = ("added", "removed")

    def __init__(self, added: frozenset[Any], removed: frozenset[Any]) -> None:
        self.added = added
        self.removed = removed


class _Cells(_Delta):
    """The explored cells changed: take the cells at flat indices ``added`` away, put ``removed`` back."""

    __slots__ = ()


class _Keys:
    """A dict whose keys changed: its keys as they were, in their order, and the values of those it lost."""

    __slots__ = ("gone", "order")

    def __init__(self, order: tuple[Any, ...], gone: dict[Any, Any]) -> None:
        self.order = order
        self.gone = gone


# Shared, immutable pieces of many leaves: a few thousand steps of history must not hold a few
# thousand equal path tuples and set-field sets. Both tables stay small: they grow with the
# encounter's shape (field names, ids), never with the number of actions.
_PATHS: dict[tuple[PathKey, ...], tuple[PathKey, ...]] = {}
_FIELD_SETS: dict[frozenset[str], frozenset[str]] = {}
_CUTS = tuple(_Cut(n) for n in range(64))
_INTERN_LIMIT = 50_000


def _interned_path(path: tuple[PathKey, ...]) -> tuple[PathKey, ...]:
    if len(_PATHS) >= _INTERN_LIMIT:
        return _PATHS.get(path, path)
    return _PATHS.setdefault(path, path)


def _frozen_fields(fields: set[str]) -> frozenset[str]:
    frozen = frozenset(fields)
    if len(_FIELD_SETS) >= _INTERN_LIMIT:
        return _FIELD_SETS.get(frozen, frozen)
    return _FIELD_SETS.setdefault(frozen, frozen)


def _cut(length: int) -> _Cut:
    return _CUTS[length] if length < len(_CUTS) else _Cut(length)


def _models_in(value: Any) -> list[BaseModel]:
    """Every mutable pydantic model inside a copied value (the value itself included)."""
    found: list[BaseModel] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseModel):
            if item.model_config.get("frozen"):
                continue  # immutable and possibly shared: never touched
            found.append(item)
            stack.extend(item.__dict__[name] for name in type(item).model_fields)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


def _kept(value: Any) -> Any:
    """A copied value as the history keeps it: its models' set-field sets shared and frozen."""
    for model in _models_in(value):
        object.__setattr__(model, "__pydantic_fields_set__", _frozen_fields(model.__pydantic_fields_set__))
    return value


def _thawed(value: Any) -> Any:
    """A kept value going back into the encounter: its models get sets of their own again."""
    for model in _models_in(value):
        object.__setattr__(model, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    return value


_ATOMS = frozenset({str, int, float, bool, bytes, type(None), tuple, frozenset, ExploredCells})  # never looked into


class _Plan:
    """Where a field's value may hold mutable values, read from its annotation: ``items`` is the plan of a
    list's or a dict's items (None: they are immutable, so a copy of the container is all it takes)."""

    __slots__ = ("items",)

    def __init__(self, items: _Plan | None) -> None:
        self.items = items


_ANY = _Plan(None)
_ANY.items = _ANY  # nothing known of the items: each is looked at


def _plan_of(annotation: Any) -> _Plan | None:
    """None when a value of this annotation holds nothing mutable (numbers, text, enums, tuples, frozen models)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _plan_of(get_args(annotation)[0])
    if origin is Literal:
        return None
    if origin is Union or origin is types.UnionType:
        plans = [plan for plan in map(_plan_of, get_args(annotation)) if plan is not None]
        return None if not plans else plans[0] if len(plans) == 1 else _ANY
    if origin is list or origin is dict:
        args = get_args(annotation)
        return _Plan(_plan_of(args[-1]) if args else _ANY)
    if origin is tuple or origin is frozenset:
        return None  # immutable, and shared as they are (their items are never changed in place)
    if origin is None and isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return None if annotation.model_config.get("frozen") else _ANY
        if annotation is type(None) or issubclass(annotation, str | int | float | bytes | Enum | tuple | frozenset):
            return None
    return _ANY


_FieldPlans = tuple[tuple[str, _Plan], ...]
_FIELD_PLANS: dict[type, _FieldPlans | None] = {}


def _field_plans(cls: type[BaseModel]) -> _FieldPlans | None:
    """A model class's fields that may hold mutable values, with their plans; None for a frozen class."""
    try:
        return _FIELD_PLANS[cls]
    except KeyError:
        pass
    plans: _FieldPlans | None = None
    if not cls.model_config.get("frozen"):
        found = ((name, _plan_of(info.annotation)) for name, info in cls.model_fields.items())
        plans = tuple((name, plan) for name, plan in found if plan is not None)
    _FIELD_PLANS[cls] = plans
    return plans


# One container of the encounter as the engine last left it: the container, a shallow copy of what it held
# (a model's __dict__, a list, a dict), a model's set fields (None for a list or a dict), the entry of its
# holder (-1 for one of the encounter's parts), the plan of its items and its root (see Writes).
_Entry = tuple[Any, Any, "set[str] | None", int, _Plan, "Root"]
# What a container held before an action, by id(container), for the containers the action changed and
# their holders.
_Before = dict[int, tuple[Any, "set[str] | None"]]

# Where in the encounter an action may write, as roots of the shadow: ("tokens", id) a token, ("combatants",
# id) a combatant with all it holds, ("combat",) what the combat state holds, ("fog",), ("party_links", id).
# The parts themselves (the combatants list, the tokens dict, the combat state's and the fog's own fields)
# are compared after every action whatever it declares: that is where something is added or taken away.
Root = tuple[str, ...]
# An action's declared writes: the roots it may change; None: anything (the whole encounter is compared).
Writes = frozenset[Root] | None
# Tests switch this on: every declared action is compared in full as well, and an undeclared write fails.
VERIFY_DECLARED_WRITES = False


def _child_root(entries: list[_Entry], holder: int, key: Any, item: Any) -> Root:
    """The root of ``item``, held at ``key`` by entry ``holder``: one of its own below a list or dict part
    (a combatant by its id, a token by its key), else its holder's."""
    container, _, fields, above, _, root = entries[holder]
    if above == -1 and fields is None:
        return (root[0], getattr(item, "id", key) if type(container) is list else key)
    return root


def _list_containers(
    entries: list[_Entry], value: Any, plan: _Plan, holder: int, root: Root, roots: dict[Root, list[int]]
) -> None:
    """Append an entry for ``value`` (held by entry ``holder``, under ``root``) and for every mutable
    container inside it, each noted under ``root``.

    A whole encounter goes through here when its shadow is made, so this is written for speed: a list or
    dict of immutable items (a combatant's conditions, the acted) is listed without a call of its own."""
    add = entries.append
    plans = _FIELD_PLANS
    atoms = _ATOMS
    start = len(entries)

    def visit(value: Any, plan: _Plan, holder: int) -> None:
        kind = type(value)
        here = len(entries)
        if kind is list or kind is dict:
            add((value, value.copy(), None, holder, plan, root))
            items = plan.items
            if items is not None:
                for item in value if kind is list else value.values():
                    if type(item) not in atoms:
                        visit(item, items, here)
            return
        if not isinstance(value, BaseModel):
            return
        fields = plans[kind] if kind in plans else _field_plans(kind)
        if fields is None:
            return  # frozen: never changed in place
        own = value.__dict__
        add((value, own.copy(), value.__pydantic_fields_set__.copy(), holder, _ANY, root))
        for name, field_plan in fields:
            item = own[name]
            kind = type(item)
            if kind in atoms:
                continue
            if field_plan.items is None and (kind is list or kind is dict):
                add((item, item.copy(), None, here, field_plan, root))
            else:
                visit(item, field_plan, here)

    if type(value) not in atoms:
        visit(value, plan, holder)
        roots.setdefault(root, []).extend(range(start, len(entries)))
    # visit holds itself through its closure: a cycle only the collector would free (hundreds a move,
    # each a function, its cells and a bound append), making the next collection a stall. Broken here.
    visit = None  # type: ignore[assignment]


def _placed(container: Any, was: Any) -> Any:
    """(key, item) for each item a list or dict holds that it did not hold in that place before (checked
    in C: one Python step per item placed, not per item held)."""
    if type(container) is list:
        if len(container) == len(was):
            return compress(enumerate(container), map(is_not, container, was))
        return ((i, item) for i, item in enumerate(container) if i >= len(was) or was[i] is not item)
    if len(container) == len(was) and list(container) == list(was):
        return compress(container.items(), map(is_not, container.values(), was.values()))
    return ((key, item) for key, item in container.items() if was.get(key, was) is not item)


class _Shadow:
    """The encounter's mutable containers as the engine last left them, each copied one level deep.

    Every model, list and dict inside the combatants, tokens, combat state, fog and party links is listed
    (once per place it is held) with a copy of what it holds, under its root. After an action the
    containers under the roots it declared it may write (:data:`Writes`; every one for an action that
    declares nothing) and the parts themselves are compared with their copies, quickly where they hold the
    very same objects; only those that changed, and their holders, are looked at again (for the undo's
    leaves) and copied again, and containers the action added are listed. So a move costs its own token,
    its combatant and the combat state, whatever the size of the encounter.

    The shadow holds while nothing but the engine changes the encounter (the engine is the only way an
    encounter changes); another encounter object, or another object as one of its parts, starts a fresh
    one. Entries of containers an action let go stay until there are as many again as at the start;
    then the shadow is made afresh, so a long fight's shadow does not grow.
    """

    __slots__ = ("encounter", "entries", "limit", "parts", "roots", "tops")

    def __init__(self, encounter: Encounter) -> None:
        self.encounter = encounter
        self.parts = {name: encounter.__dict__[name] for name in _ENCOUNTER_PARTS}
        self.entries: list[_Entry] = []
        self.roots: dict[Root, list[int]] = {}
        self.tops: list[int] = []  # the parts' own entries: compared after every action
        for name, part in self.parts.items():
            self._list_part(name, part)
        self.limit = 2 * len(self.entries) + 256

    def _list_part(self, name: str, part: Any) -> None:
        """List one of the encounter's parts: its own entry among the tops; below a list or a dict,
        each item under a root of its own, below a model everything under the part's name."""
        entries = self.entries
        here = len(entries)
        kind = type(part)
        if kind is list or kind is dict:
            entries.append((part, part.copy(), None, -1, _ANY, (name,)))
            for key, item in enumerate(part) if kind is list else part.items():
                if type(item) not in _ATOMS:
                    _list_containers(entries, item, _ANY, here, _child_root(entries, here, key, item), self.roots)
        else:
            _list_containers(entries, part, _ANY, -1, (name,), self.roots)
        if len(entries) > here:
            self.tops.append(here)

    def holds(self, encounter: Encounter) -> bool:
        """Whether this is the shadow of ``encounter`` as it is (its parts the same objects), not too stale."""
        if encounter is not self.encounter or len(self.entries) > self.limit:
            return False
        now = encounter.__dict__
        return all(now[name] is part for name, part in self.parts.items())

    def _dirty(self, writes: Writes = None) -> list[int]:
        """The entries whose container holds something else now, and the entries of their holders: among
        the parts and the ``writes`` roots (every entry when None).

        Compared by equality, which is quick where the items are the very same objects. A container that
        now holds an equal copy of an item it held counts as unchanged (only its value matters), unless the
        old item changed in place too: the old item's entry marks the container then, and its places are
        compared by identity (:func:`_place`)."""
        entries = self.entries
        if writes is None:
            looked: Any = range(len(entries))
        else:
            looked = list(self.tops)
            roots = self.roots
            for root in writes:
                looked.extend(roots.get(root, ()))
        dirty: dict[int, None] = {}
        for index in looked:
            container, was, fields, _, _, _ = entries[index]
            if fields is None:
                if container == was:
                    continue
            elif container.__dict__ == was and container.__pydantic_fields_set__ == fields:
                continue
            while index >= 0 and index not in dirty:
                dirty[index] = None
                index = entries[index][3]
        return list(dirty)

    def _dirty_declared(self, writes: Writes) -> list[int]:
        dirty = self._dirty(writes)
        if VERIFY_DECLARED_WRITES and writes is not None:
            full = self._dirty(None)
            if set(full) != set(dirty):
                missed = sorted({repr(self.entries[i][5]) for i in set(full) - set(dirty)})
                raise AssertionError(f"an action wrote where it did not declare (declared {sorted(writes)}): {missed}")
        return dirty

    def change(self, shared: dict[str, Any], fields_set: set[str], log_length: int, writes: Writes = None) -> _Change:
        """What the action just applied changed (``shared``, ``fields_set`` and ``log_length``: the
        encounter's immutable parts, set fields and log length before it; ``writes``: where it declared
        it may write); the shadow follows it."""
        e = self.encounter
        leaves: list[Leaf] = []
        now = e.__dict__
        for name, value in shared.items():
            if not _same(value, now[name]):
                leaves.append((_interned_path((name,)), value))
        dirty = self._dirty_declared(writes)
        entries = self.entries
        before = {id(entries[i][0]): (entries[i][1], entries[i][2]) for i in dirty}
        for name, part in self.parts.items():
            _place(part, now[name], (), name, before, leaves)
        if fields_set != e.__pydantic_fields_set__:
            leaves.append((_interned_path((_FIELDS_SET,)), _frozen_fields(fields_set)))
        self._follow(dirty)
        return _Change(tuple(leaves), log_length)

    def follow(self, writes: Writes = None) -> None:
        """Catch up with the encounter after the engine put it back (an undo of a change within
        ``writes``, a refused action)."""
        self._follow(self._dirty_declared(writes))

    def _follow(self, dirty: list[int]) -> None:
        """Copy the changed containers again and list the containers they hold in new places."""
        entries = self.entries
        atoms = _ATOMS
        roots = self.roots
        for index in dirty:
            container, was, _, holder, plan, root = entries[index]
            kind = type(container)
            if kind is list or kind is dict:
                entries[index] = (container, container.copy(), None, holder, plan, root)
                items = plan.items
                if items is None:
                    continue
                for key, item in list(_placed(container, was)):
                    if type(item) not in atoms:
                        _list_containers(entries, item, items, index, _child_root(entries, index, key, item), roots)
                continue
            own = container.__dict__
            entries[index] = (container, own.copy(), container.__pydantic_fields_set__.copy(), holder, plan, root)
            for name, field_plan in _field_plans(kind) or ():
                item = own[name]
                if type(item) not in atoms and was.get(name) is not item:
                    _list_containers(entries, item, field_plan, index, root, roots)
        now = self.encounter.__dict__
        for name, part in self.parts.items():
            if now[name] is not part:
                self.parts[name] = now[name]
                self._list_part(name, now[name])


def _as_was(value: Any, before: _Before) -> Any:
    """A deep copy of ``value`` as it was before the action (only lists, dicts and mutable models are
    copied; ``__copy__`` keeps pydantic's own bookkeeping right; immutable values are shared)."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    held = before.get(id(value))
    if kind is list:
        return [_as_was(item, before) for item in (held[0] if held is not None else value)]
    if kind is dict:
        return {key: _as_was(item, before) for key, item in (held[0] if held is not None else value).items()}
    if isinstance(value, BaseModel):
        if value.model_config.get("frozen"):
            return value
        copy = value.__copy__()
        fields = copy.__dict__
        if held is not None:
            fields.clear()
            fields.update(held[0])
            object.__setattr__(copy, "__pydantic_fields_set__", set(held[1] or ()))
        for name, item in fields.items():
            if type(item) not in _ATOMS:
                fields[name] = _as_was(item, before)
        return copy
    return value


def _place(was: Any, now: Any, path: tuple[PathKey, ...], key: PathKey, before: _Before, out: list[Leaf]) -> None:
    """Leaves for one place of a container the action changed (or holds a change below)."""
    if was is now:
        if type(now) not in _ATOMS and id(now) in before:
            _walk(now, (*path, key), before, out)
        return
    _compare(_as_was(was, before), now, (*path, key), out)


def _walk(container: Any, path: tuple[PathKey, ...], before: _Before, out: list[Leaf]) -> None:
    """Append the leaves that put back what changed in or below ``container``, which held the same place
    before the action. Leaves come holder first: undo writes them back in reverse, so each path still
    leads through the holders as the action left them."""
    was, fields = before[id(container)]
    if fields is not None:
        now = container.__dict__
        for name, value in now.items():
            _place(was[name], value, path, name, before, out)
        if fields != container.__pydantic_fields_set__:
            out.append((_interned_path((*path, _FIELDS_SET)), _frozen_fields(fields)))
    elif type(container) is list:
        _walk_list(container, was, path, before, out)
    else:
        _walk_dict(container, was, path, before, out)


def _walk_list(items: list[Any], was: list[Any], path: tuple[PathKey, ...], before: _Before, out: list[Leaf]) -> None:
    n, m = len(was), len(items)
    if n == m:
        for index in _looked_at(range(n), items, was, before):
            _place(was[index], items[index], path, index, before, out)
        return
    kept: list[int] | None = None  # the indexes (now) of the items that stayed in place
    if m > n and all(map(is_, was, items)):
        out.append((_interned_path(path), _cut(n)))
        kept = list(range(n))
    elif m < n:
        # Items dropped, the others kept in order.
        lost: list[tuple[int, Any]] = []
        j = 0
        for i, item in enumerate(was):
            if j < m and item is items[j]:
                j += 1
            else:
                lost.append((i, _kept(_as_was(item, before))))
        if j == m:
            out.append((_interned_path(path), _Reinsert(tuple(lost))))
            kept = list(range(m))
    if kept is None:
        out.append((_interned_path(path), _kept(_as_was(was, before))))
        return
    for index in kept:
        item = items[index]
        if type(item) not in _ATOMS and id(item) in before:
            _walk(item, (*path, index), before, out)


def _walk_dict(
    items: dict[Any, Any], was: dict[Any, Any], path: tuple[PathKey, ...], before: _Before, out: list[Leaf]
) -> None:
    if list(items) != list(was):
        # Keys came or went (a token placed or taken off): the old order and the values that went.
        gone = {key: _kept(_as_was(value, before)) for key, value in was.items() if key not in items}
        out.append((_interned_path(path), _Keys(tuple(was), gone)))
        for key, value in items.items():
            if key in was:
                _place(was[key], value, path, key, before, out)
        return
    for key in _looked_at(list(items), items.values(), was.values(), before):
        _place(was[key], items[key], path, key, before, out)


def _looked_at(keys: Any, items: Any, was: Any, before: _Before) -> list[Any]:
    """The keys, in order, of the places of a list or dict (holding as many items as ``was``, under the
    same keys) that may hold a change: an item replaced, or one the action changed in place (``before``).
    Picked in C: a token moved among 500 is one Python step, not 500."""
    items = list(items)
    replaced = compress(keys, map(is_not, items, was))
    changed = compress(keys, map(before.__contains__, map(id, items)))
    found = set(replaced)
    found.update(changed)
    return list(compress(keys, map(found.__contains__, keys))) if len(found) > 1 else list(found)


def _same(before: Any, after: Any) -> bool:
    # Strict about types (0 and 0.0 are equal but do not save the same) and about set fields.
    if before is after:
        return True
    if type(before) is not type(after) or before != after:
        return False
    return not isinstance(before, BaseModel) or before.__pydantic_fields_set__ == after.__pydantic_fields_set__


def _compare(before: Any, after: Any, path: tuple[PathKey, ...], out: list[Leaf]) -> None:
    """Append to ``out`` the leaves that turn ``after`` back into ``before`` (a copy of it)."""
    if before is after:
        return
    if isinstance(before, BaseModel) and type(after) is type(before) and not before.model_config.get("frozen"):
        was, now = before.__dict__, after.__dict__
        for name in type(before).model_fields:
            _compare(was[name], now[name], (*path, name), out)
        if before.__pydantic_fields_set__ != after.__pydantic_fields_set__:
            out.append((_interned_path((*path, _FIELDS_SET)), _frozen_fields(before.__pydantic_fields_set__)))
        return
    if type(before) is list and type(after) is list:
        _compare_lists(before, after, path, out)
        return
    if type(before) is dict and type(after) is dict and list(before) == list(after):
        for key, value in before.items():
            _compare(value, after[key], (*path, key), out)
        return
    if type(after) is ExploredCells:  # the fog of war's explored cells, as exploring or revealing made them
        if type(before) is ExploredCells and before.mask.shape == after.mask.shape:
            changed = changes(before, after)  # a move's from the explore itself: no comparison
            if changed is not None:
                out.append((_interned_path(path), _Cells(*changed)))
        elif growth(before, after) is not None or before != after:
            out.append((_interned_path(path), _kept(before)))  # a file's set: put back as it was
        return
    if type(before) is frozenset and type(after) is frozenset:
        if before != after:  # only the difference
            out.append((_interned_path(path), _Delta(after - before, before - after)))
        return
    if _same(before, after):
        return
    out.append((_interned_path(path), _kept(before)))


def _compare_lists(before: list[Any], after: list[Any], path: tuple[PathKey, ...], out: list[Leaf]) -> None:
    n, m = len(before), len(after)
    if n == m:
        for index in range(n):
            _compare(before[index], after[index], (*path, index), out)
        return
    if m > n and all(_same(before[i], after[i]) for i in range(n)):
        out.append((_interned_path(path), _cut(n)))
        return
    if m < n:
        # Items dropped, the others kept in order (a new round forgets old attacks).
        lost: list[tuple[int, Any]] = []
        j = 0
        for i, item in enumerate(before):
            if j < m and _same(item, after[j]):
                j += 1
            else:
                lost.append((i, _kept(item)))
        if j == m:
            out.append((_interned_path(path), _Reinsert(tuple(lost))))
            return
    out.append((_interned_path(path), _kept(before)))


def _child(parent: Any, key: PathKey) -> Any:
    return parent.__dict__[key] if isinstance(parent, BaseModel) else parent[key]


def _put_back(root: Encounter, path: tuple[PathKey, ...], value: Any) -> None:
    parent: Any = root
    for key in path[:-1]:
        parent = _child(parent, key)
    key = path[-1]
    if key is _FIELDS_SET:
        object.__setattr__(parent, "__pydantic_fields_set__", set(value))
        return
    if isinstance(value, _Cut):
        del _child(parent, key)[value.length :]
    elif isinstance(value, _Reinsert):
        items = _child(parent, key)
        for index, item in value.items:  # ascending: each lands where it was
            items.insert(index, _thawed(item))
    elif isinstance(value, _Keys):
        items = _child(parent, key)
        gone = value.gone
        restored = {k: _thawed(gone[k]) if k in gone else items[k] for k in value.order}
        items.clear()
        items.update(restored)
    elif isinstance(value, _Delta):
        was = _child(parent, key)
        if isinstance(value, _Cells):
            cells = undo_changes(was, value.added, value.removed)
        else:
            cells = (was - value.added) | value.removed
        if isinstance(parent, BaseModel):
            parent.__dict__[key] = cells
        else:
            parent[key] = cells
    elif isinstance(parent, BaseModel):
        # Straight into the fields: no validation and no set-field bookkeeping, exactly as it was.
        parent.__dict__[key] = _thawed(value)
    else:
        parent[key] = _thawed(value)


# The round log keeps every event for good. Events are frozen, so the set of the fields each was
# given is never changed after it is made (model_copy copies it first): events made alike share
# one set instead of carrying a few hundred bytes each of the same field names.
_EVENT_FIELD_SETS: dict[frozenset[str], set[str]] = {}


def _share_field_sets(events: list[Event]) -> None:
    for event in events:
        for model in (event, *(v for v in event.__dict__.values() if isinstance(v, BaseModel))):
            if not model.model_config.get("frozen"):
                continue
            key = frozenset(model.__pydantic_fields_set__)
            shared = _EVENT_FIELD_SETS.get(key)
            if shared is None:
                if len(_EVENT_FIELD_SETS) >= _INTERN_LIMIT:
                    continue
                shared = _EVENT_FIELD_SETS.setdefault(key, set(key))
            object.__setattr__(model, "__pydantic_fields_set__", shared)


@dataclass(slots=True)
class _Change:
    """What one action changed, as it was before: just enough to put the encounter back."""

    leaves: tuple[Leaf, ...]
    log_length: int

    def restore(self, e: Encounter) -> None:
        for path, value in reversed(self.leaves):
            _put_back(e, path, value)
        del e.log[self.log_length :]


@dataclass(slots=True)
class _Swap:
    """A ruleset conversion replaced the whole encounter: undo puts the old one back."""

    old: Encounter
    log_length: int


def _touched(step: int, change: _Change | _Swap, e: Encounter) -> Touched:
    """What ``change`` touches, read from its leaves while ``e`` is as the action left it (the leaves'
    paths go through the encounter as it is then)."""
    if isinstance(change, _Swap):
        return Touched(step)
    combatants: set[str] | None = set()
    tokens: set[str] | None = set()
    parts: set[str] = set()
    listed = e.combatants
    for path, value in change.leaves:
        head = path[0]
        if head == "combatants":
            if combatants is None:
                continue
            index = path[1] if len(path) > 1 else None
            if index is None:
                if isinstance(value, _Cut):
                    combatants.update(c.id for c in listed[value.length :])
                elif isinstance(value, _Reinsert):
                    combatants.update(item.id for _, item in value.items)
                else:
                    combatants = None
            elif isinstance(index, int) and index < len(listed) and path[2:3] != ("id",):
                combatants.add(listed[index].id)
            else:
                combatants = None
        elif head == "tokens":
            if tokens is None:
                continue
            if len(path) > 1:
                tokens.add(str(path[1]))
            elif isinstance(value, _Keys):
                tokens.update(set(value.order).symmetric_difference(e.tokens))
            else:
                tokens = None
        elif isinstance(head, str):
            parts.add(head)
    return Touched(
        step,
        None if combatants is None else frozenset(combatants),
        None if tokens is None else frozenset(tokens),
        frozenset(parts),
    )


@dataclass(slots=True)
class _Record:
    action: act.Action
    change: _Change | _Swap | None  # None once undone: a redo records the action afresh
    faces: tuple[int, ...]
    summary: str

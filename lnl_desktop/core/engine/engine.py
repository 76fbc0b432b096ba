"""The engine: the only way an encounter changes.

Each action is checked against the ruleset first (an illegal one is refused with all its
reasons and changes nothing), then applied; it returns the events it produced, which go into
the encounter's log. Every applied action can be undone back to the exact previous state and
redone with the very same dice. An action's cost and its undo record follow what it changed, not
the size of the encounter, and :attr:`Engine.touched` tells views which combatants and tokens each
change touched, so they can redraw just those.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from operator import is_
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from lnl_desktop.core.dice.rolls import DiceSource, RandomDice, RecordingDice, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import (
    ActionTaken,
    CellsRevealed,
    CombatantAdded,
    CombatantChanged,
    CombatantRemoved,
    CombatEnded,
    CombatStarted,
    DoorChanged,
    Event,
    FogChanged,
    InitiativeRolled,
    MapChanged,
    Moved,
    Override,
    PortraitChanged,
    RoundEnded,
    RulesetChanged,
    RulesEvent,
    TerrainChanged,
    TokenPlaced,
    TokenRemoved,
    Turned,
    TurnEnded,
    TurnStarted,
    Undone,
    VisibilityChanged,
    WallAdded,
    WallRemoved,
    WentDown,
)
from lnl_desktop.core.encounter.model import (
    MAX_PORTRAIT_CHARS,
    ActionKind,
    CombatantBase,
    CombatState,
    Door,
    Encounter,
    Phase,
    Side,
    Token,
    TurnState,
    WallSegment,
)
from lnl_desktop.core.encounter.validation import explain
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.map.grid import (
    Cell,
    MoveRules,
    Reach,
    cell_distance_ft,
    cheapest_path,
    diagonal_steps,
    direction_deg,
    footprint,
    footprint_center,
    map_terrain,
    path_cost_ft,
    point_words,
    reachable,
    snap_facing,
)
from lnl_desktop.core.map.sight import explore, party_sight
from lnl_desktop.core.rules.common import AttackMeans, AttackMode, Check, failed
from lnl_desktop.core.rules.registry import Ruleset, get_ruleset

Listener = Callable[[list[Event]], None]


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

_PARTS = frozenset({"name", "options", "map", "combat", "fog"})


@dataclass(frozen=True)
class Touched:
    """What the engine's last change of the encounter touched (an action, an undo, a redo, another
    encounter), so a view can redraw just that. ``step`` counts the changes: a view that caught up with
    step n - 1 may take in only this one; any other must look at everything again.

    ``combatants`` and ``tokens`` are the ids whose combatant or token changed in any way (in place,
    replaced, added or taken away), None when any may have (another encounter, combatants reordered).
    ``parts`` names the other parts that changed: "combat", "fog", "map", "options", "name".
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
# containers are compared with their copies, quickly where they hold the very same objects; only
# those that changed, and their holders, are looked at again, and what differs is kept as "leaves":
# (path, value as it was). So an action costs a comparison over the encounter, no copy of it, and a
# move keeps its token's cell and the turn's feet and path, nothing of the other 500 tokens. (A value
# replaced by an equal one of another type, 0 by 0.0, with nothing else of its holder changed, goes
# unseen: the engine's actions make no such change.) Lists that only grew (the turn's path, the
# attacks, the acted) keep just their old length; lists that lost items (a new round's attacks) keep
# just the lost items; a dict whose keys changed (a token placed or taken off) keeps its old order and
# the values it lost. The map and the options are immutable and shared, so they are kept by reference
# when an action replaces them. Undo writes the leaves back in place, so the encounter is exactly as it
# was (field values and pydantic's set-fields alike) and unchanged objects keep their identity. A set
# of cells that changed (the fog of war's explored cells) keeps only the cells added and removed.

_FIELDS_SET = object()  # path key: a model's __pydantic_fields_set__
_ENCOUNTER_PARTS = ("combatants", "tokens", "combat", "fog")  # shadowed, compared after an action
_SHARED_PARTS = ("name", "options", "map")  # replaced, never changed in place: kept by reference

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


_ATOMS = frozenset({str, int, float, bool, bytes, type(None), tuple, frozenset})  # immutable: never looked into


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
# holder (-1 for one of the encounter's parts) and the plan of its items.
_Entry = tuple[Any, Any, "set[str] | None", int, _Plan]
# What a container held before an action, by id(container), for the containers the action changed and
# their holders.
_Before = dict[int, tuple[Any, "set[str] | None"]]


def _list_containers(entries: list[_Entry], value: Any, plan: _Plan, holder: int) -> None:
    """Append an entry for ``value`` (held by entry ``holder``) and for every mutable container inside it.

    A whole encounter goes through here when its shadow is made, so this is written for speed: a list or
    dict of immutable items (a combatant's conditions, the acted) is listed without a call of its own."""
    add = entries.append
    plans = _FIELD_PLANS
    atoms = _ATOMS

    def visit(value: Any, plan: _Plan, holder: int) -> None:
        kind = type(value)
        here = len(entries)
        if kind is list or kind is dict:
            add((value, value.copy(), None, holder, plan))
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
        add((value, own.copy(), value.__pydantic_fields_set__.copy(), holder, _ANY))
        for name, field_plan in fields:
            item = own[name]
            kind = type(item)
            if kind in atoms:
                continue
            if field_plan.items is None and (kind is list or kind is dict):
                add((item, item.copy(), None, here, field_plan))
            else:
                visit(item, field_plan, here)

    if type(value) not in atoms:
        visit(value, plan, holder)


class _Shadow:
    """The encounter's mutable containers as the engine last left them, each copied one level deep.

    Every model, list and dict inside the combatants, tokens, combat state and fog is listed (once per
    place it is held) with a copy of what it holds. After an action the containers are compared with
    their copies, quickly where they hold the very same objects; only those that changed, and their
    holders, are looked at again (for the undo's leaves) and copied again, and containers the action
    added are listed. So an action costs one comparison over the encounter, not a copy of it.

    The shadow holds while nothing but the engine changes the encounter (the engine is the only way an
    encounter changes); another encounter object, or another object as one of its parts, starts a fresh
    one. Entries of containers an action let go stay until there are as many again as at the start;
    then the shadow is made afresh, so a long fight's shadow does not grow.
    """

    __slots__ = ("encounter", "entries", "limit", "parts")

    def __init__(self, encounter: Encounter) -> None:
        self.encounter = encounter
        self.parts = {name: encounter.__dict__[name] for name in _ENCOUNTER_PARTS}
        self.entries: list[_Entry] = []
        for part in self.parts.values():
            _list_containers(self.entries, part, _ANY, -1)
        self.limit = 2 * len(self.entries) + 256

    def holds(self, encounter: Encounter) -> bool:
        """Whether this is the shadow of ``encounter`` as it is (its parts the same objects), not too stale."""
        if encounter is not self.encounter or len(self.entries) > self.limit:
            return False
        now = encounter.__dict__
        return all(now[name] is part for name, part in self.parts.items())

    def _dirty(self) -> list[int]:
        """The entries whose container holds something else now, and the entries of their holders.

        Compared by equality, which is quick where the items are the very same objects. A container that
        now holds an equal copy of an item it held counts as unchanged (only its value matters), unless the
        old item changed in place too: the old item's entry marks the container then, and its places are
        compared by identity (:func:`_place`)."""
        entries = self.entries
        dirty: dict[int, None] = {}
        for index, (container, was, fields, _, _) in enumerate(entries):
            if fields is None:
                if container == was:
                    continue
            elif container.__dict__ == was and container.__pydantic_fields_set__ == fields:
                continue
            while index >= 0 and index not in dirty:
                dirty[index] = None
                index = entries[index][3]
        return list(dirty)

    def change(self, shared: dict[str, Any], fields_set: set[str], log_length: int) -> _Change:
        """What the action just applied changed (``shared``, ``fields_set`` and ``log_length``: the
        encounter's immutable parts, set fields and log length before it); the shadow follows it."""
        e = self.encounter
        leaves: list[Leaf] = []
        now = e.__dict__
        for name, value in shared.items():
            if not _same(value, now[name]):
                leaves.append((_interned_path((name,)), value))
        dirty = self._dirty()
        entries = self.entries
        before = {id(entries[i][0]): (entries[i][1], entries[i][2]) for i in dirty}
        for name, part in self.parts.items():
            _place(part, now[name], (), name, before, leaves)
        if fields_set != e.__pydantic_fields_set__:
            leaves.append((_interned_path((_FIELDS_SET,)), _frozen_fields(fields_set)))
        self._follow(dirty)
        return _Change(tuple(leaves), log_length)

    def follow(self) -> None:
        """Catch up with the encounter after the engine put it back (an undo, a refused action)."""
        self._follow(self._dirty())

    def _follow(self, dirty: list[int]) -> None:
        """Copy the changed containers again and list the containers they hold in new places."""
        entries = self.entries
        atoms = _ATOMS
        for index in dirty:
            container, was, _, holder, plan = entries[index]
            kind = type(container)
            if kind is list or kind is dict:
                entries[index] = (container, container.copy(), None, holder, plan)
                items = plan.items
                if items is None:
                    continue
                if kind is list:
                    placed = [
                        item
                        for i, item in enumerate(container)
                        if type(item) not in atoms and (i >= len(was) or was[i] is not item)
                    ]
                else:
                    placed = [
                        item for key, item in container.items() if type(item) not in atoms and was.get(key) is not item
                    ]
                for item in placed:
                    _list_containers(entries, item, items, index)
                continue
            own = container.__dict__
            entries[index] = (container, own.copy(), container.__pydantic_fields_set__.copy(), holder, plan)
            for name, field_plan in _field_plans(kind) or ():
                item = own[name]
                if type(item) not in atoms and was.get(name) is not item:
                    _list_containers(entries, item, field_plan, index)
        now = self.encounter.__dict__
        for name, part in self.parts.items():
            if now[name] is not part:
                self.parts[name] = now[name]
                _list_containers(entries, now[name], _ANY, -1)


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
        for index in range(n):
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
    if type(before) is frozenset and type(after) is frozenset:
        if before != after:  # only the difference: a fog of war's explored cells grow by a few at a time
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
        cells = (_child(parent, key) - value.added) | value.removed
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


def _ft(value: float) -> str:
    return f"{value:g} ft"


class Engine:
    """Applies actions to one :class:`Encounter`, keeps its undo history, tells listeners."""

    def __init__(
        self,
        encounter: Encounter | None = None,
        dice: DiceSource | None = None,
        ruleset: Ruleset | None = None,
    ) -> None:
        self.encounter = encounter if encounter is not None else Encounter()
        self.dice: DiceSource = dice if dice is not None else RandomDice()
        self.ruleset: Ruleset = ruleset or get_ruleset(self.encounter.ruleset)
        if self.ruleset.name != self.encounter.ruleset:
            raise RulesError(f"ruleset: the encounter is for {self.encounter.ruleset!r}, not {self.ruleset.name!r}")
        map_terrain(self.encounter.map)
        self._undo: list[_Record] = []
        self._redo: list[_Record] = []
        self._listeners: list[Listener] = []
        self._history_listeners: list[HistoryListener] = []
        # The encounter as the engine last left it, to find out what an action changes (see _Shadow).
        self._shadow: _Shadow | None = None
        self.touched = Touched(0)  # what the last change touched, for views that redraw only that

    # -- history and listeners ---------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def subscribe_history(self, listener: HistoryListener) -> None:
        """Be told of every apply, undo and redo before the event listeners are (a journal)."""
        self._history_listeners.append(listener)

    def _tell_history(self, step: HistoryStep) -> None:
        for listener in list(self._history_listeners):
            listener(step)

    def _tell(self, events: list[Event]) -> None:
        for listener in list(self._listeners):
            listener(events)

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def undo_text(self) -> str:
        return self._undo[-1].summary if self._undo else ""

    @property
    def redo_text(self) -> str:
        return self._redo[-1].summary if self._redo else ""

    def _set_encounter(self, encounter: Encounter) -> None:
        if encounter.ruleset != self.ruleset.name:
            self.ruleset = get_ruleset(encounter.ruleset)
        self.encounter = encounter
        map_terrain(encounter.map)  # the map's cached terrain with its wall segments and closed doors

    def replace(self, encounter: Encounter) -> None:
        """Start over on another encounter (New, Open, recovery): its ruleset, a fresh history."""
        self._set_encounter(encounter)
        self.clear_history()
        self.touched = Touched(self.touched.step + 1)

    def _shadow_of(self, encounter: Encounter) -> _Shadow:
        shadow = self._shadow
        if shadow is None or not shadow.holds(encounter):
            shadow = self._shadow = _Shadow(encounter)
        return shadow

    def clear_history(self) -> None:
        self._undo.clear()
        self._redo.clear()

    def apply(self, action: act.Action, dice: DiceSource | None = None) -> list[Event]:
        """Check and apply one action; return its events. Refused actions change nothing."""
        events = self._apply(action, dice)
        self._redo.clear()
        self._tell_history(HistoryStep("apply", action, self._undo[-1].faces))
        self._tell(events)
        return events

    def _apply(self, action: act.Action, dice: DiceSource | None) -> list[Event]:
        handler = self._handlers.get(type(action)) or self.ruleset.handlers.get(type(action))
        if handler is None:
            raise IllegalAction(
                type(action).__name__, [f"{self.ruleset.title} has no such action ({type(action).__name__})"]
            )
        recorder = RecordingDice(dice if dice is not None else self.dice)
        old = self.encounter
        shadow = self._shadow_of(old)
        shared = {name: old.__dict__[name] for name in _SHARED_PARTS}
        fields_set = set(old.__pydantic_fields_set__)
        log_length = len(old.log)
        try:
            # Read before the handler runs: taking a counter-attack takes it off the pending queue.
            attack = self.ruleset.attack_of(old, action) if old.options.face_target_on_attack else None
            events = handler(self, action, recorder)
            if attack is not None:
                events = self._face_target(events, *attack)
            if self.encounter.fog.enabled and self._sight_may_grow(action):
                self._explore()
        except Exception:
            # Handlers check before they change, but a half-applied action must never remain.
            shadow.change(shared, fields_set, log_length).restore(old)
            shadow.follow()
            self._set_encounter(old)
            raise
        change: _Change | _Swap
        if self.encounter is old:
            change = shadow.change(shared, fields_set, log_length)
        else:
            change = _Swap(old, log_length)
            self._shadow = None
        self.touched = _touched(self.touched.step + 1, change, self.encounter)
        _share_field_sets(events)
        self.encounter.log.extend(events)
        summary = events[0].text if events else type(action).__name__
        self._undo.append(_Record(action, change, tuple(recorder.faces), summary))
        return events

    def undo(self) -> list[Event]:
        """Put the encounter back exactly as it was before the last action."""
        if not self._undo:
            raise RulesError("there is nothing to undo")
        record = self._undo.pop()
        change = record.change
        assert change is not None
        log = self.encounter.log
        # Earlier undos after this point stay in the log: every undo is part of the story.
        kept = [e for e in log[change.log_length :] if isinstance(e, Undone)]
        self.touched = _touched(self.touched.step + 1, change, self.encounter)  # before: paths lead through it
        if isinstance(change, _Swap):
            self._set_encounter(change.old)
            del change.old.log[change.log_length :]
        else:
            change.restore(self.encounter)
            if self._shadow is not None and self._shadow.encounter is self.encounter:
                self._shadow.follow()
        log = self.encounter.log
        record.change = None  # spent: the values it kept are the encounter's own now
        log.extend(kept)
        self._redo.append(record)
        event = Undone(round=self._round(), text=f"Undone: {record.summary}", undone=record.summary)
        self.encounter.log.append(event)
        self._tell_history(HistoryStep("undo"))
        self._tell([event])
        return [event]

    def redo(self) -> list[Event]:
        """Apply the last undone action again, with the very same dice faces."""
        if not self._redo:
            raise RulesError("there is nothing to redo")
        record = self._redo.pop()
        try:
            events = self._apply(record.action, ScriptedDice(record.faces))
        except RulesError:
            self._redo.append(record)
            raise
        self._tell_history(HistoryStep("redo", record.action, record.faces))
        self._tell(events)
        return events

    # -- queries -----------------------------------------------------------------------------

    def combatant(self, cid: str) -> Any:
        """The combatant ``cid``: an instance of the encounter's ruleset's stat block."""
        return self.encounter.combatant(cid)

    def may_act(self, c: CombatantBase) -> bool:
        """Whether ``c`` still gets a turn this round."""
        combat = self.encounter.combat
        if combat.phase is not Phase.FIGHTING or c.id in combat.acted:
            return False
        return self.ruleset.turn_refusal(self.encounter, c) is None

    def acting_side(self) -> Side | None:
        """The side whose members pick turns now (by default the first side until it is done, then the other)."""
        return self.ruleset.acting_side(self)

    def waiting(self) -> list[Any]:
        """Who may take the next turn: the acting side's members who have not acted, or the next
        place of the round's initiative order where the ruleset sets one."""
        return self.ruleset.waiting(self)

    @property
    def elapsed_seconds(self) -> int:
        """Time the finished rounds took, by the ruleset's round length (6 s in L&L)."""
        combat = self.encounter.combat
        return max(0, combat.round - combat.first_round) * self.ruleset.round_seconds

    @property
    def round_over(self) -> bool:
        combat = self.encounter.combat
        return combat.phase is Phase.FIGHTING and combat.turn is None and self.acting_side() is None

    def feet_left(self, cid: str) -> float | None:
        """Movement left this turn, or None when it is not this combatant's turn."""
        turn = self.encounter.combat.turn
        if turn is None or turn.combatant != cid:
            return None
        return self._allowance(self.combatant(cid)) - turn.feet_used

    def _allowance(self, c: Any) -> float:
        """How far ``c`` may move this turn in all: none while a condition holds it or takes its turn."""
        if c.incapacitated_by is not None or c.held_by is not None:
            return 0.0
        return self.ruleset.move_allowance(self, c)

    def stopped_by(self, c: Any) -> str | None:
        """Why ``c`` may not move on its own (RULES §10: stunned, grappled...), or None."""
        word = c.incapacitated_by
        if word is not None:
            return f"{c.name} is {word}: no action and no move, only End turn"
        word = c.held_by
        if word is not None:
            return f"{c.name} is {word}: Move 0"
        return self.ruleset.move_refusal(self, c)

    def move_rules(self, cid: str) -> MoveRules:
        grid, options = self.encounter.map, self.encounter.options
        leaping = self.ruleset.terrain_free(self, cid)
        return MoveRules(
            rule=grid.diagonal,
            feet_per_cell=grid.feet_per_cell,
            difficult_multiplier=options.difficult_multiplier,
            ignore_difficult=leaping,
            pass_over_walls=leaping,
        )

    def blockers(self, cid: str) -> tuple[frozenset[Cell], frozenset[Cell]]:
        """(enemy cells that cannot be passed, every other token's cells that cannot be ended on)."""
        mover = self.combatant(cid)
        enemies: set[Cell] = set()
        occupied: set[Cell] = set()
        by_id = self.encounter.by_id()
        for cell, other_id in self.encounter.occupied_by(exclude=cid).items():
            occupied.add(cell)
            other = by_id[other_id]
            # A creature that is down no longer bars the way, though nobody may stand on it.
            if other.side is not mover.side and not other.down:
                enemies.add(cell)
        return frozenset(enemies), frozenset(occupied)

    def reach(self, cid: str, budget_ft: float | None = None, allowed: Callable[[Cell], bool] | None = None) -> Reach:
        """The cells ``cid`` can still move to this turn (or within ``budget_ft``)."""
        token = self._token(cid)
        turn = self.encounter.combat.turn
        if budget_ft is None:
            left = self.feet_left(cid)
            budget_ft = left if left is not None else float(self.combatant(cid).move_ft)
        diagonals = turn.diagonals if turn and turn.combatant == cid else 0
        enemies, occupied = self.blockers(cid)
        return reachable(
            map_terrain(self.encounter.map),
            token.cell,
            self.combatant(cid).size,
            budget_ft,
            self.move_rules(cid),
            enemies=enemies,
            occupied=occupied,
            allowed=allowed,
            diagonals_before=diagonals,
        )

    def means(self, c: Any, name: str, spell: bool = False) -> AttackMeans:
        return self.ruleset.means(c, name, spell)

    def attack_checks(
        self, attacker: str, target: str, means: str, mode: AttackMode = AttackMode.ATTACK
    ) -> list[Check]:
        """Every condition of the attack with its reason: the turn, the weapon, the distance."""
        a, t = self.combatant(attacker), self.combatant(target)
        weapon = self.means(a, means, spell=mode is AttackMode.SPELL)
        checks = self.turn_checks(a, needs_action=True)
        checks += self.ruleset.attack_checks(self.encounter, a, t, weapon, mode)
        return checks

    def sneak_checks(self, attacker: str, target: str, weapon: str) -> list[Check]:
        """RULES §7's eligibility points for a sneak attack, each with its reason."""
        a, t = self.combatant(attacker), self.combatant(target)
        return self.ruleset.sneak_checks(self.encounter, a, t, a.weapon(weapon))

    def concealment_details(self, attacker: str, target: str) -> list[Check]:
        """How the attacker may count as concealed or the target as distracted, point by point."""
        return self.ruleset.concealment_details(self.encounter, self.combatant(attacker), self.combatant(target))

    def turn_checks(self, c: CombatantBase, needs_action: bool, kind: str | None = None) -> list[Check]:
        """Whether it is ``c``'s turn and, if asked, whether its action is still unused (or, as the
        ruleset says, still open to another action of ``kind``: the next of several attacks)."""
        combat = self.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return [Check("Combat under way", False, "combat has not started")]
        turn = combat.turn
        checks = [
            Check(
                f"{c.name}'s turn",
                turn is not None and turn.combatant == c.id,
                "no turn is under way" if turn is None else f"it is {self.combatant(turn.combatant).name}'s turn",
            )
        ]
        if needs_action and turn is not None and turn.combatant == c.id and c.incapacitated_by is not None:
            # RULES §10: its turn offers only End turn, saying why.
            checks.append(Check("Able to act", False, f"{c.name} is {c.incapacitated_by}: only End turn"))
        if needs_action and turn is not None and turn.combatant == c.id:
            more = self.ruleset.action_open(self.encounter, c, kind) if turn.action else ""
            checks.append(
                Check(
                    more or "Action not used yet",
                    turn.action is None or bool(more),
                    f"already took its action ({turn.action})" if turn.action and not more else "",
                )
            )
        return checks

    # -- helpers -----------------------------------------------------------------------------

    def _token(self, cid: str) -> Token:
        token = self.encounter.tokens.get(cid)
        if token is None:
            raise RulesError(f"{self.combatant(cid).name} is not on the map")
        return token

    def _round(self) -> int:
        return self.encounter.combat.round

    def require(self, action: str, checks: list[Check]) -> None:
        """Refuse ``action`` with the reasons of the checks that block, if any do."""
        reasons = failed(checks)
        if reasons:
            raise IllegalAction(action, reasons)

    def use_action(self, c: CombatantBase, kind: str, detail: str = "") -> TurnState:
        """Spend ``c``'s action of this turn on ``kind``; refused if it is not ``c``'s turn or the action is used."""
        self.require(f"{c.name}: {kind}", self.turn_checks(c, needs_action=True, kind=kind))
        turn = self.encounter.combat.turn
        assert turn is not None
        turn.action = kind
        turn.action_detail = detail
        return turn

    # -- the round ---------------------------------------------------------------------------

    def _start_combat(self, a: act.StartCombat, dice: DiceSource) -> list[Event]:
        e = self.encounter
        if e.combat.phase is Phase.FIGHTING:
            raise IllegalAction("Start combat", ["combat is already under way"])
        if not e.side(Side.PARTY) or not e.side(Side.OPPONENTS):
            raise IllegalAction("Start combat", ["both sides need at least one combatant"])
        # The ruleset reads the dice (or the GM's hand): the first round, who acts first, who is surprised.
        opening = self.ruleset.open_combat(self, a, dice)
        first = opening.first_round
        # A ruleset's own combat fields (Group d10's declarations) carry over into the fight.
        carried = {k: getattr(e.combat, k) for k in type(e.combat).model_fields if k not in CombatState.model_fields}
        e.combat = type(e.combat)(
            **carried,
            phase=Phase.FIGHTING,
            round=first,
            first_round=first,
            situation=opening.situation,
            initiative_face=opening.initiative_face or opening.face,
            first_side=opening.first_side,
            surprised_side=opening.surprised_side,
            order=list(opening.order),
        )
        surprised = opening.surprised_side
        for c in e.combatants:
            c.surprised = (c.side is surprised or c.id in opening.surprised) and not c.cannot_be_surprised
        self.ruleset.on_combat_start(self)
        events: list[Event] = [
            CombatStarted(
                round=first,
                text=opening.text,
                situation=opening.situation,
                face=opening.face,
                first_side=opening.first_side.value,
                surprised_side=surprised.value if surprised else None,
            )
        ]
        awake = [c.name for c in e.side(surprised) if c.cannot_be_surprised] if surprised else []
        if awake:
            events.append(Override(round=first, text=f"Cannot be surprised, act normally: {', '.join(awake)}"))
        events += self.ruleset.on_round_start(self)
        return events

    def _next_round(self, a: act.NextRound, dice: DiceSource) -> list[Event]:
        e = self.encounter
        combat = e.combat
        if combat.phase is not Phase.FIGHTING:
            raise IllegalAction("Next round", ["combat has not started"])
        if combat.turn is not None:
            raise IllegalAction(
                "Next round", [f"{self.combatant(combat.turn.combatant).name}'s turn is still under way"]
            )
        order = self.ruleset.round_order(self, a, dice)
        events: list[Event] = []
        name = combat.round_name
        skipped = [c.name for c in e.combatants if self.may_act(c)]
        if skipped:
            events.append(Override(round=combat.round, text=f"{name} ended before {', '.join(skipped)} acted"))
        events.append(RoundEnded(round=combat.round, text=f"{name} ends"))
        combat.round += 1
        combat.initiative_face = order.face
        combat.first_side = order.first_side
        combat.surprised_side = None
        combat.acted = []
        combat.order = list(order.order)
        combat.free_attacks = {}
        combat.attacks = [r for r in combat.attacks if r.round >= combat.round - 1]
        for c in e.combatants:
            c.surprised = False
        events.append(
            InitiativeRolled(
                round=combat.round,
                text=f"Round {combat.round}: {order.text}",
                face=order.face,
                first_side=order.first_side.value,
            )
        )
        events += self.ruleset.on_round_start(self)
        return events

    def _end_combat(self, a: act.EndCombat, dice: DiceSource) -> list[Event]:
        combat = self.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            raise IllegalAction("End combat", ["combat is not under way"])
        combat.phase = Phase.ENDED
        combat.turn = None
        for c in self.encounter.combatants:
            c.surprised = False
        self.ruleset.on_combat_end(self)
        return [CombatEnded(round=combat.round, text=f"Combat ends after {combat.round} round(s)")]

    def _begin_turn(self, a: act.BeginTurn, dice: DiceSource) -> list[Event]:
        e = self.encounter
        c = self.combatant(a.combatant)
        combat = e.combat
        title = f"{c.name}'s turn"
        if combat.phase is not Phase.FIGHTING:
            raise IllegalAction(title, ["combat has not started"])
        if combat.turn is not None:
            raise IllegalAction(title, [f"{self.combatant(combat.turn.combatant).name}'s turn is still under way"])
        reasons: list[str] = []
        side = self.acting_side()
        refusal = self.ruleset.turn_refusal(e, c)
        if c.id in combat.acted:
            reasons.append(f"{c.name} has already acted this round")
        elif refusal is not None:
            reasons.append(refusal)
        elif side is None:
            reasons.append("the round is over: roll initiative for the next one")
        else:
            later = self.ruleset.order_refusal(self, c)
            if later is not None:
                reasons.append(later)
        if reasons:
            raise IllegalAction(title, reasons)
        token = e.tokens.get(c.id)
        combat.turn = TurnState(
            combatant=c.id,
            start_cell=token.cell if token else None,
            concealed_at_start=c.concealed,
            path=[token.cell] if token else [],
        )
        events: list[Event] = [TurnStarted(round=combat.round, text=f"{c.name}'s turn", actors=(c.id,), combatant=c.id)]
        events += self.ruleset.on_turn_start(self, c)
        # "Hit by a ranged attack since its last turn" ends when that turn comes.
        combat.ranged_hits.pop(c.id, None)
        return events

    def _end_turn(self, a: act.EndTurn, dice: DiceSource) -> list[Event]:
        combat = self.encounter.combat
        turn = combat.turn
        if turn is None:
            raise IllegalAction("End turn", ["no turn is under way"])
        c = self.combatant(turn.combatant)
        combat.acted.append(c.id)
        combat.turn = None
        did = turn.action or "no action"
        events: list[Event] = [
            TurnEnded(
                round=combat.round,
                text=f"{c.name} ends the turn ({did}, moved {_ft(turn.feet_used)})",
                actors=(c.id,),
                combatant=c.id,
                feet_used=turn.feet_used,
            )
        ]
        if self.acting_side() is None:
            events.append(RoundEnded(round=combat.round, text=f"Everyone has acted: {combat.round_phrase} is over"))
        return events

    # -- movement ----------------------------------------------------------------------------

    def _move(self, a: act.Move, dice: DiceSource) -> list[Event]:
        e = self.encounter
        c = self.combatant(a.combatant)
        token = self._token(c.id)
        title = f"{'Forced move' if a.forced else 'Move'} of {c.name}"
        combat = e.combat
        turn = combat.turn
        in_turn = turn is not None and turn.combatant == c.id
        free = a.forced or combat.phase is not Phase.FIGHTING
        if not free and not in_turn:
            who = "no turn is under way" if turn is None else f"it is {self.combatant(turn.combatant).name}'s turn"
            raise IllegalAction(title, [f"{who}; a forced move moves {c.name} without spending movement"])
        if not free and c.down:
            raise IllegalAction(title, [f"{c.name} is down"])
        stopped = None if free else self.stopped_by(c)
        if stopped is not None:
            raise IllegalAction(title, [f"{stopped}; a forced move moves {c.name} without spending movement"])

        enemies, occupied = self.blockers(c.id)
        rules = self.move_rules(c.id)
        terrain = map_terrain(e.map)
        diagonals = turn.diagonals if in_turn and turn else 0
        if free:
            path = list(a.path) if a.path else [token.cell, a.to] if a.to is not None else None
            if path is None:
                raise IllegalAction(title, ["no destination given"])
            if path[0] != token.cell:
                path.insert(0, token.cell)
            end = path[-1]
            problems = self._end_cell_problems(c, end, occupied)
            if problems:
                raise IllegalAction(title, problems)
            feet = cell_distance_ft(path[0], end, e.map.diagonal, e.map.feet_per_cell)
        else:
            assert turn is not None
            left = self._allowance(c) - turn.feet_used
            if a.path:
                path = list(a.path)
                if path[0] != token.cell:
                    path.insert(0, token.cell)
                try:
                    feet = path_cost_ft(
                        terrain, path, c.size, rules, enemies=enemies, occupied=occupied, diagonals_before=diagonals
                    )
                except ValueError as error:
                    raise IllegalAction(title, [str(error)]) from None
            elif a.to is not None:
                problems = self._end_cell_problems(c, a.to, occupied)
                if problems:
                    raise IllegalAction(title, problems)
                found = cheapest_path(
                    terrain,
                    token.cell,
                    a.to,
                    c.size,
                    max(left, 0),
                    rules,
                    enemies=enemies,
                    occupied=occupied,
                    diagonals_before=diagonals,
                )
                if found is None:
                    # Out of reach: search without a budget only to say how far it really is.
                    far = cheapest_path(
                        terrain,
                        token.cell,
                        a.to,
                        c.size,
                        float("inf"),
                        rules,
                        enemies=enemies,
                        occupied=occupied,
                        diagonals_before=diagonals,
                    )
                    if far is None:
                        raise IllegalAction(title, [f"no way through to {a.to}: walls or enemies bar every path"])
                    found = far
                path, feet = found
            else:
                raise IllegalAction(title, ["no destination given"])
            if feet > left + 1e-9:
                raise IllegalAction(title, [f"needs {_ft(feet)} but {c.name} has {_ft(max(left, 0))} of movement left"])
            if turn.action is None:
                turn.feet_before += feet
            else:
                turn.feet_after += feet
            turn.diagonals += diagonal_steps(path)
            turn.path.extend(path[1:])
        if len(path) < 2 or path[-1] == path[0]:
            raise IllegalAction(title, [f"{c.name} is already there"])
        token.cell = path[-1]
        left_after = self.feet_left(c.id) if in_turn and not a.forced else None
        what = "is forced" if a.forced else "moves"
        tail = f", {_ft(left_after)} left" if left_after is not None else ""
        cost = "free" if free else _ft(feet)
        moved: list[Event] = [
            Moved(
                round=combat.round,
                text=f"{c.name} {what} from {path[0]} to {path[-1]} ({cost}{tail})",
                actors=(c.id,),
                combatant=c.id,
                path=path,
                feet=0 if free else feet,
                forced=a.forced,
                feet_left=left_after,
            )
        ]
        # Counter-attacks and free attacks are judged on the path as it was walked.
        return moved + self.ruleset.after_move(self, c, path, a.forced or combat.phase is not Phase.FIGHTING)

    def _end_cell_problems(self, c: CombatantBase, anchor: Cell, occupied: frozenset[Cell]) -> list[str]:
        grid = self.encounter.map
        problems: list[str] = []
        for cell in footprint(anchor, c.size):
            x, y = cell
            if not (0 <= x < grid.width and 0 <= y < grid.height):
                problems.append(f"{cell} is off the map")
            elif cell in grid.walls:
                problems.append(f"{cell} is a wall")
            elif cell in occupied:
                other = self.encounter.occupied_by(exclude=c.id)[cell]
                problems.append(f"{cell} is taken by {self.combatant(other).name}")
        return problems[:1]

    def _face(self, a: act.Face, dice: DiceSource) -> list[Event]:
        c = self.combatant(a.combatant)
        token = self._token(c.id)
        new = a.facing % 360
        old = token.facing
        if new == old:
            raise IllegalAction(f"Turn {c.name}", [f"already faces {old} degrees"])
        token.facing = new
        return [
            Turned(
                round=self.encounter.combat.round,
                text=f"{c.name} turns to face {new} degrees",
                actors=(c.id,),
                combatant=c.id,
                old_facing=old,
                new_facing=new,
            )
        ]

    def _face_target(self, events: list[Event], attacker: str, target: str) -> list[Event]:
        """The attacker turns to face its target (part of the attack's undo step), in the 45 degree
        steps the map turns a token by. The line goes after the attack's own line: the undo text
        reads the first event and the status bar the last."""
        e = self.encounter
        token, aimed = e.tokens.get(attacker), e.tokens.get(target)
        if token is None or aimed is None or attacker == target:
            return events  # off the map: no facing to turn
        c, t = e.combatant(attacker), e.combatant(target)
        me, there = footprint_center(token.cell, c.size), footprint_center(aimed.cell, t.size)
        if me == there:
            return events
        new = snap_facing(direction_deg(me, there), 45)
        old = token.facing
        if new == old:
            return events
        token.facing = new
        turned = Turned(
            round=e.combat.round,
            text=f"{c.name} turns to face {t.name}",
            actors=(c.id,),
            combatant=c.id,
            old_facing=old,
            new_facing=new,
        )
        at = next((i + 1 for i, event in enumerate(events) if attacker in event.actors), min(1, len(events)))
        return [*events[:at], turned, *events[at:]]

    # -- actions of the turn ------------------------------------------------------------------

    def _other(self, a: act.OtherAction, dice: DiceSource) -> list[Event]:
        c = self.combatant(a.combatant)
        text = a.text.strip()
        if not text:
            raise IllegalAction(f"{c.name}'s action", ["say what the action is"])
        self.use_action(c, ActionKind.OTHER, text)
        return [
            ActionTaken(
                round=self.encounter.combat.round,
                text=f"{c.name}: {text}",
                actors=(c.id,),
                combatant=c.id,
                action="other",
                detail=text,
            )
        ]

    # -- editing -----------------------------------------------------------------------------

    def _edit(self, a: act.EditCombatant, dice: DiceSource) -> list[Event]:
        e = self.encounter
        old = self.combatant(a.combatant)
        if not a.changes:
            raise IllegalAction(f"Edit {old.name}", ["nothing to change"])
        if "id" in a.changes and a.changes["id"] != old.id:
            raise IllegalAction(f"Edit {old.name}", ["id: a combatant's id does not change"])
        watched = self.ruleset.health_fields()
        if len(a.changes) == 1 and next(iter(a.changes)) in watched:
            # A value the rules watch never changes without them: the difference is damage or healing.
            key, value = next(iter(a.changes.items()))
            return self._set_health(act.SetHealth(old.id, key, value), dice)
        data = old.model_dump()
        data.update(a.changes)
        try:
            new = type(old).model_validate(data)
        except ValidationError as error:
            raise RulesError(f"{old.name}: {explain(error)}", explain(error).split("\n")) from None
        index = e.combatants.index(old)
        e.combatants[index] = new
        if new.size != old.size:
            # The id cannot change, so the size is all an edit can break (a bigger token may not fit);
            # the whole check costs a search of the combatants per token, too much for every edit.
            self._check_encounter(f"Edit {old.name}")
        events: list[Event] = []
        before, after = old.model_dump(mode="json"), new.model_dump(mode="json")
        for key in a.changes:
            if before.get(key) != after.get(key):
                events.append(
                    CombatantChanged(
                        round=self.encounter.combat.round,
                        text=f"{new.name}: {describe_change(key, before.get(key), after.get(key))}",
                        actors=(new.id,),
                        combatant=new.id,
                        field=key,
                        old=_show(before.get(key)),
                        new=_show(after.get(key)),
                    )
                )
        if not events:
            raise IllegalAction(f"Edit {old.name}", ["the values are the same as before"])
        return events

    # -- damage and healing by hand (RULES §10) --------------------------------------------------

    def _by_hand(self, a: act.DamageByHand, dice: DiceSource) -> list[Event]:
        c = self.combatant(a.combatant)
        title = f"{'Heal' if a.heal else 'Damage'} {c.name}"
        amount = a.amount
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise IllegalAction(title, ["the amount is a whole number, such as 7"])
        if amount < 0:
            raise IllegalAction(
                title,
                [
                    f"the amount is {amount}: type a number above 0 "
                    f"({'damage' if a.heal else 'heal'} to go the other way)"
                ],
            )
        if amount == 0:
            raise IllegalAction(title, ["the amount is 0: nothing to apply"])
        if amount > 10_000:
            raise IllegalAction(title, [f"{amount} is more than the 10000 a sheet can hold"])
        reason = " ".join(a.reason.split())
        if len(reason) > 200:
            raise IllegalAction(title, ["the reason is longer than 200 characters"])
        kinds = dict(self.ruleset.hand_kinds(a.heal))
        typed = set(self.ruleset.health_fields().values())
        kind = a.kind or next(iter(kinds), "")
        if kind not in kinds and kind not in typed:
            offered = ", ".join(kinds.values()) or "none"
            raise IllegalAction(
                title,
                [
                    f"{self.ruleset.title} has no such kind of {'healing' if a.heal else 'damage'}: "
                    f"{kind!r} (it has: {offered})"
                ],
            )
        return self._hand_events(c, amount, a.heal, kind, reason, self.ruleset.by_hand(self, c, amount, a.heal, kind))

    def _hand_events(self, c: Any, amount: int, heal: bool, kind: str, reason: str, events: list[Event]) -> list[Event]:
        """Everything the rules did, said in one line of the log with the GM's reason."""
        actors: list[str] = [c.id]
        for event in events:
            actors += [x for x in event.actors if x not in actors]
        overkill = next((e.overkill for e in events if isinstance(e, WentDown)), 0)
        why = f" ({reason})" if reason else ""
        text = f"By hand{why}: " + "; ".join(e.text for e in events)
        detail: dict[str, int | float | str | bool | None] = {
            "combatant": c.id,
            "amount": amount,
            "heal": heal,
            "damage_kind": kind,
            "reason": reason,
            "overkill": overkill,
            "down": bool(c.down),
        }
        return [
            RulesEvent(
                round=self._round(),
                text=text,
                actors=tuple(actors),
                ruleset=self.ruleset.name,
                name="by hand",
                detail=detail,
            )
        ]

    def _set_health(self, a: act.SetHealth, dice: DiceSource) -> list[Event]:
        c = self.combatant(a.combatant)
        fields = self.ruleset.health_fields()
        if a.field not in fields:
            raise IllegalAction(f"Edit {c.name}", [f"{a.field} is not a value the rules watch in {self.ruleset.title}"])
        value, now = a.value, getattr(c, a.field)
        label = {"hp": "HP", "stamina": "SP", "injury": "IP"}.get(a.field, a.field.replace("_", " "))
        if isinstance(value, bool) or not isinstance(value, int):
            raise IllegalAction(f"Edit {c.name}", [f"{label}: type a whole number"])
        if value < 0:
            raise IllegalAction(f"Edit {c.name}", [f"{label}: {value} is below 0"])
        top = getattr(c, f"{a.field}_max", None)
        if top is None and a.field == "stamina":
            top = c.stamina_max
        if top is None and a.field == "injury":
            top = c.injury_max
        if top is not None and value > top:
            raise IllegalAction(f"Edit {c.name}", [f"{label}: {value} {label} is above the maximum of {top}"])
        if value == now:
            raise IllegalAction(f"Edit {c.name}", ["the values are the same as before"])
        heal = value > now
        return self._by_hand(act.DamageByHand(c.id, abs(value - now), heal, fields[a.field], a.reason), dice)

    def _check_encounter(self, title: str) -> None:
        try:
            Encounter._references_hold(self.encounter)
        except ValueError as error:
            raise IllegalAction(title, [str(error)]) from None

    def _add(self, a: act.AddCombatant, dice: DiceSource) -> list[Event]:
        e = self.encounter
        data = dict(a.data)
        first = None
        if isinstance(data.get("name"), str) and data["name"].strip():
            first = e.first_of_kind(data["name"].strip())
            data["name"] = e.new_name(data["name"].strip())
        if "id" not in data or any(c.id == data["id"] for c in e.combatants):
            data["id"] = e.new_id(str(data.get("name", "combatant")))
        try:
            c = self.ruleset.stat_block.model_validate(data)
        except ValidationError as error:
            raise RulesError(f"New combatant: {explain(error)}", explain(error).split("\n")) from None
        renamed = ""
        if first is not None:
            # A second Goblin joins: the first becomes Goblin 1, in the same step (one undo for both).
            e.combatants[e.combatants.index(first)] = first.model_copy(update={"name": f"{first.name} 1"})
            renamed = f" ({first.name} is now {first.name} 1)"
        e.combatants.append(c)
        events: list[Event] = [
            CombatantAdded(
                round=self._round(),
                text=f"{c.name} joins the {c.side.value}{renamed}",
                actors=(c.id,),
                combatant=c.id,
            )
        ]
        if a.cell is not None:
            events += self._place(act.PlaceToken(c.id, a.cell, a.facing), dice)
        return events

    def _remove(self, a: act.RemoveCombatant, dice: DiceSource) -> list[Event]:
        e = self.encounter
        c = self.combatant(a.combatant)
        turn = e.combat.turn
        if turn is not None and turn.combatant == c.id:
            raise IllegalAction(f"Remove {c.name}", [f"it is {c.name}'s turn: end it first"])
        e.combatants.remove(c)
        e.tokens.pop(c.id, None)
        e.combat.acted = [x for x in e.combat.acted if x != c.id]
        e.combat.attacks = [r for r in e.combat.attacks if c.id not in (r.attacker, r.target)]
        e.combat.ranged_hits.pop(c.id, None)
        for shooters in e.combat.ranged_hits.values():
            if c.id in shooters:
                shooters.remove(c.id)
        for slot in e.combat.order:
            if c.id in slot.members:
                slot.members.remove(c.id)
        e.combat.order = [slot for slot in e.combat.order if slot.members]
        e.combat.pending = [p for p in e.combat.pending if c.id not in (p.who, p.target)]
        e.combat.free_attacks.pop(c.id, None)
        for struck in e.combat.free_attacks.values():
            while c.id in struck:
                struck.remove(c.id)
        return [
            CombatantRemoved(round=self._round(), text=f"{c.name} leaves the fight", actors=(c.id,), combatant=c.id)
        ]

    def _set_hidden(self, a: act.SetHidden, dice: DiceSource) -> list[Event]:
        c = self.combatant(a.combatant)
        token = self._token(c.id)
        if token.hidden == a.hidden:
            state = "hidden from" if a.hidden else "shown to"
            raise IllegalAction(
                f"{'Hide' if a.hidden else 'Reveal'} {c.name}", [f"{c.name} is already {state} the players"]
            )
        token.hidden = a.hidden
        return [
            VisibilityChanged(
                round=self.encounter.combat.round,
                text=f"{c.name} is {'hidden from' if a.hidden else 'revealed to'} the players",
                actors=(c.id,),
                combatant=c.id,
                hidden=a.hidden,
            )
        ]

    def _place(self, a: act.PlaceToken, dice: DiceSource) -> list[Event]:
        e = self.encounter
        c = self.combatant(a.combatant)
        if c.id in e.tokens:
            raise IllegalAction(f"Place {c.name}", [f"{c.name} is already on the map"])
        _, occupied = self.blockers(c.id)
        problems = self._end_cell_problems(c, a.cell, occupied)
        if problems:
            raise IllegalAction(f"Place {c.name}", problems)
        e.tokens[c.id] = Token(cell=a.cell, facing=a.facing % 360)
        return [
            TokenPlaced(
                round=self.encounter.combat.round,
                text=f"{c.name} is placed at {a.cell}",
                actors=(c.id,),
                combatant=c.id,
                cell=a.cell,
                facing=a.facing % 360,
            )
        ]

    def _remove_token(self, a: act.RemoveToken, dice: DiceSource) -> list[Event]:
        c = self.combatant(a.combatant)
        self._token(c.id)
        del self.encounter.tokens[c.id]
        return [
            TokenRemoved(round=self._round(), text=f"{c.name} is taken off the map", actors=(c.id,), combatant=c.id)
        ]

    def _paint(self, a: act.PaintTerrain, dice: DiceSource) -> list[Event]:
        e = self.encounter
        grid = e.map
        cells = set(a.cells)
        outside = [c for c in cells if not (0 <= c[0] < grid.width and 0 <= c[1] < grid.height)]
        if outside:
            raise IllegalAction(f"Paint {a.layer}", [f"{outside[0]} is off the map"])
        layer: frozenset[Cell] = getattr(grid, a.layer)
        if a.on:
            if a.layer == "walls":
                taken = e.occupied_by()
                under = [c for c in cells if c in taken]
                if under:
                    raise IllegalAction(
                        "Paint walls", [f"{under[0]} is taken by {self.combatant(taken[under[0]]).name}"]
                    )
            changed = cells - layer
            new_layer = layer | changed
        else:
            changed = cells & layer
            new_layer = layer - changed
        if not changed:
            raise IllegalAction(f"Paint {a.layer}", ["nothing changes"])
        self._replace_map(**{a.layer: frozenset(new_layer)})
        what = "wall" if a.layer == "walls" else "difficult terrain"
        verb = "added" if a.on else "removed"
        return [
            TerrainChanged(
                round=self.encounter.combat.round,
                text=f"{len(changed)} cell(s) of {what} {verb}",
                layer=a.layer,
                added=sorted(changed) if a.on else [],
                removed=[] if a.on else sorted(changed),
            )
        ]

    def _edit_map(self, a: act.EditMap, dice: DiceSource) -> list[Event]:
        e = self.encounter
        allowed = {
            "width",
            "height",
            "feet_per_cell",
            "diagonal",
            "background",
            "walls",
            "difficult",
            "segments",
            "doors",
        }
        unknown = set(a.changes) - allowed
        if unknown:
            raise IllegalAction("Edit map", [f"{sorted(unknown)[0]}: not a map setting"])
        # Made ahead for this very map (the import's worker thread did it), or made now.
        new = a.ahead_of(e.map)
        if new is None:
            try:
                new = e.map.edited(a.changes)
            except ValidationError as error:
                raise RulesError(f"Map: {explain(error)}", explain(error).split("\n")) from None
        e.map = new
        map_terrain(new)
        self._check_encounter("Edit map")
        explored = e.fog.explored
        if any(not (x < new.width and y < new.height) for x, y in explored):
            e.fog.explored = frozenset((x, y) for x, y in explored if x < new.width and y < new.height)
        changes = ", ".join(_map_change_words(k, v) for k, v in a.changes.items())
        return [MapChanged(round=self._round(), text=f"Map: {changes}")]

    # -- walls, doors, fog of war and portraits ---------------------------------------------------

    def _replace_map(self, **changes: Any) -> None:
        """Put a copy of the map with ``changes`` in place (the map is immutable), with its own terrain."""
        e = self.encounter
        new = e.map.model_copy(update=changes)
        new.__dict__.pop("terrain", None)  # model_copy copies the old map's cached terrain
        map_terrain(new)
        e.map = new

    def _line_ends(self, title: str, a: Any, b: Any) -> tuple[tuple[float, float], tuple[float, float]]:
        """Both ends of a wall as points on the map, or a refusal saying what is wrong with them."""
        grid = self.encounter.map
        ends = []
        for end in (a, b):
            try:
                x, y = end
            except (TypeError, ValueError):
                raise IllegalAction(title, [f"{end!r} is not a point (x, y)"]) from None
            if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in (x, y)):
                raise IllegalAction(title, [f"{end!r} is not a point (x, y)"])
            point = (float(x), float(y))
            if not (0 <= point[0] <= grid.width and 0 <= point[1] <= grid.height):
                raise IllegalAction(title, [f"{point_words(point)} is off the {grid.width} x {grid.height} map"])
            ends.append(point)
        return ends[0], ends[1]

    def _find_line(self, a: tuple[float, float], b: tuple[float, float]) -> tuple[str, int] | None:
        """("segments" or "doors", index) of the wall or door with these ends either way round."""
        grid = self.encounter.map
        for name in ("segments", "doors"):
            for index, line in enumerate(getattr(grid, name)):
                if (line.a, line.b) in ((a, b), (b, a)):
                    return name, index
        return None

    def _add_wall(self, a: act.AddWall, dice: DiceSource) -> list[Event]:
        title = "Draw a door" if a.door else "Draw a wall"
        p, q = self._line_ends(title, a.a, a.b)
        if p == q:
            raise IllegalAction(title, [f"both ends are {point_words(p)}: a wall needs two different ends"])
        found = self._find_line(p, q)
        if found is not None:
            what = "door" if found[0] == "doors" else "wall"
            raise IllegalAction(title, [f"there is already a {what} from {point_words(p)} to {point_words(q)}"])
        grid = self.encounter.map
        if a.door:
            self._replace_map(doors=(*grid.doors, Door(a=p, b=q, open=a.open)))
            state = "open" if a.open else "closed"
            text = f"Door drawn at {point_words(p)}–{point_words(q)} ({state})"
        else:
            self._replace_map(segments=(*grid.segments, WallSegment(a=p, b=q)))
            text = f"Wall drawn from {point_words(p)} to {point_words(q)}"
        return [WallAdded(round=self._round(), text=text, a=p, b=q, door=a.door, open=a.door and a.open)]

    def _remove_wall(self, a: act.RemoveWall, dice: DiceSource) -> list[Event]:
        p, q = self._line_ends("Remove a wall", a.a, a.b)
        found = self._find_line(p, q)
        if found is None:
            raise IllegalAction(
                "Remove a wall", [f"there is no wall or door from {point_words(p)} to {point_words(q)}"]
            )
        name, index = found
        lines = getattr(self.encounter.map, name)
        line = lines[index]
        self._replace_map(**{name: lines[:index] + lines[index + 1 :]})
        door = name == "doors"
        if door:
            text = f"Door at {point_words(line.a)}–{point_words(line.b)} removed"
        else:
            text = f"Wall from {point_words(line.a)} to {point_words(line.b)} removed"
        return [WallRemoved(round=self._round(), text=text, a=line.a, b=line.b, door=door)]

    def _set_door(self, a: act.SetDoor, dice: DiceSource) -> list[Event]:
        title = "Open the door" if a.open else "Close the door"
        p, q = self._line_ends(title, a.a, a.b)
        found = self._find_line(p, q)
        if found is None:
            raise IllegalAction(title, [f"there is no door at {point_words(p)}–{point_words(q)}"])
        name, index = found
        if name != "doors":
            raise IllegalAction(title, [f"the wall from {point_words(p)} to {point_words(q)} is not a door"])
        doors = self.encounter.map.doors
        door = doors[index]
        where = f"{point_words(door.a)}–{point_words(door.b)}"
        if door.open == a.open:
            raise IllegalAction(title, [f"the door at {where} is already {'open' if a.open else 'closed'}"])
        changed = Door(a=door.a, b=door.b, open=a.open)
        self._replace_map(doors=(*doors[:index], changed, *doors[index + 1 :]))
        return [
            DoorChanged(
                round=self._round(),
                text=f"Door at {where} {'opened' if a.open else 'closed'}",
                a=door.a,
                b=door.b,
                open=a.open,
            )
        ]

    def _set_fog(self, a: act.SetFog, dice: DiceSource) -> list[Event]:
        fog = self.encounter.fog
        if fog.enabled == a.enabled:
            raise IllegalAction("Fog of war", [f"fog of war is already {'on' if a.enabled else 'off'}"])
        fog.enabled = a.enabled
        return [FogChanged(round=self._round(), text=f"Fog of war {'on' if a.enabled else 'off'}", enabled=a.enabled)]

    def _reveal(self, a: act.RevealCells, dice: DiceSource) -> list[Event]:
        title = "Reveal cells" if a.shown else "Hide cells"
        grid = self.encounter.map
        cells: set[Cell] = set()
        for cell in a.cells:
            ok = (
                isinstance(cell, tuple)
                and len(cell) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
            )
            if not ok:
                raise IllegalAction(title, [f"{cell!r} is not a cell (x, y)"])
            if not (0 <= cell[0] < grid.width and 0 <= cell[1] < grid.height):
                raise IllegalAction(title, [f"{cell} is off the {grid.width} x {grid.height} map"])
            cells.add(cell)
        if not cells:
            raise IllegalAction(title, ["no cells given"])
        fog = self.encounter.fog
        if a.shown:
            changed = cells - fog.explored
            if not changed:
                raise IllegalAction(title, ["the players see these cells already"])
            fog.explored = fog.explored | changed
            text = f"Cells revealed to the players ({len(changed)})"
        else:
            changed = cells & fog.explored
            if not changed:
                raise IllegalAction(title, ["none of these cells is shown to the players"])
            fog.explored = fog.explored - changed
            text = f"Cells hidden from the players again ({len(changed)})"
        return [CellsRevealed(round=self._round(), text=text, cells=sorted(changed), shown=a.shown)]

    def _set_portrait(self, a: act.SetPortrait, dice: DiceSource) -> list[Event]:
        e = self.encounter
        c = self.combatant(a.combatant)
        title = f"{c.name}'s portrait"
        if a.portrait is None:
            if c.portrait is None:
                raise IllegalAction(title, [f"{c.name} has no portrait"])
        else:
            problem = portrait_problem(a.portrait)
            if problem is not None:
                raise IllegalAction(title, [problem])
            if a.portrait == c.portrait:
                raise IllegalAction(title, [f"{c.name} already has this portrait"])
        e.combatants[e.combatants.index(c)] = c.model_copy(update={"portrait": a.portrait})
        removed = a.portrait is None
        return [
            PortraitChanged(
                round=self._round(),
                text=f"{c.name}'s portrait {'removed' if removed else 'set'}",
                actors=(c.id,),
                combatant=c.id,
                removed=removed,
            )
        ]

    def _sight_may_grow(self, action: act.Action) -> bool:
        """Whether the action may let the Party see cells it did not: a Party token placed, moved,
        turned or shown to the players, a door opened, a wall taken away, fog turned on..."""
        if isinstance(action, act.SetFog | act.RemoveWall | act.EditMap | act.ConvertRuleset):
            return True
        if isinstance(action, act.SetDoor):
            return action.open
        if isinstance(action, act.SetHidden):
            return not action.hidden and self._is_party(action.combatant)
        if isinstance(action, act.Move | act.PlaceToken | act.Face | act.EditCombatant):
            return self._is_party(action.combatant)
        if isinstance(action, act.AddCombatant):
            return action.cell is not None
        return False

    def _is_party(self, cid: str) -> bool:
        c = next((c for c in self.encounter.combatants if c.id == cid), None)
        return c is not None and c.side is Side.PARTY

    def _explore(self) -> None:
        """Add what the Party sees now to the fog of war's explored cells (part of the same undo step).

        The Party's view is the one both windows' fog shows (worked out once per state), and only
        the cells it newly shows become tuples: the explored cells' mask says which are new."""
        fog = self.encounter.fog
        grown = explore(fog.explored, party_sight(self.encounter).mask)
        if grown is not fog.explored:
            fog.explored = grown

    def _edit_options(self, a: act.EditOptions, dice: DiceSource) -> list[Event]:
        e = self.encounter
        data = e.options.model_dump()
        data.update(a.changes)
        try:
            e.options = type(e.options).model_validate(data)
        except ValidationError as error:
            raise RulesError(f"Options: {explain(error)}", explain(error).split("\n")) from None
        changes = ", ".join(f"{k.replace('_', ' ')} {_show_option(v)}" for k, v in a.changes.items())
        return [Override(round=self._round(), text=f"Ruleset options: {changes}")]

    def _skip_pending(self, a: act.SkipPending, dice: DiceSource) -> list[Event]:
        pending = self.encounter.combat.pending
        if not 0 <= a.index < len(pending):
            raise IllegalAction("Skip", ["nothing is waiting there (it was rolled or skipped already)"])
        item = pending.pop(a.index)
        why = f": {a.reason.strip()}" if a.reason.strip() else ""
        return [Override(round=self._round(), text=f"GM skips the {item.kind} ({item.text}){why}")]

    def _convert(self, a: act.ConvertRuleset, dice: DiceSource) -> list[Event]:
        """A setup-phase encounter as another ruleset's: the shared fields kept, the rest mapped or defaulted."""
        from lnl_desktop.core.rules.convert import convert_encounter

        old = self.encounter
        title = f"Convert to {a.ruleset}"
        if old.combat.phase is not Phase.SETUP:
            raise IllegalAction(title, ["only an encounter before combat can change its ruleset"])
        if a.ruleset == old.ruleset:
            raise IllegalAction(title, [f"the encounter already uses {self.ruleset.title}"])
        try:
            target = get_ruleset(a.ruleset)
        except RulesError as error:
            raise IllegalAction(title, [str(error)]) from None
        new, notes = convert_encounter(old, target)
        source = self.ruleset
        self._set_encounter(new)
        lost = f": {'; '.join(notes)}" if notes else ", nothing dropped"
        return [
            RulesetChanged(
                round=0,
                text=f"Ruleset: {source.title} → {target.title}{lost}",
                old=source.name,
                new=target.name,
                notes=notes,
            )
        ]

    _handlers: ClassVar[dict[type, Callable[[Engine, Any, DiceSource], list[Event]]]] = {
        act.StartCombat: _start_combat,
        act.NextRound: _next_round,
        act.EndCombat: _end_combat,
        act.BeginTurn: _begin_turn,
        act.EndTurn: _end_turn,
        act.Move: _move,
        act.Face: _face,
        act.SetHidden: _set_hidden,
        act.OtherAction: _other,
        act.ConvertRuleset: _convert,
        act.EditCombatant: _edit,
        act.DamageByHand: _by_hand,
        act.SetHealth: _set_health,
        act.AddCombatant: _add,
        act.RemoveCombatant: _remove,
        act.PlaceToken: _place,
        act.RemoveToken: _remove_token,
        act.PaintTerrain: _paint,
        act.EditMap: _edit_map,
        act.EditOptions: _edit_options,
        act.SkipPending: _skip_pending,
        act.AddWall: _add_wall,
        act.RemoveWall: _remove_wall,
        act.SetDoor: _set_door,
        act.SetFog: _set_fog,
        act.RevealCells: _reveal,
        act.SetPortrait: _set_portrait,
    }

    # -- conveniences for scripts and tests: one call, one action ------------------------------

    def start_combat(
        self,
        situation: str | None = None,
        face: int | None = None,
        *,
        first_side: Side | None = None,
        surprised_side: Side | None = None,
        initiative_face: int | None = None,
    ) -> list[Event]:
        """Start combat; ``situation`` is one of the ruleset's (L&L: a :class:`SurpriseSituation`)."""
        if situation is None:
            situation = self.ruleset.start_procedure().situations[0].key
        return self.apply(act.StartCombat(str(situation), face, first_side, surprised_side, initiative_face))

    def next_round(self, face: int | None = None) -> list[Event]:
        return self.apply(act.NextRound(face))

    def begin_turn(self, combatant: str) -> list[Event]:
        return self.apply(act.BeginTurn(combatant))

    def end_turn(self) -> list[Event]:
        return self.apply(act.EndTurn())

    def move(
        self, combatant: str, to: Cell | None = None, *, path: list[Cell] | None = None, forced: bool = False
    ) -> list[Event]:
        return self.apply(act.Move(combatant, to, tuple(path) if path else None, forced))

    def face(self, combatant: str, facing: int) -> list[Event]:
        return self.apply(act.Face(combatant, facing))

    def attack(
        self,
        attacker: str,
        target: str,
        weapon: str,
        mode: AttackMode = AttackMode.ATTACK,
        *,
        faces: list[int] | None = None,
        ignore_dex: bool = False,
        override: bool = False,
    ) -> list[Event]:
        dice = ScriptedDice(faces) if faces is not None else None
        return self.apply(act.Attack(attacker, target, weapon, mode, ignore_dex, override), dice)

    def cast(self, caster: str, target: str, spell: str, *, faces: list[int] | None = None) -> list[Event]:
        dice = ScriptedDice(faces) if faces is not None else None
        return self.apply(act.CastSpell(caster, target, spell), dice)

    def parry(self, combatant: str, weapon: str | None = None, *, shield: bool = False) -> list[Event]:
        return self.apply(act.Parry(combatant, weapon, shield))

    def dash(self, combatant: str) -> list[Event]:
        return self.apply(act.Dash(combatant))

    def leap(self, combatant: str) -> list[Event]:
        return self.apply(act.Leap(combatant))

    def edit(self, combatant: str, **changes: Any) -> list[Event]:
        return self.apply(act.EditCombatant(combatant, changes))


def _map_change_words(key: str, value: Any) -> str:
    """A map change as the log says it: 'width 30', '12 wall segments', 'background cave.png'
    (never a picture's bytes nor a long list of cells)."""
    if key in ("walls", "difficult") and isinstance(value, list | tuple | set | frozenset):
        return f"{key} {len(value)} cell{'' if len(value) == 1 else 's'}"
    if key in ("segments", "doors") and isinstance(value, list | tuple):
        noun = ("wall segment" if key == "segments" else "door") + ("" if len(value) == 1 else "s")
        return f"{len(value)} {noun}"
    if key == "background":
        if value is None:
            return "background removed"
        image = value.get("image") if isinstance(value, Mapping) else getattr(value, "image", None)
        return f"background {image}" if isinstance(image, str) else "background set"
    return f"{key} {value}"


_PNG = b"\x89PNG\r\n\x1a\n"


def portrait_problem(data: str) -> str | None:
    """Why ``data`` cannot be a token's portrait (base64 of a square PNG, small enough for the
    file), or None when it can."""
    if not isinstance(data, str):
        return "a portrait is base64 PNG data"
    if len(data) > MAX_PORTRAIT_CHARS:
        return f"the picture is {len(data):,} characters of base64; a portrait holds at most {MAX_PORTRAIT_CHARS:,}"
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "the picture is not base64 data"
    if not raw.startswith(_PNG) or len(raw) < 24 or raw[12:16] != b"IHDR":
        return "the picture is not a PNG image"
    width, height = struct.unpack(">II", raw[16:24])
    if width == 0 or width != height:
        return f"the picture is {width} x {height} pixels: a portrait is square"
    return None


def _show_option(value: Any) -> str:
    """An option's new value as the log says it: a switch on or off, anything else as it reads."""
    return ("on" if value else "off") if isinstance(value, bool) else str(getattr(value, "value", value))


def _show(value: Any) -> str:
    if isinstance(value, Mapping | list):
        return str(value)
    return "-" if value is None else str(value)


def _fields_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {_show(old.get(k))} → {_show(new.get(k))}" for k in new if old.get(k) != new.get(k))


def describe_change(key: str, old: Any, new: Any) -> str:
    """A sheet change in a line a GM can read: 'level 9 → 10', 'weapons: Mace die d6 → d8'."""
    if isinstance(old, list) and isinstance(new, list) and all(isinstance(x, dict) for x in old + new):
        # Weapons and spells: match them by name.
        before = {str(x.get("name")): x for x in old}
        after = {str(x.get("name")): x for x in new}
        parts = [f"+ {name}" for name in after if name not in before]
        parts += [f"- {name}" for name in before if name not in after]
        parts += [
            f"{name} {_fields_changed(before[name], after[name])}"
            for name in after
            if name in before and before[name] != after[name]
        ]
        return f"{key}: " + "; ".join(parts)
    if isinstance(old, list) and isinstance(new, list):
        added = [str(x) for x in new if x not in old]
        removed = [str(x) for x in old if x not in new]
        return f"{key}: " + ", ".join([*(f"+ {x}" for x in added), *(f"- {x}" for x in removed)])
    if isinstance(old, dict) and isinstance(new, dict):
        return f"{key}: {_fields_changed(old, new)}"
    if isinstance(new, dict):
        return f"{key}: {new.get('name', 'added')} added"
    if isinstance(old, dict):
        return f"{key}: {old.get('name', '')} removed".replace(":  ", ": ")
    return f"{key} {_show(old)} → {_show(new)}"

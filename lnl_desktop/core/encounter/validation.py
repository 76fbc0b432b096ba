"""Turns pydantic's validation errors into the game's words: which field, named as the sheet labels
it, and what is wrong with it ("DR cannot be below 0", "Level must be a whole number from 1 to 40").

This is the one translation: the engine's edits (the sheet, the dialogs), the bestiary, ruleset
conversion and encounter files all say their problems through :func:`explain`. A field's label and
limits come from the models themselves (the ruleset's sheet rows and the fields' constraints), so a
new field speaks properly without a word added here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from types import UnionType
from typing import Any, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

# How the sheet labels the fields every ruleset's combatant has (ui/docks/sheet.py shows the same words).
COMBATANT_LABELS = {
    "id": "Id",
    "name": "Name",
    "side": "Side",
    "move_ft": "Move",
    "size": "Size",
    "vision_deg": "Field of vision",
    "darkvision_ft": "Darkvision",
    "traits": "Traits",
    "conditions": "Conditions",
    "concealed": "Concealed",
    "distracted": "Distracted",
    "surprised": "Surprised",
    "notes": "Notes",
    "portrait": "Picture",
}
_WORDS = {"ft": "(ft)", "deg": "(degrees)", "px": "(pixels)", "dr": "DR", "hp": "HP", "ap": "AP", "id": "id"}


def field_path(loc: tuple[int | str, ...]) -> str:
    """('combatants', 2, 'level') -> 'combatants[2].level'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _path_parts(path: str) -> tuple[int | str, ...]:
    """'spells[0].ability' -> ('spells', 0, 'ability'): the reverse of :func:`field_path`."""
    return tuple(int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]]+", path))


def humanize(key: str) -> str:
    """A field's words where no sheet labels it: 'feet_before' -> 'Feet before', 'reach_ft' -> 'Reach (ft)'."""
    words = [_WORDS.get(word, word) for word in key.split("_") if word]
    if len(words) > 1 and words[-1] == "max":  # 'durability_max' -> 'Max durability', as the sheet says
        words = ["max", *words[:-1]]
    text = " ".join(words) or key
    return text[:1].upper() + text[1:]


# -- the models behind an error: labels and limits -------------------------------------------------


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models a field holds: itself, or inside a list, dict, tuple or Optional."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    if get_origin(annotation) is not None or isinstance(annotation, UnionType):
        for arg in get_args(annotation):
            found.extend(_models_in(arg))
    return found


# Every ruleset by name, as the registry lists them (its ``all_rulesets``). The registry sets it when
# it is imported: the shared model sits below the rulesets and never imports them.
_all_rulesets: Callable[[], Mapping[str, Any]] = dict


def read_rulesets_from(all_rulesets: Callable[[], Mapping[str, Any]]) -> None:
    """Where the models and sheet labels of every ruleset are found (the registry's list)."""
    global _all_rulesets
    _all_rulesets = all_rulesets
    _known_models.cache_clear()
    _sheet_labels.cache_clear()


@cache
def _known_models() -> dict[str, type[BaseModel]]:
    """Every model of every ruleset's encounter by name: what a ValidationError's title names."""
    found: dict[str, type[BaseModel]] = {}
    todo: list[type[BaseModel]] = []
    for ruleset in _all_rulesets().values():
        try:
            todo += [ruleset.encounter_model, ruleset.stat_block, ruleset.options_model, ruleset.combat_model]
        except Exception:  # an installed ruleset may be broken in any way: its models go unnamed
            continue
    while todo:
        model = todo.pop()
        if found.setdefault(model.__name__, model) is not model:
            continue
        for info in model.model_fields.values():
            todo += [m for m in _models_in(info.annotation) if m.__name__ not in found]
    return found


Labels = dict[str, str]


@cache
def _sheet_labels(model: type[BaseModel]) -> tuple[Labels, Labels, dict[str, Labels]]:
    """A stat block's labels as its ruleset's sheet shows them, its lists' item nouns ("weapon") and
    their columns' titles."""
    labels: Labels = {}
    nouns: Labels = {}
    columns: dict[str, Labels] = {}
    for ruleset in _all_rulesets().values():
        if getattr(ruleset, "stat_block", None) is not model:
            continue
        try:
            sheet = ruleset.views.sheet()
        except Exception:  # an installed ruleset's sheet: the fields' own names serve instead
            break
        for row in (*sheet.identity, *sheet.numbers):
            head = row.label.split(" (")[0]
            for i, key in enumerate(row.keys):  # "HP (now / max)": "HP" and "Max HP", as the sheet names them
                labels[key] = row.label if len(row.keys) == 1 else head if i == 0 else f"Max {head}"
        for items in sheet.lists:
            columns[items.key] = {column.key: column.title for column in items.columns}
            nouns[items.key] = items.noun.capitalize()
        break
    return labels, nouns, columns


class _Field:
    """What the walk along an error's location found: the field's label and its FieldInfo."""

    def __init__(self) -> None:
        self.label = ""
        self.info: FieldInfo | None = None
        self.where: list[str] = []  # the containers on the way, in words ("Weapon 2")
        self.key = ""


def _walk(root: type[BaseModel] | None, loc: tuple[int | str, ...]) -> _Field:
    """The field an error's location ends at, named as the sheet names it, and its containers."""
    out = _Field()
    model = root
    labels, nouns, columns = _labels_of(model) if model is not None else ({}, {}, {})
    item = ""  # the current field as one of a list's items ("Weapon 2"), once an index follows it
    for part in loc:
        if isinstance(part, int):
            if out.label:  # "Weapons", item 1 -> "Weapon 2"
                noun = nouns.get(out.key) or out.label.removesuffix("s")
                item = f"{noun} {part + 1}"
            continue
        if model is not None and part not in model.model_fields:
            continue  # a dict's key (tokens.<id>) or a union member's tag
        if out.label:
            out.where.append(item or out.label)
        item = ""
        out.key = part
        out.info = model.model_fields[part] if model is not None else None
        out.label = labels.get(part) or humanize(part)
        inner = _models_in(out.info.annotation) if out.info is not None else []
        model = inner[0] if inner else None
        if part in columns:  # a list the sheet shows as a table: its columns' titles
            labels, nouns, columns = columns[part], {}, {}
        elif model is not None:
            labels, nouns, columns = _labels_of(model)
        else:
            labels, nouns, columns = {}, {}, {}
    return out


def field_label(model: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    """How a message names the field at ``loc`` of ``model``: the sheet's label ('dr' -> 'DR')."""
    return _walk(model, loc).label


def _labels_of(model: type[BaseModel]) -> tuple[Labels, Labels, dict[str, Labels]]:
    from lnl_desktop.core.encounter.model import CombatantBase

    if issubclass(model, CombatantBase):
        labels, nouns, columns = _sheet_labels(model)
        return {**COMBATANT_LABELS, **labels}, nouns, columns
    # A box of the sheet that names its own fields (a shield, where the ruleset's sheet has one).
    return dict(getattr(model, "sheet_labels", {})), {}, {}


def _limits(info: FieldInfo | None) -> tuple[Any, Any]:
    """The lowest and highest value a field takes, from its constraints (None where it has none)."""
    low = high = None
    for item in info.metadata if info is not None else ():
        if isinstance(item, Ge):
            low = item.ge
        elif isinstance(item, Gt):
            low = item.gt
        elif isinstance(item, Le):
            high = item.le
        elif isinstance(item, Lt):
            high = item.lt
    return low, high


def _number(value: Any) -> str:
    """10000 -> '10,000'; a float limit that is whole (ge=0 on a float field) -> '0'."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


# -- what is wrong, in words -----------------------------------------------------------------------


def _whole(label: str, info: FieldInfo | None, kind: str = "a whole number") -> str:
    low, high = _limits(info)
    if low is not None and high is not None:
        return f"{label} must be {kind} from {_number(low)} to {_number(high)}"
    if low is not None:
        return f"{label} must be {kind}, at least {_number(low)}"
    return f"{label} must be {kind}"


def say(item: Any, label: str, info: FieldInfo | None = None) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) in the game's words."""
    kind: str = item["type"]
    ctx: dict[str, Any] = item.get("ctx") or {}
    if kind == "greater_than_equal":
        return f"{label} cannot be below {_number(ctx['ge'])}"
    if kind == "greater_than":
        return f"{label} must be more than {_number(ctx['gt'])}"
    if kind == "less_than_equal":
        return f"{label} cannot be above {_number(ctx['le'])}"
    if kind == "less_than":
        return f"{label} must be below {_number(ctx['lt'])}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return _whole(label, info)
    if kind == "int_parsing_size":
        return f"{label} is far too large a number"
    if kind in ("float_type", "float_parsing", "decimal_type", "decimal_parsing"):
        return _whole(label, info, "a number")
    if kind == "finite_number":
        return f"{label} must be an ordinary number (not infinite)"
    if kind == "multiple_of":
        return f"{label} must be a multiple of {ctx['multiple_of']}"
    if kind in ("bool_type", "bool_parsing"):
        return f"{label} must be true or false"
    if kind in ("string_type", "string_unicode"):
        return f"{label} must be text"
    if kind == "string_too_short":
        least = ctx.get("min_length", 1)
        return f"{label} cannot be empty" if least == 1 else f"{label} needs at least {least} characters"
    if kind == "string_too_long":
        return f"{label} can be at most {_number(ctx['max_length'])} characters long"
    if kind == "string_pattern_mismatch":
        return f"{label} is not written the way it must be"
    if kind in ("enum", "literal_error"):
        return f"{label} must be one of {ctx.get('expected', 'the values it offers')}"
    if kind == "too_long":
        return f"{label} can have at most {_number(ctx['max_length'])} items"
    if kind == "too_short":
        return f"{label} needs at least {_number(ctx['min_length'])} item{'s' if ctx['min_length'] != 1 else ''}"
    if kind in ("list_type", "tuple_type", "set_type", "frozen_set_type"):
        return f"{label} must be a list"
    if kind in ("dict_type", "model_type", "model_attributes_type", "dataclass_type"):
        return f"{label} must be a group of named values ({{...}})"
    if kind == "missing":
        return f"{label} is missing"
    if kind == "extra_forbidden":
        return f"there is nothing called {label!r} here (misspelt?)"
    if kind == "none_required":
        return f"{label} must be empty (null)"
    if kind == "union_tag_invalid":  # an entry of a kind there is none of: named, not every kind listed
        tag = str(ctx.get("tag", ""))
        shown = repr(tag) if len(tag) <= 40 else repr(tag[:40]) + "…"
        return f"{label}: there is no kind called {shown} (misspelt?)"
    if kind == "union_tag_not_found":
        return f"{label} must say its kind ({ctx.get('discriminator', 'kind')})"
    message = str(item["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if message.startswith("Input should be "):  # a check not worded above: pydantic's phrase, in the field's name
        return f"{label} should be {message.removeprefix('Input should be ')}"
    return f"{label}: {message}"


# A refusal lists at most this many lines: the first problems and, when there are more, a last line
# counting the rest. A file with 100,000 bad log entries is refused in a second with a short message.
MAX_PROBLEMS = 20


def more_problems(count: int) -> str:
    """The line that stands for the problems a refusal leaves out: '… and 99,981 more problems'."""
    return f"… and {count:,} more problem{'s' if count != 1 else ''}"


def capped(lines: list[str], total: int, limit: int = MAX_PROBLEMS) -> list[str]:
    """At most ``limit`` lines for ``total`` problems whose first lines are ``lines``: all of them when
    they fit, else the first ``limit - 1`` and a count of the rest."""
    if total <= limit and len(lines) <= limit:
        return lines
    shown = lines[: limit - 1]
    return [*shown, more_problems(max(total, len(lines)) - len(shown))]


def explain(error: ValidationError, prefix: str = "", limit: int = MAX_PROBLEMS) -> str:
    """One line per problem, in the game's words; past ``limit`` problems, the first ``limit - 1``
    and a last line counting the rest ("… and 99,981 more problems").

    Without ``prefix`` (an edit of one thing: a combatant, the map) a field of the thing itself is
    named by its label alone ("DR cannot be below 0 (got -5)"), a nested one after its container
    ("Weapons 2: Magic bonus cannot be above 10 (got 12)"). With one (a file: "encounter") the
    place in the file comes first, as the file spells it, then the words
    ("encounter.combatants[0].dr: DR cannot be below 0 (got -5)").
    """
    total = error.error_count()
    return "\n".join(capped(problem_lines(error, prefix, limit=limit), total, limit))


def problem_lines(
    error: ValidationError,
    prefix: str = "",
    *,
    limit: int | None = None,
    root: type[BaseModel] | None = None,
    base: tuple[int | str, ...] = (),
    start: int = 0,
) -> list[str]:
    """The first ``limit`` problems of ``error`` (all without one), a line each, as :func:`explain`
    words them. ``root`` is the model the locations start from (else the one the error names) and
    ``base`` the place in it where they start: a part of a file validated on its own (a slice of a
    long log, its first item item ``start`` of the list) is named where it is in the file."""
    if root is None:
        root = _known_models().get(error.title)
    lines: list[str] = []
    if limit is not None and limit <= 0:
        return lines
    for item in error.errors(include_url=False):
        loc = item["loc"]
        if start and loc and isinstance(loc[0], int):
            item = {**item, "loc": (loc[0] + start, *loc[1:])}
        lines.append(problem_line(item, prefix, root, base))
        if limit is not None and len(lines) >= limit:
            break
    return lines


_MANY = (dict, list, tuple, set, frozenset)  # a value of many parts is never repeated in a line


def problem_line(
    item: Any, prefix: str = "", root: type[BaseModel] | None = None, base: tuple[int | str, ...] = ()
) -> str:
    """One problem (an item of ``ValidationError.errors()``) as :func:`explain` words it, its place
    read from ``root`` (the model the error's locations start from) after ``base``."""
    # Unions list every member's complaint; the discriminator tag in loc is noise.
    loc = (*base, *(p for p in item["loc"] if not (isinstance(p, str) and p.startswith("function-"))))
    message = str(item["msg"]).removeprefix("Value error, ")
    custom = item["type"] in ("value_error", "assertion_error")
    if custom and ":" in message:
        # Model-level checks name their field first ('stamina: 70 SP is above ...').
        head, rest = message.split(":", 1)
        if re.fullmatch(r"[\w.\[\]-]+", head):
            loc = (*loc, *_path_parts(head))
            message = rest.strip()
    found = _walk(root, loc)
    label = found.label or "the value"
    named = loc[-1] if loc and isinstance(loc[-1], str) else None
    if item["type"] == "extra_forbidden" and named is not None:
        text = f"there is nothing called {named!r} here (misspelt?)"
    elif custom:
        text = message
    else:
        text = say(item, label, found.info)
    got = ""
    value = item.get("input")
    if item["type"] not in ("missing", "extra_forbidden") and "input" in item and not isinstance(value, _MANY):
        shown = repr(value)
        got = f" (got {shown})" if len(shown) <= 40 else ""
    if prefix:
        path = field_path(loc)
        return f"{prefix}{'.' if path else ''}{path}: {text}{got}"
    # "Shield armor" says its container already: no "Shield: Shield armor ...".
    where = ", ".join(w for w in found.where if not label.startswith(w))
    if custom and loc:
        where = ", ".join(w for w in (where, label) if w)
    return f"{where}: {text}{got}" if where else f"{text}{got}"

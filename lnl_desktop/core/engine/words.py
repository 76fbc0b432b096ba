"""The change words: how the log says what an edit changed, in a line a GM can read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def feet_words(value: float) -> str:
    """A distance as the log says it: '7.5 ft'."""
    return f"{value:g} ft"


def describe_map_change(key: str, value: Any) -> str:
    """A map change as the log says it: 'width 30', '12 wall segments', 'background cave.png'
    (never a picture's bytes nor a long list of cells)."""
    if key in ("walls", "difficult") and isinstance(value, list | tuple | set | frozenset):
        return f"{key} {len(value)} cell{'' if len(value) == 1 else 's'}"
    if key in ("segments", "doors") and isinstance(value, list | tuple):
        noun = ("wall segment" if key == "segments" else "door") + ("" if len(value) == 1 else "s")
        return f"{len(value)} {noun}"
    if key == "lights" and isinstance(value, list | tuple):
        return f"{len(value)} light{'' if len(value) == 1 else 's'}"
    if key == "background":
        if value is None:
            return "background removed"
        image = value.get("image") if isinstance(value, Mapping) else getattr(value, "image", None)
        return f"background {image}" if isinstance(image, str) else "background set"
    return f"{key} {value}"


def describe_option(value: Any) -> str:
    """An option's new value as the log says it: a switch on or off, anything else as it reads."""
    return ("on" if value else "off") if isinstance(value, bool) else str(getattr(value, "value", value))


def describe_value(value: Any) -> str:
    """A field's value as the log says it: "-" for none."""
    if isinstance(value, Mapping | list):
        return str(value)
    return "-" if value is None else str(value)


def _fields_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    return ", ".join(
        f"{k} {describe_value(old.get(k))} → {describe_value(new.get(k))}" for k in new if old.get(k) != new.get(k)
    )


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
    return f"{key} {describe_value(old)} → {describe_value(new)}"

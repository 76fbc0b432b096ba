"""Bestiaries: ready-made creatures per ruleset, each a stat block's fields without id and side.

A built-in ruleset keeps its creatures in ``resources/<its bestiary_file>``; a ruleset of its
own may return them from :meth:`Ruleset.bestiary` however it likes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from lnl_desktop.core.encounter.validation import explain
from lnl_desktop.paths import resource

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Ruleset


def read_bestiary(ruleset: Ruleset, path: Path | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The valid creatures of ``ruleset``'s bestiary file, and a line per problem (bad file, bad entry)."""
    name = getattr(ruleset, "bestiary_file", None)
    if path is None and name is None:
        return [], []
    path = path or resource(str(name))
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return [], [f"{path.name}: {error}"]
    return check_creatures(ruleset, raw, path.name)


def check_creatures(ruleset: Ruleset, raw: Any, source: str = "bestiary") -> tuple[list[dict[str, Any]], list[str]]:
    """The entries of ``raw`` that are valid creatures of ``ruleset``, and a line per one that is not."""
    if not isinstance(raw, list):
        return [], [f"{source}: expected a list of creatures"]
    creatures: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, entry in enumerate(raw, 1):
        name = entry.get("name", f"entry {number}") if isinstance(entry, dict) else f"entry {number}"
        if not isinstance(entry, dict) or {"id", "side"} & entry.keys():
            problems.append(f"{name}: a creature is a dict of combatant fields without id and side")
            continue
        try:
            ruleset.stat_block.model_validate(entry | {"side": "Opponents"})
        except ValidationError as error:
            problems.append(f"{name}: {explain(error)}")
            continue
        creatures.append(entry)
    return creatures, problems

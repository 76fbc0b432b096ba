"""How long a condition lasts, in the GM's words (RULES §10 "How long a condition lasts").

Pure functions over the model: the sheet, the token's menu and the marker's tooltip show what is
left ("stunned · 1 round left") from these, and the log names a duration with :func:`duration_words`.
"""

from __future__ import annotations

from collections.abc import Mapping

from lnl_desktop.core.encounter.conditions import condition_key
from lnl_desktop.core.encounter.model import CombatantBase, ConditionDuration, DurationKind

SEPARATOR = " · "


def _rounds(n: int) -> str:
    return f"{n} round" if n == 1 else f"{n} rounds"


def _whose(creature: str, names: Mapping[str, str] | None) -> str:
    name = (names or {}).get(creature, creature)
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def save_words(d: ConditionDuration) -> str:
    """What the save is, in brackets' words: "paralysis", "DC 12", "d20 under STR", "wands, DC 14"."""
    parts: list[str] = []
    if d.save is not None:
        # An ability is spelt as the sheet spells it (STR, DEX, AWA, WIS): a d20 goes under it.
        # Anything else is a save category (Old-School d20), shown in plain lower case.
        parts.append(f"d20 under {d.save}" if d.save.isupper() else d.save.casefold())
    if d.dc is not None:
        parts.append(f"DC {d.dc}")
    return ", ".join(parts)


def duration_words(d: ConditionDuration, names: Mapping[str, str] | None = None) -> str:
    """A duration as the log says it: "1 round", "until the end of its next turn",
    "until the start of Mirela's next turn", "save each turn (DC 12)". ``names`` maps ids to names."""
    if d.kind is DurationKind.ROUNDS:
        return _rounds(d.rounds or 1)
    if d.kind is DurationKind.END_OF_NEXT_TURN:
        return "until the end of its next turn"
    if d.kind is DurationKind.START_OF_TURN_OF:
        return f"until the start of {_whose(d.creature or '?', names)} next turn"
    return f"save each turn ({save_words(d)})"


def given_words(d: ConditionDuration, names: Mapping[str, str] | None = None) -> str:
    """A duration as it was given ("3 rounds" however many are left), for the line that ends it."""
    if d.kind is DurationKind.ROUNDS:
        return _rounds(d.rounds_given or d.rounds or 1)
    return duration_words(d, names)


def left_words(d: ConditionDuration, names: Mapping[str, str] | None = None) -> str:
    """What is left of a duration: "1 round left", else as :func:`duration_words`."""
    if d.kind is DurationKind.ROUNDS:
        return f"{_rounds(d.rounds or 1)} left"
    return duration_words(d, names)


def duration_of(c: CombatantBase, condition: str) -> ConditionDuration | None:
    """The duration of one of ``c``'s conditions (case does not count), or None: until removed."""
    key = condition_key(condition)
    found = c.durations.get(key)
    if found is not None:
        return found
    wanted = key.casefold()
    return next((d for name, d in c.durations.items() if name.casefold() == wanted), None)


def condition_label(c: CombatantBase, condition: str, names: Mapping[str, str] | None = None) -> str:
    """A condition with what is left of it: "stunned · 1 round left", "charmed · until the start of
    Mirela's next turn", or just "stunned" when it lasts until removed. ``names`` maps ids to names."""
    d = duration_of(c, condition)
    return condition if d is None else f"{condition}{SEPARATOR}{left_words(d, names)}"

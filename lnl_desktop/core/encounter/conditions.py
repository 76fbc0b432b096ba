"""The conditions' words: how the rulesets' menus spell them, and which take a turn or hold a creature in place."""

from __future__ import annotations

# The conditions the rulesets' menus name (RULES §10, §12, §13), spelt as the menus spell them. A
# condition is matched without regard to case: "Prone" typed or read from an older file is "prone".
CONDITION_WORDS = (
    "blinded",
    "burning",
    "charmed",
    "confused",
    "deafened",
    "diseased",
    "disarmed",
    "dropped weapon",
    "exhausted",
    "frightened",
    "grappled",
    "incapacitated",
    "invisible",
    "paralyzed",
    "petrified",
    "poisoned",
    "prone",
    "restrained",
    "silenced",
    "stunned",
    "surprised",
    "unconscious",
    "wounded",
)
_MENU_SPELLING = {word.casefold(): word for word in CONDITION_WORDS}
# RULES §10: these take the turn (no action, no move: only End turn) ...
INCAPACITATING = ("incapacitated", "paralyzed", "petrified", "stunned", "unconscious")
# ... and these hold a creature in place (Move 0; a drag is refused).
HOLDING = ("grappled", "restrained")


def condition_key(name: str) -> str:
    """A condition's name as the menu spells it, or the GM's own words trimmed."""
    text = " ".join(name.split())
    return _MENU_SPELLING.get(text.casefold(), text)


def normalised_conditions(names: list[str]) -> list[str]:
    """Conditions with menu names spelt as the menu spells them, each once (case does not count)."""
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        key = condition_key(name)
        if key and key.casefold() not in seen:
            seen.add(key.casefold())
            out.append(key)
    return out

"""The Old-School d20 conditions table (RULES §12) read off a combatant's conditions.

Conditions are words on the sheet, matched without regard to case. Two of them name a source,
written after the word: *charmed by Hobgoblin chief*, *frightened of Owlbear*; exhaustion names
its level: *exhausted 2* (level 1 when none is given).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.conditions import INCAPACITATING, RULES_TABLE

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.model import Encounter

# The table's conditions, as the sheet's menu spells them (shared with Group d10), and the two that
# only stop spells here (RULES §12 "Also applied").
TABLE = tuple(sorted((*RULES_TABLE, "bound", "gagged")))
# No spell is cast by a creature with one of these (RULES §12 "Also applied").
NO_SPELLS = ("silenced", "restrained", "bound", "gagged")
# No action, no move, no counter-attack; attacks against it have advantage.
HELPLESS = INCAPACITATING

# What the app does with each one in this ruleset (the condition's tooltip ends with it).
APPLIED = {
    "blinded": "its attacks at disadvantage, attacks on it at advantage; no spell at a creature (it needs sight)",
    "bound": "no spells (its hands are tied)",
    "burning": "1d6 fire damage asked for at the start of its turn, until removed",
    "charmed": "write 'charmed by NAME': it cannot attack NAME or aim a harmful spell at it",
    "confused": "a d6 asked for at the start of its turn: 1 attack the nearest, 2-4 move randomly, 5-6 nothing",
    "exhausted": "write 'exhausted 2' for level 2: -1 per level to attack rolls and saves; level 3+ half Move",
    "frightened": "write 'frightened of NAME': its attacks at disadvantage; a move may not end closer to NAME",
    "gagged": "no spells (it cannot speak)",
    "grappled": "Move 0",
    "incapacitated": "no action, no move, no counter-attack; attacks on it at advantage",
    "invisible": "its attacks at advantage, attacks on it at disadvantage; no spell aimed at it",
    "paralyzed": "no action, no move, no counter-attack; attacks on it at advantage, melee hits automatically",
    "petrified": "no action, no move, no counter-attack; attacks on it at advantage",
    "poisoned": "its attacks at disadvantage",
    "prone": "its melee attacks at disadvantage; melee on it from within 5 ft at advantage, from farther "
    "(or shots) at disadvantage; Stand up costs half its Move",
    "restrained": "Move 0; no spells; its attacks at disadvantage, attacks on it at advantage",
    "silenced": "no spells",
    "stunned": "no action, no move, no counter-attack; attacks on it at advantage",
    "surprised": "no action and no counter-attack in round 1",
    "unconscious": "no action, no move, no counter-attack; also prone: attacks on it from within 5 ft at "
    "advantage and a hit there is a critical hit (the damage dice rolled twice), from farther (or shots) "
    "a plain roll",
    "wounded": "-2 to its attack rolls",
}

_LEVEL = re.compile(r"(\d+)")


def entry(c: Any, word: str) -> str | None:
    """The condition written on ``c`` that is ``word`` (any case, with a source or level after it)."""
    for written in c.conditions:
        text = " ".join(str(written).split()).casefold()
        if text == word or text.startswith(word + " ") or text.startswith(word + "("):
            return str(written)
    return None


def has(c: Any, word: str) -> bool:
    return entry(c, word) is not None


def helpless(c: Any) -> str | None:
    """The condition that takes its turn and its counter-attacks, or None."""
    return next((word for word in HELPLESS if has(c, word)), None)


def surprised(encounter: Encounter, c: Any) -> bool:
    """Whether ``c`` is surprised now: marked so at Start combat, or carrying the *surprised*
    condition in the fight's first round (no action in round 1)."""
    if c.surprised:
        return True
    combat = encounter.combat
    return has(c, "surprised") and combat.round == combat.first_round


def level(c: Any, word: str = "exhausted") -> int:
    """The level written after the condition (``exhausted 3``), 1 if none, 0 without it; 1 to 5."""
    written = entry(c, word)
    if written is None:
        return 0
    found = _LEVEL.search(written)
    return min(max(int(found.group(1)), 1), 5) if found else 1


def source(encounter: Encounter, c: Any, word: str) -> Any | None:
    """The combatant a charm or a fear is of (``charmed by X``, ``frightened of X``), by name or id."""
    written = entry(c, word)
    if written is None:
        return None
    rest = " ".join(written.split())[len(word) :].strip(" ():")
    for lead in ("by ", "of "):
        if rest.casefold().startswith(lead):
            rest = rest[len(lead) :].strip()
    wanted = rest.casefold()
    if not wanted:
        return None
    return next((o for o in encounter.combatants if o.name.casefold() == wanted or o.id == wanted), None)

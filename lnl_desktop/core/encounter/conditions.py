"""The conditions' words: how the rulesets' menus spell them, and which take a turn or hold a creature in place."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConditionWord:
    """One condition of the one conditions table: its word as the menus spell it, what it means (a
    tooltip for the GM; a ruleset says which of them its rules apply), and the lists it is on."""

    word: str
    tip: str = ""
    default_menu: bool = False  # RULES §1: the default menu, the old-school d20 text's condition list
    rules_table: bool = False  # RULES §12's conditions table, which some rulesets' menus are built from


# The conditions the rulesets' menus name (RULES §1, §10, §12, §13), spelt as the menus spell them. A
# condition is matched without regard to case: "Prone" typed or read from an older file is "prone".
_M, _T = {"default_menu": True}, {"rules_table": True}
_MT = {**_M, **_T}
CONDITION_TABLE = (
    ConditionWord(
        "blinded", "Cannot see: fails checks that need sight; attacks against it are easier, its own harder", **_MT
    ),
    ConditionWord("burning", "On fire: takes fire damage at the start of its turn until put out", **_T),
    ConditionWord("charmed", "Sees the charmer as a trusted friend: cannot attack or harm it", **_MT),
    ConditionWord(
        "confused",
        "Acts erratically: a d6 at the start of its turn (1 attack the nearest, 2-4 wander, 5-6 nothing)",
        **_T,
    ),
    ConditionWord(
        "deafened", "Cannot hear: fails checks that need hearing; immune to effects that must be heard", **_M
    ),
    # RULES §16: the L&L family marks death with this condition (its stat block has no flag); dead stays dead.
    ConditionWord("dead", "Dead: no rest and no healing brings it back; the GM raises it by hand"),
    ConditionWord("diseased", "Ill: penalties to checks, exhaustion or slow HP loss until cured"),
    ConditionWord("disarmed"),
    ConditionWord("dropped weapon"),
    ConditionWord("exhausted", "Worn out: penalties to rolls, growing with each level", **_T),
    ConditionWord("frightened", "Terrified: must move away from the source of its fear and cannot come closer", **_MT),
    ConditionWord("grappled", "Held: its speed is 0 until the grapple ends", **_MT),
    ConditionWord("incapacitated", "Cannot take actions or reactions", **_MT),
    ConditionWord(
        "invisible", "Cannot be seen without special means: attacks against it are harder, its own easier", **_MT
    ),
    ConditionWord("paralyzed", "Cannot move or speak, aware but helpless", **_MT),
    ConditionWord("petrified", "Turned to stone: incapacitated, unaware, immune to most harm", **_MT),
    ConditionWord(
        "poisoned", "Poisoned: penalties to attacks and checks, or damage over time, until a save ends it", **_MT
    ),
    ConditionWord(
        "prone", "On the ground: easier to hit from within 5 ft, harder from farther; standing costs movement", **_MT
    ),
    ConditionWord(
        "restrained", "Webbed, chained or netted: speed 0, its attacks harder, attacks against it easier", **_MT
    ),
    ConditionWord("silenced", "Cannot make a sound: no spells with spoken words, no speech", **_T),
    ConditionWord("stunned", "Incapacitated, cannot move, speaks falteringly", **_MT),
    ConditionWord("surprised", **_T),
    ConditionWord("unconscious", "Incapacitated, prone and unaware", **_MT),
    ConditionWord("wounded", "A lasting injury (a broken limb, a lost eye): an ongoing penalty until healed", **_T),
)
CONDITION_WORDS = tuple(c.word for c in CONDITION_TABLE)
# The default menu of conditions (RULES §1) and RULES §12's table, in the table's order.
DEFAULT_MENU = tuple(c.word for c in CONDITION_TABLE if c.default_menu)
RULES_TABLE = tuple(c.word for c in CONDITION_TABLE if c.rules_table)
# What each condition means, for the GM's tooltips.
CONDITION_TIPS = {c.word: c.tip for c in CONDITION_TABLE if c.tip}
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


def condition_changes(before: list[str], after: list[str]) -> list[str]:
    """The conditions gained and lost from ``before`` to ``after`` in the GM's words (RULES §16's carry-on
    summary): "wounded", "no longer exhausted"; one whose level changed reads "exhausted 1 → exhausted 2"."""
    old = {condition_key(c).casefold(): condition_key(c) for c in before}
    new = {condition_key(c).casefold(): condition_key(c) for c in after}
    gained = [new[k] for k in new if k not in old]
    lost = [old[k] for k in old if k not in new]
    words: list[str] = []
    for word in gained:
        head = word.split()[0].casefold()
        was = next((w for w in lost if w.split()[0].casefold() == head), None)
        if was is not None:
            lost.remove(was)
            words.append(f"{was} → {word}")
        else:
            words.append(word)
    return words + [f"no longer {word}" for word in lost]

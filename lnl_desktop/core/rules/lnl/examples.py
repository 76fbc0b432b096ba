"""The combatants of the rules text's worked examples (RULES §5), for scripts, tests and benchmarks.

The rules give what the examples need; the rest (IP, Cedryk's SP, the half-orc's DEX) is filled
in plainly: the half-orc's DEX +2 shows that a sneak attack never subtracts it.
"""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.encounter.actions import Action, PlaceToken, RemoveToken
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.lnl.model import Combatant, Weapon

# The faces the examples roll, in the order a ScriptedDice takes them.
TOMBRIL_FACES = [5, 3, 4, 3, 2]
GIANT_FACES = [6, 5, 3, 6, 2, 6, 5, 1, 6, 2]
CEDRYK_FACES = [9, 4, 2, 2]  # the AWA check's d20, then 2d4 with the 4 exploding into a 2


def tombril() -> Combatant:
    """Level 9, STR +8, DEX +5, AP 3, 55 SP, a +2 shortsword (d6)."""
    return Combatant(
        name="Tombril",
        side=Side.PARTY,
        level=9,
        str_bonus=8,
        dex_bonus=5,
        armor=3,
        stamina_max=55,
        injury_max=12,
        weapons=[Weapon(name="Shortsword", die="d6", magic_bonus=2)],
    )


def hill_giant() -> Combatant:
    """Level 12, STR +9, DEX +3, AP 1 (tough skin), 68 SP, a club (d6)."""
    return Combatant(
        name="Hill Giant",
        side=Side.OPPONENTS,
        level=12,
        str_bonus=9,
        dex_bonus=3,
        armor=1,
        stamina_max=68,
        injury_max=20,
        weapons=[Weapon(name="Club", die="d6")],
    )


def cedryk(**fields: Any) -> Combatant:
    """Level 3, DEX +4, AWA +4, a dagger (d4, finesse) and a sling; ``fields`` override."""
    data: dict[str, Any] = {
        "name": "Cedryk",
        "side": Side.PARTY,
        "level": 3,
        "dex_bonus": 4,
        "awa_bonus": 4,
        "stamina_max": 20,
        "injury_max": 8,
        "weapons": [
            Weapon(name="Dagger", die="d4", style="finesse"),
            Weapon(name="Sling", die="d4", kind="ranged"),
        ],
    }
    data.update(fields)
    return Combatant(**data)


def half_orc() -> Combatant:
    """AP 3 and 15 IP, as the example says."""
    return Combatant(name="Half-orc", side=Side.OPPONENTS, level=2, dex_bonus=2, armor=3, stamina_max=10, injury_max=15)


# The demo encounter's combatants face to face across one line: the Party on row 7 facing south,
# the Opponents below facing north (the Giant is 2 x 2), every foe in reach of someone.
DEMO_LINE_UP: dict[str, tuple[int, int]] = {
    "tombril": (8, 7),
    "cedryk": (10, 7),
    "janine": (12, 7),
    "hill-giant": (8, 8),
    "half-orc": (10, 8),
    "half-orc-glaive": (12, 9),
    "half-orc-archer": (14, 9),
}


def demo_line_up_actions() -> list[Action]:
    """The actions that put the demo's tokens on :data:`DEMO_LINE_UP`: everyone off the map first,
    so no one stands in another's way, then onto the line."""
    off: list[Action] = [RemoveToken(cid) for cid in DEMO_LINE_UP]
    on: list[Action] = [PlaceToken(cid, cell, 180 if cell[1] == 7 else 0) for cid, cell in DEMO_LINE_UP.items()]
    return off + on

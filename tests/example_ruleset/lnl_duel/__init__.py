"""Duel: the smallest complete ruleset for Laurels & Loot Desktop (an example, and a test of the seam).

One d6 a round says which side acts first: 1-3 the Opponents, 4-6 the Party. On its turn a
combatant may move and take one action: a Strike on a foe within 5 ft (its damage die less the
target's defense, at least the options' minimum) or anything else, in words. At 0 HP a combatant
is down. The GM may deal damage or heal by hand, and throw an area effect (a fire pot, falling
rocks): one roll of its dice, each target's defense off it. The Fight odds play the rest of a fight
thousands of times over by the default tactic.

It is laid out as every ruleset package is (docs/RULESETS.md "How to add a ruleset"): this
``__init__`` composes one object per capability (``lnl_desktop.core.rules.base``), each a
few methods wide, and overrides none of the base class's hooks; ``model.py`` holds the stat block,
the options and the Strike, ``rules.py`` the arithmetic, and one module each the capabilities of
its own (views, rounds, actions, attacks, health, areas, fights); conditions, turns, movement and
prompts are the shared pieces of ``lnl_desktop.core.rules.shared``. There is no SP, no IP, no
parry and no sneak attack: one health number, HP.

Everything else, turns, movement, the map, the log, undo, files and the recovery journal, is the
engine's. This module imports only the rules core, never Qt, and no file of ``lnl_desktop``
names it: the ``lnl_desktop.rulesets`` entry point in ``pyproject.toml`` is how it is found.
"""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.shared import D20Conditions, FeetMovement, NoPrompts, SideTurns
from lnl_duel.actions import DuelActions, strike
from lnl_duel.areas import DuelAreas
from lnl_duel.attacks import DuelAttacks
from lnl_duel.fights import DuelFights
from lnl_duel.health import DuelHealth
from lnl_duel.model import NAME, ROLL, TITLE, DuelOptions, DuelStats, Strike
from lnl_duel.rounds import DuelRounds
from lnl_duel.views import DuelTokens, DuelViews


class DuelRuleset(Ruleset):
    name = NAME
    title = TITLE
    source = "the example in tests/example_ruleset of the Laurels & Loot Desktop repository"
    about = "A d6 says which side acts first; a Strike rolls the striker's die less the target's defense."
    stat_block = DuelStats
    options_model = DuelOptions

    def __init__(self) -> None:
        self.views = DuelViews()
        self.tokens = DuelTokens()
        self.conditions = D20Conditions(TITLE)
        self.rounds = DuelRounds()
        self.turns = SideTurns()
        self.movement = FeetMovement()
        self.actions = DuelActions()
        self.attacks = DuelAttacks()
        self.health = DuelHealth()
        self.prompts = NoPrompts()
        self.areas = DuelAreas()
        self.fights = DuelFights()
        self.rest = None

    def bestiary(self) -> list[dict[str, Any]]:
        return [
            {"name": "Fencer", "hp_max": 10, "damage_die": 8, "defense": 2},
            {"name": "Brute", "hp_max": 16, "damage_die": 10, "defense": 0, "move_ft": 25},
        ]

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        kept, notes = super().convert(data, source)  # the shared fields, and a note of what was dropped
        hp = int(data.get("stamina_max", 0)) + int(data.get("injury_max", 0)) or 10
        kept["hp_max"] = hp
        notes.append(f"{data.get('name', '?')}: {hp} HP (its SP + IP, or 10)")
        return kept, notes


DUEL = DuelRuleset()


__all__ = ["DUEL", "NAME", "ROLL", "TITLE", "DuelOptions", "DuelRuleset", "DuelStats", "Strike", "strike"]

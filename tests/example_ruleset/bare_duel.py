"""Duel without area effects and without a fight simulator (its ``areas`` and ``fights`` None), for the tests of
what a ruleset lacking a capability gets: registered, with a two-combatant encounter of it."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.rules import registry


def bare_duel_encounter(duel: Any) -> Any:
    """Register the bare duel built on the ``duel`` package (lnl_duel) and give an encounter of it."""

    class BareDuel(duel.DuelRuleset):
        name = "bare-duel"
        title = "Bare duel"

        def __init__(self) -> None:
            super().__init__()
            self.areas = None
            self.fights = None

    registry.register(BareDuel())
    return registry.get_ruleset("bare-duel").new_encounter(
        name="No fire pots",
        combatants=[
            {"id": "ann", "name": "Ann", "side": "Party", "hp_max": 10},
            {"id": "ogre", "name": "Ogre", "side": "Opponents", "hp_max": 12},
        ],
        tokens={"ann": {"cell": [1, 3]}, "ogre": {"cell": [2, 3]}},
    )

"""Group d10's free attacks (RULES §13): only a step from within a foe's melee reach to a cell
outside it provokes; stepping round a foe while staying within its reach does not, and a forced
move provokes nothing. A foe's reach is its longest melee weapon's: 10 ft with a pike."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core import Engine, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.rules.d10 import Declare
from lnl_desktop.core.rules.registry import get_ruleset

D10 = get_ruleset("d10")


def _table(ogre_weapons: list[dict[str, Any]] | None = None) -> Engine:
    """Tombril at (2, 2) beside the Ogre at (3, 2), in a fight, at the start of Tombril's turn."""
    combatants = [
        {"name": "Tombril", "side": "Party", "hp_max": 14, "defense": 13, "melee": 3, "move_ft": 30,
         "weapons": [{"name": "Sword", "die": "d6"}]},
        {"name": "Ogre", "side": "Opponents", "hp_max": 15, "defense": 12, "melee": 4,
         "weapons": ogre_weapons or [{"name": "Club", "die": "d6"}]},
    ]  # fmt: skip
    tokens = {"tombril": {"cell": (2, 2), "facing": 90}, "ogre": {"cell": (3, 2), "facing": 270}}
    engine = Engine(D10.new_encounter(name="t", combatants=combatants, tokens=tokens))
    for c in engine.encounter.combatants:
        engine.apply(Declare(c.id, "move"))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([9, 1]))
    engine.begin_turn("tombril")
    return engine


def _queued(engine: Engine) -> list[tuple[str, str]]:
    return [(p.who, p.target) for p in engine.encounter.combat.pending if p.kind == "free attack"]


def test_stepping_round_a_foe_and_staying_beside_it_provokes_nothing() -> None:
    engine = _table()
    path = [(2, 2), (2, 3), (3, 3)]  # round the Ogre's corner to below it: adjacent all the way
    assert D10.movement.provocations(engine, "tombril", path) == []
    events = engine.move("tombril", path=path)
    assert _queued(engine) == []
    assert not any("free attack" in e.text for e in events)


def test_a_step_out_of_5_ft_provokes_at_the_step_that_leaves() -> None:
    engine = _table()
    path = [(2, 2), (2, 3), (1, 3)]  # stays beside it, then steps away
    assert [(s.cell, s.attackers) for s in D10.movement.provocations(engine, "tombril", path)] == [((2, 3), ("ogre",))]
    events = engine.move("tombril", path=path)
    assert events[-1].text == "Tombril moves away: free attack from Ogre (queued)"
    assert _queued(engine) == [("ogre", "tombril")]
    # Pushed along the same path, it provokes nothing.
    engine.undo()
    events = engine.move("tombril", path=path, forced=True)
    assert _queued(engine) == []
    assert not any("free attack" in e.text for e in events)


def test_a_step_out_of_a_pikes_10_ft_provokes_and_within_it_does_not() -> None:
    engine = _table([{"name": "Pike", "die": "d8", "kind": "reach"}])
    # Two cells away is still within the pike's 10 ft: the first step provokes nothing.
    assert D10.movement.provocations(engine, "tombril", [(2, 2), (1, 2)]) == []
    path = [(2, 2), (1, 2), (0, 2)]
    assert [(s.cell, s.attackers) for s in D10.movement.provocations(engine, "tombril", path)] == [((1, 2), ("ogre",))]
    engine.move("tombril", path=path)
    assert _queued(engine) == [("ogre", "tombril")]
    # A pike on the floor (a critical's disarm) reaches no further than a fist.
    engine = _table([{"name": "Pike", "die": "d8", "kind": "reach", "dropped": True}])
    assert [(s.cell, s.attackers) for s in D10.movement.provocations(engine, "tombril", path)] == [((2, 2), ("ogre",))]

"""Group d10's "Also applied" lines (RULES §13) with typed faces, the way a GM meets them: a natural-1
trip costs the next attack only (getting up is part of it, the move stays; a parry / dodge takes the
foes' advantage away), and a foe knocked out by subdual can still be finished with a weapon."""

from __future__ import annotations

from typing import Any

import pytest
from test_rules_d10 import hero as rules_hero
from test_rules_d10 import ogre as rules_ogre

from lnl_desktop.core import Engine, IllegalAction, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.rules.d10 import D10Attack, Declare, Mishap, ParryDodge, StandUp, Stealth
from lnl_desktop.core.rules.registry import get_ruleset

D10 = get_ruleset("d10")


def hero(name: str = "Tombril", **more: Any) -> dict[str, Any]:
    return rules_hero(name, stealth=4, **more)  # Stealth reads its skill


def ogre(name: str = "Ogre", **more: Any) -> dict[str, Any]:
    return rules_ogre(name, perception=1, **more)  # and the foes' perception


def pair(
    hero_more: dict[str, Any] | None = None,
    ogre_more: dict[str, Any] | None = None,
    what: dict[str, str] | None = None,
) -> Engine:
    tokens = {"tombril": {"cell": (2, 2), "facing": 90}, "ogre": {"cell": (3, 2), "facing": 270}}
    engine = Engine(
        D10.new_encounter(name="t", combatants=[hero(**(hero_more or {})), ogre(**(ogre_more or {}))], tokens=tokens)
    )
    for c in engine.encounter.combatants:
        engine.apply(Declare(c.id, (what or {}).get(c.id, "attack")))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([9, 1]))  # the Party first
    return engine


def next_round(engine: Engine, faces: list[int], what: dict[str, str] | None = None) -> None:
    for c in engine.encounter.combatants:
        if not c.down:
            engine.apply(Declare(c.id, (what or {}).get(c.id, "attack")))
    engine.apply(act.NextRound(), ScriptedDice(faces))


def tripped_tombril() -> Engine:
    """Tombril rolls a natural 1 and the GM picks the trip."""
    engine = pair()
    engine.begin_turn("tombril")
    engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([1]))
    engine.apply(Mishap(0, "trips prone"))
    engine.end_turn()
    return engine


# -- the trip ----------------------------------------------------------------------------------------


def test_a_tripped_fighter_loses_its_next_attack_but_gets_up_and_keeps_its_move() -> None:
    engine = tripped_tombril()
    engine.begin_turn("ogre")
    events = engine.apply(D10Attack("ogre", "tombril", "Club"), ScriptedDice([2, 15, 3]))
    assert "advantage (Tombril is prone)" in events[0].text
    engine.end_turn()

    next_round(engine, [9, 1])
    engine.begin_turn("tombril")
    assert engine.feet_left("tombril") == 0  # still prone: it gets up first
    events = engine.apply(StandUp("tombril"))
    assert events[0].text == (
        "Tombril stands up: no longer prone; getting up is part of the attack its trip cost, its move stays this turn"
    )
    assert engine.feet_left("tombril") == 30
    engine.move("tombril", to=(2, 4))  # its move is its own: it walks off (the ogre gets its free attack)
    with pytest.raises(IllegalAction, match="Tombril lost its attack this round"):
        engine.apply(D10Attack("tombril", "ogre", "Sword"))


def test_a_tripped_fighter_that_parries_gives_its_foes_no_advantage() -> None:
    engine = tripped_tombril()
    engine.begin_turn("ogre")
    engine.end_turn()
    next_round(engine, [9, 1], {"tombril": "parry"})
    engine.begin_turn("tombril")
    engine.apply(ParryDodge("tombril"))
    engine.end_turn()
    engine.begin_turn("ogre")
    events = engine.apply(D10Attack("ogre", "tombril", "Club"), ScriptedDice([15, 4]))
    assert "disadvantage (Tombril parries / dodges)" in events[0].text
    assert "prone" not in events[0].text
    assert "15/4 (disadvantage: 4)" in events[0].text


# -- the Stealth action and the sneak attack --------------------------------------------------------


def test_stealth_won_last_round_gives_the_next_attack_advantage_and_the_attack_gives_it_away() -> None:
    engine = pair(ogre_more={"hp": 15}, what={"tombril": "stealth"})
    engine.begin_turn("tombril")
    with pytest.raises(IllegalAction, match="declared “Stealth”"):
        engine.apply(D10Attack("tombril", "ogre", "Sword"))
    events = engine.apply(Stealth("tombril"), ScriptedDice([15, 8]))
    assert events[-1].text == (
        "Tombril uses Stealth: d20 15 +4 Stealth = 19 against Ogre d20 8 +1 Perception = 9 (the best of the "
        "foes who could see it): hidden: its next attack on an unsuspecting foe has advantage; its move is still free"
    )
    assert "hidden" in engine.combatant("tombril").conditions
    assert engine.feet_left("tombril") == 30  # Stealth replaces the attack, not the move
    engine.end_turn()
    engine.begin_turn("ogre")
    engine.end_turn()

    next_round(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([3, 14, 4]))
    assert "3/14 (advantage: 14)" in events[0].text and "advantage (Tombril unseen (Stealth))" in events[0].text
    assert events[-1].text == "Tombril is seen: its attack gave it away (no longer hidden)"
    assert "hidden" not in engine.combatant("tombril").conditions
    engine.undo()
    assert "hidden" in engine.combatant("tombril").conditions


def test_a_stealth_roll_that_only_ties_the_best_perception_is_seen() -> None:
    engine = pair(what={"tombril": "stealth"})
    engine.begin_turn("tombril")
    events = engine.apply(Stealth("tombril"), ScriptedDice([10, 13]))
    assert events[-1].text.endswith("= 14 (the best of the foes who could see it): seen (a tie: it must roll higher)")
    assert "hidden" not in engine.combatant("tombril").conditions
    engine.end_turn()
    engine.begin_turn("ogre")
    engine.end_turn()
    next_round(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([14, 4]))
    assert "advantage" not in events[0].text


# -- the declared target ------------------------------------------------------------------------------


def test_a_declared_target_is_recorded_and_attacking_another_is_a_logged_change_of_plan() -> None:
    tokens = {
        "tombril": {"cell": (2, 2), "facing": 90},
        "ogre": {"cell": (3, 2), "facing": 270},
        "goblin": {"cell": (3, 3), "facing": 270},
    }
    engine = Engine(D10.new_encounter(name="t", combatants=[hero(), ogre(), ogre("Goblin")], tokens=tokens))
    events = engine.apply(Declare("tombril", "attack", target="ogre"))
    assert events[0].text == "Tombril declares for round 1: Attack on Ogre"
    with pytest.raises(IllegalAction, match="already declared Attack on Ogre"):
        engine.apply(Declare("tombril", "attack", target="ogre"))
    with pytest.raises(IllegalAction, match="it cannot declare against itself"):
        engine.apply(Declare("tombril", "attack", target="tombril"))
    engine.apply(Declare("ogre", "attack"))
    engine.apply(Declare("goblin", "attack"))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([9, 1]))
    assert engine.encounter.combat.declared_targets == {"tombril": "ogre"}

    events = engine.begin_turn("tombril")
    assert "Tombril declared: Attack on Ogre" in [e.text for e in events]
    events = engine.apply(D10Attack("tombril", "goblin", "Sword"), ScriptedDice([14, 4]))
    assert events[0].text == "Change of plan: Tombril declared an attack on Ogre and attacks Goblin instead"
    assert any(e.text.startswith("Tombril attacks Goblin with Sword") for e in events)  # no GM override needed
    engine.undo()
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([14, 4]))
    assert not any("Change of plan" in e.text for e in events)


# -- a foe knocked out by subdual ------------------------------------------------------------------


def test_a_foe_knocked_out_by_subdual_can_be_finished_with_a_weapon() -> None:
    engine = pair(ogre_more={"hp": 4})
    engine.begin_turn("tombril")
    engine.apply(D10Attack("tombril", "ogre", "Sword", subdual=True), ScriptedDice([15, 12, 6]))
    ogre_ = engine.combatant("ogre")
    assert ogre_.down and not ogre_.dead
    engine.end_turn()

    next_round(engine, [9])  # the Ogre is out: the Party's d10 alone
    engine.begin_turn("tombril")
    with pytest.raises(IllegalAction, match="Ogre is unconscious already: a plain attack finishes it"):
        engine.apply(D10Attack("tombril", "ogre", "Sword", subdual=True))
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([14, 5]))
    assert events[-1].text == "Ogre is finished off: unconscious at 0 HP, it dies"
    assert ogre_.dead
    engine.undo()
    assert not engine.combatant("ogre").dead

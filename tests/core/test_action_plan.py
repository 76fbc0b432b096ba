"""The checklist of an action plan, worked out by the core before a die is rolled: the same checks
the engine applies (so what the checklist says fails is what the engine refuses), the distance to
the target, and what the GM override lets through, for L&L and Group d10."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import (
    Combatant,
    Encounter,
    Engine,
    IllegalAction,
    MapGrid,
    ScriptedDice,
    Side,
    SurpriseSituation,
    Token,
    Weapon,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.plan import (
    FAIL,
    HEAD,
    OK,
    OVERRIDDEN,
    ActionPlan,
    Checklist,
    action_spec,
    checklist,
    nearest_foe,
)
from lnl_desktop.core.rules.d10 import D10Attack, Declare
from lnl_desktop.core.rules.registry import get_ruleset

NORTH, SOUTH = 0, 180


def status(answer: Checklist, label: str) -> str:
    return next(row.status for row in answer.rows if row.label == label)


def refused(engine: Engine, action: Any) -> list[str]:
    with pytest.raises(IllegalAction) as excinfo:
        engine.apply(action, ScriptedDice([]))
    return list(excinfo.value.reasons)


# -- Laurels & Loot --------------------------------------------------------------------------------


def lnl_table(orc_at: tuple[int, int]) -> Engine:
    """Tombril with a sword at (5, 5) facing an orc (and a goblin farther off), his turn begun."""
    tombril = Combatant(
        name="Tombril",
        side=Side.PARTY,
        level=1,
        stamina_max=20,
        injury_max=10,
        weapons=[Weapon(name="Sword", die="d6")],
    )
    orc = Combatant(name="Orc", side=Side.OPPONENTS, level=1, stamina_max=20, injury_max=10)
    goblin = Combatant(name="Goblin", side=Side.OPPONENTS, level=1, stamina_max=20, injury_max=10)
    encounter = Encounter(
        map=MapGrid(width=14, height=14),
        combatants=[tombril, orc, goblin],
        tokens={
            "tombril": Token(cell=(5, 5), facing=NORTH),
            "orc": Token(cell=orc_at, facing=SOUTH),
            "goblin": Token(cell=(12, 12), facing=SOUTH),
        },
    )
    engine = Engine(encounter, dice=ScriptedDice([]))
    engine.start_combat(SurpriseSituation.NOBODY, face=4)  # the Party first
    engine.begin_turn("tombril")
    return engine


def test_lnl_an_attack_within_reach_passes_every_check_and_measures_the_distance() -> None:
    engine = lnl_table(orc_at=(5, 4))
    answer = checklist(engine, ActionPlan("tombril", "attack", "Sword", "orc"))
    assert answer.allowed and answer.refusals == [] and answer.distance == 5.0
    assert status(answer, "Within 5 ft (melee)") == OK
    within = next(row for row in answer.rows if row.label == "Within 5 ft (melee)")
    assert within.reason == "Orc is 5 ft away; reach 5 ft"  # a distance is said even when the check holds
    assert status(answer, "Tombril's turn") == OK
    assert nearest_foe(engine.encounter, engine.combatant("tombril")) == "orc"


def test_lnl_an_attack_out_of_reach_fails_as_the_engine_refuses_it() -> None:
    engine = lnl_table(orc_at=(5, 1))
    answer = checklist(engine, ActionPlan("tombril", "attack", "Sword", "orc"))
    assert not answer.allowed and answer.distance == 20.0
    assert status(answer, "Within 5 ft (melee)") == FAIL
    assert answer.refusals == ["Within 5 ft (melee): Orc is 20 ft away; reach 5 ft"]
    # The checklist and the engine make the same calls: what fails here is what the engine refuses.
    attack = action_spec(engine.ruleset, "attack").build("tombril", "orc", "Sword", ignore_dex=False, override=False)
    assert refused(engine, attack) == answer.refusals


def test_lnl_a_sneak_attack_shows_its_points_and_the_gm_override_lets_them_through() -> None:
    engine = lnl_table(orc_at=(5, 4))  # face to face: no sneak attack
    plain = checklist(engine, ActionPlan("tombril", "sneak", "Sword", "orc"))
    assert plain.override_offered and not plain.overriding  # a sneak attack's eligibility is always on show
    heads = [row.label for row in plain.rows if row.status == HEAD]
    assert heads == ["Sneak attack (Laurels & Loot)"]
    failing = [row.label for row in plain.rows if row.blocks]
    assert failing and not plain.allowed
    overridden = checklist(engine, ActionPlan("tombril", "sneak", "Sword", "orc", override=True))
    assert overridden.allowed and overridden.overriding
    let_through = [row for row in overridden.rows if row.status == OVERRIDDEN]
    assert [row.label for row in let_through] == failing
    assert all(row.reason.endswith("(GM override)") for row in let_through)


def test_lnl_an_action_that_needs_a_target_or_a_weapon_says_so() -> None:
    engine = lnl_table(orc_at=(5, 4))
    answer = checklist(engine, ActionPlan("tombril", "attack", "Sword", None))
    assert answer.rows[-1].label == "A target" and answer.rows[-1].status == FAIL
    assert answer.refusals[-1] == "A target: click its token on the map or pick it in the list"
    answer = checklist(engine, ActionPlan("tombril", "attack", None, "orc"))
    assert answer.refusals[-1] == "A weapon: Tombril has no weapon"
    assert checklist(engine, ActionPlan("tombril", "other", words="")).refusals[-1] == (
        "Say what the action is: type it above"
    )
    assert checklist(engine, ActionPlan("tombril", "other", words="grapples")).allowed


# -- Group d10 -------------------------------------------------------------------------------------

D10 = get_ruleset("d10")


def d10_table(ogre_at: tuple[int, int], declared: str = "attack") -> Engine:
    """Tombril (who declared ``declared``) and an ogre, Tombril's turn begun."""
    hero = {"name": "Tombril", "side": "Party", "hp_max": 14, "defense": 13, "melee": 3}
    ogre = {"name": "Ogre", "side": "Opponents", "hp_max": 15, "defense": 12, "melee": 4}
    encounter = D10.new_encounter(
        name="t",
        combatants=[
            hero | {"weapons": [{"name": "Sword", "die": "d6"}]},
            ogre | {"weapons": [{"name": "Club", "die": "d6"}]},
        ],
        tokens={"tombril": {"cell": (2, 2), "facing": 90}, "ogre": {"cell": ogre_at, "facing": 270}},
    )
    engine = Engine(encounter)
    engine.apply(Declare("tombril", declared))
    engine.apply(Declare("ogre", "attack"))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([8, 3]))
    engine.begin_turn("tombril")
    return engine


def strike(**more: Any) -> ActionPlan:
    """Tombril's Attack on the ogre with his sword, every input of the action at its default."""
    spec = action_spec(D10, "attack")
    return ActionPlan(
        "tombril", "attack", "Sword", "ogre", extras=tuple((s.key, s.default) for s in spec.extras), **more
    )


def test_d10_an_attack_in_reach_passes_and_one_out_of_reach_fails_as_the_engine_refuses_it() -> None:
    near = d10_table(ogre_at=(3, 2))
    answer = checklist(near, strike())
    assert answer.allowed and answer.distance == 5.0 and not answer.override_offered
    assert status(answer, "Within 5 ft") == OK
    far = d10_table(ogre_at=(8, 2))
    answer = checklist(far, strike())
    assert not answer.allowed and answer.distance == 30.0
    assert answer.refusals == ["Within 5 ft: Ogre is 30 ft away"]
    assert refused(far, D10Attack("tombril", "ogre", "Sword")) == answer.refusals


def test_d10_acting_otherwise_than_declared_needs_the_gm_override_in_the_rulesets_words() -> None:
    engine = d10_table(ogre_at=(3, 2), declared="parry")
    plain = checklist(engine, strike())
    assert status(plain, "As declared") == FAIL and plain.override_offered and not plain.overriding
    assert plain.refusals == ["As declared: Tombril declared “Parry / dodge”; acting otherwise needs a GM override"]
    assert refused(engine, D10Attack("tombril", "ogre", "Sword")) == plain.refusals
    overridden = checklist(engine, strike(override=True))
    assert overridden.allowed and overridden.overriding
    row = next(row for row in overridden.rows if row.label == "As declared")
    assert (row.status, row.reason) == (OVERRIDDEN, "Tombril declared “Parry / dodge” (GM override)")

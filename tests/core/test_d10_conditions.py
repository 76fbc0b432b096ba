"""Group d10's conditions and what sets and ends them (RULES §13), the way a GM meets them: a natural
20 that disarms, knocks prone or grapples; a grapple and a break-free as opposed rolls; prone until
the creature stands; exhausted; a saving throw against the GM's DC; damage that ignores DR."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import Engine, IllegalAction, RulesError, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import RulesEvent
from lnl_desktop.core.rules.d10 import (
    BreakFree,
    D10Attack,
    Declare,
    Grapple,
    LetGo,
    OpposedRoll,
    SavingThrow,
    StandUp,
    UseItem,
)
from lnl_desktop.core.rules.registry import get_ruleset

D10 = get_ruleset("d10")


def hero(name: str = "Tombril", **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "side": "Party",
        "hp_max": 14,
        "dr": 2,
        "defense": 13,
        "melee": 3,
        "strength": 2,
        "weapons": [{"name": "Sword", "die": "d6"}],
    } | more


def ogre(**more: Any) -> dict[str, Any]:
    return {
        "name": "Ogre",
        "side": "Opponents",
        "hp_max": 15,
        "dr": 2,
        "defense": 12,
        "melee": 4,
        "strength": 4,
        "weapons": [{"name": "Club", "die": "d6"}, {"name": "Sling", "die": "d4", "kind": "ranged"}],
    } | more


def pair(hero_more: dict[str, Any] | None = None, ogre_more: dict[str, Any] | None = None) -> Engine:
    tokens = {"tombril": {"cell": (2, 2), "facing": 90}, "ogre": {"cell": (3, 2), "facing": 270}}
    engine = Engine(
        D10.new_encounter(name="t", combatants=[hero(**(hero_more or {})), ogre(**(ogre_more or {}))], tokens=tokens)
    )
    for c in engine.encounter.combatants:
        engine.apply(Declare(c.id, "attack"))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([9, 1]))  # the Party first
    return engine


def next_round(engine: Engine, faces: list[int]) -> None:
    for c in engine.encounter.combatants:
        if not c.down:
            engine.apply(Declare(c.id, "attack"))
    engine.apply(act.NextRound(), ScriptedDice(faces))


def texts(events: list[Any]) -> list[str]:
    return [e.text for e in events]


# -- a natural 20's effects, applied --------------------------------------------------------------------


def test_a_natural_20_that_knocks_prone_leaves_the_target_prone_until_it_stands() -> None:
    engine = pair()
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword", on_20="knock prone"), ScriptedDice([20, 5]))
    ogre_ = engine.combatant("ogre")
    assert ogre_.conditions == ["prone"]
    assert events[1].text == (
        "Critical: Ogre is knocked prone: attackers have advantage against it until it stands (its move action)"
    )
    engine.end_turn()

    # Its turn: it may not walk off while prone; it stands, which takes its move, and still attacks.
    engine.begin_turn("ogre")
    assert engine.feet_left("ogre") == 0
    with pytest.raises(IllegalAction, match="Ogre is prone: Stand up first"):
        engine.move("ogre", to=(5, 2))
    events = engine.apply(StandUp("ogre"))
    assert events[0].text == "Ogre stands up: no longer prone; standing takes its move this turn"
    assert not ogre_.conditions and engine.feet_left("ogre") == 0
    with pytest.raises(IllegalAction, match="Ogre stood up this turn"):
        engine.move("ogre", to=(5, 2))
    with pytest.raises(IllegalAction, match="Ogre is not prone"):
        engine.apply(StandUp("ogre"))
    engine.apply(D10Attack("ogre", "tombril", "Club"), ScriptedDice([3, 2]))  # its attack is still free
    engine.end_turn()

    # Once up, nobody has advantage against it; next round it walks its full Move.
    next_round(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([11, 3]))
    assert "advantage" not in events[0].text
    engine.end_turn()
    engine.begin_turn("ogre")
    assert engine.feet_left("ogre") == 30


def test_prone_stays_while_nobody_stands_it_up_and_attackers_keep_advantage() -> None:
    engine = pair()
    engine.begin_turn("tombril")
    engine.apply(D10Attack("tombril", "ogre", "Sword", on_20="knock prone"), ScriptedDice([20, 5]))
    engine.end_turn()
    engine.begin_turn("ogre")
    engine.end_turn()  # it did not stand
    next_round(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([4, 11, 3]))
    assert "advantage (Ogre is prone)" in events[0].text


def test_standing_up_is_undone_in_one_step() -> None:
    engine = pair()
    engine.begin_turn("tombril")
    engine.apply(D10Attack("tombril", "ogre", "Sword", on_20="knock prone"), ScriptedDice([20, 5]))
    engine.end_turn()
    engine.begin_turn("ogre")
    engine.apply(StandUp("ogre"))
    engine.undo()
    assert engine.combatant("ogre").conditions == ["prone"] and engine.feet_left("ogre") == 0


def test_a_natural_20_that_disarms_drops_the_weapon_until_an_item_action_picks_it_up() -> None:
    engine = pair()
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword", on_20="disarm"), ScriptedDice([20, 5]))
    assert "damage d6 5 -2 DR = 3" in events[0].text  # normal damage, not doubled
    assert events[1].text == (
        "Critical: Ogre is disarmed: Club is dropped, unusable until a Use / ready an item picks it up"
    )
    ogre_ = engine.combatant("ogre")
    assert ogre_.weapons[0].dropped and "Club dropped" in ogre_.status_words()
    engine.end_turn()
    engine.begin_turn("ogre")
    with pytest.raises(IllegalAction, match="Club is dropped: a Use / ready an item picks it up"):
        engine.apply(D10Attack("ogre", "tombril", "Club"))
    spec = next(s for s in D10.actions.kinds() if s.key == "attack")
    assert ("Club", "Club (d6, melee, dropped)", "Club is dropped: pick it up first") in D10.actions.choices(
        spec, ogre_
    )
    with pytest.raises(IllegalAction, match="Sword"):
        engine.apply(UseItem("ogre", "", pick_up="Sword"))  # not one of its weapons
    events = engine.apply(UseItem("ogre", "", pick_up="Club"))
    assert events[-1].text == "Ogre picks up Club: it can strike with it again"
    assert not ogre_.weapons[0].dropped
    engine.undo()
    assert engine.combatant("ogre").weapons[0].dropped


# -- grapples --------------------------------------------------------------------------------------------


def test_a_natural_20_that_grapples_holds_the_target_and_the_grappler_may_let_go() -> None:
    engine = pair()
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword", on_20="grapple"), ScriptedDice([20]))
    ogre_ = engine.combatant("ogre")
    assert ogre_.conditions == ["grappled"] and ogre_.grappled_by == "tombril"
    assert events[1].text.startswith("Critical: Ogre is grappled by Tombril: Move 0")
    tools = D10.prompts.combatant_tools(engine, engine.combatant("tombril"))
    let_go = next(t for t in tools if t.title == "Let go of Ogre")
    events = engine.apply(let_go.choices[0].build({}))
    assert events[0].text == "Tombril lets go of Ogre: it is no longer grappled"
    assert not ogre_.conditions and ogre_.grappled_by is None
    with pytest.raises(IllegalAction, match="Tombril does not hold Ogre"):
        engine.apply(LetGo("tombril", "ogre"))


def test_a_grapple_is_an_opposed_roll_the_attacker_must_win_and_break_free_clears_it() -> None:
    engine = pair()
    engine.begin_turn("tombril")
    # 10 + 2 against 8 + 4: a tie, the ogre evades.
    events = engine.apply(Grapple("tombril", "ogre"), ScriptedDice([10, 8]))
    assert events[-1].text == (
        "Tombril grapples Ogre: Tombril d20 10 +2 feats of strength = 12 against Ogre d20 8 +4 feats of "
        "strength = 12: Ogre evades the grapple (a tie: the grappler must roll higher)"
    )
    assert not engine.combatant("ogre").conditions
    engine.undo()
    events = engine.apply(Grapple("tombril", "ogre"), ScriptedDice([15, 8]))
    assert events[-1].text.endswith(
        "= 17 against Ogre d20 8 +4 feats of strength = 12: Ogre is grappled by Tombril: Move 0 until it breaks free"
    )
    result = D10.actions.result(engine.encounter, events[-1], [])
    assert result is not None and result.headline == "Grappled: Ogre is held by Tombril (Move 0)"
    engine.end_turn()

    engine.begin_turn("ogre")
    assert engine.feet_left("ogre") == 0
    with pytest.raises(IllegalAction, match="Ogre is grappled"):
        engine.move("ogre", to=(5, 2))
    events = engine.apply(BreakFree("ogre"), ScriptedDice([5, 9]))  # 9 against 11: still held
    assert events[-1].text.endswith("Ogre is still grappled")
    assert engine.combatant("ogre").grappled_by == "tombril"
    engine.undo()
    events = engine.apply(BreakFree("ogre"), ScriptedDice([12, 3]))  # 16 against 5
    assert events[-1].text == (
        "Ogre tries to break free of Tombril: Ogre d20 12 +4 feats of strength = 16 against Tombril d20 3 "
        "+2 feats of strength = 5: Ogre breaks free"
    )
    assert not engine.combatant("ogre").conditions
    with pytest.raises(IllegalAction, match="Ogre is not grappled"):
        engine.apply(BreakFree("ogre"))


def test_break_free_needs_a_grappler_and_a_grappler_going_down_lets_go() -> None:
    # Typed by hand: nobody holds the Ogre in the app.
    engine = pair(hero_more={"hp": 1}, ogre_more={"conditions": ["grappled"]})
    engine.begin_turn("tombril")
    engine.end_turn()
    engine.begin_turn("ogre")
    with pytest.raises(IllegalAction, match="nobody holds Ogre in the app"):
        engine.apply(BreakFree("ogre"))
    engine.end_turn()
    next_round(engine, [9, 1])
    engine.apply(act.EditCombatant("ogre", {"conditions": []}))
    engine.begin_turn("tombril")
    engine.apply(D10Attack("tombril", "ogre", "Sword", on_20="grapple"), ScriptedDice([20]))
    engine.end_turn()
    engine.begin_turn("ogre")
    events = engine.apply(D10Attack("ogre", "tombril", "Club"), ScriptedDice([15, 4]))  # 4 - 2 DR: Tombril dies
    assert engine.combatant("tombril").dead
    assert "Ogre is no longer grappled (Tombril is down)" in texts(events)
    assert not engine.combatant("ogre").has("grappled")


def test_the_opposed_roll_tool_sets_and_clears_a_grapple() -> None:
    engine = pair()
    tool = next(t for t in D10.prompts.tools(engine) if t.title == "Opposed roll")
    action = tool.choices[0].build(
        {
            "first": "Tombril",
            "first_skill": "feats of strength",
            "second": "Ogre",
            "second_skill": "feats of strength",
            "what": "",
            "stake": "grapple",
        }
    )
    assert action == OpposedRoll("tombril", "strength", "ogre", "strength", "", "grapple")
    events = engine.apply(action, ScriptedDice([15, 11]))
    assert events[1].text == "Ogre is grappled by Tombril: Move 0"
    assert engine.combatant("ogre").grappled_by == "tombril"
    with pytest.raises(IllegalAction, match="Ogre does not hold Tombril"):
        engine.apply(OpposedRoll("tombril", "strength", "ogre", "strength", stake="break free"))
    events = engine.apply(
        OpposedRoll("ogre", "strength", "tombril", "strength", "", "break free"), ScriptedDice([9, 2])
    )
    assert events[1].text == "Ogre breaks free of Tombril" and not engine.combatant("ogre").conditions
    # "grapple" said as what is at stake is a grapple too.
    engine.apply(OpposedRoll("tombril", "strength", "ogre", "strength", "Grapple"), ScriptedDice([15, 11]))
    assert engine.combatant("ogre").has("grappled")


# -- exhausted, the menu, one spelling ---------------------------------------------------------------


def test_the_menu_lists_every_condition_and_exhausted_puts_to_hit_rolls_at_disadvantage() -> None:
    menu = D10.conditions.menu()
    for word in ("prone", "grappled", "exhausted", "unconscious", "wounded", "blinded", "restrained", "stunned"):
        assert word in menu
    assert "disadvantage" in D10.conditions.tip("exhausted") and "Stand up" in D10.conditions.tip("Prone")
    engine = pair(hero_more={"conditions": ["Exhausted"]})
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([15, 4, 3]))
    assert "d20s" not in events[0].text and "disadvantage (Tombril is exhausted)" in events[0].text
    assert "15/4 (disadvantage: 4)" in events[0].text


def test_a_level_on_exhausted_is_refused_and_changes_nothing() -> None:
    engine = pair()
    before = engine.encounter.model_dump()
    with pytest.raises(RulesError, match="exhausted has no levels in Group d10"):
        engine.apply(act.EditCombatant("tombril", {"conditions": ["exhausted 3"]}))
    assert engine.encounter.model_dump() == before


def test_prone_typed_with_a_capital_is_the_same_prone() -> None:
    engine = pair(ogre_more={"conditions": ["Prone"]})
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([4, 11, 3]))
    assert "advantage (Ogre is prone)" in events[0].text
    engine.end_turn()
    engine.begin_turn("ogre")
    engine.apply(StandUp("ogre"))
    assert not engine.combatant("ogre").conditions


# -- saving throws and damage that ignores DR ----------------------------------------------------------


def test_a_saving_throw_against_the_gms_dc_and_its_consequence() -> None:
    engine = pair(hero_more={"perception": 1})
    tool = D10.prompts.combatant_tools(engine, engine.combatant("tombril"))[0]
    assert tool.title == "Saving throw: Tombril"
    action = tool.choices[0].build(
        {"what": "sleep", "skill": "Perception", "dc": 14, "condition": "unconscious", "damage_die": "none"}
    )
    assert action == SavingThrow("tombril", "perception", 14, "sleep", "unconscious", "none", False)
    events = engine.apply(action, ScriptedDice([13]))  # 13 + 1 = 14: saved
    assert events[0].text == "Tombril saves against sleep (Perception): d20 13 +1 Perception = 14 vs DC 14: saved"
    assert not engine.combatant("tombril").conditions
    engine.undo()
    events = engine.apply(action, ScriptedDice([12]))
    assert events[0].text.endswith("= 13 vs DC 14: failed: Tombril is unconscious")
    assert engine.combatant("tombril").down
    result = D10.actions.result(engine.encounter, events[0], [])
    assert result is not None and result.headline == "Failed save: Tombril against sleep"
    engine.undo()
    assert not engine.combatant("tombril").conditions


def test_a_failed_save_takes_its_damage_after_dr_unless_it_ignores_dr() -> None:
    engine = pair()
    events = engine.apply(SavingThrow("tombril", "strength", 15, "a falling block", "", "d6"), ScriptedDice([3, 5]))
    assert events[0].text.endswith("failed: damage d6 5 -2 DR = 3 → Tombril 11/14 HP")
    engine.undo()
    events = engine.apply(
        SavingThrow("tombril", "strength", 15, "a lightning trap", "", "d6", ignores_dr=True), ScriptedDice([3, 5])
    )
    assert events[0].text.endswith("failed: damage d6 5 (ignores DR) = 5 → Tombril 9/14 HP")


def test_a_dc_out_of_range_or_a_bad_die_is_refused_and_changes_nothing() -> None:
    engine = pair()
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction, match="the DC must be 1 to 40 \\(not 41\\)"):
        engine.apply(SavingThrow("tombril", "strength", 41))
    with pytest.raises(IllegalAction, match="the DC must be 1 to 40 \\(not 0\\)"):
        engine.apply(SavingThrow("tombril", "strength", 0))
    with pytest.raises(IllegalAction, match="'d7' is not a damage die"):
        engine.apply(SavingThrow("tombril", "strength", 10, damage_die="d7"))
    assert engine.encounter.model_dump() == before


def test_an_attack_that_ignores_dr_takes_nothing_off() -> None:
    engine = pair()
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword", ignores_dr=True), ScriptedDice([15, 5]))
    assert events[0].text.endswith("hit; damage d6 5 (ignores DR) = 5 → Ogre 10/15 HP")
    first = next(e for e in events if isinstance(e, RulesEvent))
    result = D10.actions.result(engine.encounter, first, events[1:])
    assert result is not None and result.headline == "Hit: 5 damage (ignores DR) → Ogre 10/15 HP"
    spec = next(s for s in D10.actions.kinds() if s.key == "attack")
    assert "ignores_dr" in [x.key for x in spec.extras]
    assert spec.build("tombril", "ogre", "Sword", ignores_dr=True).ignores_dr

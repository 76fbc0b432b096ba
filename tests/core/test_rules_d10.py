"""Group d10 (RULES §13), rule by rule, with the numbers a GM sees: the opposed surprise roll,
declarations, d10 group initiative, advantage in its three kinds, criticals and mishaps, tiers,
DR (the source's d6 5 against DR 2 → 3; a critical d6 5 → 10), minions, wounds, free attacks,
opposed rolls and timer dice."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import Engine, IllegalAction, RulesError, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.d10 import (
    D10Attack,
    Declare,
    Disengage,
    FreeAttack,
    Mishap,
    OpposedRoll,
    ParryDodge,
    SetTimer,
    Sprint,
    UseItem,
    damage_after,
)
from lnl_desktop.core.rules.d10.odds import forecast_strike, kept_face, weapon_roll
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource

D10 = get_ruleset("d10")


def hero(name: str = "Tombril", **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "side": "Party",
        "hp_max": 14,
        "dr": 2,
        "defense": 13,
        "melee": 3,
        "weapons": [{"name": "Sword", "die": "d6"}],
    } | more


def ogre(name: str = "Ogre", **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "side": "Opponents",
        "hp_max": 15,
        "dr": 2,
        "defense": 12,
        "melee": 4,
        "weapons": [{"name": "Club", "die": "d6"}],
    } | more


def table(combatants: list[dict[str, Any]], cells: dict[str, tuple[int, int]], **options: Any) -> Engine:
    tokens = {
        cid: {"cell": cell, "facing": 90 if cid.startswith(("tombril", "cedryk", "janine")) else 270}
        for cid, cell in cells.items()
    }
    return Engine(D10.new_encounter(name="t", combatants=combatants, tokens=tokens, options=options))


def declare_all(engine: Engine, what: str = "attack") -> None:
    for c in engine.encounter.combatants:
        if not c.down:
            engine.apply(Declare(c.id, what))


def fight(engine: Engine, faces: list[int], situation: str = "no surprise") -> list[Any]:
    declare_all(engine)
    return engine.apply(act.StartCombat(situation=situation), ScriptedDice(faces))


def pair(**more: Any) -> Engine:
    return table([hero(**more.pop("hero", {})), ogre(**more.pop("ogre", {}))], {"tombril": (2, 2), "ogre": (3, 2)})


# -- the stat block ----------------------------------------------------------------------------------


def test_defense_defaults_to_11_and_bad_values_are_refused_with_the_field_named() -> None:
    engine = table([hero(defense=11), ogre()], {})
    assert D10.stat_block.model_validate({"name": "X", "side": "Party", "hp_max": 5}).defense == 11
    before = engine.encounter.model_dump()
    for change, named in (
        ({"group": "Heroes"}, "Group"),  # the Party is one group
        ({"weapons": [{"name": "Axe", "die": "d7"}]}, "Weapon 1: Die"),
        ({"dr": -1}, "DR cannot be below 0"),
    ):
        with pytest.raises(RulesError, match=named):
            engine.apply(act.EditCombatant("tombril", change))
    assert engine.encounter.model_dump() == before


# -- surprise ----------------------------------------------------------------------------------------


def _ambush() -> Engine:
    return table(
        [hero(stealth=3), hero("Cedryk", stealth=1), ogre(perception=2), ogre("Scout", perception=4)],
        {"tombril": (2, 2), "cedryk": (2, 4), "ogre": (9, 2), "scout": (9, 5)},
    )


def test_the_ambushers_lowest_stealth_against_the_defenders_highest_perception() -> None:
    engine = _ambush()
    events = fight(engine, [14, 9, 5, 6], "Party ambushes")  # 14 + 1 = 15 against 9 + 4 = 13
    assert events[0].text.startswith(
        "Round 1: Party d20 14 +1 Stealth (Cedryk, the lowest) = 15 against Opponents d20 9 +4 Perception "
        "(Scout, the highest) = 13: surprise: the Party roll with advantage, the Opponents with disadvantage"
    )
    combat = engine.encounter.combat
    assert (combat.ambushers, combat.full_surprise) == ("Party", False)
    assert not any(c.surprised for c in engine.encounter.combatants)


def test_full_surprise_by_5_and_a_tie_is_none_and_stumbling_is_plain_d20s() -> None:
    full = _ambush()
    events = fight(full, [19, 9, 5, 6], "Party ambushes")  # 20 against 13: by 7
    assert "full surprise (by 7): the Opponents take no actions this round" in events[0].text
    with pytest.raises(IllegalAction, match="taken by full surprise"):
        full.begin_turn("ogre")
    tie = _ambush()
    events = fight(tie, [12, 9, 5, 6], "Party ambushes")  # 13 against 13
    assert ": a tie, no surprise" in events[0].text and tie.encounter.combat.ambushers is None
    stumbled = _ambush()
    events = fight(stumbled, [4, 11, 5, 6], "both stumbled")
    assert "both stumbled: Party d20 4, Opponents d20 11: Opponents gain full surprise" in events[0].text


# -- declarations --------------------------------------------------------------------------------------


def test_everyone_declares_before_initiative_and_acting_otherwise_needs_a_logged_override() -> None:
    engine = pair()
    with pytest.raises(IllegalAction, match="declare first for: Tombril, Ogre"):
        engine.apply(act.StartCombat(situation="no surprise"))
    engine.apply(Declare("tombril", "parry"))
    engine.apply(Declare("ogre", "attack"))
    assert engine.encounter.log[-2].text == "Tombril declares for round 1: Parry / dodge"
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([8, 3]))
    spec = D10.rounds.declarations(engine)
    assert spec is not None and not spec.open and spec.declared == {"tombril": "parry", "ogre": "attack"}
    engine.begin_turn("tombril")
    with pytest.raises(IllegalAction, match="Tombril declared “Parry / dodge”; acting otherwise needs a GM override"):
        engine.apply(D10Attack("tombril", "ogre", "Sword"))
    events = engine.apply(D10Attack("tombril", "ogre", "Sword", override=True), ScriptedDice([10, 4]))
    assert events[0].text == "GM override: Tombril declared “Parry / dodge” and attacks instead"
    events = engine.apply(Declare("ogre", "sprint"))  # during the round: a GM override
    assert events[0].text == "GM override: Ogre's declared action changes from Attack to Sprint / flee"
    engine.end_turn()
    engine.begin_turn("ogre")
    engine.end_turn()
    with pytest.raises(IllegalAction, match="declare first for: Tombril, Ogre"):
        engine.apply(act.NextRound())
    assert D10.rounds.declarations(engine).open  # the round is over: the coming round's declarations


# -- initiative ---------------------------------------------------------------------------------------


def test_a_d10_per_group_highest_first_the_party_first_on_a_tie_and_gm_groups_reroll() -> None:
    engine = table(
        [hero(), ogre(), ogre("Boss", group="Boss"), ogre("Wolf", group="Wolves")],
        {"tombril": (2, 2), "ogre": (9, 2), "boss": (9, 5), "wolf": (9, 8)},
    )
    # Every group rolls 6: the Party first; the three GM groups re-roll 2, 9 and 5 among themselves.
    events = fight(engine, [6, 6, 6, 6, 2, 9, 5])
    order = engine.encounter.combat.order
    assert [(s.title, s.roll) for s in order] == [
        ("Party", "d10 6"),
        ("Boss", "d10 6 (re-roll 9)"),
        ("Wolves", "d10 6 (re-roll 5)"),
        ("Opponents", "d10 6 (re-roll 2)"),
    ]
    assert "initiative: Party d10 6; Boss d10 6 (re-roll 9)" in events[0].text


def test_ties_between_gm_groups_reroll_and_a_group_may_act_last_then_first() -> None:
    engine = table(
        [hero(), ogre(), ogre("Boss", group="Boss")],
        {"tombril": (2, 2), "ogre": (9, 2), "boss": (9, 5)},
    )
    fight(engine, [9, 4, 4, 3, 8])  # Party 9; Opponents 4 and Boss 4 tie: re-roll 3 and 8
    order = engine.encounter.combat.order
    assert [(s.title, s.roll) for s in order] == [
        ("Party", "d10 9"),
        ("Boss", "d10 4 (re-roll 8)"),
        ("Opponents", "d10 4 (re-roll 3)"),
    ]
    for slot in order:
        for cid in slot.members:
            engine.begin_turn(cid)
            engine.end_turn()
    declare_all(engine)
    engine.apply(act.NextRound(), ScriptedDice([1, 2, 10]))  # the Party last, the Boss first
    assert [s.title for s in engine.encounter.combat.order] == ["Boss", "Opponents", "Party"]


def test_the_gm_splits_a_boss_off_from_the_turns_dock_row() -> None:
    engine = table([hero(), ogre(), ogre("Boss")], {"tombril": (2, 2), "ogre": (9, 2), "boss": (9, 5)})
    boss = engine.combatant("boss")
    labels = [a.label for a in D10.rounds.row_actions(engine, boss)]
    assert labels == ["Put Boss in a group of its own"]
    engine.apply(D10.rounds.row_actions(engine, boss)[0].build())
    assert engine.combatant("boss").group_name == "Boss"
    assert [a.label for a in D10.rounds.row_actions(engine, engine.combatant("ogre"))] == [
        "Put Ogre in a group of its own",
        "Move Ogre to the group Boss",
    ]
    assert D10.rounds.row_actions(engine, engine.combatant("tombril")) == ()


# -- to hit -------------------------------------------------------------------------------------------


def test_advantage_keeps_the_higher_of_2d20_and_disadvantage_the_lower_each_source_named() -> None:
    engine = _ambush()
    fight(engine, [14, 9, 6, 5], "Party ambushes")  # surprise; the Party's d10 6 first
    engine.begin_turn("tombril")
    engine.move("tombril", to=(8, 2))
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([3, 11, 4]))
    assert events[0].text.startswith(
        "Tombril attacks Ogre with Sword: 3/11 (advantage: 11) +3 melee = 14 vs Defense 12; advantage (surprise): hit"
    )
    engine.end_turn()
    engine.begin_turn("cedryk")
    engine.end_turn()
    engine.begin_turn("ogre")
    events = engine.apply(D10Attack("ogre", "tombril", "Club"), ScriptedDice([17, 6]))
    assert "17/6 (disadvantage: 6) +4 melee = 10 vs Defense 13; disadvantage (surprised): miss" in events[0].text


def test_cinematic_advantage_rolls_3d20_and_advantage_and_disadvantage_cancel() -> None:
    engine = pair()
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(
        D10Attack("tombril", "ogre", "Sword", gm_edge="cinematic advantage", gm_reason="leaping from the balcony"),
        ScriptedDice([2, 5, 16, 3]),
    )
    assert "2/5/16 (cinematic advantage: 16)" in events[0].text
    assert "cinematic advantage (leaping from the balcony)" in events[0].text
    engine.undo()
    events = engine.apply(
        D10Attack("tombril", "ogre", "Sword", gm_edge="advantage", gm_reason="flanking", cover=True),
        ScriptedDice([12, 3]),
    )
    assert (
        "d20 12 +3 melee = 15 vs Defense 12; advantage (flanking); disadvantage (cover): they cancel, a plain d20"
        in events[0].text
    )


def test_at_half_hp_or_below_an_attacker_is_at_minus_2() -> None:
    engine = pair(hero={"hp": 7})
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([10, 4]))
    assert "d20 10 +3 melee -2 at half HP = 11 vs Defense 12: miss" in events[0].text


def test_a_natural_20_doubles_the_damage_the_sources_critical_d6_5_is_10() -> None:
    assert damage_after(5, False, 2) == 3  # the source's ogre: a d6 5 against DR 2
    assert damage_after(5, True, 0) == 10  # the source's critical: a d6 5 doubled
    assert damage_after(1, False, 4) == 0  # DR never takes damage below 0
    engine = pair(ogre={"dr": 0})
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([20, 5]))
    assert events[0].text.endswith("(natural 20: critical): hit; damage d6 5 x2 critical = 10 → Ogre 5/15 HP")


def test_a_critical_may_disarm_knock_prone_or_grapple_instead_of_doubling() -> None:
    engine = pair()
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword", on_20="knock prone"), ScriptedDice([20, 5]))
    assert "damage d6 5 -2 DR = 3" in events[0].text
    assert events[1].text.startswith("Critical: Ogre is knocked prone")
    engine.undo()
    events = engine.apply(D10Attack("tombril", "ogre", "Sword", on_20="grapple"), ScriptedDice([20]))
    assert events[0].text.endswith("natural 20, critical: no damage, Tombril grapples Ogre")
    assert "grappled" in engine.combatant("ogre").conditions


def test_a_natural_1_misses_and_the_gms_mishap_is_applied() -> None:
    engine = pair(hero={"melee": 30})
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([1]))
    assert events[0].text.endswith("miss (natural 1: critical failure)")
    item = engine.encounter.combat.pending[0]
    assert (item.kind, item.urgent) == ("mishap", True)
    events = engine.apply(Mishap(0, "trips prone"))
    assert (
        events[0].text
        == "Tombril's critical failure: trips and falls prone: it loses its attack next round, attackers gain advantage"
    )
    engine.end_turn()
    engine.begin_turn("ogre")
    events = engine.apply(D10Attack("ogre", "tombril", "Club"), ScriptedDice([2, 15, 3]))
    assert "advantage (Tombril is prone)" in events[0].text
    engine.end_turn()
    declare_all(engine)
    engine.apply(act.NextRound(), ScriptedDice([9, 1]))
    engine.begin_turn("tombril")
    with pytest.raises(IllegalAction, match="Tombril lost its attack this round"):
        engine.apply(D10Attack("tombril", "ogre", "Sword"))


def test_overextended_gives_its_foes_advantage_next_round() -> None:
    engine = pair(hero={"melee": 30})
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([1]))
    engine.apply(Mishap(0, "overextended"))
    engine.end_turn()
    engine.begin_turn("ogre")
    events = engine.apply(D10Attack("ogre", "tombril", "Club"), ScriptedDice([9, 3]))
    assert "advantage" not in events[0].text  # this round: not yet
    engine.end_turn()
    declare_all(engine)
    engine.apply(act.NextRound(), ScriptedDice([1, 9]))
    engine.begin_turn("ogre")
    events = engine.apply(D10Attack("ogre", "tombril", "Club"), ScriptedDice([9, 3, 3]))
    assert "advantage (Tombril overextended)" in events[0].text


# -- damage -------------------------------------------------------------------------------------------


def test_masterwork_keeps_the_higher_of_two_dice_and_shoddy_the_lower_as_an_option() -> None:
    engine = pair(
        hero={
            "weapons": [
                {"name": "Fine", "die": "d6", "tier": "masterwork"},
                {"name": "Poor", "die": "d6", "tier": "shoddy"},
            ]
        }
    )
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Fine"), ScriptedDice([15, 2, 5]))
    assert "damage d6 2/5 (masterwork: 5) -2 DR = 3" in events[0].text
    engine.undo()
    events = engine.apply(D10Attack("tombril", "ogre", "Poor"), ScriptedDice([15, 2, 5]))
    assert "damage d6 2/5 (shoddy: 2) -2 DR = 0" in events[0].text
    engine.undo()
    engine.apply(act.EditOptions({"weapon_tiers": False}))
    events = engine.apply(D10Attack("tombril", "ogre", "Fine"), ScriptedDice([15, 2]))
    assert "damage d6 2 -2 DR = 0" in events[0].text


def test_a_minion_dies_on_any_hit_1_hp_is_a_lasting_wound_and_0_is_death() -> None:
    engine = table(
        [hero(), ogre("Bandit", minion=True, hp_max=1, dr=5), ogre(hp=4)],
        {"tombril": (2, 2), "bandit": (3, 2), "ogre": (2, 3)},
    )
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "bandit", "Sword"), ScriptedDice([15, 1]))
    assert events[0].text.endswith("damage d6 1 -5 DR = 0 → Bandit is a minion: dies on any hit")
    assert engine.combatant("bandit").dead
    engine.undo()
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([15, 5]))  # 5 - 2 = 3: 4 → 1
    assert (
        events[-1].text == "Ogre is at 1 HP: a lasting wound (Wounded)"
        and "wounded" in engine.combatant("ogre").conditions
    )
    engine.undo()
    events = engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([15, 6]))
    assert events[-1].text == "Ogre dies (0 HP)" and engine.combatant("ogre").dead


def test_a_subdual_attack_is_at_disadvantage_wounds_no_one_and_knocks_out_at_0() -> None:
    engine = pair(ogre={"hp": 4})
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    events = engine.apply(D10Attack("tombril", "ogre", "Sword", subdual=True), ScriptedDice([15, 12, 5]))
    assert "15/12 (disadvantage: 12)" in events[0].text and "disadvantage (subdual)" in events[0].text
    assert "wounded" not in engine.combatant("ogre").conditions  # at 1 HP, no lasting wound
    engine.undo()
    events = engine.apply(D10Attack("tombril", "ogre", "Sword", subdual=True), ScriptedDice([15, 12, 6]))
    assert events[-1].text == "Ogre is knocked unconscious (subdual)"
    assert not engine.combatant("ogre").dead


# -- the actions of a turn ---------------------------------------------------------------------------


def test_moving_away_from_an_adjacent_foe_queues_its_free_attack() -> None:
    engine = pair()
    fight(engine, [9, 1])
    engine.begin_turn("tombril")
    assert [(s.cell, s.attackers) for s in D10.movement.provocations(engine, "tombril", [(2, 2), (1, 2), (0, 2)])] == [
        ((2, 2), ("ogre",))
    ]
    events = engine.move("tombril", to=(0, 2))
    assert events[-1].text == "Tombril moves away: free attack from Ogre (queued)"
    events = engine.apply(FreeAttack(0), ScriptedDice([14, 6]))
    assert events[0].text.startswith(
        "Ogre makes a free attack on Tombril with Club: d20 14 +4 melee = 18 vs Defense 13: hit"
    )


def test_parry_dodge_uses_the_move_and_puts_attacks_against_it_at_disadvantage_until_its_next_action() -> None:
    engine = pair()
    declare_all(engine, "parry")
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([9, 1]))
    engine.begin_turn("tombril")
    engine.apply(ParryDodge("tombril"))
    assert engine.feet_left("tombril") == 0
    engine.end_turn()
    engine.begin_turn("ogre")
    events = engine.apply(D10Attack("ogre", "tombril", "Club", override=True), ScriptedDice([18, 4, 2]))
    assert "disadvantage (Tombril parries / dodges)" in events[1].text
    engine.end_turn()
    declare_all(engine)
    engine.apply(act.NextRound(), ScriptedDice([9, 1]))
    events = engine.begin_turn("tombril")  # its next turn: the parry ends
    assert "Tombril's parry / dodge ends (its turn has come)" in [e.text for e in events]


def test_disengage_success_moves_freely_and_failure_provokes() -> None:
    engine = pair()
    declare_all(engine, "disengage")
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([9, 1]))
    engine.begin_turn("tombril")
    events = engine.apply(Disengage("tombril", "ogre", "Sword"), ScriptedDice([15]))
    assert events[0].text.endswith("success, it moves freely this turn, no free attacks")
    assert D10.movement.provocations(engine, "tombril", [(2, 2), (1, 2)]) == []
    engine.move("tombril", to=(0, 2))
    assert engine.encounter.combat.pending == []
    engine.undo()
    engine.undo()
    engine.apply(Disengage("tombril", "ogre", "Sword"), ScriptedDice([2]))
    engine.move("tombril", to=(0, 2))
    assert [p.kind for p in engine.encounter.combat.pending] == ["free attack"]


def test_use_item_keeps_the_move_and_sprint_doubles_it() -> None:
    engine = table([hero(), hero("Cedryk"), ogre()], {"tombril": (2, 2), "cedryk": (2, 5), "ogre": (12, 2)})
    declare_all(engine, "item")
    engine.apply(Declare("cedryk", "sprint"))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([9, 1]))
    engine.begin_turn("tombril")
    engine.apply(UseItem("tombril", "a healing potion"))
    assert engine.feet_left("tombril") == 30
    engine.end_turn()
    engine.begin_turn("cedryk")
    engine.apply(Sprint("cedryk"))
    assert engine.feet_left("cedryk") == 60


# -- the GM's tools -----------------------------------------------------------------------------------


def test_an_opposed_roll_for_a_grapple_with_both_bonuses() -> None:
    engine = pair(hero={"strength": 2}, ogre={"strength": 4})
    events = engine.apply(OpposedRoll("tombril", "strength", "ogre", "strength", "grapple"), ScriptedDice([15, 11]))
    assert events[0].text == (
        "Opposed roll (grapple): Tombril d20 15 +2 feats of strength = 17 against "
        "Ogre d20 11 +4 feats of strength = 15: Tombril wins"
    )
    tool = next(t for t in D10.prompts.tools(engine) if t.title == "Opposed roll")
    action = tool.choices[0].build(
        {
            "first": "Ogre",
            "first_skill": "Perception",
            "second": "Tombril",
            "second_skill": "Stealth",
            "what": "spotting",
        }
    )
    assert action == OpposedRoll("ogre", "perception", "tombril", "stealth", "spotting")


def test_a_timer_die_counts_the_rounds_down_and_announces_the_event() -> None:
    engine = pair()
    fight(engine, [9, 1])
    events = engine.apply(SetTimer("d4", "the ceiling collapses"), ScriptedDice([2]))
    assert events[0].text == "Timer d4 2: the ceiling collapses in 2 rounds"
    assert D10.rounds.notes(engine) == ("Timer d4 (2): the ceiling collapses in 2 rounds",)
    for faces in ([9, 1], [9, 1]):
        for cid in ("tombril", "ogre"):
            engine.begin_turn(cid)
            engine.end_turn()
        declare_all(engine)
        events = engine.apply(act.NextRound(), ScriptedDice(faces))
    assert any(e.text == "Timer d4: the ceiling collapses!" for e in events)
    assert [(p.kind, p.urgent) for p in engine.encounter.combat.pending] == [("timer", True)]
    assert D10.rounds.notes(engine) == ()
    noted = D10.prompts.prompt(engine, engine.encounter.combat.pending[0]).choices[0].build({})
    assert engine.apply(noted)[0].text == "Timer d4: the ceiling collapses! The GM tells the table."
    assert engine.encounter.combat.pending == []


# -- the forecast ------------------------------------------------------------------------------------


def test_the_forecast_gives_the_chance_to_hit_under_the_advantage_state_and_the_damage() -> None:
    assert sum(kept_face(2, True).values()) == pytest.approx(1.0)
    engine = pair()
    t, o = engine.combatant("tombril"), engine.combatant("ogre")
    fc = forecast_strike(engine.encounter, t, o, t.weapon("Sword"), "melee")
    assert fc.p_hit == pytest.approx(12 / 20)  # 9+ on a d20
    fc = forecast_strike(engine.encounter, t, o, t.weapon("Sword"), "melee", gm_edge="advantage")
    assert fc.p_hit == pytest.approx(1 - (8 / 20) ** 2)  # 84%
    fc = forecast_strike(engine.encounter, t, o, t.weapon("Sword"), "melee", gm_edge="disadvantage")
    assert fc.p_hit == pytest.approx((12 / 20) ** 2)
    plain = forecast_strike(engine.encounter, t, o, t.weapon("Sword"), "melee")
    crit = (1 / 20) / (12 / 20)  # a critical among the hits
    assert plain.damage[10] == pytest.approx(crit / 6)  # a 6 doubled is 12, less DR 2
    assert plain.damage[0] == pytest.approx((1 - crit) * 2 / 6 + crit / 6)  # a 1 or 2 against DR 2; a 1 doubled
    minion = o.model_copy(update={"minion": True})
    assert forecast_strike(engine.encounter, t, minion, t.weapon("Sword"), "melee").p_down == pytest.approx(12 / 20)


# -- the demo ----------------------------------------------------------------------------------------


def test_the_demo_plays_and_saves_exactly(tmp_path: Any) -> None:
    demo = storage.load(resource("encounters", D10.demo()))
    engine = Engine(demo)
    declare_all(engine)
    engine.apply(act.StartCombat(situation="Party ambushes"), ScriptedDice([15, 3, 7, 3, 9]))
    assert {s.title for s in engine.encounter.combat.order} == {"Party", "Opponents", "Bandit captain"}
    path = storage.save(engine.encounter, tmp_path / "d10.lnl")
    assert storage.load(path) == engine.encounter
    assert len(D10.bestiary()) >= 12


@pytest.mark.parametrize("tier", ["masterwork", "shoddy", "common"])
@pytest.mark.parametrize("die", ["d4", "d8", "d12"])
def test_a_tiered_damage_die_is_the_higher_or_lower_of_two_as_counted_pair_by_pair(die: str, tier: str) -> None:
    """Masterwork keeps the higher of two dice, shoddy the lower (RULES §13): the forecast's distribution is
    the count of every pair of faces."""
    from lnl_desktop.core.rules.d10.model import D10Options, D10Weapon

    weapon = D10Weapon(name="Blade", die=die, tier=tier)
    s = weapon.sides
    counted: dict[int, float] = {}
    for a in range(1, s + 1):
        for b in range(1, s + 1):
            k = {"masterwork": max(a, b), "shoddy": min(a, b), "common": a}[tier]
            counted[k] = counted.get(k, 0.0) + 1 / (s * s)
    assert weapon_roll(weapon, D10Options()) == pytest.approx(counted, abs=1e-12)

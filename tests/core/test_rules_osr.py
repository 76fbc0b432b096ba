"""Old-School d20 (RULES §12), rule by rule, with the numbers a GM sees: AC, the to-hit terms,
natural 1 and 20, damage, counter-attacks, death saves (the source's 3 HP / 10 damage → DC 18),
saving throws, morale and initiative."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import Engine, IllegalAction, RulesError, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import RulesEvent, WentDown
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.osr import (
    CounterAttack,
    DeathSave,
    Defend,
    MoraleCheck,
    OsrAttack,
    OsrCombatant,
    SavingThrow,
    TakeMove,
    death_save_dc,
    parse_dice,
    to_hit,
)
from lnl_desktop.core.rules.osr.odds import forecast_strike
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource

OSR = get_ruleset("osr")


def fighter(**more: Any) -> dict[str, Any]:
    return {
        "name": "Tombril",
        "side": "Party",
        "kind": "PC",
        "hp_max": 14,
        "armor_bonus": 4,
        "shield": True,
        "attack_bonus": 3,
        "str_mod": 2,
        "save_poison": 2,
        "weapons": [
            {"name": "Longsword", "damage": "1d8"},
            {"name": "Dagger", "damage": "1d4", "kind": "thrown", "max_range_ft": 30},
        ],
    } | more


def ogre(**more: Any) -> dict[str, Any]:
    return {
        "name": "Ogre",
        "side": "Opponents",
        "kind": "monster",
        "level": 4,
        "hp_max": 22,
        "ac_typed": 14,
        "attack_bonus": 4,
        "str_mod": 2,
        "morale": 10,
        "weapons": [{"name": "Club", "damage": "2d6"}],
    } | more


def goblin(name: str, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "side": "Opponents",
        "hp_max": 4,
        "ac_typed": 12,
        "attack_bonus": 1,
        "morale": 7,
        "weapons": [
            {"name": "Spear", "damage": "1d6"},
            {"name": "Sling", "damage": "1d4", "kind": "missile", "max_range_ft": 60},
        ],
    } | more


def table(combatants: list[dict[str, Any]], tokens: dict[str, Any], **options: Any) -> Engine:
    encounter = OSR.new_encounter(
        name="test",
        combatants=combatants,
        tokens={cid: {"cell": cell, "facing": facing} for cid, (cell, facing) in tokens.items()},
        options=options,
    )
    return Engine(encounter)


def fight(engine: Engine, faces: list[int], situation: str = "nobody surprised") -> None:
    engine.apply(act.StartCombat(situation=situation), ScriptedDice(faces))


def texts(events: list[Any]) -> list[str]:
    return [e.text for e in events]


# -- the stat block --------------------------------------------------------------------------------


def test_ac_is_11_plus_armor_shield_and_dex_capped_by_the_armor_or_typed() -> None:
    chain = OsrCombatant.model_validate(fighter(dex_mod=3, armor_max_dex=1))
    assert chain.ac == 11 + 4 + 1 + 1  # chainmail +4, shield +1, DEX +3 capped at +1
    assert OsrCombatant.model_validate(fighter(dex_mod=2, armor_bonus=0, shield=False)).ac == 13
    assert OsrCombatant.model_validate(ogre()).ac == 14  # a monster's AC as written
    assert OSR.views.summary(chain).split(" · ")[2] == "AC 17 (11 + armor 4 + shield 1 + DEX +1)"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"morale": 8}, "morale"),  # a PC makes no morale checks
        ({"hp": 15}, "HP: 15 HP is above the maximum"),
        ({"armor_bonus": 8}, "Armor bonus cannot be above 7"),
        ({"weapons": [{"name": "Axe", "damage": "1d7"}]}, "Weapon 1, Damage"),
        (
            {"weapons": [{"name": "Bow", "damage": "1d6", "kind": "missile", "max_range_ft": 5}]},
            "Range cannot be below 10",
        ),
        ({"weapons": [{"name": "Axe", "damage": "one d6"}]}, "Weapon 1, Damage"),
    ],
)
def test_bad_values_are_refused_with_the_field_named(change: dict[str, Any], named: str) -> None:
    engine = table([fighter()], {})
    before = engine.encounter.model_dump()
    with pytest.raises(RulesError) as refused:
        engine.apply(act.EditCombatant("tombril", change))
    assert named in str(refused.value)
    assert engine.encounter.model_dump() == before


def test_a_weapon_changed_to_missile_gets_a_range_and_back_to_melee_loses_it() -> None:
    engine = table([fighter()], {})
    engine.apply(act.EditCombatant("tombril", {"weapons": [{"name": "Longsword", "damage": "1d8", "kind": "missile"}]}))
    assert engine.combatant("tombril").weapons[0].max_range_ft == 150
    engine.apply(
        act.EditCombatant("tombril", {"weapons": [{"name": "Longsword", "damage": "1d8", "max_range_ft": 150}]})
    )
    assert engine.combatant("tombril").weapons[0].max_range_ft is None


def test_dice_expressions_read_as_the_source_writes_them() -> None:
    assert parse_dice("1d8") == (1, 8, 0)
    assert parse_dice("2d6") == (2, 6, 0)
    assert parse_dice("1d2") == (1, 2, 0)
    assert parse_dice("1D6 + 1") == (1, 6, 1)
    with pytest.raises(ValueError, match="not a die"):
        parse_dice("1d7")


# -- the round -------------------------------------------------------------------------------------


def test_group_initiative_is_a_d20_plus_the_leaders_init_highest_first() -> None:
    engine = table(
        [fighter(init_mod=1), fighter(name="Cedryk", init_mod=3, leader=True), ogre(init_mod=-1), goblin("Goblin")],
        {"tombril": ((2, 2), 90), "cedryk": ((2, 4), 90), "ogre": ((10, 2), 270), "goblin": ((10, 5), 270)},
    )
    fight(engine, [9, 14])  # Party 9 + Cedryk's 3 = 12; Opponents 14 - 1 = 13
    order = engine.encounter.combat.order
    assert [s.title for s in order] == ["Opponents (Ogre leads)", "Party (Cedryk leads)"]
    assert [s.total for s in order] == [13, 12]
    assert order[1].roll == "d20 9 +3 INIT = 12"
    assert {c.name for c in engine.waiting()} == {"Ogre", "Goblin"}  # the side acts together, any order
    with pytest.raises(IllegalAction, match="before Tombril in the initiative order"):
        engine.begin_turn("tombril")
    assert engine.encounter.log[-1].text.startswith("Round 1: light normal; nobody surprised; initiative by group")


def test_group_ties_go_to_the_pcs_then_the_higher_init_then_a_tie_break_roll() -> None:
    pcs = table([fighter(init_mod=0), ogre(init_mod=0)], {"tombril": ((2, 2), 90), "ogre": ((8, 2), 270)})
    fight(pcs, [10, 10])
    assert pcs.encounter.combat.order[0].title.startswith("Party")
    npcs = table([fighter(kind="NPC", init_mod=0), ogre(init_mod=2)], {"tombril": ((2, 2), 90), "ogre": ((8, 2), 270)})
    fight(npcs, [12, 10])  # 12 + 0 = 10 + 2: no PC, so the higher INIT
    assert npcs.encounter.combat.order[0].title.startswith("Opponents")
    rolled = table([fighter(kind="NPC"), ogre()], {"tombril": ((2, 2), 90), "ogre": ((8, 2), 270)})
    fight(rolled, [10, 10, 4, 4, 3, 17])  # a tie-break d20 each, again while they tie
    first = rolled.encounter.combat.order[0]
    assert first.title.startswith("Opponents") and first.roll == "d20 10 +0 INIT = 10 (tie-break 4, 17)"


def test_individual_initiative_orders_every_combatant_and_the_turns_follow_it() -> None:
    engine = table(
        [fighter(init_mod=1), fighter(name="Cedryk", init_mod=2), ogre(), goblin("Goblin")],
        {"tombril": ((2, 2), 90), "cedryk": ((2, 4), 90), "ogre": ((10, 2), 270), "goblin": ((10, 5), 270)},
        initiative="individual",
    )
    fight(engine, [5, 15, 11, 15])  # Tombril 6, Cedryk 17, Ogre 11, Goblin 15
    assert [s.title for s in engine.encounter.combat.order] == ["Cedryk", "Goblin", "Ogre", "Tombril"]
    assert [c.name for c in engine.waiting()] == ["Cedryk"]
    with pytest.raises(IllegalAction, match="Cedryk acts before Ogre"):
        engine.begin_turn("ogre")
    engine.begin_turn("cedryk")
    engine.end_turn()
    assert [c.name for c in engine.waiting()] == ["Goblin"]


def test_initiative_may_change_from_group_to_individual_between_rounds() -> None:
    engine = table([fighter(), ogre()], {"tombril": ((2, 2), 90), "ogre": ((10, 2), 270)})
    fight(engine, [12, 3])
    engine.apply(act.EditOptions({"initiative": "individual", "light": "dim"}))
    engine.apply(act.NextRound(), ScriptedDice([2, 19]))
    assert [s.title for s in engine.encounter.combat.order] == ["Ogre", "Tombril"]
    assert "light dim (-2 to attacks); initiative individually" in engine.encounter.log[-1].text
    assert engine.elapsed_seconds == 10  # a round is about 10 seconds


def test_surprise_is_marked_per_side_and_both_surprised_is_nobody() -> None:
    engine = table([fighter(), ogre()], {"tombril": ((2, 2), 90), "ogre": ((10, 2), 270)})
    fight(engine, [18, 2], "Party surprised")
    with pytest.raises(IllegalAction, match="Tombril is surprised in round 1"):
        engine.begin_turn("tombril")
    assert [c.name for c in engine.waiting()] == ["Ogre"]
    both = table([fighter(), ogre()], {"tombril": ((2, 2), 90), "ogre": ((10, 2), 270)})
    fight(both, [18, 2], "both sides surprised")
    assert not any(c.surprised for c in both.encounter.combatants)
    assert "both sides surprised, so nobody is" in both.encounter.log[0].text


# -- movement and actions ----------------------------------------------------------------------


def test_each_action_allows_its_own_movement() -> None:
    engine = table([fighter(), ogre()], {"tombril": ((2, 2), 90), "ogre": ((12, 2), 270)})
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    assert engine.feet_left("tombril") == 30
    engine.move("tombril", to=(4, 2))  # 10 ft
    with pytest.raises(IllegalAction, match="a Charge moves and then attacks"):
        engine.apply(OsrAttack("tombril", "ogre", "Longsword", "melee"))
    with pytest.raises(IllegalAction, match="Defend may not move"):
        engine.apply(Defend("tombril"))
    with pytest.raises(IllegalAction, match="40 ft is beyond the maximum range"):
        engine.apply(OsrAttack("tombril", "ogre", "Dagger", "ranged"))
    engine.apply(TakeMove("tombril"))
    assert engine.feet_left("tombril") == 20  # a Move: the full 30 ft in all


def test_ranged_attacks_allow_half_a_move_short_long_and_beyond() -> None:
    engine = table([fighter(), goblin("Goblin")], {"tombril": ((2, 2), 90), "goblin": ((6, 2), 270)})
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    engine.move("tombril", to=(1, 2))  # 5 ft away: 20 ft from the goblin (3 cells between)
    events = engine.apply(OsrAttack("tombril", "goblin", "Dagger", "ranged"), ScriptedDice([10, 3]))
    assert "-1 long range" in events[0].text  # 20 ft > half of 30 ft
    assert engine.feet_left("tombril") == 10  # half of 30 ft in all, 5 already spent
    far = table([fighter(), goblin("Goblin")], {"tombril": ((0, 2), 90), "goblin": ((8, 2), 270)})
    fight(far, [20, 1])
    far.begin_turn("tombril")
    with pytest.raises(IllegalAction, match="40 ft is beyond the maximum range"):
        far.apply(OsrAttack("tombril", "goblin", "Dagger", "ranged"))
    far.move("tombril", to=(4, 2))  # 20 ft: more than half a Move
    with pytest.raises(IllegalAction, match=r"half the Move \(15 ft\)"):
        far.apply(OsrAttack("tombril", "goblin", "Dagger", "ranged"))


def test_melee_reaches_5_ft_or_10_with_a_reach_weapon_and_a_charge_moves_first() -> None:
    engine = table(
        [
            fighter(
                weapons=[{"name": "Longsword", "damage": "1d8"}, {"name": "Spear", "damage": "1d6", "kind": "reach"}]
            ),
            ogre(),
        ],
        {"tombril": ((2, 2), 90), "ogre": ((4, 2), 270)},
    )
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    with pytest.raises(IllegalAction, match="Ogre is 10 ft away"):
        engine.apply(OsrAttack("tombril", "ogre", "Longsword", "melee"))
    events = engine.apply(OsrAttack("tombril", "ogre", "Spear", "melee"), ScriptedDice([15, 4]))
    assert "hit" in events[0].text
    assert engine.feet_left("tombril") == 0  # no move after a melee attack
    charge = table([fighter(), ogre()], {"tombril": ((2, 2), 90), "ogre": ((8, 2), 270)})
    fight(charge, [20, 1])
    charge.begin_turn("tombril")
    charge.move("tombril", to=(7, 2))
    events = charge.apply(OsrAttack("tombril", "ogre", "Longsword", "charge"), ScriptedDice([14, 5]))
    assert events[0].text.startswith("Tombril charges Ogre with Longsword: d20 14 +3 attack bonus +2 STR = 19 vs AC 14")
    assert charge.feet_left("tombril") == 0


def test_defend_gives_2_ac_until_the_defenders_next_turn_or_guards_an_adjacent_ally() -> None:
    engine = table(
        [fighter(), fighter(name="Cedryk", shield=False), ogre()],
        {"tombril": ((2, 2), 90), "cedryk": ((2, 3), 90), "ogre": ((3, 2), 270)},
    )
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    engine.apply(Defend("tombril", "cedryk"))
    assert engine.feet_left("tombril") == 0
    ogre_ = engine.combatant("ogre")
    cedryk = engine.combatant("cedryk")
    hit = to_hit(engine.encounter, ogre_, cedryk, ogre_.weapon("Club"), "melee")
    assert hit.ac_text() == "AC 17 (15 +2 guarded by Tombril)"
    engine.end_turn()
    engine.begin_turn("cedryk")
    engine.apply(Defend("cedryk"))
    assert to_hit(engine.encounter, ogre_, cedryk, ogre_.weapon("Club"), "melee").ac == 19
    engine.end_turn()
    engine.apply(act.NextRound(), ScriptedDice([20, 1]))
    engine.begin_turn("tombril")  # its guard ends as its turn comes
    assert to_hit(engine.encounter, ogre_, cedryk, ogre_.weapon("Club"), "melee").ac_text() == "AC 17 (15 +2 defending)"


def test_a_move_action_and_a_spell_that_forbids_moving() -> None:
    engine = table(
        [fighter(), fighter(name="Janine"), ogre()],
        {"tombril": ((2, 2), 90), "janine": ((2, 5), 90), "ogre": ((12, 2), 270)},
    )
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    engine.apply(TakeMove("tombril"))
    engine.move("tombril", to=(8, 2))
    assert engine.feet_left("tombril") == 0
    engine.end_turn()
    engine.begin_turn("janine")
    from lnl_desktop.core.rules.osr import Cast

    engine.apply(Cast("janine", "Sleep"))
    with pytest.raises(IllegalAction, match="needs 5 ft but Janine has 0 ft"):
        engine.move("janine", to=(3, 5))


# -- counter-attacks -------------------------------------------------------------------------------


def test_moving_out_of_melee_queues_a_counter_attack_from_each_enemy_in_reach() -> None:
    engine = table(
        [fighter(), ogre(), goblin("Goblin")],
        {"tombril": ((5, 5), 90), "ogre": ((6, 5), 270), "goblin": ((5, 6), 0)},
    )
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    steps = OSR.movement.provocations(engine, "tombril", [(5, 5), (4, 5), (3, 5)])
    assert [(s.cell, s.attackers) for s in steps] == [((5, 5), ("ogre", "goblin"))]
    events = engine.move("tombril", path=[(5, 5), (4, 5), (3, 5)])
    assert events[-1].text == "Tombril moves out of melee: counter-attack from Ogre, Goblin (queued)"
    assert [(p.kind, p.who) for p in engine.encounter.combat.pending] == [
        ("counter-attack", "ogre"),
        ("counter-attack", "goblin"),
    ]
    # The Ogre rolls: d20 12 + 4 + 2 = 18 against AC 16 (Tombril faces it), 2d6 3+4 + 2.
    events = engine.apply(CounterAttack(0), ScriptedDice([12, 3, 4]))
    assert events[0].text == (
        "Ogre counter-attacks Tombril with Club: d20 12 +4 attack bonus +2 STR = 18 vs AC 16: "
        "hit; damage Club [3+4]+2 = 9 → Tombril 5/14 HP"
    )
    engine.apply(act.SkipPending(0, "the goblin cowers"))
    assert engine.encounter.combat.pending == []
    engine.undo()
    assert [p.who for p in engine.encounter.combat.pending] == ["goblin"]


def test_a_forced_move_provokes_nothing_and_a_monster_counters_as_many_foes_as_its_attacks() -> None:
    owlbear = ogre(name="Owlbear", attacks=2)
    engine = table(
        [fighter(), fighter(name="Cedryk"), fighter(name="Janine"), owlbear],
        {"tombril": ((5, 4), 90), "cedryk": ((5, 5), 90), "janine": ((5, 6), 90), "owlbear": ((6, 5), 270)},
    )
    fight(engine, [20, 1])
    engine.move("tombril", to=(2, 4), forced=True)
    assert engine.encounter.combat.pending == []
    engine.begin_turn("tombril")
    engine.move("tombril", to=(5, 4))  # back into reach: entering provokes nothing
    engine.move("tombril", to=(3, 4))
    engine.end_turn()
    engine.begin_turn("cedryk")
    engine.move("cedryk", to=(3, 5))
    engine.end_turn()
    engine.begin_turn("janine")
    assert OSR.movement.provocations(engine, "janine", [(5, 6), (4, 6)]) == []  # two foes already: its limit
    engine.move("janine", to=(4, 6))
    assert [p.target for p in engine.encounter.combat.pending] == ["tombril", "cedryk"]


def test_a_one_attack_combatant_counter_attacks_once_per_round_and_a_shot_while_engaged_provokes() -> None:
    engine = table(
        [fighter(), ogre()],
        {"tombril": ((5, 5), 90), "ogre": ((6, 5), 270)},
    )
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    events = engine.apply(OsrAttack("tombril", "ogre", "Dagger", "ranged"), ScriptedDice([2]))
    assert events[-1].text == "Tombril shoots while engaged: counter-attack from Ogre (queued)"
    engine.apply(act.SkipPending(0))
    engine.move("tombril", to=(4, 5))
    assert engine.encounter.combat.pending == []  # the Ogre has had its counter-attack on Tombril this round
    engine.end_turn()
    engine.begin_turn("ogre")
    engine.end_turn()
    engine.apply(act.NextRound(), ScriptedDice([20, 1]))
    assert engine.encounter.combat.free_attacks == {}


# -- to hit and damage -------------------------------------------------------------------------------


def test_natural_20_always_hits_and_natural_1_always_misses() -> None:
    engine = table(
        [fighter(attack_bonus=0, str_mod=0), ogre(ac_typed=30)], {"tombril": ((2, 2), 90), "ogre": ((3, 2), 270)}
    )
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    events = engine.apply(OsrAttack("tombril", "ogre", "Longsword"), ScriptedDice([20, 5]))
    assert "d20 20 +0 attack bonus = 20 vs AC 30 (natural 20: always hits): hit" in events[0].text
    engine.undo()
    sure = table([fighter(attack_bonus=25), ogre()], {"tombril": ((2, 2), 90), "ogre": ((3, 2), 270)})
    fight(sure, [20, 1])
    sure.begin_turn("tombril")
    events = sure.apply(OsrAttack("tombril", "ogre", "Longsword"), ScriptedDice([1]))
    assert events[0].text.endswith("(natural 1: always misses): miss")


def test_every_modifier_is_listed_light_cover_dual_and_long_range() -> None:
    engine = table(
        [fighter(weapons=[{"name": "Longsword", "damage": "1d8"}, {"name": "Short sword", "damage": "1d6"}]), ogre()],
        {"tombril": ((2, 2), 90), "ogre": ((3, 2), 270)},
        light="dark",
    )
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    events = engine.apply(
        OsrAttack("tombril", "ogre", "Longsword", cover="-3", second="Short sword"), ScriptedDice([19, 2, 5])
    )
    assert "d20 19 +3 attack bonus +2 STR -5 dark light -3 cover -1 dual attack = 15 vs AC 14: hit" in events[0].text
    assert "damage Longsword [2]+2 = 4 / Short sword [5]+2 = 7: the higher, 7 → Ogre 15/22 HP" in events[0].text


def test_full_cover_cannot_be_shot_and_a_blinded_attacker_attacks_at_disadvantage() -> None:
    engine = table([fighter(), goblin("Goblin")], {"tombril": ((2, 2), 90), "goblin": ((6, 2), 270)})
    engine.apply(act.PaintTerrain("walls", ((4, 1), (4, 2), (4, 3)), True))
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    with pytest.raises(IllegalAction, match=r"Goblin is behind the wall at \(4, 2\): full cover, it cannot be shot"):
        engine.apply(OsrAttack("tombril", "goblin", "Dagger", "ranged"))
    engine.apply(act.EditCombatant("tombril", {"conditions": ["blinded"]}))
    engine.apply(act.PaintTerrain("walls", ((4, 1), (4, 2), (4, 3)), False))
    # RULES §12: blinded attacks at disadvantage (2d20, the lower), not refused.
    events = engine.apply(OsrAttack("tombril", "goblin", "Dagger", "ranged"), ScriptedDice([18, 4]))
    assert "disadvantage (attacker blinded): 2d20 [18, 4] keeps 4" in events[0].text
    assert events[0].text.endswith(": miss")


def test_a_paralyzed_target_is_hit_automatically_in_melee() -> None:
    engine = table([fighter(), ogre(conditions=["paralyzed"])], {"tombril": ((2, 2), 90), "ogre": ((3, 2), 270)})
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    events = engine.apply(OsrAttack("tombril", "ogre", "Longsword"), ScriptedDice([6]))  # only the damage die
    assert "Ogre is paralyzed: hit automatically in melee: hit; damage Longsword [6]+2 = 8" in events[0].text


def test_damage_adds_str_in_melee_and_is_at_least_1_and_a_missile_adds_nothing() -> None:
    weak = fighter(str_mod=-3, weapons=[{"name": "Bow", "damage": "1d6", "kind": "missile", "max_range_ft": 150}])
    engine = table([weak, ogre()], {"tombril": ((2, 2), 90), "ogre": ((3, 2), 270)})
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    events = engine.apply(OsrAttack("tombril", "ogre", "Unarmed"), ScriptedDice([20, 1]))
    assert "damage Unarmed [1]-3 = 1" in events[0].text  # 1d2 - 3, at least 1
    engine.undo()
    engine.move("tombril", to=(1, 2))
    events = engine.apply(OsrAttack("tombril", "ogre", "Bow", "ranged"), ScriptedDice([15, 2]))
    assert "damage Bow [2] = 2" in events[0].text  # a missile adds no STR


def test_subdual_damage_is_tracked_apart_and_at_hp_the_foe_surrenders() -> None:
    engine = table([fighter(), goblin("Goblin", hp_max=6)], {"tombril": ((2, 2), 90), "goblin": ((3, 2), 270)})
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    subdue = OsrAttack("tombril", "goblin", "Longsword", subdual=True, flat_of_blade=True)
    events = engine.apply(subdue, ScriptedDice([15, 5]))
    assert "with Longsword (the flat of the blade)" in events[0].text
    goblin_ = engine.combatant("goblin")
    assert (goblin_.hp, goblin_.subdual, goblin_.morale_result) == (6, 7, "surrenders")
    assert events[-1].text == "Goblin is subdued (7 subdual ≥ 6 HP) and surrenders"


def test_a_shield_is_negated_only_from_behind() -> None:
    engine = table([fighter(), ogre()], {"tombril": ((5, 5), 90), "ogre": ((6, 5), 270)})
    tombril, ogre_ = engine.combatant("tombril"), engine.combatant("ogre")
    assert to_hit(engine.encounter, ogre_, tombril, ogre_.weapon("Club"), "melee").ac == 16  # in front
    engine.face("tombril", 270)
    assert to_hit(engine.encounter, ogre_, tombril, ogre_.weapon("Club"), "melee").ac == 15


# -- at 0 HP, saves ------------------------------------------------------------------------------------


def test_the_sources_example_3_hp_and_10_damage_is_a_death_save_against_dc_18() -> None:
    assert death_save_dc(7) == 18
    engine = table(
        [fighter(hp=3), ogre(weapons=[{"name": "Club", "damage": "1d8+2"}], str_mod=0)],
        {"tombril": ((5, 5), 90), "ogre": ((6, 5), 270)},
    )
    fight(engine, [1, 20])
    engine.begin_turn("ogre")
    events = engine.apply(OsrAttack("ogre", "tombril", "Club"), ScriptedDice([15, 8]))  # 8 + 2 = 10 damage
    assert isinstance(events[1], WentDown)
    assert (
        events[1].text == "Tombril drops to 0 HP: death save d20 +2 (Poison or Death) against DC 18 (11 + 7 overkill)"
    )
    item = engine.encounter.combat.pending[0]
    assert (item.kind, item.number, item.urgent) == ("death save", 18, True)
    saved = engine.apply(DeathSave(0), ScriptedDice([16]))
    assert saved[0].text == "Tombril's death save: d20 16 +2 = 18 vs DC 18: success: unconscious at 0 HP"
    assert engine.combatant("tombril").down and not engine.combatant("tombril").dead
    engine.undo()
    failed = engine.apply(DeathSave(0), ScriptedDice([15]))
    assert failed[0].text.endswith("failure: dead") and engine.combatant("tombril").dead


def test_a_monster_at_0_hp_is_defeated_without_a_save() -> None:
    engine = table([fighter(), goblin("Goblin")], {"tombril": ((2, 2), 90), "goblin": ((3, 2), 270)})
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    events = engine.apply(OsrAttack("tombril", "goblin", "Longsword"), ScriptedDice([15, 8]))
    assert [e.text for e in events if isinstance(e, WentDown)] == ["Goblin is defeated (0 HP)"]
    assert not any(p.kind == "death save" for p in engine.encounter.combat.pending)


def test_a_saving_throw_is_a_d20_plus_the_category_against_a_dc() -> None:
    engine = table([fighter(save_spells=3)], {})
    events = engine.apply(SavingThrow("tombril", "Spells", 15), ScriptedDice([12]))
    assert events[0].text == "Tombril saves against Spells: d20 12 +3 = 15 vs DC 15: saved"
    with pytest.raises(IllegalAction, match="no category 'Fire'"):
        engine.apply(SavingThrow("tombril", "Fire", 15))


# -- morale -----------------------------------------------------------------------------------------


def _band() -> Engine:
    return table(
        [
            fighter(attack_bonus=20),
            goblin("Goblin 1", morale=7),
            goblin("Goblin 2", morale=7),
            goblin("Goblin 3", morale=2),
            goblin("Skeleton", morale=12),
        ],
        {
            "tombril": ((5, 5), 90),
            "goblin-1": ((6, 5), 270),
            "goblin-2": ((6, 6), 270),
            "goblin-3": ((12, 6), 270),
            "skeleton": ((12, 9), 270),
        },
    )


def test_the_first_death_on_a_side_prompts_its_morale_check() -> None:
    engine = _band()
    fight(engine, [20, 1])
    engine.begin_turn("tombril")
    events = engine.apply(OsrAttack("tombril", "goblin-1", "Longsword"), ScriptedDice([15, 8]))
    assert events[-1].text == "Morale check for the Opponents: the first of the Opponents has fallen"
    prompt = OSR.prompts.prompt(engine, engine.encounter.combat.pending[0])
    assert prompt.title == "Morale check" and "Goblin 2 7" in prompt.choices[0].label
    action = prompt.choices[0].build({"modifier": -1, "cornered": False, "outcome": "flees"})
    events = engine.apply(action, ScriptedDice([3, 4]))  # 7 > 7 - 1
    assert events[0].text == (
        "Morale of the Opponents: 2d6 [3+4] = 7; Goblin 2 (morale 7-1 = 6) flees; "
        "Goblin 3 (morale 2) flees; Skeleton (morale 12) fights to the death"
    )
    assert engine.combatant("goblin-2").morale_result == "flees"


def test_half_the_side_out_of_the_fight_prompts_again_and_two_passes_end_the_checks() -> None:
    engine = _band()
    fight(engine, [20, 1])
    engine.apply(MoraleCheck("Opponents", cornered=True), ScriptedDice([2, 2]))
    engine.apply(MoraleCheck("Opponents", modifier=2, cornered=True), ScriptedDice([4, 5]))
    goblin2 = engine.combatant("goblin-2")
    assert goblin2.morale_passes == 2
    assert "Goblin 2 (morale 7+2 = 9) stands; fights on to the end" in engine.encounter.log[-1].text
    engine.begin_turn("tombril")
    engine.apply(OsrAttack("tombril", "goblin-1", "Longsword"), ScriptedDice([15, 8]))
    engine.apply(act.SkipPending(0))
    engine.end_turn()
    engine.begin_turn("goblin-2")
    engine.end_turn()
    engine.apply(act.NextRound(), ScriptedDice([20, 1]))
    engine.begin_turn("tombril")
    events = engine.apply(OsrAttack("tombril", "goblin-2", "Longsword"), ScriptedDice([15, 8]))
    assert "half of the Opponents are out of the fight" in texts(events)[-1]  # 2 of 4 down
    with pytest.raises(IllegalAction, match="a situational modifier is -2 to \\+2"):
        engine.apply(MoraleCheck("Opponents", modifier=3))


def test_mercenary_morale_by_troop_type_is_in_the_bestiary() -> None:
    creatures = {c["name"]: c for c in OSR.bestiary()}
    assert creatures["Militia spear"]["morale"] == 6
    assert creatures["Trained warrior"]["morale"] == 8
    assert len(creatures) >= 12


# -- the forecast --------------------------------------------------------------------------------------


def test_the_forecast_gives_the_exact_chance_to_hit_and_damage_on_a_hit() -> None:
    engine = table(
        [fighter(attack_bonus=1, str_mod=2), ogre(ac_typed=15)], {"tombril": ((2, 2), 90), "ogre": ((3, 2), 270)}
    )
    e = engine.encounter
    t, o = engine.combatant("tombril"), engine.combatant("ogre")
    fc = forecast_strike(e, t, o, t.weapon("Longsword"), "melee")
    assert fc.p_hit == pytest.approx(9 / 20)  # 12+ on the d20
    assert fc.damage == pytest.approx({k: 1 / 8 for k in range(3, 11)})
    assert fc.mean == pytest.approx(6.5)
    assert fc.mean_taken == pytest.approx(9 / 20 * 6.5)
    assert fc.p_down == 0
    assert fc.summary.startswith("To hit: d20 +1 attack bonus +2 STR vs AC 15. On a hit 6.5 on average")
    sure = forecast_strike(e, t.model_copy(update={"attack_bonus": 30}), o, t.weapon("Longsword"), "melee")
    never = forecast_strike(e, t.model_copy(update={"attack_bonus": -30}), o, t.weapon("Longsword"), "melee")
    assert (sure.p_hit, never.p_hit) == (0.95, 0.05)  # natural 1 and natural 20
    weak = o.model_copy(update={"hp": 9})
    assert forecast_strike(e, t, weak, t.weapon("Longsword"), "melee").p_down == pytest.approx(9 / 20 * 2 / 8)


def test_the_forecast_of_a_dual_attack_keeps_the_higher_die() -> None:
    engine = table(
        [fighter(str_mod=0, weapons=[{"name": "A", "damage": "1d4"}, {"name": "B", "damage": "1d4"}]), ogre()],
        {"tombril": ((2, 2), 90), "ogre": ((3, 2), 270)},
    )
    t, o = engine.combatant("tombril"), engine.combatant("ogre")
    fc = forecast_strike(engine.encounter, t, o, t.weapon("A"), "melee", second="B")
    assert fc.damage == pytest.approx({1: 1 / 16, 2: 3 / 16, 3: 5 / 16, 4: 7 / 16})


# -- files and the demo ----------------------------------------------------------------------------


def test_the_demo_loads_and_an_encounter_in_combat_saves_and_loads_exactly(tmp_path: Any) -> None:
    demo = storage.load(resource(f"encounters/{OSR.demo()}"))
    assert demo.ruleset == "osr" and len(demo.combatants) == 9
    engine = Engine(demo)
    fight(engine, [12, 7])
    engine.begin_turn(engine.waiting()[0].id)
    path = storage.save(engine.encounter, tmp_path / "osr.lnl")
    again = storage.load(path)
    assert again == engine.encounter
    assert again.combat.order == engine.encounter.combat.order
    assert isinstance(engine.encounter.log[0], RulesEvent) or engine.encounter.log[0].text.startswith("Round 1")
    assert Side.PARTY in {c.side for c in demo.combatants}


def test_conditions_are_labels_with_their_text_and_the_applied_ones_say_so() -> None:
    assert "wounded" in OSR.conditions.menu() and "burning" in OSR.conditions.menu()
    assert OSR.conditions.tip("prone").startswith("On the ground")
    assert OSR.conditions.tip("blinded").endswith(
        "Old-School d20: its attacks at disadvantage, attacks on it at advantage;"
        " no spell at a creature (it needs sight)"
    )
    assert OSR.conditions.tip("a curse of my own") == ""


def test_a_spell_that_takes_time_goes_off_next_turn_unless_damage_or_a_failed_save_interrupts_it() -> None:
    from lnl_desktop.core.rules.osr import Cast

    engine = table([fighter(name="Janine", save_spells=0), ogre()], {"janine": ((2, 2), 90), "ogre": ((3, 2), 270)})
    fight(engine, [20, 1])
    engine.begin_turn("janine")
    events = engine.apply(Cast("janine", "Sleep", lasting=True))
    assert events[0].text.startswith("Janine begins casting Sleep: it goes off as its next turn begins")
    assert "casting Sleep" in engine.combatant("janine").status_words()
    engine.end_turn()
    engine.begin_turn("ogre")
    events = engine.apply(OsrAttack("ogre", "janine", "Club"), ScriptedDice([15, 1, 1]))
    assert events[1].text == "Janine's Sleep is interrupted: 4 damage"
    engine.undo()
    events = engine.apply(SavingThrow("janine", "Spells", 15), ScriptedDice([3]))
    assert events[-1].text == "Janine's Sleep is interrupted: failed a save against Spells"
    engine.undo()
    engine.end_turn()
    engine.apply(act.NextRound(), ScriptedDice([20, 1]))
    events = engine.begin_turn("janine")
    assert "Janine's Sleep goes off (cast last turn, not interrupted)" in texts(events)

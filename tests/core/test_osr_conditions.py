"""Old-School d20 (RULES §12) in the core: a monster's several attacks on its turn, advantage and
disadvantage from the conditions table, attacks on the unconscious (a critical hit from 5 ft),
the conditions that act at the start of a turn, charm and fear with their source, and the spells'
checks (silenced, blinded, line of sight)."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import Engine, IllegalAction, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.rules.osr import Burn, Cast, Confusion, CounterAttack, OsrAttack, TakeMove, to_hit
from lnl_desktop.core.rules.osr.model import StandUp
from lnl_desktop.core.rules.osr.odds import forecast_strike
from lnl_desktop.core.rules.registry import get_ruleset

OSR = get_ruleset("osr")


def pc(name: str, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "side": "Party",
        "kind": "PC",
        "hp_max": 14,
        "armor_bonus": 2,
        "attack_bonus": 3,
        "str_mod": 2,
        "save_poison": 2,
        "weapons": [
            {"name": "Longsword", "damage": "1d8"},
            {"name": "Bow", "damage": "1d6", "kind": "missile", "max_range_ft": 60},
        ],
    } | more


def owlbear(**more: Any) -> dict[str, Any]:
    return {
        "name": "Owlbear",
        "side": "Opponents",
        "kind": "monster",
        "level": 5,
        "hp_max": 30,
        "ac_typed": 14,
        "attack_bonus": 5,
        "str_mod": 2,
        "morale": 9,
        "attacks": 3,
        "weapons": [{"name": "Claw", "damage": "1d6"}, {"name": "Beak", "damage": "2d6"}],
    } | more


def table(combatants: list[dict[str, Any]], cells: dict[str, tuple[int, int]]) -> Engine:
    encounter = OSR.new_encounter(
        name="test",
        combatants=combatants,
        tokens={cid: {"cell": cell, "facing": 90} for cid, cell in cells.items()},
    )
    return Engine(encounter)


def fight(engine: Engine, first: str = "Opponents") -> None:
    faces = [1, 20] if first == "Opponents" else [20, 1]
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice(faces))


def owlbear_table(**more: Any) -> Engine:
    engine = table(
        [pc("Ann"), pc("Bob"), owlbear(**more)],
        {"ann": (2, 2), "bob": (2, 3), "owlbear": (3, 2)},
    )
    fight(engine)
    engine.begin_turn("owlbear")
    return engine


# -- several attacks --------------------------------------------------------------------------------


def test_a_monster_with_three_attacks_makes_three_rolls_on_its_turn_at_any_foe_in_reach() -> None:
    engine = owlbear_table()
    owl = engine.combatant("owlbear")
    assert OSR.actions.still_open(engine.encounter, owl) == ""  # nothing taken yet: its first attack
    first = engine.apply(OsrAttack("owlbear", "ann", "Claw"), ScriptedDice([2]))
    assert first[0].text.startswith("Owlbear attacks Ann with Claw (attack 1 of 3): d20 2")
    assert OSR.actions.still_open(engine.encounter, owl) == "Attack 2 of 3"
    second = engine.apply(OsrAttack("owlbear", "bob", "Beak"), ScriptedDice([3]))
    assert "(attack 2 of 3)" in second[0].text and "Bob" in second[0].text
    third = engine.apply(OsrAttack("owlbear", "ann", "Claw"), ScriptedDice([4]))
    assert "(attack 3 of 3)" in third[0].text
    assert engine.encounter.combat.turn.attacks == 3
    assert OSR.actions.still_open(engine.encounter, owl) == ""
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction, match=r"already took its action \(melee\)"):
        engine.apply(OsrAttack("owlbear", "ann", "Claw"), ScriptedDice([20, 6]))
    assert engine.encounter.model_dump() == before
    engine.undo()
    assert OSR.actions.still_open(engine.encounter, owl) == "Attack 3 of 3"


def test_between_its_attacks_no_other_action_may_be_taken_and_a_one_attack_creature_attacks_once() -> None:
    engine = owlbear_table()
    engine.apply(OsrAttack("owlbear", "ann", "Claw"), ScriptedDice([2]))
    for refused in (TakeMove("owlbear"), Cast("owlbear", "Roar", "ann"), act.OtherAction("owlbear", "roars")):
        with pytest.raises(IllegalAction, match="already took its action"):
            engine.apply(refused)
    spec = next(s for s in OSR.actions.kinds() if s.key == "defend")
    checks = OSR.actions.checks(engine.encounter, spec, engine.combatant("owlbear"), None, "", None)
    assert [c.reason for c in checks if not c.ok] == [
        "1 of 3 attacks made: the next is a melee or a ranged attack, or end the turn"
    ]
    engine.end_turn()
    engine.begin_turn("ann")
    engine.apply(OsrAttack("ann", "owlbear", "Longsword"), ScriptedDice([2]))
    with pytest.raises(IllegalAction, match=r"already took its action \(melee\)"):
        engine.apply(OsrAttack("ann", "owlbear", "Longsword"), ScriptedDice([2]))


def test_its_attacks_per_round_still_only_limit_counter_attacks_to_as_many_foes() -> None:
    engine = table([pc("Ann"), owlbear(attacks=1)], {"ann": (2, 2), "owlbear": (3, 2)})
    fight(engine, "Party")
    engine.begin_turn("ann")
    engine.apply(act.Move("ann", to=(0, 2)))
    assert [(p.kind, p.who) for p in engine.encounter.combat.pending] == [("counter-attack", "owlbear")]
    engine.apply(CounterAttack(0), ScriptedDice([1]))


# -- advantage and disadvantage ----------------------------------------------------------------------


def test_a_prone_target_gives_advantage_within_5_ft_in_the_roll_the_log_and_the_forecast() -> None:
    engine = table([pc("Ann"), owlbear(conditions=["prone"])], {"ann": (2, 2), "owlbear": (3, 2)})
    fight(engine, "Party")
    engine.begin_turn("ann")
    ann, owl = engine.combatant("ann"), engine.combatant("owlbear")
    hit = to_hit(engine.encounter, ann, owl, ann.weapon("Longsword"), "melee")
    assert hit.edge_text() == "advantage (target prone)"
    plain = 12 / 20  # d20 + 5 >= 14: faces 9-20
    assert hit.chance == pytest.approx(1 - (1 - plain) ** 2)
    fc = forecast_strike(engine.encounter, ann, owl, ann.weapon("Longsword"), "melee")
    assert fc.p_hit == pytest.approx(1 - (1 - plain) ** 2)
    assert "advantage (target prone)" in fc.summary
    events = engine.apply(OsrAttack("ann", "owlbear", "Longsword"), ScriptedDice([3, 12, 5]))
    assert "advantage (target prone): 2d20 [3, 12] keeps 12 +3 attack bonus +2 STR = 17 vs AC 14: hit" in events[0].text
    # From farther (a bow at 15 ft) a prone target is harder to hit.
    engine.undo()
    engine.apply(act.Move("ann", to=(0, 2)))
    shot = to_hit(engine.encounter, ann, owl, ann.weapon("Bow"), "ranged")
    assert shot.edge_text() == "disadvantage (target prone, not within 5 ft)"


@pytest.mark.parametrize(
    ("attacker", "target", "words"),
    [
        (["poisoned"], [], "disadvantage (attacker poisoned)"),
        (["Frightened of Nobody"], [], "disadvantage (attacker frightened)"),
        (["restrained"], [], "disadvantage (attacker restrained)"),
        (["prone"], [], "disadvantage (attacker prone)"),
        (["invisible"], [], "advantage (attacker invisible)"),
        ([], ["invisible"], "disadvantage (target invisible)"),
        ([], ["blinded"], "advantage (target blinded)"),
        ([], ["stunned"], "advantage (target stunned)"),
        ([], ["Restrained"], "advantage (target restrained)"),
        (
            ["poisoned"],
            ["blinded"],
            "advantage (target blinded) and disadvantage (attacker poisoned) cancel: a plain roll",
        ),
    ],
)
def test_each_condition_of_the_table_gives_its_advantage_or_disadvantage(
    attacker: list[str], target: list[str], words: str
) -> None:
    engine = table([pc("Ann", conditions=attacker), owlbear(conditions=target)], {"ann": (2, 2), "owlbear": (3, 2)})
    ann, owl = engine.combatant("ann"), engine.combatant("owlbear")
    hit = to_hit(engine.encounter, ann, owl, ann.weapon("Longsword"), "melee")
    assert hit.edge_text() == words


def test_cancelled_edges_roll_one_d20_and_exhaustion_and_wounds_lower_the_roll() -> None:
    engine = table(
        [pc("Ann", conditions=["poisoned", "exhausted 2", "wounded"]), owlbear(conditions=["blinded"])],
        {"ann": (2, 2), "owlbear": (3, 2)},
    )
    fight(engine, "Party")
    engine.begin_turn("ann")
    events = engine.apply(OsrAttack("ann", "owlbear", "Longsword"), ScriptedDice([15, 4]))
    assert (
        "cancel: a plain roll: d20 15 +3 attack bonus +2 STR -2 exhausted 2 -2 wounded = 16 vs AC 14: hit"
        in events[0].text
    )


def test_exhaustion_3_halves_the_move() -> None:
    engine = table([pc("Ann", conditions=["exhausted 3"]), owlbear()], {"ann": (2, 2), "owlbear": (9, 9)})
    fight(engine, "Party")
    engine.begin_turn("ann")
    assert engine.feet_left("ann") == 15


# -- attacks on the unconscious --------------------------------------------------------------------


def test_an_unconscious_pc_can_be_attacked_with_advantage_a_hit_from_5_ft_is_critical_and_asks_a_new_death_save() -> (
    None
):
    engine = owlbear_table()
    engine.apply(act.EditCombatant("ann", {"hp": 0, "conditions": ["unconscious"]}))
    ann, owl = engine.combatant("ann"), engine.combatant("owlbear")
    hit = to_hit(engine.encounter, owl, ann, owl.weapon("Claw"), "melee")
    assert hit.edge_text() == "advantage (target unconscious)" and hit.critical
    fc = forecast_strike(engine.encounter, owl, ann, owl.weapon("Claw"), "melee")
    assert max(fc.damage) == 12 + 2  # 2d6 + STR: the Claw's 1d6 rolled twice
    events = engine.apply(OsrAttack("owlbear", "ann", "Claw"), ScriptedDice([5, 9, 3, 4]))
    assert events[0].text.endswith(
        ": critical hit (unconscious, within 5 ft: the damage dice rolled twice); damage Claw [3+4]+2 = 9 → Ann 0/14 HP"
    )
    assert engine.encounter.combat.pending[-1].kind == "death save"
    assert engine.encounter.combat.pending[-1].number == 11 + 9  # RULES §12: against 11 + that damage


def test_the_dead_and_the_defeated_cannot_be_attacked() -> None:
    engine = owlbear_table()
    engine.apply(act.EditCombatant("ann", {"dead": True}))
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction, match="Ann is dead"):
        engine.apply(OsrAttack("owlbear", "ann", "Claw"))
    assert engine.encounter.model_dump() == before
    engine.end_turn()
    engine.apply(act.EditCombatant("owlbear", {"hp": 0}))
    engine.begin_turn("bob")
    with pytest.raises(IllegalAction, match="Owlbear is defeated"):
        engine.apply(OsrAttack("bob", "owlbear", "Longsword"))


def test_a_helpless_creature_makes_no_counter_attack() -> None:
    engine = table([pc("Ann"), owlbear(conditions=["stunned"])], {"ann": (2, 2), "owlbear": (3, 2)})
    fight(engine, "Party")
    engine.begin_turn("ann")
    engine.apply(act.Move("ann", to=(0, 2)))
    assert engine.encounter.combat.pending == []


# -- charm and fear, with their source -------------------------------------------------------------


def test_a_charmed_creature_cannot_attack_its_charmer_but_may_attack_others() -> None:
    engine = owlbear_table(conditions=["charmed by Ann"])
    with pytest.raises(IllegalAction, match="Owlbear is charmed by Ann: it cannot attack it"):
        engine.apply(OsrAttack("owlbear", "ann", "Claw"))
    engine.apply(OsrAttack("owlbear", "bob", "Claw"), ScriptedDice([2]))


def test_a_frightened_creature_may_not_end_a_move_closer_to_what_it_fears() -> None:
    engine = table([pc("Ann", conditions=["frightened of Owlbear"]), owlbear()], {"ann": (2, 2), "owlbear": (8, 2)})
    fight(engine, "Party")
    engine.begin_turn("ann")
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction, match="Ann is frightened of Owlbear: a move may not end closer to it"):
        engine.apply(act.Move("ann", to=(4, 2)))
    assert engine.encounter.model_dump() == before
    engine.apply(act.Move("ann", to=(1, 2)))
    assert engine.encounter.tokens["ann"].cell == (1, 2)


# -- conditions that act at the start of a turn -----------------------------------------------------


def test_burning_asks_for_its_fire_damage_as_the_turn_begins_and_it_lands_as_damage() -> None:
    engine = table([pc("Ann", conditions=["Burning"], hp=3), owlbear()], {"ann": (2, 2), "owlbear": (8, 2)})
    fight(engine, "Party")
    events = engine.begin_turn("ann")
    assert "Ann is burning: 1d6 fire damage as its turn begins" in [e.text for e in events]
    index = next(i for i, p in enumerate(engine.encounter.combat.pending) if p.kind == "burning")
    events = engine.apply(Burn(index), ScriptedDice([5]))
    assert events[0].text == "Ann burns: 1d6 [5] = 5 fire damage → Ann 0/14 HP"
    death = engine.encounter.combat.pending[-1]
    assert death.kind == "death save" and death.number == 11 + 2
    spec = OSR.prompts.prompt(engine, death)
    assert spec.title == "Death save"


def test_confusion_rolls_its_d6_as_the_turn_begins_and_says_what_the_creature_does() -> None:
    engine = table([pc("Ann", conditions=["confused"]), owlbear()], {"ann": (2, 2), "owlbear": (8, 2)})
    fight(engine, "Party")
    engine.begin_turn("ann")
    (item,) = engine.encounter.combat.pending
    assert OSR.prompts.prompt(engine, item).choices[0].label == "Roll the d6"
    events = engine.apply(Confusion(0), ScriptedDice([1]))
    assert events[0].text == "Ann is confused: d6 1: attacks the nearest creature this turn"
    engine.undo()
    assert engine.apply(Confusion(0), ScriptedDice([6]))[0].text.endswith("d6 6: does nothing this turn")
    with pytest.raises(IllegalAction, match="no confused is waiting there"):
        engine.apply(Confusion(0), ScriptedDice([6]))


# -- spells -------------------------------------------------------------------------------------------


def test_a_spell_at_a_creature_needs_a_voice_sight_and_a_line_of_sight() -> None:
    engine = table([pc("Ann"), owlbear()], {"ann": (2, 2), "owlbear": (6, 2)})
    fight(engine, "Party")
    engine.begin_turn("ann")
    engine.apply(act.EditCombatant("ann", {"conditions": ["silenced"]}))
    with pytest.raises(IllegalAction, match="Ann is silenced: no spells"):
        engine.apply(Cast("ann", "Magic missile", "owlbear"))
    with pytest.raises(IllegalAction, match="Ann is silenced: no spells"):
        engine.apply(Cast("ann", "Shield"))
    engine.apply(act.EditCombatant("ann", {"conditions": ["blinded"]}))
    with pytest.raises(IllegalAction, match="Ann is blinded: no spell that needs sight"):
        engine.apply(Cast("ann", "Magic missile", "owlbear"))
    engine.apply(Cast("ann", "Shield"))  # on itself: no sight needed
    engine.undo()
    engine.apply(act.EditCombatant("ann", {"conditions": []}))
    engine.apply(act.PaintTerrain("walls", ((4, 1), (4, 2), (4, 3)), True))
    with pytest.raises(IllegalAction, match=r"Owlbear is behind the wall at \(4, 2\)"):
        engine.apply(Cast("ann", "Magic missile", "owlbear"))
    engine.apply(act.PaintTerrain("walls", ((4, 1), (4, 2), (4, 3)), False))
    events = engine.apply(Cast("ann", "Magic missile", "owlbear"))
    assert events[-1].text == "Ann casts Magic missile at Owlbear (no move this turn)"


def test_a_charmed_caster_may_not_aim_a_harmful_spell_at_its_charmer() -> None:
    engine = table([pc("Ann", conditions=["charmed by Owlbear"]), owlbear()], {"ann": (2, 2), "owlbear": (4, 2)})
    fight(engine, "Party")
    engine.begin_turn("ann")
    with pytest.raises(IllegalAction, match="Ann is charmed by Owlbear: no harmful spell at it"):
        engine.apply(Cast("ann", "Magic missile", "owlbear"))
    engine.apply(Cast("ann", "Charm person", "owlbear", harmful=False))


def test_the_condition_menu_lists_every_condition_of_the_table_with_what_the_app_does() -> None:
    table_words = [
        "blinded",
        "bound",
        "burning",
        "charmed",
        "confused",
        "exhausted",
        "frightened",
        "gagged",
        "grappled",
        "incapacitated",
        "invisible",
        "paralyzed",
        "petrified",
        "poisoned",
        "prone",
        "restrained",
        "silenced",
        "stunned",
        "surprised",
        "unconscious",
        "wounded",
    ]
    assert sorted(OSR.conditions.menu()) == sorted(table_words)
    for word in table_words:
        assert "Old-School d20: " in OSR.conditions.tip(word), word
    assert "1d6 fire damage" in OSR.conditions.tip("Burning")


def test_the_rules_options_set_the_critical_dice_and_whether_advantage_and_disadvantage_cancel() -> None:
    engine = owlbear_table()
    engine.apply(act.EditCombatant("ann", {"hp": 0, "conditions": ["unconscious", "invisible"]}))
    engine.apply(act.EditOptions({"critical_dice_rolls": 3}))
    ann, owl = engine.combatant("ann"), engine.combatant("owlbear")
    hit = to_hit(engine.encounter, owl, ann, owl.weapon("Claw"), "melee")
    assert hit.edge == 0  # advantage (unconscious) and disadvantage (invisible) cancel
    fc = forecast_strike(engine.encounter, owl, ann, owl.weapon("Claw"), "melee")
    assert max(fc.damage) == 18 + 2  # the Claw's 1d6 rolled three times
    engine.apply(act.EditCombatant("owlbear", {"conditions": ["invisible"]}))
    engine.apply(act.EditOptions({"advantage_cancels": False}))
    hit = to_hit(engine.encounter, engine.combatant("owlbear"), ann, owl.weapon("Claw"), "melee")
    assert hit.edge_text() == (
        "advantage (attacker invisible, target unconscious) and disadvantage (target invisible) weigh up: advantage"
    )


def test_a_prone_creature_stands_up_for_half_its_move_and_may_still_attack() -> None:
    engine = table([pc("Ann", conditions=["prone"]), owlbear()], {"ann": (2, 2), "owlbear": (3, 2)})
    fight(engine, "Party")
    engine.begin_turn("ann")
    events = engine.apply(StandUp("ann"))
    assert events[0].text == "Ann stands up (half its Move, 15 ft)"
    assert "prone" not in engine.combatant("ann").conditions
    assert engine.feet_left("ann") == 15
    engine.apply(OsrAttack("ann", "owlbear", "Longsword"), ScriptedDice([2]))
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction, match="Ann is not prone"):
        engine.apply(StandUp("ann"))
    assert engine.encounter.model_dump() == before

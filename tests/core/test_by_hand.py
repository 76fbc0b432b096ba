"""Damage and healing by hand (RULES §10) in the four rulesets, and conditions that take the turn or
the move: the numbers a GM sees, each consequence a weapon's damage would have, one undo step and
one log line."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import Engine, IllegalAction, RulesError, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import RulesEvent
from lnl_desktop.core.rules.lnl.model import Attack
from lnl_desktop.core.rules.registry import get_ruleset


def lnl_table(ruleset: str = "lnl", **options: Any) -> Engine:
    rs = get_ruleset(ruleset)
    c = {"level": 1, "stamina_max": 10, "injury_max": 5, "weapons": [{"name": "Sword", "die": "d6"}]}
    return Engine(
        rs.new_encounter(
            name="t",
            combatants=[
                {"name": "Hero", "side": "Party", "stamina": 10, "injury": 5, **c},
                {"name": "Orc", "side": "Opponents", "stamina": 10, "injury": 5, **c},
            ],
            tokens={"hero": {"cell": (1, 1)}, "orc": {"cell": (5, 5)}},
            options=options,
        )
    )


def osr_table() -> Engine:
    return Engine(
        get_ruleset("osr").new_encounter(
            name="t",
            combatants=[
                {"name": "Janine", "side": "Party", "kind": "PC", "hp_max": 8, "save_poison": 2},
                {"name": "Goblin", "side": "Opponents", "hp_max": 4, "morale": 7},
                {"name": "Goblin 2", "side": "Opponents", "hp_max": 4, "morale": 7},
            ],
            tokens={"janine": {"cell": (1, 1)}, "goblin": {"cell": (5, 5)}, "goblin-2": {"cell": (6, 6)}},
        )
    )


def d10_table() -> Engine:
    return Engine(
        get_ruleset("d10").new_encounter(
            name="t",
            combatants=[
                {"name": "Hero", "side": "Party", "hp_max": 10, "dr": 2},
                {"name": "Ogre", "side": "Opponents", "hp_max": 6, "dr": 2},
                {"name": "Mook", "side": "Opponents", "hp_max": 5, "minion": True},
            ],
            tokens={"hero": {"cell": (1, 1)}, "ogre": {"cell": (5, 5)}, "mook": {"cell": (7, 7)}},
        )
    )


def one_line(events: list[Any]) -> RulesEvent:
    assert len(events) == 1, [e.text for e in events]
    assert isinstance(events[0], RulesEvent) and events[0].name == "by hand"
    return events[0]


# -- L&L and Classic -------------------------------------------------------------------------------


def test_lnl_wearing_down_spills_into_ip_and_direct_goes_to_ip_with_the_overkill_logged() -> None:
    engine = lnl_table()
    line = one_line(engine.apply(act.DamageByHand("orc", 12, kind="stamina", reason="falling rocks")))
    orc = engine.combatant("orc")
    assert (orc.stamina, orc.injury) == (0, 3)
    assert "falling rocks" in line.text and "0 SP, 3 IP" in line.text
    line = one_line(engine.apply(act.DamageByHand("orc", 7, kind="injury", reason="spikes")))
    assert orc.injury == 0 and orc.down
    assert "Orc is down (4 overkill)" in line.text and line.detail["overkill"] == 4
    engine.undo()
    assert engine.combatant("orc").injury == 3 and not engine.combatant("orc").down


def test_lnl_healing_brings_a_downed_creature_back_and_stops_at_the_maximum() -> None:
    engine = lnl_table()
    engine.apply(act.DamageByHand("hero", 5, kind="injury"))
    assert engine.combatant("hero").down
    line = one_line(engine.apply(act.DamageByHand("hero", 9, heal=True, kind="injury", reason="potion")))
    assert engine.combatant("hero").injury == 5 and not engine.combatant("hero").down
    assert "back on its feet" in line.text
    with pytest.raises(IllegalAction, match="already at its maximum"):
        engine.apply(act.DamageByHand("hero", 1, heal=True, kind="injury"))


def test_a_typed_ip_of_0_is_direct_damage_that_downs_the_creature() -> None:
    engine = lnl_table()
    line = one_line(engine.apply(act.EditCombatant("orc", {"injury": 0})))
    assert engine.combatant("orc").down and "typed on the sheet" in line.text
    assert "Orc is down" in line.text


def test_classic_has_no_direct_damage_by_hand_but_a_typed_ip_still_lands() -> None:
    engine = lnl_table("classic")
    assert [k for k, _ in get_ruleset("classic").health.kinds(False)] == ["stamina"]
    with pytest.raises(IllegalAction, match="no such kind"):
        engine.apply(act.DamageByHand("orc", 3, kind="direct"))
    engine.apply(act.DamageByHand("orc", 13))
    assert (engine.combatant("orc").stamina, engine.combatant("orc").injury) == (0, 2)


@pytest.mark.parametrize(
    ("amount", "words"),
    [(-3, "type a number above 0"), (0, "nothing to apply"), ("7", "whole number"), (20_000, "more than")],
)
def test_bad_amounts_are_refused_with_a_clear_message_and_change_nothing(amount: Any, words: str) -> None:
    engine = lnl_table()
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction, match=words):
        engine.apply(act.DamageByHand("orc", amount))
    assert engine.encounter.model_dump() == before


def test_a_typed_value_above_its_maximum_or_below_0_is_refused() -> None:
    engine = lnl_table()
    with pytest.raises(IllegalAction, match="SP: 11 SP is above the maximum of 10"):
        engine.apply(act.SetHealth("orc", "stamina", 11))
    with pytest.raises(IllegalAction, match="below 0"):
        engine.apply(act.SetHealth("orc", "stamina", -1))


# -- Old-School d20 --------------------------------------------------------------------------------


def test_osr_a_pc_typed_to_0_makes_a_death_save_against_11_plus_the_overkill() -> None:
    engine = osr_table()
    engine.apply(act.SetHealth("janine", "hp", 3))
    line = one_line(engine.apply(act.DamageByHand("janine", 10, reason="pit trap")))
    assert engine.combatant("janine").hp == 0
    assert "DC 18" in line.text and "pit trap" in line.text
    saves = [p for p in engine.encounter.combat.pending if p.kind == "death save"]
    assert len(saves) == 1 and saves[0].number == 18


def test_osr_a_monster_typed_to_0_is_defeated_and_the_first_fall_prompts_morale() -> None:
    engine = osr_table()
    line = one_line(engine.apply(act.EditCombatant("goblin", {"hp": 0})))
    assert engine.combatant("goblin").down
    assert "defeated" in line.text
    assert any(p.kind == "morale" for p in engine.encounter.combat.pending)
    engine.undo()
    assert not engine.encounter.combat.pending and engine.combatant("goblin").hp == 4


def test_osr_subdual_by_hand_is_tracked_apart_and_healing_wakes_an_unconscious_pc() -> None:
    engine = osr_table()
    engine.apply(act.DamageByHand("goblin", 4, kind="subdual"))
    assert engine.combatant("goblin").subdual == 4 and engine.combatant("goblin").hp == 4
    engine.apply(act.DamageByHand("janine", 8))
    janine = engine.combatant("janine")
    janine.conditions.append("unconscious")
    line = one_line(engine.apply(act.DamageByHand("janine", 3, heal=True, reason="healing potion")))
    janine = engine.combatant("janine")
    assert janine.hp == 3 and not janine.down and "back on its feet" in line.text


# -- Group d10 --------------------------------------------------------------------------------------


def test_d10_damage_comes_after_dr_unless_it_ignores_it_and_1_hp_is_a_lasting_wound() -> None:
    engine = d10_table()
    one_line(engine.apply(act.DamageByHand("ogre", 4)))  # 4 - DR 2
    assert engine.combatant("ogre").hp == 4
    one_line(engine.apply(act.DamageByHand("ogre", 3, kind="ignores DR")))
    assert engine.combatant("ogre").hp == 1 and engine.combatant("ogre").has_condition("Wounded")


def test_d10_a_creature_typed_to_1_is_wounded_and_to_0_dies_and_a_minion_dies_on_any_damage() -> None:
    engine = d10_table()
    line = one_line(engine.apply(act.EditCombatant("ogre", {"hp": 1})))
    assert "lasting wound" in line.text and engine.combatant("ogre").has_condition("wounded")
    line = one_line(engine.apply(act.EditCombatant("ogre", {"hp": 0})))
    assert engine.combatant("ogre").dead and "dies" in line.text
    with pytest.raises(IllegalAction, match="dead"):
        engine.apply(act.DamageByHand("ogre", 1, heal=True))
    engine.apply(act.DamageByHand("mook", 3))
    assert engine.combatant("mook").dead


# -- conditions --------------------------------------------------------------------------------------


def test_condition_names_match_without_regard_to_case_and_old_files_load() -> None:
    rs = get_ruleset("lnl")
    e = rs.new_encounter(
        combatants=[
            {
                "name": "A",
                "side": "Party",
                "level": 1,
                "stamina": 1,
                "stamina_max": 1,
                "injury": 1,
                "injury_max": 1,
                "conditions": ["Prone", "prone", "Stunned", "Bound in silver"],
            },
        ]
    )
    assert e.combatants[0].conditions == ["prone", "stunned", "Bound in silver"]
    assert e.combatants[0].has_condition("PRONE")


@pytest.mark.parametrize("word", ["Paralyzed", "stunned", "unconscious", "Petrified", "incapacitated"])
def test_an_incapacitated_combatant_may_only_end_its_turn(word: str) -> None:
    engine = lnl_table()
    engine.apply(act.EditCombatant("hero", {"conditions": [word]}))
    engine.apply(act.StartCombat(situation="nobody ambushes"), ScriptedDice([5]))
    engine.apply(act.BeginTurn("hero"))
    checks = engine.turn_checks(engine.combatant("hero"), needs_action=True)
    refused = [c for c in checks if not c.ok]
    assert refused and word.lower() in refused[0].reason and "only End turn" in refused[0].reason
    with pytest.raises(IllegalAction, match=word.lower()):
        engine.apply(Attack("hero", "orc", "Sword"))
    with pytest.raises(IllegalAction, match=word.lower()):
        engine.apply(act.Move("hero", to=(2, 1)))
    assert engine.feet_left("hero") == 0
    engine.apply(act.EndTurn())


@pytest.mark.parametrize("word", ["grappled", "Restrained", "grappled by Ogre"])
def test_a_held_combatant_has_move_0_and_a_forced_move_still_works(word: str) -> None:
    engine = lnl_table()
    engine.apply(act.EditCombatant("hero", {"conditions": [word]}))
    engine.apply(act.StartCombat(situation="nobody ambushes"), ScriptedDice([5]))
    engine.apply(act.BeginTurn("hero"))
    assert engine.feet_left("hero") == 0
    with pytest.raises(IllegalAction, match="Move 0"):
        engine.apply(act.Move("hero", to=(2, 1)))
    engine.apply(act.Move("hero", to=(2, 1), forced=True))
    assert engine.encounter.tokens["hero"].cell == (2, 1)


# -- every [D] a setting -------------------------------------------------------------------------------


def osr_fight(**options: Any) -> Engine:
    engine = Engine(
        get_ruleset("osr").new_encounter(
            name="t",
            combatants=[
                {
                    "name": "Janine",
                    "side": "Party",
                    "kind": "PC",
                    "hp_max": 8,
                    "attack_bonus": 1,
                    "conditions": ["wounded", "exhausted 2"],
                },
                {"name": "Goblin", "side": "Opponents", "hp_max": 9, "morale": 7, "conditions": ["Burning"]},
            ],
            tokens={"janine": {"cell": (1, 1)}, "goblin": {"cell": (2, 1)}},
            options=options,
        )
    )
    return engine


@pytest.mark.parametrize(("wounded", "exhaustion", "total"), [(2, 1, 1 - 2 - 2), (0, 1, 1 - 2), (3, 2, 1 - 4 - 3)])
def test_osr_wounded_and_exhaustion_penalties_follow_their_options(wounded: int, exhaustion: int, total: int) -> None:
    from lnl_desktop.core.rules.osr import to_hit

    engine = osr_fight(wounded_penalty=wounded, exhaustion_penalty=exhaustion)
    janine, goblin = engine.combatant("janine"), engine.combatant("goblin")
    hit = to_hit(engine.encounter, janine, goblin, janine.all_weapons()[0], "melee")
    assert sum(v for _, v in hit.terms) == total


@pytest.mark.parametrize(("dice", "faces", "hp"), [("1d6", [4], 5), ("2d4", [3, 4], 2)])
def test_osr_a_burning_creatures_fire_damage_follows_the_option(dice: str, faces: list[int], hp: int) -> None:
    from lnl_desktop.core.rules.osr import Burn

    engine = osr_fight(burning_dice=dice)
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([2, 15]))  # Opponents first
    engine.apply(act.BeginTurn("goblin"))
    index = next(i for i, p in enumerate(engine.encounter.combat.pending) if p.kind == "burning")
    assert dice in engine.encounter.combat.pending[index].text
    engine.apply(Burn(index), ScriptedDice(faces))
    assert engine.combatant("goblin").hp == hp


def d10_pair(**options: Any) -> Engine:
    return Engine(
        get_ruleset("d10").new_encounter(
            name="t",
            combatants=[
                {"name": "Hero", "side": "Party", "hp_max": 10, "stealth": 2},
                {"name": "Ogre", "side": "Opponents", "hp_max": 6, "perception": 1},
            ],
            tokens={"hero": {"cell": (1, 1)}, "ogre": {"cell": (9, 9)}},
            options=options,
        )
    )


@pytest.mark.parametrize(("moves", "feet"), [(2.0, 60), (3.0, 90)])
def test_d10_sprint_moves_follow_the_option(moves: float, feet: int) -> None:
    from lnl_desktop.core.rules.d10 import Declare, Sprint

    engine = d10_pair(sprint_moves=moves)
    engine.apply(Declare("hero", "sprint"))
    engine.apply(Declare("ogre", "attack"))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([9, 2]))
    engine.apply(act.BeginTurn("hero"))
    engine.apply(Sprint("hero"))
    assert engine.feet_left("hero") == feet


@pytest.mark.parametrize(("margin", "full"), [(5, False), (3, True)])
def test_d10_full_surprise_margin_follows_the_option(margin: int, full: bool) -> None:
    from lnl_desktop.core.rules.d10 import Declare

    engine = d10_pair(full_surprise_margin=margin)
    engine.apply(Declare("hero", "attack"))
    engine.apply(Declare("ogre", "attack"))
    # Party ambushes: d20 10 + 2 = 12 against d20 8 + 1 = 9: by 3.
    engine.apply(act.StartCombat(situation="Party ambushes"), ScriptedDice([10, 8, 5, 6]))
    assert engine.encounter.combat.full_surprise is full


@pytest.mark.parametrize(("party_first", "order"), [(True, ["Party", "Opponents"]), (False, ["Opponents", "Party"])])
def test_d10_initiative_ties_follow_the_option(party_first: bool, order: list[str]) -> None:
    from lnl_desktop.core.rules.d10 import Declare

    engine = d10_pair(party_first_on_ties=party_first)
    engine.apply(Declare("hero", "attack"))
    engine.apply(Declare("ogre", "attack"))
    # Both groups roll a 5; with the option off the Party re-rolls with the Opponents: 2 against 8.
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([5, 5, 2, 8]))
    assert [slot.title for slot in engine.encounter.combat.order] == order


@pytest.mark.parametrize(("cancels", "dice", "mode"), [(True, 1, "cancelled"), (False, 2, "disadvantage")])
def test_d10_advantage_and_disadvantage_cancel_or_the_more_sources_win(cancels: bool, dice: int, mode: str) -> None:
    from lnl_desktop.core.rules.d10.rules import Edge

    engine = d10_pair(advantage_cancels=cancels)
    edge = Edge(cancels=engine.encounter.options.advantage_cancels)
    edge.advantage.append("called shot")
    edge.disadvantage += ["cover", "subdual"]  # two against one
    assert (edge.dice, edge.mode) == (dice, mode)
    assert edge.keep_high is cancels


def test_an_option_out_of_range_or_unknown_is_refused_in_words_and_changes_nothing() -> None:
    engine = osr_fight()
    before = engine.encounter.options.model_dump()
    with pytest.raises(RulesError, match="Wounded penalty|wounded"):
        engine.apply(act.EditOptions({"wounded_penalty": 11}))
    with pytest.raises(RulesError, match="Burning dice"):
        engine.apply(act.EditOptions({"burning_dice": "1d7"}))
    with pytest.raises(RulesError, match="no_such_thing|not"):
        engine.apply(act.EditOptions({"no_such_thing": 1}))
    assert engine.encounter.options.model_dump() == before
    engine.apply(act.EditOptions({"wounded_penalty": 3}))
    assert "wounded penalty 3" in engine.encounter.log[-1].text
    engine.undo()
    assert engine.encounter.options.wounded_penalty == 2


def test_an_older_file_without_the_new_options_opens_with_the_defaults_and_an_unknown_one_is_refused(
    tmp_path: Any,
) -> None:
    from lnl_desktop.core.files import storage
    from lnl_desktop.paths import resource

    for name, rs in (("goblin-ambush-osr.lnl", "osr"), ("bandit-mill-d10.lnl", "d10")):
        encounter = storage.load(resource("encounters", name))
        defaults = get_ruleset(rs).options_model()
        assert encounter.options.model_dump() == {**defaults.model_dump(), **encounter.options.model_dump()}
        if rs == "osr":
            assert (encounter.options.wounded_penalty, encounter.options.burning_dice) == (2, "1d6")
        else:
            assert (encounter.options.sprint_moves, encounter.options.full_surprise_margin) == (2.0, 5)
    import json

    data = json.loads(resource("encounters", "goblin-ambush-osr.lnl").read_text())
    data["encounter"].setdefault("options", {})["gravity"] = 3
    bad = tmp_path / "bad.lnl"
    bad.write_text(json.dumps(data))
    with pytest.raises(Exception, match="gravity") as refused:
        storage.load(bad)
    assert "Traceback" not in str(refused.value)


@pytest.mark.parametrize("ruleset", ["lnl", "classic", "osr", "d10"])
def test_each_rulesets_menu_lists_every_condition_the_rules_apply_to_all(ruleset: str) -> None:
    """RULES §10: the conditions that take the turn or the move are applied in every ruleset, so every
    ruleset's menu offers them."""
    menu = {name.lower() for name in get_ruleset(ruleset).conditions.menu()}
    applied = {"incapacitated", "paralyzed", "petrified", "stunned", "unconscious", "grappled", "restrained"}
    assert applied <= menu, sorted(applied - menu)

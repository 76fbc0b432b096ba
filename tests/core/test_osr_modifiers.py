"""Old-School d20 (RULES §12 "Also applied"): the GM's situational modifier and advantage or
disadvantage with a reason on an attack and a save, shown in the forecast and the log; subdual only
with a bludgeoning weapon or the flat of a blade."""

from __future__ import annotations

from typing import Any

import pytest
from test_rules_osr import ogre as rules_ogre

from lnl_desktop.core import Engine, IllegalAction, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.rules.osr import OsrAttack, OsrCombatant, SavingThrow
from lnl_desktop.core.rules.osr.odds import forecast_strike
from lnl_desktop.core.rules.registry import get_ruleset

OSR = get_ruleset("osr")


def fighter(**more: Any) -> dict[str, Any]:
    # To hit: d20 + 3 attack bonus + 2 STR = d20 + 5.
    return {
        "name": "Tombril",
        "side": "Party",
        "kind": "PC",
        "hp_max": 14,
        "attack_bonus": 3,
        "str_mod": 2,
        "save_poison": 2,
        "weapons": [{"name": "Longsword", "damage": "1d8"}, {"name": "Mace", "damage": "1d6"}],
    } | more


def ogre(**more: Any) -> dict[str, Any]:
    return rules_ogre(**({"str_mod": 0, "morale": 12} | more))  # the rules tests' Ogre, no STR, never flees


def tombril_turn(**ogre_more: Any) -> Engine:
    encounter = OSR.new_encounter(
        name="test",
        combatants=[fighter(), ogre(**ogre_more)],
        tokens={"tombril": {"cell": (2, 2), "facing": 90}, "ogre": {"cell": (3, 2), "facing": 270}},
    )
    engine = Engine(encounter)
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([20, 1]))
    engine.begin_turn("tombril")
    return engine


# -- the GM's modifier ------------------------------------------------------------------------------


def test_plus_two_for_fighting_in_water_turns_the_boundary_face_into_a_hit() -> None:
    engine = tombril_turn()
    # A 7: 7 + 5 = 12 misses AC 14; with the GM's +2, 14 hits.
    events = engine.apply(OsrAttack("tombril", "ogre", "Longsword"), ScriptedDice([7]))
    assert events[0].text.endswith(": miss")
    engine.undo()
    water = OsrAttack("tombril", "ogre", "Longsword", gm_modifier=2, gm_reason="fighting in water")
    events = engine.apply(water, ScriptedDice([7, 4]))
    assert "d20 7 +3 attack bonus +2 STR +2 GM: fighting in water = 14 vs AC 14" in events[0].text
    assert "hit; damage" in events[0].text
    assert engine.combatant("ogre").hp == 22 - 6


def test_the_forecast_reads_the_gms_modifier_and_edge_with_their_reason() -> None:
    engine = tombril_turn()
    e = engine.encounter
    tombril, ogre_ = engine.combatant("tombril"), engine.combatant("ogre")
    sword = tombril.weapon("Longsword")
    plain = forecast_strike(e, tombril, ogre_, sword, "melee")
    assert plain.p_hit == pytest.approx(12 / 20)  # 9 or more
    water = forecast_strike(e, tombril, ogre_, sword, "melee", gm_modifier=2, gm_reason="fighting in water")
    assert water.p_hit == pytest.approx(14 / 20)  # 7 or more
    assert "+2 GM: fighting in water" in water.summary
    shaky = forecast_strike(e, tombril, ogre_, sword, "melee", gm_edge="disadvantage", gm_reason="unstable surface")
    assert shaky.p_hit == pytest.approx((12 / 20) ** 2)
    assert shaky.edge == "disadvantage (GM: unstable surface)"


def test_a_modifier_beyond_ten_is_refused_with_the_reason_and_nothing_rolls() -> None:
    engine = tombril_turn()
    with pytest.raises(IllegalAction, match=r"\+11: give -10 to \+10"):
        engine.apply(OsrAttack("tombril", "ogre", "Longsword", gm_modifier=11), ScriptedDice([7]))
    assert engine.combatant("ogre").hp == 22


# -- the GM's advantage or disadvantage -------------------------------------------------------------


def test_disadvantage_for_an_unstable_surface_rolls_two_d20_and_keeps_the_lower() -> None:
    engine = tombril_turn()
    shaky = OsrAttack("tombril", "ogre", "Longsword", gm_edge="disadvantage", gm_reason="unstable surface")
    events = engine.apply(shaky, ScriptedDice([15, 4]))
    text = events[0].text
    assert "disadvantage (GM: unstable surface): 2d20 [15, 4] keeps 4" in text
    assert text.endswith(": miss")  # 4 + 5 = 9 against AC 14, though the 15 would have hit
    assert engine.combatant("ogre").hp == 22


def test_the_gms_disadvantage_cancels_the_advantage_against_a_prone_target() -> None:
    engine = tombril_turn(conditions=["prone"])
    shaky = OsrAttack("tombril", "ogre", "Longsword", gm_edge="disadvantage", gm_reason="unstable surface")
    events = engine.apply(shaky, ScriptedDice([15, 3]))
    text = events[0].text
    assert "advantage (target prone) and disadvantage (GM: unstable surface) cancel: a plain roll" in text
    assert "d20 15 " in text and "hit; damage Longsword [3]" in text  # one d20: the second face is the damage


def test_the_gms_advantage_on_a_save_keeps_the_higher_and_a_modifier_adds() -> None:
    engine = tombril_turn()
    save = SavingThrow(
        "tombril", "Poison or Death Ray", 12, "", gm_modifier=-1, gm_edge="advantage", gm_reason="blessed"
    )
    events = engine.apply(save, ScriptedDice([4, 11]))
    text = events[0].text
    # 11 kept, +2 Poison or Death, -1 from the GM: 12 against DC 12.
    assert "advantage (GM: blessed): 2d20 [4, 11] keeps 11 +2 -1 GM: blessed = 12 vs DC 12: saved" in text
    events = engine.apply(
        SavingThrow("tombril", "Poison or Death Ray", 12, gm_edge="disadvantage", gm_reason="choking smoke"),
        ScriptedDice([15, 4]),
    )
    assert "disadvantage (GM: choking smoke): 2d20 [15, 4] keeps 4 +2 = 6 vs DC 12: failed" in events[0].text


# -- subdual ------------------------------------------------------------------------------------------


def test_subdual_with_a_sword_is_refused_with_the_reason() -> None:
    engine = tombril_turn()
    with pytest.raises(IllegalAction, match="Longsword is not a bludgeoning weapon"):
        engine.apply(OsrAttack("tombril", "ogre", "Longsword", subdual=True), ScriptedDice([15, 5]))
    ogre_ = engine.combatant("ogre")
    assert (ogre_.hp, ogre_.subdual) == (22, 0)


def test_subdual_with_the_flat_of_the_blade_is_allowed() -> None:
    engine = tombril_turn()
    flat = OsrAttack("tombril", "ogre", "Longsword", subdual=True, flat_of_blade=True)
    events = engine.apply(flat, ScriptedDice([15, 5]))
    assert "with Longsword (the flat of the blade)" in events[0].text
    ogre_ = engine.combatant("ogre")
    assert (ogre_.hp, ogre_.subdual) == (22, 7)  # 1d8 5 + 2 STR


def test_subdual_with_a_mace_is_allowed_where_a_sword_is_refused() -> None:
    engine = tombril_turn()
    with pytest.raises(IllegalAction, match="tick Flat of blade"):
        engine.apply(OsrAttack("tombril", "ogre", "Longsword", subdual=True), ScriptedDice([15, 5]))
    events = engine.apply(OsrAttack("tombril", "ogre", "Mace", subdual=True), ScriptedDice([15, 5]))
    assert "subdual damage Mace [5]+2 = 7" in events[0].text
    assert engine.combatant("ogre").subdual == 7


def test_a_weapon_named_for_a_blunt_one_is_bludgeoning_unless_the_sheet_says_otherwise() -> None:
    c = OsrCombatant.model_validate(
        fighter(weapons=[{"name": "Club"}, {"name": "Warhammer", "bludgeoning": False}, {"name": "Spear"}])
    )
    assert [w.bludgeoning for w in c.weapons] == [True, False, False]
    assert c.weapon("Unarmed").bludgeoning  # a fist may subdue

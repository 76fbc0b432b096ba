"""Old-School d20 (RULES §12 "Also applied") in the core, with typed faces: the *surprised*
condition honoured in round 1, initiative groups within a side, spells refused to a bound, gagged or
restrained caster and at a target it cannot see, the unconscious also prone, and the exhausted PC's
death save prompted with the bonus it rolls."""

from __future__ import annotations

from typing import Any

import pytest
from test_osr_conditions import pc, table  # the same Party member and table

from lnl_desktop.core import IllegalAction, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.rules.osr import Cast, DeathSave, OsrAttack, to_hit
from lnl_desktop.core.rules.registry import get_ruleset

OSR = get_ruleset("osr")


def goblin(name: str, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "side": "Opponents",
        "kind": "monster",
        "level": 1,
        "hp_max": 6,
        "ac_typed": 13,
        "attack_bonus": 1,
        "morale": 7,
        "weapons": [{"name": "Spear", "damage": "1d6"}],
    } | more


# -- surprised ------------------------------------------------------------------------------------


def test_a_sentry_given_the_surprised_condition_takes_no_turn_and_no_counter_attack_in_round_1() -> None:
    engine = table(
        [pc("Ann"), goblin("Sentry", conditions=["surprised"]), goblin("Boss")],
        {"ann": (2, 2), "sentry": (3, 2), "boss": (9, 9)},
    )
    # The Opponents win initiative (20 against 1), nobody is surprised by the side choice.
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([1, 20]))
    assert engine.turn_refusals("sentry") == ["Sentry is surprised in round 1"]
    with pytest.raises(IllegalAction, match="Sentry is surprised"):
        engine.begin_turn("sentry")
    assert [c.name for c in engine.waiting()] == ["Boss"]
    engine.begin_turn("boss")
    engine.end_turn()
    # Ann walks away from the sentry: no counter-attack from a surprised creature.
    engine.begin_turn("ann")
    engine.apply(act.Move("ann", to=(0, 2)))
    assert engine.encounter.combat.pending == []
    engine.end_turn()
    engine.apply(act.NextRound(), ScriptedDice([1, 20]))
    assert engine.turn_refusals("sentry") == []  # round 2: it acts


# -- spells ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["bound", "gagged", "restrained"])
def test_a_bound_gagged_or_restrained_caster_casts_no_spell(word: str) -> None:
    engine = table([pc("Ann", conditions=[word]), goblin("Gob")], {"ann": (2, 2), "gob": (6, 2)})
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([20, 1]))
    engine.begin_turn("ann")
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction, match=f"Ann is {word}: no spells"):
        engine.apply(Cast("ann", "Magic missile", "gob"))
    with pytest.raises(IllegalAction, match=f"Ann is {word}: no spells"):
        engine.apply(Cast("ann", "Shield"))
    assert engine.encounter.model_dump() == before


def test_bound_and_gagged_are_in_the_condition_menu_with_what_they_do() -> None:
    assert {"bound", "gagged"} <= set(OSR.conditions.menu())
    assert "no spells" in OSR.conditions.tip("bound")
    assert "no spells" in OSR.conditions.tip("Gagged")


def test_no_spell_is_aimed_at_an_invisible_target_but_the_caster_may_cast_on_itself() -> None:
    engine = table([pc("Ann"), goblin("Gob", conditions=["invisible"])], {"ann": (2, 2), "gob": (6, 2)})
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([20, 1]))
    engine.begin_turn("ann")
    with pytest.raises(IllegalAction, match="Gob is invisible: Ann cannot aim a spell at it"):
        engine.apply(Cast("ann", "Magic missile", "gob"))
    events = engine.apply(Cast("ann", "Shield"))
    assert events[-1].text.startswith("Ann casts Shield")


# -- the unconscious is also prone ------------------------------------------------------------------


def test_a_shot_at_an_unconscious_creature_from_afar_rolls_one_d20() -> None:
    engine = table([pc("Ann"), goblin("Gob", conditions=["unconscious"])], {"ann": (2, 2), "gob": (6, 2)})
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([20, 1]))
    engine.begin_turn("ann")
    ann, gob = engine.combatant("ann"), engine.combatant("gob")
    shot = to_hit(engine.encounter, ann, gob, ann.weapon("Bow"), "ranged")
    assert shot.edge == 0
    assert shot.edge_text() == (
        "advantage (target unconscious) and disadvantage (target unconscious, so prone, not within 5 ft)"
        " cancel: a plain roll"
    )
    # One d20 typed: 12 + 3 attack bonus + 0 PER = 15 vs AC 13 hits; the next face is the damage.
    events = engine.apply(OsrAttack("ann", "gob", "Bow", style="ranged"), ScriptedDice([12, 4]))
    assert "cancel: a plain roll: d20 12 +3 attack bonus = 15 vs AC 13: hit" in events[0].text


# -- the exhausted PC's death save -------------------------------------------------------------------


def test_an_exhausted_pcs_death_save_prompt_shows_the_bonus_the_roll_uses() -> None:
    engine = table(
        [pc("Ann", hp=3, conditions=["exhausted 2"]), goblin("Gob")],
        {"ann": (2, 2), "gob": (3, 2)},
    )
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([1, 20]))
    engine.begin_turn("gob")
    # d20 15 + 1 = 16 hits AC 12; the Spear rolls 5: Ann 3 → 0, 2 overkill.
    engine.apply(OsrAttack("gob", "ann", "Spear"), ScriptedDice([15, 5]))
    (prompt,) = [p for p in engine.encounter.combat.pending if p.kind == "death save"]
    # save_poison +2, exhausted 2: -2 → +0.
    assert "death save d20 +0 (Poison or Death) against DC 13" in prompt.text
    events = engine.apply(DeathSave(engine.encounter.combat.pending.index(prompt)), ScriptedDice([13]))
    assert "d20 13 +0 = 13 vs DC 13: success" in events[-1].text


# -- initiative groups within a side ---------------------------------------------------------------


def test_a_boss_in_its_own_initiative_group_rolls_apart_from_its_goblins_with_its_own_init() -> None:
    engine = table(
        [
            pc("Ann", init_mod=1, leader=True),
            goblin("Gob", init_mod=-1),
            goblin("Snik", init_mod=0),
            goblin("Chief", init_mod=3, initiative_group="Boss"),
        ],
        {"ann": (2, 2), "gob": (8, 2), "snik": (8, 3), "chief": (9, 9)},
    )
    # Party d20 10 +1 = 11; the goblins 12 -1 = 11 (a tie: the PCs first); the chief 9 +3 = 12.
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([10, 12, 9]))
    order = engine.encounter.combat.order
    assert [(slot.title, slot.members, slot.total) for slot in order] == [
        ("Boss (Chief leads)", ["chief"], 12),
        ("Party (Ann leads)", ["ann"], 11),
        ("Opponents (Gob leads)", ["gob", "snik"], 11),
    ]
    assert "Boss d20 9 +3 INIT = 12" in engine.encounter.log[-1].text
    assert [c.name for c in engine.waiting()] == ["Chief"]
    with pytest.raises(IllegalAction, match="Chief acts before Gob"):
        engine.begin_turn("gob")


def test_the_initiative_group_is_an_edit_undone_and_a_file_without_it_rolls_one_group_per_side() -> None:
    engine = table([pc("Ann"), goblin("Gob"), goblin("Chief")], {"ann": (2, 2), "gob": (8, 2), "chief": (9, 9)})
    assert engine.combatant("chief").initiative_group == ""  # an older file: the side's own group
    engine.apply(act.EditCombatant("chief", {"initiative_group": "Boss"}))
    assert engine.combatant("chief").initiative_group == "Boss"
    engine.undo()
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([10, 12]))
    assert [slot.title for slot in engine.encounter.combat.order] == ["Opponents (Gob leads)", "Party (Ann leads)"]
    assert any(row.keys == ("initiative_group",) for row in OSR.views.sheet().numbers)

"""Group d10's area effects (RULES §13, §14) with the numbers a GM sees: one roll for every target,
each target's DR then cover's half (2d6 = 9 against DR 2 under cover: (9 - 2) // 2 = 3), a minion
dies on any damage and lives when DR soaks it all, 1 HP a lasting wound and 0 HP dead as after a
blow, the caster's attack action, one undo step, one log entry, the exact forecast; and walls: a
wall between the origin and a creature shields it, one half behind a wall's end is under cover."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import Engine, IllegalAction, RulesError, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import AreaEffectResolved, Override, WentDown
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.areas import AreaShape, struck_by
from lnl_desktop.core.rules.bestiary import read_bestiary
from lnl_desktop.core.rules.d10 import Declare
from lnl_desktop.core.rules.d10.areas import dealt_odds, total_odds
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource

D10 = get_ruleset("d10")
BOMB = {
    "name": "Fire bomb",
    "die": "d6",
    "kind": "ranged",
    "max_range_ft": 30,
    "area": {"shape": "circle", "size_ft": 10},
    "area_dice": 2,
}


def bombardier(**more: Any) -> dict[str, Any]:
    return {
        "name": "Bombardier",
        "side": "Opponents",
        "hp_max": 6,
        "defense": 11,
        "ranged": 3,
        "weapons": [{"name": "Dagger", "die": "d4"}, BOMB],
    } | more


def hero(name: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "side": "Party", "hp_max": 10, "weapons": [{"name": "Sword", "die": "d6"}]} | more


def minion(name: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "side": "Opponents", "hp_max": 1, "minion": True} | more


def camp() -> Engine:
    """The bombardier at (1, 5); round the bomb's cell (6, 5): Tombril (DR 2, 14 HP), Cedryk (DR 0,
    10 HP), Janine (8 HP) and a bandit minion; the ogre far off."""
    combatants = [
        bombardier(),
        hero("Tombril", hp_max=14, dr=2),
        hero("Cedryk"),
        hero("Janine", hp_max=8),
        minion("Bandit"),
        {"name": "Ogre", "side": "Opponents", "hp_max": 15, "dr": 2},
    ]
    cells = {
        "bombardier": (1, 5),
        "tombril": (6, 5),
        "cedryk": (7, 5),
        "janine": (6, 6),
        "bandit": (5, 5),
        "ogre": (15, 5),
    }
    tokens = {cid: {"cell": cell} for cid, cell in cells.items()}
    return Engine(D10.new_encounter(name="camp", combatants=combatants, tokens=tokens))


def bomb(targets: tuple[str, ...], cover: tuple[str, ...] = (), **more: Any) -> act.AreaEffect:
    fields: dict[str, Any] = {"caster": "bombardier", "means": "Fire bomb"} | more
    fields["extras"] = {key: fields.pop(key) for key in ("save", "dc", "direct") if key in fields}
    return act.AreaEffect("circle", (6.5, 5.5), 10, targets=targets, cover=cover, **fields)


def fight(engine: Engine) -> None:
    """Everyone declares an attack; the Opponents' d10 9 beats the Party's 1."""
    for c in engine.encounter.combatants:
        engine.apply(Declare(c.id, "attack"))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([1, 9]))


# -- the stat block -------------------------------------------------------------------------------


def test_a_weapon_carries_an_area_and_its_dice_and_a_bad_area_is_refused_in_the_games_words() -> None:
    c = D10.stat_block.model_validate(bombardier())
    fire = c.weapon("Fire bomb")
    assert fire.area is not None and fire.area.words == "a 10 ft radius circle" and fire.area_roll == "2d6"
    assert fire.label == "Fire bomb (d6, ranged, 2d6 on a 10 ft radius circle)"
    assert c.weapon("Dagger").area is None and c.weapon("Dagger").area_dice == 1
    means = D10.areas.means(c)
    assert [(m.name, m.words) for m in means] == [("Fire bomb", "2d6 once for all, DR applies, cover halves")]
    engine = camp()
    before = engine.encounter.model_dump()
    for weapon, said in (
        (BOMB | {"area": {"shape": "blob", "size_ft": 10}}, "Weapon 2, Area: Shape must be one of"),
        (BOMB | {"area": {"shape": "circle", "size_ft": 12}}, "12 ft is not a multiple of 5 ft"),
        (BOMB | {"area_dice": 11}, "Area dice cannot be above 10"),
        ({k: v for k, v in BOMB.items() if k != "area"}, "Fire bomb rolls 2d6 only on an area"),
    ):
        with pytest.raises(RulesError, match=said):
            engine.apply(act.EditCombatant("bombardier", {"weapons": [{"name": "Dagger", "die": "d4"}, weapon]}))
    assert engine.encounter.model_dump() == before


def test_existing_files_load_unchanged_and_the_bestiary_has_a_bombardier() -> None:
    demo = storage.load(resource("encounters", D10.demo()))
    assert all(w.area is None and w.area_dice == 1 for c in demo.combatants for w in c.weapons)
    creatures, problems = read_bestiary(D10)
    assert problems == []
    bomber = next(c for c in creatures if c["name"] == "Bandit bombardier")
    fire = D10.stat_block.model_validate(bomber | {"side": "Opponents"}).weapon("Fire bomb")
    assert (fire.area_roll, fire.area.words) == ("2d6", "a 10 ft radius circle")


def test_converting_keeps_an_area_with_its_dice() -> None:
    osr = get_ruleset("osr")
    flask = {"name": "Oil flask", "damage": "2d6", "kind": "thrown", "area": {"shape": "circle", "size_ft": 5}}
    kept, _ = D10.convert({"name": "Thrower", "side": "Opponents", "hp_max": 6, "weapons": [flask]}, osr)
    weapon = D10.stat_block.model_validate(kept).weapons[0]
    assert (weapon.area_roll, weapon.area.words, weapon.kind.value) == ("2d6", "a 5 ft radius circle", "ranged")
    # An L&L area spell: an area weapon of its die, N = (level + 1) // 2 dice.
    fireball = {"name": "Fireball", "die": "d6", "range_ft": 60, "area": {"shape": "circle", "size_ft": 20}}
    mage = {"name": "Mage", "side": "Opponents", "level": 5, "stamina_max": 8, "injury_max": 6, "spells": [fireball]}
    kept, notes = D10.convert(mage, get_ruleset("lnl"))
    weapon = D10.stat_block.model_validate(kept).weapon("Fireball")
    assert (weapon.area_roll, weapon.area.words, weapon.max_range_ft) == ("3d6", "a 20 ft radius circle", 60)
    assert "Mage: the spell Fireball is an area weapon (3d6)" in notes


# -- the resolution -------------------------------------------------------------------------------


def test_one_roll_then_each_targets_dr_then_cover_halves_and_the_log_has_every_number() -> None:
    engine = camp()
    events = engine.apply(bomb(("tombril", "cedryk", "janine", "bandit"), cover=("tombril",)), ScriptedDice([4, 5]))
    resolved = events[0]
    assert isinstance(resolved, AreaEffectResolved)
    assert (resolved.dice, resolved.faces, resolved.total) == ("2d6", [4, 5], 9)
    assert resolved.text == (
        "Fire bomb (Bombardier, a 10 ft radius circle): 2d6 4 + 5 = 9 — "
        "Tombril 9 - 2 DR = 7, cover: half = 3 (HP 14 → 11); "
        "Cedryk 9 (HP 10 → 1, a lasting wound); "
        "Janine 9 (HP 8 → 0, dead); "
        "Bandit 9 (minion dies)"
    )
    rows = [(t.name, t.defences, t.damage, t.result) for t in resolved.targets]
    assert rows == [
        ("Tombril", "- 2 DR, cover: half", 3, "HP 14 → 11"),
        ("Cedryk", "", 9, "HP 10 → 1, a lasting wound"),
        ("Janine", "", 9, "HP 8 → 0, dead"),
        ("Bandit", "", 9, "minion dies"),
    ]
    # What follows, as after one blow: the lasting wound, the deaths.
    assert [type(e) for e in events[1:]] == [Override, WentDown, WentDown]
    assert [e.text for e in events[1:]] == [
        "Cedryk is at 1 HP: a lasting wound (Wounded)",
        "Janine dies (0 HP)",
        "Bandit dies",
    ]
    by = engine.encounter.by_id()
    assert (by["tombril"].hp, by["cedryk"].hp, by["janine"].hp, by["bandit"].hp) == (11, 1, 0, 0)
    assert by["cedryk"].has("wounded") and by["janine"].dead and by["bandit"].dead
    assert engine.encounter.log[-4] is resolved  # one log entry of the effect, then what follows


def test_dr_that_soaks_it_all_leaves_a_minion_alive_and_cover_may_halve_to_nothing() -> None:
    engine = camp()
    engine.apply(act.EditCombatant("bandit", {"dr": 1}))
    events = engine.apply(bomb(("bandit", "tombril"), cover=("bandit",)), ScriptedDice([1, 1]))  # 2
    resolved = events[0]
    # The minion: (2 - 1) // 2 = 0, so it lives; Tombril: 2 - 2 DR = 0.
    assert resolved.text.endswith(
        "Bandit 2 - 1 DR = 1, cover: half = 0 (no damage, HP 1); Tombril 2 - 2 DR = 0 (no damage, HP 14)"
    )
    assert [t.damage for t in resolved.targets] == [0, 0] and len(events) == 1
    assert not engine.encounter.by_id()["bandit"].dead


def test_a_free_effect_rolls_its_own_dice_uses_nobodys_action_and_may_ignore_dr() -> None:
    engine = camp()
    rocks = act.AreaEffect(
        "square",
        (6.0, 5.0),
        10,
        direction=135.0,
        targets=("tombril", "cedryk"),
        name="Falling rocks",
        dice="1d8+2",
        extras={"direct": True},
    )
    events = engine.apply(rocks, ScriptedDice([5]))
    assert events[0].text == (
        "Falling rocks (a 10 ft square): 1d8+2 5 + 2 = 7 — Tombril 7 (ignores DR) (HP 14 → 7); Cedryk 7 (HP 10 → 3)"
    )
    assert events[0].caster == "" and events[0].targets[0].defences == "ignores DR"
    for bad, said in (
        (rocks.__class__(**{**rocks.__dict__, "dice": ""}), "name the damage dice"),
        (rocks.__class__(**{**rocks.__dict__, "dice": "2d"}), "dice '2d': at 3: a die needs its sides"),
    ):
        with pytest.raises(IllegalAction, match=said):
            engine.apply(bad)


def test_the_casters_action_is_used_and_refused_when_it_may_not_act() -> None:
    engine = camp()
    fight(engine)  # the Opponents first
    with pytest.raises(IllegalAction, match="no turn is under way"):
        engine.apply(bomb(("tombril",)), ScriptedDice([4, 5]))
    engine.begin_turn("bombardier")
    engine.apply(bomb(("tombril",)), ScriptedDice([4, 5]))
    turn = engine.encounter.combat.turn
    assert turn is not None and turn.action == "attack" and turn.action_detail == "Fire bomb on a 10 ft radius circle"
    with pytest.raises(IllegalAction, match=r"already took its action \(attack\)"):
        engine.apply(bomb(("tombril",)), ScriptedDice([4, 5]))
    assert engine.encounter.by_id()["tombril"].hp == 7  # 9 - 2 DR, once


def test_the_declaration_counts_an_area_as_an_attack_or_a_spell_and_else_needs_an_override() -> None:
    engine = camp()
    for c in engine.encounter.combatants:
        engine.apply(Declare(c.id, "parry" if c.id == "bombardier" else "attack"))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([1, 9]))
    engine.begin_turn("bombardier")
    with pytest.raises(
        IllegalAction, match="Bombardier declared “Parry / dodge”; acting otherwise needs a GM override"
    ):
        engine.apply(bomb(("tombril",)), ScriptedDice([4, 5]))
    events = engine.apply(bomb(("tombril",), override=True), ScriptedDice([4, 5]))
    assert events[0].text == "GM override: Bombardier declared “Parry / dodge” and uses Fire bomb instead"
    assert isinstance(events[1], AreaEffectResolved)


def test_a_weapon_without_an_area_or_a_dropped_bomb_is_refused() -> None:
    engine = camp()
    with pytest.raises(IllegalAction, match="Dagger has no area"):
        engine.apply(bomb(("tombril",), means="Dagger"))
    with pytest.raises(IllegalAction, match="has no weapon named 'Flask'"):
        engine.apply(bomb(("tombril",), means="Flask"))
    dropped = [{"name": "Dagger", "die": "d4"}, BOMB | {"dropped": True}]
    engine.apply(act.EditCombatant("bombardier", {"weapons": dropped}))
    with pytest.raises(IllegalAction, match="Fire bomb is dropped"):
        engine.apply(bomb(("tombril",)), ScriptedDice([4, 5]))


def test_one_undo_step_restores_everything() -> None:
    engine = camp()
    fight(engine)
    engine.begin_turn("bombardier")
    before = engine.encounter.model_dump(exclude={"log"})
    log_length = len(engine.encounter.log)
    engine.apply(bomb(("tombril", "cedryk", "janine", "bandit"), cover=("tombril",)), ScriptedDice([4, 5]))
    engine.undo()
    assert engine.encounter.model_dump(exclude={"log"}) == before
    assert len(engine.encounter.log) == log_length + 1  # the undo's own line
    assert engine.encounter.combat.turn.action is None


# -- the forecast ---------------------------------------------------------------------------------


def test_the_forecast_is_the_exact_distribution_through_dr_and_cover() -> None:
    engine = camp()
    action = bomb(("tombril", "cedryk", "janine", "bandit"), cover=("tombril",))
    odds = D10.areas.forecast(engine.encounter, action)
    from lnl_desktop.core.dice import notation

    two_d6 = total_odds(notation.parse("2d6"))
    assert two_d6 is not None and two_d6[7] == pytest.approx(6 / 36)
    tombril = engine.encounter.by_id()["tombril"]
    dealt = dealt_odds(two_d6, tombril, False, True)
    # (2..12 - 2) // 2: 0 from 2 or 3 (3/36), 3 from 8 or 9 (9/36) ...
    assert dealt[0] == pytest.approx(3 / 36) and dealt[3] == pytest.approx(9 / 36) and max(dealt) == 5
    assert odds["tombril"].drop == 0.0 and odds["tombril"].damage == "≈ 2.2 (0-5)"  # 81/36
    # Cedryk 10 HP dies on 10+ (6/36); a lasting wound on exactly 9 (4/36).
    assert odds["cedryk"].drop == pytest.approx(6 / 36)
    assert odds["cedryk"].words == (
        "Cedryk (10 HP): 2d6: 2-12 damage, 7.0 on average; dies (0 HP) 16.7%, a lasting wound (1 HP) 11.1%"
    )
    assert odds["janine"].drop == pytest.approx(15 / 36)  # 8+ of 2d6
    assert odds["bandit"].drop == pytest.approx(1.0)  # any damage kills a minion
    assert odds["tombril"].save == ""
    # The forecast agrees with the roll: 9 leaves Tombril 3 damage, a value it gives a chance to.
    engine.apply(action, ScriptedDice([4, 5]))
    assert engine.encounter.log[-4].targets[0].damage == 3 and dealt[3] > 0


def test_a_minion_whose_dr_may_soak_it_all_has_its_true_chance() -> None:
    engine = camp()
    engine.apply(act.EditCombatant("bandit", {"dr": 3}))
    odds = D10.areas.forecast(engine.encounter, bomb(("bandit",)))
    assert odds["bandit"].drop == pytest.approx(1 - 3 / 36)  # 2d6 of 2 or 3 is soaked
    assert D10.areas.forecast(engine.encounter, bomb(("bandit",), means="Dagger")) == {}


# -- walls (RULES §14): shielded and under cover ----------------------------------------------------


def test_a_wall_between_the_origin_and_a_creature_shields_it() -> None:
    engine = camp()
    engine.apply(act.AddWall((7.0, 4.0), (7.0, 7.0)))  # between the bomb's cell (6, 5) and Cedryk's (7, 5)
    _, struck = struck_by(engine.encounter, AreaShape.CIRCLE, (6.5, 5.5), 10, 90.0)
    assert "cedryk" not in {s.combatant for s in struck} and "tombril" in {s.combatant for s in struck}
    with pytest.raises(IllegalAction, match=r"Cedryk is not inside a 10 ft radius circle \(or a wall shields them\)"):
        engine.apply(bomb(("tombril", "cedryk")), ScriptedDice([4, 5]))
    assert engine.encounter.by_id()["tombril"].hp == 14


def test_a_creature_half_behind_a_walls_end_is_under_cover_and_takes_half() -> None:
    engine = camp()
    engine.apply(act.EditCombatant("cedryk", {"dr": 1}))
    engine.apply(act.RemoveToken("cedryk"))
    engine.apply(act.PlaceToken("cedryk", (8, 4)))
    engine.apply(act.AddWall((8.0, 5.0), (10.0, 5.0)))  # ends at Cedryk's lower-left corner
    _, struck = struck_by(engine.encounter, AreaShape.CIRCLE, (6.5, 5.5), 10, 90.0)
    cover = {s.combatant: s.cover for s in struck}
    assert cover["cedryk"] is True and cover["tombril"] is False
    events = engine.apply(bomb(("cedryk",), cover=("cedryk",)), ScriptedDice([4, 5]))
    assert "Cedryk 9 - 1 DR = 8, cover: half = 4 (HP 10 → 6)" in events[0].text

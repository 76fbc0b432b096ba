"""Old-School d20's area effects (RULES §14), with the rule's own numbers: the human-carry bomb
(d20 16+ hits, 2d6 to a 10 ft square), a dragon's breath against DC 11 + its HD, a passed save for
half (or for none), a PC brought to 0 HP making its death save, the caster's action, one undo step,
the forecast's exact chances, and a stat block's area checked."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from lnl_desktop.core import Engine, IllegalAction, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import AreaEffectResolved, RulesEvent, WentDown
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.osr import DeathSave, OsrAttack, OsrCombatant, OsrWeapon
from lnl_desktop.core.rules.osr.odds import dice_sum
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource

OSR = get_ruleset("osr")

ROCK = {"name": "Dropped rock", "damage": "2d6", "area": {"shape": "square", "size_ft": 10}, "bomb": True}
BREATH = {"name": "Fire breath", "damage": "6d6", "area": {"shape": "cone", "size_ft": 30}}


def pc(name: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "side": "Party", "kind": "PC", "hp_max": 14, "save_breath": 2, "save_poison": 1} | more


def eagle(**more: Any) -> dict[str, Any]:
    """A flying bomber of 3 HD: its own effects are saved against at DC 11 + 3 = 14."""
    return {"name": "Giant eagle", "side": "Opponents", "level": 3, "hp_max": 18, "morale": 8, "weapons": [ROCK]} | more


def dragon(**more: Any) -> dict[str, Any]:
    return {
        "name": "Young dragon",
        "side": "Opponents",
        "level": 6,
        "hp_max": 33,
        "size": 2,
        "morale": 9,
        "weapons": [{"name": "Bite", "damage": "2d8"}, BREATH],
    } | more


def goblin(name: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "side": "Opponents", "hp_max": 4, "morale": 7, "weapons": [{"name": "Spear"}]} | more


def table(combatants: list[dict[str, Any]], cells: dict[str, tuple[int, int]], **options: Any) -> Engine:
    encounter = OSR.new_encounter(
        name="test",
        combatants=combatants,
        tokens={cid: {"cell": cell} for cid, cell in cells.items()},
        options=options,
    )
    return Engine(encounter)


def opponents_first(engine: Engine, who: str) -> None:
    """Group initiative: the Party rolls 1, the Opponents 20; ``who`` begins its turn."""
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([1, 20]))
    engine.begin_turn(who)


# The aimed 10 ft square: cells (2, 2) to (3, 3), its corner at (2, 2), laid towards the south-east.
SQUARE = {"shape": "square", "origin": (2.0, 2.0), "size_ft": 10, "direction": 135.0}


def bomb(targets: tuple[str, ...], **more: Any) -> act.AreaEffect:
    extras = {key: more.pop(key) for key in ("save", "dc") if key in more}
    return act.AreaEffect(**SQUARE, targets=targets, caster="giant-eagle", means="Dropped rock", **more, extras=extras)  # type: ignore[arg-type]


def bombed() -> Engine:
    engine = table(
        [pc("Tombril"), pc("Cedryk", hp_max=10, save_breath=0), eagle()],
        {"tombril": (2, 2), "cedryk": (3, 3), "giant-eagle": (8, 8)},
    )
    opponents_first(engine, "giant-eagle")
    return engine


def hp(engine: Engine) -> dict[str, int]:
    return {c.id: c.hp for c in engine.encounter.combatants}  # type: ignore[attr-defined]


# -- bombing ------------------------------------------------------------------------------------------


def test_a_2d6_bomb_hits_on_16_one_target_saves_for_half_the_other_takes_all() -> None:
    engine = bombed()
    # The bomb's d20 16 hits; 2d6 = 4 + 3 = 7; Tombril d20 13 + 2 = 15 ≥ 14 saves: 3; Cedryk d20 5 fails: 7.
    dice = ScriptedDice([16, 4, 3, 13, 5])
    events = engine.apply(bomb(("tombril", "cedryk")), dice)
    assert dice.remaining == []
    resolved = events[0]
    assert isinstance(resolved, AreaEffectResolved)
    assert resolved.text == (
        "Dropped rock (Giant eagle, a 10 ft square): bomb d20 16 ≥ 16: hits; 2d6 [4+3] = 7, "
        "save vs Dragon Breath DC 14 (11 + 3 HD) — "
        "Tombril d20 13 +2 = 15 vs DC 14: saved, half → 3 (HP 14 → 11); "
        "Cedryk d20 5 +0 = 5 vs DC 14: failed → 7 (HP 10 → 3)"
    )
    assert (resolved.faces, resolved.total, resolved.effect, resolved.area) == (
        [4, 3],
        7,
        "Dropped rock",
        "a 10 ft square",
    )
    assert [(t.name, t.damage, t.result) for t in resolved.targets] == [
        ("Tombril", 3, "HP 14 → 11"),
        ("Cedryk", 7, "HP 10 → 3"),
    ]
    assert hp(engine) == {"tombril": 11, "cedryk": 3, "giant-eagle": 18}
    assert len(events) == 1  # nobody fell: nothing follows


def test_a_bomb_that_misses_lands_nothing_and_rolls_no_damage() -> None:
    engine = bombed()
    dice = ScriptedDice([15, 6, 6, 1, 1])
    events = engine.apply(bomb(("tombril", "cedryk")), dice)
    assert dice.remaining == [6, 6, 1, 1]  # only the bomber's d20 was rolled
    assert events[0].text == (
        "Dropped rock (Giant eagle, a 10 ft square): bomb d20 15, under 16: "
        "it misses the aimed square and lands nothing; no one is harmed"
    )
    assert events[0].targets == [] and events[0].total == 0
    assert hp(engine) == {"tombril": 14, "cedryk": 10, "giant-eagle": 18}
    assert engine.encounter.combat.turn.action == "area effect"  # the throw is its action all the same


# -- dragon breath ----------------------------------------------------------------------------------


def test_a_dragons_breath_is_saved_against_at_11_plus_its_hit_dice() -> None:
    # The dragon (2x2 at (5, 2)) breathes west: a 30 ft cone from its cell edge.
    engine = table(
        [pc("Tombril"), pc("Janine", save_breath=5), dragon()],
        {"tombril": (3, 2), "janine": (2, 3), "young-dragon": (5, 2)},
    )
    opponents_first(engine, "young-dragon")
    breath = act.AreaEffect(
        shape="cone",
        origin=(5.0, 3.0),
        size_ft=30,
        direction=270.0,
        targets=("tombril", "janine"),
        caster="young-dragon",
        means="Fire breath",
    )
    # 6d6 = 3+3+2+2+1+1 = 12; Tombril d20 14 + 2 = 16 < 17 fails; Janine d20 12 + 5 = 17 saves: 6.
    events = engine.apply(breath, ScriptedDice([3, 3, 2, 2, 1, 1, 14, 12]))
    assert "6d6 [3+3+2+2+1+1] = 12, save vs Dragon Breath DC 17 (11 + 6 HD)" in events[0].text
    assert "Tombril d20 14 +2 = 16 vs DC 17: failed → 12 (HP 14 → 2)" in events[0].text
    assert "Janine d20 12 +5 = 17 vs DC 17: saved, half → 6 (HP 14 → 8)" in events[0].text
    # A breath is no attack on one foe: the attack menus leave it out and an attack with it is refused.
    monster = engine.combatant("young-dragon")
    assert [w.name for w in monster.strikers()] == ["Bite", "Unarmed"]
    assert monster.best_melee().name == "Bite"


def test_a_gm_dc_overrides_the_monsters_and_the_effects_category_is_the_gms_choice() -> None:
    engine = bombed()
    events = engine.apply(bomb(("tombril",), dc=12, save="Spells"), ScriptedDice([20, 2, 2, 11]))
    assert "save vs Spells DC 12 (set by the GM)" in events[0].text
    assert "Tombril d20 11 +0 = 11 vs DC 12: failed → 4 (HP 14 → 10)" in events[0].text


def test_with_area_save_halves_off_a_passed_save_takes_nothing() -> None:
    engine = table(
        [pc("Tombril"), pc("Cedryk", hp_max=10, save_breath=0), eagle()],
        {"tombril": (2, 2), "cedryk": (3, 3), "giant-eagle": (8, 8)},
        area_save_halves=False,
    )
    opponents_first(engine, "giant-eagle")
    events = engine.apply(bomb(("tombril", "cedryk")), ScriptedDice([16, 4, 3, 13, 5]))
    assert "Tombril d20 13 +2 = 15 vs DC 14: saved, none → 0 (HP 14, unharmed)" in events[0].text
    assert "Cedryk d20 5 +0 = 5 vs DC 14: failed → 7 (HP 10 → 3)" in events[0].text
    forecast = OSR.areas.forecast(engine.encounter, bomb(("tombril",)))
    assert "saves 45% (none)" in forecast["tombril"].words


# -- what the damage sets off -----------------------------------------------------------------------


def test_a_pc_brought_to_0_hp_makes_its_death_save_and_a_fallen_goblin_calls_for_morale() -> None:
    engine = table(
        [pc("Tombril", hp_max=5), eagle(), goblin("Goblin"), goblin("Goblin 2")],
        {"tombril": (2, 2), "goblin": (3, 3), "giant-eagle": (8, 8), "goblin-2": (10, 10)},
    )
    opponents_first(engine, "giant-eagle")
    # 2d6 = 6 + 4 = 10; Tombril (5 HP) fails, 10 damage: overkill 5, death save DC 16; the goblin fails: defeated.
    events = engine.apply(bomb(("tombril", "goblin")), ScriptedDice([18, 6, 4, 2, 3]))
    assert "Tombril d20 2 +2 = 4 vs DC 14: failed → 10 (HP 5 → 0, death save DC 16)" in events[0].text
    assert "Goblin d20 3 +0 = 3 vs DC 14: failed → 10 (HP 4 → 0, defeated)" in events[0].text
    after = events[1:]
    assert [type(e).__name__ for e in after] == ["WentDown", "WentDown", "RulesEvent"]
    assert isinstance(after[0], WentDown) and after[0].overkill == 5
    assert after[0].text == "Tombril drops to 0 HP: death save d20 +1 (Poison or Death) against DC 16 (11 + 5 overkill)"
    assert after[1].text == "Goblin is defeated (0 HP)"
    assert isinstance(after[2], RulesEvent) and after[2].text.startswith("Morale check for the Opponents")
    pending = engine.encounter.combat.pending
    assert [(p.kind, p.who, p.number) for p in pending] == [
        ("death save", "tombril", 16),
        ("morale", "Opponents", None),
    ]
    # The Action dock's result: the roll, each target, then what followed.
    log = engine.encounter.log
    at = next(i for i, e in enumerate(log) if isinstance(e, AreaEffectResolved))
    result = OSR.actions.result(engine.encounter, log[at], log[at + 1 :])
    assert result is not None and result.headline == "Dropped rock: 10 damage rolled, 2 of 2 harmed"
    assert ["".join(span.text for span in line) for line in result.lines][1:3] == [
        "Tombril: d20 2 +2 = 4 vs DC 14: failed → 10 (HP 5 → 0, death save DC 16)",
        "Goblin: d20 3 +0 = 3 vs DC 14: failed → 10 (HP 4 → 0, defeated)",
    ]
    assert len(result.lines) == 6
    # The death save as usual (§12): d20 15 + 1 = 16 ≥ 16: unconscious at 0 HP.
    saved = engine.apply(DeathSave(0), ScriptedDice([15]))
    assert saved[0].text == "Tombril's death save: d20 15 +1 = 16 vs DC 16: success: unconscious at 0 HP"


def test_a_pc_at_0_hp_struck_again_saves_against_11_plus_the_damage_and_the_dead_are_untouched() -> None:
    engine = table(
        [pc("Tombril", hp=0, conditions=["unconscious"]), pc("Cedryk", dead=True, hp=0), eagle()],
        {"tombril": (2, 2), "cedryk": (3, 3), "giant-eagle": (8, 8)},
    )
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([1, 20]))
    engine.begin_turn("giant-eagle")
    dice = ScriptedDice([16, 2, 2, 20])  # only Tombril saves: the dead roll nothing
    events = engine.apply(bomb(("tombril", "cedryk")), dice)
    assert dice.remaining == []
    assert "Tombril d20 20 +2 = 22 vs DC 14: saved, half → 2 (HP 0, unharmed)" not in events[0].text
    assert "Tombril d20 20 +2 = 22 vs DC 14: saved, half → 2 (HP 0 → 0, death save DC 13)" in events[0].text
    assert "Cedryk dead already: untouched" in events[0].text
    assert [(p.kind, p.number) for p in engine.encounter.combat.pending] == [("death save", 13)]


# -- the caster's action and undo -------------------------------------------------------------------


def test_the_bomb_is_the_casters_action_and_one_undo_step_restores_everything() -> None:
    engine = table(
        [pc("Tombril", hp_max=5), eagle(), goblin("Goblin")],
        {"tombril": (2, 2), "goblin": (3, 3), "giant-eagle": (8, 8)},
    )
    opponents_first(engine, "giant-eagle")
    before = engine.encounter.model_dump(exclude={"log"})
    log = len(engine.encounter.log)
    engine.apply(bomb(("tombril", "goblin")), ScriptedDice([18, 6, 4, 2, 3]))
    turn = engine.encounter.combat.turn
    assert (turn.action, turn.action_detail) == ("area effect", "Dropped rock, a 10 ft square")
    assert len(engine.encounter.combat.pending) == 2
    with pytest.raises(IllegalAction, match=r"already took its action \(area effect\)"):
        engine.apply(bomb(("tombril",)), ScriptedDice([18, 1, 1, 1]))
    engine.undo()
    assert engine.encounter.model_dump(exclude={"log"}) == before
    assert [e.kind for e in engine.encounter.log[log:]] == ["undone"]  # the log keeps what was undone


def test_a_caster_acts_on_its_own_turn_and_a_free_effect_needs_no_turn() -> None:
    engine = bombed()
    engine.end_turn()
    engine.begin_turn("tombril")
    with pytest.raises(IllegalAction, match="it is Tombril's turn"):
        engine.apply(bomb(("tombril",)), ScriptedDice([18, 1, 1, 1]))
    # The GM's falling rocks: no caster, nobody's action, the GM's DC.
    rocks = act.AreaEffect(
        **SQUARE, targets=("tombril", "cedryk"), name="Falling rocks", dice="1d6+1", extras={"dc": 12}
    )  # type: ignore[arg-type]
    events = engine.apply(rocks, ScriptedDice([5, 12, 3]))
    assert events[0].text == (
        "Falling rocks (GM, a 10 ft square): 1d6+1 [5]+1 = 6, save vs Dragon Breath DC 12 (set by the GM) — "
        "Tombril d20 12 +2 = 14 vs DC 12: saved, half → 3 (HP 14 → 11); "
        "Cedryk d20 3 +0 = 3 vs DC 12: failed → 6 (HP 10 → 4)"
    )
    assert engine.encounter.combat.turn.action is None  # Tombril's action is still to take


def test_a_free_effect_works_out_of_combat_and_is_refused_without_a_dc_or_dice() -> None:
    engine = table([pc("Tombril")], {"tombril": (2, 2)})
    with pytest.raises(IllegalAction, match="set the DC: the GM sets it for a free effect"):
        engine.apply(act.AreaEffect(**SQUARE, targets=("tombril",), name="Trap", dice="2d6"))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match=r"name the damage dice \(such as 2d6\)"):
        engine.apply(act.AreaEffect(**SQUARE, targets=("tombril",), name="Trap", extras={"dc": 12}))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="'2d7': a d7 is not a die"):
        engine.apply(act.AreaEffect(**SQUARE, targets=("tombril",), name="Trap", dice="2d7", extras={"dc": 12}))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="no saving throw 'Breath'"):
        engine.apply(act.AreaEffect(**SQUARE, targets=("tombril",), dice="2d6", extras={"dc": 12, "save": "Breath"}))  # type: ignore[arg-type]
    events = engine.apply(
        act.AreaEffect(**SQUARE, targets=("tombril",), name="Trap", dice="2d6", extras={"dc": 12}),  # type: ignore[arg-type]
        ScriptedDice([1, 1, 11]),
    )
    assert events[0].text.endswith("Tombril d20 11 +2 = 13 vs DC 12: saved, half → 1 (HP 14 → 13)")


def test_a_weapon_without_an_area_and_an_area_weapon_at_one_foe_are_refused() -> None:
    engine = table(
        [pc("Tombril"), dragon()],
        {"tombril": (4, 2), "young-dragon": (5, 2)},
    )
    opponents_first(engine, "young-dragon")
    with pytest.raises(IllegalAction, match="Young dragon's Bite strikes one foe, not an area"):
        engine.apply(act.AreaEffect(**SQUARE, targets=("tombril",), caster="young-dragon", means="Bite", override=True))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="Fire breath strikes a 30 ft cone: use it as an Area effect"):
        engine.apply(OsrAttack("young-dragon", "tombril", "Fire breath"), ScriptedDice([20, 1, 1, 1, 1, 1, 1]))


# -- the Area effect dialog ---------------------------------------------------------------------------


def test_the_forecast_gives_the_exact_save_chance_damage_and_drop() -> None:
    engine = bombed()
    odds = OSR.areas.forecast(engine.encounter, bomb(("tombril", "cedryk")))
    # Tombril: d20 + 2 ≥ 14 on faces 12-20: 9 in 20. Cedryk: faces 14-20, 7 in 20.
    assert odds["tombril"].save == "saves 45%"
    assert odds["cedryk"].save == "saves 35%"
    # Cedryk (10 HP) drops when the bomb hits (1 in 4) and it fails (13 in 20) and 2d6 ≥ 10 (6 in 36);
    # half of 2d6 never reaches 10.
    assert odds["cedryk"].drop == pytest.approx(0.25 * 0.65 * 6 / 36)
    assert odds["tombril"].drop == 0.0
    # Its damage: a miss 0 (3 in 4); else 2d6, halved on a save (7 in 20 for Cedryk).
    p = dice_sum(2, 6)
    expected = 0.25 * sum(q * (0.35 * (k // 2) + 0.65 * k) for k, q in enumerate(p))
    assert odds["cedryk"].damage == f"≈ {expected:.1f} (0-12)"
    assert "the bomb hits 25%" in odds["cedryk"].words
    # A breath, no bomb: every target is struck. Tombril (14 HP): d20 + 2 ≥ 17 on faces 15-20, 6 in 20;
    # it drops when it fails and 6d6 ≥ 14, or saves and half of 6d6 ≥ 14 (6d6 ≥ 28).
    fire = table([pc("Tombril"), dragon()], {"tombril": (4, 2), "young-dragon": (5, 2)})
    breath = act.AreaEffect(
        shape="cone",
        origin=(5.0, 3.0),
        size_ft=30,
        direction=270.0,
        targets=("tombril",),
        caster="young-dragon",
        means="Fire breath",
    )
    six = dice_sum(6, 6)
    drop = 0.7 * sum(six[14:]) + 0.3 * sum(six[28:])
    tombril = OSR.areas.forecast(fire.encounter, breath)["tombril"]
    assert tombril.save == "saves 30%"
    assert tombril.drop == pytest.approx(drop)
    assert tombril.words.endswith(f"drops to 0 HP (death save): {drop * 100:.1f}%")


def test_the_forecast_says_why_it_cannot_forecast_yet() -> None:
    engine = table([pc("Tombril")], {"tombril": (2, 2)})
    odds = OSR.areas.forecast(engine.encounter, act.AreaEffect(**SQUARE, targets=("tombril",), dice="2d6"))  # type: ignore[arg-type]
    assert odds["tombril"].words.startswith("No forecast yet: set the DC")


def test_the_means_and_the_spec_in_the_rules_words() -> None:
    monster = OsrCombatant.model_validate(dragon())
    (means,) = OSR.areas.means(monster)
    assert (means.name, means.area.words, means.words) == (
        "Fire breath",
        "a 30 ft cone",
        "6d6, save vs Dragon Breath DC 17 for half",
    )
    bomber = OsrCombatant.model_validate(eagle())
    assert OSR.areas.means(bomber)[0].words == (
        "bomb (d20 16+ hits the aimed square): 2d6, save vs Dragon Breath DC 14 for half"
    )
    flask = {"name": "Oil flask", "damage": "1d8", "kind": "thrown", "area": {"shape": "circle", "size_ft": 5}}
    thrower = OsrCombatant.model_validate(pc("Tombril", weapons=[flask]))
    assert OSR.areas.means(thrower)[0].words == "1d8, save vs Dragon Breath DC set by the GM for half"
    spec = OSR.areas.spec()
    assert [s.key for s in spec.settings] == ["save", "dc"]  # beside the shared dice
    assert [value for value, _ in spec.saves] == [
        "Poison or Death Ray",
        "Paralysis or Petrification",
        "Wands",
        "Dragon Breath",
        "Spells",
    ]
    assert spec.settings[0].default == "Dragon Breath" and not spec.cover


# -- the stat block -------------------------------------------------------------------------------------


def test_a_bad_area_on_a_stat_block_gets_a_clear_error() -> None:
    with pytest.raises(ValidationError, match="Grenade is a bomb but strikes no area"):
        OsrWeapon.model_validate({"name": "Grenade", "damage": "2d6", "bomb": True})
    with pytest.raises(ValidationError, match="not a multiple of 5 ft"):
        OsrWeapon.model_validate({"name": "Breath", "damage": "2d6", "area": {"shape": "cone", "size_ft": 12}})
    with pytest.raises(ValidationError, match="size_ft"):
        OsrWeapon.model_validate({"name": "Breath", "damage": "2d6", "area": {"shape": "cone", "size_ft": 400}})
    with pytest.raises(ValidationError, match="shape"):
        OsrWeapon.model_validate({"name": "Breath", "damage": "2d6", "area": {"shape": "blob", "size_ft": 10}})
    with pytest.raises(ValidationError, match="save"):
        OsrWeapon.model_validate({"name": "Breath", "damage": "2d6", "save": "Breath"})


def test_existing_files_load_unchanged_and_the_bestiary_has_a_breath_and_a_bomb() -> None:
    demo = storage.load(resource("encounters", "goblin-ambush-osr.lnl"))
    assert all(w.area is None and not w.bomb for c in demo.combatants for w in c.weapons)  # type: ignore[attr-defined]
    creatures = {c["name"]: c for c in OSR.bestiary()}
    red = OsrCombatant.model_validate(creatures["Young red dragon"] | {"side": "Opponents"})
    assert [(m.name, m.area.words) for m in OSR.areas.means(red)] == [("Fire breath", "a 30 ft cone")]
    bird = OsrCombatant.model_validate(creatures["Giant eagle"] | {"side": "Opponents"})
    assert bird.weapon("Dropped rock").bomb


def test_an_lnl_area_spell_converts_to_an_area_weapon() -> None:
    lnl = get_ruleset("lnl")
    janine = {
        "name": "Janine",
        "side": "Party",
        "level": 5,
        "stamina_max": 10,
        "injury_max": 8,
        "weapons": [{"name": "Staff", "die": "d6", "kind": "melee"}],
        "spells": [
            {"name": "Fireball", "die": "d6", "area": {"shape": "circle", "size_ft": 20}},
            {"name": "Firebolt", "die": "d8"},
        ],
    }
    data, notes = OSR.convert(janine, lnl)
    c = OsrCombatant.model_validate(data)
    fireball = c.weapon("Fireball")
    assert (fireball.damage, fireball.area.words, fireball.save.value) == ("3d6", "a 20 ft radius circle", "Spells")
    assert [w.name for w in c.weapons] == ["Staff", "Fireball"]
    assert any("area spells as area weapons" in n for n in notes)


def test_a_spell_the_caster_names_is_cast_as_a_spell_with_the_gms_dc() -> None:
    acolyte = {"name": "Acolyte", "side": "Opponents", "kind": "NPC", "level": 3, "hp_max": 9, "morale": 7}
    engine = table([pc("Tombril"), acolyte], {"tombril": (2, 2), "acolyte": (9, 9)})
    opponents_first(engine, "acolyte")
    fireball = act.AreaEffect(**SQUARE, targets=("tombril",), caster="acolyte", name="Fireball", dice="3d6")  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match=r"the GM sets it for Acolyte's effect \(NPC, not a monster\)"):
        engine.apply(fireball)
    engine.move("acolyte", to=(9, 8))
    with pytest.raises(IllegalAction, match="moved 5 ft this turn; A caster may not move"):
        engine.apply(
            act.AreaEffect(
                **SQUARE, targets=("tombril",), caster="acolyte", name="Fireball", dice="3d6", extras={"dc": 13}
            )
        )  # type: ignore[arg-type]
    engine.undo()
    events = engine.apply(
        act.AreaEffect(
            **SQUARE,
            targets=("tombril",),
            caster="acolyte",
            name="Fireball",
            dice="3d6",
            extras={"dc": 13, "save": "Spells"},
        ),  # type: ignore[arg-type]
        ScriptedDice([6, 5, 4, 10]),
    )
    assert events[0].text == (
        "Fireball (Acolyte, a 10 ft square): 3d6 [6+5+4] = 15, save vs Spells DC 13 (set by the GM) — "
        "Tombril d20 10 +0 = 10 vs DC 13: failed → 15 (HP 14 → 0, death save DC 12)"
    )
    assert engine.encounter.combat.turn.action == "cast"

"""Light on the map (RULES §15): ambient light, sources and their radii, walls, carried sources,
undo, files, and Old-School d20's attack reading the target's cell."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lnl_desktop.core import Engine, IllegalAction, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.light import AmbientLight, LightKind, LightSource, cell_light, light_map
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.osr import OsrAttack
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource

OSR = get_ruleset("osr")
DARK, DIM, NORMAL = AmbientLight.DARK, AmbientLight.DIM, AmbientLight.NORMAL


def fighter(**more: Any) -> dict[str, Any]:
    return {
        "name": "Tombril",
        "side": "Party",
        "kind": "PC",
        "hp_max": 14,
        "armor_bonus": 4,
        "attack_bonus": 3,
        "str_mod": 2,
        "weapons": [{"name": "Longsword", "damage": "1d8"}, {"name": "Bow", "damage": "1d6", "kind": "missile"}],
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
        "morale": 12,
        "weapons": [{"name": "Club", "damage": "2d6"}],
    } | more


def table(tokens: dict[str, tuple[int, int]], width: int = 30, **options: Any) -> Engine:
    encounter = OSR.new_encounter(
        name="cave",
        combatants=[fighter(), ogre()],
        tokens={cid: {"cell": cell, "facing": 90} for cid, cell in tokens.items()},
        options=options,
        map={"width": width, "height": 20},
    )
    return Engine(encounter)


def test_the_ambient_light_alone_lights_every_cell() -> None:
    engine = table({"tombril": (2, 2)}, light="dim")
    assert cell_light(engine.encounter, (10, 10)) is DIM
    assert set(light_map(engine.encounter).ravel().tolist()) == {1}
    engine.apply(act.SetAmbientLight("dark"))
    assert cell_light(engine.encounter, (10, 10)) is DARK
    assert engine.encounter.log[-1].text == "Ambient light dark"


def test_a_torch_sheds_20_ft_bright_then_20_ft_dim() -> None:
    engine = table({"tombril": (2, 2)}, light="dark")
    events = engine.apply(act.PlaceLight("torch", cell=(10, 10)))
    assert events[0].text == "A torch (20 ft + 20 ft) at (10, 10)"
    e = engine.encounter
    assert cell_light(e, (10, 10)) is NORMAL
    assert cell_light(e, (14, 10)) is NORMAL  # 20 ft
    assert cell_light(e, (15, 10)) is DIM  # 25 ft
    assert cell_light(e, (18, 10)) is DIM  # 40 ft
    assert cell_light(e, (19, 10)) is DARK  # 45 ft
    levels = light_map(e)
    assert levels[10, 14] == 2 and levels[10, 15] == 1 and levels[10, 19] == 0


def test_lantern_candle_and_custom_radii() -> None:
    engine = table({"tombril": (2, 2)}, light="dark")
    engine.apply(act.PlaceLight("lantern", cell=(5, 5)))
    engine.apply(act.PlaceLight("candle", cell=(20, 5)))
    engine.apply(act.PlaceLight("custom", cell=(10, 15), bright_ft=0, dim_ft=10))
    e = engine.encounter
    assert (cell_light(e, (11, 5)), cell_light(e, (12, 5)), cell_light(e, (17, 5))) == (NORMAL, DIM, DIM)
    assert (cell_light(e, (21, 5)), cell_light(e, (22, 5)), cell_light(e, (23, 5))) == (NORMAL, DIM, DARK)
    assert (cell_light(e, (10, 15)), cell_light(e, (12, 15)), cell_light(e, (13, 15))) == (DIM, DIM, DARK)


def test_a_wall_stops_the_light() -> None:
    engine = table({"tombril": (2, 2)}, light="dark")
    engine.apply(act.PlaceLight("torch", cell=(10, 10)))
    assert cell_light(engine.encounter, (13, 10)) is NORMAL
    engine.apply(act.AddWall((12, 5), (12, 15)))
    assert cell_light(engine.encounter, (13, 10)) is DARK
    assert cell_light(engine.encounter, (11, 10)) is NORMAL


def test_a_cell_takes_the_best_of_the_ambient_light_and_every_source() -> None:
    engine = table({"tombril": (2, 2)}, light="dim")
    engine.apply(act.PlaceLight("candle", cell=(5, 5)))
    assert cell_light(engine.encounter, (20, 5)) is DIM  # the ambient light
    engine.apply(act.PlaceLight("torch", cell=(12, 5)))
    assert cell_light(engine.encounter, (8, 5)) is NORMAL  # the torch's bright beats the candle's dim
    assert cell_light(engine.encounter, (5, 5)) is NORMAL


def test_a_carried_light_moves_with_its_token_and_is_dropped_where_it_stands() -> None:
    engine = table({"tombril": (2, 2)}, light="dark")
    engine.apply(act.PlaceLight("torch", carrier="tombril"))
    assert cell_light(engine.encounter, (6, 2)) is NORMAL
    assert cell_light(engine.encounter, (20, 2)) is DARK
    engine.apply(act.RemoveToken("tombril"))
    assert cell_light(engine.encounter, (2, 2)) is DARK  # its carrier off the map, the torch sheds no light
    engine.apply(act.PlaceToken("tombril", (18, 2)))
    assert cell_light(engine.encounter, (20, 2)) is NORMAL
    assert cell_light(engine.encounter, (2, 10)) is DARK
    events = engine.apply(act.CarryLight("torch", None))
    assert events[0].text == "Tombril drops the torch (20 ft + 20 ft) at (18, 2)"
    engine.apply(act.RemoveToken("tombril"))
    engine.apply(act.PlaceToken("tombril", (2, 2)))
    assert cell_light(engine.encounter, (20, 2)) is NORMAL
    assert engine.apply(act.CarryLight("torch", "ogre"))[0].text == "Ogre takes the torch (20 ft + 20 ft)"


def test_each_light_action_is_one_undo_step_and_bad_input_changes_nothing() -> None:
    engine = table({"tombril": (2, 2)})
    before = engine.encounter.model_dump(exclude={"log"})
    engine.apply(act.PlaceLight("lantern", cell=(3, 3)))
    engine.apply(act.CarryLight("lantern", "tombril"))
    engine.apply(act.SetAmbientLight("dark"))
    engine.undo()
    assert engine.encounter.options.light is NORMAL
    engine.undo()
    assert engine.encounter.lights[0].cell == (3, 3)
    engine.undo()
    assert engine.encounter.model_dump(exclude={"log"}) == before
    for bad, words in (
        (act.PlaceLight("bonfire", cell=(1, 1)), "'bonfire' is not a light"),
        (act.PlaceLight("torch", cell=(99, 1)), r"cell \(99, 1\) is off the 30 x 20 map"),
        (act.PlaceLight("custom", cell=(1, 1), bright_ft=500, dim_ft=0), "120"),
        (act.PlaceLight("torch", cell=(1, 1), bright_ft=5, dim_ft=5), "only a custom light takes radii"),
        (act.PlaceLight("torch", carrier="nobody"), "there is no combatant 'nobody'"),
        (act.RemoveLight("torch"), "there is no light 'torch'"),
        (act.SetAmbientLight("pitch"), "'pitch' is not a light"),
    ):
        with pytest.raises(IllegalAction, match=words):
            engine.apply(bad)
    assert engine.encounter.model_dump(exclude={"log"}) == before


def test_a_combatant_leaving_drops_its_light() -> None:
    engine = table({"tombril": (2, 2), "ogre": (8, 8)})
    engine.apply(act.PlaceLight("torch", carrier="ogre"))
    engine.apply(act.RemoveCombatant("ogre"))
    assert engine.encounter.lights[0].cell == (8, 8) and engine.encounter.lights[0].carrier is None
    engine.undo()
    assert engine.encounter.lights[0].carrier == "ogre"


def test_lights_are_saved_and_loaded() -> None:
    engine = table({"tombril": (2, 2)}, light="dim")
    engine.apply(act.PlaceLight("torch", carrier="tombril"))
    engine.apply(act.PlaceLight("custom", cell=(4, 4), bright_ft=10, dim_ft=15))
    again = storage.loads(storage.dumps(engine.encounter))
    assert again.lights == engine.encounter.lights
    assert again.options.light is DIM
    assert again.lights[1].radii == (10, 15) and again.lights[1].kind is LightKind.CUSTOM


def test_a_file_with_a_bad_light_is_refused_in_words() -> None:
    engine = table({"tombril": (2, 2)})
    document = json.loads(storage.dumps(engine.encounter))
    document["encounter"]["lights"] = [{"id": "torch", "kind": "torch", "carrier": "nobody"}]
    with pytest.raises(ValueError, match="no combatant has the id 'nobody'"):
        storage.loads(json.dumps(document))
    with pytest.raises(ValueError, match="either placed at a cell or carried"):
        LightSource(id="x", cell=(1, 1), carrier="tombril")


def test_old_files_have_no_lights_and_osr_reads_its_old_light_as_the_ambient() -> None:
    for name in ("goblin-ambush-osr.lnl", "hill-giant.lnl", "bandit-mill-d10.lnl"):
        encounter = storage.load(resource("encounters", name))
        assert encounter.lights == ()
        assert encounter.options.light is NORMAL
    engine = table({"tombril": (2, 2)})
    document = json.loads(storage.dumps(engine.encounter))
    assert "lights" not in document["encounter"] or document["encounter"]["lights"] == []
    document["encounter"].pop("lights", None)
    document["encounter"]["options"]["light"] = "dark"  # as an older Old-School d20 file has it
    old = storage.loads(json.dumps(document))
    assert old.options.light is DARK and cell_light(old, (5, 5)) is DARK


def attack(engine: Engine, weapon: str = "Longsword") -> str:
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([20, 1]))
    engine.begin_turn("tombril")
    return engine.apply(
        OsrAttack("tombril", "ogre", weapon, "ranged" if weapon == "Bow" else "melee"), ScriptedDice([10, 5])
    )[0].text


def test_osr_without_sources_the_ambient_light_decides_as_before() -> None:
    engine = table({"tombril": (2, 2), "ogre": (3, 2)}, light="dark")
    assert "d20 10 +3 attack bonus +2 STR -5 dark light = 10 vs AC 14: miss" in attack(engine)


def test_osr_attack_reads_the_light_of_the_targets_cell() -> None:
    engine = table({"tombril": (2, 2), "ogre": (12, 8)}, light="dark")
    engine.apply(act.PlaceLight("torch", cell=(12, 2)))  # 30 ft from the ogre: dim light there
    text = attack(engine, "Bow")
    assert "-2 dim light (target at (12, 8))" in text
    lit = table({"tombril": (2, 2), "ogre": (12, 8)}, light="dark")
    lit.apply(act.PlaceLight("torch", carrier="ogre"))  # the target carries the torch: in its light
    assert "light" not in attack(lit, "Bow").split("=")[0]
    far = table({"tombril": (2, 2), "ogre": (25, 15)}, light="dim")
    far.apply(act.PlaceLight("candle", cell=(2, 2)))  # the attacker's candle does not reach the target
    assert "-2 dim light (target at (25, 15))" in attack(far, "Bow")

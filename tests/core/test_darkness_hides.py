"""Darkness hides (RULES §15): a creature not of the Party standing in a dark cell is not on the
players' map, fog of war on or off; a torch's light shows it; a Party member's darkvision makes dark
cells within its feet and in its sight dim for the Party (a [D] option, on by default); the Party's
default target is never one the players cannot see; Old-School d20's light penalty reads the
attacker's darkvision.

A 30 x 10 map, ambient light dark, no fog of war: Ana (Party) at (2, 4); an archer at (12, 4),
50 ft from her; a wall down x = 20 from y = 0 to 10.
"""

from __future__ import annotations

from typing import Any

from lnl_desktop.core import Engine, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.engine.party_view import party_light, players_unseen
from lnl_desktop.core.engine.plan import nearest_foe
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.core.rules.osr import OsrAttack
from lnl_desktop.core.rules.registry import get_ruleset


def dark_hall(darkvision_ft: int = 0, archer: tuple[int, int] = (12, 4), **options: Any) -> Engine:
    ana = Combatant(
        id="ana", name="Ana", side=Side.PARTY, level=3, stamina_max=20, injury_max=10,
        vision_deg=360, darkvision_ft=darkvision_ft,
    )  # fmt: skip
    bow = Combatant(id="archer", name="Archer", side=Side.OPPONENTS, level=1, stamina_max=6, injury_max=4)
    orc = Combatant(id="orc", name="Orc", side=Side.OPPONENTS, level=1, stamina_max=6, injury_max=4)
    encounter = Encounter(
        map=MapGrid(width=30, height=10, segments=(WallSegment(a=(20, 0), b=(20, 10)),)),
        options={"light": "dark", **options},
        combatants=[ana, bow, orc],
        tokens={"ana": Token(cell=(2, 4), facing=90), "archer": Token(cell=archer), "orc": Token(cell=(16, 4))},
    )
    return Engine(encounter)


def test_an_archer_in_pitch_dark_is_unseen_with_fog_of_war_off_and_a_torch_shows_it() -> None:
    engine = dark_hall()
    assert not engine.encounter.fog.enabled
    assert players_unseen(engine.encounter) == {"archer", "orc"}
    engine.apply(act.PlaceLight("torch", cell=(7, 4)))  # the archer 25 ft from it: dim light, shown
    assert players_unseen(engine.encounter) == {"orc"}  # 45 ft from the torch: dark
    engine.undo()
    assert players_unseen(engine.encounter) == {"archer", "orc"}
    # Dim or normal ambient light hides nobody.
    engine.apply(act.SetAmbientLight("dim"))
    assert players_unseen(engine.encounter) == frozenset()


def test_darkness_and_fog_of_war_together_hide_what_either_hides() -> None:
    engine = dark_hall(darkvision_ft=60)
    engine.apply(act.SetFog(True))
    assert players_unseen(engine.encounter) == {"orc"}  # the archer within Ana's darkvision and sight
    engine.apply(act.PlaceLight("torch", cell=(25, 4)))  # behind the wall: lit, but out of the Party's sight
    engine.apply(act.Move("orc", to=(25, 5), forced=True))
    assert "orc" in players_unseen(engine.encounter)


def test_darkvision_shows_the_archer_within_its_feet_not_beyond_nor_behind_a_wall() -> None:
    engine = dark_hall(darkvision_ft=60)
    assert players_unseen(engine.encounter) == {"orc"}  # archer 50 ft: seen; orc 70 ft: not
    levels = party_light(engine.encounter)
    assert levels is not None and levels[4, 12] == 1 and levels[4, 16] == 0  # dim for the Party, not bright
    beyond = dark_hall(darkvision_ft=60, archer=(15, 4))  # 65 ft
    assert "archer" in players_unseen(beyond.encounter)
    walled = dark_hall(darkvision_ft=120, archer=(22, 4))  # 100 ft, behind the wall
    assert "archer" in players_unseen(walled.encounter)
    # A Party member hidden from the players lends them no eyes.
    engine.apply(act.SetHidden("ana", True))
    assert {"archer", "orc"} <= players_unseen(engine.encounter)


def test_darkvision_is_a_rules_option_on_by_default_and_off_it_counts_for_nothing() -> None:
    engine = dark_hall(darkvision_ft=60)
    assert engine.encounter.options.darkvision is True
    engine.apply(act.EditOptions({"darkvision": False}))
    assert players_unseen(engine.encounter) == {"archer", "orc"}
    assert "darkvision" in engine.encounter.log[-1].text
    engine.undo()
    assert players_unseen(engine.encounter) == {"orc"}


def test_the_partys_default_target_is_never_a_foe_in_the_dark() -> None:
    engine = dark_hall()
    engine.apply(act.PlaceLight("candle", carrier="orc"))  # the farther orc carries a candle
    ana = engine.encounter.combatant("ana")
    assert nearest_foe(engine.encounter, ana, players_unseen(engine.encounter)) == "orc"
    engine.apply(act.RemoveLight("candle"))
    assert nearest_foe(engine.encounter, ana, players_unseen(engine.encounter)) is None


# -- Old-School d20: the light penalty of an attack reads the attacker's darkvision ---------------------


def osr_attack(darkvision_ft: int, ogre_at: tuple[int, int], **options: Any) -> str:
    osr = get_ruleset("osr")
    fighter = {
        "name": "Tombril", "side": "Party", "kind": "PC", "hp_max": 14, "armor_bonus": 4, "attack_bonus": 3,
        "str_mod": 2, "darkvision_ft": darkvision_ft,
        "weapons": [{"name": "Bow", "damage": "1d6", "kind": "missile"}],
    }  # fmt: skip
    ogre = {
        "name": "Ogre", "side": "Opponents", "kind": "monster", "level": 4, "hp_max": 22, "ac_typed": 14,
        "attack_bonus": 4, "morale": 12, "weapons": [{"name": "Club", "damage": "2d6"}],
    }  # fmt: skip
    engine = Engine(
        osr.new_encounter(
            name="cave",
            combatants=[fighter, ogre],
            tokens={"tombril": {"cell": (2, 2), "facing": 90}, "ogre": {"cell": ogre_at, "facing": 270}},
            options={"light": "dark", **options},
            map={"width": 30, "height": 20},
        )
    )
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([20, 1]))
    engine.begin_turn("tombril")
    return engine.apply(OsrAttack("tombril", "ogre", "Bow", "ranged"), ScriptedDice([10, 5]))[0].text


def test_osr_darkvision_makes_the_targets_dark_cell_dim_for_its_own_attacks() -> None:
    seen = osr_attack(60, (12, 2))  # 50 ft
    assert "-2 dim light (target at (12, 2), Tombril's darkvision 60 ft)" in seen
    assert "-5 dark light" in osr_attack(60, (16, 2))  # 70 ft: beyond it
    assert "-5 dark light" in osr_attack(0, (12, 2))
    assert "-5 dark light" in osr_attack(60, (12, 2), darkvision=False)

"""An attack turns the attacker to face its target (RULES §7, §10-13: facing drives sneak attacks
and attacks from behind), in every ruleset, as part of the attack's one undo step; a table option
of the encounter, on by default and on for files saved before it existed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lnl_desktop.core import (
    Combatant,
    Encounter,
    Engine,
    MapGrid,
    RulesOptions,
    ScriptedDice,
    Side,
    SurpriseSituation,
    Token,
    Weapon,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Turned
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.classic import CLASSIC, NONE
from lnl_desktop.core.rules.d10 import D10Attack, Declare, FreeAttack
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.core.rules.lnl.model import AttackResolved
from lnl_desktop.core.rules.osr import CounterAttack, OsrAttack
from lnl_desktop.core.rules.osr.rules import from_behind
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource

NORTH, EAST, SOUTH, WEST = 0, 90, 180, 270


def fighter(name: str, side: Side, **fields: Any) -> Combatant:
    data: dict[str, Any] = {"name": name, "side": side, "level": 1, "stamina_max": 20, "injury_max": 10}
    data["weapons"] = [Weapon(name="Sword", die="d6"), Weapon(name="Bow", die="d6", kind="ranged")]
    data.update(fields)
    return Combatant(**data)


def lnl_table(*placed: tuple[Combatant, tuple[int, int], int], options: RulesOptions | None = None) -> Engine:
    encounter = Encounter(
        map=MapGrid(width=14, height=14),
        combatants=[c for c, _, _ in placed],
        tokens={c.id: Token(cell=cell, facing=facing) for c, cell, facing in placed},
        options=options or RulesOptions(),
    )
    return Engine(encounter, dice=ScriptedDice([]))


def tombril_and_orc(options: RulesOptions | None = None) -> Engine:
    """Tombril looks west; the Orc stands diagonally south-east of him, at his back."""
    engine = lnl_table(
        (fighter("Tombril", Side.PARTY), (5, 5), WEST),
        (fighter("Orc", Side.OPPONENTS), (6, 6), NORTH),
        options=options,
    )
    engine.start_combat(SurpriseSituation.NOBODY, face=4)  # the Party first
    engine.begin_turn("tombril")
    return engine


def facing(engine: Engine, cid: str) -> int:
    return engine.encounter.tokens[cid].facing


# -- L&L: the attack, its log line, its undo --------------------------------------------------------


def test_an_attack_turns_the_attacker_to_face_its_target_in_the_same_undo_step() -> None:
    engine = tombril_and_orc()
    events = script.attack(engine, "tombril", "orc", "Sword", faces=[3])
    assert facing(engine, "tombril") == 135  # south-east, the 45 degree step towards the Orc
    assert isinstance(events[0], AttackResolved)  # the attack's line stays first: it names the undo step
    turned = [e for e in events if isinstance(e, Turned)]
    assert [(e.text, e.old_facing, e.new_facing) for e in turned] == [("Tombril turns to face Orc", WEST, 135)]
    assert "Tombril turns to face Orc" in [e.text for e in engine.encounter.log]
    assert engine.undo_text.startswith("Tombril")
    assert "turns to face" not in engine.undo_text

    engine.undo()  # one step takes back the blow and the turn
    assert facing(engine, "tombril") == WEST
    assert engine.combatant("orc").stamina == 20
    assert engine.encounter.combat.turn is not None and engine.encounter.combat.turn.action is None
    engine.redo()
    assert facing(engine, "tombril") == 135


def test_a_spell_aimed_at_a_creature_turns_the_caster() -> None:
    from lnl_desktop.core import Spell

    mage = fighter("Mage", Side.PARTY, spells=[Spell(name="Bolt", die="d6")])
    engine = lnl_table((mage, (5, 5), NORTH), (fighter("Orc", Side.OPPONENTS), (2, 5), NORTH))
    engine.start_combat(SurpriseSituation.NOBODY, face=4)
    engine.begin_turn("mage")
    script.cast(engine, "mage", "orc", "Bolt", faces=[2, 1])
    assert facing(engine, "mage") == WEST


def test_already_facing_the_target_logs_no_turn() -> None:
    engine = tombril_and_orc()
    engine.face("tombril", 135)
    events = script.attack(engine, "tombril", "orc", "Sword", faces=[3])
    assert not [e for e in events if isinstance(e, Turned)]


def test_a_refused_attack_turns_nobody() -> None:
    engine = tombril_and_orc()
    engine.move("tombril", to=(2, 5))  # out of reach of the Orc
    with pytest.raises(Exception, match="Tombril"):
        script.attack(engine, "tombril", "orc", "Sword", faces=[3])
    assert facing(engine, "tombril") == WEST


def test_with_the_option_off_the_attacker_keeps_its_facing() -> None:
    engine = tombril_and_orc(RulesOptions(face_target_on_attack=False))
    events = script.attack(engine, "tombril", "orc", "Sword", faces=[3])
    assert facing(engine, "tombril") == WEST
    assert not [e for e in events if isinstance(e, Turned)]


def test_the_option_is_edited_saved_and_undone_like_every_option() -> None:
    engine = tombril_and_orc()
    engine.apply(act.EditOptions({"face_target_on_attack": False}))
    assert engine.encounter.options.face_target_on_attack is False
    saved = json.loads(storage.dumps(engine.encounter))
    assert saved["encounter"]["options"]["face_target_on_attack"] is False
    assert storage.loads(storage.dumps(engine.encounter)).options.face_target_on_attack is False
    engine.undo()
    assert engine.encounter.options.face_target_on_attack is True


@pytest.mark.parametrize("ruleset", ["lnl", "classic", "osr", "d10"])
def test_a_file_saved_before_the_option_existed_reads_it_on(ruleset: str) -> None:
    data = json.loads(storage.dumps(get_ruleset(ruleset).new_encounter(name="old")))
    del data["encounter"]["options"]["face_target_on_attack"]
    assert storage.loads(json.dumps(data)).options.face_target_on_attack is True


def test_the_demo_saved_before_the_option_opens_with_it_on() -> None:
    path = resource("encounters", "hill-giant.lnl")
    assert "face_target_on_attack" not in path.read_text(encoding="utf-8")
    assert storage.load(path).options.face_target_on_attack is True


def test_the_rules_see_the_new_facing_at_once_a_sneak_approach_is_seen() -> None:
    # The Orc looks north, away from the Rogue at its back: the Rogue's position is an unexpected
    # direction. The Orc strikes the Rogue first and so turns to face it: no longer.
    engine = lnl_table(
        (fighter("Rogue", Side.PARTY), (5, 6), NORTH),
        (fighter("Orc", Side.OPPONENTS), (5, 5), NORTH),
    )

    def unseen() -> bool:
        checks = {ch.label: ch for ch in engine.concealment_details("rogue", "orc")}
        return checks["Approach from an unexpected direction"].ok

    assert unseen()
    engine.start_combat(SurpriseSituation.NOBODY, face=2)  # the Opponents first
    engine.begin_turn("orc")
    script.attack(engine, "orc", "rogue", "Sword", faces=[1])
    assert facing(engine, "orc") == SOUTH
    assert not unseen()
    engine.undo()
    assert unseen()


# -- the other rulesets ------------------------------------------------------------------------------


def test_classic_attack_turns_the_attacker() -> None:
    encounter = CLASSIC.new_encounter(
        map=MapGrid(width=14, height=14),
        combatants=[
            {"name": "Tombril", "side": "Party", "level": 1, "stamina_max": 20, "injury_max": 10,
             "weapons": [{"name": "Sword", "die": "d6"}]},
            {"name": "Orc", "side": "Opponents", "level": 1, "stamina_max": 20, "injury_max": 10},
        ],
        tokens={"tombril": Token(cell=(5, 5), facing=WEST), "orc": Token(cell=(5, 4), facing=SOUTH)},
    )  # fmt: skip
    engine = Engine(encounter, dice=ScriptedDice([]))
    engine.start_combat(NONE, initiative_face=4)
    engine.begin_turn("tombril")
    script.attack(engine, "tombril", "orc", "Sword", faces=[3])
    assert facing(engine, "tombril") == NORTH
    engine.undo()
    assert facing(engine, "tombril") == WEST


OSR = get_ruleset("osr")


def osr_table(tokens: dict[str, tuple[tuple[int, int], int]], **options: Any) -> Engine:
    tombril = {
        "name": "Tombril",
        "side": "Party",
        "kind": "PC",
        "hp_max": 14,
        "armor_bonus": 4,
        "shield": True,
        "attack_bonus": 3,
        "weapons": [{"name": "Longsword", "damage": "1d8"}],
    }
    goblin = {
        "name": "Goblin",
        "side": "Opponents",
        "hp_max": 4,
        "ac_typed": 12,
        "attack_bonus": 1,
        "morale": 7,
        "weapons": [{"name": "Spear", "damage": "1d6"}],
    }
    encounter = OSR.new_encounter(
        name="t",
        combatants=[tombril, goblin],
        tokens={cid: {"cell": cell, "facing": f} for cid, (cell, f) in tokens.items()},
        options=options,
    )
    return Engine(encounter)


def test_old_school_an_attack_ends_the_attack_from_behind() -> None:
    # The Goblin stands at Tombril's back (he looks east): its blow would be from behind (no shield
    # AC). Tombril turns on it as he strikes, so it no longer is.
    engine = osr_table({"tombril": ((5, 5), EAST), "goblin": ((4, 5), EAST)})
    tombril, goblin = engine.combatant("tombril"), engine.combatant("goblin")
    assert from_behind(engine.encounter, goblin, tombril)
    engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([20, 1]))
    engine.begin_turn("tombril")
    engine.apply(OsrAttack("tombril", "goblin", "Longsword"), ScriptedDice([2]))  # a miss
    assert facing(engine, "tombril") == WEST
    assert not from_behind(engine.encounter, goblin, tombril)
    engine.undo()
    assert from_behind(engine.encounter, goblin, tombril)


def test_old_school_a_counter_attack_turns_the_striker_and_the_option_off_does_not() -> None:
    for on in (True, False):
        engine = osr_table({"tombril": ((5, 5), EAST), "goblin": ((5, 6), NORTH)}, face_target_on_attack=on)
        engine.apply(act.StartCombat(situation="nobody surprised"), ScriptedDice([20, 1]))
        engine.begin_turn("tombril")
        engine.move("tombril", path=[(5, 5), (4, 5), (3, 5)])  # out of the Goblin's reach: it may counter
        assert [p.who for p in engine.encounter.combat.pending] == ["goblin"]
        engine.apply(CounterAttack(0), ScriptedDice([2]))  # a miss
        assert facing(engine, "goblin") == (315 if on else NORTH)  # towards (3, 5), north-west of it


D10 = get_ruleset("d10")


def d10_table(**options: Any) -> Engine:
    hero = {"name": "Tombril", "side": "Party", "hp_max": 14, "defense": 13, "melee": 3,
            "weapons": [{"name": "Sword", "die": "d6"}]}  # fmt: skip
    ogre = {"name": "Ogre", "side": "Opponents", "hp_max": 15, "defense": 12, "melee": 4,
            "weapons": [{"name": "Club", "die": "d6"}]}  # fmt: skip
    tokens = {"tombril": {"cell": (2, 2), "facing": NORTH}, "ogre": {"cell": (3, 2), "facing": NORTH}}
    engine = Engine(D10.new_encounter(name="t", combatants=[hero, ogre], tokens=tokens, options=options))
    for cid in ("tombril", "ogre"):
        engine.apply(Declare(cid, "attack"))
    engine.apply(act.StartCombat(situation="no surprise"), ScriptedDice([9, 1]))
    return engine


def test_group_d10_an_attack_and_a_free_attack_turn_the_attacker() -> None:
    engine = d10_table()
    engine.begin_turn("tombril")
    engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([2]))  # a miss
    assert facing(engine, "tombril") == EAST
    engine.undo()
    assert facing(engine, "tombril") == NORTH
    engine.move("tombril", to=(0, 2))  # away from the Ogre: its free attack
    engine.apply(FreeAttack(0), ScriptedDice([2]))
    assert facing(engine, "ogre") == WEST


def test_group_d10_with_the_option_off_nobody_turns() -> None:
    engine = d10_table(face_target_on_attack=False)
    engine.begin_turn("tombril")
    engine.apply(D10Attack("tombril", "ogre", "Sword"), ScriptedDice([2]))
    assert facing(engine, "tombril") == NORTH

"""An invisible attacker counts as concealed for the sneak attack (RULES §7) in L&L and Classic, from
every target that cannot see invisible creatures, without the GM ticking the concealed flag. Typed
faces: the rogue's dagger sneak on the orc (AWA d20 20: AP ignored; 2d4 1, 1 + DEX 3 = 5 direct)."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import AttackMode, AttackResolved, Engine, IllegalAction, MapGrid, ScriptedDice, Side, Token
from lnl_desktop.core.rules.classic import CLASSIC, NONE
from lnl_desktop.core.rules.lnl import LNL, script
from lnl_desktop.core.rules.registry import Ruleset

SNEAK = AttackMode.SNEAK
NORTH, SOUTH = 0, 180


def rogue(**more: Any) -> dict[str, Any]:
    return {
        "name": "Rogue",
        "side": Side.PARTY.value,
        "level": 3,
        "str_bonus": 1,
        "dex_bonus": 3,
        "move_ft": 30,
        "stamina_max": 20,
        "injury_max": 10,
        "weapons": [{"name": "Dagger", "die": "d4", "style": "finesse"}],
    } | more


def orc(**more: Any) -> dict[str, Any]:
    return {
        "name": "Orc",
        "side": Side.OPPONENTS.value,
        "level": 1,
        "dex_bonus": 2,
        "armor": 2,
        "stamina_max": 30,
        "injury_max": 20,
    } | more


def face_to_face(ruleset: Ruleset, rogue_more: dict[str, Any], orc_more: dict[str, Any] | None = None) -> Engine:
    """The rogue stands in front of the orc, in its view, nobody else near: only concealment can let it sneak."""
    encounter = ruleset.new_encounter(
        map=MapGrid(width=10, height=10),
        combatants=[rogue(**rogue_more), orc(**(orc_more or {}))],
        tokens={"rogue": Token(cell=(5, 4), facing=SOUTH), "orc": Token(cell=(5, 5), facing=NORTH)},
    )
    engine = Engine(encounter, dice=ScriptedDice([]))
    if ruleset is CLASSIC:
        engine.start_combat(NONE, initiative_face=4)
    else:
        engine.start_combat("nobody ambushes", face=4)
    engine.begin_turn("rogue")
    return engine


def sneak(engine: Engine) -> AttackResolved:
    events = script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[20, 1, 1])
    return next(e for e in events if isinstance(e, AttackResolved))


def test_an_invisible_rogue_sneak_attacks_the_orc_in_front_of_it_without_the_flag() -> None:
    engine = face_to_face(LNL, {"conditions": ["invisible"]})
    checks = {ch.label: ch for ch in script.sneak_checks(engine, "rogue", "orc", "Dagger")}
    point = checks["Concealed, or the target distracted"]
    assert point.ok and point.reason == "Rogue is invisible and Orc cannot see invisible creatures"
    hit = sneak(engine)
    assert hit.direct and hit.damage == 2 + 3
    assert engine.encounter.combatant("orc").injury == 15


def test_an_orc_that_sees_invisible_creatures_is_not_sneaked_upon() -> None:
    engine = face_to_face(LNL, {"conditions": ["invisible"]}, {"conditions": ["sees invisible"]})
    e = engine.encounter
    hiding = engine.ruleset.attacks.concealment(e, e.combatant("rogue"), e.combatant("orc"))[0]
    assert not hiding.ok and hiding.reason == "Rogue is invisible, but Orc sees invisible creatures"
    with pytest.raises(IllegalAction, match="not concealed"):
        sneak(engine)
    assert engine.encounter.combatant("orc").injury == 20


def test_in_classic_an_invisible_rogue_is_hidden_from_the_orc() -> None:
    engine = face_to_face(CLASSIC, {"conditions": ["invisible"], "weapons": [{"name": "Dagger", "die": "d4"}]})
    hidden = next(
        ch for ch in script.sneak_checks(engine, "rogue", "orc", "Dagger") if ch.label.startswith("Hidden from")
    )
    assert hidden.ok
    events = script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[1, 1])
    assert any(isinstance(e, AttackResolved) for e in events)

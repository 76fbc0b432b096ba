"""Who may begin a turn, and each combatant's state this round, asked of the engine: the answers a
refused ``BeginTurn`` gives, and the words the Turns dock shows."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import Combatant, Encounter, Engine, IllegalAction, MapGrid, ScriptedDice, Side, Token, Weapon
from lnl_desktop.core.rules.classic import CLASSIC, ROLL

PARTY, OPP = Side.PARTY, Side.OPPONENTS


def fighter(name: str, side: Side = PARTY, **fields: Any) -> Combatant:
    data: dict[str, Any] = {
        "name": name,
        "side": side,
        "level": 1,
        "stamina_max": 20,
        "injury_max": 10,
        "weapons": [Weapon(name="Sword", die="d6")],
    }
    data.update(fields)
    return Combatant(**data)


def four(**ana: Any) -> Engine:
    """Ana and Bram of the Party, an Orc and a Goblin of the Opponents, far apart."""
    placed = [
        (fighter("Ana", **ana), (1, 1)),
        (fighter("Bram"), (1, 3)),
        (fighter("Orc", OPP), (8, 1)),
        (fighter("Goblin", OPP), (8, 3)),
    ]
    encounter = Encounter(
        map=MapGrid(width=12, height=12),
        combatants=[c for c, _ in placed],
        tokens={c.id: Token(cell=cell, facing=0) for c, cell in placed},
    )
    return Engine(encounter, dice=ScriptedDice([]))


def refused(engine: Engine, cid: str) -> list[str]:
    """What a ``BeginTurn`` of ``cid`` is refused with; the query says the same, before."""
    said = engine.turn_refusals(cid)
    with pytest.raises(IllegalAction) as caught:
        engine.begin_turn(cid)
    assert caught.value.reasons == said
    return said


def test_outside_a_fight_nobody_may_begin_and_nobody_has_a_state() -> None:
    engine = four()
    assert refused(engine, "ana") == ["combat has not started"]
    assert engine.turn_state("ana") == ""


def test_a_combatant_of_the_acting_side_may_begin_and_waits() -> None:
    engine = four()
    engine.start_combat("nobody ambushes", face=4)  # the Party acts first
    assert engine.turn_refusals("ana") == [] and engine.turn_state("ana") == "waiting"
    assert refused(engine, "orc") == ["the Party are acting now"]
    assert engine.turn_state("orc") == "waiting"


def test_a_turn_under_way_holds_up_everyone_else() -> None:
    engine = four()
    engine.start_combat("nobody ambushes", face=4)
    engine.begin_turn("ana")
    assert engine.turn_state("ana") == "acting now"
    assert refused(engine, "bram") == ["Ana's turn is still under way"]


def test_who_has_acted_waits_for_the_next_round() -> None:
    engine = four()
    engine.start_combat("nobody ambushes", face=4)
    engine.begin_turn("ana")
    engine.end_turn()
    assert engine.turn_state("ana") == "acted"
    assert refused(engine, "ana") == ["Ana has already acted this round"]


def test_a_combatant_down_takes_no_turn() -> None:
    engine = four(injury=0)
    engine.start_combat("nobody ambushes", face=4)
    assert engine.turn_state("ana") == "down"
    assert refused(engine, "ana") == ["Ana is down"]


def test_the_surprised_side_waits_out_round_1() -> None:
    engine = four()
    engine.start_combat("nobody ambushes", face=1)  # the Party is surprised
    assert engine.turn_state("ana") == "surprised"
    assert refused(engine, "ana") == ["Ana is surprised in round 1"]
    assert engine.turn_refusals("orc") == []


def test_classic_says_surprised_in_the_surprise_round_not_round_1() -> None:
    combatants = [
        {"name": "Ana", "side": PARTY.value, "level": 1, "stamina_max": 20, "injury_max": 10},
        {"name": "Orc", "side": OPP.value, "level": 1, "stamina_max": 20, "injury_max": 10},
    ]
    tokens = {"ana": Token(cell=(0, 0), facing=0), "orc": Token(cell=(6, 6), facing=0)}
    engine = Engine(CLASSIC.new_encounter(map=MapGrid(width=10, height=10), combatants=combatants, tokens=tokens))
    engine.start_combat(ROLL, face=1)  # the Opponents get a surprise round: round 0
    assert engine.encounter.combat.round == 0
    assert engine.turn_state("ana") == "surprised"
    assert refused(engine, "ana") == ["Ana is surprised in the surprise round"]
    assert engine.turn_refusals("orc") == [] and engine.turn_state("orc") == "waiting"

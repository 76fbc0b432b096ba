"""RULES §2-§4 through the engine: the turn order, movement, the one action, and sheet edits."""

from __future__ import annotations

import pytest

from lnl_desktop.core import (
    Combatant,
    Encounter,
    Engine,
    IllegalAction,
    MapGrid,
    RulesError,
    ScriptedDice,
    Side,
    SurpriseSituation,
    Token,
    Weapon,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import CombatantChanged, Moved, RoundEnded, TurnEnded, TurnStarted
from lnl_desktop.core.rules.lnl import script

PARTY, OPP = Side.PARTY, Side.OPPONENTS


def fighter(name: str, side: Side = PARTY, **fields) -> Combatant:
    data = {
        "name": name,
        "side": side,
        "level": 1,
        "stamina_max": 20,
        "injury_max": 10,
        "weapons": [Weapon(name="Sword", die="d6")],
    }
    data.update(fields)
    return Combatant(**data)


def make_engine(*placed, width=12, height=12, walls=(), difficult=(), faces=()) -> Engine:
    encounter = Encounter(
        map=MapGrid(width=width, height=height, walls=frozenset(walls), difficult=frozenset(difficult)),
        combatants=[c for c, _ in placed],
        tokens={c.id: Token(cell=cell, facing=0) for c, cell in placed},
    )
    return Engine(encounter, dice=ScriptedDice(faces))


def four() -> Engine:
    return make_engine(
        (fighter("Ana"), (1, 1)),
        (fighter("Bram"), (1, 3)),
        (fighter("Orc", OPP), (8, 1)),
        (fighter("Goblin", OPP), (8, 3)),
    )


def start(engine: Engine, first: Side = PARTY) -> None:
    engine.start_combat(SurpriseSituation.NOBODY, face=4 if first is PARTY else 2)


def alone(**fields) -> Engine:
    """Ana alone at (1, 1) with an orc far away, her turn begun."""
    engine = make_engine((fighter("Ana", **fields), (1, 1)), (fighter("Orc", OPP), (10, 10)))
    start(engine)
    engine.begin_turn("ana")
    return engine


def ids(combatants) -> list[str]:
    return sorted(c.id for c in combatants)


def reasons(excinfo) -> str:
    return " | ".join(excinfo.value.reasons)


# -- the round ---------------------------------------------------------------------------------


@pytest.mark.parametrize("first", [PARTY, OPP])
def test_only_the_acting_sides_members_may_begin_turns(first):
    engine = four()
    start(engine, first)
    members = {PARTY: ["ana", "bram"], OPP: ["goblin", "orc"]}
    assert engine.acting_side() is first
    assert ids(engine.waiting()) == members[first]
    for cid in members[first.other]:
        before = engine.encounter.model_dump()
        with pytest.raises(IllegalAction) as excinfo:
            engine.begin_turn(cid)
        assert f"the {first.value} are acting now" in reasons(excinfo)
        assert engine.encounter.model_dump() == before


@pytest.mark.parametrize("order", [["ana", "bram"], ["bram", "ana"]])
def test_a_side_takes_its_turns_in_any_order_then_the_other_side(order):
    engine = four()
    start(engine, PARTY)
    for cid in order:
        events = engine.begin_turn(cid)
        assert isinstance(events[0], TurnStarted) and events[0].combatant == cid
        assert engine.encounter.combat.turn.combatant == cid
        assert engine.waiting() == []  # nobody else starts while a turn is under way
        events = engine.end_turn()
        assert isinstance(events[0], TurnEnded)
    assert engine.encounter.combat.acted == order
    assert engine.acting_side() is OPP
    assert ids(engine.waiting()) == ["goblin", "orc"]


def test_one_turn_each_per_round():
    engine = four()
    start(engine, PARTY)
    engine.begin_turn("ana")
    engine.end_turn()
    with pytest.raises(IllegalAction) as excinfo:
        engine.begin_turn("ana")
    assert "already acted" in reasons(excinfo)


def test_no_second_turn_while_one_is_under_way():
    engine = four()
    start(engine, PARTY)
    engine.begin_turn("ana")
    with pytest.raises(IllegalAction) as excinfo:
        engine.begin_turn("bram")
    assert "Ana" in reasons(excinfo)
    assert engine.encounter.combat.turn.combatant == "ana"


def test_no_turn_before_combat_starts():
    engine = four()
    with pytest.raises(IllegalAction):
        engine.begin_turn("ana")
    assert engine.waiting() == []


def test_round_ends_when_everyone_acted_and_the_next_round_starts_fresh():
    engine = four()
    start(engine, PARTY)
    for cid in ["ana", "bram", "orc"]:
        engine.begin_turn(cid)
        assert not any(isinstance(e, RoundEnded) for e in engine.end_turn())
    engine.begin_turn("goblin")
    events = engine.end_turn()
    assert any(isinstance(e, RoundEnded) for e in events)
    assert engine.round_over
    assert engine.acting_side() is None and engine.waiting() == []
    with pytest.raises(IllegalAction) as excinfo:
        engine.begin_turn("ana")
    assert "already acted" in reasons(excinfo)
    engine.next_round(face=1)
    combat = engine.encounter.combat
    assert combat.round == 2
    assert combat.acted == []
    assert engine.elapsed_seconds == 6
    assert engine.acting_side() is OPP
    assert ids(engine.waiting()) == ["goblin", "orc"]
    engine.begin_turn("orc")
    engine.end_turn()


def test_next_round_refused_during_a_turn():
    engine = four()
    start(engine, PARTY)
    engine.begin_turn("ana")
    with pytest.raises(IllegalAction):
        engine.next_round(face=3)
    assert engine.encounter.combat.round == 1


def test_a_removed_combatant_gets_no_turn():
    engine = four()
    start(engine, PARTY)
    engine.apply(act.RemoveCombatant("bram"))
    assert ids(engine.waiting()) == ["ana"]
    engine.begin_turn("ana")
    engine.end_turn()
    assert engine.acting_side() is OPP


# -- movement -----------------------------------------------------------------------------------


def test_feet_used_and_left():
    engine = alone()
    assert engine.feet_left("ana") == 30
    assert engine.feet_left("orc") is None
    events = engine.move("ana", to=(3, 1))
    moved = events[0]
    assert isinstance(moved, Moved)
    assert moved.feet == 10 and moved.feet_left == 20 and not moved.forced
    assert moved.path[0] == (1, 1) and moved.path[-1] == (3, 1)
    assert engine.encounter.tokens["ana"].cell == (3, 1)
    assert engine.feet_left("ana") == 20
    assert engine.encounter.combat.turn.feet_used == 10


def test_diagonals_alternate_5_10_5():
    engine = alone()
    engine.move("ana", to=(3, 3))
    assert engine.feet_left("ana") == 15
    engine.move("ana", to=(4, 4))  # the third diagonal of the turn costs 5 again
    assert engine.feet_left("ana") == 10


def test_movement_split_around_the_action():
    engine = alone()
    engine.move("ana", to=(3, 1))
    engine.apply(act.OtherAction("ana", "takes aim"))
    engine.move("ana", to=(5, 1))
    engine.move("ana", to=(7, 1))
    turn = engine.encounter.combat.turn
    assert turn.feet_before == 10
    assert turn.feet_after == 20
    assert engine.feet_left("ana") == 0
    with pytest.raises(IllegalAction) as excinfo:
        engine.move("ana", to=(8, 1))
    assert "0 ft of movement left" in reasons(excinfo)
    ended = engine.end_turn()[0]
    assert ended.feet_used == 30


def test_move_past_move_is_refused_with_the_reason_and_changes_nothing():
    engine = alone()
    engine.move("ana", to=(2, 1))
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction) as excinfo:
        engine.move("ana", to=(8, 1))
    assert "needs 30 ft" in reasons(excinfo) and "25 ft of movement left" in reasons(excinfo)
    assert engine.encounter.model_dump() == before
    assert engine.feet_left("ana") == 25


def test_move_outside_ones_turn_is_refused():
    engine = four()
    start(engine, PARTY)
    engine.begin_turn("ana")
    with pytest.raises(IllegalAction):
        engine.move("bram", to=(2, 3))
    with pytest.raises(IllegalAction):
        engine.move("orc", to=(7, 1))
    assert engine.encounter.tokens["bram"].cell == (1, 3)


def test_walls_cannot_be_entered_or_crossed():
    # A wall from (3, 0) to (3, 3) with a gap at (3, 4): going round costs more than going straight.
    walls = {(3, y) for y in range(4)}
    engine = make_engine((fighter("Ana", move_ft=60), (1, 1)), (fighter("Orc", OPP), (10, 10)), walls=walls)
    start(engine)
    engine.begin_turn("ana")
    with pytest.raises(IllegalAction) as excinfo:
        engine.move("ana", to=(3, 1))
    assert "wall" in reasons(excinfo)
    with pytest.raises(IllegalAction) as excinfo:
        engine.move("ana", path=[(1, 1), (2, 1), (3, 1), (4, 1)])
    assert "wall" in reasons(excinfo)
    engine.move("ana", to=(5, 1))
    assert engine.encounter.tokens["ana"].cell == (5, 1)
    assert engine.feet_left("ana") < 60 - 20  # the straight line would have cost 20 ft
    assert all(cell not in walls for cell in engine.encounter.combat.turn.path)


def test_enemies_block_the_way():
    # A corridor one cell wide (y = 1) with an orc in it.
    walls = {(x, 0) for x in range(8)} | {(x, 2) for x in range(8)}
    engine = make_engine((fighter("Ana"), (1, 1)), (fighter("Orc", OPP), (3, 1)), width=8, height=3, walls=walls)
    start(engine)
    engine.begin_turn("ana")
    with pytest.raises(IllegalAction) as excinfo:
        engine.move("ana", path=[(1, 1), (2, 1), (3, 1), (4, 1)])
    assert "enemy" in reasons(excinfo)
    with pytest.raises(IllegalAction) as excinfo:
        engine.move("ana", to=(4, 1))
    assert "no way" in reasons(excinfo)
    with pytest.raises(IllegalAction) as excinfo:
        engine.move("ana", to=(3, 1))
    assert "taken by Orc" in reasons(excinfo)
    assert engine.encounter.tokens["ana"].cell == (1, 1)
    assert engine.feet_left("ana") == 30


def test_allies_can_be_passed_but_not_ended_on():
    walls = {(x, 0) for x in range(8)} | {(x, 2) for x in range(8)}
    engine = make_engine(
        (fighter("Ana"), (1, 1)),
        (fighter("Bram"), (3, 1)),
        (fighter("Orc", OPP), (7, 1)),
        width=8,
        height=3,
        walls=walls,
    )
    start(engine)
    engine.begin_turn("ana")
    with pytest.raises(IllegalAction) as excinfo:
        engine.move("ana", to=(3, 1))
    assert "taken by Bram" in reasons(excinfo)
    with pytest.raises(IllegalAction):
        engine.move("ana", path=[(1, 1), (2, 1), (3, 1)])
    engine.move("ana", path=[(1, 1), (2, 1), (3, 1), (4, 1)])
    assert engine.encounter.tokens["ana"].cell == (4, 1)
    assert engine.feet_left("ana") == 15


def test_forced_move_costs_nothing_but_is_logged():
    engine = four()
    start(engine, PARTY)
    engine.begin_turn("ana")
    events = engine.move("orc", to=(6, 1), forced=True)  # pushed back, not its turn
    moved = events[0]
    assert isinstance(moved, Moved) and moved.forced and moved.feet == 0
    assert moved in engine.encounter.log
    assert engine.encounter.tokens["orc"].cell == (6, 1)
    events = engine.move("ana", to=(1, 6), forced=True)
    assert events[0].forced and events[0].feet == 0
    assert engine.feet_left("ana") == 30
    assert engine.encounter.combat.turn.feet_used == 0


def test_forced_move_cannot_end_on_a_wall_or_an_occupied_cell():
    engine = make_engine((fighter("Ana"), (1, 1)), (fighter("Orc", OPP), (2, 1)), walls={(5, 5)})
    start(engine)
    with pytest.raises(IllegalAction):
        engine.move("orc", to=(5, 5), forced=True)
    with pytest.raises(IllegalAction):
        engine.move("orc", to=(1, 1), forced=True)
    assert engine.encounter.tokens["orc"].cell == (2, 1)


def test_dash_adds_a_full_move():
    engine = alone()
    engine.move("ana", to=(3, 1))
    script.dash(engine, "ana")
    assert engine.feet_left("ana") == 50
    engine.move("ana", to=(11, 1))
    assert engine.feet_left("ana") == 10
    assert engine.encounter.combat.turn.feet_after == 40


def test_leap_adds_half_a_move_and_ignores_difficult_terrain():
    difficult = {(x, 1) for x in range(2, 8)}
    engine = make_engine((fighter("Ana"), (1, 1)), (fighter("Orc", OPP), (10, 10)), difficult=difficult)
    start(engine)
    engine.begin_turn("ana")
    script.leap(engine, "ana")
    assert engine.feet_left("ana") == 45
    engine.move("ana", path=[(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1)])
    assert engine.feet_left("ana") == 20  # 25 ft at normal cost


def test_difficult_terrain_costs_double_without_a_leap():
    difficult = {(x, 1) for x in range(2, 8)}
    engine = make_engine((fighter("Ana"), (1, 1)), (fighter("Orc", OPP), (10, 10)), difficult=difficult)
    start(engine)
    engine.begin_turn("ana")
    engine.move("ana", path=[(1, 1), (2, 1), (3, 1)])
    assert engine.feet_left("ana") == 10
    with pytest.raises(IllegalAction):
        engine.move("ana", path=[(3, 1), (4, 1), (5, 1)])


def test_leap_crosses_an_obstacle():
    walls = {(3, y) for y in range(12)}
    engine = make_engine((fighter("Ana"), (2, 1)), (fighter("Orc", OPP), (10, 10)), walls=walls)
    start(engine)
    engine.begin_turn("ana")
    with pytest.raises(IllegalAction):
        engine.move("ana", path=[(2, 1), (3, 1), (4, 1)])
    script.leap(engine, "ana")
    engine.move("ana", path=[(2, 1), (3, 1), (4, 1)])
    assert engine.encounter.tokens["ana"].cell == (4, 1)


# -- one action per turn ------------------------------------------------------------------------


def test_one_action_per_turn():
    engine = make_engine((fighter("Ana"), (1, 1)), (fighter("Orc", OPP), (2, 1)))
    start(engine)
    engine.begin_turn("ana")
    script.attack(engine, "ana", "orc", "Sword", faces=[2])
    for attempt in (
        lambda: script.attack(engine, "ana", "orc", "Sword", faces=[2]),
        lambda: script.parry(engine, "ana", weapon="Sword"),
        lambda: script.dash(engine, "ana"),
        lambda: script.leap(engine, "ana"),
        lambda: engine.apply(act.OtherAction("ana", "grapple")),
    ):
        before = engine.encounter.model_dump()
        with pytest.raises(IllegalAction) as excinfo:
            attempt()
        assert "already took its action (attack)" in reasons(excinfo)
        assert engine.encounter.model_dump() == before
    assert engine.encounter.combatant("orc").stamina == 18


def test_dash_is_the_action_of_the_turn():
    engine = alone()
    script.dash(engine, "ana")
    with pytest.raises(IllegalAction):
        script.dash(engine, "ana")
    assert engine.feet_left("ana") == 60


def test_the_action_is_back_next_turn():
    engine = make_engine((fighter("Ana"), (1, 1)), (fighter("Orc", OPP), (2, 1)))
    start(engine)
    engine.begin_turn("ana")
    script.attack(engine, "ana", "orc", "Sword", faces=[2])
    engine.end_turn()
    engine.begin_turn("orc")
    engine.end_turn()
    engine.next_round(face=6)
    engine.begin_turn("ana")
    script.attack(engine, "ana", "orc", "Sword", faces=[3])
    assert engine.encounter.combatant("orc").stamina == 15


def test_a_free_text_action_is_logged():
    engine = alone()
    events = engine.apply(act.OtherAction("ana", "reloads the crossbow"))
    assert "reloads the crossbow" in events[0].text
    assert events[0] in engine.encounter.log


# -- editing a sheet ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"level": 0}, "Level"),
        ({"move_ft": -5}, "Move"),
        ({"weapons": [{"name": "Odd", "die": "d7"}]}, "Die"),
        ({"stamina": 21}, "SP"),
        ({"injury": 11}, "IP"),
        ({"vision_deg": 0}, "Field of vision"),
    ],
)
def test_a_bad_edit_is_refused_naming_the_field_and_changes_nothing(changes, field):
    engine = four()
    start(engine)
    before = engine.encounter.model_dump()
    last_undo = engine.undo_text
    with pytest.raises(RulesError) as excinfo:
        engine.edit("ana", **changes)
    assert field in str(excinfo.value)
    assert any(field in r for r in excinfo.value.reasons)
    assert engine.encounter.model_dump() == before
    assert engine.undo_text == last_undo


def test_a_good_edit_is_applied_and_logged():
    engine = four()
    events = engine.edit("ana", level=3, stamina=12)
    changed = {e.field: (e.old, e.new) for e in events if isinstance(e, CombatantChanged)}
    assert changed == {"level": ("1", "3"), "stamina": ("20", "12")}
    ana = engine.encounter.combatant("ana")
    assert ana.level == 3 and ana.stamina == 12 and ana.dice_count == 2


def test_an_edit_cannot_change_the_id():
    engine = four()
    with pytest.raises(IllegalAction):
        engine.edit("ana", id="anna")
    assert engine.encounter.combatant("ana").name == "Ana"

"""RULES §2: the first round's d6 read with the surprise table, and plain initiative after it."""

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
    Trait,
)
from lnl_desktop.core.encounter.events import CombatStarted, InitiativeRolled

PARTY, OPP = Side.PARTY, Side.OPPONENTS
NOBODY = SurpriseSituation.NOBODY
OPP_AMBUSH = SurpriseSituation.OPPONENTS_AMBUSH
PARTY_AMBUSH = SurpriseSituation.PARTY_AMBUSH
REVERSE = SurpriseSituation.REVERSE

# RULES §2, cell by cell: (situation, face) -> (side acting first, surprised side or None).
TABLE: dict[tuple[SurpriseSituation, int], tuple[Side, Side | None]] = {
    (NOBODY, 1): (OPP, PARTY),
    (NOBODY, 2): (OPP, None),
    (NOBODY, 3): (OPP, None),
    (NOBODY, 4): (PARTY, None),
    (NOBODY, 5): (PARTY, None),
    (NOBODY, 6): (PARTY, OPP),
    (OPP_AMBUSH, 1): (OPP, PARTY),
    (OPP_AMBUSH, 2): (OPP, PARTY),
    (OPP_AMBUSH, 3): (OPP, None),
    (OPP_AMBUSH, 4): (PARTY, None),
    (OPP_AMBUSH, 5): (PARTY, None),
    (OPP_AMBUSH, 6): (PARTY, None),
    (PARTY_AMBUSH, 1): (OPP, None),
    (PARTY_AMBUSH, 2): (OPP, None),
    (PARTY_AMBUSH, 3): (OPP, None),
    (PARTY_AMBUSH, 4): (PARTY, None),
    (PARTY_AMBUSH, 5): (PARTY, OPP),
    (PARTY_AMBUSH, 6): (PARTY, OPP),
}

# Two ordinary members and one who cannot be surprised on each side.
MEMBERS = {
    PARTY: ["ana", "bram", "watcher"],
    OPP: ["orc", "goblin", "sentry"],
}
AWAKE = {PARTY: "watcher", OPP: "sentry"}


def make_engine(faces=()) -> Engine:
    combatants = []
    tokens = {}
    for row, side in enumerate((PARTY, OPP)):
        for col, cid in enumerate(MEMBERS[side]):
            traits = [Trait.CANNOT_BE_SURPRISED] if cid == AWAKE[side] else []
            combatants.append(
                Combatant(name=cid.title(), id=cid, side=side, level=1, stamina_max=10, injury_max=5, traits=traits)
            )
            tokens[cid] = Token(cell=(col * 2, row * 6), facing=0)
    encounter = Encounter(map=MapGrid(width=10, height=10), combatants=combatants, tokens=tokens)
    return Engine(encounter, dice=ScriptedDice(faces))


def ids(combatants: list[Combatant]) -> set[str]:
    return {c.id for c in combatants}


def take_turns(engine: Engine, cids) -> None:
    for cid in cids:
        engine.begin_turn(cid)
        engine.end_turn()


@pytest.mark.parametrize(("situation", "face"), list(TABLE))
def test_surprise_table_cell(situation, face):
    first, surprised = TABLE[(situation, face)]
    second = first.other
    engine = make_engine()
    events = engine.start_combat(situation, face=face)

    started = [e for e in events if isinstance(e, CombatStarted)]
    assert len(started) == 1
    assert started[0].face == face
    assert started[0].first_side == first.value
    assert started[0].surprised_side == (surprised.value if surprised else None)
    assert started[0] in engine.encounter.log
    combat = engine.encounter.combat
    assert combat.round == 1
    assert combat.first_side is first
    assert combat.surprised_side is surprised

    # Who is surprised: every member of the surprised side except the one who cannot be.
    for c in engine.encounter.combatants:
        expected = c.side is surprised and c.id != AWAKE[c.side]
        assert c.surprised is expected, c.id

    # The first side acts first, all its members, in any order.
    assert engine.acting_side() is first
    assert ids(engine.waiting()) == set(MEMBERS[first])
    for cid in MEMBERS[second]:
        with pytest.raises(IllegalAction) as excinfo:
            engine.begin_turn(cid)
        if surprised is second and cid != AWAKE[second]:
            assert any("surprised" in r for r in excinfo.value.reasons), cid
        else:
            assert any(f"{first.value} are acting now" in r for r in excinfo.value.reasons), cid
    take_turns(engine, reversed(MEMBERS[first]))

    # Then the other side: only the member who cannot be surprised when it is the surprised side.
    assert engine.acting_side() is second
    if surprised is second:
        assert ids(engine.waiting()) == {AWAKE[second]}
        for cid in MEMBERS[second]:
            if cid != AWAKE[second]:
                with pytest.raises(IllegalAction) as excinfo:
                    engine.begin_turn(cid)
                assert any("surprised" in r for r in excinfo.value.reasons)
                assert not engine.may_act(engine.combatant(cid))
        take_turns(engine, [AWAKE[second]])
    else:
        assert ids(engine.waiting()) == set(MEMBERS[second])
        take_turns(engine, MEMBERS[second])
    assert engine.round_over
    assert engine.acting_side() is None
    assert engine.waiting() == []


def test_surprise_die_is_rolled_from_the_dice_source_when_no_face_is_given():
    engine = make_engine(faces=[6])
    engine.start_combat(NOBODY)
    combat = engine.encounter.combat
    assert combat.initiative_face == 6
    assert combat.first_side is PARTY and combat.surprised_side is OPP


@pytest.mark.parametrize(("first", "surprised"), [(OPP, PARTY), (PARTY, OPP), (OPP, None), (PARTY, None)])
def test_reverse_ambush_set_by_hand(first, surprised):
    engine = make_engine()  # no dice: a reverse ambush rolls nothing
    events = engine.start_combat(REVERSE, first_side=first, surprised_side=surprised)
    started = next(e for e in events if isinstance(e, CombatStarted))
    assert started.face is None
    assert started.situation == REVERSE.value
    assert engine.encounter.combat.first_side is first
    assert engine.encounter.combat.surprised_side is surprised
    assert engine.acting_side() is first
    assert ids(engine.waiting()) == set(MEMBERS[first])
    take_turns(engine, MEMBERS[first])
    if surprised is None:
        assert ids(engine.waiting()) == set(MEMBERS[first.other])
    else:
        assert ids(engine.waiting()) == {AWAKE[surprised]}
        assert {c.id for c in engine.encounter.combatants if c.surprised} == set(MEMBERS[surprised]) - {
            AWAKE[surprised]
        }


def test_reverse_ambush_needs_the_gm_to_say_who_acts_first():
    engine = make_engine()
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction):
        engine.start_combat(REVERSE)
    assert engine.encounter.model_dump() == before


def test_reverse_ambush_refuses_a_surprised_side_that_acts_first():
    engine = make_engine()
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction) as excinfo:
        engine.start_combat(REVERSE, first_side=PARTY, surprised_side=PARTY)
    assert excinfo.value.reasons
    assert engine.encounter.model_dump() == before


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize(("situation", "first_face"), [(NOBODY, 1), (NOBODY, 6), (OPP_AMBUSH, 2), (PARTY_AMBUSH, 5)])
def test_from_round_2_plain_initiative_and_nobody_surprised(situation, first_face, face):
    engine = make_engine()
    engine.start_combat(situation, face=first_face)
    assert any(c.surprised for c in engine.encounter.combatants)
    events = engine.next_round(face=face)
    first = OPP if face <= 3 else PARTY
    rolled = [e for e in events if isinstance(e, InitiativeRolled)]
    assert len(rolled) == 1 and rolled[0].face == face and rolled[0].first_side == first.value
    assert rolled[0].round == 2
    combat = engine.encounter.combat
    assert combat.round == 2
    assert combat.first_side is first
    assert combat.surprised_side is None
    assert not any(c.surprised for c in engine.encounter.combatants)
    assert engine.acting_side() is first
    assert ids(engine.waiting()) == set(MEMBERS[first])
    take_turns(engine, MEMBERS[first])
    assert ids(engine.waiting()) == set(MEMBERS[first.other])
    take_turns(engine, MEMBERS[first.other])
    assert engine.round_over


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_round_3_uses_the_plain_initiative_roll_too(face):
    engine = make_engine(faces=[1, 6, face])
    engine.start_combat(NOBODY)  # rolls the 1: Party surprised
    engine.next_round()  # rolls the 6
    assert engine.encounter.combat.first_side is PARTY
    engine.next_round()
    assert engine.encounter.combat.round == 3
    assert engine.encounter.combat.initiative_face == face
    assert engine.acting_side() is (OPP if face <= 3 else PARTY)
    assert not any(c.surprised for c in engine.encounter.combatants)


@pytest.mark.parametrize("bad", [0, 7])
def test_a_typed_face_that_a_d6_does_not_have_is_refused_as_a_rules_error(bad):
    engine = make_engine()
    before = engine.encounter.model_dump()
    with pytest.raises(RulesError):
        engine.start_combat(NOBODY, face=bad)
    assert engine.encounter.model_dump() == before
    engine.start_combat(NOBODY, face=4)
    take_turns(engine, MEMBERS[PARTY] + MEMBERS[OPP])
    before = engine.encounter.model_dump()
    with pytest.raises(RulesError):
        engine.next_round(face=bad)
    assert engine.encounter.model_dump() == before

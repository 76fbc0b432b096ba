"""L&L Classic (RULES §11): every difference from L&L, as the GM sees it at the table.

The worked example of the earlier edition (``000``) reproduces exactly; then each difference in
turn: the surprise round, WIS and Defense Points, no ranged minimum, all damage to SP first, no
exertion, the Classic sneak attack, converting an L&L encounter, and the files. Dice are
scripted, so each test says exactly which faces the table would read; where L&L behaves
otherwise, the same situation is played in L&L too, to show the difference and its reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from lnl_desktop.core import (
    Ability,
    AttackMode,
    AttackResolved,
    ClassicCombatant,
    ClassicOptions,
    Combatant,
    Engine,
    IllegalAction,
    MapGrid,
    RulesError,
    ScriptedDice,
    Side,
    Token,
    Trait,
    Weapon,
    WeaponState,
    resolve_attack,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import (
    CombatStarted,
    InitiativeRolled,
    Override,
    RulesetChanged,
    Undone,
    WentDown,
)
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.storage import EncounterFileError
from lnl_desktop.core.rules.bestiary import read_bestiary
from lnl_desktop.core.rules.classic import CLASSIC, NONE, OPPONENTS, PARTY, ROLL
from lnl_desktop.core.rules.lnl import LNL, script
from lnl_desktop.core.rules.lnl.examples import GIANT_FACES, TOMBRIL_FACES
from lnl_desktop.core.rules.lnl.model import Attack, ExertionSpent, WeaponBroken
from lnl_desktop.core.rules.registry import Ruleset
from lnl_desktop.paths import resource

PTY, OPP = Side.PARTY, Side.OPPONENTS
ATTACK, POWER, SNEAK, SNEAK_POWER = AttackMode.ATTACK, AttackMode.POWER, AttackMode.SNEAK, AttackMode.SNEAK_POWER
NORTH, EAST, SOUTH, WEST = 0, 90, 180, 270


# -- helpers -------------------------------------------------------------------------------------


def classic(name: str, side: Side = PTY, **fields: Any) -> ClassicCombatant:
    """A plain Classic combatant: level 1, no bonuses, no armor, 20 SP, 10 IP, unless told otherwise."""
    data: dict[str, Any] = {"name": name, "side": side, "level": 1, "stamina_max": 20, "injury_max": 10}
    data.update(fields)
    return ClassicCombatant(**data)


def tombril() -> ClassicCombatant:
    """000: level 9, STR +8, DEX +5, armor 3 AP (8 Defense Points), 55 SP, a +2 short sword (d6)."""
    return classic(
        "Tombril",
        level=9,
        str_bonus=8,
        dex_bonus=5,
        armor=3,
        stamina_max=55,
        injury_max=14,
        weapons=[Weapon(name="Shortsword", die="d6", magic_bonus=2)],
    )


def hill_giant() -> ClassicCombatant:
    """000: level 12, STR +9, DEX +3, tough skin 1 AP (4 Defense Points), 68 SP, a club (d6)."""
    return classic(
        "Hill Giant",
        OPP,
        level=12,
        str_bonus=9,
        dex_bonus=3,
        armor=1,
        stamina_max=68,
        injury_max=30,
        weapons=[Weapon(name="Club", die="d6")],
    )


def engine_for(ruleset: Ruleset, *placed: tuple[dict[str, Any], tuple[int, int], int], walls=()) -> Engine:
    """An engine of ``ruleset`` whose own dice are empty: every roll must be scripted by the test.

    Each combatant is a dict of fields both editions share (no AWA nor WIS unless the test says).
    """
    encounter = ruleset.new_encounter(
        map=MapGrid(width=14, height=14, walls=frozenset(walls)),
        combatants=[data for data, _, _ in placed],
        tokens={data.get("id", data["name"].lower()): Token(cell=cell, facing=facing) for data, cell, facing in placed},
    )
    return Engine(encounter, dice=ScriptedDice([]))


def fighter(name: str, side: Side = PTY, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"name": name, "side": side.value, "level": 1, "stamina_max": 20, "injury_max": 10}
    data.update(fields)
    return data


def start(engine: Engine, first: Side) -> None:
    """Round 1 with no surprise (the GM's hand): initiative 4 puts the Party first, 2 the Opponents."""
    if engine.ruleset is CLASSIC:
        engine.start_combat(NONE, initiative_face=4 if first is PTY else 2)
    else:
        engine.start_combat("nobody ambushes", face=4 if first is PTY else 2)
    assert engine.encounter.combat.round == 1
    assert engine.acting_side() is first


def resolved(events) -> AttackResolved:
    found = [e for e in events if isinstance(e, AttackResolved)]
    assert len(found) == 1
    return found[0]


def demo() -> Any:
    return storage.load(resource("encounters", CLASSIC.demo() or "missing"))


def without_log(engine: Engine) -> dict[str, Any]:
    dump = engine.encounter.model_dump()
    del dump["log"]
    return dump


# -- the worked example of 000: 31, then 43 --------------------------------------------------------


def test_000_tombril_hits_the_giant_for_31_leaving_it_37_sp():
    dice = ScriptedDice(TOMBRIL_FACES)
    out = resolve_attack(tombril(), hill_giant(), "Shortsword", dice, ruleset="classic")
    assert out.dice_count == 5
    assert [f.face for f in out.faces] == [5, 3, 4, 3, 2]
    assert out.dice_total == 17
    assert out.magic_term == 10  # +2 on each of the 5 dice
    assert out.ability == "STR" and out.ability_term == 8  # 17 + 10 + 8 = 35
    assert out.dex_term + out.ap_term == hill_giant().defense_points == 4
    assert out.damage == 31
    assert not out.direct
    assert (out.application.to_sp, out.application.to_ip) == (31, 0)
    assert out.application.stamina_after == 37
    assert out.exertion_face is None and out.exertion_cost == 0
    assert dice.remaining == []


def test_000_the_giant_answers_for_43_leaving_tombril_12_sp():
    dice = ScriptedDice(GIANT_FACES)
    out = resolve_attack(hill_giant(), tombril(), "Club", dice, ruleset="classic")
    assert out.dice_count == 6
    assert [f.face for f in out.faces] == [6, 5, 3, 6, 2, 6, 5, 1, 6, 2]
    assert out.explosions == 4  # three 6s, and the 6 one of them exploded into
    assert out.dice_total == 42
    assert out.ability_term == 9  # 42 + 9 = 51
    assert out.dex_term + out.ap_term == tombril().defense_points == 8
    assert out.damage == 43
    assert (out.application.to_sp, out.application.to_ip) == (43, 0)
    assert out.application.stamina_after == 12
    assert out.application.injury_after == 14
    assert dice.remaining == []


def test_the_public_api_refuses_an_l_and_l_stat_block_for_a_classic_attack():
    lnl_giant = Combatant(name="Hill Giant", side=OPP, level=12, stamina_max=68, injury_max=30)
    with pytest.raises(RulesError, match="not a ClassicCombatant of L&L Classic"):
        resolve_attack(tombril(), lnl_giant, "Shortsword", ScriptedDice(TOMBRIL_FACES), ruleset="classic")


def test_the_classic_demo_is_the_000_fight_in_setup():
    path = resource("encounters", "hill-giant-classic.lnl")
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["version"] == 2 and storage.VERSION == 3  # an older file reads as it is
    assert raw["encounter"]["ruleset"] == "classic"
    encounter = demo()
    assert "Classic demo" in encounter.name
    assert encounter.ruleset == "classic"
    assert encounter.combat.phase is Phase.SETUP
    assert set(encounter.tokens) == {c.id for c in encounter.combatants}
    t, g = encounter.combatant("tombril"), encounter.combatant("hill-giant")
    assert isinstance(t, ClassicCombatant) and isinstance(g, ClassicCombatant)
    assert (t.level, t.str_bonus, t.dex_bonus, t.armor_points, t.stamina, t.defense_points) == (9, 8, 5, 3, 55, 8)
    assert (t.weapon("Shortsword").die, t.weapon("Shortsword").magic_bonus) == ("d6", 2)
    assert (g.level, g.str_bonus, g.dex_bonus, g.armor_points, g.stamina, g.defense_points) == (12, 9, 3, 1, 68, 4)
    assert (g.weapon("Club").die, g.weapon("Club").magic_bonus) == ("d6", 0)
    assert t.side is PTY and g.side is OPP and g.size == 2
    lnl_demo = storage.load(resource("encounters", "hill-giant.lnl"))
    assert (encounter.map.width, encounter.map.height) == (lnl_demo.map.width, lnl_demo.map.height)


def test_000_fight_on_the_classic_demo_with_typed_faces():
    engine = Engine(demo(), dice=ScriptedDice([]))
    # No surprise (d6 3), then "a 5 on the Initiative Die in the first round indicates that Tombril goes first".
    started = engine.start_combat(ROLL, face=3, initiative_face=5)[0]
    assert isinstance(started, CombatStarted)
    assert "Surprise d6 3" in started.text and "Round 1: initiative 5, Party acts first" in started.text
    assert engine.encounter.combat.round == 1 and engine.acting_side() is PTY

    engine.begin_turn("tombril")
    engine.move("tombril", (14, 6))  # up to the Giant, 30 ft
    hit = resolved(script.attack(engine, "tombril", "hill-giant", "Shortsword", faces=TOMBRIL_FACES))
    assert (hit.dice_total, hit.damage, hit.to_sp, hit.to_ip, hit.target_sp) == (17, 31, 31, 0, 37)
    assert "31" in hit.text and "Hill Giant: 37 SP" in hit.text
    engine.end_turn()

    engine.begin_turn("hill-giant")
    events = script.attack(engine, "hill-giant", "tombril", "Club", faces=GIANT_FACES)
    answer = resolved(events)
    assert (answer.dice_total, answer.damage, answer.to_sp, answer.target_sp) == (42, 43, 43, 12)
    assert "Tombril: 12 SP" in answer.text
    assert not any(isinstance(e, ExertionSpent) for e in engine.encounter.log)
    engine.end_turn()
    assert engine.combatant("tombril").stamina == 12
    assert engine.combatant("hill-giant").stamina == 37

    # "Round 2 ... starting with Initiative being rerolled. Tombril is lucky and gets to go first again."
    rolled = [e for e in engine.next_round(face=6) if isinstance(e, InitiativeRolled)]
    assert rolled[0].round == 2 and rolled[0].first_side == "Party"
    assert engine.acting_side() is PTY


# -- surprise: a d6 of its own before round 1 -------------------------------------------------------

# Two ordinary members and one who cannot be surprised on each side.
MEMBERS = {PTY: ["ana", "bram", "watcher"], OPP: ["orc", "goblin", "sentry"]}
AWAKE = {PTY: "watcher", OPP: "sentry"}


def sides_engine(faces=()) -> Engine:
    combatants, tokens = [], {}
    for row, side in enumerate((PTY, OPP)):
        for col, cid in enumerate(MEMBERS[side]):
            traits = [Trait.CANNOT_BE_SURPRISED.value] if cid == AWAKE[side] else []
            combatants.append(fighter(cid.title(), side, id=cid, traits=traits))
            tokens[cid] = Token(cell=(col * 2, row * 6), facing=0)
    encounter = CLASSIC.new_encounter(map=MapGrid(width=10, height=10), combatants=combatants, tokens=tokens)
    return Engine(encounter, dice=ScriptedDice(faces))


def take_turns(engine: Engine, cids) -> None:
    for cid in cids:
        engine.begin_turn(cid)
        engine.end_turn()


def refusal(engine: Engine, cid: str) -> list[str]:
    with pytest.raises(IllegalAction) as caught:
        engine.begin_turn(cid)
    return caught.value.reasons


def surprised_refusal(engine: Engine, cid: str) -> None:
    """The GM is told the member is surprised, in the surprise round."""
    assert refusal(engine, cid) == [f"{cid.title()} is surprised in the surprise round"]


def play_surprise_round(engine: Engine, surprising: Side) -> None:
    """Only the surprising side takes turns; then the member who cannot be surprised; then it is over."""
    surprised = surprising.other
    combat = engine.encounter.combat
    assert (combat.round, combat.first_round, combat.round_name) == (0, 0, "Surprise round")
    assert combat.first_side is surprising and combat.surprised_side is surprised
    for c in engine.encounter.combatants:
        assert c.surprised is (c.side is surprised and c.id != AWAKE[surprised]), c.id
    assert engine.acting_side() is surprising
    assert {c.id for c in engine.waiting()} == set(MEMBERS[surprising])
    for cid in MEMBERS[surprised]:
        if cid == AWAKE[surprised]:
            assert refusal(engine, cid) == [f"the {surprising.value} are acting now"]
        else:
            surprised_refusal(engine, cid)
    take_turns(engine, reversed(MEMBERS[surprising]))
    # The member who cannot be surprised acts after the surprising side; nobody else of its side.
    assert {c.id for c in engine.waiting()} == {AWAKE[surprised]}
    for cid in MEMBERS[surprised]:
        if cid != AWAKE[surprised]:
            surprised_refusal(engine, cid)
    take_turns(engine, [AWAKE[surprised]])
    assert engine.round_over


@pytest.mark.parametrize(("face", "surprising"), [(1, OPP), (6, PTY)])
def test_surprise_d6_1_or_6_gives_one_side_a_surprise_round(face, surprising):
    engine = sides_engine()
    events = engine.start_combat(ROLL, face=face)
    started = events[0]
    assert isinstance(started, CombatStarted)
    assert started.round == 0 and started.face == face
    assert started.first_side == surprising.value and started.surprised_side == surprising.other.value
    verb, acts = ("get", "act") if surprising is OPP else ("gets", "acts")
    assert started.text == (
        f"Surprise d6 {face}: the {surprising.value} {verb} a surprise round: only the {surprising.value} {acts}"
    )
    assert isinstance(events[1], Override) and AWAKE[surprising.other].title() in events[1].text
    play_surprise_round(engine, surprising)


@pytest.mark.parametrize("face", [2, 3, 4, 5])
@pytest.mark.parametrize(("initiative", "first"), [(2, OPP), (5, PTY)])
def test_surprise_d6_2_to_5_no_surprise_round_and_round_1_initiative_read_right_after(face, initiative, first):
    engine = sides_engine()
    started = engine.start_combat(ROLL, face=face, initiative_face=initiative)[0]
    assert started.text == (
        f"Surprise d6 {face}: no surprise round. Round 1: initiative {initiative}, {first.acts_first}"
    )
    combat = engine.encounter.combat
    assert (combat.round, combat.first_round, combat.round_name) == (1, 1, "Round 1")
    assert combat.first_side is first and combat.surprised_side is None
    assert combat.initiative_face == initiative
    assert not any(c.surprised for c in engine.encounter.combatants)
    assert {c.id for c in engine.waiting()} == set(MEMBERS[first])
    take_turns(engine, MEMBERS[first])
    assert {c.id for c in engine.waiting()} == set(MEMBERS[first.other])


def test_rolled_surprise_reads_the_initiative_die_only_when_there_is_no_surprise_round():
    procedure = CLASSIC.rounds.start_procedure()
    assert [s.key for s in procedure.situations] == [ROLL, PARTY, OPPONENTS, NONE]
    assert [procedure.then_initiative(ROLL, face) for face in range(1, 7)] == [False, True, True, True, True, False]
    assert procedure.then_initiative(NONE, None) and not procedure.then_initiative(PARTY, None)
    assert procedure.reading(ROLL, 1) == "The Opponents get a surprise round"
    assert procedure.reading(ROLL, 6) == "The Party gets a surprise round"

    dice = ScriptedDice([4, 2])  # surprise 4: none; initiative 2: the Opponents first
    engine = sides_engine()
    engine.apply(act.StartCombat(ROLL), dice)
    assert dice.remaining == []
    assert engine.encounter.combat.first_side is OPP and engine.encounter.combat.round == 1

    dice = ScriptedDice([6, 2])  # surprise 6: the Party's surprise round, no initiative die read
    engine = sides_engine()
    engine.apply(act.StartCombat(ROLL), dice)
    assert dice.remaining == [2]
    assert engine.encounter.combat.round == 0 and engine.encounter.combat.first_side is PTY


@pytest.mark.parametrize(("situation", "surprising"), [(PARTY, PTY), (OPPONENTS, OPP)])
def test_the_gm_grants_a_surprise_round_by_hand(situation, surprising):
    engine = sides_engine()  # no dice: nothing is rolled
    started = engine.start_combat(situation)[0]
    assert started.face is None
    verb, acts = ("get", "act") if surprising is OPP else ("gets", "acts")
    assert (
        started.text
        == f"Surprise (GM): the {surprising.value} {verb} a surprise round: only the {surprising.value} {acts}"
    )
    play_surprise_round(engine, surprising)


def test_the_gm_rules_out_surprise_and_round_1_reads_its_initiative():
    engine = sides_engine()
    started = engine.start_combat(NONE, initiative_face=3)[0]
    assert started.text == "No surprise (GM). Round 1: initiative 3, Opponents act first"
    assert engine.encounter.combat.round == 1 and engine.acting_side() is OPP


@pytest.mark.parametrize(("face", "first"), [(1, OPP), (3, OPP), (4, PTY), (6, PTY)])
def test_after_the_surprise_round_round_1_starts_with_a_normal_initiative_roll(face, first):
    engine = sides_engine()
    engine.start_combat(ROLL, face=6)  # the Party's surprise round
    assert engine.elapsed_seconds == 0
    play_surprise_round(engine, PTY)
    events = engine.next_round(face=face)
    rolled = [e for e in events if isinstance(e, InitiativeRolled)]
    assert len(rolled) == 1 and rolled[0].round == 1 and rolled[0].face == face
    assert rolled[0].text == f"Round 1: initiative {face}, {first.acts_first}"
    combat = engine.encounter.combat
    assert (combat.round, combat.round_name) == (1, "Round 1")
    assert combat.first_side is first and combat.surprised_side is None
    assert not any(c.surprised for c in engine.encounter.combatants)
    # Everyone acts in round 1, the surprised side included.
    assert {c.id for c in engine.waiting()} == set(MEMBERS[first])
    take_turns(engine, MEMBERS[first])
    assert {c.id for c in engine.waiting()} == set(MEMBERS[first.other])
    # Elapsed time counts the surprise round: 6 seconds are gone when round 1 begins.
    assert engine.elapsed_seconds == 6
    take_turns(engine, MEMBERS[first.other])
    engine.next_round(face=4)
    assert engine.elapsed_seconds == 12


def test_without_a_surprise_round_no_time_has_passed_in_round_1():
    engine = sides_engine()
    engine.start_combat(ROLL, face=3, initiative_face=4)
    assert engine.elapsed_seconds == 0


def test_l_and_l_ambush_situations_do_not_exist_in_classic():
    engine = sides_engine()
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction) as caught:
        engine.start_combat("Opponents ambush", face=1)
    (reason,) = caught.value.reasons
    assert reason.startswith("'Opponents ambush' is not a situation of L&L Classic")
    assert ROLL in reason and NONE in reason
    assert engine.encounter.model_dump() == before


@pytest.mark.parametrize("bad", [0, 7])
def test_a_surprise_face_a_d6_does_not_have_is_refused(bad):
    engine = sides_engine()
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction, match=f"{bad} is not a face of a d6"):
        engine.start_combat(ROLL, face=bad)
    assert engine.encounter.model_dump() == before


# -- WIS instead of AWA; Defense Points ------------------------------------------------------------


def test_ranged_damage_adds_wis():
    archer = classic("Archer", wis_bonus=3, weapons=[Weapon(name="Bow", die="d6", kind="ranged")])
    target = classic("Target", OPP, dex_bonus=1, armor=1)
    out = resolve_attack(archer, target, "Bow", ScriptedDice([4]), ruleset="classic")
    assert out.ability == "WIS" and out.ability_term == 3
    assert out.damage == 4 + 3 - 1 - 1 == 5


def test_awa_does_not_exist_in_classic():
    with pytest.raises(ValidationError, match="awa_bonus"):
        classic("Seer", awa_bonus=2)
    seer = classic("Seer", wis_bonus=2)
    assert seer.bonus(Ability.WIS) == 2
    with pytest.raises(RulesError, match="Seer has no AWA in this ruleset"):
        seer.bonus(Ability.AWA)
    assert ClassicCombatant.abilities() == (Ability.STR, Ability.DEX, Ability.WIS)
    with pytest.raises(ValidationError, match="this stat block has no AWA"):
        classic("Seer", spells=[{"name": "Mind Spike", "die": "d6", "ability": "AWA"}])
    # Through the engine: a new Classic combatant with an AWA bonus is refused, naming the field.
    engine = engine_for(CLASSIC)
    with pytest.raises(RulesError, match="awa_bonus"):
        engine.apply(act.AddCombatant(fighter("Seer", awa_bonus=2)))
    assert engine.encounter.combatants == []


@pytest.mark.parametrize(
    ("dex", "armor", "shield", "dp"),
    [(5, 3, None, 8), (3, 1, None, 4), (-1, 2, None, 1), (2, 1, "carried", 4), (2, 1, "stowed", 3)],
)
def test_defense_points_are_dex_plus_ap_and_come_off_every_blow(dex, armor, shield, dp):
    shield_data = {"armor": 1, "state": shield} if shield else None
    target = classic("Target", OPP, dex_bonus=dex, armor=armor, shield=shield_data, stamina_max=30)
    assert target.defense_points == dp
    brute = classic("Brute", level=3, str_bonus=2, weapons=[Weapon(name="Axe", die="d8")])
    out = resolve_attack(brute, target, "Axe", ScriptedDice([5, 4]), ruleset="classic")
    assert out.damage == 5 + 4 + 2 - dp


def test_the_sheet_shows_wis_and_dp_and_no_awa():
    keys = [row.keys for row in CLASSIC.views.sheet().numbers]
    assert ("wis_bonus",) in keys and ("awa_bonus",) not in keys
    columns = {col.title: col for col in CLASSIC.views.columns()}
    assert columns["DP"].value(tombril()) == 8
    assert "DP" not in {col.title for col in LNL.views.columns()}
    assert "DP 8 (DEX +5 + AP 3)" in CLASSIC.views.summary(tombril())
    assert "WIS +0" in CLASSIC.views.stat_line(tombril()) and "DP 8" in CLASSIC.views.stat_line(tombril())


# -- no 10 ft ranged minimum; max range still applies ----------------------------------------------


def shooting_range(ruleset: Ruleset, target_cell: tuple[int, int]) -> Engine:
    bow = {"name": "Bow", "die": "d6", "kind": "ranged", "max_range_ft": 30}
    return engine_for(
        ruleset,
        (fighter("Archer", weapons=[bow]), (5, 5), EAST),
        (fighter("Target", OPP), target_cell, WEST),
    )


def test_a_shot_at_5_ft_is_allowed_in_classic():
    engine = shooting_range(CLASSIC, (6, 5))
    start(engine, PTY)
    engine.begin_turn("archer")
    hit = resolved(script.attack(engine, "archer", "target", "Bow", faces=[4]))
    assert (hit.damage, hit.to_sp, hit.target_sp) == (4, 4, 16)


def test_the_same_shot_is_refused_in_l_and_l_as_too_close():
    engine = shooting_range(LNL, (6, 5))
    start(engine, PTY)
    engine.begin_turn("archer")
    with pytest.raises(IllegalAction) as caught:
        script.attack(engine, "archer", "target", "Bow", faces=[4, 1])
    assert caught.value.reasons == ["At least 10 ft away: Target is 5 ft away: too close to shoot"]


def test_classic_max_range_still_applies():
    engine = shooting_range(CLASSIC, (12, 5))  # 35 ft
    start(engine, PTY)
    engine.begin_turn("archer")
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction) as caught:
        script.attack(engine, "archer", "target", "Bow", faces=[4])
    assert caught.value.reasons == ["Within max range: Target is 35 ft away; max range 30 ft"]
    assert engine.encounter.model_dump() == before
    labels = [c.label for c in engine.attack_checks("archer", "target", "Bow")]
    assert not any("At least" in label for label in labels)


# -- all damage to SP first; past 0 SP into IP; 0 IP is down ---------------------------------------


def test_ranged_damage_comes_off_sp_first():
    archer = classic("Archer", wis_bonus=2, weapons=[Weapon(name="Bow", die="d6", kind="ranged")])
    out = resolve_attack(archer, classic("Target", OPP), "Bow", ScriptedDice([5]), ruleset="classic")
    assert not out.direct
    assert (out.damage, out.application.to_sp, out.application.to_ip) == (7, 7, 0)
    assert (out.application.stamina_after, out.application.injury_after) == (13, 10)
    # The same shot in L&L is direct damage, straight to IP.
    lnl_archer = Combatant(
        name="Archer", side=PTY, level=1, awa_bonus=2, stamina_max=20, injury_max=10, weapons=archer.weapons
    )
    lnl_target = Combatant(name="Target", side=OPP, level=1, stamina_max=20, injury_max=10)
    lnl = resolve_attack(lnl_archer, lnl_target, "Bow", ScriptedDice([5, 1]))
    assert lnl.direct and (lnl.application.to_sp, lnl.application.to_ip) == (0, 7)


def test_damage_past_0_sp_spills_into_ip():
    archer = classic("Archer", wis_bonus=2, weapons=[Weapon(name="Bow", die="d6", kind="ranged")])
    target = classic("Target", OPP, stamina=3)
    out = resolve_attack(archer, target, "Bow", ScriptedDice([5]), ruleset="classic")
    assert (out.application.to_sp, out.application.to_ip, out.application.overkill) == (3, 4, 0)
    assert (out.application.stamina_after, out.application.injury_after) == (0, 6)


def test_at_0_ip_the_target_is_down_and_takes_no_more_turns():
    bow = {"name": "Bow", "die": "d6", "kind": "ranged"}
    engine = engine_for(
        CLASSIC,
        (fighter("Archer", wis_bonus=2, weapons=[bow]), (2, 5), EAST),
        (fighter("Target", OPP, stamina=0, injury=2), (8, 5), WEST),
    )
    start(engine, PTY)
    engine.begin_turn("archer")
    events = script.attack(engine, "archer", "target", "Bow", faces=[3])
    hit = resolved(events)
    assert (hit.damage, hit.to_sp, hit.to_ip, hit.overkill, hit.target_ip) == (5, 0, 2, 3, 0)
    down = [e for e in events if isinstance(e, WentDown)]
    assert len(down) == 1 and down[0].text == "Target is down (3 overkill)"
    engine.end_turn()
    assert refusal(engine, "target") == ["Target is down"]
    assert engine.round_over


def test_a_classic_spell_has_no_direct_damage():
    with pytest.raises(ValidationError, match="L&L Classic has no direct damage"):
        classic("Priest", spells=[{"name": "Inflict Wounds", "die": "d10", "direct": True}])
    priest = classic("Priest", level=3, spells=[{"name": "Flame", "die": "d8", "range_ft": 60}])
    out = resolve_attack(
        priest, classic("Target", OPP), "Flame", ScriptedDice([3, 4]), AttackMode.SPELL, ruleset="classic"
    )
    assert (out.damage, out.application.to_sp, out.application.to_ip) == (7, 7, 0)


# -- no exertion for any attack ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weapon", "mode", "faces"),
    [
        ({"name": "Bow", "die": "d6", "kind": "ranged", "specialized": True}, ATTACK, [4]),
        ({"name": "Bow", "die": "d6", "kind": "ranged"}, POWER, [4, 2]),
        ({"name": "Sword", "die": "d6"}, ATTACK, [4]),
        ({"name": "Sword", "die": "d6"}, POWER, [4, 2]),
    ],
)
def test_no_attack_costs_exertion(weapon, mode, faces):
    engine = engine_for(
        CLASSIC,
        (fighter("Hero", stamina_max=10, weapons=[weapon]), (5, 5), EAST),
        (fighter("Target", OPP), (6, 5), WEST),
    )
    start(engine, PTY)
    engine.begin_turn("hero")
    dice = ScriptedDice(faces)  # exactly the damage dice: no d4 of exertion is rolled
    events = engine.apply(Attack("hero", "target", weapon["name"], mode), dice)
    assert dice.remaining == []
    assert resolved(events).damage == sum(faces)
    assert not any(isinstance(e, ExertionSpent) for e in events)
    assert engine.combatant("hero").stamina == 10


def test_l_and_l_rolls_a_d4_of_exertion_for_the_same_shot():
    engine = shooting_range(LNL, (8, 5))
    start(engine, PTY)
    engine.begin_turn("archer")
    with pytest.raises(RulesError, match="exertion: a d4 is still to roll"):
        script.attack(engine, "archer", "target", "Bow", faces=[4])
    events = script.attack(engine, "archer", "target", "Bow", faces=[4, 3])
    assert [e.cost for e in events if isinstance(e, ExertionSpent)] == [3]
    assert engine.combatant("archer").stamina == 17


def test_classic_has_no_exertion_option():
    assert "melee_exertion" not in ClassicOptions.model_fields
    engine = engine_for(CLASSIC)
    with pytest.raises(RulesError, match="melee_exertion"):
        engine.apply(act.EditOptions({"melee_exertion": True}))


# -- the Classic sneak attack ---------------------------------------------------------------------

DAGGER = {"name": "Dagger", "die": "d4", "style": "finesse", "magic_bonus": 1}
BOW = {"name": "Bow", "die": "d6", "kind": "ranged"}


def rogue(**fields: Any) -> dict[str, Any]:
    """Level 3 (2 dice), DEX +3, WIS +1, a +1 finesse dagger and a bow."""
    return fighter("Rogue", level=3, dex_bonus=3, wis_bonus=1, weapons=[DAGGER, BOW], **fields)


def ogre(**fields: Any) -> dict[str, Any]:
    """DEX +2, AP 1, 30 SP, 10 IP: a sneak attack does not subtract its DEX."""
    return fighter("Ogre", OPP, dex_bonus=2, armor=1, stamina_max=30, **fields)


def sneak_engine(*extra, rogue_at=(5, 9), rogue_fields=None, ogre_fields=None, walls=(), ruleset=CLASSIC) -> Engine:
    """The Ogre at (5, 5) facing north; the Rogue south of it unless told; the Party acts first."""
    r = rogue(**(rogue_fields or {}))
    if ruleset is LNL:
        r["awa_bonus"] = r.pop("wis_bonus")
    engine = engine_for(
        ruleset,
        (r, rogue_at, NORTH),
        (ogre(**(ogre_fields or {})), (5, 5), NORTH),
        *extra,
        walls=walls,
    )
    start(engine, PTY)
    return engine


ALLY = (fighter("Fighter", weapons=[{"name": "Sword", "die": "d6"}]), (5, 4), SOUTH)  # engaged with the Ogre


def sneak_refusal(engine: Engine, mode: AttackMode = SNEAK, weapon: str = "Dagger") -> list[str]:
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction) as caught:
        script.attack(engine, "rogue", "ogre", weapon, mode, faces=[1, 1, 1, 1])
    assert engine.encounter.model_dump() == before
    return caught.value.reasons


def test_sneak_attack_when_hidden_even_in_plain_view_of_the_target():
    engine = sneak_engine(rogue_at=(6, 4), rogue_fields={"concealed": True})  # north-east, inside its view
    engine.begin_turn("rogue")
    checks = script.sneak_checks(engine, "rogue", "ogre", "Dagger")
    assert [c.reason for c in checks if c.applies] == ["Rogue was hidden at the start of the turn"]
    dice = ScriptedDice([3, 2])  # the two damage dice only: no d20 of precision
    hit = resolved(engine.apply(Attack("rogue", "ogre", "Dagger", SNEAK), dice))
    assert dice.remaining == []
    # 3 + 2, + 1 x 2 magic, + DEX 3; the Ogre's DEX not subtracted, its AP is: 5 + 2 + 3 - 1 = 9.
    assert (hit.dice_total, hit.magic_term, hit.ability_term) == (5, 2, 3)
    assert (hit.dex_term, hit.dex_ignored, hit.ap_term, hit.ap_ignored) == (0, True, 1, False)
    assert hit.precision is None
    assert (hit.damage, hit.direct, hit.to_sp, hit.to_ip, hit.target_sp) == (9, False, 9, 0, 21)
    assert not engine.combatant("rogue").concealed  # the sneak attack gives the attacker away


def test_the_same_blow_as_a_plain_attack_subtracts_the_dex():
    engine = sneak_engine(rogue_at=(6, 4))
    engine.begin_turn("rogue")
    assert resolved(script.attack(engine, "rogue", "ogre", "Dagger", faces=[3, 2])).damage == 9 - 2


def test_sneak_shot_when_walls_block_every_line_of_sight_from_the_target():
    wall = [(x, 2) for x in range(2, 9)]
    engine = sneak_engine(rogue_at=(5, 0), walls=wall)  # the Ogre looks north, at the wall
    engine.begin_turn("rogue")
    hidden, out_of_sight, _, _ = engine.concealment_details("rogue", "ogre")
    assert not hidden.ok
    assert out_of_sight.ok and out_of_sight.reason == "Rogue is behind the wall at (5, 2): no line of sight from Ogre"
    hit = resolved(script.attack(engine, "rogue", "ogre", "Bow", SNEAK, faces=[4, 1]))
    assert (hit.ability, hit.ability_term) == ("WIS", 1)
    assert (hit.damage, hit.to_sp, hit.target_sp) == (5 + 1 - 1, 5, 25)


def test_without_the_walls_the_same_shot_is_refused_with_the_reason():
    engine = sneak_engine(rogue_at=(5, 0))
    engine.begin_turn("rogue")
    assert sneak_refusal(engine, weapon="Bow") == [
        "Hidden from the target, or the target engaged and approached from behind: "
        "Rogue is in Ogre's sight and Ogre is not engaged with another creature"
    ]


def test_sneak_attack_on_an_engaged_target_with_the_whole_path_behind_it():
    engine = sneak_engine(ALLY)
    engine.begin_turn("rogue")
    engine.move("rogue", (5, 6))  # straight up from the south: never inside its view
    (check, _) = script.sneak_checks(engine, "rogue", "ogre", "Dagger")
    assert check.ok
    assert check.reason == (
        "Ogre is engaged in melee with Fighter, and whole approach stayed outside Ogre's 120 degree view"
    )
    hit = resolved(script.attack(engine, "rogue", "ogre", "Dagger", SNEAK, faces=[4, 1, 2]))  # the 4 explodes into a 2
    assert (hit.dice_total, hit.damage, hit.target_sp) == (7, 7 + 2 + 3 - 1, 19)


def test_engaged_target_but_the_path_crossed_its_view_is_refused():
    engine = sneak_engine(ALLY, rogue_at=(8, 3))  # north-east: inside the Ogre's view
    engine.begin_turn("rogue")
    engine.move("rogue", (6, 6))
    assert sneak_refusal(engine) == [
        "Hidden from the target, or the target engaged and approached from behind: "
        "Ogre is engaged in melee with Fighter, but path crossed Ogre's 120 degree view"
    ]


def test_from_behind_but_the_target_not_engaged_is_refused():
    engine = sneak_engine()
    engine.begin_turn("rogue")
    engine.move("rogue", (5, 6))
    (reason,) = sneak_refusal(engine)
    assert reason.endswith("Ogre is not engaged with another creature")


def test_a_target_that_sees_all_around_cannot_be_approached_from_behind():
    engine = sneak_engine(ALLY, ogre_fields={"vision_deg": 360})
    engine.begin_turn("rogue")
    engine.move("rogue", (5, 6))
    (reason,) = sneak_refusal(engine)
    assert reason.endswith("but Ogre sees all around (360 degrees)")


def test_the_gm_may_override_a_refused_sneak_attack():
    engine = sneak_engine()
    engine.begin_turn("rogue")
    engine.move("rogue", (5, 6))
    events = script.attack(engine, "rogue", "ogre", "Dagger", SNEAK, faces=[1, 1], override=True)
    assert resolved(events).damage == 2 + 2 + 3 - 1
    overrides = [e for e in events if isinstance(e, Override)]
    assert len(overrides) == 1 and "not engaged with another creature" in overrides[0].text


def test_no_l_and_l_point_applies_attacked_last_round():
    """L&L refuses a sneak attack on a target attacked last round; Classic has no such point."""
    for ruleset in (CLASSIC, LNL):
        engine = sneak_engine(ALLY, rogue_at=(5, 6), ruleset=ruleset)
        engine.begin_turn("rogue")
        script.attack(engine, "rogue", "ogre", "Dagger", faces=[1, 1])
        engine.end_turn()
        engine.next_round(face=5)
        engine.begin_turn("rogue")
        if ruleset is CLASSIC:
            labels = [c.label for c in script.sneak_checks(engine, "rogue", "ogre", "Dagger")]
            assert not any("last round" in label or "half Move" in label for label in labels)
            assert resolved(script.attack(engine, "rogue", "ogre", "Dagger", SNEAK, faces=[1, 1])).damage == 6
        else:
            assert "Did not attack this target last round: Rogue attacked Ogre in round 1" in sneak_refusal(engine)


def test_no_l_and_l_point_applies_within_half_move():
    """A hidden attacker 30 ft away may move up and sneak attack; L&L wants it within half Move (15 ft)."""
    for ruleset in (CLASSIC, LNL):
        engine = sneak_engine(rogue_at=(11, 5), rogue_fields={"concealed": True}, ruleset=ruleset)
        engine.begin_turn("rogue")
        engine.move("rogue", (6, 5))
        if ruleset is CLASSIC:
            assert resolved(script.attack(engine, "rogue", "ogre", "Dagger", SNEAK, faces=[1, 1])).damage == 6
        else:
            assert "Started within half Move: started 30 ft from Ogre; half Move is 15 ft" in sneak_refusal(engine)


def test_no_precision_check_armor_always_applies_and_no_d20_is_rolled():
    engine = sneak_engine(rogue_fields={"concealed": True})
    engine.begin_turn("rogue")
    engine.move("rogue", (5, 6))
    dice = ScriptedDice([2, 2])
    hit = resolved(engine.apply(Attack("rogue", "ogre", "Dagger", SNEAK), dice))
    assert dice.remaining == [] and hit.precision is None
    assert (hit.ap_term, hit.ap_ignored) == (1, False)


def test_a_sneak_power_attack_rolls_2n_dice_and_breaks_the_weapon():
    engine = sneak_engine(ALLY)
    engine.begin_turn("rogue")
    engine.move("rogue", (5, 6))
    events = script.attack(engine, "rogue", "ogre", "Dagger", SNEAK_POWER, faces=[3, 2, 1, 3])
    hit = resolved(events)
    assert hit.dice_count == 4  # 2N for a level 3 rogue
    # 9 + 1 x 4 magic + DEX 3, no DEX off, AP 1 off: 15, to SP.
    assert (hit.dice_total, hit.magic_term, hit.dex_term, hit.ap_term) == (9, 4, 0, 1)
    assert (hit.damage, hit.to_sp, hit.target_sp) == (15, 15, 15)
    broken = [e for e in events if isinstance(e, WeaponBroken)]
    assert [e.text for e in broken] == ["Rogue's Dagger breaks after the Power Attack"]
    assert engine.combatant("rogue").weapon("Dagger").state is WeaponState.BROKEN
    assert "sneak power" in [spec.key for spec in CLASSIC.actions.kinds()]


def test_l_and_l_refuses_a_sneak_power_attack():
    engine = sneak_engine(ALLY, rogue_at=(5, 6), ruleset=LNL)
    engine.begin_turn("rogue")
    reasons = sneak_refusal(engine, SNEAK_POWER)
    assert reasons == ["Not a Power Attack: in Laurels & Loot a sneak attack is never a Power Attack"]
    assert "sneak power" not in [spec.key for spec in LNL.actions.kinds()]


# -- converting an L&L encounter -------------------------------------------------------------------


def lnl_demo_engine() -> Engine:
    engine = Engine(storage.load(resource("encounters", "hill-giant.lnl")), dice=ScriptedDice([]))
    fanatic = next(c for c in LNL.bestiary() if c["name"] == "Cult Fanatic")
    engine.apply(act.AddCombatant(fanatic | {"side": "Opponents"}, cell=(20, 5)))
    return engine


def test_converting_an_l_and_l_setup_encounter_to_classic():
    engine = lnl_demo_engine()
    old = engine.encounter
    before = old.model_dump()
    events = engine.apply(act.ConvertRuleset("classic"))
    new = engine.encounter
    assert engine.ruleset is CLASSIC and new.ruleset == "classic"
    assert [(c.id, c.name, c.side, c.level) for c in new.combatants] == [
        (c.id, c.name, c.side, c.level) for c in old.combatants
    ]
    assert all(isinstance(c, ClassicCombatant) for c in new.combatants)
    assert new.map == old.map and new.tokens == old.tokens
    assert new.combatant("cedryk").wis_bonus == 4 and not hasattr(new.combatant("cedryk"), "awa_bonus")
    assert new.combatant("cedryk").concealed and new.combatant("hill-giant").size == 2
    fanatic = new.combatant("cult-fanatic")
    assert not any(s.direct for s in fanatic.spells)

    (changed,) = events
    assert isinstance(changed, RulesetChanged) and (changed.old, changed.new) == ("lnl", "classic")
    assert "Cedryk the Sneaky: AWA +4 becomes WIS +4" in changed.notes
    assert "Tombril: AWA +2 becomes WIS +2" in changed.notes
    assert "Cult Fanatic: spell Inflict Wounds no longer deals direct damage (SP first)" in changed.notes
    assert "option not in L&L Classic: melee and reach attacks cost d4 SP too (was off)" in changed.notes
    assert "option not in L&L Classic: sneak attacks add N x B (was on)" in changed.notes
    assert changed.text.startswith("Ruleset: Laurels & Loot → L&L Classic: ")
    assert all(note in changed.text for note in changed.notes)
    assert new.log[-1] == changed

    engine.undo()
    assert engine.ruleset is LNL and engine.encounter.ruleset == "lnl"
    after = engine.encounter.model_dump()
    assert isinstance(engine.encounter.log[-1], Undone)
    assert after["log"][:-1] == before["log"]
    del after["log"], before["log"]
    assert after == before

    engine.redo()  # and back again, the same conversion
    assert engine.encounter.model_dump(exclude={"log"}) == new.model_dump(exclude={"log"})


def test_converting_is_refused_once_combat_has_started():
    engine = Engine(storage.load(resource("encounters", "hill-giant.lnl")), dice=ScriptedDice([]))
    engine.start_combat("nobody ambushes", face=4)
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction) as caught:
        engine.apply(act.ConvertRuleset("classic"))
    assert caught.value.reasons == ["only an encounter before combat can change its ruleset"]
    assert engine.encounter.model_dump() == before and engine.ruleset is LNL


def test_converting_to_an_unknown_ruleset_names_it():
    engine = Engine(demo(), dice=ScriptedDice([]))
    with pytest.raises(IllegalAction, match="there is no ruleset 'gurps'"):
        engine.apply(act.ConvertRuleset("gurps"))
    with pytest.raises(IllegalAction, match="already uses L&L Classic"):
        engine.apply(act.ConvertRuleset("classic"))


# -- files ---------------------------------------------------------------------------------------


def test_a_classic_encounter_saves_and_loads_equal(tmp_path: Path):
    engine = Engine(demo(), dice=ScriptedDice([]))
    engine.start_combat(ROLL, face=6)  # the Party's surprise round
    engine.begin_turn("tombril")
    engine.move("tombril", (14, 6))
    script.attack(engine, "tombril", "hill-giant", "Shortsword", faces=TOMBRIL_FACES)
    path = storage.save(engine.encounter, tmp_path / "classic.lnl")
    again = storage.load(path)
    assert again == engine.encounter
    assert type(again) is type(engine.encounter) and again.ruleset == "classic"
    assert again.combat.round == 0 and again.combat.round_name == "Surprise round"
    assert again.combatant("hill-giant").stamina == 37
    assert json.loads(path.read_text(encoding="utf-8"))["encounter"]["ruleset"] == "classic"


def version_1(document: dict[str, Any]) -> dict[str, Any]:
    document = json.loads(json.dumps(document))
    document["version"] = 1
    return document


def test_a_version_1_file_loads_as_an_l_and_l_encounter():
    lnl = storage.load(resource("encounters", "hill-giant.lnl"))
    document = version_1(storage.to_document(lnl))
    del document["encounter"]["ruleset"]
    loaded = storage.loads(json.dumps(document))
    assert loaded.ruleset == "lnl" and loaded == lnl
    assert all(type(c) is Combatant for c in loaded.combatants)
    assert loaded.combatant("cedryk").awa_bonus == 4


def test_a_version_1_file_claiming_another_ruleset_is_refused():
    document = version_1(storage.to_document(demo()))
    with pytest.raises(EncounterFileError) as caught:
        storage.loads(json.dumps(document), "old.lnl")
    assert str(caught.value) == "old.lnl: a version 1 file holds L&L encounters only, not 'classic'"


def test_a_file_naming_an_unknown_ruleset_is_refused_naming_it():
    document = storage.to_document(demo())
    document["encounter"]["ruleset"] = "gurps"
    with pytest.raises(EncounterFileError, match="there is no ruleset 'gurps'"):
        storage.loads(json.dumps(document), "odd.lnl")


def test_a_classic_file_with_an_awa_bonus_is_refused_naming_the_field():
    document = storage.to_document(demo())
    document["encounter"]["combatants"][0]["awa_bonus"] = 2
    with pytest.raises(EncounterFileError, match=r"encounter\.combatants\[0\]\.awa_bonus"):
        storage.loads(json.dumps(document))


def test_the_classic_bestiary_is_every_l_and_l_creature_with_wis():
    creatures, problems = read_bestiary(CLASSIC)
    assert problems == []
    lnl = {c["name"]: c for c in LNL.bestiary()}
    mine = {c["name"]: c for c in creatures}
    assert set(lnl) <= set(mine)
    for name, creature in lnl.items():
        assert "awa_bonus" not in mine[name]
        assert mine[name]["wis_bonus"] == creature["awa_bonus"], name
        assert not any(spell.get("direct") for spell in mine[name].get("spells", [])), name
    giant = ClassicCombatant.model_validate(mine["Hill Giant"] | {"side": "Opponents"})
    assert (giant.level, giant.str_bonus, giant.dex_bonus, giant.armor_points, giant.stamina_max) == (12, 9, 3, 1, 68)
    assert giant.defense_points == 4 and giant.weapon("Club").die == "d6"

"""The Laurels & Loot damage rules (RULES.md sections 5, 6 and 7), pure and through the engine.

Every number here is worked out by hand from RULES.md; the dice are scripted, so each test
says exactly which faces the table would read.
"""

from __future__ import annotations

import math

import pytest

from lnl_desktop.core import (
    AttackMode,
    AttackResolved,
    Combatant,
    Encounter,
    Engine,
    IllegalAction,
    MapGrid,
    RulesOptions,
    ScriptedDice,
    Shield,
    Side,
    Spell,
    SurpriseSituation,
    Token,
    Weapon,
    WeaponState,
    dice_count,
    resolve_attack,
)
from lnl_desktop.core.encounter.events import Override, WentDown
from lnl_desktop.core.map.grid import DiagonalRule
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.core.rules.lnl.examples import (
    CEDRYK_FACES,
    GIANT_FACES,
    TOMBRIL_FACES,
    cedryk,
    half_orc,
    hill_giant,
    tombril,
)
from lnl_desktop.core.rules.lnl.model import ExertionSpent, ParryEnded, ShieldDestroyed, WeaponBroken

PARTY, OPP = Side.PARTY, Side.OPPONENTS
ATTACK, POWER, SNEAK = AttackMode.ATTACK, AttackMode.POWER, AttackMode.SNEAK
NORTH, EAST, SOUTH, WEST = 0, 90, 180, 270


# -- helpers -------------------------------------------------------------------------------------


def fighter(name: str, side: Side = PARTY, **fields) -> Combatant:
    """A plain combatant: level 1, no bonuses, no armor, 20 SP, 10 IP, unless told otherwise."""
    data = {"name": name, "side": side, "level": 1, "stamina_max": 20, "injury_max": 10}
    data.update(fields)
    return Combatant(**data)


def sword(**fields) -> Weapon:
    data = {"name": "Sword", "die": "d6"}
    data.update(fields)
    return Weapon(**data)


def bow(**fields) -> Weapon:
    data = {"name": "Bow", "die": "d6", "kind": "ranged"}
    data.update(fields)
    return Weapon(**data)


def make_engine(*placed, width: int = 14, height: int = 14, options: RulesOptions | None = None) -> Engine:
    """An engine whose own dice are empty: every roll must be scripted by the test."""
    combatants = [c for c, _, _ in placed]
    tokens = {c.id: Token(cell=cell, facing=facing) for c, cell, facing in placed}
    encounter = Encounter(
        map=MapGrid(width=width, height=height),
        combatants=combatants,
        tokens=tokens,
        options=options or RulesOptions(),
    )
    return Engine(encounter, dice=ScriptedDice([]))


def start(engine: Engine, first: Side) -> None:
    """Round 1 with nobody ambushing: face 4 puts the Party first, face 2 the Opponents."""
    engine.start_combat(SurpriseSituation.NOBODY, face=4 if first is PARTY else 2)
    assert engine.acting_side() is first


def next_round(engine: Engine, first: Side) -> None:
    engine.next_round(face=5 if first is PARTY else 2)
    assert engine.acting_side() is first


def c(engine: Engine, cid: str) -> Combatant:
    return engine.encounter.combatant(cid)


def resolved(events) -> AttackResolved:
    found = [e for e in events if isinstance(e, AttackResolved)]
    assert len(found) == 1
    return found[0]


def reasons_of(excinfo) -> list[str]:
    return excinfo.value.reasons


# -- the worked examples of RULES §5 -------------------------------------------------------------


def test_example_1_tombril_hits_the_giant_for_31():
    dice = ScriptedDice(TOMBRIL_FACES)
    out = resolve_attack(tombril(), hill_giant(), "Shortsword", dice)
    assert out.dice_count == 5
    assert [f.face for f in out.faces] == TOMBRIL_FACES
    assert out.dice_total == 17
    assert out.magic_term == 10
    assert out.ability_term == 8
    assert out.dex_term == 3
    assert out.ap_term == 1
    assert out.damage == 31
    assert not out.direct
    assert out.application.to_sp == 31
    assert out.application.to_ip == 0
    assert out.application.stamina_after == 37
    assert out.exertion_face is None  # no melee exertion: Tombril keeps his SP
    assert dice.remaining == []


def test_example_2_the_giant_answers_for_43():
    dice = ScriptedDice(GIANT_FACES)
    out = resolve_attack(hill_giant(), tombril(), "Club", dice)
    assert out.dice_count == 6
    assert [f.face for f in out.faces] == GIANT_FACES
    assert [f.explosion for f in out.faces] == [False] * 6 + [True] * 4
    assert out.explosions == 4  # three 6s among the base dice and one among the extra dice
    assert out.dice_total == 42
    assert out.magic_term == 0
    assert out.ability_term == 9
    assert out.damage == 43
    assert out.application.stamina_after == 12
    assert out.application.injury_after == 12
    assert dice.remaining == []


def test_example_3_cedryk_sneak_attack_with_a_passed_awa_check():
    dice = ScriptedDice(CEDRYK_FACES)
    target = half_orc()
    out = resolve_attack(cedryk(), target, "Dagger", dice, mode=SNEAK)
    assert out.precision is not None
    assert (out.precision.face, out.precision.total, out.precision.dc) == (9, 13, 13)
    assert out.precision.success
    assert out.ap_ignored and out.ap_term == 0
    assert out.dex_ignored and out.dex_term == 0
    assert [f.face for f in out.faces] == [4, 2, 2]
    assert out.ability_term == 4  # DEX, the dagger is a finesse weapon
    assert out.damage == 12
    assert out.direct
    assert out.application.to_ip == 12
    assert out.application.to_sp == 0
    assert out.application.injury_after == 3
    assert out.application.stamina_after == target.stamina
    assert dice.remaining == []


def test_example_3_with_a_failed_awa_check_armor_applies():
    out = resolve_attack(cedryk(), half_orc(), "Dagger", ScriptedDice([8, 4, 2, 2]), mode=SNEAK)
    assert out.precision is not None and not out.precision.success
    assert out.ap_term == 3
    assert out.dex_term == 0
    assert out.damage == 9
    assert out.application.injury_after == 6


def test_examples_1_and_2_in_an_engine_fight():
    engine = make_engine((tombril(), (4, 4), EAST), (hill_giant(), (5, 4), WEST))
    start(engine, PARTY)
    engine.begin_turn("tombril")
    hit = resolved(script.attack(engine, "tombril", "hill-giant", "Shortsword", faces=TOMBRIL_FACES))
    assert (hit.damage, hit.to_sp, hit.target_sp) == (31, 31, 37)
    assert "31" in hit.text and "37 SP" in hit.text
    engine.end_turn()
    assert c(engine, "hill-giant").stamina == 37
    assert c(engine, "tombril").stamina == 55  # no melee exertion
    engine.begin_turn("hill-giant")
    answer = resolved(script.attack(engine, "hill-giant", "tombril", "Club", faces=GIANT_FACES))
    assert [f.face for f in answer.faces] == GIANT_FACES
    assert (answer.dice_total, answer.damage, answer.target_sp) == (42, 43, 12)
    assert c(engine, "tombril").stamina == 12
    assert c(engine, "tombril").injury == 12
    assert c(engine, "hill-giant").stamina == 37  # no melee exertion
    assert answer in engine.encounter.log and hit in engine.encounter.log


@pytest.mark.parametrize(("d20", "ip_after"), [(9, 3), (8, 6)])
def test_example_3_in_an_engine_fight(d20, ip_after):
    engine = make_engine((cedryk(concealed=True), (5, 6), NORTH), (half_orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("cedryk")
    hit = resolved(script.attack(engine, "cedryk", "half-orc", "Dagger", SNEAK, faces=[d20, 4, 2, 2]))
    assert hit.mode == "sneak attack"
    assert hit.direct and hit.dex_ignored
    assert hit.precision is not None and hit.precision.face == d20
    assert c(engine, "half-orc").injury == ip_after
    assert c(engine, "half-orc").stamina == 10
    assert hit.overrides == []


# -- dice count, explosions, magic ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "n"), [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 4), (8, 4), (9, 5), (10, 5), (11, 6), (12, 6)]
)
def test_dice_count_table(level, n):
    assert dice_count(level) == n
    attacker = fighter("A", level=level, weapons=[sword()])
    assert attacker.dice_count == n
    dice = ScriptedDice([1] * (n + 3))
    out = resolve_attack(attacker, fighter("T", OPP), "Sword", dice)
    assert out.dice_count == n
    assert len(out.faces) == n
    assert len(dice.remaining) == 3


def test_a_die_explodes_without_limit():
    dice = ScriptedDice([4, 4, 4, 1])
    out = resolve_attack(fighter("A", weapons=[sword(die="d4")]), fighter("T", OPP), "Sword", dice)
    assert [f.face for f in out.faces] == [4, 4, 4, 1]
    assert [f.explosion for f in out.faces] == [False, True, True, True]
    assert out.damage == 13


def test_explosions_are_rolled_breadth_first():
    # Two base 6s earn two extra dice (6 and 1); that new 6 earns one more (2).
    out = resolve_attack(
        fighter("A", level=3, weapons=[sword()]), fighter("T", OPP), "Sword", ScriptedDice([6, 6, 6, 1, 2])
    )
    assert [(f.face, f.explosion) for f in out.faces] == [(6, False), (6, False), (6, True), (1, True), (2, True)]
    assert out.damage == 21


def test_magic_bonus_only_on_the_base_dice():
    attacker = fighter("A", level=3, weapons=[sword(die="d4", magic_bonus=3)])
    out = resolve_attack(attacker, fighter("T", OPP), "Sword", ScriptedDice([4, 1, 4, 2]))
    assert len(out.faces) == 4
    assert out.magic_term == 6  # 2 base dice x 3, the two explosion dice add nothing
    assert out.damage == 11 + 6


# -- Power Attack -------------------------------------------------------------------------------


def test_power_attack_rolls_2n_dice_with_magic_on_each():
    attacker = fighter("A", level=3, str_bonus=2, weapons=[sword(magic_bonus=1)])
    dice = ScriptedDice([1, 2, 3, 4, 5])
    out = resolve_attack(attacker, fighter("T", OPP), "Sword", dice, mode=POWER)
    assert out.dice_count == 4
    assert [f.face for f in out.faces] == [1, 2, 3, 4]
    assert out.magic_term == 4
    assert out.damage == 10 + 4 + 2
    assert out.breaks_weapon
    assert dice.remaining == [5]
    assert attacker.weapon("Sword").state is WeaponState.READY  # resolve_attack changes nothing


def test_power_attack_magic_on_n_dice_when_the_option_is_off():
    attacker = fighter("A", level=3, weapons=[sword(magic_bonus=1)])
    options = RulesOptions(power_attack_magic_all_dice=False)
    out = resolve_attack(attacker, fighter("T", OPP), "Sword", ScriptedDice([1, 2, 3, 4]), mode=POWER, options=options)
    assert out.magic_term == 2
    assert out.damage == 12


def test_power_attack_breaks_the_weapon_and_a_broken_weapon_is_refused():
    a = fighter("A", level=3, weapons=[sword(magic_bonus=1)])
    t = fighter("T", OPP, stamina_max=60)
    engine = make_engine((a, (3, 3), EAST), (t, (4, 3), WEST))
    start(engine, PARTY)
    engine.begin_turn("a")
    events = script.attack(engine, "a", "t", "Sword", POWER, faces=[1, 2, 3, 4])
    assert resolved(events).damage == 14
    assert any(isinstance(e, WeaponBroken) and e.weapon == "Sword" and e.combatant == "a" for e in events)
    assert c(engine, "a").weapon("Sword").state is WeaponState.BROKEN
    assert c(engine, "t").stamina == 60 - 14
    engine.end_turn()
    engine.begin_turn("t")
    engine.end_turn()
    next_round(engine, PARTY)
    engine.begin_turn("a")
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "a", "t", "Sword", faces=[6, 6, 6])
    assert any("broken" in r for r in reasons_of(excinfo))
    assert c(engine, "t").stamina == 60 - 14


def test_a_sneak_attack_cannot_be_a_power_attack():
    # The two are separate modes: a Power Attack never gets the sneak attack's direct damage.
    out = resolve_attack(fighter("A", weapons=[sword()]), fighter("T", OPP), "Sword", ScriptedDice([3, 3]), mode=POWER)
    assert not out.direct and not out.dex_ignored and out.precision is None


# -- ranged attacks ------------------------------------------------------------------------------


def archer(**fields) -> Combatant:
    data = {"level": 1, "str_bonus": 7, "dex_bonus": 6, "awa_bonus": 2, "weapons": [bow()]}
    data.update(fields)
    return fighter("Archer", PARTY, **data)


@pytest.mark.parametrize("cell", [(5, 4), (6, 5), (4, 4)])
def test_ranged_refused_within_10_ft(cell):
    engine = make_engine((archer(), (5, 5), NORTH), (fighter("Orc", OPP), cell, SOUTH))
    start(engine, PARTY)
    engine.begin_turn("archer")
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "archer", "orc", "Bow", faces=[3, 2])
    assert any("10 ft" in r for r in reasons_of(excinfo))
    assert engine.encounter.model_dump() == before


def test_ranged_allowed_at_10_ft():
    engine = make_engine((archer(), (5, 5), NORTH), (fighter("Orc", OPP), (5, 3), SOUTH))
    start(engine, PARTY)
    engine.begin_turn("archer")
    assert resolved(script.attack(engine, "archer", "orc", "Bow", faces=[3, 2])).damage == 5


def test_ranged_max_range():
    weapons = [bow(max_range_ft=30)]
    engine = make_engine((archer(weapons=weapons), (0, 0), EAST), (fighter("Orc", OPP), (7, 0), WEST))
    start(engine, PARTY)
    engine.begin_turn("archer")
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "archer", "orc", "Bow", faces=[3, 2])
    assert any("max range" in r for r in reasons_of(excinfo))
    engine.move("archer", to=(1, 0))  # now 30 ft away
    assert resolved(script.attack(engine, "archer", "orc", "Bow", faces=[3, 2])).damage == 5


def test_ranged_is_direct_damage_with_awa_and_mitigation():
    target = fighter("Orc", OPP, dex_bonus=1, armor=2, stamina_max=20, injury_max=10)
    dice = ScriptedDice([6, 4, 2])  # d6 explodes into 4, then the d4 of exertion
    out = resolve_attack(archer(), target, "Bow", dice)
    assert out.ability == "AWA" and out.ability_term == 2  # not STR 7, not DEX 6
    assert out.dex_term == 1 and out.ap_term == 2
    assert out.damage == 10 + 2 - 1 - 2
    assert out.direct
    assert out.application.to_ip == 9 and out.application.to_sp == 0
    assert out.application.injury_after == 1
    assert out.application.stamina_after == 20
    assert out.exertion_face == 2 and out.exertion_cost == 2
    assert dice.remaining == []


@pytest.mark.parametrize(
    ("face", "specialized", "cost"),
    [(1, False, 1), (3, False, 3), (4, False, 4), (1, True, 1), (2, True, 1), (3, True, 2), (4, True, 2)],
)
def test_ranged_exertion_costs_a_d4_halved_up_when_specialized(face, specialized, cost):
    a = archer(weapons=[bow(specialized=specialized)])
    engine = make_engine((a, (0, 0), EAST), (fighter("Orc", OPP, injury_max=30), (4, 0), WEST))
    start(engine, PARTY)
    engine.begin_turn("archer")
    events = script.attack(engine, "archer", "orc", "Bow", faces=[2, face])
    spent = [e for e in events if isinstance(e, ExertionSpent)]
    assert len(spent) == 1 and spent[0].face == face and spent[0].cost == cost
    assert c(engine, "archer").stamina == 20 - cost
    assert c(engine, "archer").injury == 10
    assert c(engine, "orc").injury == 30 - 4


def test_exertion_never_takes_sp_below_0_nor_causes_injury():
    a = archer(stamina=1)
    engine = make_engine((a, (0, 0), EAST), (fighter("Orc", OPP), (4, 0), WEST))
    start(engine, PARTY)
    engine.begin_turn("archer")
    script.attack(engine, "archer", "orc", "Bow", faces=[2, 4])
    assert c(engine, "archer").stamina == 0
    assert c(engine, "archer").injury == 10
    assert not c(engine, "archer").down


def test_melee_costs_no_exertion_by_default():
    dice = ScriptedDice([3, 4])
    out = resolve_attack(fighter("A", weapons=[sword()]), fighter("T", OPP), "Sword", dice)
    assert out.exertion_face is None and out.exertion_cost == 0
    assert dice.remaining == [4]


@pytest.mark.parametrize("weapon", [sword(), Weapon(name="Sword", die="d6", kind="reach")])
def test_melee_and_reach_exertion_option(weapon):
    options = RulesOptions(melee_exertion=True)
    a = fighter("A", weapons=[weapon])
    engine = make_engine((a, (3, 3), EAST), (fighter("T", OPP), (4, 3), WEST), options=options)
    start(engine, PARTY)
    engine.begin_turn("a")
    events = script.attack(engine, "a", "t", "Sword", faces=[3, 4])
    assert [e.cost for e in events if isinstance(e, ExertionSpent)] == [4]
    assert c(engine, "a").stamina == 16
    assert c(engine, "t").stamina == 17


def test_melee_needs_5_ft_and_reach_reaches_its_distance():
    a = fighter("A", weapons=[sword(), Weapon(name="Spear", die="d6", kind="reach")])
    engine = make_engine((a, (3, 3), EAST), (fighter("T", OPP), (5, 3), WEST))
    start(engine, PARTY)
    engine.begin_turn("a")
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "a", "t", "Sword", faces=[3])
    assert any("10 ft away" in r and "reach 5 ft" in r for r in reasons_of(excinfo))
    assert resolved(script.attack(engine, "a", "t", "Spear", faces=[3])).damage == 3


# -- where damage goes -------------------------------------------------------------------------


def test_melee_damage_past_0_sp_spills_into_ip():
    target = fighter("T", OPP, stamina=5, injury=10)
    out = resolve_attack(fighter("A", weapons=[sword(die="d8")]), target, "Sword", ScriptedDice([8, 1]))
    assert out.damage == 9
    assert (out.application.to_sp, out.application.to_ip) == (5, 4)
    assert (out.application.stamina_after, out.application.injury_after) == (0, 6)


def test_spill_to_ip_can_be_switched_off():
    target = fighter("T", OPP, stamina=5, injury=10)
    options = RulesOptions(spill_to_injury=False)
    out = resolve_attack(
        fighter("A", weapons=[sword(die="d8")]), target, "Sword", ScriptedDice([8, 1]), options=options
    )
    assert (out.application.stamina_after, out.application.injury_after) == (0, 10)


def test_damage_below_0_is_0():
    target = fighter("T", OPP, dex_bonus=3, armor=6)
    out = resolve_attack(fighter("A", str_bonus=-2, weapons=[sword()]), target, "Sword", ScriptedDice([2]))
    assert out.raw == 2 - 2 - 3 - 6
    assert out.damage == 0
    assert out.application.stamina_after == 20
    assert out.application.injury_after == 10


def test_negative_dex_bonus_of_the_target_adds_damage():
    target = fighter("T", OPP, dex_bonus=-2)
    out = resolve_attack(fighter("A", weapons=[sword()]), target, "Sword", ScriptedDice([3]))
    assert out.damage == 5


def test_going_down_at_0_ip_logs_overkill_and_takes_no_more_turns():
    engine = make_engine((archer(), (0, 0), EAST), (fighter("Orc", OPP, injury_max=4), (4, 0), WEST))
    start(engine, PARTY)
    engine.begin_turn("archer")
    events = script.attack(engine, "archer", "orc", "Bow", faces=[5, 1])  # 5 + AWA 2 = 7 direct
    hit = resolved(events)
    assert (hit.to_ip, hit.overkill, hit.target_ip) == (4, 3, 0)
    down = [e for e in events if isinstance(e, WentDown)]
    assert len(down) == 1 and down[0].combatant == "orc" and down[0].overkill == 3
    orc = c(engine, "orc")
    assert orc.down and orc.injury == 0
    assert not engine.may_act(orc)
    engine.end_turn()
    with pytest.raises(IllegalAction) as excinfo:
        engine.begin_turn("orc")
    assert any("down" in r for r in reasons_of(excinfo))
    assert engine.round_over


def test_a_blow_on_a_creature_already_down_is_all_overkill_and_not_a_second_wentdown():
    a = fighter("A", weapons=[sword()])
    b = fighter("B", weapons=[sword()])
    t = fighter("T", OPP, stamina=0, injury=1)
    engine = make_engine((a, (3, 3), EAST), (b, (3, 4), EAST), (t, (4, 3), WEST))
    start(engine, PARTY)
    engine.begin_turn("a")
    assert any(isinstance(e, WentDown) for e in script.attack(engine, "a", "t", "Sword", faces=[3]))
    engine.end_turn()
    engine.begin_turn("b")
    events = script.attack(engine, "b", "t", "Sword", faces=[4])
    assert resolved(events).overkill == 4
    assert not any(isinstance(e, WentDown) for e in events)
    assert c(engine, "t").injury == 0


# -- parrying ------------------------------------------------------------------------------------


def parry_setup(parrier: Combatant, attackers: int = 3) -> Engine:
    """The parrier (Opponents) at (5, 5), attackers of the Party around it; Opponents act first."""
    cells = [(4, 5), (6, 5), (5, 4), (5, 6)]
    placed = [(parrier, (5, 5), NORTH)]
    for i in range(attackers):
        placed.append((fighter(f"P{i}", PARTY, weapons=[sword()]), cells[i], NORTH))
    engine = make_engine(*placed)
    start(engine, OPP)
    return engine


def test_weapon_parry_stops_a_blow_without_explosions():
    guard = fighter("Guard", OPP, weapons=[sword(name="Blade")])
    engine = parry_setup(guard)
    engine.begin_turn("guard")
    script.parry(engine, "guard", weapon="Blade")
    engine.end_turn()
    engine.begin_turn("p0")
    hit = resolved(script.attack(engine, "p0", "guard", "Sword", faces=[5]))
    assert hit.parried_with == "Blade"
    assert hit.damage == 5 and hit.stopped == 5
    assert (hit.to_sp, hit.to_ip) == (0, 0)
    g = c(engine, "guard")
    assert (g.stamina, g.injury) == (20, 10)
    assert g.weapon("Blade").state is WeaponState.READY
    assert g.parry is not None and g.parry.explosions == 0


def test_a_plus_1_weapon_shatters_on_the_second_exploding_die_and_that_blow_is_still_stopped():
    guard = fighter("Guard", OPP, weapons=[sword(name="Blade", magic_bonus=1)])
    engine = parry_setup(guard)
    engine.begin_turn("guard")
    script.parry(engine, "guard", weapon="Blade")
    engine.end_turn()

    engine.begin_turn("p0")
    first = resolved(script.attack(engine, "p0", "guard", "Sword", faces=[6, 2]))  # one exploding die
    assert first.stopped == 8 and first.to_sp == 0
    assert c(engine, "guard").parry is not None and c(engine, "guard").parry.explosions == 1
    assert c(engine, "guard").weapon("Blade").state is WeaponState.READY
    engine.end_turn()

    engine.begin_turn("p1")
    events = script.attack(engine, "p1", "guard", "Sword", faces=[6, 3])  # the second exploding die
    second = resolved(events)
    assert second.parried_with == "Blade"
    assert second.stopped == 9 and second.to_sp == 0 and second.to_ip == 0
    assert any(isinstance(e, WeaponBroken) and e.combatant == "guard" and e.weapon == "Blade" for e in events)
    g = c(engine, "guard")
    assert g.weapon("Blade").state is WeaponState.BROKEN
    assert g.parry is None
    assert g.stamina == 20
    engine.end_turn()

    engine.begin_turn("p2")
    third = resolved(script.attack(engine, "p2", "guard", "Sword", faces=[4]))
    assert third.parried_with is None and third.stopped == 0
    assert third.to_sp == 4
    assert c(engine, "guard").stamina == 16


def test_a_plain_weapon_shatters_on_the_first_exploding_die():
    guard = fighter("Guard", OPP, weapons=[sword(name="Blade")])
    engine = parry_setup(guard, attackers=2)
    engine.begin_turn("guard")
    script.parry(engine, "guard", weapon="Blade")
    engine.end_turn()
    engine.begin_turn("p0")
    hit = resolved(script.attack(engine, "p0", "guard", "Sword", faces=[6, 1]))
    assert hit.stopped == 7 and hit.to_sp == 0
    assert c(engine, "guard").weapon("Blade").state is WeaponState.BROKEN
    engine.end_turn()
    engine.begin_turn("p1")
    assert resolved(script.attack(engine, "p1", "guard", "Sword", faces=[2])).to_sp == 2


def test_explosions_of_one_blow_all_count_against_the_parrying_weapon():
    guard = fighter("Guard", OPP, weapons=[sword(name="Blade", magic_bonus=2)])
    engine = parry_setup(guard, attackers=1)
    engine.edit("p0", level=3)
    engine.begin_turn("guard")
    script.parry(engine, "guard", weapon="Blade")
    engine.end_turn()
    engine.begin_turn("p0")
    hit = resolved(script.attack(engine, "p0", "guard", "Sword", faces=[6, 6, 6, 1, 1]))  # 3 explosions
    assert hit.stopped == hit.damage == 20
    assert c(engine, "guard").weapon("Blade").state is WeaponState.BROKEN
    assert c(engine, "guard").stamina == 20


def shield_guard(**shield) -> Combatant:
    return fighter("Guard", OPP, stamina_max=30, shield=Shield(**shield))


def test_shield_parry_takes_double_damage_then_breaks_with_overflow():
    engine = parry_setup(shield_guard(armor=1, durability=10, durability_max=10))
    assert c(engine, "guard").armor_points == 1
    engine.begin_turn("guard")
    script.parry(engine, "guard", shield=True)
    engine.end_turn()

    engine.begin_turn("p0")
    first = resolved(script.attack(engine, "p0", "guard", "Sword", faces=[4]))  # 4 - AP 1 = 3
    assert first.damage == 3 and first.parried_with == "shield"
    assert first.shield_damage == 6 and first.stopped == 3 and first.to_sp == 0
    g = c(engine, "guard")
    assert g.shield.durability == 4 and g.stamina == 30
    engine.end_turn()

    engine.begin_turn("p1")
    events = script.attack(engine, "p1", "guard", "Sword", faces=[5])  # 5 - 1 = 4, doubled 8 > 4 left
    second = resolved(events)
    assert second.damage == 4
    assert second.to_sp == 4 - math.ceil(4 / 2)
    assert any(isinstance(e, ShieldDestroyed) and e.combatant == "guard" for e in events)
    g = c(engine, "guard")
    assert g.shield.state.value == "destroyed"
    assert g.armor_points == 0
    assert g.stamina == 28
    assert g.parry is None
    engine.end_turn()

    engine.begin_turn("p2")
    third = resolved(script.attack(engine, "p2", "guard", "Sword", faces=[3]))
    assert third.ap_term == 0 and third.parried_with is None
    assert third.to_sp == 3
    assert c(engine, "guard").stamina == 25


@pytest.mark.parametrize(("left", "damage", "through"), [(3, 5, 3), (1, 4, 3), (0, 2, 2), (7, 5, 1)])
def test_shield_overflow_is_damage_minus_half_the_durability_left_rounded_up(left, damage, through):
    guard = shield_guard(armor=0, durability=left, durability_max=10)
    engine = parry_setup(guard, attackers=1)
    engine.begin_turn("guard")
    script.parry(engine, "guard", shield=True)
    engine.end_turn()
    engine.begin_turn("p0")
    hit = resolved(script.attack(engine, "p0", "guard", "Sword", faces=[damage]))
    assert hit.damage == damage
    assert hit.to_sp == through == damage - math.ceil(left / 2)
    assert c(engine, "guard").shield.state.value == "destroyed"


def test_shield_holds_when_the_doubled_damage_equals_the_durability_left():
    engine = parry_setup(shield_guard(armor=0, durability=6, durability_max=10), attackers=1)
    engine.begin_turn("guard")
    script.parry(engine, "guard", shield=True)
    engine.end_turn()
    engine.begin_turn("p0")
    hit = resolved(script.attack(engine, "p0", "guard", "Sword", faces=[3]))
    assert hit.to_sp == 0 and hit.stopped == 3
    g = c(engine, "guard")
    assert g.shield.durability == 0 and g.shield.state.value == "carried"


def test_parry_ends_when_the_parriers_next_turn_begins():
    guard = fighter("Guard", OPP, weapons=[sword(name="Blade", magic_bonus=5)])
    engine = parry_setup(guard, attackers=1)
    engine.begin_turn("guard")
    script.parry(engine, "guard", weapon="Blade")
    engine.end_turn()
    engine.begin_turn("p0")
    assert resolved(script.attack(engine, "p0", "guard", "Sword", faces=[3])).stopped == 3
    engine.end_turn()
    # Round 2, the Party first: the parry still holds until the guard's own turn.
    next_round(engine, PARTY)
    engine.begin_turn("p0")
    assert resolved(script.attack(engine, "p0", "guard", "Sword", faces=[4])).stopped == 4
    engine.end_turn()
    events = engine.begin_turn("guard")
    assert any(isinstance(e, ParryEnded) and e.combatant == "guard" for e in events)
    assert c(engine, "guard").parry is None
    engine.end_turn()
    next_round(engine, PARTY)
    engine.begin_turn("p0")
    hit = resolved(script.attack(engine, "p0", "guard", "Sword", faces=[4]))
    assert hit.parried_with is None and hit.to_sp == 4
    assert c(engine, "guard").stamina == 16


def test_parry_stops_direct_ranged_damage_too():
    guard = fighter("Guard", OPP, weapons=[sword(name="Blade", magic_bonus=1)])
    engine = make_engine((guard, (5, 5), NORTH), (archer(), (5, 9), NORTH))
    start(engine, OPP)
    engine.begin_turn("guard")
    script.parry(engine, "guard", weapon="Blade")
    engine.end_turn()
    engine.begin_turn("archer")
    hit = resolved(script.attack(engine, "archer", "guard", "Bow", faces=[5, 1]))
    assert hit.direct and hit.stopped == 7 and hit.to_ip == 0
    assert c(engine, "guard").injury == 10


def test_parry_needs_an_intact_weapon_or_a_shield():
    guard = fighter("Guard", OPP, weapons=[sword(name="Blade", state="broken")])
    engine = parry_setup(guard, attackers=1)
    engine.begin_turn("guard")
    with pytest.raises(IllegalAction):
        script.parry(engine, "guard", weapon="Blade")
    with pytest.raises(IllegalAction):
        script.parry(engine, "guard", shield=True)
    assert c(engine, "guard").parry is None


# -- sneak attacks ------------------------------------------------------------------------------


def rogue(**fields) -> Combatant:
    data = {
        "level": 3,
        "str_bonus": 1,
        "dex_bonus": 3,
        "awa_bonus": 2,
        "move_ft": 30,
        "weapons": [Weapon(name="Dagger", die="d4", style="finesse"), Weapon(name="Club", die="d6")],
    }
    data.update(fields)
    return fighter("Rogue", PARTY, **data)


def orc(**fields) -> Combatant:
    data = {"dex_bonus": 2, "armor": 2, "stamina_max": 30, "injury_max": 20}
    data.update(fields)
    return fighter("Orc", OPP, **data)


def sneak_reasons(engine: Engine, target: str = "orc", weapon: str = "Dagger") -> list[str]:
    return [f"{ch.label}: {ch.reason}" for ch in script.sneak_checks(engine, "rogue", target, weapon) if ch.blocks]


def test_sneak_refused_when_the_attacker_attacked_this_target_last_round():
    # Behind the orc and concealed: only the first point fails.
    engine = make_engine((rogue(), (5, 6), NORTH), (orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    script.attack(engine, "rogue", "orc", "Club", faces=[3, 3])
    engine.end_turn()
    engine.begin_turn("orc")
    engine.end_turn()
    next_round(engine, PARTY)
    engine.edit("rogue", concealed=True)
    engine.begin_turn("rogue")
    before = engine.encounter.model_dump()
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[20, 1, 1])
    reasons = reasons_of(excinfo)
    assert len(reasons) == 1
    assert "last round" in reasons[0] and "round 1" in reasons[0]
    assert engine.encounter.model_dump() == before


def test_sneak_allowed_when_the_last_attack_on_the_target_was_two_rounds_ago():
    engine = make_engine((rogue(), (5, 6), NORTH), (orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    script.attack(engine, "rogue", "orc", "Club", faces=[3, 3])
    engine.end_turn()
    next_round(engine, PARTY)
    engine.begin_turn("rogue")
    engine.end_turn()
    next_round(engine, PARTY)
    engine.edit("rogue", concealed=True)
    engine.begin_turn("rogue")
    assert sneak_reasons(engine) == []


def test_sneak_refused_when_not_concealed_and_the_target_not_distracted():
    # In front of the orc, in its view, nobody else near it.
    engine = make_engine((rogue(), (5, 4), SOUTH), (orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[20, 1, 1])
    reasons = reasons_of(excinfo)
    assert len(reasons) == 1
    assert "not distracted" in reasons[0]
    assert c(engine, "orc").injury == 20


def test_sneak_refused_when_concealed_but_starting_farther_than_half_move():
    # Concealed at 20 ft (half Move is 15 ft), moves up behind the orc.
    engine = make_engine((rogue(concealed=True), (5, 9), NORTH), (orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    engine.move("rogue", to=(5, 6))
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[20, 1, 1])
    reasons = reasons_of(excinfo)
    assert len(reasons) == 1
    assert "half Move" in reasons[0] and "20 ft" in reasons[0]


def test_sneak_allowed_when_concealed_and_starting_exactly_half_move_away():
    engine = make_engine((rogue(concealed=True), (5, 8), NORTH), (orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    engine.move("rogue", to=(5, 6))
    assert sneak_reasons(engine) == []


def test_sneak_with_a_power_weapon_has_no_awa_check_and_ap_applies():
    target = orc()
    dice = ScriptedDice([3, 2])
    out = resolve_attack(rogue(), target, "Club", dice, mode=SNEAK)
    assert out.precision is None
    assert dice.remaining == []
    assert out.ability == "STR" and out.ability_term == 1
    assert out.ap_term == 2 and not out.ap_ignored
    assert out.dex_term == 0 and out.dex_ignored
    assert out.damage == 3 + 2 + 1 - 2
    assert out.direct and out.application.to_ip == 4 and out.application.to_sp == 0


def test_sneak_with_a_ranged_weapon_checks_awa_first_and_exerts_last():
    a = rogue(weapons=[bow(die="d8")])
    dice = ScriptedDice([12, 5, 3, 4])
    out = resolve_attack(a, orc(), "Bow", dice, mode=SNEAK)
    assert out.precision is not None and out.precision.face == 12
    assert out.precision.total == 14 and out.precision.dc == 12 and out.precision.success
    assert [f.face for f in out.faces] == [5, 3]
    assert out.damage == 8 + 2  # AWA, no DEX of the target, AP ignored
    assert out.exertion_face == 4
    assert out.application.injury_after == 10
    assert dice.remaining == []


def test_sneak_magic_bonus_adds_n_times_b():
    a = rogue(weapons=[Weapon(name="Dagger", die="d4", style="finesse", magic_bonus=2)])
    out = resolve_attack(a, orc(), "Dagger", ScriptedDice([20, 1, 1]), mode=SNEAK)
    assert out.magic_term == 4
    assert out.damage == 2 + 4 + 3


def test_target_engaged_in_melee_with_another_creature_is_distracted():
    # The rogue stands in the orc's view; a fighter engages the orc from behind.
    engine = make_engine((rogue(), (4, 5), EAST), (orc(), (5, 5), WEST), (fighter("Ally"), (6, 5), WEST))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    checks = {ch.label: ch for ch in script.sneak_checks(engine, "rogue", "orc", "Dagger")}
    point = checks["Concealed, or the target distracted"]
    assert point.ok and "engaged in melee with Ally" in point.reason
    hit = resolved(script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[1, 2, 2]))
    assert hit.overrides == [] and hit.direct
    assert c(engine, "orc").injury == 20 - (4 + 3 - 2)


def test_an_ally_of_the_target_next_to_it_is_no_distraction():
    engine = make_engine((rogue(), (4, 5), EAST), (orc(), (5, 5), WEST), (fighter("Goblin", OPP), (6, 5), WEST))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    assert any("not distracted" in r for r in sneak_reasons(engine))


def test_target_hit_by_another_creatures_ranged_attack_is_distracted_until_its_turn():
    engine = make_engine((rogue(), (4, 5), EAST), (orc(), (5, 5), WEST), (archer(), (9, 5), WEST))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    assert any("not distracted" in r for r in sneak_reasons(engine))
    engine.end_turn()
    engine.begin_turn("archer")
    script.attack(engine, "archer", "orc", "Bow", faces=[1, 1])
    engine.end_turn()
    # The rogue already ended its turn this round; check the point as it would stand.
    point = {ch.label: ch for ch in script.sneak_checks(engine, "rogue", "orc", "Dagger")}[
        "Concealed, or the target distracted"
    ]
    assert point.ok and "Archer" in point.reason
    # The orc's own turn comes: the distraction is over.
    engine.begin_turn("orc")
    engine.end_turn()
    next_round(engine, PARTY)
    engine.begin_turn("rogue")
    assert any("not distracted" in r for r in sneak_reasons(engine))


def test_sneak_attack_right_after_another_creatures_ranged_hit():
    engine = make_engine((rogue(), (4, 5), EAST), (orc(), (5, 5), WEST), (archer(), (9, 5), WEST))
    start(engine, PARTY)
    engine.begin_turn("archer")
    script.attack(engine, "archer", "orc", "Bow", faces=[1, 1])
    engine.end_turn()
    engine.begin_turn("rogue")
    hit = resolved(script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[1, 2, 2]))
    assert hit.overrides == []


def test_approach_outside_the_vision_cone_counts_as_concealment():
    # The orc looks north; the rogue comes up from the south, 15 ft away at the start.
    engine = make_engine((rogue(), (5, 8), NORTH), (orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    engine.move("rogue", path=[(5, 8), (5, 7), (5, 6)])
    point = {ch.label: ch for ch in script.sneak_checks(engine, "rogue", "orc", "Dagger")}[
        "Concealed, or the target distracted"
    ]
    assert point.ok and "outside" in point.reason
    hit = resolved(script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[1, 2, 2]))
    assert hit.overrides == []


def test_approach_that_crosses_the_vision_cone_is_no_concealment():
    # Starts in front of the orc and circles round to its back.
    engine = make_engine((rogue(), (5, 2), SOUTH), (orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    engine.move("rogue", path=[(5, 2), (6, 3), (7, 4), (7, 5), (6, 6)])
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[1, 2, 2])
    assert any("crossed" in r for r in reasons_of(excinfo))


def test_a_360_degree_target_cannot_be_approached_unseen():
    engine = make_engine((rogue(), (5, 8), NORTH), (orc(vision_deg=360), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    engine.move("rogue", path=[(5, 8), (5, 7), (5, 6)])
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[1, 2, 2])
    reasons = reasons_of(excinfo)
    assert len(reasons) == 1 and "sees all around" in reasons[0]


def test_the_concealed_flag_ends_after_a_sneak_attack():
    engine = make_engine((rogue(concealed=True), (5, 6), NORTH), (orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    assert c(engine, "rogue").concealed
    script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[1, 2, 2])
    assert not c(engine, "rogue").concealed


def test_gm_override_lets_an_ineligible_sneak_attack_through_and_logs_it():
    engine = make_engine((rogue(), (5, 4), SOUTH), (orc(), (5, 5), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    events = script.attack(engine, "rogue", "orc", "Dagger", SNEAK, faces=[1, 2, 2], override=True)
    hit = resolved(events)
    assert hit.mode == "sneak attack" and hit.direct
    assert len(hit.overrides) == 1 and "not distracted" in hit.overrides[0]
    overrides = [e for e in events if isinstance(e, Override)]
    assert len(overrides) == 1 and "not distracted" in overrides[0].text
    assert overrides[0] in engine.encounter.log
    assert c(engine, "orc").injury == 20 - 5


# -- spells --------------------------------------------------------------------------------------


def mage(*spells: Spell, **fields) -> Combatant:
    data = {"level": 5, "str_bonus": 5, "dex_bonus": 5, "awa_bonus": 5, "spells": list(spells)}
    data.update(fields)
    return fighter("Mage", PARTY, **data)


FIRE_FACES = [8, 2, 3, 5]  # 3 d8s, the 8 explodes into 5: 18


def test_spell_rolls_n_dice_of_its_die_exploding_without_ability():
    caster = mage(Spell(name="Fire", die="d8"))
    target = orc(stamina_max=40, dex_bonus=2, armor=1)
    dice = ScriptedDice([*FIRE_FACES, 4])
    out = resolve_attack(caster, target, "Fire", dice, mode=AttackMode.SPELL)
    assert out.dice_count == 3
    assert [f.face for f in out.faces] == FIRE_FACES
    assert out.ability is None and out.ability_term == 0
    assert out.magic_term == 0
    assert out.damage == 18 - 2 - 1
    assert out.exertion_face is None and dice.remaining == [4]
    assert not out.direct and out.application.stamina_after == 25


@pytest.mark.parametrize(
    ("fields", "damage"),
    [({"dex_applies": False}, 17), ({"ap_applies": False}, 16), ({"ability": "AWA"}, 20)],
)
def test_spell_fields_for_dex_ap_and_ability(fields, damage):
    caster = mage(Spell(name="Fire", die="d8", **fields))
    target = orc(dex_bonus=2, armor=1)
    out = resolve_attack(caster, target, "Fire", ScriptedDice(FIRE_FACES), mode=AttackMode.SPELL)
    assert out.damage == damage


def test_direct_spell_goes_to_ip():
    caster = mage(Spell(name="Bolt", die="d4", direct=True))
    out = resolve_attack(caster, orc(armor=0, dex_bonus=0), "Bolt", ScriptedDice([1, 2, 3]), mode=AttackMode.SPELL)
    assert out.direct and out.application.to_ip == 6 and out.application.injury_after == 14


def test_casting_in_the_engine_and_spell_range():
    caster = mage(Spell(name="Fire", die="d8", range_ft=30))
    engine = make_engine((caster, (0, 0), EAST), (orc(stamina_max=40, dex_bonus=2, armor=1), (7, 0), WEST))
    start(engine, PARTY)
    engine.begin_turn("mage")
    with pytest.raises(IllegalAction) as excinfo:
        script.cast(engine, "mage", "orc", "Fire", faces=FIRE_FACES)
    assert any("range" in r for r in reasons_of(excinfo))
    engine.move("mage", to=(1, 0))
    hit = resolved(script.cast(engine, "mage", "orc", "Fire", faces=FIRE_FACES))
    assert hit.mode == "spell" and hit.damage == 15
    assert c(engine, "orc").stamina == 25
    assert c(engine, "mage").stamina == 20


def test_a_distracted_target_can_be_sneak_attacked_by_a_concealed_attacker_from_afar():
    # RULES §7 point 2 is "concealed OR distracted"; the half-Move limit belongs to concealment.
    # The orc is engaged by a fighter, so it is distracted; a rogue who also happens to be
    # hidden must not be worse off than one standing in plain view.
    engine = make_engine(
        (rogue(concealed=True), (5, 10), NORTH), (orc(), (5, 5), NORTH), (fighter("Ally"), (5, 4), SOUTH)
    )
    start(engine, PARTY)
    engine.begin_turn("rogue")
    engine.move("rogue", to=(5, 6))
    assert sneak_reasons(engine) == []


def test_a_distracted_target_can_be_sneak_attacked_from_afar_in_plain_view():
    # The same approach without concealment: allowed through distraction alone.
    engine = make_engine((rogue(), (5, 0), SOUTH), (orc(), (5, 5), NORTH), (fighter("Ally"), (5, 6), NORTH))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    engine.move("rogue", to=(5, 4))
    assert sneak_reasons(engine) == []


def test_parry_may_still_move_afterwards():
    guard = fighter("Guard", OPP, weapons=[sword(name="Blade")])
    engine = parry_setup(guard, attackers=1)
    engine.begin_turn("guard")
    script.parry(engine, "guard", weapon="Blade")
    engine.move("guard", to=(7, 7))
    assert engine.encounter.tokens["guard"].cell == (7, 7)
    assert c(engine, "guard").parry is not None


def test_parry_with_a_sheathed_weapon_is_refused():
    # RULES §6: "It needs a ready weapon or a shield."
    guard = fighter("Guard", OPP, weapons=[sword(name="Blade", state="sheathed")])
    engine = parry_setup(guard, attackers=1)
    engine.begin_turn("guard")
    with pytest.raises(IllegalAction):
        script.parry(engine, "guard", weapon="Blade")
    assert c(engine, "guard").parry is None


def test_sneak_awa_check_dc_counts_a_carried_shield_in_ap():
    # AP is armor plus a carried shield: DC 10 + 2 + 1 = 13; 10 + AWA 2 = 12 fails, all 3 AP apply.
    target = orc(armor=2, shield=Shield(armor=1))
    out = resolve_attack(rogue(), target, "Dagger", ScriptedDice([10, 3, 3]), mode=SNEAK)
    assert out.precision is not None and out.precision.dc == 13 and not out.precision.success
    assert out.ap_term == 3
    assert out.damage == 6 + 3 - 3


def test_attacking_with_a_sheathed_weapon_draws_it():
    # RULES §3: drawing a ready weapon is part of the attack; afterwards it is in hand.
    a = fighter("A", weapons=[sword(state="sheathed")])
    engine = make_engine((a, (3, 3), EAST), (fighter("T", OPP), (4, 3), WEST))
    start(engine, PARTY)
    engine.begin_turn("a")
    assert resolved(script.attack(engine, "a", "t", "Sword", faces=[3])).damage == 3
    assert c(engine, "a").weapon("Sword").state is WeaponState.READY


# -- Euclidean distances: adjacent means adjacent (RULES §4) --------------------------------------


def euclidean(engine: Engine) -> Engine:
    engine.encounter.map = engine.encounter.map.model_copy(update={"diagonal": DiagonalRule.EUCLIDEAN})
    return engine


def test_euclidean_melee_reaches_a_diagonal_neighbour_but_not_two_cells_off():
    a = fighter("A", weapons=[sword()])
    engine = euclidean(
        make_engine((a, (3, 3), EAST), (fighter("T", OPP), (4, 4), WEST), (fighter("U", OPP), (5, 1), WEST))
    )
    start(engine, PARTY)
    engine.begin_turn("a")
    checks = {ch.label: ch for ch in engine.attack_checks("a", "t", "Sword")}
    assert checks["Within 5 ft (melee)"].ok, checks["Within 5 ft (melee)"].reason
    assert resolved(script.attack(engine, "a", "t", "Sword", faces=[3])).damage == 3
    far = {ch.label: ch for ch in engine.attack_checks("a", "u", "Sword")}
    assert not far["Within 5 ft (melee)"].ok  # (2, 2) cells away: 11.2 ft


def test_euclidean_engagement_on_a_diagonal_distracts_the_target():
    # The ally stands diagonally behind the orc: engaged in melee, so the orc is distracted.
    engine = euclidean(make_engine((rogue(), (4, 5), EAST), (orc(), (5, 5), WEST), (fighter("Ally"), (6, 6), WEST)))
    start(engine, PARTY)
    engine.begin_turn("rogue")
    checks = {ch.label: ch for ch in script.sneak_checks(engine, "rogue", "orc", "Dagger")}
    point = checks["Concealed, or the target distracted"]
    assert point.ok and "engaged in melee with Ally" in point.reason

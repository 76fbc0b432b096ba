"""The exact damage forecast (lnl_desktop.core.rules.lnl.odds) against closed forms and the engine itself.

The closed forms: one exploding die of s sides has mean (s+1)/2 * s/(s-1), and a total of m*s + r
has probability (1/s)**(m+1). The engine: small attacks are enumerated face by face through
``resolve_attack`` with scripted dice, and the forecast must give every fully enumerated damage
value exactly the probability the enumeration does.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lnl_desktop.core import (
    AttackMode,
    Combatant,
    RandomDice,
    RulesOptions,
    ScriptedDice,
    Shield,
    Side,
    Spell,
    Weapon,
)
from lnl_desktop.core.dice.odds import Forecast, Threshold, dice_total, exploding_die, explosions_at_least, mean_of
from lnl_desktop.core.rules.lnl import forecast_attack
from lnl_desktop.core.rules.lnl.examples import cedryk, half_orc, hill_giant, tombril
from lnl_desktop.core.rules.lnl.model import ParryState
from lnl_desktop.core.rules.lnl.odds import precision_chance
from lnl_desktop.core.rules.lnl.rules import LNL_RULES, apply_damage

PARTY, OPP = Side.PARTY, Side.OPPONENTS
ATTACK, POWER, SNEAK, SPELL = AttackMode.ATTACK, AttackMode.POWER, AttackMode.SNEAK, AttackMode.SPELL
EXACT = {"rel": 1e-12, "abs": 1e-15}


def fighter(name: str, side: Side = PARTY, **fields) -> Combatant:
    data = {"name": name, "side": side, "level": 1, "stamina_max": 20, "injury_max": 10}
    data.update(fields)
    return Combatant(**data)


def forecast(attacker: Combatant, target: Combatant, name: str, mode: AttackMode = ATTACK, **options) -> Forecast:
    means = attacker.spell(name) if mode is SPELL else attacker.weapon(name)
    return forecast_attack(attacker, target, means, mode, RulesOptions(**options))


def threshold(fc: Forecast, label: str) -> Threshold | None:
    """The state the forecast names ``label`` ("SP 0", "down"), None if this attack cannot reach it."""
    return next((t for t in fc.thresholds if t.label == label), None)


def p_sp_empty(fc: Forecast) -> float:
    """The chance the blow leaves the target at 0 SP (the forecast's "SP 0" line; 0 without one)."""
    sp_0 = threshold(fc, "SP 0")
    return 0.0 if sp_0 is None else sp_0.chance


def direct(fc: Forecast) -> bool:
    """The forecast's damage goes straight to IP, as its words say."""
    return fc.where == "to IP (direct)"


# -- the dice ------------------------------------------------------------------------------------


def test_one_exploding_d6_has_mean_4_2_and_a_7_is_one_in_36():
    p = exploding_die(6)
    assert mean_of(p) == pytest.approx(4.2, **EXACT)
    assert p[7] == pytest.approx(1 / 36, **EXACT)
    assert p[5] == pytest.approx(1 / 6, **EXACT)
    assert p[6] == 0.0 and p[12] == 0.0  # a maximum always rolls again
    assert p[0] == 0.0


@pytest.mark.parametrize("sides", [2, 4, 6, 8, 10, 12, 20])
def test_exploding_die_matches_the_closed_form_and_sums_to_one(sides):
    p = exploding_die(sides)
    assert p.sum() == pytest.approx(1.0, **EXACT)
    for m in range(4):
        for r in range(1, sides):
            assert p[m * sides + r] == pytest.approx((1 / sides) ** (m + 1), **EXACT)
    assert mean_of(p) == pytest.approx((sides + 1) / 2 * sides / (sides - 1), **EXACT)


@pytest.mark.parametrize(("count", "sides"), [(1, 4), (2, 6), (4, 4), (6, 6), (8, 8), (10, 10), (20, 10)])
def test_n_exploding_dice_sum_has_the_expected_mean(count, sides):
    p = dice_total(count, sides)
    assert p.sum() == pytest.approx(1.0, **EXACT)
    assert mean_of(p) == pytest.approx(count * (sides + 1) / 2 * sides / (sides - 1), **EXACT)
    assert p[:count].sum() == 0.0  # every die shows at least 1
    assert p[count] == pytest.approx((1 / sides) ** count, **EXACT)


def test_two_dice_by_hand():
    # Two exploding d4: 2 only as 1+1; 5 as 2+3 or 3+2 (a 4 explodes, so 1+4 is at least 1+(4+1) = 6).
    p = dice_total(2, 4)
    assert p[2] == pytest.approx(1 / 16, **EXACT)
    assert p[5] == pytest.approx(2 / 16, **EXACT)
    assert p[6] == pytest.approx(1 / 16 + 2 / 64, **EXACT)  # 3+3, and 1+(4+1) either way round
    assert dice_total(0, 6).tolist() == [1.0]


def test_explosion_count_is_negative_binomial():
    assert explosions_at_least(1, 6, 1) == pytest.approx(1 / 6, **EXACT)
    assert explosions_at_least(2, 6, 1) == pytest.approx(1 - (5 / 6) ** 2, **EXACT)
    assert explosions_at_least(1, 4, 2) == pytest.approx(1 / 16, **EXACT)
    assert explosions_at_least(3, 4, 0) == 1.0


def test_precision_chance():
    assert precision_chance(4, 13) == pytest.approx(12 / 20)  # faces 9..20
    assert precision_chance(0, 31) == 0.0
    assert precision_chance(10, 5) == 1.0


# -- the worked examples of RULES §5 -------------------------------------------------------------


def test_example_1_tombril_can_roll_31_against_the_giant():
    fc = forecast(tombril(), hill_giant(), "Shortsword")
    assert fc.damage.get(31, 0.0) > 0
    assert not direct(fc) and fc.where == "to SP first"
    assert "AWA check" not in fc.summary  # no precision check
    # 5 exploding d6 (mean 21) + 5 x 2 + 8 - 3 - 1.
    assert fc.mean == pytest.approx(21 + 10 + 8 - 4, **EXACT)
    assert fc.total == pytest.approx(1.0, **EXACT)
    # 5 dice total at least 5: the least the Giant can take is 5 + 14 = 19.
    assert min(fc.damage) == 19
    assert fc.damage[19] == pytest.approx((1 / 6) ** 5, **EXACT)
    assert fc.summary.startswith("Mean 35.0 damage")


def test_example_2_the_giant_can_roll_43_against_tombril():
    fc = forecast(hill_giant(), tombril(), "Club")
    assert fc.damage.get(43, 0.0) > 0
    assert fc.mean == pytest.approx(6 * 4.2 + 9 - 8, **EXACT)
    # Tombril has 55 SP and 12 IP: he goes down only from 67 damage up.
    assert fc.p_down == pytest.approx(fc.chance_at_least(67), **EXACT)
    assert p_sp_empty(fc) == pytest.approx(fc.chance_at_least(55), **EXACT)


def test_example_3_cedryks_sneak_attack_can_roll_12_and_the_check_is_12_in_20():
    fc = forecast(cedryk(), half_orc(), "Dagger", SNEAK)
    assert fc.damage.get(12, 0.0) > 0
    assert fc.damage.get(9, 0.0) > 0  # the failed-check case of the example
    assert direct(fc)
    assert "AWA check 60%" in fc.summary  # the precision check's 12 in 20 (its exact chance is in the mean below)
    # DEX never subtracted; AP 3 with the chance of a failed check: 2 d4 (mean 2 x 10/3) + DEX 4.
    assert fc.mean == pytest.approx(2 * 10 / 3 + 4 - 3 * 8 / 20, **EXACT)
    assert p_sp_empty(fc) == 0.0  # direct damage never touches SP


# -- agreement with the engine, by enumeration ---------------------------------------------------

DEPTH = 3  # explosions per die enumerated


def chains(sides: int) -> list[list[int]]:
    """Every run of one die with at most DEPTH explosions: [r], [s, r], [s, s, r], ..."""
    return [[sides] * m + [r] for m in range(DEPTH + 1) for r in range(1, sides)]


def wave_order(runs: tuple[list[int], ...]) -> list[int]:
    """The faces in the order ``roll_exploding`` asks for them: base dice, then each wave of explosions."""
    faces: list[int] = []
    for wave in range(DEPTH + 1):
        faces.extend(run[wave] for run in runs if len(run) > wave)
    return faces


def enumerate_engine(
    attacker: Combatant, target: Combatant, means, mode: AttackMode, options: RulesOptions, base: int
) -> tuple[dict[int, float], dict[int, set[int]], set[int], float]:
    """P(damage) over every enumerated roll, what comes off the target per damage, the offsets seen,
    and the enumerated chance of not going down."""
    sides = int(means.die[1:])
    precision = mode is SNEAK and (means.kind.value == "ranged" or means.style.value == "finesse")
    d20s = range(1, 21) if precision else [None]
    probs: dict[int, float] = defaultdict(float)
    taken: dict[int, set[int]] = defaultdict(set)
    offsets: set[int] = set()
    up = 0.0
    for d20 in d20s:
        for runs in itertools.product(chains(sides), repeat=base):
            faces = wave_order(runs)
            p = (1 / sides) ** len(faces) * (1 / 20 if d20 is not None else 1)
            script = ([d20] if d20 is not None else []) + faces + [1]  # a last d4 for any exertion
            out = LNL_RULES.resolve_attack(attacker, target, means, mode, ScriptedDice(script), options)
            assert out.dice_total == sum(faces)
            probs[out.damage] += p
            taken[out.damage].add(out.application.to_sp + out.application.to_ip)
            offsets.add(out.raw - out.dice_total)
            if out.application.injury_after > 0:
                up += p
    return dict(probs), dict(taken), offsets, up


CASES = [
    # attacker fields, weapon, target fields, mode, options
    ({"level": 1, "str_bonus": 2}, {"die": "d4"}, {"dex_bonus": 1, "armor": 1}, ATTACK, {}),
    ({"level": 2, "str_bonus": 1}, {"die": "d6", "magic_bonus": 1}, {"dex_bonus": 2, "armor": 3}, ATTACK, {}),
    ({"level": 3, "dex_bonus": 3}, {"die": "d6", "style": "finesse"}, {"dex_bonus": 1, "armor": 2}, ATTACK, {}),
    ({"level": 1}, {"die": "d6", "magic_bonus": 2}, {"armor": 4, "injury_max": 3}, POWER, {}),
    ({"level": 3}, {"die": "d4", "magic_bonus": 1}, {"armor": 5}, POWER, {"power_attack_magic_all_dice": False}),
    ({"level": 3, "dex_bonus": 4, "awa_bonus": 4}, {"die": "d4", "style": "finesse"}, {"armor": 3}, SNEAK, {}),
    ({"level": 2, "awa_bonus": 1}, {"die": "d6", "kind": "ranged"}, {"dex_bonus": 3, "armor": 2}, SNEAK, {}),
    ({"level": 3, "str_bonus": 2}, {"die": "d6", "magic_bonus": 1}, {"armor": 2}, SNEAK, {"sneak_magic_bonus": False}),
    ({"level": 3, "awa_bonus": -2}, {"die": "d4", "kind": "ranged"}, {"dex_bonus": 4, "armor": 6}, ATTACK, {}),
    ({"level": 1}, {"die": "d4"}, {"dex_bonus": 3, "armor": 3}, ATTACK, {"minimum_damage": 2}),
    ({"level": 2}, {"die": "d6"}, {"stamina_max": 3, "injury_max": 2}, ATTACK, {"spill_to_injury": False}),
]


@pytest.mark.parametrize(("att", "weapon", "tgt", "mode", "opts"), CASES)
def test_forecast_agrees_with_resolve_attack_enumerated(att, weapon, tgt, mode, opts):
    attacker = fighter("A", **att)
    target = fighter("T", OPP, stamina_max=tgt.pop("stamina_max", 6), **tgt)
    means = Weapon(name="W", **weapon)
    options = RulesOptions(**opts)
    fc = forecast_attack(attacker, target, means, mode, options)
    base = fc.dice
    probs, taken, offsets, up = enumerate_engine(attacker, target, means, mode, options, base)

    sides = int(means.die[1:])
    # A dropped roll (a die with more than DEPTH explosions) totals at least 4s + base: every
    # damage below that plus the smallest offset is fully enumerated.
    complete_below = 4 * sides + base + min(offsets)
    assert complete_below > options.minimum_damage + 2
    checked = 0
    for amount in range(options.minimum_damage, complete_below):
        assert fc.damage.get(amount, 0.0) == pytest.approx(probs.get(amount, 0.0), **EXACT), amount
        checked += amount in probs
    assert checked >= 3
    # Every damage the engine can roll is in the forecast's support, and nothing below the minimum.
    assert set(probs) <= set(fc.damage)
    assert min(fc.damage) >= options.minimum_damage
    # What comes off the target depends on the damage only, and the forecast agrees.
    for amount, seen in taken.items():
        assert len(seen) == 1
        app = apply_damage(target, amount, direct(fc), 0, options)
        assert seen == {app.to_sp + app.to_ip}
    # If staying up only needs small damage, the enumeration sees all of it.
    if direct(fc):
        stays_up_below = target.injury
    else:
        stays_up_below = target.stamina + target.injury if options.spill_to_injury else math.inf
    if stays_up_below < complete_below:
        assert 1 - fc.p_down == pytest.approx(up, **EXACT)


def test_a_spell_forecast_agrees_with_the_engine():
    caster = fighter("Mage", level=3, awa_bonus=2, spells=[Spell(name="Bolt", die="d6", ability="AWA", direct=True)])
    target = fighter("T", OPP, dex_bonus=2, armor=1, injury_max=4)
    spell = caster.spell("Bolt")
    fc = forecast_attack(caster, target, spell, SPELL, RulesOptions())
    probs, _, offsets, up = enumerate_engine(caster, target, spell, SPELL, RulesOptions(), 2)
    assert offsets == {2 - 2 - 1}
    assert direct(fc)
    for amount in range(0, 4 * 6 + 2 - 1):
        assert fc.damage.get(amount, 0.0) == pytest.approx(probs.get(amount, 0.0), **EXACT)
    assert 1 - fc.p_down == pytest.approx(up, **EXACT)
    ghost = Spell(name="Ghost", die="d4", dex_applies=False, ap_applies=False)
    fc = forecast_attack(caster, target, ghost, SPELL, RulesOptions())
    assert min(fc.damage) == 2  # 2 dice, no ability, nothing subtracted
    assert not direct(fc)


# -- where the damage goes -----------------------------------------------------------------------


def test_p_down_of_a_one_ip_target_hit_directly_is_p_damage_at_least_1():
    target = fighter("T", OPP, dex_bonus=2, armor=4, injury_max=5)
    target = target.model_copy(update={"injury": 1})
    shooter = fighter("S", level=3, awa_bonus=1, weapons=[Weapon(name="Bow", die="d6", kind="ranged")])
    fc = forecast(shooter, target, "Bow")
    assert direct(fc)
    assert 0 < fc.p_down < 1
    assert fc.p_down == pytest.approx(fc.chance_at_least(1), **EXACT)
    assert fc.p_down == pytest.approx(1 - fc.damage[0], **EXACT)
    assert fc.taken == pytest.approx({0: fc.damage[0], 1: fc.p_down})


def test_a_weapon_parry_stops_everything_and_may_shatter():
    target = fighter("T", OPP, weapons=[Weapon(name="Sword", die="d6", magic_bonus=1)])
    target = target.model_copy(update={"parry": ParryState(weapon="Sword")})
    fc = forecast(tombril(), target, "Shortsword")
    assert fc.mean > 30
    assert set(fc.taken) == {0}
    assert fc.taken[0] == pytest.approx(1.0, **EXACT)
    assert fc.mean_taken == 0.0
    assert fc.p_down == 0.0 and p_sp_empty(fc) == 0.0
    assert fc.thresholds == ()  # nothing gets through: no state is reached
    # A +1 weapon shatters on the second exploding die: 5 d6 with at least 2 maxima (26%, in whole percents).
    shatters = explosions_at_least(5, 6, 2)
    assert f"parried with Sword: all stopped, {shatters * 100:.0f}% it shatters" in fc.summary


def test_a_shield_parry_follows_the_overflow_rule():
    target = fighter("T", OPP, stamina_max=30, shield=Shield(durability=6, durability_max=6))
    target = target.model_copy(update={"parry": ParryState(shield=True)})
    attacker = fighter("A", level=3, weapons=[Weapon(name="Axe", die="d6")])
    fc = forecast(attacker, target, "Axe")
    expected: dict[int, float] = defaultdict(float)
    for amount, p in fc.damage.items():
        # doubled damage up to 6 is absorbed; past that, damage - ceil(6 / 2) gets through (30 SP + 10 IP at most)
        expected[0 if 2 * amount <= 6 else min(amount - 3, 40)] += p
    assert fc.taken == pytest.approx(dict(expected))
    assert f"parried with the shield: mean {fc.mean_taken:.1f} gets through" in fc.summary
    assert "shatters" not in fc.summary  # a shield never shatters
    fc_all = forecast(attacker, target, "Axe", shield_overflow_half=False)
    assert fc_all.taken.get(4, 0.0) == pytest.approx(fc.damage[4], **EXACT)


def test_sp_spills_into_ip_or_not():
    target = fighter("T", OPP, stamina_max=10, injury_max=2)
    attacker = fighter("A", level=5, str_bonus=3, weapons=[Weapon(name="Maul", die="d8")])
    fc = forecast(attacker, target, "Maul")
    assert p_sp_empty(fc) == pytest.approx(fc.chance_at_least(10), **EXACT)
    assert fc.p_down == pytest.approx(fc.chance_at_least(12), **EXACT)
    no_spill = forecast(attacker, target, "Maul", spill_to_injury=False)
    assert no_spill.p_down == 0.0
    assert max(no_spill.taken) == 10


def test_ignore_dex_and_minimum_damage():
    attacker = fighter("A", weapons=[Weapon(name="Knife", die="d4")])
    target = fighter("T", OPP, dex_bonus=3, armor=2)
    means = attacker.weapon("Knife")
    plain = forecast_attack(attacker, target, means, ATTACK, RulesOptions())
    no_dex = forecast_attack(attacker, target, means, ATTACK, RulesOptions(), ignore_dex=True)
    # One exploding d4 (mean 10/3) - 2 AP, a total of 1 raised to 0.
    assert no_dex.mean == pytest.approx(10 / 3 - 2 + 1 / 4, **EXACT)
    # With DEX 3 too: a total of 1, 2, 3 or 5 (4+1) does nothing.
    assert plain.damage[0] == pytest.approx(3 / 4 + 1 / 16, **EXACT)
    raised = forecast_attack(attacker, target, means, ATTACK, RulesOptions(minimum_damage=3))
    assert min(raised.damage) == 3
    assert 0 not in raised.damage


def test_power_attack_doubles_the_dice():
    base = forecast(tombril(), hill_giant(), "Shortsword")
    power = forecast(tombril(), hill_giant(), "Shortsword", POWER)
    assert (base.dice, power.dice) == (5, 10)
    assert power.mean == pytest.approx(10 * 4.2 + 20 + 8 - 4, **EXACT)
    half_magic = forecast(tombril(), hill_giant(), "Shortsword", POWER, power_attack_magic_all_dice=False)
    assert half_magic.mean == pytest.approx(power.mean - 10, **EXACT)


# -- properties ----------------------------------------------------------------------------------

FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
dice_names = st.sampled_from(["d4", "d6", "d8", "d10"])


@st.composite
def setups(draw):
    kind = draw(st.sampled_from(["melee", "reach", "ranged"]))
    weapon = Weapon(
        name="W",
        die=draw(dice_names),
        kind=kind,
        style=draw(st.sampled_from(["power", "finesse"])),
        magic_bonus=draw(st.integers(0, 4)),
    )
    attacker = fighter(
        "A",
        level=draw(st.integers(1, 40)),
        str_bonus=draw(st.integers(-3, 10)),
        dex_bonus=draw(st.integers(-3, 10)),
        awa_bonus=draw(st.integers(-3, 10)),
        weapons=[weapon],
    )
    stamina_max = draw(st.integers(0, 80))
    injury_max = draw(st.integers(1, 30))
    target = fighter(
        "T",
        OPP,
        dex_bonus=draw(st.integers(-3, 10)),
        armor=draw(st.integers(0, 12)),
        stamina_max=stamina_max,
        stamina=draw(st.integers(0, stamina_max)),
        injury_max=injury_max,
        injury=draw(st.integers(0, injury_max)),
        weapons=[Weapon(name="Guard", die="d6", magic_bonus=draw(st.integers(0, 3)))],
        shield=Shield(durability=draw(st.integers(0, 20)), durability_max=20),
    )
    parry = draw(st.sampled_from([None, ParryState(weapon="Guard"), ParryState(shield=True)]))
    target = target.model_copy(update={"parry": parry})
    mode = draw(st.sampled_from([ATTACK, POWER, SNEAK]))
    options = RulesOptions(
        minimum_damage=draw(st.integers(0, 5)),
        spill_to_injury=draw(st.booleans()),
        power_attack_magic_all_dice=draw(st.booleans()),
        sneak_magic_bonus=draw(st.booleans()),
        shield_overflow_half=draw(st.booleans()),
    )
    return attacker, target, weapon, mode, options, draw(st.booleans()), draw(st.integers(0, 2**32))


@FAST
@given(setups())
def test_damage_is_never_negative_and_probabilities_are_probabilities(setup):
    attacker, target, weapon, mode, options, ignore_dex, seed = setup
    fc = forecast_attack(attacker, target, weapon, mode, options, ignore_dex=ignore_dex)
    assert min(fc.damage) >= options.minimum_damage >= 0
    assert all(0.0 <= p <= 1.0 for p in fc.damage.values())
    assert all(0.0 <= p <= 1.0 for p in fc.taken.values())
    assert min(fc.taken) >= 0
    assert max(fc.taken) <= target.stamina + target.injury
    assert fc.total == pytest.approx(1.0, abs=1e-12)
    assert math.fsum(fc.taken.values()) == pytest.approx(1.0, abs=1e-12)
    for p in (fc.p_down, *(t.chance for t in fc.thresholds)):
        assert 0.0 <= p <= 1.0
    assert fc.mean >= options.minimum_damage
    assert fc.mean_taken <= fc.mean + 1e-9
    if target.injury == 0:
        assert fc.p_down == pytest.approx(1.0)
    # Whatever the engine rolls is a value the forecast gives a chance to.
    out = LNL_RULES.resolve_attack(attacker, target, weapon, mode, RandomDice(seed), options, ignore_dex=ignore_dex)
    assert fc.damage.get(out.damage, 0.0) > 0.0
    assert fc.taken.get(out.application.to_sp + out.application.to_ip, 0.0) > 0.0


def test_formula_and_thresholds_in_words():
    fc = forecast(tombril(), hill_giant(), "Shortsword")
    # The log's words for the same terms (one formula description): "+ 5 x 2 magic", not "+10 magic".
    assert fc.formula == "5d6! + 5 x 2 magic + 8 STR - 3 DEX - 1 AP"
    # The Giant (68 SP, 20 IP) empties its SP from 68 damage and goes down from 88.
    assert [(t.label, t.from_amount) for t in fc.thresholds] == [("SP 0", 68), ("down", 88)]
    assert fc.down_from == 88
    sneak = forecast(cedryk(), half_orc(), "Dagger", SNEAK)
    assert sneak.formula == "2d4! + 4 DEX - 3 AP unless the AWA check succeeds"
    assert [(t.label, t.from_amount) for t in sneak.thresholds] == [("down", 15)] and sneak.down_from == 15


def test_a_target_with_nothing_left_takes_nothing_with_certainty():
    target = fighter("T", OPP, stamina_max=0, injury_max=1).model_copy(update={"injury": 0})
    attacker = fighter("A", level=5, weapons=[Weapon(name="Axe", die="d10")])
    fc = forecast(attacker, target, "Axe")
    assert fc.taken == {0: pytest.approx(1.0)}
    assert 0.0 <= fc.taken[0] <= 1.0
    assert fc.p_down == pytest.approx(1.0) and fc.p_down <= 1.0
    assert "already down" in fc.summary
    everything_raised = forecast(attacker, fighter("U", OPP, armor=30), "Axe", minimum_damage=2)
    assert everything_raised.damage[2] <= 1.0

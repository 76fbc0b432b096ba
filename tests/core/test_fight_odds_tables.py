"""The fixed tables of the Old-School d20 and Group d10 fight simulators: worked out once for all the
batches of one odds, anew when the table changed (even in place), and equal to the forecast's own
chances and the tactic's own choice of weapon."""

from __future__ import annotations

import math

import numpy as np

from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files.storage import load
from lnl_desktop.core.rules.d10 import odds as d10_odds
from lnl_desktop.core.rules.d10 import rules as d10_rules
from lnl_desktop.core.rules.d10 import sim as d10_sim
from lnl_desktop.core.rules.osr import sim as osr_sim
from lnl_desktop.core.rules.osr import tactic
from lnl_desktop.core.rules.osr.rules import to_hit
from lnl_desktop.core.sim import run
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.paths import resource


def osr_demo():  # type: ignore[no-untyped-def]
    return load(resource("encounters", "goblin-ambush-osr.lnl"))


def test_osr_tables_are_kept_for_the_next_batch_and_follow_a_change_made_in_place() -> None:
    encounter = osr_demo()
    field = battlefield(Engine(encounter.model_copy(deep=True)))
    first = osr_sim._tables_of(encounter, field)
    assert osr_sim._tables_of(encounter, field) is first  # the next batch of the same odds
    chief, goblin = field.index("tombril"), field.index("goblin-1")
    before = first.hit[chief, goblin, 0, 0]
    encounter.combatant("goblin-1").ac_typed = 25  # the engine changes a table in place
    again = osr_sim._tables_of(encounter, field)
    assert again is not first
    assert again.hit[chief, goblin, 0, 0] < before
    assert (
        again.hit[chief, goblin, 0, 0]
        == to_hit(
            encounter,
            encounter.combatant("tombril"),
            encounter.combatant("goblin-1"),
            *tactic.attack_options(encounter.combatant("tombril"))[0],
        ).chance
    )


def test_osr_odds_in_batches_see_a_goblin_made_hard_to_hit_in_place() -> None:
    encounter = osr_demo()
    field = battlefield(Engine(encounter.model_copy(deep=True)))
    easy = run.fight_odds(encounter, 600, seed=5, field=field, batch=200)
    for goblin in ("hobgoblin-chief", "goblin-1", "goblin-2", "goblin-3", "goblin-archer"):
        encounter.combatant(goblin).ac_typed = 30
    hard = run.fight_odds(encounter, 600, seed=5, field=field, batch=200)
    assert hard.party_wins < easy.party_wins


def test_osr_weapon_ranking_from_the_worked_out_blows_is_the_tactics() -> None:
    encounter = osr_demo()
    people = {c.id: c for c in encounter.combatants}
    for a in people.values():
        opts = tactic.attack_options(a)
        for t in people.values():
            if t.side is a.side:
                continue
            blows = [tactic.blow(encounter, a, t, w, style) for w, style in opts]
            for ranged in (False, True):
                kind = [i for i, (_, style) in enumerate(opts) if (style == "ranged") == ranged]
                by_hand = sorted(kind, key=lambda i: -tactic.expected(encounter, a, t, *opts[i]))
                if ranged and tactic.can_harm(encounter, a, t):
                    by_hand = [i for i in by_hand if tactic.harms(encounter, a, t, *opts[i])]
                assert tactic.ranked_blows(opts, blows, ranged) == by_hand == tactic.ranked(encounter, a, t, ranged)


def test_osr_chance_at_a_bonus_is_the_chance_of_that_roll() -> None:
    encounter = osr_demo()
    a, t = encounter.combatant("tombril"), encounter.combatant("goblin-1")
    roll = to_hit(encounter, a, t, *tactic.attack_options(a)[0])
    for bonus in range(-12, 25):
        faces = sum(f == 20 or (f != 1 and f + bonus >= roll.ac) for f in range(1, 21))
        assert roll.chance_at(bonus) == faces / 20
    assert roll.chance == roll.chance_at(roll.bonus)


def test_d10_hit_chances_are_the_forecasts_for_every_pair_edge_and_half_hp() -> None:
    encounter = load(resource("encounters", "bandit-mill-d10.lnl"))
    people = list(encounter.combatants)
    tiers = bool(encounter.options.weapon_tiers)
    arms = [d10_sim._arms(c, tiers) for c in people]
    hit, crit = d10_sim._chances(people, arms)
    checked = 0
    for i, a in enumerate(people):
        for kind, weapon in ((d10_sim.MELEE, arms[i].blade), (d10_sim.RANGED, arms[i].bow)):
            if weapon is None:
                assert not hit[i, :, kind].any()
                continue
            for j, t in enumerate(people):
                for e, (dice, high) in enumerate(d10_sim.EDGES):
                    edge = d10_rules.Edge()
                    edge_dice = {1: [], 2: ["a source"]}[dice]
                    if high:
                        edge.advantage = edge_dice
                    else:
                        edge.disadvantage = edge_dice
                    for bl in (0, 1):
                        roll = d10_rules.ToHit(weapon.skill, a.skill(weapon.skill), bool(bl), t.defense, edge)
                        assert math.isclose(hit[i, j, kind, e, bl], d10_odds.hit_chance(roll), abs_tol=1e-12)
                        assert crit[i, j, kind, e, bl] == d10_odds.kept_face(dice, high)[20]
                        checked += 1
    assert checked > 100
    assert np.all((hit >= 0) & (hit <= 1))


def test_osr_morale_falls_due_at_the_sides_first_fall_and_when_half_is_out(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    encounter = osr_demo()
    field = battlefield(Engine(encounter.model_copy(deep=True)))
    t = osr_sim._tables_of(encounter, field)
    fights = osr_sim._Fights(t, encounter, field, 3, np.random.default_rng(1))
    checks: list[tuple[int, int]] = []
    monkeypatch.setattr(fights, "morale", lambda idx, s: checks.append((len(idx), s)))
    everyone = np.arange(3)
    goblins = [field.index(g) for g in ("hobgoblin-chief", "goblin-1", "goblin-2", "goblin-3", "goblin-archer")]
    due = []
    for g in goblins:  # five Opponents fall one by one in every fight
        checks.clear()
        fights.damage(everyone, np.full(3, g), np.full(3, 1000))
        due.append(checks == [(3, 1)])
        assert checks in ([], [(3, 1)])
    # RULES §12: the first to fall, and the fall that puts half of the five out (the third).
    assert due == [True, False, True, False, False]
    assert fights.out(everyone)[:, goblins].all()

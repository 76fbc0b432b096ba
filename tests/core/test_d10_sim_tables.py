"""Group d10's fast simulator (rules/d10/sim.py) works out the same odds however it stores and orders
its work: the whole-feet (int16) and float32 gap and distance tables give the float64 tables' odds to
the last fight, endless gaps included; a round's turns, played in as few passes as each fight's
group order allows, keep every fight's order; and fights played in waves, each wave's stragglers
handed on to the next, are each played to their end once, to the odds of one wave."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from lnl_desktop.core import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.d10 import sim
from lnl_desktop.core.rules.fight import MAX_ROUNDS, NEITHER, PARTY, Battlefield, empty_outcome, sides_together
from lnl_desktop.core.sim import agreement, run
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.core.sim.odds import FightOdds
from lnl_desktop.paths import resource


def demo() -> Any:
    return storage.load(resource("encounters/bandit-mill-d10.lnl"))


def numbers(odds: FightOdds) -> tuple[Any, ...]:
    people = tuple((c.id, c.drop, c.die, tuple(c.health_left.items())) for c in odds.combatants)
    return odds.party_wins, odds.opponents_win, tuple(sorted(odds.rounds.items())), people


def test_the_demo_is_worked_in_whole_feet() -> None:
    # The mill's feet are whole cells: the tables are kept in int16 (a quarter of float64's memory moved).
    table = demo()
    field = battlefield(Engine(table))
    fights = sim._Fights(table, sides_together(field)[0], 3, np.random.default_rng(1))
    assert fights.gap.dtype == fights.dist.dtype == np.int16
    assert sim._feet_type(np.array([[0.0, 5.0], [np.inf, 2048.0]]), np.array([30.0])) is np.int16
    assert sim._feet_type(np.array([[0.0, 5.0], [np.inf, 12.5]]), np.array([30.0])) is np.float32  # an eighth
    assert sim._feet_type(np.array([[0.0, 2050.0]])) is np.float32  # too far for int16 to keep endless apart
    assert sim._feet_type(np.array([[0.0, 7.0710678]])) is np.float64  # not a whole eighth: float64
    assert sim._feet_type(np.array([2.0**19])) is np.float64  # too far for float32 to add exactly


def unreachable(field: Battlefield) -> Battlefield:
    """The mill's field with its first foe where no Party member can get to (it can get to them): the
    Party's gaps to it endless, shifting with everyone's moves, and never closed on nor shot at."""
    gap = field.gap_ft.copy()
    foe = next(j for j in range(field.size) if field.side[j] != PARTY)
    gap[field.side == PARTY, foe] = np.inf
    return replace(field, gap_ft=gap)


@pytest.mark.parametrize("walled", [False, True], ids=["the mill", "a foe out of reach"])
@pytest.mark.parametrize("wide", [np.float32, np.float64])
def test_whole_feet_tables_give_the_float_tables_odds(monkeypatch: pytest.MonkeyPatch, walled: bool, wide: Any) -> None:
    table = demo()
    field = battlefield(Engine(table))
    if walled:
        field = unreachable(field)
    narrow = run.fight_odds(table, 600, seed=5, field=field)
    monkeypatch.setattr(sim, "_feet_type", lambda *tables: wide)
    wider = run.fight_odds(table, 600, seed=5, field=field)
    assert numbers(narrow) == numbers(wider)
    if walled:  # a foe none of them can get to (nor shoot at: they shoot only at one they can close on)
        assert narrow.party_wins == 0 and len(narrow.rounds) > 5
    else:  # a fight either side can win: the comparison says something
        assert 0 < narrow.party_wins < 1


@pytest.mark.parametrize("groups", [2, 3, 5])
def test_each_fight_meets_its_groups_in_its_own_order(groups: int) -> None:
    rng = np.random.default_rng(groups)
    order = np.array([rng.permutation(groups) for _ in range(300)])
    seen: list[list[int]] = [[] for _ in range(len(order))]
    for group, at in sim._blocks(order):
        for fight in np.nonzero(at)[0]:
            seen[fight].append(group)
    assert seen == order.tolist()


def test_two_groups_take_three_passes_a_round() -> None:
    order = np.array([[0, 1], [1, 0], [0, 1], [1, 0]])
    assert [g for g, _ in sim._blocks(order)] == [0, 1, 0]


def test_sight_kept_as_places_is_the_copied_sight() -> None:
    # A mover that reaches its target sees what the target sees (its row and column copied, the two
    # seeing each other): kept instead as whose place each one has taken, it must say the same.
    table = demo()
    field = sides_together(battlefield(Engine(table)))[0]
    k, n = field.size, 40
    rng = np.random.default_rng(3)
    walls = rng.random((k, k)) < 0.4
    sees = ~(walls | walls.T)  # mutual, with walls between many pairs
    fights = sim._Fights(table, replace(field, sees=sees), n, rng)
    copied = np.tile(sees, (n, 1, 1))
    every = np.arange(n)
    for _ in range(200):
        i, ta = rng.choice(k, 2, replace=False)
        fa = np.nonzero(rng.random(n) < 0.5)[0]
        seen = copied[fa, :, ta]  # the rule the simulator followed before: ta's column copied to i's
        seen[:, i] = False
        seen[np.arange(fa.size), ta] = True
        copied[fa, :, i] = seen
        copied[fa, i, :] = seen
        fights.place[fa, i] = fights.place[fa, ta]
    for a in range(k):
        for b in range(k):
            if a != b:
                assert (fights.sight(every, a, np.full(n, b)) == copied[:, a, b]).all(), (a, b)


@pytest.mark.parametrize("natural_20", [True, False], ids=["a natural 20", "no natural 20"])
def test_a_natural_20_doubles_the_damage_die_in_the_simulator(natural_20: bool) -> None:
    """RULES §13: a natural 20 doubles the damage die. A blow made to hit every time, with (or without)
    a natural 20 every time, deals twice (or once) a face of the striker's die, and every face comes up."""
    table = demo()
    field, _ = sides_together(battlefield(Engine(table)))
    count = 4_000
    fights = sim._Fights(table, field, count, np.random.default_rng(7))
    i = next(n for n in range(field.size) if fights.party[n] and fights.has_blade[n])
    t = next(n for n in range(field.size) if not fights.party[n] and not fights.minion[n])
    fights.p_hit[i] = 1.0
    fights.p_crit[i] = 1.0 if natural_20 else 0.0
    fights.dr[t] = 0
    fights.hp[:, t] = 10_000
    fights.attack(i, np.arange(count), np.full(count, t), sim.MELEE, fights.first)
    dealt = 10_000 - fights.hp[:, t]
    (faces, _), _ = fights.dice[i]
    expected = {int(f) * (2 if natural_20 else 1) for f in faces}
    assert set(dealt.tolist()) == expected


def waves_of(fights: int, k: int) -> int:
    """WAVE_BYTES for waves of ``fights`` fights of ``k`` combatants."""
    return fights * 4 * k * k


@pytest.mark.parametrize("fights", [301, 2_000], ids=["a last wave of one", "seven waves"])
def test_every_fight_of_every_wave_is_played_to_its_end_once(monkeypatch: pytest.MonkeyPatch, fights: int) -> None:
    # Waves of 300 fights: each leaves its stragglers to the next, the last plays them all to their end
    # (a last wave of one fight is over before the stragglers' round: they go on alone).
    table = demo()
    field = battlefield(Engine(table))
    monkeypatch.setattr(sim, "WAVE_BYTES", waves_of(300, field.size))
    calls: list[int] = []
    absorb = sim._Fights.absorb
    monkeypatch.setattr(sim._Fights, "absorb", lambda s, other: (calls.append(other.live.size), absorb(s, other))[1])
    out = sim.D10Fights().simulate(table, field, fights, np.random.default_rng(4))
    assert calls and sum(calls) < fights  # stragglers were handed on
    assert (out.rounds >= 1).all()
    over = out.winner != NEITHER
    assert (over | (out.rounds == MAX_ROUNDS)).all()  # every fight won, or played to the last round
    assert (out.dead == (out.health[:, :, 0] == 0)).all()  # 0 HP is dead, in the stragglers' fights too
    # Who is down in a fight's end is what its winner says: the loser's side all down, the winner's not.
    side = field.side
    for n in np.nonzero(over)[0][:200]:
        loser = side != out.winner[n]
        assert out.down[n, loser].all() and not out.down[n, ~loser].all()


def test_stragglers_go_on_alone_when_the_last_wave_is_over_first() -> None:
    table = demo()
    field = sides_together(battlefield(Engine(table)))[0]
    rng = np.random.default_rng(5)
    out = empty_outcome(200, field.size, sim.HEALTH)
    stragglers = sim._Fights(table, field, 100, rng, out, 0)  # left at round 4 by an earlier wave
    last = sim._Fights(table, field, 100, rng, out, 100)
    last.live[:] = False  # the last wave's fights are over before round 4
    sim.D10Fights._rounds(last, 2, table, {4: stragglers}, 0)
    assert (out.rounds[:100] >= 4).all()  # played on from round 4 to their end
    assert (out.winner[:100] != NEITHER).mean() > 0.9


def test_odds_in_waves_are_the_odds_in_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same fights played in waves of 300 (stragglers handed on) and in one: two samples of the
    # same odds, within what chance explains (no slack).
    table = demo()
    field = battlefield(Engine(table))
    whole = run.fight_odds(table, 4_000, seed=11, field=field)
    monkeypatch.setattr(sim, "WAVE_BYTES", waves_of(300, field.size))
    waves = run.fight_odds(table, 4_000, seed=12, field=field)
    assert agreement.disagreements(waves, whole, slack=0.0) == []
    assert 0.1 < whole.party_wins < 0.9

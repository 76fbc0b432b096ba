"""Whole-fight odds in L&L and L&L Classic: the fast simulator (rules/lnl/sim.py) against the same
tactic through the engine (rules/lnl/tactic.py), a planted rule change, a mid-fight state, and
the family's own round pieces (surprise, direct damage, exertion, a parry in force)."""

from __future__ import annotations

import numpy as np
import pytest

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files.storage import load
from lnl_desktop.core.rules.fight import OPPONENTS, PARTY
from lnl_desktop.core.rules.lnl import sim
from lnl_desktop.core.rules.lnl.model import ParryState
from lnl_desktop.core.sim import agreement, reference, run
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.paths import resource

# Thousands of fights played through the engine: longer than the suite's minute; five still end a hang.
pytestmark = pytest.mark.timeout(300)

# Both demos: the fast simulator and the engine reference pick targets by the same gaps (core.rules.fight).
DEMOS = (
    "hill-giant.lnl",
    "hill-giant-classic.lnl",
)


def demo(name: str = "hill-giant.lnl"):  # type: ignore[no-untyped-def]
    return load(resource("encounters", name))


def drop(odds, cid: str) -> float:  # type: ignore[no-untyped-def]
    return next(c.drop for c in odds.combatants if c.id == cid)


@pytest.mark.parametrize("name", DEMOS)
def test_fast_agrees_with_the_engine(name: str) -> None:
    # 400 engine fights take about 20 s for L&L (3.5 s for Classic's duel): 200 keeps the suite modest.
    fast = run.fight_odds(demo(name), 4000, seed=11)
    slow = reference.reference_odds(demo(name), 200, seed=11)
    assert agreement.disagreements(fast, slow) == []


def test_a_planted_rule_change_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = sim.Arsenal.roll

    def halved(self: sim.Arsenal, blow: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return original(self, blow, rng) // np.where(self.dice[blow] >= 6, 2, 1)

    # A planted bug in the fast path only: a level-12 attacker's 6 dice deal half (the Giant's club).
    monkeypatch.setattr(sim.Arsenal, "roll", halved)
    fast = run.fight_odds(demo("hill-giant-classic.lnl"), 4000, seed=5)
    monkeypatch.setattr(sim.Arsenal, "roll", original)
    slow = reference.reference_odds(demo("hill-giant-classic.lnl"), 200, seed=5)
    assert agreement.disagreements(fast, slow) != []


def test_mid_fight_odds_are_of_that_state() -> None:
    engine = Engine(demo())
    engine.apply(act.StartCombat(situation="nobody ambushes", face=5))
    start = run.fight_odds(engine.encounter, 4000, seed=3)
    # The seed's first exchange: the Giant at 37 SP, Tombril at 12 SP.
    engine.apply(act.SetHealth("hill-giant", "stamina", 37))
    engine.apply(act.SetHealth("tombril", "stamina", 12))
    hurt = run.fight_odds(engine.encounter, 4000, seed=3)
    assert drop(hurt, "tombril") > drop(start, "tombril") + 0.03
    again = run.fight_odds(engine.encounter, 4000, seed=3)
    assert again.as_json() == hurt.as_json()  # a seed makes it reproducible

    engine.apply(act.BeginTurn("tombril"))
    engine.apply(act.Move("tombril", to=(12, 6)))
    moved = run.fight_odds(engine.encounter, 4000, seed=3)
    assert moved.as_json() != hurt.as_json()
    engine.undo()
    engine.undo()
    back = run.fight_odds(engine.encounter, 4000, seed=3)
    assert back.as_json() == hurt.as_json()
    engine.undo()  # Tombril's 12 SP
    healed = run.fight_odds(engine.encounter, 4000, seed=3)
    assert drop(healed, "tombril") < drop(hurt, "tombril") - 0.03


def test_the_surprise_d6_as_each_edition_reads_it() -> None:
    lnl, classic = Engine(demo()).ruleset, Engine(demo("hill-giant-classic.lnl")).ruleset
    first, surprised, first_round = sim.openings(lnl)
    assert first[0, 0] == OPPONENTS and surprised[0, 0] == PARTY  # 1: the Party surprised
    assert first[3, 0] == PARTY and surprised[3, 0] == -1
    assert first[5, 0] == PARTY and surprised[5, 0] == OPPONENTS
    assert (first_round == 1).all()
    first, surprised, first_round = sim.openings(classic)
    assert first_round[0, 0] == 0 and first[0, 0] == OPPONENTS  # 1: the Opponents' surprise round
    assert first_round[5, 3] == 0 and first[5, 3] == PARTY
    assert first_round[2, 0] == 1 and first[2, 0] == OPPONENTS and first[2, 5] == PARTY  # then initiative


def _blow(name: str, attacker: str, target: str, weapon: str, parry: ParryState | None = None):  # type: ignore[no-untyped-def]
    e = demo(name)
    if parry is not None:
        e.combatant(target).parry = parry
    engine = Engine(e)
    simulator = sim.Simulator(engine.ruleset, e, battlefield(engine), np.random.default_rng(1))
    s = simulator.start(2000)
    i, j = simulator.field.index(attacker), simulator.field.index(target)
    blow = next(b for b in simulator.blows[i][j] if e.combatant(attacker).weapons[b.weapon].name == weapon)
    b = simulator.arsenals[i].blows.index(blow)  # its id among the attacker's blows
    simulator.strike(s, i, np.arange(2000), np.full(2000, j), np.full(2000, b))
    a, t = e.combatant(attacker), e.combatant(target)
    return s, i, j, a, t


def test_ranged_is_direct_and_costs_exertion_in_lnl_not_in_classic() -> None:
    s, i, j, a, t = _blow("hill-giant.lnl", "half-orc-archer", "tombril", "Shortbow")
    assert (s.sp[:, j] == t.stamina).all() and (s.ip[:, j] < t.injury).any()  # direct: IP at once
    spent = a.stamina - s.sp[:, i]
    assert set(np.unique(spent)) == {1.0, 2.0, 3.0, 4.0}  # a d4 of exertion
    s, i, j, a, t = _blow("hill-giant-classic.lnl", "tombril", "hill-giant", "Shortsword")
    assert (s.sp[:, j] < t.stamina).all() and ((s.ip[:, j] == t.injury) | (s.sp[:, j] == 0)).all()  # SP first
    assert (s.sp[:, i] == a.stamina).all()  # no exertion in Classic


def test_a_parry_in_force_stops_blows_until_the_weapon_shatters() -> None:
    # Tombril parries with his +2 shortsword: every blow stopped, the 3rd exploding die shatters it.
    s, _i, j, _a, t = _blow("hill-giant.lnl", "hill-giant", "tombril", "Club", ParryState(weapon="Shortsword"))
    assert (s.sp[:, j] == t.stamina).all()
    shattered = s.broken[j][:, 0]
    assert (shattered == (s.parry_count[:, j] >= 3)).all() and shattered.any() and not shattered.all()
    assert not s.parry[shattered, j].any()

"""The fight odds honour how long a condition lasts (RULES §10 "How long a condition lasts"): a foe
stunned for one round strikes again from its next turn on, one stunned until removed never does;
counted as the engine counts them (core.engine.conditions), and agreeing with the engine reference."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

from lnl_desktop.core.encounter.model import ConditionDuration, DurationKind, Encounter, Side
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files.storage import load
from lnl_desktop.core.rules.fight import (
    NEXT_TURN_END,
    PARTY,
    ROUNDS,
    SAVE,
    TURN_START_OF,
    SimOutcome,
    Timed,
    Timers,
)
from lnl_desktop.core.sim import agreement, reference, run
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.paths import resource

# Fights played through the engine for the agreement: longer than the suite's minute.
pytestmark = pytest.mark.timeout(300)

DEMOS = ("hill-giant.lnl", "hill-giant-classic.lnl", "goblin-ambush-osr.lnl", "bandit-mill-d10.lnl")
ONE_ROUND = ConditionDuration(kind=DurationKind.ROUNDS, rounds=1)


def stunned(name: str, duration: ConditionDuration | None, side: Side = Side.OPPONENTS) -> Encounter:
    """The demo with every member of ``side`` stunned, for ``duration`` (None: until removed)."""
    e = load(resource("encounters", name))
    for c in e.combatants:
        if c.side is side:
            c.conditions = [*c.conditions, "stunned"]
            c.durations = {"stunned": duration} if duration is not None else {}
    return e


def outcome(e: Encounter, fights: int = 2000, seed: int = 3) -> tuple[Any, SimOutcome]:
    engine = Engine(e.model_copy(deep=True))
    field = battlefield(engine)
    return field, engine.ruleset.fights.simulate(e, field, fights, np.random.default_rng(seed))


def party_drops(name: str, duration: ConditionDuration | None) -> float:
    """The share of fights in which a Party member goes down."""
    field, out = outcome(stunned(name, duration))
    return float(out.down[:, field.side == PARTY].any(axis=1).mean())


@pytest.mark.parametrize("name", DEMOS)
def test_a_foe_stunned_until_removed_never_strikes(name: str) -> None:
    assert party_drops(name, None) == 0.0


@pytest.mark.parametrize("name", DEMOS)
@pytest.mark.parametrize(
    "duration",
    [
        ONE_ROUND,
        ConditionDuration(kind=DurationKind.END_OF_NEXT_TURN),
        ConditionDuration(kind=DurationKind.START_OF_TURN_OF, creature="tombril"),
    ],
    ids=["1 round", "end of next turn", "start of Tombril's turn"],
)
def test_a_stun_that_ends_lets_the_foes_strike_again(name: str, duration: ConditionDuration) -> None:
    # Taken as lasting all fight, the Party would never drop (the test above).
    assert party_drops(name, duration) > 0.02


@pytest.mark.parametrize(
    ("name", "save"),
    [
        ("hill-giant.lnl", ConditionDuration(kind=DurationKind.SAVE, save="STR")),
        ("hill-giant-classic.lnl", ConditionDuration(kind=DurationKind.SAVE, save="STR")),
        ("goblin-ambush-osr.lnl", ConditionDuration(kind=DurationKind.SAVE, save="Spells", dc=12)),
        ("bandit-mill-d10.lnl", ConditionDuration(kind=DurationKind.SAVE, dc=12)),
    ],
)
def test_a_save_each_turn_ends_a_stun_in_some_fights(name: str, save: ConditionDuration) -> None:
    assert party_drops(name, save) > 0.02


def test_the_longer_the_giant_is_stunned_the_better_the_partys_odds() -> None:
    def party_wins(duration: ConditionDuration | None, stun: bool = True) -> float:
        e = load(resource("encounters", "hill-giant.lnl"))
        giant = e.combatant("hill-giant")
        if stun:
            giant.conditions = [*giant.conditions, "stunned"]
            giant.durations = {"stunned": duration} if duration is not None else {}
        return run.fight_odds(e, 4000, seed=7).party_wins

    never = party_wins(None, stun=False)
    one, three = party_wins(ONE_ROUND), party_wins(ConditionDuration(kind=DurationKind.ROUNDS, rounds=3))
    # About 41 %, 65 %, 93 % and every fight: one round matters, three rounds more, all fight most.
    assert never + 0.1 < one < three - 0.1 < party_wins(None) - 0.15


# -- the count, fight by fight (core.rules.fight.Timers) ---------------------------------------------------


def _timers(*timed: Timed, n: int = 4) -> Timers:
    return Timers(list(timed), 3, n)


def test_one_round_ends_at_the_end_of_its_next_turn_and_not_the_turn_it_was_given_in() -> None:
    rng = np.random.default_rng(0)
    t = _timers(Timed(0, "stunned", ROUNDS, rounds=1), Timed(1, "stunned", ROUNDS, rounds=1, skip=True))
    everyone = np.arange(4)
    t.turn_ends(everyone, 0, rng)
    t.turn_ends(everyone, 1, rng)
    assert not t.on[:, 0].any()  # its next turn has ended
    assert t.on[:, 1].all()  # given during that very turn: it counts from the next
    t.turn_ends(everyone[:2], 1, rng)
    assert t.on[:, 1].tolist() == [False, False, True, True]
    assert t.variant(everyone, 1).tolist() == [1, 1, 0, 0]


def test_rounds_count_down_one_a_turn_and_the_end_of_next_turn_comes_once() -> None:
    rng = np.random.default_rng(0)
    t = _timers(Timed(0, "stunned", ROUNDS, rounds=3), Timed(0, "grappled", NEXT_TURN_END, skip=True))
    rows = np.arange(4)
    t.turn_ends(rows, 0, rng)
    t.turn_ends(rows, 0, rng)
    assert t.on[0].tolist() == [True, False]
    t.turn_ends(rows, 0, rng)
    assert t.on[0].tolist() == [False, False]
    assert t.variant(rows, 0).tolist() == [3, 3, 3, 3]  # both bits: both ended


def test_a_save_each_turn_ends_it_as_often_as_its_chance() -> None:
    t = _timers(Timed(2, "paralyzed", SAVE, save=0.25), n=40_000)
    t.turn_ends(np.arange(40_000), 2, np.random.default_rng(1))
    assert abs((~t.on[:, 0]).mean() - 0.25) < 0.01


def test_the_start_of_a_creatures_turn_ends_it_or_any_turn_once_that_creature_is_down() -> None:
    t = _timers(Timed(0, "charmed", TURN_START_OF, ender=2))
    down = np.zeros((4, 3), dtype=np.bool_)
    t.turn_starts(np.arange(4), 1, down)
    assert t.on[:, 0].all()  # another's turn
    down[3, 2] = True
    t.turn_starts(np.arange(4), 1, down)
    assert t.on[:, 0].tolist() == [True, True, True, False]  # its caster is down in the last fight
    t.turn_starts(np.array([0]), 2, down)
    assert t.on[:, 0].tolist() == [False, True, True, False]


# -- with the engine reference, once the engine counts durations -------------------------------------------

ENGINE_COUNTS = importlib.util.find_spec("lnl_desktop.core.engine.conditions") is not None


@pytest.mark.skipif(not ENGINE_COUNTS, reason="the engine does not count durations yet")
@pytest.mark.parametrize(
    ("name", "rounds", "fights"),
    [("hill-giant.lnl", 1, 300), ("goblin-ambush-osr.lnl", 2, 200), ("bandit-mill-d10.lnl", 2, 120)],
)
def test_the_fast_odds_agree_with_the_engine_on_a_stun_that_ends(name: str, rounds: int, fights: int) -> None:
    # The Party stunned for a round or two: taken as all fight, the Opponents would win every fight.
    e = stunned(name, ConditionDuration(kind=DurationKind.ROUNDS, rounds=rounds), Side.PARTY)
    fast = run.fight_odds(e, 4000, seed=13)
    slow = reference.reference_odds(e, fights, seed=13)
    assert agreement.disagreements(fast, slow) == []

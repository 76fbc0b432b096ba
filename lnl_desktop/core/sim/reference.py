"""The fight simulator's reference: the same default tactic played one fight at a time through the
real engine with random dice (``ruleset.fights.play``), slow but the rules themselves. The fast
simulator must agree with it (tests/core/test_fight_odds.py)."""

from __future__ import annotations

import time
from typing import Any

from lnl_desktop.core.dice.rolls import RandomDice
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.rules.fight import (
    MAX_ROUNDS,
    NEITHER,
    OPPONENTS,
    PARTY,
    Battlefield,
    Plan,
    SimOutcome,
    empty_outcome,
    with_plans,
)
from lnl_desktop.core.sim.field import battlefield, simulator
from lnl_desktop.core.sim.odds import FightOdds, summarise
from lnl_desktop.core.sim.run import with_retreats, without_retreats


def _copy(encounter: Encounter) -> Encounter:
    return encounter.copy_without_log()


def play_reference(
    encounter: Encounter, fights: int, seed: int = 0, plans: tuple[Plan, ...] = ()
) -> tuple[Battlefield, SimOutcome]:
    """``fights`` fights from ``encounter``'s state through the engine, each with its own dice, by the
    default tactic and the GM's pinned ``plans`` (those who retreat have left the map)."""
    encounter, _gone = without_retreats(encounter, plans)
    field = with_plans(battlefield(Engine(_copy(encounter))), tuple(p for p in plans if p.kind != "retreat"))
    ruleset = Engine(_copy(encounter)).ruleset
    outcome = empty_outcome(fights, field.size, simulator(ruleset).health_columns)
    for f in range(fights):
        engine = Engine(_copy(encounter), dice=RandomDice(seed * 1_000_003 + f))
        start_round = engine.encounter.combat.round
        simulator(ruleset).play(engine, field, MAX_ROUNDS)
        _read(engine, field, outcome, f, start_round)
    return field, outcome


def _read(engine: Any, field: Battlefield, outcome: SimOutcome, f: int, start_round: int) -> None:
    e = engine.encounter
    ruleset = engine.ruleset
    by_id = e.by_id()
    out = {cid: simulator(ruleset).out(by_id[cid]) for cid in field.ids}
    party_out = all(out[cid] for cid, side in zip(field.ids, field.side, strict=True) if side == PARTY)
    opponents_out = all(out[cid] for cid, side in zip(field.ids, field.side, strict=True) if side == OPPONENTS)
    outcome.winner[f] = OPPONENTS if party_out and not opponents_out else PARTY if opponents_out else NEITHER
    outcome.rounds[f] = max(0, e.combat.round - max(start_round, 1) + 1)
    for k, cid in enumerate(field.ids):
        c = by_id[cid]
        outcome.down[f, k] = out[cid]
        outcome.dead[f, k] = bool(getattr(c, "dead", False))
        outcome.health[f, k] = simulator(ruleset).health(c)


def reference_odds(encounter: Encounter, fights: int, seed: int = 0, plans: tuple[Plan, ...] = ()) -> FightOdds:
    t0 = time.perf_counter()
    field, outcome = play_reference(encounter, fights, seed, plans)
    ruleset = Engine(_copy(encounter)).ruleset
    odds = summarise(field, outcome, simulator(ruleset).tells_death, time.perf_counter() - t0)
    return with_retreats(odds, encounter, tuple(p.combatant for p in plans if p.kind == "retreat"), ruleset)

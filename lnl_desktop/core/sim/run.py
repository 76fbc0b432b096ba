"""Fight odds from the table's state: the ruleset's fast simulator, many fights at once."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.rules.fight import Battlefield, Plan, turn_boundary, with_plans
from lnl_desktop.core.sim.field import battlefield, simulator
from lnl_desktop.core.sim.odds import CombatantOdds, FightOdds, Tally
from lnl_desktop.lazy import lazy_module

np = lazy_module("numpy")

DEFAULT_FIGHTS = 10_000
# A batch of fights is played at once, its arrays (a gap between every two combatants in every fight,
# and the like) within about BATCH_BYTES; the batches' sums make the odds, so memory stays that of one
# batch at any number of fights. A simulator tells what a fight of k combatants takes at its peak
# (its ``fight_bytes(k)``, measured: L&L's 26 KB a fight at 40, so 10,000 fights of 40 are one batch;
# Old-School d20's the same, 270 MB in all at 10,000 fights of 40); one that does not is taken at
# FIGHT_BYTES's three times 32 bytes a pair (Group d10 measured 320-500 MB in all at 1,900 fights of 40).
BATCH_BYTES = 300_000_000


def fight_bytes(k: int) -> int:
    """What a fight of ``k`` combatants is taken to need when its simulator does not say."""
    return 3 * (32 * k * k + 1024)


def batch_size(k: int, per_fight: Callable[[int], int] | None = None) -> int:
    """How many fights of ``k`` combatants one batch plays: 1,911 at 40, 27,654 at 9 by default;
    ``per_fight``: the simulator's own measure of a fight's bytes."""
    return max(1, BATCH_BYTES // (per_fight or fight_bytes)(k))


def fight_odds(
    encounter: Encounter,
    fights: int = DEFAULT_FIGHTS,
    seed: int | None = None,
    field: Battlefield | None = None,
    plans: tuple[Plan, ...] = (),
    *,
    batch: int | None = None,
) -> FightOdds:
    """The rest of the fight from ``encounter``'s state played ``fights`` times by the default tactic
    and the GM's pinned ``plans`` (RulesError when its ruleset has no simulator). ``field``: the map's
    plan, if already worked out. The fights are played in batches of ``batch`` (by default
    :func:`batch_size` for the table's combatants), one after another from the one ``seed``: the same
    seed gives the same odds again, and as many fights as fit one batch are played as one."""
    if fights < 1:
        raise ValueError(f"{fights} fights: play at least one")
    if seed is not None and seed < 0:
        raise ValueError(f"seed {seed}: a whole number from 0 up")
    if batch is not None and batch < 1:
        raise ValueError(f"batches of {batch} fights: at least one")
    t0 = time.perf_counter()
    table, gone = without_retreats(encounter, plans)
    engine = Engine(table.model_copy(deep=False))
    if gone:
        field = None  # the map's plan without those who left
    field = with_plans(field or battlefield(engine), tuple(p for p in plans if p.kind != "retreat"))
    rng = np.random.default_rng(seed)
    sim = simulator(engine.ruleset)
    size = batch or batch_size(field.size, getattr(sim, "fight_bytes", None))
    tally = Tally(field, sim.health_columns)
    for start in range(0, fights, size):
        turn_boundary()  # the GM acting: wait; odds no longer wanted: stop (a worker of the window's)
        tally.add(sim.simulate(table, field, min(size, fights - start), rng))
    odds = tally.odds(sim.tells_death, time.perf_counter() - t0)
    return with_retreats(odds, encounter, gone, engine.ruleset)


def without_retreats(encounter: Encounter, plans: tuple[Plan, ...]) -> tuple[Encounter, tuple[str, ...]]:
    """The encounter as the fight goes on once those pinned to retreat have left the map (a copy
    sharing the rest), and who they are."""
    gone = tuple(p.combatant for p in plans if p.kind == "retreat")
    if not gone:
        return encounter, ()
    state = {k: v for k, v in encounter.__dict__.items() if k != "log"}
    state["tokens"] = {cid: t for cid, t in encounter.tokens.items() if cid not in gone}
    return type(encounter).model_construct(**state, log=[]), gone


def with_retreats(odds: FightOdds, encounter: Encounter, gone: tuple[str, ...], ruleset: Any) -> FightOdds:
    """The odds with those who retreated in the roster's order: they never drop, their health kept."""
    if not gone:
        return odds
    kept = {c.id: c for c in odds.combatants}
    people = []
    for c in encounter.combatants:
        if c.id in kept:
            people.append(kept[c.id])
        elif c.id in gone:
            sim = simulator(ruleset)
            health = dict(zip(sim.health_columns, sim.health(c), strict=True))
            side = "Party" if c.side is Side.PARTY else "Opponents"
            die = 0.0 if sim.tells_death else None
            people.append(CombatantOdds(id=c.id, name=c.name, side=side, drop=0.0, die=die, health_left=health))
    return replace(odds, combatants=tuple(people))

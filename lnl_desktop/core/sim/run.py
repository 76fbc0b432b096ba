"""Fight odds from the table's state: the ruleset's fast simulator, many fights at once."""

from __future__ import annotations

import time

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.rules.fight import Battlefield, Plan, with_plans
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.core.sim.odds import FightOdds, summarise
from lnl_desktop.lazy import lazy_module

np = lazy_module("numpy")

DEFAULT_FIGHTS = 10_000


def fight_odds(
    encounter: Encounter,
    fights: int = DEFAULT_FIGHTS,
    seed: int | None = None,
    field: Battlefield | None = None,
    plans: tuple[Plan, ...] = (),
) -> FightOdds:
    """The rest of the fight from ``encounter``'s state played ``fights`` times by the default tactic
    and the GM's pinned ``plans`` (RulesError when its ruleset has no simulator). ``field``: the map's
    plan, if already worked out."""
    if fights < 1:
        raise ValueError(f"{fights} fights: play at least one")
    t0 = time.perf_counter()
    engine = Engine(encounter.model_copy(deep=False))
    field = with_plans(field or battlefield(engine), plans)
    outcome = engine.ruleset.simulate_fights(encounter, field, fights, np.random.default_rng(seed))
    return summarise(field, outcome, engine.ruleset.sim_tells_death, time.perf_counter() - t0)

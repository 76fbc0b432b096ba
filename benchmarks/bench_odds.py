"""Whole-fight odds benchmark: fights per second per ruleset, fast and through the engine. A script, not a test.

For each ruleset's demo encounter, from the start of the fight:

    10,000 fights by the fast simulator (numpy, arrays over the fights)    <= 0.5 s  (>= 20,000 fights/s)
    a first estimate of 500 fights                                         <= 100 ms
    the same default tactic through the real Engine, one fight at a time   (the reference: for comparison)

The map's plan (who is how far from whom) is worked out once per state and counted in the first figure.

    python benchmarks/bench_odds.py
"""

from __future__ import annotations

import statistics
import sys
import time

from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.core.sim.reference import reference_odds
from lnl_desktop.core.sim.run import fight_odds
from lnl_desktop.lazy import load_now
from lnl_desktop.paths import demo_encounter_path

DEMOS = ["hill-giant.lnl", "hill-giant-classic.lnl", "goblin-ambush-osr.lnl", "bandit-mill-d10.lnl"]
FULL, FIRST, REFERENCE = 10_000, 500, 100


def _median(run: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    load_now("numpy")
    folder = demo_encounter_path().parent
    for demo in DEMOS:
        encounter = storage.load(folder / demo)
        try:
            field = battlefield(Engine(encounter.model_copy(deep=True)))
            fight_odds(encounter, 100, seed=1, field=field)  # warm: the ruleset's tables
        except RulesError as error:
            print(f"{demo}: {error}")
            continue
        plan = _median(lambda e=encounter: battlefield(Engine(e.model_copy(deep=True))), 3)
        full = _median(lambda e=encounter, f=field: fight_odds(e, FULL, seed=2, field=f), 5)
        first = _median(lambda e=encounter, f=field: fight_odds(e, FIRST, seed=3, field=f), 9)
        t0 = time.perf_counter()
        reference_odds(encounter, REFERENCE, seed=4)
        slow = (time.perf_counter() - t0) / REFERENCE
        verdict = "ok" if full + plan <= 0.5 else "OVER BUDGET"
        print(
            f"{demo}: {FULL:,} fights {full:.3f} s + the map's plan {plan * 1000:.0f} ms "
            f"({FULL / full:,.0f} fights/s; budget 0.5 s, >= 20,000 fights/s) {verdict}"
        )
        ok = "ok" if first <= 0.1 else "OVER BUDGET"
        print(f"  first estimate, {FIRST} fights: {first * 1000:.1f} ms (budget 100 ms) {ok}")
        speedup = slow * FULL / full
        print(f"  through the engine: {slow * 1000:.1f} ms a fight ({1 / slow:,.0f} fights/s), {speedup:,.0f}x slower")
    return 0


if __name__ == "__main__":
    sys.exit(main())
